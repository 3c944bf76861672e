"""A grid of runs and what became of them: :class:`GridRun`, :class:`GridResult`, and resuming.

A run's key (:func:`run_key`) hashes its scheduler (and a plugin file's contents), every
option's value (defaults included), the contents of its workload and platform, its engine
and adaptsched's version; a run is done when its ``NAME_result.json`` holds the same key and
its ``NAME_jobs.csv`` is there (:func:`resume`).
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
from adaptsched.engines.run.spec import RunSpec, sha256_file

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
    # the cluster over the sweep, sampled (worker threads): least, most, and their integral
    workers_min: int = 0
    workers_max: int = 0
    worker_s: float = 0.0
    lost_workers: int = 0  # workers that left without being asked to (killed, crashed, cut off)
    joined_workers: int = 0  # workers that joined after the start (replacements, scaling up)
    resubmitted: int = 0  # runs given to another worker because theirs, or their inputs, were lost
    reanalysed: int = 0  # runs done before whose metrics were recomputed (their analysis changed)

    @property
    def efficiency(self) -> float | None:
        """Sum of run times over worker-seconds (worker threads x seconds, as sampled)."""
        if self.done == 0 or self.worker_s <= 0:
            return None
        return self.run_s / self.worker_s

    def _workers_text(self) -> str:
        low, high = self.workers_min or self.workers, self.workers_max or self.workers
        count = f"{low}" if low == high else f"{low} to {high}"
        return f"{count} worker{'s' if high != 1 else ''}"

    def summary(self) -> str:
        total = self.done + len(self.failed) + self.skipped
        if self.done + len(self.failed) + self.reanalysed == 0:
            return f"{total} runs: {self.skipped} skipped (done before), nothing to run"
        line = (
            f"{total} runs: {self.done} done, {len(self.failed)} failed, {self.skipped} skipped "
            f"in {self.wall_s:.1f} s on {self._workers_text()} (+{self.startup_s:.1f} s to start)"
        )
        if self.reanalysed:
            line += f"; metrics recomputed for {self.reanalysed} of the skipped"
        if self.efficiency is not None:
            line += (
                f"; efficiency {self.efficiency:.2f} (sum of run times {self.run_s:.1f} s / "
                f"{self.worker_s:.1f} worker-s)"
            )
        if self.lost_workers or self.joined_workers or self.resubmitted:
            line += (
                f"; {self.lost_workers} worker{'s' if self.lost_workers != 1 else ''} lost, "
                f"{self.joined_workers} joined, {self.resubmitted} run{'s' if self.resubmitted != 1 else ''} "
                "resubmitted"
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

    ident: dict[str, object] = {
        "scheduler": spec.scheduler,
        "plugin": spec.plugin_sha256,
        "options": spec.options.values(),
        "workload": content(spec.workload),
        "platform": content(spec.platform),
        "engine": spec.engine,
        "adaptsched": __version__,
    }
    if spec.energy:  # only then: the keys (and folder names) of runs without energy stay as they were
        ident["energy"] = True
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
    the done runs whose analysis changed (``reanalyse``: their metrics are recomputed on the
    workers), and every run's key."""

    results: dict[str, dict[str, Any]]
    todo: list[GridRun]
    keys: dict[str, str]
    hashes: dict[str, str]
    reanalyse: list[GridRun] = field(default_factory=list)


def is_done(folder: Path, name: str, key: str) -> dict[str, Any] | None:
    """A run's result if it is done in ``folder``: ``NAME_result.json`` holds ``key`` (the hash
    of its inputs, options, engine and version) and ``NAME_jobs.csv`` is there."""
    old = read_result(folder / f"{name}_result.json")
    if old is None or old.get("key") != key or not (folder / f"{name}_jobs.csv").is_file():
        return None
    return old


def resume(runs: list[GridRun], folder: Path, analyse: Analysis | None) -> Resumed:
    """Which runs are done in ``folder`` (:func:`is_done`), which are to run, and which of the
    done ones must have their metrics recomputed (another analysis than the one they hold)."""
    hashes: dict[str, str] = {}
    ident = analysis_id(analyse)
    resumed = Resumed({}, [], {}, hashes)
    for run in runs:
        key = resumed.keys[run.name] = run_key(run.spec, hashes)
        old = is_done(folder, run.name, key)
        if old is None:
            resumed.todo.append(run)
            continue
        if analyse is not None and old.get("analysis") != ident:
            resumed.reanalyse.append(run)
        resumed.results[run.name] = old
    return resumed
