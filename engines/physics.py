"""A run's physics, checked on its ``_jobs.csv`` against its workload, at the end of every run.

Whatever the scheduler decided, a schedule must obey the workload: :func:`check_physics` lists
every way ``PREFIX_jobs.csv`` breaks it, each naming the job (empty: none):

* **runtimes**: every executed job or copy ran exactly its expected time, or was killed at its
  walltime (``COMPLETED_WALLTIME_REACHED`` after exactly its walltime, which its expected time
  reaches) or by the scheduler (``COMPLETED_KILLED``, no later than its expected end). A job
  that completes although its expected time exceeds its walltime is a violation too. The
  expected time of

  - a job itself: its profile's (``delay``; ``parallel_homogeneous_total``: cpu / n flops on
    each of its n hosts, the slowest ending it);
  - a ``molded`` copy (Downey, SCOJO-P, Cirne-Berman): its job's speedup model
    (``moldable``: :func:`adaptsched.workloads.moldable.model_of`) at the copy's size; a molded
    copy of a job without a model is a violation;
  - a ``stage`` copy of an evolving application: its stage's duration (``evolving`` stages,
    metadata ``stage``); a stage copy of a job without stages is a violation. ``hold`` copies
    (a stretched stage keeping its nodes) compute nothing and are not timed;
  - any other copy (``speculative``, ``test``, ``resized``, pybatsim's resubmissions): its
    job's profile time times its metadata's ``scale``; a copy on another number of hosts than
    its job's request must keep the job's work (constant efficiency, Perković & Keleher
    sec. 7): ``scale`` = request / size.

* **work**: for a molded job, the useful work of its completed molded copies, runtime x S(n),
  sums to the job's, its profile time x S(request) (a model whose sequential time disagrees
  with the job's profile shows here);
* **submission**: no job or copy starts before its job's submission;
* **hosts**: no host runs two jobs or copies at once, and every host exists.

Times are compared within 1e-5 s + 1e-6 of the expected value (Batsim prints six decimals,
and a model's parameters reach the scheduler through its messages at that precision).
Profiles of other types, and jobs the workload does not know (a plugin's own dynamic jobs),
are not timed; :class:`Physics` counts them.

Pure Python on the CSV's text (no pandas), so that it is cheap enough to run after every run:
:func:`adaptsched.engines.run.run` calls it for both engines; ``adaptsched metrics --workload``
runs it too (:mod:`adaptsched.analysis.invariants`).
"""

from __future__ import annotations

import ast
import csv
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from adaptsched.workloads.batsim_json import Workload
from adaptsched.workloads.moldable import model_of

ABS_EPS_S = 1e-5
REL_EPS = 1e-6
SUCCESS, WALLTIME, KILLED = "COMPLETED_SUCCESSFULLY", "COMPLETED_WALLTIME_REACHED", "COMPLETED_KILLED"
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

    def add(self, message: str, limit: int) -> None:
        self.count += 1
        if len(self.violations) < limit:
            self.violations.append(message)


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


@dataclass
class Outputs:
    """The executed rows of a ``_jobs.csv``, the columns the checks read (as text)."""

    ids: list[str]  # WORKLOAD!NAME of each row
    roots: list[str]  # WORKLOAD!NAME of each row's job (itself, or its copies' root)
    submit: list[str]
    res: list[str]
    walltime: list[str]
    state: list[str]
    start: list[str]
    runtime: list[str]
    alloc: list[str]
    metadata: dict[int, dict[str, Any]]  # row -> its metadata, for the copies

    def attempt(self, i: int) -> Attempt:
        meta = self.metadata.get(i, {})
        copy = i in self.metadata
        return Attempt(
            self.ids[i],
            self.roots[i],
            str(meta.get("kind", "copy")) if copy else "regular",
            float(self.submit[i]),
            int(self.res[i]),
            float(self.walltime[i]) if self.walltime[i] else -1.0,
            self.state[i],
            float(self.start[i]),
            float(self.runtime[i]),
            _runs(self.alloc[i]),
            float(meta.get("scale", 1.0)) if copy else 1.0,
            meta.get("stage", NO_STAGE) if copy else NO_STAGE,
        )


def read_outputs(jobs_csv: str | Path) -> Outputs:
    """The executed rows of a Batsim ``_jobs.csv``, each linked to its job (chains of copies
    followed to the root)."""
    with open(jobs_csv, newline="") as handle:
        reader = csv.reader(handle)
        header = next(reader, [])
        col = {name: i for i, name in enumerate(header)}
        c_start, c_meta, c_id, c_wl = col["starting_time"], col["metadata"], col["job_id"], col["workload_name"]
        parents: dict[str, str] = {}
        rows = []
        for row in reader:
            if "parent_job" in row[c_meta]:
                parent = _metadata(row[c_meta]).get("parent_job")
                if parent:
                    parents[f"{row[c_wl]}!{row[c_id]}"] = parent if "!" in str(parent) else f"{row[c_wl]}!{parent}"
            if row[c_start]:
                rows.append(row)

    def column(name: str) -> list[str]:
        c = col[name]
        return [row[c] for row in rows]

    ids = [f"{w}!{n}" for w, n in zip(column("workload_name"), column("job_id"))]
    metadata: dict[int, dict[str, Any]] = {}
    roots = list(ids)
    for i, key in enumerate(ids):
        if key in parents:
            metadata[i] = _metadata(rows[i][c_meta])
            root, seen = key, 0
            while root in parents and seen < 100:
                root, seen = parents[root], seen + 1
            roots[i] = root
    return Outputs(
        ids,
        roots,
        column("submission_time"),
        column("requested_number_of_resources"),
        column("requested_time"),
        column("final_state"),
        column("starting_time"),
        column("execution_time"),
        column("allocated_resources"),
        metadata,
    )


class _Expect:
    """Expected runtimes from the workload (its jobs, profiles and annotations)."""

    def __init__(self, workload: Workload, nb_hosts: int, speeds: Sequence[float] | None):
        self.workload = workload
        self.nb_hosts = nb_hosts
        self.speeds = speeds
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

    def profile_time(self, spec: Any, hosts: list[tuple[int, int]]) -> float | None:
        profile = self.workload.profiles.get(spec.profile)
        if profile is None:
            return None
        if profile.type == "delay":
            return float(profile.delay)
        if profile.type == "parallel_homogeneous_total" and self.speeds:
            n = sum(b - a + 1 for a, b in hosts)
            share = profile.cpu / n
            return max(share / self.speeds[h] for a, b in hosts for h in range(a, b + 1) if h < len(self.speeds))
        return None


def _timing(p: Physics, a: Attempt, expected: float, what: str, limit: int) -> None:
    """The runtime rule of the module doc, for one attempt of ``expected`` seconds."""
    tol = tolerance(expected)
    walltime = a.walltime_s if a.walltime_s > 0 else math.inf
    name = f"job {a.job}" + ("" if a.id == a.job else f" (copy {a.id})")
    if a.state == SUCCESS:
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


def _suspects(expected: np.ndarray, runtime: np.ndarray, walltime: np.ndarray, state: np.ndarray) -> np.ndarray:
    """:func:`_timing`'s rule on arrays: the attempts it may find wrong (it says which are)."""
    tol = ABS_EPS_S + REL_EPS * np.abs(expected)
    wall = np.where(walltime > 0, walltime, np.inf)
    with np.errstate(invalid="ignore"):
        success = (state == SUCCESS) & (np.abs(runtime - expected) <= tol) & ~(expected > wall + tol)
        killed_at_walltime = (
            (state == WALLTIME)
            & (np.abs(runtime - wall) <= ABS_EPS_S + REL_EPS * np.abs(wall))
            & (expected >= wall - tol)
        )
        killed = (state == KILLED) & (runtime <= np.minimum(expected, wall) + tol)
    untimed_state = (state != SUCCESS) & (state != WALLTIME) & (state != KILLED)
    return ~(success | killed_at_walltime | killed | untimed_state)


def _expected(p: Physics, x: _Expect, a: Attempt, spec: Any, limit: int) -> tuple[float, str] | None:
    """(expected runtime, what it is) of an executed attempt, or None when it cannot be timed."""
    name = spec.name
    if a.kind == "regular":
        t = x.profile_time(spec, a.hosts)
        return None if t is None else (t, "its profile's time")
    if a.kind == "hold":
        return None
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
    base = x.profile_time(spec, [(0, spec.res - 1)])
    if base is None:
        return None
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
        done = sum(c.runtime_s * model.speedup(c.res) for c in copies)
        if abs(done - work) > tolerance(work) * max(1, len(copies)) + 1e-5 * work:
            p.add(
                f"job {job}: its molded copies did {done:.6f} s of sequential work, the job holds {work:.6f} s "
                f"({delay:g} s on {spec.res} hosts)",
                limit,
            )


def _host_runs(allocs: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(row, first host, last host) of every run of hosts (``"0-3 7"``: 0-3 and 7-7) of the
    allocations, parsed on arrays: the numbers, and the separators between them."""
    joined = ",".join(allocs)
    numbers = np.array(joined.translate(_SPACES).split(), dtype=np.int64)
    separators = np.frombuffer(_DIGITS.sub("", joined).encode(), np.uint8)
    if len(separators) != max(len(numbers) - 1, 0):
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
    (each host's attempts sorted by start: if none overlaps the next, none overlaps another)."""
    if not out.ids:
        return
    start = np.array(out.start, dtype=float)
    submit = np.array(out.submit, dtype=float)
    end = start + np.array(out.runtime, dtype=float)
    for i in np.flatnonzero(start < submit - ABS_EPS_S)[:limit]:
        p.add(f"job {out.ids[i]} starts at {out.start[i]}, before its submission at {out.submit[i]}", limit)
    try:
        row, low, high = _host_runs(out.alloc)
    except ValueError:
        p.add("an allocation of the jobs file is not an interval set of host ids", limit)
        return
    for k in np.flatnonzero((high >= nb_hosts) | (high < low))[:limit]:
        p.add(f"job {out.ids[row[k]]} runs on hosts {low[k]}-{high[k]}, beyond the platform's {nb_hosts}", limit)
    width = np.maximum(high - low + 1, 0)
    first = np.repeat(np.cumsum(width) - width, width)
    host = np.repeat(low, width) + (np.arange(int(width.sum())) - first)
    owner = np.repeat(row, width)
    order = np.lexsort((start[owner], host))
    host, owner = host[order], owner[order]
    clash = np.flatnonzero((host[1:] == host[:-1]) & (start[owner[1:]] < end[owner[:-1]] - ABS_EPS_S))
    for k in clash[:limit]:
        a, b = owner[k], owner[k + 1]
        p.add(
            f"host {host[k]} runs jobs {out.ids[a]} and {out.ids[b]} at once "
            f"({out.ids[b]} starts at {out.start[b]}, {out.ids[a]} ends at {end[a]:.6f})",
            limit,
        )
    p.count += max(0, len(clash) - limit)


def check_physics(
    jobs_csv: str | Path,
    workload: Workload,
    nb_hosts: int,
    *,
    speeds: Sequence[float] | None = None,
    limit: int = 10,
) -> Physics:
    """The module doc's checks of a run's ``_jobs.csv`` against its ``workload`` on ``nb_hosts``
    hosts (``speeds``: each host's flop/s, to time ``parallel_homogeneous_total`` profiles);
    at most ``limit`` violations are listed (:attr:`Physics.count` counts them all).

    The jobs themselves with ``delay`` profiles, most rows, are timed on arrays; copies and
    other profiles one by one."""
    out = read_outputs(jobs_csv)
    p = Physics()
    x = _Expect(workload, nb_hosts, speeds)
    prefix = f"{workload.name}!"
    delay_of = {name: q.delay for name, q in workload.profiles.items() if q is not None and q.type == "delay"}
    delays = {name: delay_of[spec.profile] for name, spec in workload.jobs.items() if spec.profile in delay_of}
    fast, slow = [], []
    for i, root in enumerate(out.roots):
        if i not in out.metadata and root.startswith(prefix) and root[len(prefix) :] in delays:
            fast.append(i)
        else:
            slow.append(i)
    _time_fast(p, out, fast, delays, len(prefix), limit)
    molded: dict[str, list[Attempt]] = {}
    for i in slow:
        a = out.attempt(i)
        spec = x.spec(a.job)
        expected = None if spec is None else _expected(p, x, a, spec, limit)
        if expected is None:
            p.untimed += 1
            continue
        p.timed += 1
        _timing(p, a, expected[0], expected[1], limit)
        if a.kind == "molded" and a.state == SUCCESS:
            molded.setdefault(a.job, []).append(a)
    _work(p, x, molded, limit)
    _hosts(p, out, nb_hosts, limit)
    return p


def _time_fast(p: Physics, out: Outputs, rows: list[int], delays: dict[str, float], skip: int, limit: int) -> None:
    """The runtime rule on the jobs themselves whose profile is a delay, on arrays."""
    if not rows:
        return
    expected = np.array([delays[out.roots[i][skip:]] for i in rows], dtype=float)
    runtime = np.array([out.runtime[i] for i in rows], dtype=float)
    walltime = np.array([out.walltime[i] or -1 for i in rows], dtype=float)
    state = np.array([out.state[i] for i in rows])
    p.timed += len(rows)
    for k in np.flatnonzero(_suspects(expected, runtime, walltime, state)):
        _timing(p, out.attempt(rows[k]), float(expected[k]), "its profile's time", limit)


def physics_error(physics: Physics, jobs_csv: str | Path) -> str | None:
    """One paragraph on the violations (None if there are none)."""
    if not physics.count:
        return None
    listed = "; ".join(physics.violations)
    more = f"; and {physics.count - len(physics.violations):,} more" if physics.count > len(physics.violations) else ""
    return (
        f"{jobs_csv} breaks the run's physics ({physics.count:,} violation{'s' if physics.count > 1 else ''}): "
        f"{listed}{more}. The scheduler's decisions disagree with its workload (the outputs are kept)"
    )
