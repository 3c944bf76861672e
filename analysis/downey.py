"""Downey's (1996) metrics of a run of moldable jobs (sec. 4, Table 1).

For each folded job (:mod:`.fold`): its cluster size n (allocated hosts of the attempt that
ran), queue time (wait), run time R(n) and turnaround; its model (from the workload's
``moldable`` fields) gives t1 (= L, the sequential lifetime) and R(N) on the whole machine.

* **load average**: busy processors / N, averaged over the measured time;
* **utilization**: efficiency-weighted, sum over jobs of n R(n) E(n) = t1, over N x the
  measured time;
* mean **turnaround** and **queue** time, mean **cluster size** and its coefficient of
  variation (std / mean);
* **p90 slowdown**: 90th percentile of (queue + R(n)) / R(N).

The measured time. Downey averages day-long runs in which "existing jobs continue to run
until all queued jobs have been scheduled": we read a day's measured time as [its start,
max(end of its 12-hour arrival phase, the last start of its jobs)]. A workload's days may be
chained (a long job runs into the next morning, as on a real machine) or apart (each day on
an empty machine, as the paper's runs: :func:`adaptsched.workloads.downey.generate`); a day
is known by its jobs' submission times either way (whole days from the start). Load and
utilization are integrals of the busy processors and of the efficiency-weighted busy
processors over the measured times, divided by N x their total length. Only jobs that
started count.
"""

from __future__ import annotations

import math
import os

import numpy as np

from adaptsched.core.speedup import Downey
from adaptsched.core.units import DAY_S

from ..formats.intervals import alloc_stats
from .fold import fold_attempts
from .jobs import read_jobs_csv, resolve_jobs_path

ARRIVAL_PHASE_S = 43200.0


def _windows(submit: np.ndarray, start: np.ndarray) -> list[tuple[float, float]]:
    days = np.floor(submit / DAY_S).astype(int)
    out = []
    for day in np.unique(days):
        begin = day * DAY_S
        last_start = start[days == day].max()
        out.append((begin, max(begin + ARRIVAL_PHASE_S, last_start)))
    return out


def _overlap(a0, a1, windows) -> np.ndarray:
    """Seconds of each interval [a0, a1) inside the windows."""
    total = np.zeros(len(a0))
    for w0, w1 in windows:
        total += np.clip(np.minimum(a1, w1) - np.maximum(a0, w0), 0, None)
    return total


def downey_metrics(jobs_csv, workload: dict) -> dict:
    """Table 1's metrics of one run (module doc); ``workload`` is the Batsim JSON dict."""
    path = resolve_jobs_path(os.fspath(jobs_csv))
    jobs = fold_attempts(read_jobs_csv(path))
    jobs = jobs[jobs["starting_time"].notna()]
    N = int(workload["nb_res"])
    specs = {str(j["id"]): j.get("moldable") for j in workload["jobs"]}
    n = alloc_stats(jobs["allocated_resources"].to_numpy())[0].astype(float)
    t1_list, r_full_list = [], []
    for job_id, _size in zip(jobs["job_id"], n):
        spec = specs.get(job_id)
        if not spec or spec.get("model") != "downey":
            raise ValueError(f"{path}: job {job_id} has no Downey model in the workload")
        model = Downey(spec["A"], spec["sigma"], spec["t1_s"])
        t1_list.append(model.t1_s)
        r_full_list.append(model.runtime(N))
    t1, r_full = np.array(t1_list), np.array(r_full_list)
    submit = jobs["submission_time"].to_numpy(float)
    start = jobs["starting_time"].to_numpy(float)
    finish = jobs["finish_time"].to_numpy(float)
    run = finish - start
    queue = start - submit
    windows = _windows(submit, start)
    measured = sum(w1 - w0 for w0, w1 in windows)
    inside = _overlap(start, finish, windows)
    with np.errstate(divide="ignore", invalid="ignore"):
        efficiency_weight = np.where(run > 0, t1 / (n * run), 0.0)  # E(n) of each job
    slowdown = (queue + run) / r_full
    return {
        "jobs": len(jobs),
        "load": float((n * inside).sum() / (N * measured)),
        "utilization": float((n * efficiency_weight * inside).sum() / (N * measured)),
        "turnaround_s": float((finish - submit).mean()),
        "queue_s": float(queue.mean()),
        "cluster_size": float(n.mean()),
        "cluster_cv": float(n.std() / n.mean()) if n.mean() else math.nan,
        "slowdown_p90": float(np.percentile(slowdown, 90)),
        "measured_s": float(measured),
    }


def read_workload(path) -> dict:
    import json

    return json.loads(open(path).read())


__all__ = ["downey_metrics", "read_workload"]
