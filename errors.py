"""Errors that the command line reports as a one-paragraph message (no traceback).

Exit status (``cli/__init__.py``, docs/errors.md): 1 for :class:`AdaptschedError` and its subclasses,
2 for :class:`UsageError` (as argparse's own usage errors).
"""

from __future__ import annotations

import errno
from pathlib import Path


class AdaptschedError(Exception):
    """Base class of every error that adaptsched reports to its user."""


class InputError(AdaptschedError):
    """Bad input data, located as precisely as possible: file, line and field.

    >>> str(InputError("trace.swf", "expected 18 fields, found 17", line=12))
    'trace.swf:12: expected 18 fields, found 17'
    >>> str(InputError("w.json", "must be a positive integer", field="nb_res"))
    "w.json: field 'nb_res': must be a positive integer"
    """

    def __init__(self, path, message: str, *, line: int | None = None, field: str | None = None):
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


def file_problem(error: OSError) -> str:
    """One line saying which file an ``OSError`` is about and why, in the user's terms.

    >>> file_problem(FileNotFoundError(errno.ENOENT, "No such file or directory", "/nowhere/x.xml"))
    '/nowhere/x.xml: the folder /nowhere does not exist'
    """
    path = error.filename
    reason = error.strerror or str(error)
    if path is None:
        return reason
    if error.errno == errno.ENOENT and not Path(path).parent.exists():
        reason = f"the folder {Path(path).parent} does not exist"
    elif error.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        reason = f"{reason} (check the path and its permissions)"
    return f"{path}: {reason}"


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1 (a usage error, exit 2, otherwise).

    >>> positive_int("3")
    3
    """
    import argparse

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
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
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def positive_float(text: str) -> float:
    """argparse type: a finite number > 0 (a usage error, exit 2, otherwise).

    >>> positive_float("0.5")
    0.5
    """
    import argparse

    value = finite_float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, got {text}")
    return value
