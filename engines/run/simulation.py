"""A run's simulation, once its inputs are read (:class:`~adaptsched.engines.run.inputs.Inputs`):
the engine (embedded, or real Batsim) and the plugin (in this process, or a pybatsim process over
ZeroMQ), then the checks at the end (:func:`~adaptsched.engines.checks.outputs.check_run`), and
what the run was (:class:`RunResult`)."""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from adaptsched.core.options import Options
from adaptsched.engines.checks.outputs import check_run
from adaptsched.engines.run.partial import PARTIAL, batsim_outputs
from adaptsched.engines.transports.process import Connection, Endpoint, SchedulerProcess, pick_cpu, pin
from adaptsched.errors import SimulationError
from adaptsched.formats.bulk import made_to_last

if TYPE_CHECKING:
    from adaptsched.engines.run.inputs import Inputs
    from adaptsched.engines.run.spec import RunSpec
    from adaptsched.platforms.simgrid import Platform
    from adaptsched.workloads.batsim_json import Workload


@dataclass
class RunResult:
    prefix: str
    engine: str
    scheduler: str
    wall_s: float
    nb_jobs: int
    nb_hosts: int
    notes: list[str] = field(default_factory=list)
    transport: str = "zmq"
    #: What the end-of-run physics check timed: executed attempts (rows with a start) and how
    #: many of them it timed; ``physics``, its summary line (``physics: 3,000 of 3,000 jobs timed``).
    attempts: int = 0
    timed: int = 0
    physics: str = ""

    @property
    def jobs_csv(self) -> str:
        return f"{self.prefix}_jobs.csv"

    @property
    def schedule_csv(self) -> str:
        return f"{self.prefix}_schedule.csv"


def simulate(inputs: Inputs) -> RunResult:
    """Runs the engine on ``inputs`` (real Batsim found first, when it is the engine), checks
    the outputs at the end, and says what ran."""
    from adaptsched.schedulers.loader import plugin_copy_kinds

    spec, machines, loaded = inputs.spec, inputs.machines, inputs.loaded
    executable = find_batsim_or_fail(spec.batsim) if spec.engine == "batsim" else None
    start = time.perf_counter()
    if spec.transport == "inprocess":
        problem = _run_inprocess(inputs)
    else:
        problem = _run_zmq(inputs, executable)
    copy_kinds = plugin_copy_kinds(spec.core_class, spec.plugin)
    physics = check_run(spec.prefix, loaded, machines, copy_kinds, energy=spec.energy)
    return RunResult(
        spec.prefix,
        "embedded" if spec.transport == "inprocess" else spec.engine,  # (the in-process plugin's only engine)
        spec.scheduler,
        time.perf_counter() - start,
        loaded.nb_jobs,
        machines.nb_hosts,
        notes=[problem] if problem else [],
        transport=spec.transport,
        attempts=physics.executed,
        timed=physics.timed,
        physics=physics.summary(),
    )


class Progress:
    """A progress bar of completed jobs on a terminal (stderr); silent otherwise."""

    def __init__(self, total: int, label: str, enabled: bool | None = None):
        self.bar: Any = None
        if enabled is None:
            enabled = sys.stderr.isatty()
        if enabled and total > 0:
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc=label, unit="job", file=sys.stderr, smoothing=0.1, leave=True)

    def __call__(self, done: int) -> None:
        if self.bar is not None:
            self.bar.update(max(done - self.bar.n, 0))

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def find_batsim_or_fail(batsim: str | None = None) -> str:
    """The real Batsim executable (``batsim``, $BATSIM, PATH, the build kit's), or a clear error."""
    from adaptsched.engines.real import find_batsim

    executable = find_batsim(batsim)
    if executable is None:
        raise SimulationError(
            "real Batsim (4.2.x) is not installed: docs/getting-started.md says how to install it (Nix, "
            "building it from source, or the build kit ../shared/tools/batsim-build); then put 'batsim' on "
            "PATH, set BATSIM=/path/to/batsim or pass --batsim PATH. The embedded engine (the default) needs none."
        )
    return executable


def _run_zmq(inputs: Inputs, executable: str | None) -> str | None:
    """Either engine with the plugin in a pybatsim process, over ZeroMQ. Returns what the run's
    result notes of the pybatsim process's exit (a code other than 0), if anything."""
    spec, prefix, machines, loaded = inputs.spec, inputs.spec.prefix, inputs.machines, inputs.loaded
    endpoint = Endpoint()
    cpu = pick_cpu() if spec.pin_cpu else None
    process = SchedulerProcess(
        spec.plugin,
        spec.options.changed(),
        endpoint,
        f"{prefix}_sched.log",
        fixed_addresses=spec.fixed_addresses,
        cpu=cpu,
    )
    affinity = _affinity()
    bar = None
    try:
        process.start()
        bar = Progress(loaded.nb_jobs, f"{Path(prefix).name} ({spec.engine})", spec.progress)
        if executable is None:
            pin(0, cpu)
            _run_embedded(spec, machines, loaded, Connection(process, timeout_s=spec.scheduler_timeout_s), bar)
        else:
            _run_real(spec, inputs, executable, process, bar)
        code = process.wait(timeout=60)
    finally:
        _restore_affinity(affinity)
        if bar is not None:
            bar.close()
        process.close()
        endpoint.close()
    if code != 0:
        return f"the pybatsim process exited with code {code} after the simulation ended (see {prefix}_sched.log)"
    return None


def _run_real(spec: RunSpec, inputs: Inputs, executable: str, process: SchedulerProcess, bar: Progress) -> None:
    """Real Batsim against the started scheduler ``process``, writing in a folder of its own
    whose files take their partial names when it ends (:func:`batsim_outputs`)."""
    from adaptsched.engines.real import run_batsim

    with batsim_outputs(spec.prefix) as export_prefix:
        run_batsim(
            executable,
            inputs.platform_path,
            inputs.workload_path,
            export_prefix,
            process,
            log_path=f"{spec.prefix}_batsim.log",
            dynamic_jobs=spec.dynamic_jobs,
            ack_dynamic_jobs=spec.ack_dynamic_jobs,
            profile_reuse=spec.profile_reuse,
            progress=bar,
            schedule_trace=spec.schedule_trace,
            energy=spec.energy,
        )


def _run_inprocess(inputs: Inputs) -> str | None:
    """The embedded engine with the plugin in this process (engines/transports/inprocess.py); the plugin
    receives the options as parsed (an adaptsched scheduler's options class). Returns what the
    in-process pybatsim found wrong at the end, if anything."""
    from adaptsched.engines.transports.inprocess import InProcessConnection

    spec, prefix, machines, loaded = inputs.spec, inputs.spec.prefix, inputs.machines, inputs.loaded
    # The plugin lives for the whole run too: made with no collection and frozen at once, like
    # the workload (engines/run/inputs.py). With the engine's job records (_run_embedded), the collections
    # before the run walked the whole workload again and again: about 0.4 s on CTC's year.
    with made_to_last():
        clock: list[Any] = []  # the engine, once made, for the connection's messages
        options = spec.options if isinstance(spec.options, Options) else spec.options.values()
        connection = InProcessConnection(
            spec.plugin,
            options,
            f"{prefix}_sched.log",
            timeout_s=spec.scheduler_timeout_s,
            now=lambda: clock[0].now if clock else 0.0,
        )
    bar = None
    try:
        bar = Progress(loaded.nb_jobs, f"{Path(prefix).name} (embedded)", spec.progress)
        problem = _run_embedded(spec, machines, loaded, connection, bar, clock)
    finally:
        if bar is not None:
            bar.close()
        connection.close()
    return problem


def _affinity() -> set[int] | None:
    try:
        return os.sched_getaffinity(0)
    except (AttributeError, OSError):
        return None


def _restore_affinity(cpus: set[int] | None) -> None:
    if cpus is not None:
        try:
            os.sched_setaffinity(0, cpus)
        except OSError:
            pass


def _run_embedded(
    spec: RunSpec, machines: Platform, loaded: Workload, connection: Any, bar: Progress, clock: list[Any] | None = None
) -> str | None:
    """Runs the embedded engine on a connection (ZeroMQ or in-process); closes it. Returns what
    the in-process pybatsim found wrong at the end (the pybatsim command's exit code), if anything."""
    from adaptsched.engines.embedded.batsim import EmbeddedBatsim, EngineOptions

    try:
        options = EngineOptions(
            dynamic_jobs=spec.dynamic_jobs,
            ack_dynamic_jobs=spec.ack_dynamic_jobs,
            profile_reuse=spec.profile_reuse,
            energy=spec.energy,
        )
        with made_to_last():  # the engine's job records live for the whole run too
            engine = EmbeddedBatsim(
                machines,
                [loaded],
                connection,
                spec.prefix,
                options=options,
                progress=bar if bar.bar is not None else None,
                output_suffix=PARTIAL,
            )
        if clock is not None:
            clock.append(engine)
        engine.run()
        summary = getattr(connection, "summary_problem", None)
        return summary() if summary is not None else None
    finally:
        connection.close()
