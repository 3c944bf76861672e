"""A run's inputs, read once: the platform and the workload, parsed here and handed as one
:class:`Inputs` to everything after (the engine's choice, the checks before the first event,
the engine, the checks at the end).

- *platform*: a SimGrid XML file, or a number of hosts (a generated cluster written to
  ``PREFIX_platform.xml``; with the energy model, a powered one, docs/energy.md):
  :func:`~adaptsched.platforms.simgrid.given_platform`;
- *workload*: a Batsim JSON file, or an SWF trace converted on the fly for the platform's
  size (``PREFIX_workload.json``): :func:`~adaptsched.workloads.convert.batsim_workload`.

With ``--engine auto``, the engine is chosen here, from what was read
(:mod:`adaptsched.engines.checks.fidelity`); the inputs are then checked against the
scheduler's needs and the platform's size (:mod:`adaptsched.engines.checks.inputs`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from adaptsched.engines.checks.fidelity import engine_for
from adaptsched.engines.checks.inputs import check_inputs
from adaptsched.engines.run.spec import NO_TIMEOUT_ON_BATSIM, RunSpec
from adaptsched.errors import UsageError
from adaptsched.formats.bulk import made_to_last
from adaptsched.platforms.power import PowerSpec
from adaptsched.platforms.simgrid import Platform, given_platform

if TYPE_CHECKING:
    from adaptsched.workloads.batsim_json import Workload

Say = Callable[..., None]


@dataclass
class Inputs:
    """A run's inputs on this machine, each read once: the run (its engine chosen), the
    platform (its file and hosts) and the workload (its file and its parsed jobs and profiles)."""

    spec: RunSpec
    platform_path: Path
    machines: Platform
    workload_path: Path
    loaded: Workload


def read_inputs(spec: RunSpec, say: Say) -> Inputs:
    """The run's platform and workload, read once; ``spec``'s engine chosen when it is ``auto``;
    the workload checked against the scheduler and the platform (its refusals raised, its notes
    said). One call to each room below, in turn: the platform, the workload's file (an SWF trace
    converted), its reading, the engine's choice, the checks."""
    from adaptsched.workloads.batsim_json import load_workload
    from adaptsched.workloads.convert import batsim_workload

    # a number of hosts is a generated cluster, PREFIX_platform.xml; with power under --energy (docs/energy.md)
    power = PowerSpec() if spec.energy and isinstance(spec.platform, int) else None
    machines = given_platform(spec.platform, Path(f"{spec.prefix}_platform.xml"), power=power)
    if power is not None:
        say(
            f"note: --energy on a generated cluster of {machines.nb_hosts} hosts: power {power.describe()} "
            f"({machines.path})"
        )
    workload_path, conversion = batsim_workload(spec.workload, machines.nb_hosts, f"{spec.prefix}_workload.json")
    if conversion is not None:
        say(conversion.summary())
    # The workload lives for the whole run: made with no collection and frozen at once, the cyclic
    # GC never scans it (run() unfreezes it at the run's end).
    with made_to_last():
        if spec.engine == "batsim":
            loaded = load_workload(workload_path, embedded=False)  # real Batsim reads the file itself
        else:  # the embedded engine's reading; what it cannot run is the fidelity assessment's to refuse
            loaded = load_workload(workload_path, every_type=True)
    if spec.engine != "batsim":  # before the first event: exact, or say so (engines/checks/fidelity.py)
        engine = engine_for(spec.engine, machines, loaded, spec.batsim, say)
        if engine != spec.engine:  # auto resolved (real Batsim talks over ZeroMQ only)
            if engine == "batsim" and spec.scheduler_timeout_s is not None:
                raise UsageError(f"--engine auto chose real Batsim for this run; {NO_TIMEOUT_ON_BATSIM}")
            spec = replace(spec, engine=engine, transport="zmq" if engine == "batsim" else spec.transport)
    check_inputs(spec, loaded, machines, say)
    return Inputs(spec, Path(machines.path), machines, workload_path, loaded)
