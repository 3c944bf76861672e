"""Reader for the Standard Workload Format (SWF 2.2) of the Parallel Workloads Archive.

    >>> trace = read_swf("CTC-SP2-1996-3.1-cln.swf.gz")      # doctest: +SKIP
    >>> trace.header_int("MaxNodes"), len(trace.jobs), trace.jobs[0].runtime_s  # doctest: +SKIP
    (338, 77222, 937)

File rules (SWF 2.2):

* Plain ``.swf`` or gzip ``.swf.gz``: gzip is recognised by its magic bytes, whatever
  the name. A file named ``*.gz`` that is not gzip is an error. The file is read as a stream
  (:func:`adaptsched.formats.files.opened`: gzip inflated block by block, refused past 200
  times its size), judged on its first 64 KiB: binary data is an error; UTF-16 (with or without
  a byte-order mark) is read as such, UTF-8 otherwise (a byte-order mark skipped, invalid bytes
  replaced). Lines end with LF, CR LF or CR alone; a line longer than
  :data:`~adaptsched.limits.MAX_SWF_LINE_BYTES` characters is an error.
* One job per line, 18 whitespace-separated numeric fields (see ``SWF_FIELDS``).
  Empty lines are skipped. Lines starting with ``;`` are comments.
* The header is the block of ``; Key: value`` comment lines before the first job line.
  ``SwfTrace.header`` maps each key to its value (stripped). A comment line without
  a ``Key:`` that follows a key line continues that key's value (as the
  ``Information`` and ``Note`` lines of the archive's logs do); a key that appears
  several times (``Note``, ``Queue``, ...) keeps every value. In both cases the parts are
  joined with a newline, so ``header["Queue"]`` of CTC-SP2 is ``"1 DSI\\n2 astro\\n..."``
  and nothing of the header is lost. An empty ``;`` line ends a continuation.
  ``SwfTrace.header_lines`` keeps the header comment lines verbatim. Comment lines after
  the first job line are ignored.
* Value types: the integer fields (job number, processor counts, status, user, group,
  application, queue, partition, preceding job) must be integers. The time and memory
  fields (submit, wait, run, average CPU, used and requested memory, requested time,
  think time) may be decimals: they are returned as ``int`` when the value is a whole
  number (``"142.00"`` gives ``142``) and as ``float`` otherwise.
* -1 means "missing / not applicable". Real logs also hold other negative values; they
  are returned as read (the converter decides: a negative submit time or runtime drops
  the job, a negative processor count or estimate counts as missing), and, in the fields
  other than submit time and runtime, counted in ``SwfTrace.odd_values``.
* Fields the simulation does not need (``NEEDED_FIELDS`` lists those it does: job number,
  submit time, runtime, allocated and requested processors, requested time) never stop
  the reading: a value there that is not a number (or not an integer in an integer
  field) is returned as -1 (missing) and counted in ``SwfTrace.odd_values`` with
  example line numbers, as are negative values other than -1. The status (field 11) is
  one of them: any integer is returned as read, for the converter to judge.

A line without 18 fields, and a value that is not a number in a field the simulation
needs, raise ``adaptsched.errors.InputError`` naming the file, the 1-based line number
and the field, e.g.::

    trace.swf:12: expected 18 fields, found 17
    trace.swf:40: field 'runtime_s': 'abc' is not a number (SWF field 4, Run Time)

A missing or unreadable file, or a corrupt gzip stream, is an ``InputError`` too.

:func:`write_swf` writes a Batsim JSON workload of delay jobs as SWF (every generator's
``--swf``); ``convert`` reads it back to the same jobs.

Speed: the full CTC-SP2 cleaned trace (77,222 jobs, 1.4 MB gzip) is read in about 0.4-0.5 s
(Python 3.11, one core of a small VM).
"""

from __future__ import annotations

import codecs
import hashlib
import math
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import NamedTuple

from adaptsched.errors import InputError
from adaptsched.formats.files import head, opened, text_kind, write_text
from adaptsched.limits import MAX_SWF_LINE_BYTES, shown

__all__ = ["EXCERPT_DIR", "NEEDED_FIELDS", "SWF_FIELDS", "OddValues", "SwfJob", "SwfTrace", "read_swf", "write_swf"]

#: Small gzip SWF excerpts of real traces shipped with the package (see make_excerpts.py
#: there): CTC-SP2-1996-3.1-cln.first5000.swf.gz, SDSC-SP2-1998-4.2-cln.first2000.swf.gz.
EXCERPT_DIR = Path(__file__).resolve().parent / "excerpts"


class SwfJob(NamedTuple):
    """One SWF job line: the 18 fields, in file order, and the line number (1-based)."""

    job_number: int
    submit_s: float  # int when whole; may be negative (the converter drops those jobs)
    wait_s: float
    runtime_s: float
    allocated_procs: int
    avg_cpu_s: float
    used_memory_kb: float
    requested_procs: int
    requested_time_s: float  # the user estimate (wall-clock request), -1 if missing
    requested_memory_kb: float
    status: int  # 1 completed, 0 failed, 5 cancelled, 2/3/4 checkpoint parts, -1 n/a
    user: int
    group: int
    app: int
    queue: int
    partition: int
    preceding_job: int
    think_time_s: float
    line: int


#: (attribute name, SWF field number, archive name) for the 18 fields, in file order.
SWF_FIELDS: tuple[tuple[str, int, str], ...] = (
    ("job_number", 1, "Job Number"),
    ("submit_s", 2, "Submit Time"),
    ("wait_s", 3, "Wait Time"),
    ("runtime_s", 4, "Run Time"),
    ("allocated_procs", 5, "Number of Allocated Processors"),
    ("avg_cpu_s", 6, "Average CPU Time Used"),
    ("used_memory_kb", 7, "Used Memory"),
    ("requested_procs", 8, "Requested Number of Processors"),
    ("requested_time_s", 9, "Requested Time"),
    ("requested_memory_kb", 10, "Requested Memory"),
    ("status", 11, "Status"),
    ("user", 12, "User ID"),
    ("group", 13, "Group ID"),
    ("app", 14, "Executable (Application) Number"),
    ("queue", 15, "Queue Number"),
    ("partition", 16, "Partition Number"),
    ("preceding_job", 17, "Preceding Job Number"),
    ("think_time_s", 18, "Think Time from Preceding Job"),
)
_N_FIELDS = len(SWF_FIELDS)
assert SwfJob._fields[:_N_FIELDS] == tuple(name for name, _, _ in SWF_FIELDS)

# 0-based indexes of the fields that must hold integers; the others may be decimals.
_INT_FIELDS = frozenset(
    i
    for i, (name, _, _) in enumerate(SWF_FIELDS)
    if name
    in {
        "job_number",
        "allocated_procs",
        "requested_procs",
        "status",
        "user",
        "group",
        "app",
        "queue",
        "partition",
        "preceding_job",
    }
)
_INT_FIELD_LIST = sorted(_INT_FIELDS)
_SUBMIT = 1

#: The fields a simulation needs: a value that is not a number there stops the reading.
NEEDED_FIELDS = frozenset(
    ("job_number", "submit_s", "runtime_s", "allocated_procs", "requested_procs", "requested_time_s")
)
_NEEDED = frozenset(i for i, (name, _, _) in enumerate(SWF_FIELDS) if name in NEEDED_FIELDS)
# Negative values the converter reports itself (dropped jobs, status codes): not counted as odd.
_SILENT_NEGATIVE = frozenset(
    i for i, (name, _, _) in enumerate(SWF_FIELDS) if name in ("submit_s", "runtime_s", "status")
)
MAX_EXAMPLE_LINES = 5


@dataclass(slots=True)
class OddValues:
    """Values of one field that the reader accepted although SWF 2.2 does not define them."""

    negative: int = 0  # negative but not -1: returned as read
    unreadable: int = 0  # not a number (or not an integer): returned as -1
    lines: list[int] = field(default_factory=list)  # up to MAX_EXAMPLE_LINES examples

    def add(self, lineno: int, unreadable: bool) -> None:
        if unreadable:
            self.unreadable += 1
        else:
            self.negative += 1
        if len(self.lines) < MAX_EXAMPLE_LINES:
            self.lines.append(lineno)


_KEY_LINE = re.compile(r";\s*([A-Za-z][A-Za-z0-9_]*)\s*:(?:\s+(.*?))?\s*$")
_LEADING_INT = re.compile(r"\s*([-+]?\d+)")
# What SWF numbers look like; Python's int()/float() also accept '1_000', 'nan', 'inf'.
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


@dataclass(slots=True)
class SwfTrace:
    """A parsed SWF file.

    ``header`` maps header keys to values (continuations and repeated keys joined with
    newlines, see the module docstring); ``header_lines`` are the header comment lines
    verbatim; ``jobs`` are in file order; ``sha256`` is the digest of the file as stored
    (compressed, for a ``.gz``).
    """

    path: str
    header: dict[str, str]
    jobs: list[SwfJob]
    header_lines: list[str] = field(default_factory=list)
    sha256: str = ""
    #: field name -> the odd values read there (negative, or unreadable in a field the
    #: simulation does not need); see the module docstring.
    odd_values: dict[str, OddValues] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The file's base name, e.g. ``CTC-SP2-1996-3.1-cln.swf.gz``."""
        return os.path.basename(self.path)

    def header_int(self, key: str) -> int | None:
        """The integer that starts a header value, or None.

        ``MaxNodes: 338 (batch partition; 512 total)`` gives 338. A missing key or a value
        that does not start with an integer gives None.
        """
        value = self.header.get(key)
        if value is None:
            return None
        match = _LEADING_INT.match(value)
        return int(match.group(1)) if match else None


def read_swf(path: str | os.PathLike) -> SwfTrace:
    """Read an SWF file (plain or gzip, UTF-8 or UTF-16), as a stream. Raise ``InputError`` on
    any problem."""
    path_str = os.fspath(path)
    digest = hashlib.sha256()
    with opened(path_str, raw=digest.update) as (gzipped, chunks):
        if path_str.endswith(".gz") and not gzipped:
            raise InputError(path_str, "named .gz but not gzip-compressed")
        first, chunks = head(chunks)
        kind = text_kind(first)
        if kind == "binary":
            raise InputError(path_str, "not a text file (it holds binary data): an SWF trace is text, one job a line")
        encoding = "utf-8" if kind in ("text", "gzip") else kind
        if first[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
            encoding = "utf-16"  # the mark says which and is skipped
        decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
        header, header_lines, jobs, odd = _parse(chain.from_iterable(_lines(chunks, decoder, path_str)), path_str)
    return SwfTrace(
        path=path_str, header=header, jobs=jobs, header_lines=header_lines, sha256=digest.hexdigest(), odd_values=odd
    )


def looks_binary(data: bytes, sample: int = 65536) -> bool:
    """Whether ``data`` is not text: a NUL byte (but UTF-16), or more than 10 % of control
    characters (but tabs and line ends), in its first ``sample`` bytes. Comments in Latin-1 stay text."""
    return text_kind(data[:sample]) == "binary"


def _lines(chunks: Iterator[bytes], decoder: codecs.IncrementalDecoder, path: str) -> Iterator[list[str]]:
    """The lines of the decoded ``chunks``, a list per chunk: line ends ``\\n``, ``\\r\\n`` or ``\\r``
    alone (old Mac files), a leading byte-order mark skipped; a line longer than
    :data:`~adaptsched.limits.MAX_SWF_LINE_BYTES` stops the reading."""
    carry = ""
    count = 0
    start = True
    final = False
    while not final:
        chunk = next(chunks, None)
        final = chunk is None
        text = carry + decoder.decode(chunk or b"", final)
        if start and text:
            text, start = text.removeprefix("\ufeff"), False
        held = ""
        if "\r" in text:
            if text.endswith("\r") and not final:  # may be the first half of \r\n
                text, held = text[:-1], "\r"
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        lines = text.split("\n")
        carry = "" if final else lines.pop() + held
        if len(carry) > MAX_SWF_LINE_BYTES or (
            len(text) > MAX_SWF_LINE_BYTES and max(map(len, lines), default=0) > MAX_SWF_LINE_BYTES
        ):
            long = next((i for i, line in enumerate(lines) if len(line) > MAX_SWF_LINE_BYTES), len(lines))
            raise InputError(
                path,
                f"a line longer than {MAX_SWF_LINE_BYTES:,} characters: not an SWF trace (its lines are "
                "18 numbers, or ';' comments)",
                line=count + long + 1,
            )
        count += len(lines)
        yield lines


def _parse(lines: Iterable[str], path: str) -> tuple[dict[str, str], list[str], list[SwfJob], dict[str, OddValues]]:
    odd: dict[str, OddValues] = {}
    header: dict[str, str] = {}
    header_lines: list[str] = []
    jobs: list[SwfJob] = []
    append = jobs.append
    make = SwfJob._make
    in_header = True
    current_key: str | None = None

    for lineno, raw in enumerate(lines, 1):
        s = raw.strip()
        if not s:
            continue
        if s[0] == ";":
            if in_header:
                header_lines.append(raw.rstrip("\r"))
                current_key = _header_line(s, header, current_key)
            continue
        in_header = False
        parts = s.split()
        if len(parts) != _N_FIELDS:
            raise InputError(path, f"expected {_N_FIELDS} fields, found {len(parts)}", line=lineno)
        if "." in s or "_" in s or "e" in s or "E" in s:
            values = _parse_decimals(parts, s, path, lineno, odd)
        else:
            try:
                values = list(map(int, parts))
            except ValueError:
                values = _parse_fields(parts, path, lineno, odd)  # notes its odd values
            else:
                if min(values) < -1:  # all integers: only a value below -1 is odd
                    _note_negatives(values, lineno, odd)
        values.append(lineno)
        append(make(values))
    return header, header_lines, jobs, odd


def _header_line(s: str, header: dict[str, str], current_key: str | None) -> str | None:
    """Record one header comment line; return the key that a continuation would extend."""
    match = _KEY_LINE.match(s)
    if match:
        key, value = match.group(1), match.group(2) or ""
        header[key] = f"{header[key]}\n{value}" if key in header else value
        return key
    body = s[1:].strip()
    if not body:
        return None  # an empty ';' line ends a continuation
    if current_key is not None:
        previous = header[current_key]
        header[current_key] = f"{previous}\n{body}" if previous else body
    return current_key


def _parse_decimals(parts: list[str], s: str, path: str, lineno: int, odd: dict[str, OddValues]) -> list:
    """Fast path for a line with decimals; defers to _parse_fields on anything unusual."""
    if "_" in s:  # int('1_000') is 1000 in Python, not in SWF
        return _parse_fields(parts, path, lineno, odd)
    try:
        values = [int(p) if "." not in p else _decimal(p) for p in parts]
    except ValueError:
        return _parse_fields(parts, path, lineno, odd)
    for i in _INT_FIELD_LIST:
        if values[i].__class__ is float:
            return _parse_fields(parts, path, lineno, odd)
    if min(values) < -1:
        _note_negatives(values, lineno, odd)
    return values


def _decimal(text: str) -> int | float:
    """'142.00' -> 142, '0.5' -> 0.5; ValueError for anything _parse_fields must judge."""
    value = float(text)
    if value.is_integer():
        return int(value)
    if value < 0 or not math.isfinite(value):  # -0.5 (judged there), nan, inf
        raise ValueError(text)
    return value


def _parse_fields(parts: list[str], path: str, lineno: int, odd: dict[str, OddValues]) -> list:
    """Slow path: convert and check each field. A value that is not a number stops the
    reading in a field the simulation needs (naming it), and is -1 (counted) elsewhere."""
    values: list = []
    for i, text in enumerate(parts):
        name, number, long_name = SWF_FIELDS[i]
        problem = None
        value: int | float = -1
        if not _NUMBER.fullmatch(text):
            problem = f"{shown(text)} is not a number"
        else:
            try:
                value = int(text)
            except ValueError:
                number_value = float(text)
                if not math.isfinite(number_value):
                    problem = f"{shown(text)} is not a finite number"
                elif number_value.is_integer():
                    value = int(number_value)
                elif i in _INT_FIELDS:
                    problem = f"{shown(text)} is not an integer"
                else:
                    value = number_value
        if problem is not None:
            if i in _NEEDED:
                raise InputError(path, f"{problem} (SWF field {number}, {long_name})", line=lineno, field=name)
            odd.setdefault(name, OddValues()).add(lineno, unreadable=True)
            value = -1
        values.append(value)
    _note_negatives(values, lineno, odd)
    return values


def _note_negatives(values: list, lineno: int, odd: dict[str, OddValues]) -> None:
    for i, value in enumerate(values):
        if value < 0 and value != -1 and i not in _SILENT_NEGATIVE:
            odd.setdefault(SWF_FIELDS[i][0], OddValues()).add(lineno, unreadable=False)


# --------------------------------------------------------------------------------------
# Writer
# --------------------------------------------------------------------------------------
def _swf_number(value) -> str:
    """Shortest exact text of a time: 3600 -> '3600', 3600.0 -> '3600', 12.5 -> '12.5'."""
    if isinstance(value, float):
        if value.is_integer():
            return str(int(value))
        return repr(value)
    return str(value)


def write_swf(workload: dict, path: str | os.PathLike, *, requested_procs_from_res: bool = False) -> Path:
    """Write the jobs of a Batsim JSON workload (delay profiles) as an SWF trace.

    Header: the ``swf_header`` of the workload's adaptsched metadata (a generator's, or the
    header of the trace ``convert`` read), one ``; Key: value`` line per value line; without
    one, ``MaxNodes`` and ``MaxProcs`` = ``nb_res``.

    Job lines, 18 fields: 1 the job id (renumbered 1.. if some id is not a positive integer),
    2 subtime + the metadata's ``submit_offset_s``, 4 the profile's delay, 5 ``res``, 8 the
    job's ``requested_procs`` (or ``res`` with ``requested_procs_from_res``), 9 its
    ``estimate_s`` when > 0, 11 ``status`` (default 1), 12, 13, 16 ``user``, ``group``,
    ``partition``, 15 ``queue`` or else ``type`` (Lublin's job type); -1 elsewhere. Times are
    written exactly (whole numbers without decimals), so that ``convert`` reads them back.
    """
    from adaptsched.errors import AdaptschedError
    from adaptsched.workloads.batsim_json import metadata

    meta = metadata(workload)
    header = meta.get("swf_header") or {"MaxNodes": workload["nb_res"], "MaxProcs": workload["nb_res"]}
    offset = meta.get("submit_offset_s") or 0
    profiles = workload["profiles"]
    jobs = workload["jobs"]
    ids = [str(job["id"]) for job in jobs]
    if not all(i.isdigit() and int(i) > 0 for i in ids) or len(set(map(int, ids))) != len(ids):
        ids = [str(i) for i in range(1, len(jobs) + 1)]
    lines = [f"; {key}: {part}" for key, value in header.items() for part in str(value).split("\n")]
    for number, job in zip(ids, jobs):
        profile = profiles[job["profile"]]
        if profile.get("type") != "delay":
            raise AdaptschedError(
                f"job {job['id']}: profile {job['profile']!r} is not a delay profile: SWF needs a runtime"
            )
        estimate = job.get("estimate_s", -1)
        fields = (
            number,
            _swf_number(job["subtime"] + offset),
            -1,
            _swf_number(profile["delay"]),
            job["res"],
            -1,
            -1,
            job["res"] if requested_procs_from_res else job.get("requested_procs", -1),
            _swf_number(estimate) if estimate is not None and estimate > 0 else -1,
            -1,
            job.get("status", 1),
            job.get("user", -1),
            job.get("group", -1),
            -1,
            job.get("queue", job.get("type", -1)),
            job.get("partition", -1),
            -1,
            -1,
        )
        lines.append(" ".join(map(str, fields)))
    return write_text(path, "\n".join(lines) + "\n")
