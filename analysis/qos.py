"""QoS metrics of a run (Islam et al. 2007, sec. 5): revenue and acceptance by class.

From the workload's annotations (:mod:`adaptsched.workloads.qos`) and the run's folded jobs:

* ``revenue``: the sum over completed jobs of their value at their actual completion
  (full price by submission + estimate, linearly less to zero at the deadline);
* per class (``urgent``, ``normal``, ``all``): offered jobs and load (processor-seconds of the
  estimates), accepted jobs and load, revenue; ``missed``: accepted jobs that completed after
  their deadline (the deadline guarantee: always 0 when estimates are upper bounds).
"""

from __future__ import annotations

import os

import numpy as np

from adaptsched.core.qos import QosTerms
from adaptsched.workloads.qos import terms

from .fold import fold_attempts
from .jobs import SUCCESS, read_jobs_csv, resolve_jobs_path


def qos_metrics(jobs_csv, workload: dict) -> dict:
    path = resolve_jobs_path(os.fspath(jobs_csv))
    jobs = fold_attempts(read_jobs_csv(path))
    specs = {str(j["id"]): j for j in workload["jobs"]}
    out = {
        name: {
            "offered_jobs": 0,
            "offered_load": 0.0,
            "accepted_jobs": 0,
            "accepted_load": 0.0,
            "revenue": 0.0,
            "missed": 0,
        }
        for name in ("urgent", "normal", "all")
    }
    for job_id, state, finish in zip(jobs["job_id"], jobs["final_state"], jobs["finish_time"]):
        spec = specs.get(job_id)
        if spec is None or not QosTerms.annotated(spec):
            raise ValueError(f"{path}: job {job_id} has no QoS annotation in the workload")
        qos = terms(spec)
        size = spec["res"] * qos.estimate_s
        accepted = state != "REJECTED"
        for name in ("urgent" if qos.urgent else "normal", "all"):
            c = out[name]
            c["offered_jobs"] += 1
            c["offered_load"] += size
            if accepted:
                c["accepted_jobs"] += 1
                c["accepted_load"] += size
                if state == SUCCESS:
                    c["revenue"] += qos.value(spec["subtime"], float(finish))
                if np.isfinite(finish) and finish > qos.deadline_s + 1e-6:
                    c["missed"] += 1
    return out
