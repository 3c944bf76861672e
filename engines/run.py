"""One simulation, end to end: resolve the inputs, run an engine, write the outputs.

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
``schedule_trace``).
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from adaptsched import schedulers as registry
from adaptsched.core.options import OptionError
from adaptsched.engines.fidelity import assess, choose_engine
from adaptsched.engines.process import Connection, Endpoint, SchedulerProcess, pick_cpu, pin
from adaptsched.errors import AdaptschedError, InputError, SimulationError, UsageError
from adaptsched.platforms.simgrid import cluster_platform, read_platform, write_cluster

#: ``auto``: the embedded engine when it models the run exactly, else real Batsim when installed
#: (engines/fidelity.py).
ENGINES = ("embedded", "batsim", "auto")
#: How the engine talks to the pybatsim plugin: ``inprocess`` (the embedded engine's default: the
#: plugin and pybatsim's ``Batsim`` object in the engine's process, engines/inprocess.py) or
#: ``zmq`` (a second process, ZeroMQ, JSON text: how Batsim runs plugins; real Batsim's only way).
TRANSPORTS = ("inprocess", "zmq")


@dataclass
class RunResult:
    prefix: str
    engine: str
    scheduler: str
    wall_s: float
    nb_jobs: int
    nb_hosts: int
    notes: list = field(default_factory=list)
    transport: str = "zmq"

    @property
    def jobs_csv(self) -> str:
        return f"{self.prefix}_jobs.csv"

    @property
    def schedule_csv(self) -> str:
        return f"{self.prefix}_schedule.csv"


def pybatsim_builtins() -> Path:
    """pybatsim's own ``schedulers`` folder (found by file: our root has a folder of that name)."""
    spec = importlib.util.find_spec("batsim")
    return Path(spec.origin).parent.parent / "schedulers"


def resolve_scheduler(scheduler: str) -> tuple[str, object]:
    """(what to hand to pybatsim, the pure scheduler class or None)."""
    if scheduler in registry.SCHEDULERS:
        return str(registry.plugin_path(scheduler)), registry.core_class(scheduler)
    if scheduler.endswith(".py"):
        if not Path(scheduler).is_file():
            raise InputError(scheduler, "no such scheduler plugin file")
        return str(Path(scheduler).resolve()), None
    if "/" not in scheduler and "." not in scheduler and (pybatsim_builtins() / f"{scheduler}.py").is_file():
        return scheduler, None  # a pybatsim built-in
    names = ", ".join(registry.SCHEDULERS)
    raise AdaptschedError(
        f"unknown scheduler {scheduler!r}: use one of {names}, a pybatsim built-in "
        "(e.g. easyBackfill) or the path of a .py pybatsim plugin"
    )


def parse_options(pairs, core_class) -> dict:
    """Scheduler options from ``["order=sjf", ...]`` (or a dict of values) -> typed values.

    An adaptsched scheduler's options are checked here, before anything runs, by its
    options class (:mod:`adaptsched.core.options`): unknown names, wrong types and values
    outside the allowed ones are reported with the allowed ones. A pybatsim plugin's options
    are passed on as JSON values.
    """
    if isinstance(pairs, dict):
        raw = dict(pairs)
    else:
        raw = {}
        for pair in pairs or []:
            key, sep, text = pair.partition("=")
            if not sep or not key:
                raise AdaptschedError(f"option {pair!r} is not of the form KEY=VALUE")
            raw[key] = text
    if core_class is None:
        options = {}
        for key, value in raw.items():
            try:
                options[key] = json.loads(value) if isinstance(value, str) else value
            except json.JSONDecodeError:
                options[key] = value
        return options
    try:
        checked = core_class.Options.parse(raw)
    except OptionError as error:
        raise AdaptschedError(f"scheduler {core_class.name!r}: {error}") from None
    return {name: value for name, value in checked.values().items() if name in raw}


def resolve_platform(platform, prefix: str) -> Path:
    if isinstance(platform, int) or (isinstance(platform, str) and platform.isdigit()):
        nb_hosts = int(platform)
        if nb_hosts < 1:
            raise AdaptschedError("a platform needs at least one host")
        return write_cluster(nb_hosts, f"{prefix}_platform.xml")
    path = Path(platform)
    if not path.is_file():
        raise InputError(platform, "no such platform file")
    return path


def resolve_workload(workload, nb_hosts: int, prefix: str, *, say=print) -> Path:
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
        self.bar = None
        if enabled is None:
            enabled = sys.stderr.isatty()
        if enabled and total > 0:
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc=label, unit="job", file=sys.stderr, smoothing=0.1, leave=True)

    def __call__(self, done: int):
        if self.bar is not None:
            self.bar.update(max(done - self.bar.n, 0))

    def close(self):
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


def run(
    scheduler: str,
    workload,
    platform,
    prefix,
    *,
    engine: str = "embedded",
    transport: str | None = None,
    options=None,
    batsim: str | None = None,
    dynamic_jobs: bool = False,
    ack_dynamic_jobs: bool = False,
    profile_reuse: bool = False,
    progress: bool | None = None,
    fixed_addresses: bool = False,
    pin_cpu: bool = True,
    schedule_trace: bool = False,
    scheduler_timeout_s: float | None = None,
    say=print,
) -> RunResult:
    """Runs one simulation and returns where its outputs are. ``schedule_trace``: real Batsim
    also writes its Pajé trace ``PREFIX_schedule.trace``. ``transport``: see :data:`TRANSPORTS`
    (default: ``inprocess`` on the embedded engine, ``zmq`` on real Batsim).
    ``scheduler_timeout_s``: a scheduler that takes longer to answer one message stops the run."""
    if engine not in ENGINES:
        raise AdaptschedError(f"unknown engine {engine!r}: choose embedded, batsim or auto")
    if engine != "auto":
        transport = _check_transport(engine, transport, schedule_trace)
    prefix = str(prefix)
    Path(prefix).parent.mkdir(parents=True, exist_ok=True)
    plugin, core_class = resolve_scheduler(scheduler)
    options = parse_options(options, core_class)
    if core_class is not None and core_class.Options.parse(options).needs_dynamic_jobs():
        dynamic_jobs = profile_reuse = True  # job copies are registered while the simulation runs
    platform_path = resolve_platform(platform, prefix)
    if isinstance(platform, int) or (isinstance(platform, str) and platform.isdigit()):
        machines = cluster_platform(int(platform), platform_path)  # the file just written, not parsed
    else:
        machines = read_platform(platform_path)
    workload_path = resolve_workload(workload, machines.nb_hosts, prefix, say=say)
    if engine != "batsim":  # before the first event: exact, or say so (engines/fidelity.py)
        engine = choose_engine(engine, assess(machines, workload_path), _batsim_found(batsim), say)
    transport = _check_transport(engine, transport, schedule_trace)
    executable = None
    if engine == "batsim":
        executable = find_batsim_or_fail(batsim)

    if transport == "inprocess":
        return _run_inprocess(
            plugin,
            options,
            machines,
            workload_path,
            prefix,
            scheduler,
            dynamic_jobs,
            ack_dynamic_jobs,
            profile_reuse,
            progress,
            scheduler_timeout_s,
            say,
        )
    endpoint = Endpoint()
    cpu = pick_cpu() if pin_cpu else None
    process = SchedulerProcess(
        plugin, options, endpoint, f"{prefix}_sched.log", fixed_addresses=fixed_addresses, cpu=cpu
    )
    start = time.perf_counter()
    affinity = _affinity()
    bar = None
    try:
        process.start()  # pybatsim boots while the workload loads
        from adaptsched.workloads.batsim_json import load_workload

        loaded = load_workload(workload_path, embedded=(engine == "embedded"))
        _check_size(loaded, machines, say)
        bar = Progress(loaded.nb_jobs, f"{Path(prefix).name} ({engine})", progress)
        if engine == "embedded":
            pin(0, cpu)
            _run_embedded(
                machines,
                loaded,
                Connection(process, timeout_s=scheduler_timeout_s),
                prefix,
                dynamic_jobs,
                ack_dynamic_jobs,
                profile_reuse,
                bar,
            )
        else:
            from adaptsched.engines.real import run_batsim

            run_batsim(
                executable,
                platform_path,
                workload_path,
                prefix,
                process,
                dynamic_jobs=dynamic_jobs,
                ack_dynamic_jobs=ack_dynamic_jobs,
                profile_reuse=profile_reuse,
                progress=bar,
                cpu=cpu,
                schedule_trace=schedule_trace,
            )
        code = process.wait(timeout=60)
    finally:
        _restore_affinity(affinity)
        if bar is not None:
            bar.close()
        process.close()
        endpoint.close()
    wall = time.perf_counter() - start
    result = RunResult(prefix, engine, scheduler, wall, loaded.nb_jobs, machines.nb_hosts, transport=transport)
    if code != 0:
        result.notes.append(
            f"the pybatsim process exited with code {code} after the simulation ended (see {prefix}_sched.log)"
        )
    return result


def _check_transport(engine: str, transport: str | None, schedule_trace: bool) -> str:
    """The transport for ``engine`` (its default when None), or a usage error."""
    if transport is None:
        transport = "inprocess" if engine == "embedded" else "zmq"
    if transport not in TRANSPORTS:
        raise UsageError(f"unknown transport {transport!r}: choose inprocess or zmq")
    if engine == "batsim" and transport != "zmq":
        raise UsageError(
            "real Batsim talks to its scheduler over ZeroMQ only: use --transport zmq with --engine batsim"
        )
    if schedule_trace and engine != "batsim":
        raise UsageError("the Pajé schedule trace is written by real Batsim only: add --engine batsim")
    return transport


def _batsim_found(batsim: str | None) -> bool:
    from adaptsched.engines.real import find_batsim

    try:
        return find_batsim(batsim) is not None
    except SimulationError:
        return False


def _check_size(loaded, machines, say):
    """Before the run: the workload's declared size against the platform's, and the jobs that
    are wider than the platform (Batsim runs them, the scheduler must reject them)."""
    from adaptsched.workloads.batsim_json import too_wide_note

    if loaded.nb_res != machines.nb_hosts:
        say(
            f"note: the workload says nb_res={loaded.nb_res}, the platform has {machines.nb_hosts} hosts; "
            "the platform decides"
        )
    wide = too_wide_note(loaded, machines.nb_hosts)
    if wide:
        say(wide)


def _run_inprocess(
    plugin,
    options,
    machines,
    workload_path,
    prefix,
    scheduler,
    dynamic_jobs,
    ack_dynamic_jobs,
    profile_reuse,
    progress,
    timeout_s,
    say,
) -> RunResult:
    """The embedded engine with the plugin in this process (engines/inprocess.py)."""
    from adaptsched.engines.inprocess import InProcessConnection
    from adaptsched.workloads.batsim_json import load_workload

    start = time.perf_counter()
    loaded = load_workload(workload_path, embedded=True)
    _check_size(loaded, machines, say)
    clock = []  # the engine, once made, for the connection's messages
    connection = InProcessConnection(
        plugin, options, f"{prefix}_sched.log", timeout_s=timeout_s, now=lambda: clock[0].now if clock else 0.0
    )
    bar = Progress(loaded.nb_jobs, f"{Path(prefix).name} (embedded)", progress)
    try:
        problem = _run_embedded(
            machines, loaded, connection, prefix, dynamic_jobs, ack_dynamic_jobs, profile_reuse, bar, clock
        )
    finally:
        bar.close()
        connection.close()
    wall = time.perf_counter() - start
    result = RunResult(prefix, "embedded", scheduler, wall, loaded.nb_jobs, machines.nb_hosts, transport="inprocess")
    if problem:
        result.notes.append(problem)
    return result


def _affinity():
    try:
        return os.sched_getaffinity(0)
    except (AttributeError, OSError):
        return None


def _restore_affinity(cpus):
    if cpus is not None:
        try:
            os.sched_setaffinity(0, cpus)
        except OSError:
            pass


def _run_embedded(machines, loaded, connection, prefix, dynamic_jobs, ack_dynamic_jobs, profile_reuse, bar, clock=None):
    """Runs the embedded engine on a connection (ZeroMQ or in-process); closes it. Returns what
    the in-process pybatsim found wrong at the end (the pybatsim command's exit code), if anything."""
    from adaptsched.engines.embedded.batsim import EmbeddedBatsim, Options

    try:
        options = Options(dynamic_jobs=dynamic_jobs, ack_dynamic_jobs=ack_dynamic_jobs, profile_reuse=profile_reuse)
        engine = EmbeddedBatsim(
            machines, [loaded], connection, prefix, options=options, progress=bar if bar.bar is not None else None
        )
        if clock is not None:
            clock.append(engine)
        engine.run()
        summary = getattr(connection, "summary_problem", None)
        return summary() if summary is not None else None
    finally:
        connection.close()
