"""The embedded engine's record of a job while the simulation runs (Batsim's ``Job``).

A workload file describes jobs (:class:`adaptsched.workloads.batsim_json.JobSpec`); the engine
keeps, for each job it knows, its description plus what happens to it: state, start, runtime,
allocation, metadata, the actor that executes it. Field names follow Batsim's ``src/jobs.hpp``.
"""

from __future__ import annotations

from typing import Any

from adaptsched.core.intervals import IntervalSet
from adaptsched.workloads.batsim_json import JobSpec


class JobRecord:
    """A job as the running simulation knows it. ``id`` is the full identifier ``WORKLOAD!NAME``."""

    __slots__ = (
        "actor",
        "alloc_text",
        "allocation",
        "consumed_energy",
        "delay_required",
        "delay_start",
        "energy_before",
        "energy_ids",
        "exec_duration",
        "exec_start",
        "execution",
        "finish_clock",
        "id",
        "json",
        "kill_requested",
        "metadata",
        "name",
        "profile",
        "res",
        "return_code",
        "runtime",
        "starting_time",
        "state",
        "subtime",
        "task",
        "walltime",
        "workload",
    )

    def __init__(self, spec: JobSpec) -> None:
        self.workload = spec.workload
        self.name = spec.name
        self.id = spec.id
        self.subtime = spec.subtime
        self.res = spec.res
        self.walltime = spec.walltime
        self.profile = spec.profile
        self.json = spec.json  # its description as Batsim sends it to the scheduler
        self.state = "NOT_SUBMITTED"
        self.starting_time = -1.0
        self.runtime = -1.0
        self.task: Any = None  # its profile's execution tree, other profiles than delay (profiles.py)
        self.finish_clock = -1.0  # the clock when it ended (Batsim's long double times: outputs.py)
        self.allocation: IntervalSet | None = None
        self.alloc_text = ""  # Batsim's text of the allocation, once executed
        self.metadata: Any = ""
        self.kill_requested = False
        self.return_code = -1  # Batsim's initial value
        self.actor: Any = None  # the kernel's Actor that executes it
        self.execution: Any = None  # the kernel's TimedAction of its execution (parallel profiles)
        self.delay_start = -1.0
        self.delay_required = 0.0
        self.exec_start = -1.0
        self.exec_duration = 0.0
        # with --energy (engines/embedded/pstates.py): its machines' ids, their energy at its
        # start (long double), and its consumed_energy as _jobs.csv prints it
        self.energy_ids: Any = None
        self.energy_before: Any = None
        self.consumed_energy = "-1.000000"
