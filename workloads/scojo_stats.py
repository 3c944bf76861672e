"""SCOJO-P's statistics of future arrivals (``adaptsched scojo-stats``; paper sec. 5.2).

"Future job submissions in different time intervals are determined by using 30-minute
intervals as in the Lublin-Feitelson model and evaluating actual workload simulations to
extract the numbers of short, medium, and long jobs submitted on average in each of 48 time
intervals per day." From workloads generated with other seeds than the evaluated ones (the
reproduction uses seeds 101-104), :func:`scojo_stats` gives, per class (short < 60 s <=
medium < 1 h <= long, by runtime(N_opt)):

* ``arrivals_per_day``: for each half hour of the day (submission time modulo one day, time 0
  being midnight, as the scheduler reads its clock), the arrivals per day, averaged over the
  days the workloads span (first to last submission);
* ``mean_n_opt`` and ``mean_runtime_opt_s``: the means of N_opt and runtime(N_opt);

and ``moldable_fraction`` (the share of moldable jobs), ``ratio_model`` (how a job's runtime
changes with its size: ``scojo-p``, or for Downey-annotated workloads ``downey`` with the
median A and sigma, sec. 4.6 "median maximum speedups and median variances"). The file is
what :class:`adaptsched.core.scojo.ArrivalModel` reads (option ``stats`` of ``scojo-p``).
"""

from __future__ import annotations

import statistics

from adaptsched.core.base import Job
from adaptsched.core.scojo import BUCKET_S, CLASSES, NB_BUCKETS, job_class, shape_of
from adaptsched.core.units import DAY_S
from adaptsched.errors import AdaptschedError


def optimum_sizes(workload: dict) -> dict[str, tuple[int, float]]:
    """job id -> (N_opt, runtime(N_opt) in seconds); a rigid job: its request and its
    profile's delay (its true runtime, not the walltime)."""
    nb_hosts = int(workload["nb_res"])
    profiles = workload.get("profiles", {})
    out = {}
    for spec in workload["jobs"]:
        job = Job(str(spec["id"]), float(spec["subtime"]), int(spec["res"]), float(spec.get("walltime", -1)), spec)
        shape = shape_of(job, nb_hosts)
        if shape.model is None:
            delay = profiles.get(spec.get("profile"), {}).get("delay")
            out[job.id] = (shape.n_opt, float(delay) if delay is not None else shape.runtime_opt_s)
        else:
            out[job.id] = (shape.n_opt, shape.runtime_opt_s)
    return out


def scojo_stats(workloads: list[dict], names: list[str] | None = None) -> dict:
    """The statistics of the module doc over ``workloads`` (Batsim JSON dicts)."""
    if not workloads:
        raise AdaptschedError("scojo-stats needs at least one workload")
    counts = [[0] * NB_BUCKETS for _ in CLASSES]
    n_sums, rt_sums, jobs_per_class = [0.0] * 3, [0.0] * 3, [0] * 3
    days, moldable, total = 0.0, 0, 0
    a_values, sigma_values = [], []
    for workload in workloads:
        sizes = optimum_sizes(workload)
        submits = [float(j["subtime"]) for j in workload["jobs"]]
        if not submits:
            continue
        days += max((max(submits) - min(submits)) / DAY_S, 1.0 / NB_BUCKETS)
        for spec in workload["jobs"]:
            n_opt, runtime = sizes[str(spec["id"])]
            c = job_class(runtime)
            counts[c][int((float(spec["subtime"]) % DAY_S) // BUCKET_S) % NB_BUCKETS] += 1
            n_sums[c] += n_opt
            rt_sums[c] += runtime
            jobs_per_class[c] += 1
            total += 1
            model = spec.get("moldable")
            if isinstance(model, dict):
                moldable += 1
                if model.get("model") == "downey":
                    a_values.append(float(model["A"]))
                    sigma_values.append(float(model["sigma"]))
    if total == 0:
        raise AdaptschedError("scojo-stats: the workloads have no job")
    ratio: dict = {"model": "scojo-p"}
    if a_values:
        ratio = {"model": "downey", "A": statistics.median(a_values), "sigma": statistics.median(sigma_values)}
    return {
        "workloads": names or [],
        "days": days,
        "jobs": total,
        "bucket_s": BUCKET_S,
        "arrivals_per_day": {c: [k / days for k in counts[i]] for i, c in enumerate(CLASSES)},
        "mean_n_opt": {c: n_sums[i] / jobs_per_class[i] if jobs_per_class[i] else 0.0 for i, c in enumerate(CLASSES)},
        "mean_runtime_opt_s": {
            c: rt_sums[i] / jobs_per_class[i] if jobs_per_class[i] else 0.0 for i, c in enumerate(CLASSES)
        },
        "jobs_per_class": dict(zip(CLASSES, jobs_per_class)),
        "moldable_fraction": moldable / total,
        "ratio_model": ratio,
    }
