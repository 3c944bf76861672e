"""Withdrawn reservations: what ``adaptsched check`` still holds a scheduler to.

A reservation some algorithms promise only for a while is withdrawn when the promise ends
(:meth:`adaptsched.core.base.ReservingScheduler.withdraw`: EASY's head job, once another job goes
ahead of it in a priority order), and the job is then held to its reservation in force only
(``reservation_s``, checked by :func:`adaptsched.analysis.invariants.check_invariants`). A
withdrawal cannot excuse a promise already broken, so the last one a job's metadata records
(``withdrawn_reservation_s``, ``withdrawn_at_s``) must have been made by the reservation's time
and while the job waited: no later than its first start (to within
:data:`~adaptsched.analysis.backfilling.GUARANTEE_EPS_S`). EASY withdraws a head's reservation
at the latest at its shadow time, since a job that is still the head then starts then.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from adaptsched.analysis.backfilling import GUARANTEE_EPS_S
from adaptsched.analysis.fold import root_keys

_NUMBER = r"\s*:\s*([-+0-9.eE]+|inf)"
_WITHDRAWN_RE = re.compile(r"""['"]withdrawn_reservation_s['"]""" + _NUMBER)
_AT_RE = re.compile(r"""['"]withdrawn_at_s['"]""" + _NUMBER)


def withdrawal_violations(raw: pd.DataFrame, limit: int = 5) -> list[str]:
    """The withdrawals (module doc) made after the reservation was due or after the job started,
    in an unfolded ``_jobs.csv`` frame: at most ``limit`` of each."""
    metadata = raw["metadata"]
    marked = metadata.str.contains("withdrawn_at_s", regex=False).to_numpy()
    if not marked.any():
        return []
    reserved = pd.to_numeric(metadata.str.extract(_WITHDRAWN_RE, expand=False), errors="coerce").to_numpy(float)
    at = pd.to_numeric(metadata.str.extract(_AT_RE, expand=False), errors="coerce").to_numpy(float)
    roots = root_keys(raw).to_numpy()
    start = raw["starting_time"].to_numpy(dtype=float)
    first_start = pd.Series(start).groupby(roots).min()
    keys = (raw["workload_name"] + "!" + raw["job_id"]).to_numpy()
    late, started = [], []
    for i in np.flatnonzero(marked):
        if at[i] > reserved[i] + GUARANTEE_EPS_S:
            late.append(f"job {keys[i]}'s reservation {reserved[i]} was withdrawn at {at[i]}, after it was due")
        begun = first_start.get(roots[i], np.nan)
        if at[i] > begun + GUARANTEE_EPS_S:
            started.append(f"job {keys[i]}'s reservation was withdrawn at {at[i]}, after the job started at {begun}")
    return late[:limit] + started[:limit]
