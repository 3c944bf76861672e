"""A run's inputs, read once: the platform and the workload, parsed here and handed as one
:class:`Inputs` to everything after (the engine's choice, the checks before the first event,
the engine, the checks at the end).

- *platform*: a SimGrid XML file, or a number of hosts (a generated cluster written to
  ``PREFIX_platform.xml``; with the energy model, a powered one, docs/energy.md);
- *workload*: a Batsim JSON file, or an SWF trace converted on the fly for the platform's
  size (``PREFIX_workload.json``).

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
from adaptsched.errors import AdaptschedError, InputError, UsageError
from adaptsched.formats.bulk import made_to_last
from adaptsched.platforms.simgrid import Platform, cluster_platform, read_platform, write_cluster

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
    said)."""
    from adaptsched.workloads.batsim_json import load_workload

    if spec.energy and isinstance(spec.platform, int):  # a generated cluster with power (docs/energy.md)
        from adaptsched.engines.energy_run import powered_cluster

        platform_path, machines = powered_cluster(spec.platform, spec.prefix, say)
    else:
        platform_path = resolve_platform(spec.platform, spec.prefix)
        if isinstance(spec.platform, int):
            machines = cluster_platform(spec.platform, platform_path)  # the file just written, not parsed
        else:
            machines = read_platform(platform_path)
    workload_path = resolve_workload(spec.workload, machines.nb_hosts, spec.prefix, say=say)
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
    return Inputs(spec, platform_path, machines, workload_path, loaded)


def resolve_platform(platform: str | int, prefix: str) -> Path:
    """The platform's file: ``platform`` itself, or a cluster of that many hosts written to
    ``PREFIX_platform.xml``."""
    if isinstance(platform, int):
        if platform < 1:
            raise AdaptschedError("a platform needs at least one host")
        return write_cluster(platform, f"{prefix}_platform.xml")
    path = Path(platform)
    if not path.is_file():
        raise InputError(platform, "no such platform file")
    return path


def resolve_workload(workload: str | Path, nb_hosts: int, prefix: str, *, say: Say = print) -> Path:
    """The workload's Batsim JSON file: ``workload`` itself, or an SWF trace converted for
    ``nb_hosts`` to ``PREFIX_workload.json``."""
    path = Path(workload)
    if not path.exists():
        raise InputError(workload, "no such workload file")
    name = path.name.lower()
    if name.endswith((".swf", ".swf.gz")):
        from adaptsched.workloads.convert import convert_swf, write_workload

        converted, report = convert_swf(path, hosts=nb_hosts)
        out = write_workload(converted, f"{prefix}_workload.json")
        say(report.summary())
        return Path(out)
    return path
