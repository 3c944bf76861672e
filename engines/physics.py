"""A run's physics, checked on its ``_jobs.csv`` against its workload, at the end of every run.

Whatever the scheduler decided, a schedule must obey the workload: :func:`check_physics` lists
every way ``PREFIX_jobs.csv`` breaks it, each naming the job (empty: none):

* **runtimes**: every executed job or copy ran exactly its expected time, or was killed at its
  walltime (``COMPLETED_WALLTIME_REACHED`` after exactly its walltime, which its expected time
  reaches) or by the scheduler (``COMPLETED_KILLED``, no later than its expected end). A job
  that completes although its expected time exceeds its walltime is a violation too. The
  expected time of

  - a job itself: its profile's (``delay``; the parallel tasks at the rate of their slowest
    host, SimGrid's ptask_L07: ``parallel_homogeneous_total`` cpu / n flops on each of its n
    hosts, ``parallel_homogeneous`` cpu on each, ``parallel`` its i-th cpu on its i-th host;
    ``composed``: its sequence's times summed, ``repeat`` times); communications are free on a
    platform without a network (as the engines run them), and a parallel task that communicates
    over one is not timed (its time is the network model's: ``network``);
  - a ``molded`` copy (Downey, SCOJO-P, Cirne-Berman): its job's speedup model
    (``moldable``: :func:`adaptsched.workloads.moldable.model_of`) at the copy's size; a molded
    copy of a job without a model is a violation;
  - a ``stage`` copy of an evolving application: its stage's duration (``evolving`` stages,
    metadata ``stage``); a stage copy of a job without stages is a violation. ``hold`` copies
    (a stretched stage keeping its nodes) compute nothing and are not timed;
  - any other copy (``speculative``, ``test``, ``resized``, pybatsim's resubmissions): its
    job's profile time times its metadata's ``scale``; a copy on another number of hosts than
    its job's request must keep the job's work (constant efficiency, Perković & Keleher
    sec. 7): ``scale`` = request / size. A ``parallel_homogeneous_total`` profile keeps its
    work on any number of hosts by itself: such a copy runs it on its own hosts, times its
    ``scale``.

* **work**: for a molded job, the useful work of its completed molded copies, runtime x S(n),
  sums to the job's, its profile time x S(request) (a model whose sequential time disagrees
  with the job's profile shows here), within each copy's time tolerance times its S(n);
* **submission**: no job or copy starts before its job's submission;
* **hosts**: no host runs two jobs or copies at once, and every host exists.

Times are compared within 1e-5 s + 1e-6 of the expected value (Batsim prints six decimals,
and a model's parameters reach the scheduler through its messages at that precision). A job
whose profile returns a non-zero code (``COMPLETED_FAILED``) ran its whole time too. Profiles
of other types (real Batsim's SMPI, traces...), ``hold`` copies and jobs the workload does not
know (a plugin's own dynamic jobs) are not timed: :class:`Physics` counts the attempts timed and
those not, by reason, and its summary is the run's (``physics: 3,000 of 3,000 jobs timed``).

The check needs the workload as it was loaded: the embedded engine frees profiles in a copy of
its own (:class:`~adaptsched.engines.embedded.batsim.EmbeddedBatsim`), never in the workload it
is given.

Numpy on the CSV's text (no pandas), so that it is cheap enough to run after every run
(``benchmarks/physics.py`` measures it against the run): :func:`adaptsched.engines.run.run`
calls it for both engines; ``adaptsched metrics --workload`` runs it too
(:mod:`adaptsched.analysis.invariants`).

:func:`physics_violations` is the entry point for any run's outputs (``adaptsched check`` holds
a user's scheduler to these rules with it): a run's prefix, its workload and its platform in,
the list of violations out.
"""

from __future__ import annotations

import ast
import bisect
import csv
import heapq
import math
import re
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from adaptsched.engines.partial import PARTIAL
from adaptsched.errors import InputError
from adaptsched.platforms.simgrid import Platform, read_platform
from adaptsched.workloads.batsim_json import Workload, load_workload
from adaptsched.workloads.moldable import model_of

ABS_EPS_S = 1e-5
REL_EPS = 1e-6
SUCCESS, WALLTIME, KILLED = "COMPLETED_SUCCESSFULLY", "COMPLETED_WALLTIME_REACHED", "COMPLETED_KILLED"
FAILED = "COMPLETED_FAILED"
NO_STAGE = "-"  # a copy's stage when its metadata names none


def tolerance(expected_s: float) -> float:
    return ABS_EPS_S + REL_EPS * abs(expected_s)


@dataclass
class Attempt:
    """One executed row of ``_jobs.csv`` (the job itself or one of its copies)."""

    id: str  # WORKLOAD!NAME of the row
    job: str  # WORKLOAD!NAME of the job it runs (itself, or its copies' root)
    kind: str  # "regular" (the job itself), or the copy's metadata kind ("copy" if none)
    submit_s: float
    res: int
    walltime_s: float  # -1: none
    state: str
    start_s: float
    runtime_s: float
    hosts: list[tuple[int, int]]
    scale: float = 1.0
    stage: Any = NO_STAGE


@dataclass
class Physics:
    """What :func:`check_physics` found: the violations (sentences naming the job) and the
    executed attempts it timed or could not time."""

    violations: list[str] = field(default_factory=list)
    timed: int = 0
    untimed: int = 0
    count: int = 0  # every violation, beyond the ``limit`` listed
    untimed_why: dict[str, int] = field(default_factory=dict)  # why not timed -> how many

    def add(self, message: str, limit: int) -> None:
        self.count += 1
        if len(self.violations) < limit:
            self.violations.append(message)

    def skip(self, why: str, n: int = 1) -> None:
        """``n`` attempts not timed, for this reason."""
        self.untimed += n
        self.untimed_why[why] = self.untimed_why.get(why, 0) + n

    @property
    def executed(self) -> int:
        """The executed attempts (rows with a start), timed or not."""
        return self.timed + self.untimed

    def summary(self) -> str:
        """One line: how many executed attempts were timed, and why the others were not."""
        text = f"physics: {self.timed:,} of {self.executed:,} jobs timed"
        if self.untimed_why:
            text += " (" + "; ".join(f"{n:,} not timed: {why}" for why, n in self.untimed_why.items()) + ")"
        return text


def _runs(text: str) -> list[tuple[int, int]]:
    out = []
    for part in text.split():
        low, _, high = part.partition("-")
        out.append((int(low), int(high or low)))
    return out


def _metadata(text: str) -> dict[str, Any]:
    """A row's metadata when it links a copy to its job (parsed only then: most rows have none)."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return {}
    return value if isinstance(value, dict) else {}


#: The columns the checks read, in ``_jobs.csv``'s order.
COLUMNS = (
    "job_id",
    "workload_name",
    "profile",
    "submission_time",
    "requested_number_of_resources",
    "requested_time",
    "final_state",
    "starting_time",
    "execution_time",
    "allocated_resources",
    "metadata",
)


@dataclass
class Outputs:
    """The executed rows of a ``_jobs.csv``: the numbers as arrays, the rest as text."""

    workloads: Sequence[str]
    names: Sequence[str]
    profiles: Sequence[str]
    submit: np.ndarray
    res: Sequence[str]
    walltime: np.ndarray  # -1: none
    state: Sequence[str]
    start: np.ndarray
    runtime: np.ndarray
    alloc: Sequence[str]
    copies: dict[int, tuple[str, dict[str, Any]]]  # row -> (its job, WORKLOAD!NAME, its metadata)

    def id(self, i: int) -> str:
        return f"{self.workloads[i]}!{self.names[i]}"

    def job(self, i: int) -> str:
        copy = self.copies.get(i)
        return copy[0] if copy else self.id(i)

    def attempt(self, i: int) -> Attempt:
        job, meta = self.copies.get(i, ("", {}))
        copy = bool(job)
        return Attempt(
            self.id(i),
            job or self.id(i),
            str(meta.get("kind", "copy")) if copy else "regular",
            float(self.submit[i]),
            int(self.res[i]),
            float(self.walltime[i]),
            self.state[i],
            float(self.start[i]),
            float(self.runtime[i]),
            _runs(self.alloc[i]),
            float(meta.get("scale", 1.0)) if copy else 1.0,
            meta.get("stage", NO_STAGE) if copy else NO_STAGE,
        )


_F, _S = r"([^,\n]*)", r"[^,\n]*"


def _row_pattern(header: list[str]) -> re.Pattern[str]:
    """One line of the file, capturing :data:`COLUMNS` (metadata last, as Batsim writes it)."""
    parts = [_F if name in COLUMNS else _S for name in header[:-1]]
    return re.compile("^" + ",".join(parts) + r",(.*)$", re.MULTILINE)


def _columns(jobs_csv: str | Path) -> dict[str, Sequence[str]]:
    """:data:`COLUMNS` of every row, as text: one regular expression over the file (Batsim
    quotes the metadata only, its last column: the metadata keep their quotes here), else, for
    any other file, :mod:`csv` (the metadata unquoted, then quoted back)."""
    with open(jobs_csv, newline="") as handle:
        text = handle.read()
    start = text.find("\n") + 1 or len(text)  # the body, read in place (no copy of a whole file's text)
    header = next(csv.reader([text[:start].rstrip("\n")]), [])
    if header and header[-1] == "metadata" and set(COLUMNS) <= set(header) and "\r" not in text:
        rows = _row_pattern(header).findall(text, start)
        if len(rows) == text.count("\n", start) + (1 if len(text) > start and not text.endswith("\n") else 0):
            wanted = [name for name in header if name in COLUMNS]
            columns: dict[str, Sequence[str]] = dict(zip(wanted, zip(*rows))) if rows else dict.fromkeys(wanted, ())
            del rows
            if not any('"' in "".join(columns[name]) for name in ("job_id", "workload_name", "profile")):
                return columns
    index = {name: i for i, name in enumerate(header)}
    rows = list(csv.reader(text[start:].splitlines()))
    columns = {name: [row[index[name]] for row in rows] for name in COLUMNS}
    columns["metadata"] = ['"' + m.replace('"', '""') + '"' for m in columns["metadata"]]
    return columns


def _unquoted(text: str) -> str:
    return text[1:-1].replace('""', '"') if text[:1] == '"' else text


def _floats(column: Sequence[str]) -> np.ndarray:
    """A column of numbers (numpy's parser on the joined text: several times faster than one
    conversion per cell); ValueError for a cell that is not one number."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy warns of text it cannot read
        try:
            values = np.fromstring(" ".join(column), dtype=float, sep=" ")
        except DeprecationWarning:
            raise ValueError("not a column of numbers") from None
    if len(values) != len(column):
        raise ValueError("not a column of numbers")
    return values


def _walltimes(column: Sequence[str]) -> np.ndarray:
    """Walltimes as numbers (an empty cell: -1, none)."""
    try:
        return _floats(column)
    except ValueError:
        return np.array([text or -1 for text in column], dtype=float)


def read_outputs(jobs_csv: str | Path) -> Outputs:
    """The executed rows of a Batsim ``_jobs.csv``, each copy linked to its job (chains of
    copies followed to the root)."""
    col = _columns(jobs_csv)
    try:
        return _outputs(col)
    except ValueError:  # a number the expression took from a quoted cell: read it as CSV
        with open(jobs_csv, newline="") as handle:
            rows = list(csv.DictReader(handle))
        return _outputs({name: [row.get(name) or "" for row in rows] for name in COLUMNS})


def _outputs(col: dict[str, Sequence[str]]) -> Outputs:
    names, workloads, meta, starts = col["job_id"], col["workload_name"], col["metadata"], col["starting_time"]
    parents: dict[str, str] = {}
    parsed: dict[str, dict[str, Any]] = {}  # WORKLOAD!NAME of a copy -> its metadata, parsed once
    for i in [i for i, text in enumerate(meta) if "parent_job" in text]:
        parsed[f"{workloads[i]}!{names[i]}"] = fields = _metadata(_unquoted(meta[i]))
        parent = fields.get("parent_job")
        if parent:
            parents[f"{workloads[i]}!{names[i]}"] = parent if "!" in str(parent) else f"{workloads[i]}!{parent}"
    executed = [i for i, text in enumerate(starts) if text]
    every = len(executed) == len(starts)

    def take(column: Sequence[str]) -> Sequence[str]:
        return column if every else [column[i] for i in executed]

    def numbers(column: Sequence[str]) -> np.ndarray:
        return _floats(take(column)) if executed else np.zeros(0)

    out = Outputs(
        take(workloads),
        take(names),
        take(col["profile"]),
        numbers(col["submission_time"]),
        take(col["requested_number_of_resources"]),
        _walltimes(take(col["requested_time"])),
        take(col["final_state"]),
        numbers(starts),
        numbers(col["execution_time"]),
        take(col["allocated_resources"]),
        {},
    )
    if parents:
        meta = take(meta)
        for i, text in enumerate(meta):
            key = out.id(i) if "parent_job" in text else None
            if key in parents:
                root, seen = key, 0
                while root in parents and seen < 100:
                    root, seen = parents[root], seen + 1
                out.copies[i] = (root, parsed[key])
    return out


class _Expect:
    """Expected runtimes from the workload (its jobs, profiles and annotations)."""

    def __init__(self, workload: Workload, nb_hosts: int, speeds: Sequence[float] | None, network: bool = False):
        self.workload = workload
        self.nb_hosts = nb_hosts
        self.speeds = speeds
        self.network = network  # the platform's messages take time (parallel tasks' communications too)
        self.models: dict[str, Any] = {}

    def spec(self, job: str) -> Any:
        name = job.partition("!")[2] if job.startswith(f"{self.workload.name}!") else None
        return self.workload.jobs.get(name) if name is not None else None

    def model(self, name: str) -> Any:
        """The job's speedup model (None: rigid), parsed once."""
        if name not in self.models:
            fields = self.workload.annotations.get(name) or {}
            try:
                self.models[name] = model_of({"id": name, **fields}, self.nb_hosts) if "moldable" in fields else None
            except (ValueError, TypeError):
                self.models[name] = None
        return self.models[name]

    def profile_time(self, spec: Any, hosts: list[tuple[int, int]]) -> float | str:
        """The time the job's profile takes on ``hosts``, or why it cannot be timed (a reason
        counted in :attr:`Physics.untimed_why`)."""
        profile = self.workload.profiles.get(spec.profile)
        if profile is None:
            return "their profile is not in the workload"
        return self.time_of(profile, [h for a, b in hosts for h in range(a, b + 1)])

    def time_of(self, profile: Any, hosts: list[int]) -> float | str:
        """A profile's time on ``hosts`` (their ids, in the allocation's order); a parallel task
        computes on every host at the rate of the slowest (SimGrid's ptask_L07), its
        communications free on a platform without a network, and not timed on one with."""
        kind = profile.type
        if kind == "delay":
            return float(profile.delay)
        if kind == "composed":
            times = [self.time_of(sub, hosts) for sub in profile.seq]
            bad = next((t for t in times if isinstance(t, str)), None)
            return bad if bad is not None else math.fsum(times) * profile.repeat  # type: ignore[arg-type]
        if kind not in ("parallel_homogeneous_total", "parallel_homogeneous", "parallel"):
            return f"their profiles' type ({kind}) is not timed"
        if self.network and (profile.com > 0 or any(profile.coms)):
            return "their parallel tasks communicate over the platform's network"
        speeds = self.speeds
        if not speeds or not hosts or max(hosts) >= len(speeds):
            return "their hosts' speeds are unknown"
        if kind == "parallel":
            if len(profile.cpus) != len(hosts):
                return "their parallel profiles have another size than their allocations"
            return max(flops / speeds[h] for flops, h in zip(profile.cpus, hosts))
        flops = profile.cpu / len(hosts) if kind == "parallel_homogeneous_total" else profile.cpu
        return max(flops / speeds[h] for h in hosts)


def _timing(p: Physics, a: Attempt, expected: float, what: str, limit: int) -> None:
    """The runtime rule of the module doc, for one attempt of ``expected`` seconds."""
    tol = tolerance(expected)
    walltime = a.walltime_s if a.walltime_s > 0 else math.inf
    name = f"job {a.job}" + ("" if a.id == a.job else f" (copy {a.id})")
    if a.state in (SUCCESS, FAILED):
        if abs(a.runtime_s - expected) > tol:
            p.add(f"{name} ran {a.runtime_s:.6f} s on {a.res} hosts; {what} is {expected:.6f} s", limit)
        elif expected > walltime + tol:
            p.add(f"{name} completed after {a.runtime_s:.6f} s, past its walltime {walltime:g} s", limit)
    elif a.state == WALLTIME:
        if abs(a.runtime_s - walltime) > tolerance(walltime) or expected < walltime - tol:
            p.add(
                f"{name} was killed at its walltime after {a.runtime_s:.6f} s (walltime {walltime:g} s); "
                f"{what} is {expected:.6f} s",
                limit,
            )
    elif a.state == KILLED:
        if a.runtime_s > min(expected, walltime) + tol:
            p.add(f"{name} was killed after {a.runtime_s:.6f} s, later than its end ({what}: {expected:.6f} s)", limit)


#: Final states as small integers (:func:`_suspects`); any other state is not timed. A job whose
#: profile returns a non-zero code (``ret``) runs its whole time too, then ends COMPLETED_FAILED.
STATE_CODES = {SUCCESS: 0, FAILED: 0, WALLTIME: 1, KILLED: 2}


def _suspects(expected: np.ndarray, runtime: np.ndarray, walltime: np.ndarray, state: np.ndarray) -> np.ndarray:
    """:func:`_timing`'s rule on arrays (``state``: :data:`STATE_CODES`): the attempts it may
    find wrong (it says which are)."""
    tol = ABS_EPS_S + REL_EPS * np.abs(expected)
    wall = np.where(walltime > 0, walltime, np.inf)
    with np.errstate(invalid="ignore"):
        success = (state == 0) & (np.abs(runtime - expected) <= tol) & ~(expected > wall + tol)
        killed_at_walltime = (
            (state == 1) & (np.abs(runtime - wall) <= ABS_EPS_S + REL_EPS * np.abs(wall)) & (expected >= wall - tol)
        )
        killed = (state == 2) & (runtime <= np.minimum(expected, wall) + tol)
    return ~(success | killed_at_walltime | killed | (state > 2))


def _expected(p: Physics, x: _Expect, a: Attempt, spec: Any, limit: int) -> tuple[float, str] | str | None:
    """(expected runtime, what it is) of an executed attempt; or why it cannot be timed; or None
    when what it ran breaks a rule by itself (the violation is added)."""
    name = spec.name
    if a.kind == "regular":
        t = x.profile_time(spec, a.hosts)
        return t if isinstance(t, str) else (t, "its profile's time")
    if a.kind == "hold":
        return "they hold their nodes for a stretched stage and compute nothing"
    if a.kind == "molded":
        model = x.model(name)
        if model is None:
            p.add(f"job {a.job} has no speedup model ('moldable') but ran molded as {a.id} on {a.res} hosts", limit)
            return None
        try:
            return model.runtime(a.res), f"its speedup model's runtime on {a.res} hosts"
        except ValueError as error:
            p.add(f"job {a.job}: molded copy {a.id} on {a.res} hosts: {error}", limit)
            return None
    if a.kind == "stage":
        stages = ((x.workload.annotations.get(name) or {}).get("evolving") or {}).get("stages")
        if not stages:
            p.add(f"job {a.job} has no evolving stages but ran stage copy {a.id} for {a.runtime_s:.6f} s", limit)
            return None
        try:
            return float(stages[int(a.stage)][0]), f"stage {a.stage}'s duration"
        except (ValueError, TypeError, IndexError):
            p.add(f"job {a.job}: stage copy {a.id} names stage {a.stage!r} of {len(stages)}", limit)
            return None
    profile = x.workload.profiles.get(spec.profile)
    if profile is not None and profile.type == "parallel_homogeneous_total":  # keeps its work on any size
        t = x.profile_time(spec, a.hosts)
        return t if isinstance(t, str) else (t * a.scale, f"its profile's time on its {a.res} hosts x {a.scale:g}")
    base = x.profile_time(spec, [(0, spec.res - 1)])
    if isinstance(base, str):
        return base
    if a.res != spec.res and abs(a.scale - spec.res / a.res) > 1e-9 * a.scale:
        p.add(
            f"job {a.job}: {a.kind} copy {a.id} on {a.res} hosts has scale {a.scale:g}; its work on {spec.res} "
            f"hosts needs {spec.res / a.res:g}",
            limit,
        )
    return base * a.scale, f"its profile's time x {a.scale:g}"


def _work(p: Physics, x: _Expect, molded: dict[str, list[Attempt]], limit: int) -> None:
    """For each molded job: the useful work of its completed molded copies is the job's."""
    for job, copies in molded.items():
        spec = x.spec(job)
        model = x.model(spec.name)
        delay = x.profile_time(spec, [(0, spec.res - 1)])
        if model is None or delay is None:
            continue
        try:
            work = delay * model.speedup(spec.res)
        except ValueError:
            continue  # its request is outside the model's sizes: no work at the request to compare with
        speedups = [model.speedup(c.res) for c in copies]
        done = sum(c.runtime_s * s for c, s in zip(copies, speedups))
        # each copy's runtime is within its own tolerance (Batsim's six decimals), which its
        # speedup multiplies: a short copy on many hosts carries 1e-6 s x S(n) of rounding
        slack = tolerance(work) + sum(tolerance(c.runtime_s) * s for c, s in zip(copies, speedups))
        if abs(done - work) > slack:
            p.add(
                f"job {job}: its molded copies did {done:.6f} s of sequential work, the job holds {work:.6f} s "
                f"({delay:g} s on {spec.res} hosts)",
                limit,
            )


def _host_runs(allocs: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(row, first host, last host) of every run of hosts (``"0-3 7"``: 0-3 and 7-7) of the
    allocations, parsed on arrays: the numbers, and the separators between them."""
    joined = ",".join(allocs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy warns of text it cannot read
        try:
            numbers = np.fromstring(joined.translate(_SPACES), dtype=np.int64, sep=" ")
        except (ValueError, DeprecationWarning):
            raise ValueError("an allocation is not an interval set of host ids") from None
    separators = np.frombuffer(_DIGITS.sub("", joined).encode(), np.uint8)
    if len(separators) != max(len(numbers) - 1, 0) or len(numbers) == 0:
        raise ValueError("an allocation is not an interval set of host ids")
    after_dash = np.concatenate(([False], separators == ord("-")))  # number j ends a range
    row = np.concatenate(([0], np.cumsum(separators == ord(","))))
    lows = np.flatnonzero(~after_dash)
    ranged = np.concatenate((after_dash[1:], [False]))[lows]
    high = np.where(ranged, numbers[np.minimum(lows + 1, len(numbers) - 1)], numbers[lows])
    return row[lows], numbers[lows], high


_SPACES = str.maketrans(",-", "  ")
_DIGITS = re.compile(r"\d+")


def _hosts(p: Physics, out: Outputs, nb_hosts: int, limit: int) -> None:
    """No attempt before its submission, on a missing host, or on a host busy with another
    (each host's attempts in order of start: if none overlaps the next, none overlaps another)."""
    if not len(out.start):
        return
    start, end = out.start, out.start + out.runtime
    for i in np.flatnonzero(start < out.submit - ABS_EPS_S)[:limit]:
        p.add(f"job {out.id(i)} starts at {start[i]:.6f}, before its submission at {out.submit[i]:.6f}", limit)
    by_start = np.argsort(start, kind="stable")
    try:
        row, low, high = _host_runs([out.alloc[i] for i in by_start])
    except ValueError:
        p.add("an allocation of the jobs file is not an interval set of host ids", limit)
        return
    row = by_start[row]
    for k in np.flatnonzero((high >= nb_hosts) | (high < low))[:limit]:
        p.add(f"job {out.id(row[k])} runs on hosts {low[k]}-{high[k]}, beyond the platform's {nb_hosts}", limit)
    width = np.maximum(high - low + 1, 0)
    if int(width.sum()) > EXPAND_MAX_HOSTS:  # 10,000 jobs of 6,000 hosts: 60 M entries, 3 GB
        swept = sweep_clashes(start, end, row, low, np.minimum(high, nb_hosts - 1), ABS_EPS_S)
        for n, (lo, hi, a, b) in enumerate(swept):  # its first limit listed, every host counted
            if n < limit:
                p.add(_clash(out, lo, a, b, start, end), limit)
            p.count += hi - lo + (n >= limit)
        return
    first = np.repeat(np.cumsum(width) - width, width)
    host = np.repeat(low, width) + (np.arange(int(width.sum())) - first)
    owner = np.repeat(row, width)
    # attempts are in order of start: a stable sort by host keeps that order within each host
    # (a radix sort on 16 or 32 bits)
    order = np.argsort(host.astype(np.uint16 if nb_hosts <= 1 << 16 else np.uint32), kind="stable")
    host, owner = host[order], owner[order]
    clash = np.flatnonzero((host[1:] == host[:-1]) & (start[owner[1:]] < end[owner[:-1]] - ABS_EPS_S))
    for k in clash[:limit]:
        a, b = owner[k], owner[k + 1]
        p.add(_clash(out, host[k], a, b, start, end), limit)
    p.count += max(0, len(clash) - limit)


#: Above this many (attempt, host) pairs, the host check sweeps over runs of hosts instead of
#: listing every host of every attempt (memory in the runs, not in the hosts times the jobs).
EXPAND_MAX_HOSTS = 2_000_000


def _clash(out: Outputs, host: int, a: int, b: int, start: np.ndarray, end: np.ndarray) -> str:
    """The violation: attempt ``b`` starts on ``host`` before attempt ``a`` there has ended."""
    return (
        f"host {host} runs jobs {out.id(a)} and {out.id(b)} at once "
        f"({out.id(b)} starts at {start[b]:.6f}, {out.id(a)} ends at {end[a]:.6f})"
    )


def sweep_clashes(
    start: np.ndarray, end: np.ndarray, row: np.ndarray, low: np.ndarray, high: np.ndarray, eps_s: float
) -> Iterator[tuple[int, int, int, int]]:
    """The same clashes as :func:`_hosts`'s listing (each host against the attempt that started
    on it last, the attempts in order of start), found by a sweep over the runs of hosts
    ``low[k]``-``high[k]`` of attempt ``row[k]`` (each attempt's runs together, the attempts in
    order of ``start``): ``(first, last, a, b)``, attempt ``b`` starts on hosts first-last
    before attempt ``a`` there ends (at ``end[a]`` less ``eps_s``). The runs of busy hosts are
    kept sorted and disjoint, each owned by the attempt that started on them last; an attempt
    ends for the others once its end (less ``eps_s``) is not after their start.
    :mod:`adaptsched.analysis.invariants` sweeps its own host check with it."""
    lows: list[int] = []
    busy: dict[int, tuple[int, int]] = {}  # first host -> (last host, owner)
    running: list[tuple[float, int]] = []  # (end less the tolerance, attempt)
    spans: dict[int, list[tuple[int, int]]] = {}  # attempt -> its runs
    for k in range(len(row)):
        b, lo, hi = int(row[k]), int(low[k]), int(high[k])
        if hi < lo:
            continue
        if b not in spans:  # its first run: the attempts ended by its start give their hosts back
            while running and running[0][0] <= start[b]:
                _, a = heapq.heappop(running)
                for a_lo, a_hi in spans.pop(a, ()):
                    i = bisect.bisect_left(lows, a_lo)
                    while i < len(lows) and lows[i] <= a_hi:
                        if busy[lows[i]][1] == a:
                            del busy[lows[i]], lows[i]
                        else:
                            i += 1
            spans[b] = []
            heapq.heappush(running, (float(end[b]) - eps_s, b))
        spans[b].append((lo, hi))
        i = bisect.bisect_right(lows, hi) - 1
        while i >= 0 and busy[lows[i]][0] >= lo:  # the busy runs it meets, right to left
            b_lo = lows[i]
            b_hi, a = busy.pop(b_lo)
            del lows[i]
            first, last = max(lo, b_lo), min(hi, b_hi)
            if a != b or start[b] < end[a] - eps_s:  # not one attempt's host twice for no time
                yield first, last, a, b
            for piece in ((b_lo, lo - 1), (hi + 1, b_hi)):  # what it keeps of that run
                if piece[0] <= piece[1]:
                    busy[piece[0]] = (piece[1], a)
                    bisect.insort(lows, piece[0])
            i = bisect.bisect_right(lows, hi) - 1
        busy[lo] = (hi, b)
        bisect.insort(lows, lo)


def check_physics(
    jobs_csv: str | Path,
    workload: Workload,
    nb_hosts: int,
    *,
    speeds: Sequence[float] | None = None,
    limit: int = 10,
    network: bool = False,
) -> Physics:
    """The module doc's checks of a run's ``_jobs.csv`` against its ``workload`` on ``nb_hosts``
    hosts (``speeds``: each host's flop/s, to time parallel tasks); at most ``limit``
    violations are listed (:attr:`Physics.count` counts them all). ``network``: the platform's
    messages take time, and so do parallel tasks' communications: those that communicate are
    not timed (delays and parallel tasks that only compute are, exactly as elsewhere).

    The jobs themselves with ``delay`` profiles, most rows, are timed on arrays; copies and
    other profiles one by one. :class:`Physics` counts the attempts timed and those not, why."""
    out = read_outputs(jobs_csv)
    p = Physics()
    x = _Expect(workload, nb_hosts, speeds, network)
    delay_of = {name: q.delay for name, q in workload.profiles.items() if q is not None and q.type == "delay"}
    if set(out.workloads) <= {workload.name}:  # the jobs themselves run their own profile
        expected = np.array([delay_of.get(name, math.nan) for name in out.profiles], dtype=float)
    else:
        ours, jobs = workload.name, workload.jobs
        expected = np.array(
            [
                delay_of.get(jobs[name].profile, math.nan) if w == ours and name in jobs else math.nan
                for w, name in zip(out.workloads, out.names)
            ],
            dtype=float,
        )
    if out.copies:
        expected[list(out.copies)] = math.nan
    fast = ~np.isnan(expected)
    _time_fast(p, out, np.flatnonzero(fast), expected, limit)
    molded: dict[str, list[Attempt]] = {}
    for i in np.flatnonzero(~fast):
        a = out.attempt(int(i))
        if a.state not in STATE_CODES:
            p.skip(no_rule(a.state))
            continue
        spec = x.spec(a.job)
        timing = _expected(p, x, a, spec, limit) if spec is not None else NOT_IN_WORKLOAD
        if isinstance(timing, str):
            p.skip(timing)
            continue
        p.timed += 1  # (None: what it ran broke a rule, said)
        if timing is not None:
            _timing(p, a, timing[0], timing[1], limit)
        if a.kind == "molded" and a.state == SUCCESS:
            molded.setdefault(a.job, []).append(a)
    _work(p, x, molded, limit)
    _hosts(p, out, nb_hosts, limit)
    return p


def no_rule(state: str) -> str:
    return f"their final state ({state}) has no runtime rule"


#: Why a row is not timed: a job the scheduler made (dynamic registration), not a copy of one.
NOT_IN_WORKLOAD = "they are not jobs of the workload, nor copies of one (the scheduler registered them)"


def _time_fast(p: Physics, out: Outputs, rows: np.ndarray, expected: np.ndarray, limit: int) -> None:
    """The runtime rule on the jobs themselves whose profile is a delay, on arrays."""
    if not len(rows):
        return
    codes = STATE_CODES
    state = np.array([codes.get(text, 3) for text in out.state], dtype=np.int8)[rows]
    unknown = np.flatnonzero(state == 3)
    p.timed += len(rows) - len(unknown)
    for k in unknown:
        p.skip(no_rule(out.state[int(rows[k])]))
    suspects = _suspects(expected[rows], out.runtime[rows], out.walltime[rows], state)
    for k in np.flatnonzero(suspects):
        i = int(rows[k])
        _timing(p, out.attempt(i), float(expected[i]), "its profile's time", limit)


def physics_error(physics: Physics, jobs_csv: str | Path) -> str | None:
    """One paragraph on the violations (None if there are none)."""
    if not physics.count:
        return None
    listed = "; ".join(physics.violations)
    more = f"; and {physics.count - len(physics.violations):,} more" if physics.count > len(physics.violations) else ""
    return (
        f"{jobs_csv} breaks the run's physics ({physics.count:,} violation{'s' if physics.count > 1 else ''}): "
        f"{listed}{more}. The scheduler's decisions disagree with its workload"
    )


def physics_violations(
    run: str | Path, workload: str | Path | Workload, platform: str | Path | Platform | int, *, limit: int = 10
) -> list[str]:
    """Every violation of the module doc's rules by a finished run (empty: none), each a
    sentence naming the job; beyond ``limit``, one last sentence counts the others.

    ``run``: the run's ``--out`` prefix, its ``PREFIX_jobs.csv``, or a folder holding one
    ``*_jobs.csv``; ``workload``: its Batsim JSON workload (a path, or one already loaded);
    ``platform``: its SimGrid platform file, a loaded :class:`Platform`, or a number of hosts
    (1 Gflop/s each, adaptsched's clusters). A missing or unreadable file is an
    :class:`~adaptsched.errors.InputError` naming it."""
    physics = run_physics(run, workload, platform, limit=limit)
    more = physics.count - len(physics.violations)
    return physics.violations + ([f"and {more:,} more violations of the run's physics"] if more > 0 else [])


def run_physics(
    run: str | Path, workload: str | Path | Workload, platform: str | Path | Platform | int, *, limit: int = 10
) -> Physics:
    """:func:`check_physics` on a finished run, from what :func:`physics_violations` takes:
    the violations, and the attempts timed and not."""
    jobs_csv = jobs_csv_of(run)
    loaded = workload if isinstance(workload, Workload) else load_workload(workload, embedded=False)
    network = False
    if isinstance(platform, int):
        nb_hosts, speeds = platform, [1e9] * platform
    else:
        machines = platform if isinstance(platform, Platform) else read_platform(platform)
        nb_hosts, speeds = machines.nb_hosts, [host.speed_flops for host in machines.compute_hosts]
        network = machines.network is not None
    try:
        return check_physics(jobs_csv, loaded, nb_hosts, speeds=speeds, limit=limit, network=network)
    except (KeyError, IndexError, ValueError) as error:
        raise InputError(jobs_csv, f"not a Batsim _jobs.csv ({type(error).__name__}: {error})") from None


def jobs_csv_of(run: str | Path) -> Path:
    """A run's ``_jobs.csv`` from its prefix, the file itself (a failed run's ``_jobs.csv.partial``
    too, named), or a folder holding one."""
    path = Path(run)
    if path.is_dir():
        found = sorted(path.glob("*_jobs.csv"))
        if len(found) != 1:
            raise InputError(path, f"holds {len(found)} *_jobs.csv files: name the run's prefix or its _jobs.csv")
        return found[0]
    if path.name.endswith(("_jobs.csv", f"_jobs.csv{PARTIAL}")):
        candidate = path
    else:
        candidate = path.with_name(path.name + "_jobs.csv")
    if not candidate.is_file():
        partial = candidate.with_name(candidate.name + PARTIAL)
        if partial.is_file():
            raise InputError(
                candidate, f"no such file: the run did not finish; what it wrote is {partial} (name it to check it)"
            )
        raise InputError(candidate, "no such file: a run's _jobs.csv (give the run's --out prefix)")
    return candidate
