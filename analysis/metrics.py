"""Scheduling metrics of one Batsim run (``compute_metrics``) and their Markdown table.

Definitions (all times in seconds; "executed" = the job started, whatever its final state;
statistics are over the **folded** jobs, see :mod:`.fold`):

* ``jobs``: all jobs (folded rows, rejected ones included); ``completed``: final state
  COMPLETED_SUCCESSFULLY; ``killed``: COMPLETED_WALLTIME_REACHED or COMPLETED_KILLED;
  ``failed``: COMPLETED_FAILED; ``rejected``: no executed attempt. A killed or rejected
  attempt is never a completion; only the final attempt's state counts.
* window = [first submission of any job, last finish of any executed attempt];
  ``makespan_s`` = its length.
* wait = start of the final attempt - submission of the original job; response = turnaround
  = finish - submission. ``mean``, ``median``, ``p90`` (numpy linear-interpolated
  90th percentile) over executed jobs.
* bounded slowdown of a job = max(1, response / max(runtime, bound_s)), runtime =
  execution time of the final attempt divided by its ``scale`` (the job's runtime at its
  submitted width: a job run at half size on twice the time has a slowdown of at least 2,
  as in Perkovic & Keleher sec. 5), ``bound_s`` = 10 s by default (the usual value in the
  literature, Feitelson et al.: it stops sub-10-second jobs from dominating the mean);
  ``bsld_mean`` is the mean over executed jobs (killed ones included).
* utilization = busy host-seconds / (hosts x makespan), the busy host-seconds being the
  integral of evalys' utilisation curve over **all executed attempts** (killed attempts
  occupied their hosts too). Hosts: the ``hosts`` argument, else ``nb_computing_machines``
  of the sibling ``PREFIX_schedule.csv``, else highest allocated host id + 1
  (``hosts_source`` says which).
* ``mean_queue_hosts``: the queued demand, time-averaged: at each instant, the hosts
  requested by the jobs submitted and not yet started (their final attempt), averaged over
  the window, = sum over executed jobs of wait x requested hosts / makespan. It measures
  demand, not use: it exceeds the machine size whenever more work waits than the machine
  holds (a backlog of 1.9 machines' worth of jobs on average reads 1.9 x hosts). Rejected
  jobs never wait in this sense and count for nothing.
* ``wasted_node_s``: host-seconds of attempts that were redone: non-final attempts that did
  not succeed (killed speculative copies and test runs, jobs killed then resubmitted);
  ``killed_node_s``: host-seconds of jobs killed for good (the final attempt reached its
  walltime or was killed by the scheduler): work that produced no result either;
  ``resubmitted_jobs``: jobs with more than one executed attempt.

Classes partition the executed jobs: by runtime ``short`` (< ``short_s``, 1 h), ``medium``,
``long`` (>= ``long_s``, 10 h); by requested hosts ``narrow`` (<= ``wide_hosts``, 16) and
``wide``. A class's ``utilization`` is its share: busy host-seconds of its jobs' attempts over
the same hosts x makespan, so runtime (or width) classes add up to the overall value.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from adaptsched.core.units import DAY_S, HOUR_S, MINUTE_S

from .energy import energy_stats, fmt_joules
from .evalys_bridge import executed_rows, integral, load_curve
from .fold import fold_attempts, root_keys
from .jobs import (
    FAILED,
    HIDDEN_COLUMNS,
    KILLED_STATES,
    SUCCESS,
    alloc_stats,
    read_jobs_csv,
    resolve_hosts,
    resolve_jobs_path,
    schedule_path_for,
    with_alloc_columns,
)

RUNTIME_CLASSES = ("short", "medium", "long")
WIDTH_CLASSES = ("narrow", "wide")
CLASSES = RUNTIME_CLASSES + WIDTH_CLASSES


def _num(value):
    """Plain Python float (None for NaN/inf/None) for JSON."""
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def _stats(values: np.ndarray, prefix: str) -> dict:
    if len(values) == 0:
        return {f"{prefix}_mean_s": None, f"{prefix}_median_s": None, f"{prefix}_p90_s": None}
    return {
        f"{prefix}_mean_s": _num(np.mean(values)),
        f"{prefix}_median_s": _num(np.median(values)),
        f"{prefix}_p90_s": _num(np.percentile(values, 90)),
    }


def bounded_slowdown(wait, runtime, bound_s: float = 10.0) -> np.ndarray:
    """max(1, (wait + runtime) / max(runtime, bound_s)), element-wise."""
    wait = np.asarray(wait, dtype=float)
    runtime = np.asarray(runtime, dtype=float)
    return np.maximum(1.0, (wait + runtime) / np.maximum(runtime, bound_s))


def bounded_slowdown_of(response, runtime, bound_s: float = 10.0) -> np.ndarray:
    """max(1, response / max(runtime, bound_s)), element-wise (runtime at the submitted width)."""
    response = np.asarray(response, dtype=float)
    runtime = np.asarray(runtime, dtype=float)
    return np.maximum(1.0, response / np.maximum(runtime, bound_s))


def _job_stats(jobs: pd.DataFrame, bound_s: float) -> dict:
    """Counts, wait/response statistics and mean bounded slowdown of folded jobs."""
    state = jobs["final_state"]
    ran = jobs["starting_time"].notna()
    wait = jobs.loc[ran, "waiting_time"].to_numpy(dtype=float)
    response = jobs.loc[ran, "turnaround_time"].to_numpy(dtype=float)
    runtime = (jobs.loc[ran, "execution_time"] / jobs.loc[ran, "scale"]).to_numpy(dtype=float)
    out: dict[str, Any] = {
        "jobs": len(jobs),
        "executed": int(ran.sum()),
        "completed": int((state == SUCCESS).sum()),
        "killed": int(state.isin(KILLED_STATES).sum()),
        "failed": int((state == FAILED).sum()),
        "rejected": int((~ran).sum()),
    }
    out.update(_stats(wait, "wait"))
    out.update(_stats(response, "response"))
    out["bsld_mean"] = _num(np.mean(bounded_slowdown_of(response, runtime, bound_s))) if len(wait) else None
    out["resubmitted_jobs"] = int((jobs["attempts"] > 1).sum())
    out["wasted_node_s"] = _num(jobs["wasted_node_s"].sum())
    killed = jobs[state.isin(KILLED_STATES) & ran]
    sizes = alloc_stats(killed["allocated_resources"].to_numpy())[0]
    out["killed_node_s"] = _num(float(np.sum(sizes * killed["execution_time"].to_numpy(dtype=float))))
    return out


def metrics_from_frames(raw: pd.DataFrame, *, source: str, **options) -> dict:
    """:func:`compute_metrics` on an already read (unfolded) frame."""
    return analyse(raw, source=source, **options)[0]


def analyse(
    raw: pd.DataFrame,
    *,
    source: str,
    bound_s: float = 10.0,
    hosts=None,
    short_s: float = 3600.0,
    long_s: float = 36000.0,
    wide_hosts: int = 16,
    fold: bool = True,
) -> tuple[dict, pd.DataFrame]:
    """(metrics dict, folded jobs frame) of an already read (unfolded) frame."""
    if not bound_s > 0:
        raise ValueError(f"bound_s must be > 0, got {bound_s!r}")
    if not 0 < short_s <= long_s:
        raise ValueError(f"need 0 < short_s <= long_s, got {short_s!r}, {long_s!r}")
    if not wide_hosts >= 1:
        raise ValueError(f"wide_hosts must be >= 1, got {wide_hosts!r}")
    raw = with_alloc_columns(raw)  # parse the allocations once
    nb_hosts, hosts_source = resolve_hosts(source, raw, hosts)
    roots = root_keys(raw) if fold else raw["workload_name"] + "!" + raw["job_id"]
    jobs = fold_attempts(raw, roots)  # without links (fold=False): rows unchanged
    jobs["_root"] = jobs["workload_name"] + "!" + jobs["job_id"]

    overall = _job_stats(jobs, bound_s)
    ran_raw = executed_rows(raw)
    ran_jobs = jobs[jobs["starting_time"].notna()]
    capacity = _add_machine_stats(overall, raw, jobs, ran_raw, ran_jobs, nb_hosts)
    overall.update(energy_stats(source, ran_jobs, overall["makespan_s"], overall["busy_node_s"]))
    raw_roots = roots[ran_raw.index] if len(ran_raw) else roots.iloc[:0]
    classes = _class_stats(ran_jobs, ran_raw, raw_roots, capacity, bound_s, short_s, long_s, wide_hosts)

    metrics = {
        "source": source,
        "hosts": nb_hosts,
        "hosts_source": hosts_source,
        "parameters": {
            "bound_s": float(bound_s),
            "short_s": float(short_s),
            "long_s": float(long_s),
            "wide_hosts": int(wide_hosts),
            "fold": bool(fold),
        },
        "overall": overall,
        "classes": classes,
    }
    return metrics, jobs.drop(columns=["_root", *HIDDEN_COLUMNS])


def _add_machine_stats(
    overall: dict, raw: pd.DataFrame, jobs: pd.DataFrame, ran_raw: pd.DataFrame, ran_jobs: pd.DataFrame, nb_hosts
) -> float:
    """Adds the window, makespan, busy node-seconds, utilization and mean queue to
    ``overall``; returns the capacity (hosts x makespan, 0 if unknown)."""
    begin: float | None = None
    end: float | None = None
    if len(ran_raw):
        begin = float(jobs["submission_time"].min())
        end = float(ran_raw["finish_time"].max())
    makespan = end - begin if begin is not None and end is not None else None
    capacity = nb_hosts * makespan if makespan and nb_hosts else 0.0
    busy = integral(load_curve(raw, "utilisation"))
    queued = float(np.sum(ran_jobs["waiting_time"].to_numpy(dtype=float) * ran_jobs["requested_number_of_resources"]))
    overall.update(
        {
            "window_start_s": _num(begin),
            "window_end_s": _num(end),
            "makespan_s": _num(makespan),
            "busy_node_s": _num(busy),
            "utilization": _num(busy / capacity) if capacity else None,
            "mean_queue_hosts": _num(queued / makespan) if makespan else None,
        }
    )
    return capacity


def _class_stats(
    ran_jobs: pd.DataFrame,
    ran_raw: pd.DataFrame,
    raw_roots: pd.Series,
    capacity: float,
    bound_s: float,
    short_s: float,
    long_s: float,
    wide_hosts: int,
) -> dict[str, dict]:
    """Statistics per class over the executed folded jobs; attempts follow the class of their
    job (their busy node-seconds count in its class)."""
    runtime = ran_jobs["execution_time"]
    width = ran_jobs["requested_number_of_resources"]
    members = {
        "short": runtime < short_s,
        "medium": (runtime >= short_s) & (runtime < long_s),
        "long": runtime >= long_s,
        "narrow": width <= wide_hosts,
        "wide": width > wide_hosts,
    }
    classes = {}
    for name in CLASSES:
        subset = ran_jobs[members[name]]
        stats = _job_stats(subset, bound_s)
        del stats["rejected"], stats["executed"]
        class_busy = (
            integral(load_curve(ran_raw[raw_roots.isin(subset["_root"]).to_numpy()], "utilisation"))
            if len(subset)
            else 0.0
        )
        stats["busy_node_s"] = _num(class_busy)
        stats["utilization"] = _num(class_busy / capacity) if capacity else None
        classes[name] = stats
    return classes


def compute_metrics(
    jobs_csv,
    *,
    bound_s: float = 10.0,
    hosts=None,
    short_s: float = 3600.0,
    long_s: float = 36000.0,
    wide_hosts: int = 16,
    fold: bool = True,
) -> dict:
    """Metrics of one Batsim run, as JSON-serialisable plain Python types.

    ``jobs_csv``: a ``PREFIX_jobs.csv`` path (or the prefix). ``bound_s``: bounded-slowdown
    bound in seconds. ``hosts``: machine size (default: schedule.csv, else inferred).
    ``short_s``/``long_s``/``wide_hosts``: class thresholds. ``fold``: fold attempts of a
    resubmitted/copied job into one job (default True). See the module doc for formulas.

    Returns ``{"source", "hosts", "hosts_source", "parameters", "overall": {...},
    "classes": {"short"|"medium"|"long"|"narrow"|"wide": {...}}}``.
    """
    path = resolve_jobs_path(os.fspath(jobs_csv))
    raw = read_jobs_csv(path)
    return metrics_from_frames(
        raw,
        source=str(path),
        bound_s=bound_s,
        hosts=hosts,
        short_s=short_s,
        long_s=long_s,
        wide_hosts=wide_hosts,
        fold=fold,
    )


def nothing_ran(metrics: dict) -> str | None:
    """Why the run of these metrics has nothing to measure (no job ran), else None. The
    message does not name the file (``metrics["source"]``)."""
    overall, source = metrics["overall"], Path(metrics["source"])
    if overall["executed"]:
        return None
    schedule = schedule_path_for(source)
    finished = schedule is not None and schedule.is_file()
    logs = f"{source.name[: -len('_jobs.csv')]}_sched.log" if source.name.endswith("_jobs.csv") else "its logs"
    if overall["jobs"] == 0:
        return f"holds no job at all (a header only): the run did not finish (see {logs}), or its workload was empty"
    what = f"holds {overall['jobs']:,} jobs and none of them ran ({overall['rejected']:,} rejected)"
    why = "the scheduler started no job" if finished else f"the run did not finish (see {logs})"
    return f"{what}: {why}; there is no schedule to measure"


# --------------------------------------------------------------------------- formatting
def fmt_seconds(value) -> str:
    if value is None:
        return "-"
    if abs(value) >= 3600:
        return f"{value:,.1f} s ({value / 3600:,.2f} h)"
    return f"{value:,.1f} s"


def fmt_number(value, digits: int = 2) -> str:
    if value is None:
        return "-"
    if isinstance(value, int):
        return f"{value:,}"
    return f"{value:,.{digits}f}"


def fmt_percent(value) -> str:
    return "-" if value is None else f"{100 * value:.1f} %"


#: (key in metrics["overall"], label, formatter) of the overall rows of every table.
OVERALL_ROWS = (
    ("jobs", "jobs", fmt_number),
    ("completed", "completed successfully", fmt_number),
    ("killed", "killed (walltime or scheduler)", fmt_number),
    ("failed", "failed", fmt_number),
    ("rejected", "rejected", fmt_number),
    ("resubmitted_jobs", "jobs run more than once", fmt_number),
    ("makespan_s", "makespan", fmt_seconds),
    ("wait_mean_s", "wait, mean", fmt_seconds),
    ("wait_median_s", "wait, median", fmt_seconds),
    ("wait_p90_s", "wait, p90", fmt_seconds),
    ("response_mean_s", "response, mean", fmt_seconds),
    ("response_median_s", "response, median", fmt_seconds),
    ("response_p90_s", "response, p90", fmt_seconds),
    ("bsld_mean", "bounded slowdown, mean", fmt_number),
    ("utilization", "utilization", fmt_percent),
    ("busy_node_s", "busy host-seconds", lambda v: fmt_number(v, 0)),
    ("wasted_node_s", "host-seconds of attempts redone (killed copies, resubmitted jobs)", lambda v: fmt_number(v, 0)),
    ("killed_node_s", "host-seconds of jobs killed for good (walltime or scheduler)", lambda v: fmt_number(v, 0)),
    ("mean_queue_hosts", "queued demand: hosts requested by waiting jobs, time-average", fmt_number),
)

#: The energy rows, after :data:`OVERALL_ROWS`, for runs made with ``--energy`` (:mod:`.energy`).
ENERGY_ROWS = (
    ("energy_j", "energy (Batsim's consumed_joules)", fmt_joules),
    ("mean_power_w", "mean power", lambda v: "-" if v is None else f"{v:,.1f} W"),
    ("jobs_energy_j", "energy of the jobs (sum of consumed_energy)", fmt_joules),
    ("job_energy_mean_j", "energy per job, mean", fmt_joules),
    ("energy_outside_jobs_j", "energy outside jobs (idle, sleeping, switching hosts)", fmt_joules),
    ("energy_per_node_s_j", "energy per unit of work (J per busy host-second)", fmt_number),
)

_CLASS_COLUMNS = (
    ("jobs", "jobs", fmt_number),
    ("completed", "completed", fmt_number),
    ("killed", "killed", fmt_number),
    ("wait_mean_s", "mean wait", fmt_seconds),
    ("wait_p90_s", "p90 wait", fmt_seconds),
    ("response_mean_s", "mean response", fmt_seconds),
    ("bsld_mean", "mean bsld", fmt_number),
    ("utilization", "utilization share", fmt_percent),
)


def _human_threshold(seconds: float) -> str:
    for unit, size in (("d", DAY_S), ("h", HOUR_S), ("min", MINUTE_S)):
        if seconds >= size and seconds % size == 0:
            return f"{seconds / size:g} {unit}"
    return f"{seconds:g} s"


def class_label(name: str, parameters: dict) -> str:
    p = parameters
    short, long_ = _human_threshold(p["short_s"]), _human_threshold(p["long_s"])
    return {
        "short": f"short (< {short})",
        "medium": f"medium ({short} to {long_})",
        "long": f"long (>= {long_})",
        "narrow": f"narrow (<= {p['wide_hosts']} hosts)",
        "wide": f"wide (> {p['wide_hosts']} hosts)",
    }[name]


def format_metrics(metrics: dict) -> str:
    """A Markdown report (overall table + per-class table) of :func:`compute_metrics`."""
    p = metrics["parameters"]
    lines = [
        f"## Metrics of {Path(metrics['source']).name}",
        "",
        f"{metrics['hosts'] or '?'} hosts (source: {metrics['hosts_source']}); bounded "
        "slowdown bound "
        f"{p['bound_s']:g} s; attempts {'folded' if p['fold'] else 'not folded'}.",
        "",
        "| metric | value |",
        "|---|---:|",
    ]
    overall = metrics["overall"]
    for key, label, fmt in OVERALL_ROWS:
        text = fmt(overall.get(key))
        if key == "mean_queue_hosts" and overall.get(key) is not None and metrics["hosts"]:
            text += f" ({overall[key] / metrics['hosts']:.2f} x the {metrics['hosts']} hosts)"
        lines.append(f"| {label} | {text} |")
    if overall.get("energy_j") is not None:
        lines += [f"| {label} | {fmt(overall.get(key))} |" for key, label, fmt in ENERGY_ROWS]
    lines += [
        "",
        "### Per class (executed jobs)",
        "",
        "| class | " + " | ".join(label for _, label, _ in _CLASS_COLUMNS) + " |",
        "|---|" + "---:|" * len(_CLASS_COLUMNS),
    ]
    for name in CLASSES:
        stats = metrics["classes"][name]
        cells = [fmt(stats.get(key)) for key, _, fmt in _CLASS_COLUMNS]
        lines.append(f"| {class_label(name, p)} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
