"""Metrics of Perkovic & Keleher, "Randomization, Speculation, and Adaptation in Batch
Schedulers": shape groups, speculative attempts and the value of guarantees.

* **Shape groups** (sec. 3, Table 2 and Figure 4): each job is short or long by the median
  estimate (requested time) of the run's jobs, and narrow or wide by their median width
  (requested hosts): ``SN``, ``SW``, ``LN``, ``LW``. A job at the median is short/narrow.
  The medians are taken over the submitted jobs, so every run of the same trace uses the
  same groups whatever its scheduler did.
* **Speculative attempts** (sec. 4): the copies a scheduler ran with metadata ``kind``
  ``speculative`` or ``test`` (speculative test runs). ``attempts``, ``successes``
  (COMPLETED_SUCCESSFULLY), ``success_rate`` and ``wasted_node_s`` (hosts x seconds of the
  attempts that did not succeed).
* **Guaranteed vs actual delay** (sec. 3, Table 3): for each job that did not start
  immediately, (first guarantee - submission) / (start - submission), the guarantee being the
  ``reservation_s`` the scheduler wrote in the job's metadata; mean, median, 15th and 85th
  percentiles.

Times are seconds; bounded slowdowns follow :mod:`.metrics` (bound 10 s, runtime at the
submitted width).
"""

from __future__ import annotations

import os
import re

import numpy as np
import pandas as pd

from .jobs import SUCCESS, alloc_columns, read_jobs_csv, resolve_jobs_path
from .metrics import analyse, bounded_slowdown_of

GROUPS = ("SN", "SW", "LN", "LW")
SPECULATIVE_KINDS = ("speculative", "test")
_KIND_RE = re.compile(r"""['"]kind['"]\s*:\s*['"]([^'"]+)['"]""")
_RESERVATION_RE = re.compile(r"""['"]reservation_s['"]\s*:\s*([-+0-9.eE]+)""")
#: A guarantee is a time the scheduler computed from the 6-decimal times Batsim sends it; with
#: fractional runtimes (resized jobs) the engine's exact times drift from those by a few
#: microseconds along chains of jobs, so a job due at its guarantee may start that much later.
GUARANTEE_EPS_S = 1e-5


def shape_groups(jobs: pd.DataFrame) -> pd.Series:
    """``SN``/``SW``/``LN``/``LW`` of each job, by the median estimate and median width."""
    estimate = jobs["requested_time"].astype(float)
    width = jobs["requested_number_of_resources"].astype(float)
    long_ = estimate > estimate.median()
    wide = width > width.median()
    return pd.Series(np.where(long_, "L", "S"), index=jobs.index).str.cat(
        pd.Series(np.where(wide, "W", "N"), index=jobs.index)
    )


def group_stats(jobs: pd.DataFrame, bound_s: float = 10.0) -> dict:
    """Per shape group of folded jobs: jobs, mean bounded slowdown, mean wait and response."""
    groups = shape_groups(jobs)
    ran = jobs["starting_time"].notna()
    runtime = jobs["execution_time"] / jobs["scale"]
    bsld = bounded_slowdown_of(jobs["turnaround_time"], runtime, bound_s)
    out = {}
    for name in GROUPS:
        member = (groups == name) & ran
        out[name] = {
            "jobs": int((groups == name).sum()),
            "bsld_mean": float(bsld[member.to_numpy()].mean()) if member.any() else None,
            "wait_mean_s": float(jobs.loc[member, "waiting_time"].mean()) if member.any() else None,
            "response_mean_s": float(jobs.loc[member, "turnaround_time"].mean()) if member.any() else None,
        }
    return out


def speculation_stats(raw: pd.DataFrame) -> dict:
    """Speculative attempts of an unfolded frame, per kind and in total (see module doc)."""
    kinds = raw["metadata"].str.extract(_KIND_RE, expand=False)
    ran = raw["starting_time"].notna()
    sizes = alloc_columns(raw)[0]
    node_s = np.where(ran, sizes * np.nan_to_num(raw["execution_time"].to_numpy(dtype=float)), 0.0)
    success = (raw["final_state"] == SUCCESS).to_numpy()
    out = {}
    for label, member in [(kind, (kinds == kind).to_numpy() & ran.to_numpy()) for kind in SPECULATIVE_KINDS] + [
        ("all", kinds.isin(SPECULATIVE_KINDS).to_numpy() & ran.to_numpy())
    ]:
        attempts = int(member.sum())
        successes = int((member & success).sum())
        out[label] = {
            "attempts": attempts,
            "successes": successes,
            "success_rate": successes / attempts if attempts else None,
            "wasted_node_s": float(node_s[member & ~success].sum()),
        }
    return out


def reservations(raw: pd.DataFrame) -> pd.Series:
    """Each original job's first guarantee (``reservation_s`` of its metadata), NaN if none."""
    found = raw["metadata"].str.extract(_RESERVATION_RE, expand=False)
    return pd.to_numeric(found, errors="coerce")


def guarantee_ratios(raw: pd.DataFrame, jobs: pd.DataFrame) -> dict:
    """Guaranteed / actual delay of the folded jobs that did not start immediately, and
    ``late``: the jobs (all of them) that started after their first guarantee."""
    keys = raw["workload_name"] + "!" + raw["job_id"]
    first = pd.Series(reservations(raw).to_numpy(), index=keys.to_numpy())
    first = first[~first.index.duplicated()]
    jkeys = (jobs["workload_name"] + "!" + jobs["job_id"]).to_numpy()
    promised = first.reindex(jkeys).to_numpy(dtype=float)
    start = jobs["starting_time"].to_numpy(dtype=float)
    has = np.isfinite(promised) & np.isfinite(start)
    late = int((start[has] > promised[has] + GUARANTEE_EPS_S).sum())
    guaranteed = promised - jobs["submission_time"].to_numpy(dtype=float)
    actual = jobs["waiting_time"].to_numpy(dtype=float)
    member = has & (actual > 1e-6)
    ratio = guaranteed[member] / actual[member]
    if not len(ratio):
        return {
            "jobs": 0,
            "mean": None,
            "median": None,
            "p15": None,
            "p85": None,
            "late": late,
            "with_guarantee": int(has.sum()),
        }
    return {
        "jobs": len(ratio),
        "mean": float(ratio.mean()),
        "median": float(np.median(ratio)),
        "p15": float(np.percentile(ratio, 15)),
        "p85": float(np.percentile(ratio, 85)),
        "late": late,
        "with_guarantee": int(has.sum()),
    }


def backfilling_metrics(jobs_csv, *, bound_s: float = 10.0, hosts=None) -> dict:
    """All of the above plus :func:`.metrics.analyse`'s overall metrics, for one run."""
    path = resolve_jobs_path(os.fspath(jobs_csv))
    raw = read_jobs_csv(path)
    metrics, jobs = analyse(raw, source=str(path), bound_s=bound_s, hosts=hosts)
    metrics["groups"] = group_stats(jobs, bound_s)
    metrics["speculation"] = speculation_stats(raw)
    metrics["guarantees"] = guarantee_ratios(raw, jobs)
    metrics["resized_jobs"] = int((jobs["scale"] != 1.0).sum())
    return metrics


__all__ = [
    "GROUPS",
    "backfilling_metrics",
    "group_stats",
    "guarantee_ratios",
    "reservations",
    "shape_groups",
    "speculation_stats",
]
