"""A sweep's grid, declared in a TOML file, read and checked before anything runs.

Format (docs/sweeps.md has the full reference; ``examples/orders.toml`` is an example)::

    title = "Perkovic & Keleher's orders"  # optional, used in charts
    engine = "embedded"                  # or "batsim", or a list of both
    energy = false                       # Batsim's energy model on every run (docs/energy.md):
                                         # host counts get a cluster with power states, and
                                         # the default collect gains the energy metrics
    platforms = [430]                    # host counts and/or SimGrid XML files

    [[schedulers]]                       # one table per scheduler entry
    name = "backfill"
    options = { order = ["D", "1/L"], guarantees = [true, false] }

    [[schedulers]]                       # a scheduler file of one's own (adaptsched.api.plugin)
    plugin = "mine.py"                   # its options checked by its own options class
    options = { depth = [2, 8] }

    [[workloads]]                        # exactly one of file, trace, generate
    trace = "trace.swf.gz"               # SWF, converted for each platform's size
    platforms = [338]                    # optional: this workload's own platforms
    first = 2000                         # and convert's options: start_s, end_s,
                                         # missing_estimate, over_estimate, zero_runtime
    moldable = "scojo-p"                 # optional: every job moldable with this speedup
                                         # model (mold-annotate: downey, linear, scojo-p)
    [[workloads]]
    generate = "downey"                  # Downey's model: days, load, seed, sigma_max
    days = 2
    load = [0.5, 0.9]
    seed = [1, 2, 3]

    [metrics]                            # all optional
    bound_s = 10.0                       # bounded slowdown's bound
    short_s = 3600.0                     # class thresholds
    long_s = 36000.0
    wide_hosts = 16
    collect = ["bsld_mean", "wait_mean_s", "utilization"]

A scheduler entry names one of adaptsched's schedulers, a pybatsim built-in or a ``.py`` plugin
(``name``), or gives a plugin file (``plugin``); a plugin's file travels to the workers with
the run, by content (:meth:`adaptsched.engines.run.spec.RunSpec.with_plugin_in`), so a remote
worker needs no copy of it.

Every value given as a list is an axis of the grid (no option of any scheduler takes a list):
the runs are the product of each scheduler entry's option axes with the workloads (and their
axes), the platforms and the engines. Paths are relative to the spec file.

Every mistake is found here, before any run, and reported as one paragraph naming the file
and the key (``orders.toml: field 'schedulers[1].options.order': ...``).
"""

from __future__ import annotations

import difflib
import hashlib
import itertools
import json
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NoReturn

from adaptsched.engines.run.spec import SchedulerOptions, sha256_file
from adaptsched.errors import AdaptschedError, InputError
from adaptsched.formats.files import read_text
from adaptsched.formats.outputs import ENERGY_METRICS
from adaptsched.limits import MAX_HOSTS

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ENGINES = ("embedded", "batsim")
TOP_KEYS = ("title", "engine", "energy", "platforms", "schedulers", "workloads", "metrics")
SCHEDULER_KEYS = ("name", "plugin", "options", "label")
CONVERT_KEYS = ("first", "start_s", "end_s", "missing_estimate", "over_estimate", "zero_runtime", "moldable")
GENERATORS = {"downey": ("days", "load", "seed", "sigma_max", "moldable")}
METRIC_KEYS = ("bound_s", "short_s", "long_s", "wide_hosts", "collect")
OVERALL_METRICS = (
    "bsld_mean",
    "wait_mean_s",
    "wait_median_s",
    "wait_p90_s",
    "response_mean_s",
    "response_median_s",
    "response_p90_s",
    "utilization",
    "makespan_s",
    "mean_queue_hosts",
    "completed",
    "killed",
    "rejected",
    "resubmitted_jobs",
    "wasted_node_s",
    "killed_node_s",
    *ENERGY_METRICS,
)
CLASSES = ("short", "medium", "long", "narrow", "wide")
CLASS_METRICS = ("bsld_mean", "wait_mean_s", "response_mean_s", "utilization", "jobs", "killed")
DEFAULT_COLLECT = ("bsld_mean", "wait_mean_s", "response_mean_s", "utilization")
#: What a sweep with the energy model collects by default: the same, then the energy.
ENERGY_COLLECT = (*DEFAULT_COLLECT, "energy_kwh", "mean_power_w", "energy_per_node_s_j")


def known_metrics() -> list[str]:
    """Names accepted by ``[metrics] collect``: overall ones and ``CLASS.metric``."""
    return list(OVERALL_METRICS) + [f"{c}.{m}" for c in CLASSES for m in CLASS_METRICS]


@dataclass(frozen=True)
class Metrics:
    bound_s: float = 10.0
    short_s: float = 3600.0
    long_s: float = 36000.0
    wide_hosts: int = 16
    collect: tuple = DEFAULT_COLLECT

    def parameters(self) -> dict[str, Any]:
        return {"bound_s": self.bound_s, "short_s": self.short_s, "long_s": self.long_s, "wide_hosts": self.wide_hosts}


@dataclass(frozen=True)
class WorkloadPoint:
    """One workload of the grid before it is made for a platform: ``kind`` is file, trace or
    generate; ``params`` its parameters (one value each); ``key``: where it is in the spec."""

    kind: str
    source: str  # file or trace path (absolute), or the generator's name
    params: dict = field(hash=False)
    label: str = ""
    key: str = ""
    platforms: tuple[PlatformPoint, ...] = ()  # its own machines, instead of the spec's


@dataclass(frozen=True)
class PlatformPoint:
    hosts: int | None = None
    file: str | None = None

    @property
    def label(self) -> str:
        return f"{self.hosts}h" if self.hosts is not None else Path(str(self.file)).stem


@dataclass(frozen=True)
class Point:
    """One run of the grid (its workload and platform not yet made into files). ``options``:
    the options given, typed; ``parsed``: all of them, as the run receives them."""

    scheduler: str
    options: dict[str, Any] = field(hash=False)
    workload: WorkloadPoint
    platform: PlatformPoint
    engine: str = "embedded"
    label: str = ""  # the scheduler entry's label, if any
    parsed: SchedulerOptions | None = field(default=None, hash=False, compare=False)


@dataclass
class Spec:
    path: Path
    title: str
    points: list[Point]
    metrics: Metrics
    engines: tuple
    energy: bool = False  # Batsim's energy model on every run (``energy = true``, or ``sweep --energy``)


def _axis(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else [value]


def _product(params: dict[str, Any]) -> list[dict[str, Any]]:
    names = list(params)
    return [dict(zip(names, combo)) for combo in itertools.product(*(_axis(params[n]) for n in names))]


class _Checker:
    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, key: str, message: str) -> NoReturn:
        raise InputError(self.path, message, field=key)

    def table(self, value: Any, key: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            self.fail(key, f"expected a table, got {type(value).__name__} {value!r}")
        return value

    def only(self, table: dict[str, Any], allowed: tuple[str, ...], key: str) -> None:
        for name in table:
            if name not in allowed:
                where = f"{key}.{name}" if key else name
                self.fail(where, f"unknown key: allowed here are {', '.join(allowed)}")

    def not_empty(self, value: Any, key: str) -> None:
        if isinstance(value, list) and not value:
            self.fail(key, "an empty list makes the grid empty: give at least one value")

    def file(self, text: Any, key: str) -> str:
        if not isinstance(text, str) or not text:
            self.fail(key, f"expected a file path, got {text!r}")
        path = (self.path.parent / text).resolve()
        if not path.is_file():
            self.fail(key, f"no such file {path}" + ("" if path.parent.is_dir() else f" (no folder {path.parent})"))
        return str(path)


def read_spec(path: str | Path) -> Spec:
    """Reads and checks a sweep spec; raises :class:`InputError` naming the key at fault."""
    path = Path(path)
    text = read_text(path, "sweep spec")  # (no such file, binary data, too large: named)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise InputError(path, f"not valid TOML: {error}") from None
    except RecursionError:
        raise InputError(path, "not valid TOML: arrays or tables nested too deeply") from None
    return parse_spec(data, path)


def parse_spec(data: dict[str, Any], path: str | Path) -> Spec:
    check = _Checker(Path(path))
    check.only(data, TOP_KEYS, "")
    title = data.get("title", Path(path).stem)
    if not isinstance(title, str):
        check.fail("title", f"expected a string, got {title!r}")

    engines = _axis(data.get("engine", "embedded"))
    check.not_empty(engines, "engine")
    for engine in engines:
        if engine not in ENGINES:
            check.fail("engine", f"unknown engine {engine!r}: choose among {', '.join(ENGINES)}")

    energy = data.get("energy", False)
    if not isinstance(energy, bool):
        check.fail("energy", f"expected true or false, got {energy!r}")
    metrics = _metrics(check, data.get("metrics", {}))
    schedulers = _schedulers(check, data.get("schedulers"))
    workloads = _workloads(check, data.get("workloads"))
    if "platforms" in data:
        platforms = _platforms(check, data["platforms"], "platforms")
    elif all(w.platforms for w in workloads):
        platforms = []
    else:
        check.fail("platforms", "missing: give host counts and/or SimGrid XML files, e.g. platforms = [430]")

    points = []
    for label, name, options, parsed in schedulers:
        for workload in workloads:
            for platform in workload.platforms or platforms:
                for engine in engines:
                    points.append(Point(name, options, workload, platform, engine, label, parsed))
    spec = Spec(Path(path), title, points, metrics, tuple(engines))
    return with_energy(spec) if energy else spec


def with_energy(spec: Spec) -> Spec:
    """The spec with Batsim's energy model on every run (``energy = true``, ``sweep --energy``):
    a default ``collect`` gains the energy metrics, beside wait and slowdown."""
    spec.energy = True
    if spec.metrics.collect == DEFAULT_COLLECT:
        spec.metrics = replace(spec.metrics, collect=ENERGY_COLLECT)
    return spec


def _platforms(check: _Checker, value: Any, where: str) -> list[PlatformPoint]:
    """Host counts and/or SimGrid XML files (a list, or one of them)."""
    platforms = []
    check.not_empty(value, where)
    for i, item in enumerate(_axis(value), 1):
        key = f"{where}[{i}]"
        if isinstance(item, bool) or not isinstance(item, (int, str)):
            check.fail(key, f"expected a host count or a SimGrid XML file, got {item!r}")
        if isinstance(item, int):
            if item < 1:
                check.fail(key, f"a platform needs at least one host, got {item}")
            if item > MAX_HOSTS:
                check.fail(key, f"at most {MAX_HOSTS:,} hosts (docs/errors.md, limits), got {item:,}")
            platforms.append(PlatformPoint(hosts=item))
        else:
            file = check.file(item, key)
            try:
                from adaptsched.platforms.simgrid import read_platform

                read_platform(file)
            except AdaptschedError as error:
                check.fail(key, f"not a usable platform: {error}")
            platforms.append(PlatformPoint(file=file))
    return platforms


def _metrics(check: _Checker, table: Any) -> Metrics:
    table = check.table(table, "metrics")
    check.only(table, METRIC_KEYS, "metrics")
    values: dict[str, Any] = {}
    for name in ("bound_s", "short_s", "long_s"):
        if name in table:
            value = table[name]
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                check.fail(f"metrics.{name}", f"expected a number of seconds > 0, got {value!r}")
            values[name] = float(value)
    if values.get("short_s", 3600.0) > values.get("long_s", 36000.0):
        check.fail("metrics.short_s", "must not exceed metrics.long_s")
    if "wide_hosts" in table:
        value = table["wide_hosts"]
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            check.fail("metrics.wide_hosts", f"expected a whole number >= 1, got {value!r}")
        values["wide_hosts"] = value
    if "collect" in table:
        collect = table["collect"]
        if not isinstance(collect, list) or not collect or not all(isinstance(m, str) for m in collect):
            check.fail("metrics.collect", f"expected a non-empty list of metric names, got {collect!r}")
        known = known_metrics()
        for i, name in enumerate(collect, 1):
            if name not in known:
                check.fail(
                    f"metrics.collect[{i}]",
                    f"unknown metric {name!r}: choose among {', '.join(OVERALL_METRICS)}, or CLASS.METRIC with "
                    f"CLASS among {', '.join(CLASSES)} and METRIC among {', '.join(CLASS_METRICS)}",
                )
        values["collect"] = tuple(dict.fromkeys(collect))
    return Metrics(**values)


def _schedulers(check: _Checker, entries: Any) -> list[tuple[str, str, dict[str, Any], SchedulerOptions]]:
    from adaptsched.engines.run.spec import SchedulerOptionError, parse_options, resolve_scheduler

    if entries is None:
        check.fail("schedulers", "missing: add at least one [[schedulers]] table with a name")
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        check.fail("schedulers", "expected [[schedulers]] tables (an array of tables)")
    check.not_empty(entries, "schedulers")
    out = []
    for i, entry in enumerate(entries, 1):
        key = f"schedulers[{i}]"
        check.only(entry, SCHEDULER_KEYS, key)
        name, where = _scheduler_name(check, entry, key)
        try:
            plugin, core_class = resolve_scheduler(name)
            options_class = core_class.Options if core_class is not None else plugin_options_class(plugin)
        except AdaptschedError as error:
            check.fail(where, str(error))
        label = entry.get("label", "")
        if not isinstance(label, str):
            check.fail(f"{key}.label", f"expected a string, got {label!r}")
        options = check.table(entry.get("options", {}), f"{key}.options")
        known = {spec.name for spec in options_class.specs()} if options_class is not None else None
        for option, value in options.items():
            if known is not None and option not in known:
                close = difflib.get_close_matches(option, sorted(known), n=1)
                check.fail(
                    f"{key}.options.{option}",
                    f"scheduler {name!r} has no option {option!r}"
                    + (f" (did you mean {close[0]!r}?)" if close else "")
                    + f": its options are {', '.join(sorted(known))}",
                )
            check.not_empty(value, f"{key}.options.{option}")
        for combo in _product(options):
            try:
                parsed = parse_options(combo, core_class, plugin)
            except SchedulerOptionError as error:
                check.fail(f"{key}.options" + (f".{error.option}" if error.option else ""), str(error))
            typed = {option: value for option, value in parsed.values().items() if option in combo}
            out.append((label, name, typed, parsed))
    return out


def _scheduler_name(check: _Checker, entry: dict[str, Any], key: str) -> tuple[str, str]:
    """(the entry's scheduler: a name or a plugin file's absolute path, the key naming it)."""
    if ("name" in entry) == ("plugin" in entry):
        check.fail(key, "give exactly one of name (a scheduler) or plugin (a .py scheduler file of one's own)")
    where = f"{key}.name" if "name" in entry else f"{key}.plugin"
    name = entry.get("name", entry.get("plugin"))
    if not isinstance(name, str) or not name:
        check.fail(where, "missing: the scheduler's name (adaptsched schedulers lists them), or a plugin file")
    if "plugin" in entry and not name.endswith(".py"):
        check.fail(where, f"expected a .py scheduler file, got {name!r}")
    if name.endswith(".py"):
        name = check.file(name, where)
    return name, where


def plugin_options_class(plugin: str) -> Any:
    """The options class of a plugin file made with ``adaptsched.api.plugin`` (None otherwise)."""
    if not plugin.endswith(".py"):
        return None
    from adaptsched.schedulers.loader import load_plugin, mentions_adaptsched

    core = load_plugin(plugin).core_class if mentions_adaptsched(plugin) else None
    return core.Options if core is not None else None


def _workloads(check: _Checker, entries: Any) -> list[WorkloadPoint]:
    if entries is None:
        check.fail("workloads", "missing: add at least one [[workloads]] table (file, trace or generate)")
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        check.fail("workloads", "expected [[workloads]] tables (an array of tables)")
    check.not_empty(entries, "workloads")
    out = []
    for i, entry in enumerate(entries, 1):
        key = f"workloads[{i}]"
        kinds = [k for k in ("file", "trace", "generate") if k in entry]
        if len(kinds) != 1:
            check.fail(key, "give exactly one of file (Batsim JSON), trace (SWF) or generate (a model's name)")
        kind = kinds[0]
        label = entry.get("label", "")
        if not isinstance(label, str):
            check.fail(f"{key}.label", f"expected a string, got {label!r}")
        params = {k: v for k, v in entry.items() if k not in (kind, "label", "platforms")}
        own = tuple(_platforms(check, entry["platforms"], f"{key}.platforms")) if "platforms" in entry else ()
        if kind == "file":
            check.only(params, (), key)
            source = check.file(entry["file"], f"{key}.file")
            try:
                from adaptsched.workloads.batsim_json import load_workload

                load_workload(source)
            except AdaptschedError as error:
                check.fail(f"{key}.file", f"not a usable Batsim workload: {error}")
        elif kind == "trace":
            check.only(params, CONVERT_KEYS, key)
            source = check.file(entry["trace"], f"{key}.trace")
        else:
            source = entry["generate"]
            if source not in GENERATORS:
                check.fail(f"{key}.generate", f"unknown model {source!r}: choose among {', '.join(GENERATORS)}")
            check.only(params, GENERATORS[source], key)
            for needed in ("days", "load"):
                if needed not in params:
                    check.fail(f"{key}.{needed}", f"missing: generate = {source!r} needs days and load")
        for name, value in params.items():
            check.not_empty(value, f"{key}.{name}")
        for combo in _product(params):
            _check_workload_params(check, key, kind, combo)
            out.append(WorkloadPoint(kind, source, combo, label, key, own))
    return out


def _check_workload_params(check: _Checker, key: str, kind: str, params: dict[str, Any]) -> None:
    def number(name: str, minimum: float, whole: bool = False, strict: bool = False) -> None:
        if name not in params:
            return
        value = params[name]
        ok = not isinstance(value, bool) and isinstance(value, int if whole else (int, float))
        if ok:
            ok = value > minimum if strict else value >= minimum
        if not ok:
            what = "a whole number" if whole else "a number"
            check.fail(f"{key}.{name}", f"expected {what} {'>' if strict else '>='} {minimum}, got {value!r}")

    if kind == "trace":
        number("first", 1, whole=True)
        number("start_s", 0)
        number("end_s", 0)
        from adaptsched.workloads.convert import _parse_rules

        try:
            _parse_rules(
                params.get("missing_estimate", "runtime+1"),
                params.get("over_estimate", "keep"),
                params.get("zero_runtime", "drop"),
            )
        except AdaptschedError as error:
            check.fail(key, str(error))
    if "moldable" in params:
        from adaptsched.workloads.moldable import MODELS

        if params["moldable"] not in MODELS:
            model = params["moldable"]
            check.fail(f"{key}.moldable", f"unknown speedup model {model!r}: choose among {', '.join(MODELS)}")
    if kind == "generate":
        number("days", 1, whole=True)
        number("load", 0, strict=True)
        number("seed", 0, whole=True)
        number("sigma_max", 0, strict=True)


# ------------------------------------------------------------------- making the inputs
def make_platform(platform: PlatformPoint, folder: Path, *, energy: bool = False) -> Path:
    """The platform's XML file (a generated cluster for a host count, with the default power
    model for the energy model's runs: :mod:`adaptsched.platforms.power`), in ``folder``."""
    if platform.file is not None:
        return Path(platform.file)
    from adaptsched.platforms.power import PowerSpec
    from adaptsched.platforms.simgrid import write_cluster

    hosts = int(platform.hosts or 0)
    path = folder / (f"cluster{hosts}-power.xml" if energy else f"cluster{hosts}.xml")
    if not path.is_file():
        write_cluster(hosts, path, power=PowerSpec() if energy else None)
    return path


def make_workload(workload: WorkloadPoint, nb_hosts: int, folder: Path) -> Path:
    """The workload's Batsim JSON file for a machine of ``nb_hosts`` (converted or generated
    once, cached in ``folder`` by its parameters)."""
    if workload.kind == "file":
        return Path(workload.source)
    from adaptsched.workloads.convert import write_workload

    ident = json.dumps(
        [workload.kind, workload.source, sha256_file(workload.source) if workload.kind == "trace" else "", nb_hosts]
        + sorted(workload.params.items()),
        default=str,
    )
    path = folder / f"workload-{hashlib.sha256(ident.encode()).hexdigest()[:16]}.json"
    if path.is_file():
        return path
    params = dict(workload.params)
    moldable = params.pop("moldable", None)
    if workload.kind == "trace":
        from adaptsched.workloads.convert import convert_swf

        data, _ = convert_swf(workload.source, hosts=nb_hosts, **params)
    else:
        from adaptsched.workloads.downey import generate

        data = generate(params.pop("days"), params.pop("load"), hosts=nb_hosts, **params)
    if moldable is not None:
        from adaptsched.workloads.moldable import annotate

        data, _ = annotate(data, model=moldable, seed=params.get("seed", 0))
    tmp = path.with_suffix(".tmp")
    write_workload(data, tmp)
    tmp.replace(path)
    return path


def workload_label(workload: WorkloadPoint) -> str:
    if workload.label:
        base = workload.label
    elif workload.kind == "generate":
        base = workload.source
    else:
        base = Path(workload.source).name.split(".")[0]
    quiet = ("missing_estimate", "over_estimate") + (("moldable",) if workload.label else ())  # a label names it
    extras = [f"{k}{v}" for k, v in workload.params.items() if k not in quiet]
    return "-".join([base] + extras)
