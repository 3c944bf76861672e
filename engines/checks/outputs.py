"""At the end of every run, either engine: its outputs obey the workload's physics
(:mod:`.physics`) and, with the energy model, conserve energy
(:mod:`adaptsched.engines.embedded.energy_balance`)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from adaptsched.errors import SimulationError
from adaptsched.formats.bulk import gc_paused

if TYPE_CHECKING:
    from adaptsched.engines.checks.physics import Physics
    from adaptsched.platforms.simgrid import Platform
    from adaptsched.workloads.batsim_json import Workload


def check_run(
    prefix: str,
    loaded: Workload,
    machines: Platform,
    copy_kinds: dict[str, str] | None = None,
    *,
    energy: bool = False,
) -> Physics:
    """At the end of every run, either engine: the outputs (under their partial names, not yet
    renamed; a finished run's under their final names) obey the workload's physics
    (:mod:`adaptsched.engines.checks.physics`; ``copy_kinds``: what the scheduler's copies run)
    and, with the energy model, conserve energy (:mod:`adaptsched.engines.embedded.energy_balance`),
    or a :class:`SimulationError` names the fault. Returns what was timed."""
    if energy:
        from adaptsched.engines.embedded.energy_balance import energy_balance

        with gc_paused():  # (as the physics check below: one short-lived list per row)
            balance = energy_balance(prefix, machines)
        if not balance.holds:
            raise SimulationError(balance.message(prefix))
    from adaptsched.engines.checks.physics import check_physics, physics_error
    from adaptsched.engines.run.partial import RunOutputs  # (engines.run imports this module)

    outputs = RunOutputs(prefix)
    jobs_csv = outputs.partial("_jobs.csv")
    if not os.path.isfile(jobs_csv):
        jobs_csv = outputs.final("_jobs.csv")
    speeds = [host.speed_flops for host in machines.compute_hosts]
    # The check builds no cycles, but its ~10^6 short-lived containers (one per row and column)
    # would make the cyclic GC scan the whole run's heap, unfrozen by now: a full collection
    # of the workload, the plugin's and pybatsim's jobs, 3x the check's own cost on CTC's year.
    with gc_paused():
        physics = check_physics(
            jobs_csv,
            loaded,
            machines.nb_hosts,
            speeds=speeds,
            network=machines.network is not None,
            copy_kinds=copy_kinds,
        )
    error = physics_error(physics, jobs_csv)
    if error:
        raise SimulationError(error)
    return physics
