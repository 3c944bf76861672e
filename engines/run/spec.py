"""One simulation, said once: :class:`RunSpec`.

A run is a scheduler with its options, a workload, a platform, an engine and the way the
engine talks to the scheduler, where the outputs go, and a few flags. :meth:`RunSpec.make`
checks and resolves what can be checked before anything runs (the engine and transport,
the scheduler's name, its options, the flags that go together); the files themselves are
read by :func:`adaptsched.engines.run.run`, on the machine that runs it (a sweep's worker
receives its inputs under other paths: ``dataclasses.replace`` gives it its own spec).

Every caller says a run this way: ``adaptsched run``, the sweep's Dask tasks, the
reproductions' batches, the demo and the tests.

Scheduler options are parsed once, here (:func:`parse_options`): an adaptsched scheduler's
become its options class (:class:`adaptsched.core.options.Options`), which the plugin and
the pure scheduler receive as they are; a pybatsim plugin's are JSON values
(:class:`PluginOptions`), which only the plugin can check.
"""

from __future__ import annotations

import difflib
import hashlib
import importlib.util
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from adaptsched import schedulers as registry
from adaptsched.core.base import OnlineScheduler
from adaptsched.core.options import OptionError, Options
from adaptsched.errors import AdaptschedError, InputError, UsageError, hosts_in_range
from adaptsched.limits import brief

#: ``auto``: the embedded engine when it models the run exactly, else real Batsim when installed
#: (engines/checks/fidelity.py; :func:`adaptsched.engines.run.run` resolves it once the files are read).
ENGINES = ("embedded", "batsim", "auto")
#: How the engine talks to the pybatsim plugin: ``inprocess`` (the embedded engine's default: the
#: plugin and pybatsim's ``Batsim`` object in the engine's process, engines/transports/inprocess.py) or
#: ``zmq`` (a second process, ZeroMQ, JSON text: how Batsim runs plugins; real Batsim's only way).
TRANSPORTS = ("inprocess", "zmq")


def sha256_file(path: str | Path) -> str:
    """The SHA-256 of a file's contents (hex), read by blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@dataclass(frozen=True)
class PluginOptions:
    """A pybatsim plugin's options (not one of adaptsched's): JSON values by name, as the
    ``pybatsim`` command passes them (``-o '{"k": v}'``); only the plugin can check them."""

    items: tuple[tuple[str, Any], ...] = ()
    #: A plugin file of a pure scheduler (:func:`adaptsched.schedulers.adapter.plugin`) says it:
    #: its options, checked by its options class, run job copies.
    dynamic_jobs: bool = False

    def values(self) -> dict[str, Any]:
        return dict(self.items)

    def changed(self) -> dict[str, Any]:
        """What the plugin is given (every option, as no default is known here)."""
        return dict(self.items)

    def needs_dynamic_jobs(self) -> bool:
        return self.dynamic_jobs


#: A scheduler's options, parsed: its options class for adaptsched's, JSON values otherwise.
SchedulerOptions = Options | PluginOptions


class SchedulerOptionError(UsageError):
    """An option that an adaptsched scheduler refuses: ``option`` names it (None for a rule
    between options). A usage error (exit status 2): a value given on the command line."""

    def __init__(self, scheduler: str, error: OptionError):
        super().__init__(f"scheduler {scheduler!r}: {error}")
        self.option = error.option


def pybatsim_builtins() -> Path:
    """pybatsim's own ``schedulers`` folder (found by file: our root has a folder of that name)."""
    spec = importlib.util.find_spec("batsim")
    if spec is None or spec.origin is None:
        raise AdaptschedError("pybatsim is not installed (./setup.sh installs it)")
    return Path(spec.origin).parent.parent / "schedulers"


def resolve_scheduler(scheduler: str) -> tuple[str, type[OnlineScheduler] | None]:
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
    builtins = [path.stem for path in pybatsim_builtins().glob("*.py") if not path.stem.startswith("_")]
    close = difflib.get_close_matches(scheduler, [*registry.SCHEDULERS, *builtins], n=1, cutoff=0.6)
    raise UsageError(
        f"unknown scheduler {brief(scheduler)}"
        + (f" (did you mean {close[0]!r}?)" if close else "")
        + f": use one of {names}, a pybatsim built-in (e.g. easyBackfill) or the path of a .py pybatsim plugin"
    )


def option_values(pairs: Iterable[str] | Mapping[str, Any] | None) -> dict[str, Any]:
    """Options as given: ``["order=sjf", ...]`` (``--option``) as text by name, or a dict as is."""
    if isinstance(pairs, Mapping):
        return dict(pairs)
    raw = {}
    for pair in pairs or []:
        key, sep, text = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--option {brief(pair)} is not of the form KEY=VALUE (e.g. --option order=sjf)")
        raw[key] = text
    return raw


def parse_options(
    pairs: Iterable[str] | Mapping[str, Any] | SchedulerOptions | None,
    core_class: type[OnlineScheduler] | None,
    plugin: str | None = None,
) -> SchedulerOptions:
    """Scheduler options from ``["order=sjf", ...]`` (or a dict of values), parsed once.

    An adaptsched scheduler's options are checked here, before anything runs, by its options
    class (:mod:`adaptsched.core.options`): unknown names, wrong types and values outside the
    allowed ones raise :class:`SchedulerOptionError`, which names the allowed ones. A pybatsim
    plugin's options are JSON values (text that is not JSON stays text); those of a ``plugin``
    file made by :func:`~adaptsched.schedulers.adapter.plugin` are checked by its scheduler's
    options class too, and kept as the typed values given (:func:`plugin_options`). Options
    already parsed are returned as they are.
    """
    if isinstance(pairs, (Options, PluginOptions)):
        return pairs
    raw = option_values(pairs)
    if core_class is None and plugin is not None and plugin.endswith(".py"):
        checked = plugin_options(raw, plugin)
        if checked is not None:
            return checked
    if core_class is None:
        values = {}
        for key, value in raw.items():
            try:
                values[key] = json.loads(value) if isinstance(value, str) else value
            except json.JSONDecodeError:
                values[key] = value
        return PluginOptions(tuple(values.items()))
    try:
        parsed: Options = core_class.Options.parse(raw)
    except OptionError as error:
        raise SchedulerOptionError(core_class.name, error) from None
    return parsed


def plugin_options(raw: Mapping[str, Any], plugin: str) -> PluginOptions | None:
    """The options of a plugin file that runs a pure scheduler, checked by its options class
    (None for another pybatsim plugin). They stay JSON values (the plugin's own class is loaded
    again where it runs, in pybatsim's process or on a sweep's worker), typed as the class says."""
    from adaptsched.schedulers.loader import load_plugin, mentions_adaptsched

    if not mentions_adaptsched(plugin):
        return None
    core = load_plugin(plugin).core_class
    if core is None:
        return None
    try:
        parsed = core.Options.parse(raw)
    except OptionError as error:
        raise SchedulerOptionError(Path(plugin).name, error) from None
    typed = {name: value for name, value in parsed.values().items() if name in raw}
    return PluginOptions(tuple(typed.items()), dynamic_jobs=parsed.needs_dynamic_jobs())


@dataclass(frozen=True)
class RunSpec:
    """One simulation. Make one with :meth:`make` (which checks it); run it with
    :func:`adaptsched.engines.run.run`.

    ``scheduler``: as its user named it (an adaptsched name, a pybatsim built-in, a ``.py``
    path); ``plugin``: what pybatsim loads; ``plugin_sha256``: a plugin file's contents.
    ``workload``: a Batsim JSON file or an SWF trace (converted for the platform);
    ``platform``: a SimGrid XML file or a number of hosts (a generated cluster); ``prefix``:
    where the outputs go (``PREFIX_jobs.csv``...). ``plugin_source``: a plugin file's contents,
    carried to a machine where its path does not exist (a sweep's worker:
    :meth:`with_plugin_in`).
    """

    scheduler: str
    plugin: str
    options: SchedulerOptions
    workload: str
    platform: str | int
    prefix: str
    engine: str = "embedded"
    transport: str = "inprocess"
    plugin_sha256: str | None = None
    batsim: str | None = None  # the real Batsim executable (default: $BATSIM, PATH...)
    dynamic_jobs: bool = False
    ack_dynamic_jobs: bool = False
    profile_reuse: bool = False
    progress: bool | None = field(default=None, compare=False)  # None: a bar on a terminal only
    fixed_addresses: bool = False
    pin_cpu: bool = True
    schedule_trace: bool = False  # real Batsim also writes its Pajé trace PREFIX_schedule.trace
    energy: bool = False  # Batsim's energy model (-E): PREFIX_consumed_energy.csv and friends
    scheduler_timeout_s: float | None = None  # a scheduler slower to answer one message stops the run
    plugin_source: bytes | None = field(default=None, repr=False, compare=False)

    @classmethod
    def make(
        cls,
        scheduler: str,
        workload: str | Path,
        platform: str | int | Path,
        prefix: str | Path,
        *,
        options: Iterable[str] | Mapping[str, Any] | SchedulerOptions | None = None,
        engine: str = "embedded",
        transport: str | None = None,
        batsim: str | None = None,
        dynamic_jobs: bool = False,
        ack_dynamic_jobs: bool = False,
        profile_reuse: bool = False,
        progress: bool | None = None,
        fixed_addresses: bool = False,
        pin_cpu: bool = True,
        schedule_trace: bool = False,
        scheduler_timeout_s: float | None = None,
        energy: bool = False,
    ) -> RunSpec:
        """A checked spec: engine and transport (default: ``inprocess`` on the embedded engine,
        ``zmq`` on real Batsim), scheduler, options (parsed once: :func:`parse_options`).
        Options whose scheduler registers job copies turn on dynamic jobs and profile reuse."""
        transport = check_engine(engine, transport, schedule_trace, scheduler_timeout_s)
        plugin, core_class = resolve_scheduler(scheduler)
        parsed = parse_options(options, core_class, plugin)
        if parsed.needs_dynamic_jobs():
            dynamic_jobs = profile_reuse = True  # job copies are registered while the simulation runs
        return cls(
            scheduler=scheduler,
            plugin=plugin,
            options=parsed,
            workload=str(workload),
            platform=host_count(platform),
            prefix=str(prefix),
            engine=engine,
            transport=transport,
            plugin_sha256=sha256_file(plugin) if scheduler.endswith(".py") else None,
            batsim=batsim,
            dynamic_jobs=dynamic_jobs,
            ack_dynamic_jobs=ack_dynamic_jobs,
            profile_reuse=profile_reuse,
            progress=progress,
            fixed_addresses=fixed_addresses,
            pin_cpu=pin_cpu,
            schedule_trace=schedule_trace,
            scheduler_timeout_s=scheduler_timeout_s,
            energy=energy,
        )

    @property
    def core_class(self) -> type[OnlineScheduler] | None:
        """The pure scheduler of an adaptsched scheduler (None for a pybatsim plugin)."""
        return registry.core_class(self.scheduler) if self.scheduler in registry.SCHEDULERS else None

    def with_plugin_in(self, folder: str | Path) -> RunSpec:
        """This spec where its plugin file may not exist: the plugin written from ``plugin_source``
        (checked against ``plugin_sha256``) under ``folder``, once per content, under its own
        file name (pybatsim takes its class from it). Unchanged without ``plugin_source``."""
        if self.plugin_source is None:
            return self
        sha = hashlib.sha256(self.plugin_source).hexdigest()
        if self.plugin_sha256 is not None and sha != self.plugin_sha256:
            raise AdaptschedError(f"plugin {Path(self.plugin).name}: its contents changed since the run was planned")
        path = Path(folder) / f"plugin_{sha[:16]}" / Path(self.plugin).name
        if not path.is_file() or sha256_file(path) != sha:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
            tmp.write_bytes(self.plugin_source)
            os.replace(tmp, path)
        return replace(self, plugin=str(path), plugin_source=None)


def check_engine(
    engine: str, transport: str | None, schedule_trace: bool = False, scheduler_timeout_s: float | None = None
) -> str:
    """The transport for ``engine`` (its default if None), or a clear error."""
    if engine not in ENGINES:
        raise AdaptschedError(f"unknown engine {engine!r}: choose embedded, batsim or auto")
    if transport is None:  # auto: the embedded engine's, if it is chosen
        transport = "zmq" if engine == "batsim" else "inprocess"
    if transport not in TRANSPORTS:
        raise UsageError(f"unknown transport {transport!r}: choose inprocess or zmq")
    if engine == "batsim" and transport != "zmq":
        raise UsageError(
            "real Batsim talks to its scheduler over ZeroMQ only: use --transport zmq with --engine batsim"
        )
    if schedule_trace and engine != "batsim":
        raise UsageError("the Pajé schedule trace is written by real Batsim only: add --engine batsim")
    if scheduler_timeout_s is not None and engine == "batsim":
        raise UsageError(NO_TIMEOUT_ON_BATSIM)
    return transport


#: Why a scheduler timeout and real Batsim do not go together (``auto`` choosing Batsim says it too).
NO_TIMEOUT_ON_BATSIM = (
    "--scheduler-timeout works with the embedded engine only, which times each answer of the plugin; "
    "real Batsim talks to the scheduler directly and waits for it without a limit, so the timeout "
    "would be ignored and a scheduler that never answers would hang the run: use --engine embedded, "
    "or leave out --scheduler-timeout"
)


def host_count(platform: str | int | Path) -> str | int:
    """A platform as a number of hosts (``430`` or ``"430"``) or as a file's path."""
    text = str(platform)
    if not isinstance(platform, int) and not text.isdigit():
        return text
    hosts = int(text)
    return hosts_in_range(hosts) if hosts > 0 else hosts  # (more than MAX_HOSTS: a usage error)
