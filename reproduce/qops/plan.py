"""The grid of ``adaptsched reproduce qops``: Islam, Balaji, Sabin & Sadayappan (2007),
Tables 1 and 2, and what each run measures.

On ``jobs`` (10,000) consecutive jobs of SDSC-SP2 and CTC-SP2 (:mod:`adaptsched.workloads.traces`): by
default the window whose offered load is nearest the paper's (89 % and 74 %, sec. 3; the rule,
:func:`nearest_load_window`, looks at the workload only, never at a result), annotated
by :mod:`adaptsched.workloads.qos` (deadline 5 x estimate, 0.1 per processor-second, urgent
jobs C times dearer, high load by duplicating 40 % of the jobs):

* **Table 1** scenarios (C, U, load) = (10, 80 %, orig), (5, 80 %, orig), (2, 80 %, orig),
  (10, 50 %, orig), (10, 20 %, orig), (10, 80 %, high), exact estimates: QoPS, VQoPS at
  OC-factors 0, 0.05, 0.1, 0.2, 0.4, and DVQoPS; revenue improvement over QoPS;
* **real estimates** (sec. 5.4, ``--real-estimates``): the U = 20/50/80 % scenarios at C = 10
  with the traces' estimates, QoPS and VQoPS only (its figures are missing from our copy and
  no claim is checked there: left out of the default grid to fit the time budget);
* **Table 2** (SDSC, exact, C = 10, U = 50 %, high load): DVQoPS with a fixed rollback window
  of 1 and 64 h (:data:`TABLE2_WINDOWS_H`: of the paper's 1 to 128 h, the two its claim
  compares, to fit the time budget): OC-factor variance (mean over groups of 5
  consecutive choices), load variance (of the offered load per window) and revenue.

Each scenario runs on ``seeds`` workloads (seed s draws the urgent jobs and the duplicated ones;
seed 1 is the draw of earlier versions): claims are paired seed by seed.

Every accepted job's completion is checked against its deadline (with exact estimates none
may miss; with real ones an early end only helps).
"""

from __future__ import annotations

import ast
import itertools
import json
from pathlib import Path

TRACES = {"SDSC-SP2": ("SDSC-SP2-1998-4.2-cln.swf.gz", 128), "CTC-SP2": ("CTC-SP2-1996-3.1-cln.swf.gz", 338)}
OC_FACTORS = (0.0, 0.05, 0.1, 0.2, 0.4)
TABLE1 = (
    (10, 0.8, "orig"),
    (5, 0.8, "orig"),
    (2, 0.8, "orig"),
    (10, 0.5, "orig"),
    (10, 0.2, "orig"),
    (10, 0.8, "high"),
)
WINDOWS_H = (1, 4, 16, 32, 48, 64, 128)  # the paper's Table 2
#: The rollback windows run for Table 2: each is a 10,000-job DVQoPS run per seed, the most costly
#: runs of the grid; the paper's claim compares 1 h with 64 h.
TABLE2_WINDOWS_H = (1, 64)
#: The paper's offered loads (sec. 3): the original trace's and with 40 % of the jobs duplicated
#: (CTC's high load is 104 % in sec. 3, 103 % in sec. 5.3 and Figure 12).
PAPER_LOAD = {"SDSC-SP2": (0.89, 1.25), "CTC-SP2": (0.74, 1.04)}


#: Which part of each trace: ``load``, the window of ``jobs`` jobs whose offered load is nearest
#: the paper's (:func:`nearest_load_window`); its first or last ``jobs`` jobs; or the converted
#: jobs START to END (0-based, END excluded).
SEGMENTS = ("load", "first", "last")
DEFAULT_SEGMENT = "load"


def window_loads(workload: dict, jobs: int) -> list[tuple[int, float]]:
    """(first job, offered load) of every window of ``jobs`` consecutive jobs starting at a
    multiple of ``jobs // 10`` (the whole workload when it is no longer): the offered load as
    :func:`adaptsched.workloads.qos.offered_load` has it (processor-seconds of the runtimes over
    the hosts and the submission span)."""
    from adaptsched.workloads.qos import offered_load

    count = len(workload["jobs"])
    if count <= jobs:
        return [(0, offered_load(workload))]
    step = max(1, jobs // 10)
    return [
        (start, offered_load(dict(workload, jobs=workload["jobs"][start : start + jobs])))
        for start in range(0, count - jobs + 1, step)
    ]


def nearest_load_window(workload: dict, jobs: int, target: float) -> tuple[int, float]:
    """(first job, offered load) of the window of :func:`window_loads` whose offered load is
    nearest ``target``, the earliest on ties. A rule on the workload alone, fixed before any
    run: no result can move it."""
    return min(window_loads(workload, jobs), key=lambda w: abs(w[1] - target))


def trace_windows(trace: str, *, jobs: int, trace_files: dict | None = None) -> list[tuple[int, float]]:
    """:func:`window_loads` of a whole trace, converted as the reproduction converts it."""
    from adaptsched.workloads.convert import convert_swf
    from adaptsched.workloads.traces import find_trace

    source = find_trace(trace, (trace_files or {}).get(trace))
    return window_loads(convert_swf(source, hosts=TRACES[trace][1])[0], jobs)


def parse_segment(text: str) -> str:
    """``load``, ``first``, ``last`` or ``START:END`` (whole numbers, START < END), normalized;
    raises ValueError (argparse's usage error) otherwise."""
    if text in SEGMENTS:
        return text
    start, sep, end = text.partition(":")
    if not (sep and start.strip().isdigit() and end.strip().isdigit() and int(start) < int(end)):
        raise ValueError(text)
    return f"{int(start)}:{int(end)}"


def segment_slug(segment: str) -> str:
    """The suffix of a segment's file and run names: none for ``first`` (the names runs had
    before segments existed, so that their results are reused)."""
    if segment == "first":
        return ""
    return f"_{segment}" if segment in SEGMENTS else "_jobs" + segment.replace(":", "-")


def segment_text(segment: str, jobs: int) -> str:
    """The segment in words, for the report."""
    if segment == "load":
        return f"the {jobs:,}-job window nearest the paper's offered load"
    if segment in SEGMENTS:
        return f"{segment} {jobs:,} jobs"
    start, end = segment.split(":")
    return f"jobs {int(start):,} to {int(end):,}"


def scenario_name(trace, cost, urgent, load, estimates, segment="first", seed=1):
    """A scenario's name (its workload's and its runs'); seed 1 keeps the names runs had before
    seeds (results reused)."""
    tag = "" if seed == 1 else f"_seed{seed}"
    return f"{trace}_C{cost}_U{int(urgent * 100)}_{load}_{estimates}{segment_slug(segment)}{tag}"


def select(workload: dict, segment: str, jobs: int, target: float | None = None) -> dict:
    """The jobs of ``segment`` of a converted workload, submission times shifted so that the
    first of them is submitted at 0, unused profiles dropped; ``load`` needs the paper's
    offered load, ``target``. The metadata says which jobs (``segment_start``, 0-based)."""
    count = len(workload["jobs"])
    if segment == "last":
        start, end = max(0, count - jobs), count
    elif segment == "load":
        if target is None:
            raise ValueError("segment load: no offered load to aim at")
        start = nearest_load_window(workload, jobs, target)[0]
        end = start + jobs
    else:
        start, end = (int(x) for x in segment.split(":"))
    chosen = workload["jobs"][start:end]
    if not chosen:
        raise ValueError(f"segment {segment}: no job there ({count} jobs converted)")
    offset = min(j["subtime"] for j in chosen)
    out_jobs = [dict(j, subtime=j["subtime"] - offset) for j in chosen]
    used = {j["profile"] for j in out_jobs}
    metadata = dict(workload.get("metadata", {}), segment=segment, segment_jobs=len(out_jobs), segment_start=start)
    return dict(
        workload,
        jobs=out_jobs,
        profiles={k: v for k, v in workload["profiles"].items() if k in used},
        metadata=metadata,
    )


_CONVERTED: dict[tuple, dict] = {}  # the last whole trace converted (select copies its jobs)


def trace_part(trace: str, segment: str, *, jobs: int, trace_files: dict | None = None) -> dict:
    """The converted jobs of ``segment`` of ``trace`` (before any annotation)."""
    from adaptsched.errors import InputError
    from adaptsched.workloads.convert import convert_swf
    from adaptsched.workloads.traces import find_trace

    hosts = TRACES[trace][1]
    source = find_trace(trace, (trace_files or {}).get(trace))
    if segment == "first":
        workload, _ = convert_swf(source, hosts=hosts, first=jobs)
        return dict(workload, metadata=dict(workload.get("metadata", {}), segment_start=0))
    stat = Path(source).stat()
    key = (str(source), stat.st_mtime_ns, stat.st_size, hosts)
    if key not in _CONVERTED:  # every scenario and seed of a trace selects from the same conversion
        _CONVERTED.clear()
        _CONVERTED[key] = convert_swf(source, hosts=hosts)[0]
    workload = _CONVERTED[key]
    try:
        return select(workload, segment, jobs, PAPER_LOAD[trace][0])
    except ValueError as error:
        raise InputError(source, f"--segment {error}") from None


def schedulers():
    out = [("QoPS", "qops", {})]
    out += [(f"VQoPS {oc:g}", "qops", {"value_aware": True, "oc_factor": oc}) for oc in OC_FACTORS]
    out.append(("DVQoPS", "dvqops", {}))
    return out


def analyse_run(prefix: str, options: dict, workload: str) -> dict:
    from adaptsched.analysis.jobs import read_jobs_csv
    from adaptsched.analysis.qos import qos_metrics

    w = json.loads(Path(workload).read_text())
    metrics = qos_metrics(prefix, w)
    raw = read_jobs_csv(f"{prefix}_jobs.csv")
    trajectory = []
    for sub, meta in zip(raw["submission_time"], raw["metadata"]):
        if "oc_factor" in meta:
            values = ast.literal_eval(meta)
            trajectory.append((float(sub), values["oc_factor"], values["window_h"]))
    if trajectory:
        trajectory.sort()
        metrics["trajectory"] = trajectory[:: max(1, len(trajectory) // 2000)]
        metrics["oc_variance"] = oc_variance([t[1] for t in trajectory])
    return metrics


def oc_variance(ocs) -> float:
    """Mean variance of groups of 5 consecutive OC-factor choices (the values taken at each
    change point)."""
    import numpy as np

    changes = [ocs[0]] + [b for a, b in itertools.pairwise(ocs) if a != b] if ocs else []
    groups = [changes[i : i + 5] for i in range(len(changes) - 4)]
    return float(np.mean([np.var(g) for g in groups])) if groups else 0.0


def load_variance(workload: dict, window_h: float) -> float:
    """Variance of the offered load (processor-seconds / (hosts x window)) per window."""
    import numpy as np

    profiles = workload["profiles"]
    span = window_h * 3600.0
    buckets: dict[int, list] = {}
    for j in workload["jobs"]:
        k = int(j["subtime"] // span)
        buckets[k] = buckets.get(k, 0.0) + j["res"] * float(profiles[j["profile"]]["delay"])
    if not buckets:
        return 0.0
    loads = [buckets.get(k, 0.0) / (workload["nb_res"] * span) for k in range(max(buckets) + 1)]
    return float(np.var(loads))


def scenario_workload(
    inputs: Path,
    trace,
    cost,
    urgent,
    load,
    estimates,
    *,
    jobs: int,
    trace_files: dict | None = None,
    segment: str = "first",
    seed: int = 1,
) -> Path:
    """The annotated workload of a scenario, written once into ``inputs``: ``seed`` draws the
    urgent jobs and, at high load, the duplicated ones."""
    from adaptsched.workloads.convert import write_workload
    from adaptsched.workloads.qos import annotate, high_load

    path = inputs / f"{scenario_name(trace, cost, urgent, load, estimates, segment, seed)}.json"
    if path.is_file():
        return path
    workload = trace_part(trace, segment, jobs=jobs, trace_files=trace_files)
    workload, _ = annotate(workload, urgent_fraction=urgent, urgent_cost=cost, exact=estimates == "exact", seed=seed)
    if load == "high":
        workload, _ = high_load(workload, fraction=0.4, seed=seed)
    return write_workload(workload, path)


def scenarios(traces, segments=(DEFAULT_SEGMENT,), real: bool = False) -> list[tuple]:
    """(trace, C, U, load, estimates, segment) of every scenario: Table 1 with exact
    estimates, then (``real``) sec. 5.4's real estimates; for each segment in turn."""
    out = []
    for segment in segments:
        out += [(t, c, u, l, "exact", segment) for t in traces for c, u, l in TABLE1]
        if real:
            out += [(t, 10, u, "orig", "real", segment) for t in traces for u in (0.2, 0.5, 0.8)]
    return out


def table2_run(window_h, segment="first", seed=1) -> str:
    return f"table2_window{window_h}h{segment_slug(segment)}" + ("" if seed == 1 else f"_seed{seed}")


def runs(
    inputs: Path,
    traces,
    *,
    jobs: int,
    trace_files: dict | None = None,
    segments=(DEFAULT_SEGMENT,),
    seeds: int = 1,
    only=None,
    real: bool = False,
):
    """(scenarios, plan, batch): ``plan`` lists (scenario name, scheduler label, run name, seed),
    ``batch`` (trace, run name, scheduler, options, workload) of every run, for each seed (the
    urgent jobs and the duplicated ones drawn anew), Table 2's included (on the first segment);
    the workloads are written into ``inputs``. ``only``: just these (C, U, load, estimates)
    scenarios, and no Table 2 (a quick check of some claims); ``real``: sec. 5.4's scenarios with
    the traces' own estimates too."""
    chosen = scenarios(traces, segments, real)
    if only is not None:
        chosen = [sc for sc in chosen if tuple(sc[1:5]) in set(only)]
    batch, plan = [], []
    for seed in range(1, seeds + 1):
        for trace, cost, urgent, load, estimates, segment in chosen:
            name = scenario_name(trace, cost, urgent, load, estimates, segment, seed)
            path = scenario_workload(
                inputs,
                trace,
                cost,
                urgent,
                load,
                estimates,
                jobs=jobs,
                trace_files=trace_files,
                segment=segment,
                seed=seed,
            )
            for label, scheduler, options in schedulers():
                if estimates == "real" and scheduler == "dvqops":
                    continue  # no claim compares DVQoPS with real estimates: the grid's time goes elsewhere
                run_name = f"{name}_{label.replace(' ', '')}"
                batch.append((trace, run_name, scheduler, options, str(path)))
                plan.append((name, label, run_name, seed))
        if "SDSC-SP2" in traces and only is None:
            segment = segments[0]
            path = scenario_workload(
                inputs,
                "SDSC-SP2",
                10,
                0.5,
                "high",
                "exact",
                jobs=jobs,
                trace_files=trace_files,
                segment=segment,
                seed=seed,
            )
            for w in TABLE2_WINDOWS_H:
                batch.append(("SDSC-SP2", table2_run(w, segment, seed), "dvqops", {"window_h": float(w)}, str(path)))
    return chosen, plan, batch
