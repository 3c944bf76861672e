"""Barsanti & Sodan's metrics of a run (SCOJO-P paper, sec. 5.1 and Table 1).

For each folded job (:mod:`.fold`) of the run, the workload (Batsim JSON dict) gives its
optimum size N_opt and runtime(N_opt) (:func:`adaptsched.core.scojo.shape_of`; a rigid job:
its request and its profile's delay) and so its class: short < 60 s <= medium < 1 h <= long.

* **cut**: the first and last ``cut`` of the jobs in submission order are dropped (fill and
  drain; Table 1: 5% each. The text's "first and last 10%" is read as 10% in all; the report
  also gives ``cut=0.10``);
* per class and overall: mean **response** (finish - submission), **wait** (start -
  submission) and **bounded slowdown** with bound 30 s related to runtime(N_opt):
  max(resp / max(rt_opt, 30), 1) if rt_opt < 30 s, else resp / rt_opt (no floor);
* **utilization**: host-seconds busy (every job, kept or not) between the first and the last
  kept submission / (machine hosts x that window);
* **adaptations** (Figs 8, 13): jobs run on fewer hosts than N_opt (shrunk), more (expanded)
  or N_opt (kept), per class;
* **histograms** (Fig. 9): response times per class in log-spaced bins, a value x counted in
  the bin (previous edge, edge].
"""

from __future__ import annotations

import math
import os

import numpy as np

from adaptsched.core.scojo import CLASSES
from adaptsched.workloads.scojo_stats import optimum_sizes

from ..formats.intervals import alloc_stats
from .fold import fold_attempts
from .jobs import read_jobs_csv, resolve_jobs_path

BOUND_S = 30.0
#: Edges (s) of the response-time histograms; the last bin is (1e6, inf).
HISTOGRAM_EDGES_S = (1, 3, 10, 30, 100, 300, 1e3, 3e3, 1e4, 3e4, 1e5, 3e5, 1e6, math.inf)


def bounded_slowdown(response_s: np.ndarray, runtime_opt_s: np.ndarray, bound_s: float = BOUND_S) -> np.ndarray:
    """Sec. 5.1's BSld, related to runtime(N_opt)."""
    short = runtime_opt_s < bound_s
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(
            short, np.maximum(response_s / np.maximum(runtime_opt_s, bound_s), 1.0), response_s / runtime_opt_s
        )


def _summary(mask, response, wait, bsld, size, n_opt) -> dict:
    count = int(mask.sum())

    def mean(x):
        return float(x[mask].mean()) if count else math.nan

    return {
        "jobs": count,
        "response_mean_s": mean(response),
        "wait_mean_s": mean(wait),
        "bsld_mean": mean(bsld),
        "size_mean": mean(size),
        "n_opt_mean": mean(n_opt),
        "shrunk": int((mask & (size < n_opt)).sum()),
        "expanded": int((mask & (size > n_opt)).sum()),
        "kept": int((mask & (size == n_opt)).sum()),
    }


def scojo_metrics(jobs_csv, workload: dict, *, cut: float = 0.05, bound_s: float = BOUND_S) -> dict:
    """The metrics of the module doc for one run; ``workload`` is the Batsim JSON dict."""
    if not 0 <= cut < 0.5:
        raise ValueError(f"cut must be in [0, 0.5), got {cut}")
    path = resolve_jobs_path(os.fspath(jobs_csv))
    jobs = fold_attempts(read_jobs_csv(path))
    optimum = optimum_sizes(workload)
    missing = sorted(set(jobs["job_id"]) - set(optimum))
    if missing:
        raise ValueError(f"{path}: job {missing[0]} is not in the workload")
    nb_hosts = int(workload["nb_res"])
    order = {str(j["id"]): i for i, j in enumerate(workload["jobs"])}
    jobs = jobs.assign(_order=jobs["job_id"].map(order)).sort_values(["submission_time", "_order"], kind="stable")
    ran = jobs["starting_time"].notna().to_numpy()
    if not ran.all():
        raise ValueError(f"{path}: {int((~ran).sum())} job(s) never ran (rejected or unfinished)")
    total = len(jobs)
    drop = math.floor(total * cut)
    keep = np.zeros(total, bool)
    keep[drop : total - drop] = True

    submit = jobs["submission_time"].to_numpy(float)
    start = jobs["starting_time"].to_numpy(float)
    finish = jobs["finish_time"].to_numpy(float)
    size = alloc_stats(jobs["allocated_resources"].to_numpy())[0].astype(float)
    n_opt = np.array([optimum[i][0] for i in jobs["job_id"]], float)
    runtime_opt = np.array([optimum[i][1] for i in jobs["job_id"]], float)
    klass = np.where(runtime_opt < 60, 0, np.where(runtime_opt < 3600, 1, 2))
    response, wait = finish - submit, start - submit
    bsld = bounded_slowdown(response, runtime_opt, bound_s)

    t0, t1 = float(submit[keep].min()), float(submit[keep].max())
    busy = float((size * np.clip(np.minimum(finish, t1) - np.maximum(start, t0), 0, None)).sum())
    window = t1 - t0
    classes = {name: _summary(keep & (klass == c), response, wait, bsld, size, n_opt) for c, name in enumerate(CLASSES)}
    classes["all"] = _summary(keep, response, wait, bsld, size, n_opt)
    edges = np.array(HISTOGRAM_EDGES_S)
    histograms = {}
    for c, name in enumerate(CLASSES):
        values = response[keep & (klass == c)]
        bins = np.searchsorted(edges, values, side="left")  # (edge[i-1], edge[i]] -> i
        histograms[name] = np.bincount(bins, minlength=len(edges))[: len(edges)].tolist()
    return {
        "source": path,
        "jobs": total,
        "kept": int(keep.sum()),
        "cut": cut,
        "bound_s": bound_s,
        "window_s": [t0, t1],
        "utilization": busy / (nb_hosts * window) if window > 0 else math.nan,
        "classes": classes,
        "histogram_edges_s": list(HISTOGRAM_EDGES_S),
        "histograms": histograms,
    }


def molded_row_violations(jobs_csv, workload: dict, *, tolerance_s: float = 1e-6, limit: int = 10) -> list[str]:
    """Barsanti & Sodan's molding, checked on the outputs: each executed job of a moldable spec
    ran runtime(n) (its model's) within ``tolerance_s``, with n in [N_min, N_max]; a rigid job
    ran on its request for its profile's delay. Returns the violations (at most ``limit``)."""
    from adaptsched.core.base import Job
    from adaptsched.core.scojo import shape_of

    path = resolve_jobs_path(os.fspath(jobs_csv))
    jobs = fold_attempts(read_jobs_csv(path))
    jobs = jobs[jobs["starting_time"].notna()]
    nb_hosts = int(workload["nb_res"])
    specs = {str(j["id"]): j for j in workload["jobs"]}
    profiles = workload.get("profiles", {})
    sizes = alloc_stats(jobs["allocated_resources"].to_numpy())[0]
    problems: list[str] = []
    for job_id, run_s, n in zip(jobs["job_id"], jobs["execution_time"].to_numpy(float), sizes):
        spec = specs.get(job_id)
        if spec is None:
            problems.append(f"job {job_id} is not in the workload")
            continue
        job = Job(job_id, float(spec["subtime"]), int(spec["res"]), float(spec.get("walltime", -1)), spec)
        shape = shape_of(job, nb_hosts)
        if shape.model is None:
            expected = float(profiles.get(spec.get("profile"), {}).get("delay", math.nan))
            if n != job.res:
                problems.append(f"rigid job {job_id} ran on {n} hosts, not its {job.res}")
        else:
            if not shape.n_min <= n <= shape.n_max:
                problems.append(f"job {job_id} ran on {n} hosts, outside [{shape.n_min}, {shape.n_max}]")
                continue
            expected = shape.model.runtime(int(n))
        if not abs(run_s - expected) <= tolerance_s:
            problems.append(f"job {job_id} on {n} hosts ran {run_s!r} s, not {expected!r} s")
        if len(problems) >= limit:
            break
    return problems


__all__ = ["bounded_slowdown", "molded_row_violations", "scojo_metrics"]
