"""The two workloads of ``adaptsched reproduce perkovic-keleher``, and the
statistics of a workload and of a BF run that the paper reports.

* ``clean``: the Parallel Workloads Archive's cleaned CTC-SP2 log as distributed (77,222
  jobs; the converter's default drops the 17 with a zero runtime).
* ``paper``: "the paper's workload", our reconstruction of the raw log the paper replayed
  (79,302 jobs, Table 1): the cleaned log with its zero-runtime jobs kept (1 s, as the
  paper's Table 2 counts 134 of them) plus the synthetic flurry of
  :data:`adaptsched.workloads.flurry.CTC_FLURRY`, one draw per flurry seed.

Statistics of a workload (:func:`workload_stats`): jobs, median and mean width, mean
runtime and estimate, and jobs simulated with a zero runtime in the log (Tables 1 and 2).
Statistics of a run (:func:`queue_stats`): the longest queue (jobs submitted and not started,
counted after every instant's events, sec. 8: "approximately 1,000 jobs") and the share of
jobs that start at once (no delay, sec. 4: 61 %); :func:`without_flurry` gives a run's
overall metrics on the trace's own jobs only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

WORKLOADS = ("clean", "paper")
PAPER_ZERO_RUNTIME = "min:1"  # Table 2 counts zero-runtime jobs: the paper simulated them


def paper_name(draw: int) -> str:
    """The paper workload's name for one flurry draw (its runs' name prefix)."""
    return f"paper-f{draw}"


def draw_of(seed: int, draws: int) -> int:
    """The flurry draw seed ``seed`` runs on: seed k on draw k, cycling when fewer draws."""
    return (seed - 1) % draws + 1


def make_paper_workload(trace, hosts: int, first: int | None, draw: int) -> tuple[dict, Any]:
    """The cleaned log (zero runtimes kept, 1 s) plus the CTC flurry drawn with seed ``draw``."""
    from adaptsched.workloads.convert import convert_swf
    from adaptsched.workloads.flurry import CTC_FLURRY, add_flurry

    workload, conversion = convert_swf(trace, hosts=hosts, first=first, zero_runtime=PAPER_ZERO_RUNTIME)
    return add_flurry(workload, replace(CTC_FLURRY, seed=draw)), conversion


def workload_stats(workload: Mapping[str, Any]) -> dict[str, Any]:
    """Table 1's and Table 2's numbers of a converted workload (module docstring)."""
    jobs = workload["jobs"]
    profiles = workload["profiles"]
    widths = np.array([job["res"] for job in jobs], dtype=float)
    runtimes = np.array([profiles[job["profile"]]["delay"] for job in jobs], dtype=float)
    estimates = np.array([job["walltime"] for job in jobs], dtype=float)
    meta = workload.get("adaptsched", {})
    counts = meta.get("report", {}).get("counts", {})
    flurry = meta.get("flurry") or {}
    zero = int(counts.get("zero_runtime_replaced", 0)) + int(flurry.get("zero_runtime_kept", 0))
    dropped = meta.get("report", {}).get("dropped", {})
    return {
        "jobs": len(jobs),
        "flurry_jobs": int(flurry.get("inserted", 0)),
        "width_median": float(np.median(widths)),
        "width_mean": float(widths.mean()),
        "runtime_mean_s": float(runtimes.mean()),
        "estimate_mean_s": float(estimates.mean()),
        "estimate_median_s": float(np.median(estimates)),
        "zero_runtime_jobs": zero,
        "zero_runtime_dropped": int(sum(v for k, v in dropped.items() if "runtime 0" in k)),
    }


def queue_stats(jobs: pd.DataFrame) -> dict[str, Any]:
    """The longest queue and the share of jobs starting at once, of a run's folded jobs."""
    submit = jobs["submission_time"].to_numpy(dtype=float)
    start = jobs["starting_time"].to_numpy(dtype=float)
    ran = np.isfinite(start)
    times = np.concatenate([submit, start[ran]])
    steps = np.concatenate([np.ones(len(submit)), -np.ones(int(ran.sum()))])
    order = np.argsort(times, kind="stable")
    times, steps = times[order], steps[order]
    level = np.cumsum(steps)
    last_of_instant = np.append(times[1:] != times[:-1], True)  # the queue once an instant is done
    waited = jobs["waiting_time"].to_numpy(dtype=float)
    return {
        "max_queue": int(level[last_of_instant].max()) if len(level) else 0,
        "immediate": float((waited[ran] <= 1e-6).mean()) if ran.any() else None,
    }


def without_flurry(jobs: pd.DataFrame, flurry_ids: set[int], bound_s: float = 10.0) -> dict[str, Any]:
    """Mean bounded slowdown, wait and response of a run's folded jobs that are not the
    flurry's (the trace's own jobs)."""
    from adaptsched.analysis.metrics import bounded_slowdown_of

    ids = pd.to_numeric(jobs["job_id"].astype(str).str.split("#").str[0], errors="coerce")
    own = ~ids.isin(flurry_ids).to_numpy() & jobs["starting_time"].notna().to_numpy()
    runtime = jobs["execution_time"] / jobs["scale"]
    bsld = np.asarray(bounded_slowdown_of(jobs["turnaround_time"], runtime, bound_s), dtype=float)
    return {
        "jobs": int(own.sum()),
        "bsld_mean": float(bsld[own].mean()) if own.any() else None,
        "wait_mean_s": float(jobs.loc[own, "waiting_time"].mean()) if own.any() else None,
        "response_mean_s": float(jobs.loc[own, "turnaround_time"].mean()) if own.any() else None,
    }


def read_flurry_ids(workload_path: str | Path | None) -> set[int]:
    """The flurry's job ids of a workload file (empty without one, or without a file)."""
    import json

    from adaptsched.workloads.flurry import flurry_job_ids

    if not workload_path or not str(workload_path).endswith(".json"):
        return set()
    with open(workload_path) as handle:
        return flurry_job_ids(json.load(handle))
