"""From a checked spec to the runs of a sweep, and each run's analysis (on its worker).

Each point of the grid becomes a :class:`~adaptsched.sweep.grid.GridRun` whose
:class:`~adaptsched.engines.run.spec.RunSpec` has its workload and platform as files under
``OUT/inputs`` (SWF traces converted and models generated once per machine size, on the
client, then shipped to the workers), its outputs under ``OUT/runs``, and whose name says what
it is (``backfill-order=P-guarantees=false-seed=2-CTC-SP2-first2000-430h-1f3a9c2e``: scheduler
or label, options, workload, platform, engine when several, and the start of its key). A
plugin file's run carries the file's contents (``RunSpec.plugin_source``), read once: the
worker writes it where it runs (:meth:`~adaptsched.engines.run.spec.RunSpec.with_plugin_in`).
"""

from __future__ import annotations

import functools
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from adaptsched.engines.run.spec import RunSpec

from .grid import Analysis, GridRun, run_key
from .spec import Point, Spec, make_platform, make_workload, workload_label


def _slug(text: str) -> str:
    text = str(text).replace("/", "over").replace(" ", "_")
    return re.sub(r"[^A-Za-z0-9_.=+-]", "", text)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def plan_runs(spec: Spec, out: Path, *, batsim: str | None = None) -> list[GridRun]:
    """The sweep's runs, its inputs written under ``out/inputs``, their outputs to go to
    ``out/runs``. ``batsim``: the real Batsim executable for runs on that engine."""
    inputs = Path(out) / "inputs"
    inputs.mkdir(parents=True, exist_ok=True)
    folder = Path(out).resolve() / "runs"
    platforms: dict[Any, tuple[Path, int]] = {}
    workloads: dict[Any, Path] = {}
    runs: list[GridRun] = []
    hashes: dict[str, str] = {}
    sources: dict[str, bytes] = {}  # plugin file -> its contents
    for point in spec.points:
        if point.platform not in platforms:
            from adaptsched.platforms.simgrid import read_platform

            path = make_platform(point.platform, inputs, energy=spec.energy)
            platforms[point.platform] = (path, read_platform(path).nb_hosts)
        platform_path, nb_hosts = platforms[point.platform]
        wkey = (point.workload, nb_hosts)
        if wkey not in workloads:
            workloads[wkey] = make_workload(point.workload, nb_hosts, inputs)
        run = RunSpec.make(
            point.scheduler,
            workloads[wkey],
            platform_path,
            folder / "run",
            options=point.parsed if point.parsed is not None else point.options,
            engine=point.engine,
            batsim=batsim,
            energy=spec.energy,
        )
        key = run_key(run, hashes)
        params = parameters(point, nb_hosts)
        parts = [point.label or str(params["scheduler"]).removesuffix(".py")]
        parts += [f"{k}={_value(v)}" for k, v in point.options.items()]
        parts += [params["workload"], params["platform"]]
        if len(spec.engines) > 1:
            parts.append(point.engine)
        name = _slug("-".join(parts))[:120] + f"-{key[:8]}"
        source = None
        if run.plugin_sha256 is not None:
            source = sources.setdefault(run.plugin, Path(run.plugin).read_bytes())
        runs.append(GridRun(name, replace(run, prefix=str(folder / name), plugin_source=source), params))
    return runs


def parameters(point: Point, nb_hosts: int) -> dict[str, Any]:
    """What a run stands for, as columns of ``runs.csv``."""
    params: dict[str, Any] = {
        "scheduler": point.scheduler if not point.scheduler.endswith(".py") else Path(point.scheduler).name
    }
    if point.label:
        params["label"] = point.label
    params.update({f"opt.{k}": v for k, v in point.options.items()})
    params["workload"] = workload_label(point.workload)
    params.update({f"workload.{k}": v for k, v in point.workload.params.items()})
    params["platform"] = point.platform.label
    params["hosts"] = nb_hosts
    params["engine"] = point.engine
    return params


def sweep_metrics(
    prefix: str,
    options: dict,
    workload: str,
    *,
    bound_s: float,
    short_s: float,
    long_s: float,
    wide_hosts: int,
    collect: tuple,
) -> dict:
    """The collected metrics of one run (``[metrics] collect``), on its worker."""
    from adaptsched.analysis import compute_metrics

    metrics = compute_metrics(
        f"{prefix}_jobs.csv", bound_s=bound_s, short_s=short_s, long_s=long_s, wide_hosts=wide_hosts
    )
    values = {"jobs": metrics["overall"]["jobs"], "executed": metrics["overall"]["executed"]}
    for name in collect:
        cls, _, metric = name.rpartition(".")
        values[name] = metrics["classes"][cls].get(metric) if cls else metrics["overall"].get(metric)
    return {"metrics": values}


def analysis_of(spec: Spec) -> Analysis:
    """The spec's analysis function (a partial: pickled by reference to the workers)."""
    return functools.partial(sweep_metrics, **spec.metrics.parameters(), collect=tuple(spec.metrics.collect))
