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
import math
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from adaptsched.core.options import Options
from adaptsched.engines.checks.fidelity import assess, choose_engine
from adaptsched.engines.run.partial import PARTIAL, RunOutputs
from adaptsched.engines.run.spec import ENGINES, NO_TIMEOUT_ON_BATSIM, TRANSPORTS, RunSpec
from adaptsched.engines.transports.process import Connection, Endpoint, SchedulerProcess, pick_cpu, pin
from adaptsched.errors import AdaptschedError, InputError, SimulationError, UsageError
from adaptsched.formats.bulk import SparseCollections, gc_paused, made_to_last
from adaptsched.platforms.simgrid import Platform, cluster_platform, read_platform, write_cluster

if TYPE_CHECKING:
    from adaptsched.engines.checks.physics import Physics
    from adaptsched.workloads.batsim_json import Workload

__all__ = ["ENGINES", "TRANSPORTS", "RunResult", "RunSpec", "find_batsim_or_fail", "run"]

Say = Callable[..., None]
#: The full collections after runs (:func:`run`'s end), for the whole process.
COLLECTIONS = SparseCollections()


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

    def record(self, physics: Physics) -> None:
        self.attempts, self.timed, self.physics = physics.executed, physics.timed, physics.summary()

    @property
    def jobs_csv(self) -> str:
        return f"{self.prefix}_jobs.csv"

    @property
    def schedule_csv(self) -> str:
        return f"{self.prefix}_schedule.csv"


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


@dataclass
class _Inputs:
    """A run's inputs on this machine, each read once: the platform (its file and hosts) and the
    workload (its file and its parsed jobs and profiles), for the fidelity assessment, the
    needs check, the engine and the end-of-run checks alike."""

    platform_path: Path
    machines: Platform
    workload_path: Path
    loaded: Workload


def _inputs(spec: RunSpec, say: Say) -> _Inputs:
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
    return _Inputs(platform_path, machines, workload_path, loaded)


def run(spec: RunSpec, *, say: Say = print) -> RunResult:
    """Runs one simulation (:class:`~adaptsched.engines.run.spec.RunSpec`, made by
    :meth:`RunSpec.make <adaptsched.engines.run.spec.RunSpec.make>`) and returns where its outputs
    are; ``say`` receives the notes on its inputs (an SWF trace's conversion, sizes)."""
    try:
        return _run(spec, say)
    finally:
        # The run's GC policy, set here once: its inputs, plugin and engine records are built
        # with the cyclic GC paused and frozen (formats/bulk.py's made_to_last), and given back
        # here, whatever failed. The run's cyclic garbage (the platform's routes, the plugin
        # module's classes: a few hundred objects) is unreachable now, and only a full collection
        # frees it: one runs after a run unless the last one was recent (SparseCollections: at
        # most 2 % of the time), or a process running many (a sweep's worker) would keep it all.
        gc.unfreeze()
        COLLECTIONS.maybe()


def _run(spec: RunSpec, say: Say) -> RunResult:
    Path(spec.prefix).parent.mkdir(parents=True, exist_ok=True)
    outputs = RunOutputs(spec.prefix)
    outputs.clear()  # an earlier run's outputs would pass for this one's (engines/run/partial.py)
    inputs = _inputs(spec, say)
    if spec.engine != "batsim":  # before the first event: exact, or say so (engines/checks/fidelity.py)
        spec = _chosen_engine(spec, inputs, say)
    _check_input(spec, inputs.loaded, inputs.machines, say)
    executable = find_batsim_or_fail(spec.batsim) if spec.engine == "batsim" else None
    try:
        if spec.transport == "inprocess":
            result = _run_inprocess(spec, inputs, say)
        else:
            result = _run_zmq(spec, inputs, executable, say)
    except SimulationError as error:
        note = outputs.note()
        if note:
            raise SimulationError(f"{error}\n{note}") from None
        raise
    except KeyboardInterrupt:
        note = outputs.note()
        if note:
            say(f"interrupted {note}")
        raise
    outputs.promote()  # the run ended and passed its physics: its outputs are whole
    return result


def _chosen_engine(spec: RunSpec, inputs: _Inputs, say: Say) -> RunSpec:
    """The spec with ``auto`` resolved (real Batsim talks over ZeroMQ only); the embedded
    engine's warning said, or its refusal raised."""
    engine = choose_engine(spec.engine, assess(inputs.machines, inputs.loaded), _batsim_found(spec.batsim), say)
    if engine == spec.engine:
        return spec
    if engine == "batsim" and spec.scheduler_timeout_s is not None:  # auto chose real Batsim
        raise UsageError(f"--engine auto chose real Batsim for this run; {NO_TIMEOUT_ON_BATSIM}")
    return replace(spec, engine=engine, transport="zmq" if engine == "batsim" else spec.transport)


def _batsim_found(batsim: str | None) -> bool:
    from adaptsched.engines.real import find_batsim

    try:
        return find_batsim(batsim) is not None
    except SimulationError:
        return False


def _run_zmq(spec: RunSpec, inputs: _Inputs, executable: str | None, say: Say) -> RunResult:
    """Either engine with the plugin in a pybatsim process, over ZeroMQ."""
    prefix, machines, loaded = spec.prefix, inputs.machines, inputs.loaded
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
    start = time.perf_counter()
    affinity = _affinity()
    bar = None
    try:
        process.start()
        bar = Progress(loaded.nb_jobs, f"{Path(prefix).name} ({spec.engine})", spec.progress)
        if executable is None:
            pin(0, cpu)
            _run_embedded(spec, machines, loaded, Connection(process, timeout_s=spec.scheduler_timeout_s), bar)
        else:
            _run_real(spec, inputs, executable, process, bar, cpu)
        code = process.wait(timeout=60)
    finally:
        _restore_affinity(affinity)
        if bar is not None:
            bar.close()
        process.close()
        endpoint.close()
    physics = check_run(prefix, loaded, machines, _copy_kinds(spec), energy=spec.energy)
    wall = time.perf_counter() - start
    result = RunResult(prefix, spec.engine, spec.scheduler, wall, loaded.nb_jobs, machines.nb_hosts, transport="zmq")
    result.record(physics)
    if code != 0:
        result.notes.append(
            f"the pybatsim process exited with code {code} after the simulation ended (see {prefix}_sched.log)"
        )
    return result


def _run_real(
    spec: RunSpec, inputs: _Inputs, executable: str, process: SchedulerProcess, bar: Progress, cpu: int | None
) -> None:
    from adaptsched.engines.real import run_batsim

    run_batsim(
        executable,
        inputs.platform_path,
        inputs.workload_path,
        spec.prefix,
        process,
        dynamic_jobs=spec.dynamic_jobs,
        ack_dynamic_jobs=spec.ack_dynamic_jobs,
        profile_reuse=spec.profile_reuse,
        progress=bar,
        cpu=cpu,
        schedule_trace=spec.schedule_trace,
        energy=spec.energy,
    )


def _check_input(spec: RunSpec, loaded: Workload, machines: Platform, say: Say) -> None:
    """Before the first event: the workload carries what the scheduler needs (its options'
    declaration, :mod:`adaptsched.core.needs`: refused with a message naming the command that
    prepares it, or a note when only some jobs carry it), and its sizes fit the platform."""
    from adaptsched.core import needs

    for need in spec.options.needs() if isinstance(spec.options, Options) else ():
        verdict = needs.check_jobs(need, loaded.described_jobs(), spec.workload, spec.scheduler)
        if verdict.note:
            say(verdict.note)
    check_times(loaded, spec.workload)
    _check_size(loaded, machines, say)


#: The latest time a run may reach: up to 2^33 s (about 272 years) a double, the clock of both
#: engines (and Batsim's), resolves a microsecond (its spacing there is at most 2^-20 s), which
#: Batsim's six printed decimals show; past it, times round to the double's spacing there (at
#: 1.7e15 s a quarter of a second: a 7.77 s delay runs 7.75 s).
MAX_TIME_S = 2.0**33


def check_times(loaded: Workload, path: str | Path) -> None:
    """Before the run, on either engine: no job submitted, or ending at its submission plus its
    delay or walltime (the earliest it can end), at or past :data:`MAX_TIME_S`; an
    :class:`InputError` names the first such job and field otherwise."""
    jobs = loaded.jobs.values()
    latest = max((abs(job.subtime) for job in jobs), default=0.0)
    longest = max((job.walltime for job in jobs), default=0.0)
    delays = [p.delay for p in loaded.profiles.values() if p is not None and p.type == "delay"]
    if latest + max(longest, max(delays, default=0.0)) < MAX_TIME_S:
        return  # every job's bound at once (the usual case: one pass over the jobs)
    profiles = loaded.profiles
    for index, job in enumerate(jobs):
        profile = profiles.get(job.profile)
        delay = profile.delay if profile is not None and profile.type == "delay" else 0.0
        run_s = min(delay, job.walltime) if job.walltime > 0 else delay
        at = abs(job.subtime) + run_s
        if abs(job.subtime) >= MAX_TIME_S:
            field, what = "subtime", f"job '{job.name}' is submitted at {job.subtime:g} s"
        elif at >= MAX_TIME_S and run_s == job.walltime:
            field, what = (
                "walltime",
                f"job '{job.name}' (submitted at {job.subtime:g} s, walltime {run_s:g} s) can run until {at:g} s",
            )
        elif at >= MAX_TIME_S:
            field = "profile"
            what = f"job '{job.name}' (submitted at {job.subtime:g} s, a {run_s:g} s delay) runs until {at:g} s"
        else:
            continue
        raise InputError(
            path,
            f"{what}, past "
            f"{MAX_TIME_S:,.0f} s (2^33 s, about 272 years): beyond it the simulation's clock, a double in "
            f"both engines as in Batsim, cannot resolve a microsecond (at {at:g} s its resolution is "
            f"{math.ulp(at):g} s, and runtimes round to it); shift the workload's times so that they start near 0",
            field=f"jobs[{index}].{field}",
        )


def _check_size(loaded: Workload, machines: Platform, say: Say) -> None:
    """Before the run: the workload's declared size against the platform's, the jobs that
    are wider than the platform (Batsim runs them, the scheduler must reject them) and those
    that ask for no host (rejected too)."""
    from adaptsched.workloads.batsim_json import no_host_note, too_wide_note

    if loaded.nb_res != machines.nb_hosts:
        say(
            f"note: the workload says nb_res={loaded.nb_res}, the platform has {machines.nb_hosts} hosts; "
            "the platform decides"
        )
    wide = too_wide_note(loaded, machines.nb_hosts)
    if wide:
        say(wide)
    empty = no_host_note(loaded)
    if empty:
        say(empty)


def _run_inprocess(spec: RunSpec, inputs: _Inputs, say: Say) -> RunResult:
    """The embedded engine with the plugin in this process (engines/transports/inprocess.py); the plugin
    receives the options as parsed (an adaptsched scheduler's options class)."""
    from adaptsched.engines.transports.inprocess import InProcessConnection

    prefix, machines, loaded = spec.prefix, inputs.machines, inputs.loaded
    start = time.perf_counter()
    # The plugin lives for the whole run too: made with no collection and frozen at once, like
    # the workload (_inputs). With the engine's job records (_run_embedded), the collections
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
    physics = check_run(prefix, loaded, machines, _copy_kinds(spec), energy=spec.energy)
    wall = time.perf_counter() - start
    result = RunResult(
        prefix, "embedded", spec.scheduler, wall, loaded.nb_jobs, machines.nb_hosts, transport="inprocess"
    )
    result.record(physics)
    if problem:
        result.notes.append(problem)
    return result


def _copy_kinds(spec: RunSpec) -> dict[str, str]:
    """What each kind of job copy runs, as adaptsched's schedulers and the run's own declare it."""
    from adaptsched.schedulers import copy_kinds
    from adaptsched.schedulers.loader import load_plugin, mentions_adaptsched

    core = spec.core_class
    if core is None and spec.plugin.endswith(".py") and mentions_adaptsched(spec.plugin):
        try:
            core = load_plugin(spec.plugin).core_class  # (loaded once already, for its options)
        except InputError:
            core = None
    return copy_kinds(core)


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

        balance = energy_balance(prefix, machines)
        if not balance.holds:
            raise SimulationError(balance.message(prefix))
    from adaptsched.engines.checks.physics import check_physics, physics_error

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
