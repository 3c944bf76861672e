"""Schedule invariants checked on any Batsim ``_jobs.csv`` (all attempts, unfolded).

:func:`check_invariants` returns the list of violations (empty when the schedule is sound):

* no host runs two attempts at once (an attempt holds its hosts over [start, finish));
* no attempt starts before its submission; every allocation has the requested size (but
  jobs a scheduler molded natively, metadata ``molded``) and only hosts below the machine size;
* with ``guarantees``: no job starts (its first executed attempt, copies included) later
  than the first guarantee its scheduler wrote in its metadata (``reservation_s``), to within
  ``GUARANTEE_EPS_S`` (10 us: see :mod:`.backfilling`);
* killed attempts are never completions: a folded job counts as completed only if its
  final attempt ended COMPLETED_SUCCESSFULLY (:mod:`.fold`); no job completes twice (two
  successful attempts; the stage and hold copies of an evolving application, metadata
  ``kind`` ``stage`` or ``hold``, are parts of one run); a completed job's final attempt ran no longer than its walltime
  (at its width: the submitted walltime times the attempt's ``scale``).

Vectorised (numpy): a year of CTC-SP2 with its copies checks in about a second.

:func:`check_against_workload` adds, against the run's workload, that every job of it has a
row (a run that ended writes one for each: a ``_jobs.csv`` that lacks some is the partial
output of a run that did not finish), and the run's physics (:mod:`adaptsched.engines.physics`:
every job or copy ran its profile's or its speedup model's time, or was killed at its walltime
or by the scheduler; a molded job's copies did its work), the check both engines make at the
end of every run; ``adaptsched metrics --workload`` makes them all on any ``_jobs.csv``.

``adaptsched check`` (:mod:`adaptsched.analysis.checker`) holds a scheduler to these rules:
:func:`run_violations` reads a run's ``_jobs.csv`` and returns its :class:`Violation` s, each of a
kind (:data:`KINDS`), with the workload's jobs that never ended; :func:`run_failure` classifies
a run the engine stopped (a refused decision, a crash, a deadlock); :func:`same_jobs` compares
two engines' outputs.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from adaptsched.core.units import EPS_S
from adaptsched.platforms.simgrid import Platform
from adaptsched.workloads.batsim_json import Workload

from ..formats.intervals import parse_hosts, parse_runs
from .backfilling import GUARANTEE_EPS_S, reservations
from .fold import fold_attempts, root_keys
from .jobs import SUCCESS, alloc_columns, with_alloc_columns

if TYPE_CHECKING:
    from adaptsched.engines.physics import Physics


def _host_rows(raw: pd.DataFrame, ran: np.ndarray):
    """(host, start, finish, row) of every host of every executed attempt."""
    executed = np.flatnonzero(ran)
    hosts = [parse_hosts(str(text)) for text in raw["allocated_resources"].to_numpy()[executed]]
    sizes = np.fromiter(map(len, hosts), dtype=np.int64, count=len(hosts))
    rows = np.repeat(executed, sizes)
    host = np.fromiter(chain.from_iterable(hosts), dtype=np.int64, count=int(sizes.sum()))
    return (
        host,
        raw["starting_time"].to_numpy(dtype=float)[rows],
        raw["finish_time"].to_numpy(dtype=float)[rows],
        rows,
    )


def _listed_clashes(raw: pd.DataFrame, ran: np.ndarray, ids: np.ndarray, limit: int) -> list[str]:
    """The first ``limit`` of two attempts at once on a host, listing every host of every
    executed attempt (ordered by host, then start, then row)."""
    host, begin, end, row = _host_rows(raw, ran)
    order = np.lexsort((begin, host))
    host, begin, end, row = host[order], begin[order], end[order], row[order]
    clash = np.flatnonzero((host[1:] == host[:-1]) & (begin[1:] < end[:-1] - EPS_S))
    return [_clash(host[k], ids[row[k]], ids[row[k + 1]], begin[k + 1], end[k]) for k in clash[:limit]]


def _clash(host: int, a: object, b: object, begin: float, end: float) -> str:
    """Attempt ``b`` (its id) starts on ``host`` at ``begin``, before attempt ``a`` there ends."""
    return f"host {host} runs jobs {a} and {b} at once ({begin} < {end})"


def _swept_clashes(raw: pd.DataFrame, ran: np.ndarray, ids: np.ndarray, limit: int) -> list[str]:
    """:func:`_listed_clashes`' sentences, in its order, found by the physics check's sweep over
    runs of hosts (:func:`adaptsched.engines.physics.sweep_clashes`): memory in the runs, not in
    the hosts times the attempts. Only the first ``limit`` hosts of each clash are listed, and
    only the ``limit`` first clashes (by host, then start) are kept."""
    from ..engines.physics import sweep_clashes

    begin = raw["starting_time"].to_numpy(dtype=float)
    end = raw["finish_time"].to_numpy(dtype=float)
    executed = np.flatnonzero(ran)
    by_start = executed[np.argsort(begin[executed], kind="stable")]  # the listing's order on a host
    rank = np.empty(len(raw), dtype=np.int64)
    rank[by_start] = np.arange(len(by_start))
    runs = [parse_runs(str(text)).runs for text in raw["allocated_resources"].to_numpy()[by_start]]
    row = np.repeat(by_start, np.fromiter(map(len, runs), dtype=np.int64, count=len(runs)))
    bounds = np.array(list(chain.from_iterable(runs)), dtype=np.int64).reshape(-1, 2)
    # no finish time: the listing never finds it clashing with a later attempt (NaN compares
    # false), as the sweep does not with an end at -inf
    ending = np.where(np.isnan(end), -np.inf, end)
    found: list[tuple[int, int, int, int]] = []  # (host, rank of the later attempt, earlier, later)
    for first, last, a, b in sweep_clashes(begin, ending, row, bounds[:, 0], bounds[:, 1], EPS_S):
        found += [(host, int(rank[b]), a, b) for host in range(first, min(last, first + limit - 1) + 1)]
        if len(found) > 1000 + 4 * limit:
            found.sort()
            del found[limit:]
    found.sort()
    return [_clash(host, ids[a], ids[b], begin[b], end[a]) for host, _, a, b in found[:limit]]


def check_invariants(raw: pd.DataFrame, nb_hosts: int, *, guarantees: bool = False, limit: int = 5) -> list[str]:
    """Violations of the module doc's invariants in an unfolded frame (at most ``limit``
    examples per invariant)."""
    raw = with_alloc_columns(raw)
    problems = []
    ids = raw["job_id"].to_numpy()
    ran = raw["starting_time"].notna().to_numpy()
    start = raw["starting_time"].to_numpy(dtype=float)
    sub = raw["submission_time"].to_numpy(dtype=float)

    early = np.flatnonzero(ran & (start < sub - EPS_S))
    problems += [f"job {ids[i]} starts at {start[i]} before its submission {sub[i]}" for i in early[:limit]]
    sizes, tops = alloc_columns(raw)
    molded = raw["metadata"].str.contains("'molded'", regex=False).to_numpy()  # natively molded
    wrong = np.flatnonzero(
        ran & (((sizes != raw["requested_number_of_resources"].to_numpy()) & ~molded) | (tops >= nb_hosts))
    )
    problems += [
        f"job {ids[i]} has {sizes[i]} hosts up to {tops[i]}, requested "
        f"{raw['requested_number_of_resources'].iat[i]} of {nb_hosts}"
        for i in wrong[:limit]
    ]

    from ..engines import physics

    listing = int(sizes[ran].sum()) <= physics.EXPAND_MAX_HOSTS  # else: 60 M pairs, 4.8 GB (docs/scale.md)
    problems += (_listed_clashes if listing else _swept_clashes)(raw, ran, ids, limit)

    roots = root_keys(raw)
    if guarantees:
        promised = pd.Series(
            reservations(raw).to_numpy(), index=(raw["workload_name"] + "!" + raw["job_id"]).to_numpy()
        )
        first_start = pd.Series(np.where(ran, start, np.nan)).groupby(roots.to_numpy()).min()
        both = pd.concat(
            [promised.dropna().groupby(level=0).first(), first_start], axis=1, keys=["promised", "start"]
        ).dropna()
        late = both[both["start"] > both["promised"] + GUARANTEE_EPS_S]
        problems += [
            f"job {key} starts at {r.start} after its guarantee {r.promised}" for key, r in late.head(limit).iterrows()
        ]

    folded = fold_attempts(raw, roots)
    done = folded["final_state"].to_numpy() == SUCCESS
    has_walltime = folded["requested_time"].to_numpy(dtype=float) > 0  # Batsim's -1: none
    over = (
        done
        & has_walltime
        & (
            folded["execution_time"].to_numpy(dtype=float)
            > folded["requested_time"].to_numpy(dtype=float) * folded["scale"].to_numpy() + EPS_S
        )
    )
    # the stages of an evolving application (and their holds) each complete: they are parts
    # of one run of the application, not repeated completions
    parts = raw["metadata"].str.contains("'kind': 'stage'|'kind': 'hold'", regex=True).to_numpy()
    successes = pd.Series((raw["final_state"].to_numpy() == SUCCESS) & ~parts).groupby(roots.to_numpy()).sum()
    problems += [f"job {key} completed {n} times" for key, n in successes[successes > 1].head(limit).items()]
    problems += [
        f"job {folded['job_id'].iat[i]} completed after running past its walltime" for i in np.flatnonzero(over)[:limit]
    ]
    return problems


def check_against_workload(
    run: str | Path,
    workload: str | Path | Workload,
    platform: str | Path | Platform | int,
    *,
    guarantees: bool = False,
    limit: int = 5,
) -> list[str]:
    """Every violation of a run's ``_jobs.csv`` (:func:`check_invariants`), every job of the
    workload without a row (:func:`missing_jobs`) and every violation of its physics against
    its workload and platform (:func:`adaptsched.engines.physics.physics_violations`, which
    takes the same ``run``, ``workload`` and ``platform``: a prefix, file or folder; a Batsim
    JSON path or loaded workload; a platform file, loaded platform or number of hosts)."""
    return against_workload(run, workload, platform, guarantees=guarantees, limit=limit).problems


@dataclass
class WorkloadCheck:
    """What :func:`against_workload` found: the ``problems`` (empty: none), the workload's jobs
    and how many of them have a row, and the physics check's counts (attempts timed or not)."""

    problems: list[str]
    jobs: int
    with_rows: int
    physics: Physics


def against_workload(
    run: str | Path,
    workload: str | Path | Workload,
    platform: str | Path | Platform | int,
    *,
    guarantees: bool = False,
    limit: int = 5,
) -> WorkloadCheck:
    """:func:`check_against_workload`, with what it counted (``adaptsched metrics --workload``)."""
    from ..engines.physics import jobs_csv_of, run_physics
    from ..workloads.batsim_json import load_workload
    from .jobs import read_jobs_csv

    jobs_csv = jobs_csv_of(run)
    nb_hosts = platform if isinstance(platform, int) else None
    if nb_hosts is None:
        from ..platforms.simgrid import read_platform

        nb_hosts = (platform if isinstance(platform, Platform) else read_platform(platform)).nb_hosts
    loaded = workload if isinstance(workload, Workload) else load_workload(workload, embedded=False)
    raw = read_jobs_csv(jobs_csv)
    missing = missing_jobs(raw, loaded)
    problems = check_invariants(raw, nb_hosts, guarantees=guarantees, limit=limit)
    if missing:
        shown = ", ".join(f"{loaded.name}!{name}" for name in missing[:limit])
        problems.insert(
            0,
            f"{len(missing):,} of the workload's {loaded.nb_jobs:,} jobs have no row: the run did not finish them "
            f"(job {shown}{', ...' if len(missing) > limit else ''})",
        )
    physics = run_physics(jobs_csv, loaded, platform, limit=limit)
    more = physics.count - len(physics.violations)
    problems += physics.violations + ([f"and {more:,} more violations of the run's physics"] if more > 0 else [])
    return WorkloadCheck(problems, loaded.nb_jobs, loaded.nb_jobs - len(missing), physics)


def missing_jobs(raw: pd.DataFrame, workload: Workload) -> list[str]:
    """The names of the workload's jobs with no row of their own in ``raw`` (a run that ended
    writes one for every job: completed, killed or rejected), in the workload's order."""
    ours = raw["workload_name"].astype(str).to_numpy() == workload.name
    seen = set(raw["job_id"].astype(str).to_numpy()[ours])
    return [name for name in workload.jobs if name not in seen]


# --------------------------------------------------------------- checking a run (adaptsched check)
#: Each kind of violation, with the rule it breaks (``adaptsched check`` names them).
KINDS = {
    "host-twice": "no host runs two jobs at once",
    "before-submission": "no job starts before its submission",
    "size": "every allocation has the requested size (unless molded), on hosts of the machine",
    "never-ends": "every job of the workload ends (completes, is killed or rejected)",
    "guarantee": "every reservation its scheduler recorded is kept (the job starts by it) or withdrawn before due",
    "completed-twice": "no job completes twice",
    "walltime": "no job completes after running past its walltime",
    "engines-differ": "both engines write the same _jobs.csv",
    "refused": "the engine accepts every decision",
    "crash": "the scheduler runs without an error",
    "physics": "every job or copy runs its profile's (or its speedup model's) time, unless killed",
}

#: How :func:`check_invariants` words each kind (the first match decides).
_WORDING = (
    ("host-twice", " at once ("),
    ("before-submission", "before its submission"),
    ("size", " hosts up to "),
    ("guarantee", "after its guarantee"),
    ("completed-twice", " times"),
    ("walltime", "past its walltime"),
)

#: How the engines (embedded and real Batsim 4.2.1) word a decision they refuse, by kind.
_REFUSALS = (
    ("host-twice", "time-sharing on compute machines is disabled"),
    ("before-submission", "NOT_SUBMITTED"),
    ("before-submission", "not submitted yet"),
    ("size", "machines but"),
    ("size", "does not exist (the platform has"),
    ("never-ends", "deadlocked"),
    ("crash", "the scheduler plugin"),
    ("crash", "started job"),
    ("physics", "breaks the run's physics"),  # the end-of-run check, engines/physics.py
)


@dataclass(frozen=True)
class Violation:
    """One broken rule: its ``kind`` (a key of :data:`KINDS`) and what happened."""

    kind: str
    message: str

    @property
    def rule(self) -> str:
        return KINDS.get(self.kind, self.kind)


def kind_of(problem: str) -> str:
    """The kind of one of :func:`check_invariants`'s sentences."""
    return next((kind for kind, words in _WORDING if words in problem), "other")


def run_failure(message: str) -> Violation:
    """A run that stopped with an error (the engine refused a decision, the scheduler failed, the
    simulation deadlocked), as a violation of the rule it breaks."""
    kind = next((kind for kind, words in _REFUSALS if words in message), None)
    if kind is None:
        # a plugin in its own process (real Batsim, the zmq transport) that died or stopped answering
        # failed itself, unless real Batsim stopped first on a decision it refused (its CRITICAL line)
        died = "the scheduler process (" in message and "/CRITICAL]" not in message
        kind = "crash" if died else "refused"
    return Violation(kind, message)


def unended_jobs(raw: pd.DataFrame, workload_ids: list[str], limit: int = 5) -> list[str]:
    """The workload's jobs (``WORKLOAD!ID`` or ``ID``) with no row of their own in ``raw``."""
    seen = set(raw["job_id"].astype(str)) | set((raw["workload_name"] + "!" + raw["job_id"]).astype(str))
    missing = [job for job in workload_ids if job not in seen]
    out = [f"job {job} never ended (no row in _jobs.csv)" for job in missing[:limit]]
    if len(missing) > limit:
        out.append(f"{len(missing) - limit} more jobs never ended")
    return out


def run_violations(jobs_csv: str | Path, nb_hosts: int, *, workload_ids: list[str] | None = None) -> list[Violation]:
    """Every violation in a run's ``_jobs.csv`` (:func:`check_invariants`, recorded reservations
    included), and the jobs of the workload (``workload_ids``) that never ended."""
    from .jobs import read_jobs_csv

    raw = read_jobs_csv(jobs_csv)
    found = [Violation(kind_of(p), p) for p in check_invariants(raw, nb_hosts, guarantees=True)]
    if workload_ids is not None:
        found += [Violation("never-ends", p) for p in unended_jobs(raw, workload_ids)]
    return found


#: Columns both engines must write alike (times within :data:`SAME_TIME_S` plus a relative 1e-11).
SAME_COLUMNS = (
    "job_id",
    "submission_time",
    "requested_number_of_resources",
    "requested_time",
    "final_state",
    "starting_time",
    "finish_time",
    "allocated_resources",
    "metadata",
)
SAME_TIME_S = 1.5e-6  # both print 6 decimals; molded runtimes may flip the last digit


def same_jobs(a_csv: str | Path, b_csv: str | Path, limit: int = 5) -> list[str]:
    """How two runs' ``_jobs.csv`` differ (empty: the same jobs, the same way), job by job."""
    import csv

    def rows(path: str | Path) -> dict[str, dict[str, str]]:
        with open(path, newline="") as handle:
            return {f"{r['workload_name']}!{r['job_id']}": r for r in csv.DictReader(handle)}

    a, b = rows(a_csv), rows(b_csv)
    out = [f"job {key} is in only one of them" for key in sorted(set(a) ^ set(b))[:limit]]
    for key in sorted(set(a) & set(b), key=lambda k: (float(a[k]["submission_time"] or 0), k)):
        for column in SAME_COLUMNS:
            x, y = a[key].get(column, ""), b[key].get(column, "")
            if x == y:
                continue
            try:
                if abs(float(x) - float(y)) <= SAME_TIME_S + 1e-11 * abs(float(x)):
                    continue
            except ValueError:
                pass
            out.append(f"job {key}: {column} {x!r} against {y!r}")
            break
        if len(out) >= limit:
            break
    return out
