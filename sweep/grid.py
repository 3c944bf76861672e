"""A grid of runs and what became of them: :class:`GridRun`, :class:`GridResult`, and resuming.

A run's key (:func:`run_key`) hashes its scheduler (and a plugin file's contents), every
option's value (defaults included), the contents of its workload and platform, its engine
and adaptsched's version; a run whose ``NAME_result.json`` holds the same key is done
(:func:`resume`).
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adaptsched import __version__
from adaptsched.engines.spec import RunSpec, sha256_file

#: A run's analysis on its worker: ``analyse(prefix, options, workload) -> dict`` (a
#: module-level function, or a ``functools.partial`` of one, so that Dask pickles it by reference).
Analysis = Callable[[str, dict[str, Any], str], dict[str, Any]]


@dataclass(frozen=True)
class GridRun:
    """One simulation of a grid. ``name`` is unique in the grid and names its files
    (``FOLDER/NAME_jobs.csv``...); ``spec`` is the run, its workload and platform files on the
    client; ``params``: what the run stands for, as columns of the sweep's table."""

    name: str
    spec: RunSpec
    params: dict[str, Any] = field(hash=False, default_factory=dict, compare=False)


@dataclass
class GridResult:
    """What :func:`~adaptsched.sweep.run.run_grid` did: ``results`` of every run done now or
    before (by name), ``failed`` runs (name -> error with the last log lines)."""

    folder: Path
    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)
    done: int = 0
    skipped: int = 0
    workers: int = 0
    wall_s: float = 0.0
    startup_s: float = 0.0
    run_s: float = 0.0
    interrupted: bool = False
    input_bytes: int = 0  # compressed inputs shipped to workers (0 on a shared file system)
    output_bytes: int = 0  # compressed outputs received from workers (0 on a shared file system)
    client_s: float = 0.0  # the client's time handling answers: unpacking and writing outputs

    @property
    def efficiency(self) -> float | None:
        if self.done == 0 or self.wall_s <= 0 or self.workers <= 0:
            return None
        return self.run_s / (self.wall_s * self.workers)

    def summary(self) -> str:
        total = self.done + len(self.failed) + self.skipped
        if self.done + len(self.failed) == 0:
            return f"{total} runs: {self.skipped} skipped (done before), nothing to run"
        line = (
            f"{total} runs: {self.done} done, {len(self.failed)} failed, {self.skipped} skipped "
            f"in {self.wall_s:.1f} s on {self.workers} worker{'s' if self.workers != 1 else ''} "
            f"(+{self.startup_s:.1f} s to start)"
        )
        if self.efficiency is not None:
            line += (
                f"; efficiency {self.efficiency:.2f} (sum of run times {self.run_s:.1f} s / "
                f"({self.wall_s:.1f} s x {self.workers} workers))"
            )
        if self.interrupted:
            line += "; interrupted: finished runs are kept, run again to go on"
        return line


# ------------------------------------------------------------------------------ keys
def run_key(spec: RunSpec, hashes: dict[str, str] | None = None) -> str:
    """A run's identity: scheduler (and a plugin file's contents), every option's value
    (defaults included, so that a run made before a default changed is not taken for one made
    after it), the contents of its workload and platform, engine and adaptsched's version.
    ``hashes``: a cache {path: sha256} shared over a grid."""
    hashes = {} if hashes is None else hashes

    def content(path: str | int) -> str:
        if isinstance(path, int):  # a generated cluster: the file it would be
            from adaptsched.platforms.simgrid import cluster_xml

            return hashlib.sha256(cluster_xml(path).encode()).hexdigest()
        if path not in hashes:
            hashes[path] = sha256_file(path)
        return hashes[path]

    ident = {
        "scheduler": spec.scheduler,
        "plugin": spec.plugin_sha256,
        "options": spec.options.values(),
        "workload": content(spec.workload),
        "platform": content(spec.platform),
        "engine": spec.engine,
        "adaptsched": __version__,
    }
    text = json.dumps(ident, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def analysis_id(analyse: Analysis | None) -> str | None:
    """What identifies an analysis function (with a partial's arguments), stored in each result."""
    if analyse is None:
        return None
    if isinstance(analyse, functools.partial):
        inner = analysis_id(analyse.func)
        return f"{inner}({json.dumps(analyse.keywords, sort_keys=True, default=str)})"
    return f"{analyse.__module__}.{analyse.__qualname__}"


# ------------------------------------------------------------------------- results
def read_result(path: Path) -> dict[str, Any] | None:
    try:
        result: dict[str, Any] = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return result


def write_result(folder: Path, name: str, result: dict[str, Any]) -> None:
    """``FOLDER/NAME_result.json``, written whole (a crash leaves the previous one or none)."""
    path = folder / f"{name}_result.json"
    tmp = path.with_name(path.name + ".part")
    tmp.write_text(json.dumps(result, indent=1, default=str))
    tmp.replace(path)


@dataclass
class Resumed:
    """The grid as found in its folder: ``results`` of the runs done before, the runs ``todo``,
    and every run's key."""

    results: dict[str, dict[str, Any]]
    todo: list[GridRun]
    keys: dict[str, str]
    hashes: dict[str, str]


def resume(runs: list[GridRun], folder: Path, analyse: Analysis | None) -> Resumed:
    """Which runs are done in ``folder`` (same key); a done run whose analysis changed is
    analysed again, on the client, from its outputs."""
    hashes: dict[str, str] = {}
    ident = analysis_id(analyse)
    resumed = Resumed({}, [], {}, hashes)
    for run in runs:
        key = resumed.keys[run.name] = run_key(run.spec, hashes)
        old = read_result(folder / f"{run.name}_result.json")
        if old is None or old.get("key") != key:
            resumed.todo.append(run)
            continue
        if old.get("analysis") != ident and analyse is not None and (folder / f"{run.name}_jobs.csv").is_file():
            old.update(analyse(str(folder / run.name), run.spec.options.values(), run.spec.workload))  # new analysis
            old["analysis"] = ident
            write_result(folder, run.name, old)
        resumed.results[run.name] = old
    return resumed
