"""Klein & Pérez's metrics of evolving applications (RR-7205, sec. 5.1), from plans or from runs.

Per test, with U = sum of d n (node-seconds computed) and A = sum of d' n (allocated: the
stretched durations; CBF: max n x sum of d per application):

* **waste** % = 100 (A - U) / U (the text's "% of total resources" cannot give CBF's 116 %
  maximum: we take it relative to U);
* **reservation** = A / A_CBF; **utilisation** % = 100 U / (n_max x makespan);
  **makespan** relative to CBF's;
* **avg JCT** (completion times; all arrive at 0) and **avg JWT** (first-stage starts),
  each relative to CBF's; **stretches** = % of applications with sum (d' - d) > 0;
* per application: **job stretch** % = 100 sum (d' - d) / sum d, **job waste** % = 100
  (A_i - U_i) / U_i (the text's "of resources allocated" cannot give CBF's 681 %).

:func:`plan_metrics` computes them from scheduled applications
(:class:`adaptsched.core.evolving.Scheduled`), :func:`summarise` gives min/avg/max over
tests (per-application metrics over all applications). :func:`fold_run` turns the copies an
``evolving`` run wrote (stage and hold copies, or the jobs themselves under cbf) back into
scheduled applications and checks C2-C4: every copy ran as planned (a stage for d_k, its
hold right after it on the same nodes, the next stage right after), each stage on exactly
its n_k nodes, a shrink's nodes a subset and a growth's a superset of the previous stage's.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from adaptsched.core.evolving import Scheduled
from adaptsched.core.units import EPS_S
from adaptsched.workloads.evolving import read_test

from ..formats.intervals import parse_hosts

SYSTEM = ("waste_pct", "reservation", "utilisation_pct", "makespan", "time_ms")
USER = ("avg_jct", "avg_jwt", "stretches_pct", "job_stretch_pct", "job_waste_pct")
PER_APPLICATION = ("job_stretch_pct", "job_waste_pct")
METRICS = SYSTEM + USER


def _ratio(x: float, y: float) -> float:
    return x / y if y else (1.0 if x == y else math.nan)


def plan_metrics(plans: Sequence[Scheduled], cbf: Sequence[Scheduled], n_max: int) -> dict:
    """The sec. 5.1 metrics of one test (module doc); ``cbf``: the same test under CBF."""
    used = sum(s.used_node_s for s in plans)
    allocated = sum(s.allocated_node_s for s in plans)
    makespan = max(s.end_s for s in plans)
    cbf_allocated = sum(s.allocated_node_s for s in cbf)
    cbf_makespan = max(s.end_s for s in cbf)
    jct = sum(s.end_s for s in plans) / len(plans)
    jwt = sum(s.start_s for s in plans) / len(plans)
    cbf_jct = sum(s.end_s for s in cbf) / len(cbf)
    cbf_jwt = sum(s.start_s for s in cbf) / len(cbf)
    stretched = [s for s in plans if s.stretch_s > EPS_S]
    return {
        "waste_pct": 100.0 * (allocated - used) / used,
        "reservation": allocated / cbf_allocated,
        "utilisation_pct": 100.0 * used / (n_max * makespan),
        "makespan": makespan / cbf_makespan,
        "avg_jct": _ratio(jct, cbf_jct),
        "avg_jwt": _ratio(jwt, cbf_jwt),
        "stretches_pct": 100.0 * len(stretched) / len(plans),
        "job_stretch_pct": [100.0 * s.stretch_s / sum(d for d, _ in s.requested) for s in plans],
        "job_waste_pct": [100.0 * (s.allocated_node_s - s.used_node_s) / s.used_node_s for s in plans],
        "makespan_s": makespan,
        "used_node_s": used,
        "allocated_node_s": allocated,
        "mean_completion_s": jct,
        "mean_wait_s": jwt,
        "applications": len(plans),
    }


def summarise(results: Iterable[dict]) -> dict[str, tuple[float, float, float]]:
    """(min, avg, max) of each metric over tests; per-application metrics over all
    applications; NaN values (a relative JWT when CBF waits for nothing) are left out."""
    values: dict[str, list[float]] = {name: [] for name in METRICS}
    for result in results:
        for name in METRICS:
            if name not in result:
                continue
            value = result[name]
            values[name].extend(value if isinstance(value, list) else [value])
    out = {}
    for name, xs in values.items():
        xs = [x for x in xs if not math.isnan(x)]
        if xs:
            out[name] = (min(xs), sum(xs) / len(xs), max(xs))
    return out


# -- folding a run ------------------------------------------------------------------------------
def _metadata(text: str) -> dict:
    if not text or "{" not in text:
        return {}
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return {}
    return value if isinstance(value, dict) else {}


@dataclass
class Folded:
    """An ``evolving`` run folded per application (in the workload's job order)."""

    applications: list[Scheduled]
    hosts: list[list[tuple[int, ...]]]  # per application, per stage
    hold_node_s: list[float]  # per application: node-seconds held by hold copies
    problems: list[str] = field(default_factory=list)


def fold_run(raw, workload: dict, plans: Sequence[Scheduled] | None = None) -> Folded:
    """Folds the rows of an ``evolving`` run's ``_jobs.csv`` (a frame from
    :func:`adaptsched.analysis.jobs.read_jobs_csv`) per application of ``workload`` and checks
    C2-C4 (module doc); with ``plans``, also that every application ran as planned (within
    1e-6 s)."""
    test = read_test(workload)
    ids = [str(job["id"]) for job in workload["jobs"]]
    copies, own, problems = _runs_by_application(raw, ids)
    applications, all_hosts, holds = [], [], []
    for i, requested in enumerate(test):
        req = tuple((float(d), int(n)) for d, n in requested)
        name = f"application {ids[i]}"
        if i in own:  # cbf: the job ran itself, one rigid stage
            begin, end, hosts = own[i]
            width = max(n for _, n in req)
            if len(hosts) != width:
                problems.append(f"{name}: {len(hosts)} nodes, not {width} (C2)")
            applications.append(Scheduled(begin, ((end - begin, width),), req))
            all_hosts.append([hosts])
            holds.append(0.0)
            continue
        application, stage_hosts, held = _staged(name, req, copies[i], problems)
        applications.append(application)
        all_hosts.append(stage_hosts)
        holds.append(held)
    if plans is not None:
        problems += _unplanned(applications, plans, ids)
    return Folded(applications, all_hosts, holds, problems)


Span = tuple[float, float, tuple[int, ...]]  # (start, end, hosts) of a row


def _runs_by_application(raw, ids: list[str]) -> tuple[list[dict[tuple[str, int], Span]], dict[int, Span], list[str]]:
    """The executed rows per application: its copies by (kind, stage), or its own run (cbf);
    and the problems seen (unsuccessful rows, copies of unknown applications)."""
    index = {job_id: i for i, job_id in enumerate(ids)}
    copies: list[dict[tuple[str, int], Span]] = [{} for _ in ids]
    own: dict[int, Span] = {}
    problems: list[str] = []
    for row in raw.itertuples(index=False):
        if row.final_state == "REJECTED" or (isinstance(row.starting_time, float) and math.isnan(row.starting_time)):
            continue
        meta = _metadata(row.metadata)
        hosts = tuple(parse_hosts(str(row.allocated_resources)))
        span = (float(row.starting_time), float(row.finish_time), hosts)
        if row.final_state != "COMPLETED_SUCCESSFULLY":
            problems.append(f"job {row.job_id}: {row.final_state}")
        parent = meta.get("parent_job")
        if parent is None:
            if row.job_id in index:
                own[index[row.job_id]] = span
            continue
        parent = str(parent).split("!", 1)[-1]
        if parent not in index:
            problems.append(f"copy {row.job_id} of an unknown application {parent}")
            continue
        kind, stage = str(meta.get("kind")), int(meta.get("stage", -1))
        copies[index[parent]][(kind, stage)] = span
    return copies, own, problems


def _staged(
    name: str, req: tuple[tuple[float, int], ...], got: dict[tuple[str, int], Span], problems: list[str]
) -> tuple[Scheduled, list[tuple[int, ...]], float]:
    """An application run as stage and hold copies: (as scheduled, its nodes per stage, the
    node-seconds held); each stage checked for its start, length, width (C2), nodes (C4) and
    hold."""
    stages: list[tuple[float, int]] = []
    stage_hosts: list[tuple[int, ...]] = []
    held = 0.0
    start = math.nan
    t = math.nan
    for k, (d, n) in enumerate(req):
        run = got.get(("stage", k))
        if run is None:
            problems.append(f"{name}: stage {k} never ran")
            break
        begin, end, hosts = run
        if k == 0:
            start = t = begin
        elif abs(begin - t) > EPS_S:
            problems.append(f"{name}: stage {k} starts at {begin:.6f}, not when the previous ended ({t:.6f})")
        if abs(end - begin - d) > EPS_S:
            problems.append(f"{name}: stage {k} ran {end - begin:.6f} s, not {d:g}")
        if len(hosts) != n:
            problems.append(f"{name}: stage {k} on {len(hosts)} nodes, not {n} (C2)")
        if stage_hosts and not (set(hosts) <= set(stage_hosts[-1]) or set(hosts) >= set(stage_hosts[-1])):
            problems.append(f"{name}: stage {k}'s nodes neither a subset nor a superset of the previous (C4)")
        stretched = end - begin
        hold = got.get(("hold", k))
        if hold is not None:
            h_begin, h_end, h_hosts = hold
            if abs(h_begin - end) > EPS_S or set(h_hosts) != set(hosts):
                problems.append(f"{name}: stage {k}'s hold does not follow it on its nodes")
            stretched = h_end - begin
            held += (h_end - h_begin) * len(h_hosts)
        stages.append((stretched, n))
        stage_hosts.append(hosts)
        t = begin + stretched
    return Scheduled(start, tuple(stages), req), stage_hosts, held


def _unplanned(applications: list[Scheduled], plans: Sequence[Scheduled], ids: list[str]) -> list[str]:
    """Each application that did not run as planned (within 1e-6 s), in a sentence."""
    problems = []
    for i, (ran, plan) in enumerate(zip(applications, plans)):
        same = len(ran.stages) == len(plan.stages) and abs(ran.start_s - plan.start_s) <= EPS_S
        same = same and all(abs(a - b) <= EPS_S and m == n for (a, m), (b, n) in zip(ran.stages, plan.stages))
        if not same:
            problems.append(
                f"application {ids[i]} ran from {ran.start_s:.6f} as {list(ran.stages)}, "
                f"planned from {plan.start_s:.6f} as {list(plan.stages)}"
            )
    return problems
