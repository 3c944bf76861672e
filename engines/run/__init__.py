"""One simulation, end to end: resolve the inputs, run an engine, write the outputs.

``run(spec)`` runs a :class:`~adaptsched.engines.run.spec.RunSpec` (which says the run once).
Inputs:

- *scheduler*: an adaptsched scheduler name (``adaptsched schedulers`` lists them),
  a pybatsim built-in (``easyBackfill``, ``fillerSched``...) or a ``.py`` plugin path;
- *workload*: a Batsim JSON file, or an SWF trace (``.swf``/``.swf.gz``) converted on
  the fly for the platform's size (``PREFIX_workload.json``);
- *platform*: a SimGrid XML file, or a number of hosts (a generated cluster,
  ``PREFIX_platform.xml``).

Outputs, as Batsim writes them: ``PREFIX_jobs.csv``, ``PREFIX_schedule.csv``,
``PREFIX_machine_states.csv``, plus the scheduler's log ``PREFIX_sched.log`` (and
``PREFIX_batsim.log`` with real Batsim, and its Pajé trace ``PREFIX_schedule.trace`` with
``schedule_trace``). The outputs get these names only once the run has ended and its physics
check passed (:func:`check_run`): until then, and for good when it fails, they are
``PREFIX_jobs.csv.partial`` and so on (:mod:`adaptsched.engines.run.partial`).
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from pathlib import Path

from adaptsched.engines.checks.inputs import MAX_TIME_S
from adaptsched.engines.checks.outputs import check_run
from adaptsched.engines.run.inputs import read_inputs
from adaptsched.engines.run.partial import RunOutputs
from adaptsched.engines.run.simulation import Progress, RunResult, find_batsim_or_fail, simulate
from adaptsched.engines.run.spec import ENGINES, TRANSPORTS, RunSpec
from adaptsched.formats.bulk import SparseCollections

__all__ = [
    "ENGINES",
    "MAX_TIME_S",
    "TRANSPORTS",
    "Progress",
    "RunResult",
    "RunSpec",
    "check_run",
    "find_batsim_or_fail",
    "run",
]

Say = Callable[..., None]
#: The full collections after runs (:func:`run`'s end), for the whole process.
COLLECTIONS = SparseCollections()


def run(spec: RunSpec, *, say: Say = print) -> RunResult:
    """Runs one simulation (:class:`~adaptsched.engines.run.spec.RunSpec`, made by
    :meth:`RunSpec.make <adaptsched.engines.run.spec.RunSpec.make>`) and returns where its outputs
    are; ``say`` receives the notes on its inputs (an SWF trace's conversion, sizes).

    One way down, each stage handed what the one before made: the outputs' names
    (:mod:`.partial`), the inputs read once (:mod:`.inputs`: platform, workload, the engine's
    choice, the checks before the first event), the simulation and the checks at its end
    (:mod:`.simulation`)."""
    try:
        Path(spec.prefix).parent.mkdir(parents=True, exist_ok=True)
        with RunOutputs(spec.prefix).written(say):
            inputs = read_inputs(spec, say)
            return simulate(inputs)
    finally:
        # The run's GC policy, set here once: its inputs, plugin and engine records are built
        # with the cyclic GC paused and frozen (formats/bulk.py's made_to_last), and given back
        # here, whatever failed. The run's cyclic garbage (the platform's routes, the plugin
        # module's classes: a few hundred objects) is unreachable now, and only a full collection
        # frees it: one runs after a run unless the last one was recent (SparseCollections: at
        # most 2 % of the time), or a process running many (a sweep's worker) would keep it all.
        gc.unfreeze()
        COLLECTIONS.maybe()
