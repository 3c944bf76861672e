"""QoS annotations of Batsim JSON workloads (``adaptsched qos-annotate``).

Islam, Balaji, Sabin & Sadayappan, "Analyzing and Minimizing the Impact of Opportunity Cost
in QoS-aware Job Scheduling" (ICPP 2007), sec. 5.1; our readings are in docs/qops.md. Each job gains (times in seconds,
from the workload's start; prices in units):

* ``deadline`` = subtime + ``deadline_factor`` (5) x estimate;
* ``urgent``: true for a fraction ``urgent_fraction`` of the jobs, drawn with ``seed``;
* ``price`` = ``unit_price`` (0.1 per processor-second) x res x estimate, times
  ``urgent_cost`` (C) for urgent jobs: the most the job pays.

The terms are declared in :mod:`adaptsched.core.qos` (one definition for the writer here,
QoPS and the analysis). The value function: the full price if the job completes by subtime +
estimate, decreasing linearly to zero at the deadline, zero after. The estimate is the
job's ``estimate_s`` (``adaptsched estimates``, or a trace's requested time), else its walltime,
or the runtime with ``exact`` estimates (then the walltime is set to the runtime
+ 1 s, so Batsim never kills a job at its estimate: it ends at its runtime, COMPLETED).
Prices on the estimate and the decay's start at subtime + estimate are our choices where
the paper is silent (both as the reference suggests).

:func:`high_load` duplicates a random ``fraction`` (about 40 %) of the jobs (same subtime,
estimate, runtime and deadline; a new id ``<id>d``) and reports the offered load before and
after.
"""

from __future__ import annotations

import random

from adaptsched.core.qos import QosTerms, estimate_of
from adaptsched.errors import AdaptschedError


def terms(job: dict) -> QosTerms:
    """The QoS terms of an annotated job (a Batsim JSON job dict), as the scheduler reads them."""
    return QosTerms.of(job, float(job.get("walltime", -1)))


def annotate(
    workload: dict,
    *,
    urgent_fraction: float = 0.2,
    urgent_cost: float = 10.0,
    deadline_factor: float = 5.0,
    unit_price: float = 0.1,
    exact: bool = False,
    seed: int = 0,
) -> tuple[dict, dict]:
    """A copy of ``workload`` with deadlines, urgency and prices; and a summary."""
    if not 0 <= urgent_fraction <= 1:
        raise AdaptschedError(f"--urgent must be a fraction in [0, 1], got {urgent_fraction}")
    if urgent_cost <= 0 or deadline_factor < 1 or unit_price < 0:
        raise AdaptschedError("need --urgent-cost > 0, --deadline-factor >= 1 and --unit-price >= 0")
    rnd = random.Random(seed)
    profiles = workload.get("profiles", {})
    jobs, urgent = [], 0
    for job in workload["jobs"]:
        job = dict(job)
        runtime = float(profiles[job["profile"]]["delay"])
        if exact:
            estimate = runtime
            job["walltime"] = runtime + 1.0
        else:
            estimate = estimate_of(job, float(job.get("walltime", -1)))  # estimate_s, else the walltime
            if estimate <= 0:
                raise AdaptschedError(f"job {job['id']} has no walltime: use exact estimates")
        is_urgent = rnd.random() < urgent_fraction
        urgent += is_urgent
        job.update(
            QosTerms(
                deadline_s=round(job["subtime"] + deadline_factor * estimate, 6),
                price=round(unit_price * job["res"] * estimate * (urgent_cost if is_urgent else 1.0), 6),
                urgent=is_urgent,
                estimate_s=estimate,
            ).fields()
        )
        jobs.append(job)
    out = dict(workload)
    out["jobs"] = jobs
    summary = {"jobs": len(jobs), "urgent": urgent, "offered_load": offered_load(out)}
    return out, summary


def offered_load(workload: dict) -> float:
    """Sum of res x runtime over nb_res x (last subtime - first subtime)."""
    jobs = workload["jobs"]
    if len(jobs) < 2:
        return 0.0
    profiles = workload["profiles"]
    work = sum(j["res"] * float(profiles[j["profile"]]["delay"]) for j in jobs)
    span = max(j["subtime"] for j in jobs) - min(j["subtime"] for j in jobs)
    return work / (workload["nb_res"] * span) if span > 0 else float("inf")


def high_load(workload: dict, *, fraction: float = 0.4, seed: int = 0) -> tuple[dict, dict]:
    """Duplicates a random ``fraction`` of the jobs (module doc); summary with both loads."""
    rnd = random.Random(seed)
    jobs = []
    for job in workload["jobs"]:
        jobs.append(job)
        if rnd.random() < fraction:
            jobs.append({**job, "id": f"{job['id']}d"})
    out = dict(workload)
    out["jobs"] = jobs
    return out, {
        "jobs_before": len(workload["jobs"]),
        "jobs_after": len(jobs),
        "load_before": offered_load(workload),
        "load_after": offered_load(out),
    }
