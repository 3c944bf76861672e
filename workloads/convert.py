"""Conversion of an SWF trace into a Batsim (v4) JSON workload of delay jobs.

    >>> workload, report = convert_swf("CTC-SP2-1996-3.1-cln.swf.gz")   # doctest: +SKIP
    >>> print(report.summary())                                          # doctest: +SKIP
    >>> write_workload(workload, "ctc.json")                             # doctest: +SKIP

Each SWF job line (see ``adaptsched.workloads.swf``) is examined in file order; the first
rule below that applies decides its fate. A line is either *kept* (a job), *dropped* (bad
or unusable data, counted per reason with example line numbers), *not selected* (outside
the requested window) or *merged* (a partial-execution line of a checkpointed job, see
status codes below). ``read = kept + dropped + not selected + merged`` always holds.

Status codes (SWF field 11). No code stops the conversion or drops a job by itself; the
summary counts the kept jobs per code and names every code other than -1, 0, 1 and 5:

* 1 completed, 0 failed, 5 cancelled, -1 unknown: kept (a cancelled job that never ran
  has runtime 0 or -1 and is dropped by rule 6, not for its status).
* 2, 3, 4 (SWF 2.2: partial executions of a checkpointed or swapped-out job: 2 "will be
  continued", 3 "last part, completed", 4 "last part, failed"). The archive's convention
  is one summary line per job (status 0, 1 or 5, the whole runtime) plus one line per
  part with the same job number. A part whose job has a summary line is *merged* into it
  (the job is simulated once, from its summary). A job with parts but no summary line is
  kept once, from its first part, with the sum of its parts' runtimes as runtime (noted).
* Any other code (negative, or above 5, as some raw logs hold): kept as it ran, counted
  and named in the summary ("not an SWF 2.2 code").

Fields the simulation does not need never stop the conversion: the reader returns an
unreadable value there as -1 and counts it, and every negative value other than -1
(see ``SwfTrace.odd_values``); the summary names those fields with example lines.

Selection and drops, in order:

1. ``first=N``: once N jobs are kept, the remaining lines are not examined
   (not selected: "after the first N kept jobs").
2. Submit time (SWF field 2) < 0: dropped ("negative submit time").
3. ``start_s`` / ``end_s``: only jobs whose ORIGINAL SWF submit time is in
   [start_s, end_s) are examined further (not selected: "outside the time window").
   ``first`` counts kept jobs inside the window.
4. Processor count: ``res`` = field 5 (allocated processors) when > 0, else field 8
   (requested processors) when > 0, else dropped ("no processor count").
5. Machine size: ``res`` > hosts: dropped ("wider than the machine (N hosts)").
6. Runtime (field 4) negative other than -1: dropped ("negative runtime"). Runtime 0 or
   -1, rule ``zero_runtime``:
   ``"drop"`` (default; dropped: "runtime 0 or missing") or ``"min:S"`` (kept, with a
   runtime of S seconds, S > 0). Batsim delay profiles need a delay > 0.
7. Walltime. When field 9 (requested time, the user estimate) is > 0, walltime = field 9.
   When it is missing (-1 or 0), rule ``missing_estimate``: ``"runtime+S"`` (walltime =
   runtime + S seconds; the default ``"runtime+1"`` models exact estimates, the usual
   assumption for logs without estimates, with the one second Batsim needs to let the
   job complete, see below), ``"runtime"`` (walltime = runtime exactly),
   ``"factor:K"`` (walltime = K x runtime, K >= 1) or ``"drop"`` (dropped: "no estimate").
8. Runtime past the estimate (runtime > field 9 > 0), rule ``over_estimate``:
   ``"keep"`` (default: walltime stays the estimate, so the simulator kills the job at
   its walltime, as the real machine did; counted as a note, not a drop),
   ``"extend"`` (walltime = runtime) or ``"drop"`` (dropped: "runtime past the estimate").
   Unlike Batsim's ``swf_to_batsim_workload_delay.py``, which silently discards every job
   whose walltime is not strictly above its runtime, no job is dropped for its estimate
   by default.
9. Duplicate job number (a job number already kept, e.g. the later parts of a
   checkpointed job): dropped ("duplicate job number"). Batsim needs unique ids.

Machine size ``hosts``: given, or else from the header (:func:`_default_hosts`): ``MaxNodes``,
but ``MaxProcs`` when it is larger (a log of SMP nodes) and field 5 counts processors, which
the header says (a note on processors per node, SMP nodes, or allocated processors) or the
jobs show (some use more than MaxNodes and no more than MaxProcs: with MaxNodes they would be
dropped); else ``MaxProcs``; else the widest job (largest ``res``). The report says which
field was used and why. The workload's ``nb_res`` is ``hosts``. When more than 1 % of the jobs
are dropped as wider than the machine, the report's hint gives the ``hosts`` that keeps them.

Output (``convert_swf`` returns ``(workload, report)``):

* Job ``id`` = the SWF job number (int); ids are NOT renumbered.
* ``subtime`` = SWF submit time minus ``submit_offset_s``, the smallest submit time among
  the kept jobs (the first kept job, in a trace sorted by submit time): the workload starts
  at 0. The epoch time of subtime 0 is ``unix_start_time + submit_offset_s``.
* ``res`` as above; ``walltime`` as above; ``profile`` = ``"delay_<runtime>"``, one
  ``{"type": "delay", "delay": runtime}`` profile per distinct runtime, shared by all
  jobs with that runtime. The delay is the SWF runtime exactly (Batsim's converter adds
  one second; we do not). Names use the shortest exact decimal form: ``delay_3600``,
  ``delay_12.5``.
* Extra job keys, forwarded verbatim by Batsim to the scheduler: ``user``, ``group``,
  ``queue``, ``partition``, ``requested_procs`` (SWF fields 12, 13, 15, 16, 8),
  ``estimate_s`` (raw field 9, -1 if missing), ``status`` (field 11) and ``swf_line``
  (line number in the SWF file). The true runtime is NOT a job key (it is in the profile;
  schedulers must not peek). No key other than the job id is named ``id`` (Batsim
  rewrites every ``"id":`` of a job's JSON).
* Top-level keys: ``description`` (one line), ``nb_res``, ``adaptsched`` (metadata:
  ``source``, ``source_sha256``, ``hosts``, ``hosts_from``, ``submit_offset_s``,
  ``unix_start_time`` (header UnixStartTime, or null), ``window``, ``rules``, ``report``
  and ``swf_header``, the whole SWF header, which some logs' licences ask to keep with
  derived data), ``profiles`` and ``jobs`` (in file order). Batsim ignores the extra
  top-level keys.
* The output is deterministic: same input and options, same bytes.

Batsim 4.2.1 compares a delay job's runtime with its walltime strictly: a job whose delay
EQUALS its walltime ends at the same time but in state COMPLETED_WALLTIME_REACHED rather
than COMPLETED_SUCCESSFULLY. That is why the default rule for missing estimates adds one
second; with ``missing_estimate="runtime"`` every job without an estimate would end that
way. Jobs whose real estimate equals their runtime keep it (the real machine stopped them
at their limit too); the report counts them in a note.

Report (``ConversionReport``; ``report.summary()`` is the text the command line prints):
``read``, ``kept``, ``dropped`` (reason -> count) with ``drop_lines`` (up to 5 example SWF
line numbers per reason), ``excluded`` (not selected by ``first`` or the window, reason ->
count), and ``counts`` / ``notes`` about kept jobs: ``past_estimate`` (runtime > estimate),
``no_estimate``, ``walltime_equals_runtime``, ``zero_runtime_replaced``,
``res_from_requested`` (no allocated count, field 8 used), ``unsorted_submit``. The same
data is stored in the workload under ``adaptsched.report``.

Bad option values raise ``ConversionOptionError`` (an ``AdaptschedError`` and a
``ValueError``); bad data raises ``InputError`` (from the reader), as does a conversion
that keeps no job.

Speed: linear in the trace's jobs; a year of CTC-SP2 (77,222 jobs, 16 MB of JSON) is read,
converted and written in a few seconds.
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adaptsched.errors import AdaptschedError, InputError
from adaptsched.formats.jsontext import is_int, is_number
from adaptsched.limits import MAX_HOSTS
from adaptsched.workloads.swf import MAX_EXAMPLE_LINES, NEEDED_FIELDS, SwfTrace, read_swf

__all__ = ["ConversionOptionError", "ConversionReport", "convert_swf", "write_workload"]

# Drop and selection reasons (report keys).
DUPLICATE = "duplicate job number"
NEGATIVE_SUBMIT = "negative submit time"
NO_PROCS = "no processor count"
ZERO_RUNTIME = "runtime 0 or missing"
NO_ESTIMATE = "no estimate"
PAST_ESTIMATE = "runtime past the estimate"
OUTSIDE_WINDOW = "outside the time window"
NEGATIVE_RUNTIME = "negative runtime"
PART_MERGED = "partial-execution line (status 2, 3 or 4) of a job with a summary line"
PART_SUMMED = "partial-execution line (status 2, 3 or 4) summed into its job's first part"

#: SWF 2.2 status codes (field 11).
STATUS_NAMES = {
    -1: "unknown",
    0: "failed",
    1: "completed",
    5: "cancelled",
    2: "partial execution, continued",
    3: "last partial execution, completed",
    4: "last partial execution, failed",
}
PARTIAL_STATUSES = frozenset((2, 3, 4))
USUAL_STATUSES = frozenset((-1, 0, 1, 5))


def _wider_than(hosts: int) -> str:
    return f"wider than the machine ({hosts} hosts)"


class ConversionOptionError(AdaptschedError, ValueError):
    """An invalid conversion option (rule string, host count, window)."""


@dataclass
class ConversionReport:
    """What a conversion kept, dropped and noticed.

    ``dropped`` and ``excluded`` (not selected by ``first``/window) map a reason to a count;
    ``drop_lines`` gives up to five example SWF line numbers per drop reason; ``counts``
    holds the noteworthy kept-job counts behind ``notes`` (human sentences).
    """

    source: str
    hosts: int
    hosts_from: str
    read: int = 0
    hosts_why: str = ""  # why that header field (SMP logs), if it needs saying
    hint: str = ""  # what to do when many jobs are dropped as too wide
    kept: int = 0
    dropped: dict[str, int] = field(default_factory=dict)
    drop_lines: dict[str, list[int]] = field(default_factory=dict)
    excluded: dict[str, int] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    count_lines: dict[str, list[int]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    merged: dict[str, int] = field(default_factory=dict)
    statuses: dict[int, int] = field(default_factory=dict)  # status code -> kept jobs
    status_lines: dict[int, list[int]] = field(default_factory=dict)  # examples of unusual codes
    odd_values: dict[str, dict[str, Any]] = field(default_factory=dict)  # from the reader

    @property
    def n_dropped(self) -> int:
        return sum(self.dropped.values())

    @property
    def n_excluded(self) -> int:
        return sum(self.excluded.values())

    @property
    def n_merged(self) -> int:
        return sum(self.merged.values())

    def status_text(self) -> str:
        """The kept jobs per final status in the trace, in words, most first: ``3,789 completed,
        1,211 failed`` (SWF field 11; a code outside SWF 2.2 is named by its number)."""
        parts = []
        for code, n in sorted(self.statuses.items(), key=lambda item: (-item[1], item[0])):
            name = STATUS_NAMES.get(code)
            parts.append(f"{n:,} {name}" if name else f"{n:,} with status {code} (not an SWF 2.2 code)")
        return ", ".join(parts)

    def summary(self) -> str:
        """A few lines of text for the command line."""
        first = (
            f"{self.source}: read {self.read} jobs, kept {self.kept}, dropped {self.n_dropped}"
            + (f", not selected {self.n_excluded}" if self.excluded else "")
            + (f", merged {self.n_merged} partial-execution lines" if self.merged else "")
            + f"; {self.hosts} hosts ({self.hosts_from}{': ' + self.hosts_why if self.hosts_why else ''})"
        )
        lines = [first]
        if self.statuses:
            lines.append(f"  final status in the trace: {self.status_text()}")
        for reason, n in self.dropped.items():
            lines.append(f"  dropped, {reason}: {n} ({_lines_text(self.drop_lines.get(reason, []), n)})")
        for reason, n in self.excluded.items():
            lines.append(f"  not selected, {reason}: {n}")
        for reason, n in self.merged.items():
            lines.append(f"  merged, {reason}: {n}")
        lines.extend(f"  note: {note}" for note in self.notes)
        if self.hint:
            lines.append(f"  hint: {self.hint}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (stored in the workload's metadata)."""
        return {
            "source": self.source,
            "read": self.read,
            "kept": self.kept,
            "dropped": dict(self.dropped),
            "drop_example_lines": {k: list(v) for k, v in self.drop_lines.items()},
            "not_selected": dict(self.excluded),
            "counts": dict(self.counts),
            "notes": list(self.notes),
            "merged": dict(self.merged),
            "statuses": {str(code): n for code, n in sorted(self.statuses.items())},
            "odd_values": dict(self.odd_values),
            "hosts_why": self.hosts_why,
            "hint": self.hint,
        }

    # -- filling in ----------------------------------------------------------------------
    def _drop(self, reason: str, line: int) -> None:
        self.dropped[reason] = self.dropped.get(reason, 0) + 1
        examples = self.drop_lines.setdefault(reason, [])
        if len(examples) < MAX_EXAMPLE_LINES:
            examples.append(line)

    def _count(self, what: str, line: int) -> None:
        self.counts[what] = self.counts.get(what, 0) + 1
        examples = self.count_lines.setdefault(what, [])
        if len(examples) < MAX_EXAMPLE_LINES:
            examples.append(line)


def _lines_text(lines: list[int], n: int) -> str:
    if not lines:
        return "no line"
    word = "line" if len(lines) == 1 else "lines"
    more = ", ..." if n > len(lines) else ""
    return f"{word} {', '.join(map(str, lines))}{more}"


# --------------------------------------------------------------------------------------
# Options
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Rules:
    missing: str  # runtime | margin | factor | drop
    factor: float  # K of factor:K, or S of runtime+S
    over: str  # keep | extend | drop
    zero: str  # drop | min
    zero_runtime: int | float


def _rule_number(option: str, value: str, text: str, minimum: float, strict: bool) -> float:
    try:
        number = float(text)
    except ValueError:
        number = math.nan
    if not math.isfinite(number) or number < minimum or (strict and number == minimum):
        bound = f"> {minimum:g}" if strict else f">= {minimum:g}"
        raise ConversionOptionError(f"{option}={value!r}: {text!r} is not a number {bound}")
    return number


def _parse_rules(missing_estimate: str, over_estimate: str, zero_runtime: str) -> _Rules:
    factor = 1.0
    zero_value: int | float = 0
    if not isinstance(missing_estimate, str):
        raise ConversionOptionError(f"missing_estimate={missing_estimate!r}: expected a string")
    if missing_estimate in ("runtime", "drop"):
        missing = missing_estimate
    elif missing_estimate.startswith("runtime+"):
        missing = "margin"
        factor = _whole(_rule_number("missing_estimate", missing_estimate, missing_estimate[8:], 0.0, True))
    elif missing_estimate.startswith("factor:"):
        missing = "factor"
        factor = _rule_number("missing_estimate", missing_estimate, missing_estimate[7:], 1.0, False)
    else:
        raise ConversionOptionError(
            f"missing_estimate={missing_estimate!r}: expected 'runtime+S' (S > 0), 'runtime', "
            "'factor:K' (K >= 1) or 'drop'"
        )
    if over_estimate not in ("keep", "extend", "drop"):
        raise ConversionOptionError(f"over_estimate={over_estimate!r}: expected 'keep', 'extend' or 'drop'")
    if not isinstance(zero_runtime, str):
        raise ConversionOptionError(f"zero_runtime={zero_runtime!r}: expected a string")
    if zero_runtime == "drop":
        zero = "drop"
    elif zero_runtime.startswith("min:"):
        zero = "min"
        zero_value = _whole(_rule_number("zero_runtime", zero_runtime, zero_runtime[4:], 0.0, True))
    else:
        raise ConversionOptionError(f"zero_runtime={zero_runtime!r}: expected 'drop' or 'min:S' (S > 0)")
    return _Rules(missing, factor, over_estimate, zero, zero_value)


def _check_options(hosts, first, start_s, end_s) -> None:
    if hosts is not None and not (is_int(hosts) and hosts > 0):
        raise ConversionOptionError(f"hosts={hosts!r}: expected a positive integer")
    if first is not None and not (is_int(first) and first > 0):
        raise ConversionOptionError(f"first={first!r}: expected a positive integer")
    for name, value in (("start_s", start_s), ("end_s", end_s)):
        if value is not None and not is_number(value):
            raise ConversionOptionError(f"{name}={value!r}: expected a number of seconds")
    if start_s is not None and end_s is not None and not start_s < end_s:
        raise ConversionOptionError(f"start_s={start_s!r}, end_s={end_s!r}: the window is empty")


def _whole(x):
    """Whole floats as int (so that 3600.0 prints as 3600), others unchanged."""
    if isinstance(x, float) and x.is_integer():
        return int(x)
    return x


def _fmt(x) -> str:
    """Shortest exact decimal text: 3600 -> '3600', 12.5 -> '12.5'."""
    return str(x) if isinstance(x, int) else repr(float(x))


# --------------------------------------------------------------------------------------
# Conversion
# --------------------------------------------------------------------------------------
def convert_swf(
    src: str | os.PathLike | SwfTrace,
    *,
    hosts: int | None = None,
    first: int | None = None,
    start_s: float | None = None,
    end_s: float | None = None,
    missing_estimate: str = "runtime+1",
    over_estimate: str = "keep",
    zero_runtime: str = "drop",
) -> tuple[dict, ConversionReport]:
    """Convert an SWF file (or an already read ``SwfTrace``) into a Batsim workload dict.

    See the module docstring for every rule. Returns ``(workload, report)``.
    """
    rules = _parse_rules(missing_estimate, over_estimate, zero_runtime)
    _check_options(hosts, first, start_s, end_s)
    trace = src if isinstance(src, SwfTrace) else read_swf(src)
    jobs = trace.jobs
    hosts_why = ""
    if hosts is not None:
        hosts_from = "given"
    else:
        hosts, hosts_from, hosts_why = _default_hosts(trace)
        if hosts > MAX_HOSTS:
            raise InputError(
                trace.path,
                f"its {hosts_from.removeprefix('header ')} says {hosts:,} hosts, more than the {MAX_HOSTS:,} "
                "adaptsched simulates (docs/errors.md, limits): give the machine's size with --hosts N",
            )
    report = ConversionReport(source=trace.name, hosts=hosts, hosts_from=hosts_from, read=len(jobs))
    report.hosts_why = hosts_why
    rows = _Rows(rules, hosts, report, jobs, start_s, end_s)
    kept: list[_Kept] = []
    for index, job in enumerate(jobs):
        if first is not None and len(kept) >= first:
            report.excluded[f"after the first {first} kept jobs"] = len(jobs) - index
            break
        row = rows.convert(job)
        if row is not None:
            kept.append(row)
    report.kept = len(kept)
    report.hint = _wide_hint(report.dropped.get(rows.wider, 0), report.read, hosts, hosts_from, rows.widest)
    report.odd_values = {
        name: {"negative": odd.negative, "unreadable": odd.unreadable, "example_lines": list(odd.lines)}
        for name, odd in trace.odd_values.items()
    }
    if not kept:
        raise InputError(trace.path, "no job left after conversion:\n" + report.summary())
    offset, out_jobs, out_profiles = _batsim_jobs(kept, report)
    report.notes = _notes(report, rules)
    options = {
        "window": {"first": first, "start_s": start_s, "end_s": end_s},
        "rules": {"missing_estimate": missing_estimate, "over_estimate": over_estimate, "zero_runtime": zero_runtime},
    }
    return _workload(trace, report, offset, options, out_profiles, out_jobs), report


def batsim_workload(
    workload: str | os.PathLike, hosts: int, converted: str | os.PathLike
) -> tuple[Path, ConversionReport | None]:
    """A command's workload as a Batsim JSON file: ``workload`` itself, or the SWF trace it names
    (``.swf``, ``.swf.gz``) converted for ``hosts`` hosts and written to ``converted``, with the
    conversion's report (None for a Batsim JSON file)."""
    path = Path(workload)
    if not path.exists():
        raise InputError(workload, "no such workload file")
    if not path.name.lower().endswith((".swf", ".swf.gz")):
        return path, None
    batsim, report = convert_swf(path, hosts=hosts)
    return write_workload(batsim, converted), report


#: A kept job: (its SWF line, hosts, runtime, walltime).
_Kept = tuple[Any, int, Any, Any]


class _Rows:
    """The conversion's rules, one SWF line at a time (:meth:`convert`), in the module doc's
    order; what a rule drops, selects out, merges or notes goes into the report."""

    def __init__(
        self,
        rules: _Rules,
        hosts: int,
        report: ConversionReport,
        jobs: list[Any],
        start_s: float | None,
        end_s: float | None,
    ):
        self.rules, self.hosts, self.report = rules, hosts, report
        self.wider = _wider_than(hosts)
        self.widest = 0  # the widest job dropped as too wide
        self.kept_numbers: set[int] = set()
        # Checkpointed jobs: which job numbers have a summary line, and the summed runtime
        # of the parts of those that have none.
        self.summarised = {job.job_number for job in jobs if job.status not in PARTIAL_STATUSES}
        self.parts_runtime: dict[int, float] = {}
        for job in jobs:
            if job.status in PARTIAL_STATUSES and job.job_number not in self.summarised and job.runtime_s > 0:
                self.parts_runtime[job.job_number] = self.parts_runtime.get(job.job_number, 0) + job.runtime_s
        self.first_parts: set[int] = set()
        self.window = start_s is not None or end_s is not None
        self.lo = -math.inf if start_s is None else start_s
        self.hi = math.inf if end_s is None else end_s

    def convert(self, job: Any) -> _Kept | None:
        """The kept job of an SWF line, or None (dropped, not selected or merged)."""
        if self.merged(job) or not self.selected(job):
            return None
        noted: list[str] = []  # counts for the notes, made only if the job is kept
        res = self.processors(job, noted)
        if res is None:
            return None
        runtime = self.runtime(job, noted)
        if runtime is None:
            return None
        walltime = self.walltime(job, runtime, noted)
        if walltime is None or not self.keep(job, noted):
            return None
        return job, res, runtime, walltime

    def merged(self, job: Any) -> bool:
        """A partial-execution line of a job that has a summary line, or whose first part is
        kept (with the runtime of all its parts)."""
        if job.status in PARTIAL_STATUSES and (job.job_number in self.summarised or job.job_number in self.first_parts):
            reason = PART_MERGED if job.job_number in self.summarised else PART_SUMMED
            self.report.merged[reason] = self.report.merged.get(reason, 0) + 1
            return True
        return False

    def selected(self, job: Any) -> bool:
        """Submitted at a time >= 0 (else dropped) and inside the time window (else not selected)."""
        if job.submit_s < 0:
            self.report._drop(NEGATIVE_SUBMIT, job.line)
            return False
        if self.window and not self.lo <= job.submit_s < self.hi:
            self.report.excluded[OUTSIDE_WINDOW] = self.report.excluded.get(OUTSIDE_WINDOW, 0) + 1
            return False
        return True

    def processors(self, job: Any, noted: list[str]) -> int | None:
        """The allocated processors, else the requested ones; None (dropped) if neither, or if
        wider than the machine."""
        res = job.allocated_procs
        if res <= 0:
            res = job.requested_procs
            if res <= 0:
                self.report._drop(NO_PROCS, job.line)
                return None
            noted.append("res_from_requested")
        if res > self.hosts:
            self.report._drop(self.wider, job.line)
            self.widest = max(self.widest, int(res))
            return None
        return int(res)

    def runtime(self, job: Any, noted: list[str]) -> Any:
        """The runtime (a job without a summary line: the sum of its parts'); None (dropped) if
        negative, or 0 or missing under ``zero_runtime=drop``."""
        runtime = job.runtime_s
        if job.status in PARTIAL_STATUSES:  # the first part of a job without a summary line
            self.first_parts.add(job.job_number)
            runtime = _whole(self.parts_runtime.get(job.job_number, runtime))
            noted.append("parts_summed")
        if runtime < 0 and runtime != -1:
            self.report._drop(NEGATIVE_RUNTIME, job.line)
            return None
        if runtime <= 0:
            if self.rules.zero == "drop":
                self.report._drop(ZERO_RUNTIME, job.line)
                return None
            runtime = self.rules.zero_runtime
            noted.append("zero_runtime_replaced")
        return runtime

    def walltime(self, job: Any, runtime: Any, noted: list[str]) -> Any:
        """The estimate, or what ``over_estimate`` and ``missing_estimate`` make of it; None
        (dropped) under their ``drop``."""
        rules, estimate = self.rules, job.requested_time_s
        if estimate > 0:
            walltime = estimate
            if runtime > estimate:
                if rules.over == "drop":
                    self.report._drop(PAST_ESTIMATE, job.line)
                    return None
                if rules.over == "extend":
                    walltime = runtime
                noted.append("past_estimate")
        else:
            if rules.missing == "drop":
                self.report._drop(NO_ESTIMATE, job.line)
                return None
            if rules.missing == "runtime":
                walltime = runtime
            elif rules.missing == "margin":
                walltime = _whole(runtime + rules.factor)
            else:
                walltime = _whole(rules.factor * runtime)
            noted.append("no_estimate")
        if walltime == runtime:
            noted.append("walltime_equals_runtime")
        return walltime

    def keep(self, job: Any, noted: list[str]) -> bool:
        """Kept unless its job number was kept already; its notes and status are counted."""
        report, line = self.report, job.line
        if job.job_number in self.kept_numbers:
            report._drop(DUPLICATE, line)
            return False
        self.kept_numbers.add(job.job_number)
        for what in noted:
            report._count(what, line)
        status = job.status
        report.statuses[status] = report.statuses.get(status, 0) + 1
        if status not in USUAL_STATUSES:
            examples = report.status_lines.setdefault(status, [])
            if len(examples) < MAX_EXAMPLE_LINES:
                examples.append(line)
        return True


def _batsim_jobs(kept: list[_Kept], report: ConversionReport) -> tuple[Any, list[dict], dict[str, dict]]:
    """(submission offset, Batsim jobs, delay profiles, one per distinct runtime) of the kept
    jobs; submissions out of file order are counted for the notes."""
    offset = min(k[0].submit_s for k in kept)
    profiles: dict[Any, str] = {}
    out_jobs = []
    previous_submit = -math.inf
    for job, res, runtime, walltime in kept:
        name = profiles.get(runtime)
        if name is None:
            name = profiles[runtime] = f"delay_{_fmt(runtime)}"
        if job.submit_s < previous_submit:
            report._count("unsorted_submit", job.line)
        previous_submit = job.submit_s
        out_jobs.append(
            {
                "id": job.job_number,
                "subtime": _whole(job.submit_s - offset),
                "res": res,
                "walltime": walltime,
                "profile": name,
                "user": job.user,
                "group": job.group,
                "queue": job.queue,
                "partition": job.partition,
                "requested_procs": job.requested_procs,
                "estimate_s": job.requested_time_s,
                "status": job.status,
                "swf_line": job.line,
            }
        )
    out_profiles = {name: {"type": "delay", "delay": runtime} for runtime, name in sorted(profiles.items())}
    return offset, out_jobs, out_profiles


def _workload(
    trace: SwfTrace,
    report: ConversionReport,
    offset: Any,
    options: dict[str, Any],
    profiles: dict[str, dict],
    jobs: list[dict],
) -> dict:
    """The workload dict: description, machine, metadata (source, options, report), jobs."""
    hosts = report.hosts
    metadata = {
        "source": trace.name,
        "source_sha256": trace.sha256,
        "hosts": hosts,
        "hosts_from": report.hosts_from,
        "submit_offset_s": offset,
        "unix_start_time": trace.header_int("UnixStartTime"),
        **options,
        "report": report.to_dict(),
        "swf_header": dict(trace.header),
    }
    where = ", ".join(v for v in (trace.header.get("Computer"), trace.header.get("Installation")) if v)
    description = (
        f"{report.kept} of {report.read} jobs of the SWF trace {trace.name}"
        + (f" ({where})" if where else "")
        + f" on {hosts} hosts, as delay jobs (adaptsched.workloads.convert)"
    )
    return {"description": description, "nb_res": hosts, "adaptsched": metadata, "profiles": profiles, "jobs": jobs}


#: A header statement that field 5 counts processors: SMP nodes, processors per node,
#: allocated processors (``Note: each node has 8 processors``, ``Note: 4 CPUs per node``).
_SAYS_PROCESSORS = re.compile(
    r"\bSMP\b|\b(processors|procs|cpus|cores)\s+(per|on each|in each|each)\s+node"
    r"|\bnodes?\s+(has|have|with|of)\s+\d+\s+(processors|procs|cpus|cores)"
    r"|(field 5|allocated)[^.;]*\b(processors|procs|cpus|cores)\b",
    re.IGNORECASE,
)


def _default_hosts(trace: SwfTrace) -> tuple[int, str, str]:
    """(machine size, the header field it comes from, why when it needs saying): MaxNodes,
    but MaxProcs when larger and field 5 counts processors (the header says so, or jobs use
    more than MaxNodes); else MaxProcs; else the widest job."""
    nodes, procs = trace.header_int("MaxNodes"), trace.header_int("MaxProcs")
    nodes = nodes if nodes is not None and nodes > 0 else None
    procs = procs if procs is not None and procs > 0 else None
    if nodes is not None and procs is not None and procs > nodes:
        said = next(
            (f"{k}: {v}" for k, v in trace.header.items() if k not in ("MaxNodes", "MaxProcs") and _says(v)), None
        )
        if said is not None:
            return (
                procs,
                "header MaxProcs",
                f"field 5 counts processors, as the header says ({said!r}), not MaxNodes {nodes}",
            )
        between = sum(1 for job in trace.jobs if nodes < _procs(job) <= procs)
        if between:
            return (
                procs,
                "header MaxProcs",
                (
                    f"field 5 counts processors: {between} jobs use more than MaxNodes {nodes} and no more than "
                    f"MaxProcs (with MaxNodes they would be dropped)"
                ),
            )
        return nodes, "header MaxNodes", f"every job fits in it; MaxProcs {procs} counts the processors of SMP nodes"
    if nodes is not None:
        return nodes, "header MaxNodes", ""
    if procs is not None:
        return procs, "header MaxProcs", "the header has no MaxNodes"
    widest = max((_procs(job) for job in trace.jobs), default=0)
    if widest <= 0:
        raise InputError(
            trace.path, "cannot size the machine: no MaxNodes/MaxProcs header and no job with a processor count"
        )
    return widest, "widest job", "the header has no MaxNodes or MaxProcs"


def _says(value: Any) -> bool:
    texts = value if isinstance(value, (list, tuple)) else [value]
    return any(isinstance(text, str) and _SAYS_PROCESSORS.search(text) for text in texts)


def _procs(job: Any) -> int:
    """A job's processor count as the conversion takes it: field 5, else field 8."""
    return int(job.allocated_procs if job.allocated_procs > 0 else job.requested_procs)


def _wide_hint(dropped: int, read: int, hosts: int, hosts_from: str, widest: int) -> str:
    """When more than 1 % of the jobs are dropped as wider than the machine: what to pass."""
    if read <= 0 or dropped <= 0.01 * read:
        return ""
    return (
        f"{dropped} of {read} jobs ({dropped / read:.1%}) are dropped as wider than {hosts} hosts ({hosts_from}): "
        f"if field 5 counts processors or the machine is larger, give more hosts (convert --hosts N, or run "
        f"--platform N; {widest} keeps every job)"
    )


def _notes(report: ConversionReport, rules: _Rules) -> list[str]:
    notes = []

    def add(key: str, plural: str, singular: str) -> None:
        n = report.counts.get(key, 0)
        if n:
            text = f"{n} jobs {plural}" if n > 1 else f"1 job {singular}"
            notes.append(f"{text} ({_lines_text(report.count_lines.get(key, []), n)})")

    if rules.over == "keep":
        add(
            "past_estimate",
            "run past their estimate: kept, they will be killed at their walltime",
            "runs past its estimate: kept, it will be killed at its walltime",
        )
    else:  # extend (under "drop" they are counted as drops)
        add(
            "past_estimate",
            "run past their estimate: kept, walltime extended to their runtime",
            "runs past its estimate: kept, walltime extended to its runtime",
        )
    how = {"runtime": "runtime", "margin": f"runtime + {rules.factor:g} s"}.get(
        rules.missing, f"{rules.factor:g} x runtime"
    )
    add("no_estimate", f"have no estimate: walltime = {how}", f"has no estimate: walltime = {how}")
    add(
        "walltime_equals_runtime",
        "have walltime = runtime: Batsim ends them on time but as COMPLETED_WALLTIME_REACHED",
        "has walltime = runtime: Batsim ends it on time but as COMPLETED_WALLTIME_REACHED",
    )
    zero = f"runtime 0 or missing: kept with runtime {_fmt(rules.zero_runtime)} s"
    add("zero_runtime_replaced", f"have {zero}", f"has {zero}")
    procs = "no allocated processor count: res = requested processors (SWF field 8)"
    add("res_from_requested", f"have {procs}", f"has {procs}")
    add(
        "parts_summed",
        "are checkpointed jobs without a summary line: kept once, runtime = the sum of their parts'",
        "is a checkpointed job without a summary line: kept once, runtime = the sum of its parts'",
    )
    for code, examples in sorted(report.status_lines.items()):
        n = report.statuses.get(code, 0)
        name = STATUS_NAMES.get(code, "not an SWF 2.2 code")
        text = f"{n} jobs have" if n > 1 else "1 job has"
        kept_as = "kept as they ran" if n > 1 else "kept as it ran"
        notes.append(f"{text} status {code} ({name}; {_lines_text(examples, n)}): {kept_as}")
    for name, odd in sorted(report.odd_values.items()):
        parts = []
        if odd["negative"]:
            values = "value" if odd["negative"] == 1 else "values"
            parts.append(f"{odd['negative']} negative {values} other than -1 (kept as read)")
        if odd["unreadable"]:
            values = "value that is not a number" if odd["unreadable"] == 1 else "values that are not numbers"
            parts.append(f"{odd['unreadable']} {values} (read as -1)")
        n = odd["negative"] + odd["unreadable"]
        notes.append(
            f"field {name}: {' and '.join(parts)}, {_lines_text(odd['example_lines'], n)}; "
            + ("the simulation does not use it" if name not in NEEDED_FIELDS else "treated as missing")
        )
    add(
        "unsorted_submit",
        "are submitted before the job above them in the file (trace not sorted by submit time)",
        "is submitted before the job above it in the file (trace not sorted by submit time)",
    )
    return notes


# --------------------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------------------
# One encoder, reused: json.dumps() with options builds a new encoder at every call.
_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=True, allow_nan=False).encode


def write_workload(workload: dict, path: str | os.PathLike) -> Path:
    """Write a workload as JSON: one profile and one job per line, metadata indented.

    The file is written to a temporary name then renamed, so a reader never sees half a
    file. Returns the path. An unwritable path raises ``AdaptschedError``.
    """
    path = Path(path)
    chunks = []
    for key, value in workload.items():
        if key == "jobs" and isinstance(value, list) and value:
            body = "[\n" + ",\n".join(_dumps(job) for job in value) + "\n]"
        elif key == "profiles" and isinstance(value, dict) and value:
            body = "{\n" + ",\n".join(f"{_dumps(k)}:{_dumps(v)}" for k, v in value.items()) + "\n}"
        elif isinstance(value, dict) and value:
            body = json.dumps(value, indent=1, ensure_ascii=True, allow_nan=False)
        else:
            body = _dumps(value)
        chunks.append(f"{_dumps(key)}:{body}")
    text = "{\n" + ",\n".join(chunks) + "\n}\n"
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)  # as run --out does: results/x/w.json just works
        tmp.write_text(text, encoding="ascii")
        os.replace(tmp, path)
    except OSError as exc:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise AdaptschedError(f"{path}: cannot write the workload: {exc.strerror or exc}") from None
    return path
