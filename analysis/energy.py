"""Energy metrics of a run made with Batsim's energy model (``--energy``, docs/energy.md).

Batsim writes the energy in three places; these metrics read them as Batsim computed them:

* ``energy_j``: ``consumed_joules`` of ``PREFIX_schedule.csv``, the platform's energy (every
  compute host, the master excluded) from the first job's submission to the last job's end;
  ``energy_kwh`` = ``energy_j`` / 3.6e6;
* ``mean_power_w`` = ``energy_j`` / the makespan (the same window: first submission, last end);
* ``jobs_energy_j``: the sum of the jobs' ``consumed_energy`` (``_jobs.csv``: what each job's
  hosts drew while it ran, every attempt of a resubmitted job included), and
  ``job_energy_mean_j`` its mean over the executed jobs; the rest of ``energy_j`` was drawn by
  idle, sleeping and switching hosts (``energy_outside_jobs_j``);
* ``energy_per_node_s_j`` = ``energy_j`` / the busy host-seconds: joules per host-second of
  work, which a scheduler lowers by finishing sooner or by putting idle hosts to sleep.

A run without the energy model (``consumed_energy`` of -1 everywhere, Batsim's default) has
none of them: :func:`energy_stats` returns every key as None.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from adaptsched.formats.outputs import ENERGY_METRICS

from .jobs import read_schedule_csv, schedule_path_for

J_PER_KWH = 3.6e6
KEYS = ENERGY_METRICS


def energy_stats(source: str | Path, ran_jobs: pd.DataFrame, makespan_s, busy_node_s) -> dict:
    """The energy metrics (module doc) of the run whose ``_jobs.csv`` is ``source``; ``ran_jobs``:
    its executed folded jobs. Every value None without the energy model."""
    out: dict = dict.fromkeys(KEYS)
    energies = ran_jobs["consumed_energy"].to_numpy(dtype=float)
    measured = energies[~pd.isna(energies)]
    if len(measured) == 0 or (measured < 0).any():  # -1: Batsim ran without -E
        return out
    schedule = schedule_path_for(source)
    if schedule is None or not schedule.is_file():
        return out
    text = read_schedule_csv(schedule).get("consumed_joules", "")
    try:
        total = float(text)
    except ValueError:
        return out
    if not math.isfinite(total) or total < 0:
        return out
    jobs_total = float(measured.sum())
    out.update(
        energy_j=total,
        energy_kwh=total / J_PER_KWH,
        mean_power_w=total / makespan_s if makespan_s else None,
        jobs_energy_j=jobs_total,
        job_energy_mean_j=jobs_total / len(measured),
        energy_outside_jobs_j=total - jobs_total,
        energy_per_node_s_j=total / busy_node_s if busy_node_s else None,
    )
    return out


def fmt_joules(value) -> str:
    """``1.23e+09 J (342.5 kWh)``; "-" for None."""
    if value is None:
        return "-"
    if abs(value) >= J_PER_KWH / 10:
        return f"{value:,.0f} J ({value / J_PER_KWH:,.1f} kWh)"
    return f"{value:,.1f} J"
