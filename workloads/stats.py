"""Summary statistics of a Batsim JSON workload of delay jobs (what ``generate`` prints).

* span: last subtime - first subtime (s);
* offered load: sum of res x runtime over nb_res x span (Lublin & Feitelson's definition,
  JPDC 63(11), 2003), runtimes being the profiles' delays;
* jobs a day: jobs / span in days.
"""

from __future__ import annotations

import math

from adaptsched.core.units import DAY_S


def summary(workload: dict) -> dict:
    """``jobs``, ``span_s``, ``days``, ``jobs_per_day``, ``mean_res``, ``mean_runtime_s`` and
    ``offered_load`` (inf for a zero span) of a workload dict."""
    jobs = workload["jobs"]
    profiles = workload["profiles"]
    n = len(jobs)
    if not n:
        return {"jobs": 0, "span_s": 0.0, "days": 0.0, "jobs_per_day": math.nan, "mean_res": math.nan}
    subtimes = [j["subtime"] for j in jobs]
    span = max(subtimes) - min(subtimes)
    runtimes = [float(profiles[j["profile"]].get("delay", math.nan)) for j in jobs]
    area = sum(j["res"] * r for j, r in zip(jobs, runtimes))
    return {
        "jobs": n,
        "span_s": span,
        "days": span / DAY_S,
        "jobs_per_day": n * DAY_S / span if span > 0 else math.inf,
        "mean_res": sum(j["res"] for j in jobs) / n,
        "mean_runtime_s": sum(runtimes) / n,
        "offered_load": area / (workload["nb_res"] * span) if span > 0 else math.inf,
    }


def summary_text(workload: dict) -> str:
    """One line: ``N jobs over D days (J jobs/day), mean size S, mean runtime R s, offered
    load L on P hosts``."""
    s = summary(workload)
    return (
        f"{s['jobs']} jobs over {s['days']:.2f} days ({s['jobs_per_day']:.1f} jobs/day), mean size "
        f"{s['mean_res']:.2f}, mean runtime {s['mean_runtime_s']:.0f} s, offered load {s['offered_load']:.3f} "
        f"on {workload['nb_res']} hosts"
    )
