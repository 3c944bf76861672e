"""Errors that the command line reports as a one-paragraph message (no traceback).

Exit status (``cli/__init__.py``, docs/errors.md): 1 for :class:`AdaptschedError` and its subclasses,
2 for :class:`UsageError` (as argparse's own usage errors).
"""

from __future__ import annotations

import errno
import io
import re
from collections.abc import Callable
from pathlib import Path
from types import ModuleType, TracebackType

from adaptsched.limits import shown


class AdaptschedError(Exception):
    """Base class of every error that adaptsched reports to its user."""


class InputError(AdaptschedError):
    """Bad input data, located as precisely as possible: file, line and field.

    >>> str(InputError("trace.swf", "expected 18 fields, found 17", line=12))
    'trace.swf:12: expected 18 fields, found 17'
    >>> str(InputError("w.json", "must be a positive integer", field="nb_res"))
    "w.json: field 'nb_res': must be a positive integer"
    """

    def __init__(self, path: object, message: str, *, line: int | None = None, field: str | None = None):
        self.path = str(path)
        self.line = line
        self.field = field
        self.message = message
        where = self.path if line is None else f"{self.path}:{line}"
        what = message if field is None else f"field '{field}': {message}"
        super().__init__(f"{where}: {what}")


class InputRefused(AdaptschedError):
    """A scheduler refuses its input before the first event: the workload lacks what it needs
    (:mod:`adaptsched.core.needs`; the message names the command that prepares it)."""


class SimulationError(AdaptschedError):
    """A run failed: invalid scheduler decision, crashed process, broken protocol."""


#: How a run stopped by its scheduler timeout says so, on either transport (``check`` looks for it:
#: it does not give real Batsim a workload the plugin hung on).
NO_ANSWER = "did not answer within"


class UsageError(AdaptschedError):
    """A command line that cannot work as given: arguments that contradict each other, an
    argument value out of range. The command line exits with status 2, as argparse does."""


#: What a command says when its work does not fit in memory (exit status 1).
OUT_OF_MEMORY = (
    "out of memory: this work needs more memory than the machine, or its limit (ulimit -v), gives; "
    "the limits of inputs are in docs/errors.md"
)
#: Past this many characters, a token (no white space) of an error message is elided, and past
#: :data:`_MESSAGE_CHARS` the message itself: a 10-million-digit number is not repeated whole.
_TOKEN_CHARS = 200
_MESSAGE_CHARS = 20_000
_LONG_TOKEN = re.compile(r"\S{%d,}" % (_TOKEN_CHARS + 1))


def elided(message: str) -> str:
    """``message`` with each token longer than 200 characters cut to its ends, and the whole cut
    past 20,000 characters.

    >>> elided("bad " + "7" * 1_000_000 + " here")
    'bad 7777777777777777777777777777777777777777[... 999,940 characters ...]77777777777777777777 here'
    """
    if len(message) <= _TOKEN_CHARS:
        return message

    def cut(match: re.Match[str]) -> str:
        token = match.group()
        return f"{token[:40]}[... {len(token) - 60:,} characters ...]{token[-20:]}"

    message = _LONG_TOKEN.sub(cut, message)
    if len(message) > _MESSAGE_CHARS:
        cut_out = len(message) - _MESSAGE_CHARS
        message = f"{message[: _MESSAGE_CHARS - 2000]} [... {cut_out:,} characters ...] {message[-2000:]}"
    return message


def file_problem(error: OSError) -> str:
    """One line saying which file an ``OSError`` is about and why, in the user's terms; an error
    without a file name (a full disk) is named by the file its traceback was writing.

    >>> file_problem(FileNotFoundError(errno.ENOENT, "No such file or directory", "/nowhere/x.xml"))
    '/nowhere/x.xml: the folder /nowhere does not exist'
    """
    path = error.filename if error.filename is not None else written_file(error.__traceback__)
    reason = error.strerror or str(error)
    if path is None:
        return reason
    if error.errno == errno.ENOENT and not Path(path).parent.exists():
        reason = f"the folder {Path(path).parent} does not exist"
    elif error.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        reason = f"{reason} (check the path and its permissions)"
    return f"{path}: {reason}"


def written_file(trace: TracebackType | None) -> str | None:
    """The name of the file that the innermost frame of ``trace`` holding one open for writing
    held (a local, or an attribute of one: ``self._file``), or None."""
    frames = []
    while trace is not None:
        frames.append(trace.tb_frame)
        trace = trace.tb_next
    for frame in reversed(frames):
        for value in frame.f_locals.values():
            for candidate in (value, *_attributes(value)):
                name = _writing(candidate)
                if name is not None:
                    return name
    return None


def _attributes(value: object) -> list[object]:
    if isinstance(value, (type, ModuleType)) or not hasattr(value, "__dict__"):
        return []
    return list(vars(value).values())


def _writing(value: object) -> str | None:
    if not isinstance(value, io.IOBase):
        return None
    mode, name = getattr(value, "mode", ""), getattr(value, "name", None)
    if isinstance(name, str) and isinstance(mode, str) and any(flag in mode for flag in "wax+"):
        return name
    return None


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1 (a usage error, exit 2, otherwise).

    >>> positive_int("3")
    3
    """
    import argparse

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {shown(text)}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def at_most(maximum: int) -> Callable[[str], int]:
    """argparse type: a whole number from 1 to ``maximum`` (a stated limit: docs/errors.md).

    >>> at_most(10)("3")
    3
    """
    import argparse

    def whole(text: str) -> int:
        value = positive_int(text)
        if value > maximum:
            raise argparse.ArgumentTypeError(f"at most {maximum:,} (docs/errors.md, limits), got {shown(text, 30)}")
        return value

    return whole


def hosts_arg(text: str) -> int:
    """argparse type: a number of hosts, from 1 to :data:`~adaptsched.limits.MAX_HOSTS` (a usage
    error, exit 2, otherwise); ``1e5`` is 100000.

    >>> hosts_arg("338"), hosts_arg("1e5")
    (338, 100000)
    """
    import argparse

    try:
        value = hosts_in_range(text)
    except UsageError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return value


def hosts_in_range(text: str | int) -> int:
    """A number of hosts (text or int) from 1 to :data:`~adaptsched.limits.MAX_HOSTS`, or a
    :class:`UsageError` naming the limit."""
    from adaptsched.limits import MAX_HOSTS

    if isinstance(text, int):
        value = text
    else:
        try:
            value = int(text)
        except ValueError:
            if text.strip().lstrip("+").isdigit():  # past Python's 4,300 digits: more than any limit
                raise UsageError(
                    f"at most {MAX_HOSTS:,} hosts (the largest machine adaptsched simulates; docs/errors.md, "
                    f"limits), got {shown(str(text), 30)}"
                ) from None
            try:
                number = float(text)
            except ValueError:
                raise UsageError(f"expected a whole number of hosts, got {shown(str(text))}") from None
            if not number.is_integer():
                raise UsageError(f"expected a whole number of hosts, got {shown(str(text))}") from None
            value = int(number)
    if value < 1:
        raise UsageError(f"a machine's hosts must be at least 1, got {value}")
    if value > MAX_HOSTS:
        raise UsageError(
            f"at most {MAX_HOSTS:,} hosts (the largest machine adaptsched simulates; docs/errors.md, limits), "
            f"got {shown(str(text), 30)}"
        )
    return value


def finite_float(text: str) -> float:
    """argparse type: a finite number (NaN and infinities are usage errors, exit 2).

    >>> finite_float("2.5")
    2.5
    """
    import argparse
    import math

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {shown(text)}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {shown(text)}")
    return value


def positive_float(text: str) -> float:
    """argparse type: a finite number > 0 (a usage error, exit 2, otherwise).

    >>> positive_float("0.5")
    0.5
    """
    import argparse

    value = finite_float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, got {shown(text)}")
    return value
