"""One run of a grid on a Dask worker: :func:`execute` and what it needs on the worker.

A task (:class:`RunTask`) carries the run's :class:`~adaptsched.engines.spec.RunSpec`, whose
workload and platform are the client's files: the worker receives them shipped (a path on a
shared file system, or their compressed contents scattered once by the client, written once
per worker) and runs its own copy of the spec, with its local paths and outputs prefix. The
outputs come back as one gzip-compressed tar (:func:`pack`), unpacked by the client
(:func:`unpack`).
"""

from __future__ import annotations

import io
import os
import shutil
import socket
import tarfile
import tempfile
import time
import traceback
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from adaptsched import __version__
from adaptsched.engines.spec import RunSpec

from .grid import Analysis

OUTPUT_SUFFIXES = ("_jobs.csv", "_schedule.csv", "_machine_states.csv", "_sched.log", "_batsim.log")
LOG_LINES = 12

#: An input as a task receives it: ``("path", PATH)`` on a shared file system, otherwise
#: ``("data", SHA256, GZIPPED_CONTENTS, SUFFIX)``; ``("value", HOSTS)`` for a platform given
#: as a number of hosts (the run writes its cluster).
Shipped = tuple[Any, ...]


@dataclass(frozen=True)
class RunTask:
    """What a worker receives for one run of the grid (besides its shipped input files)."""

    name: str
    key: str
    spec: RunSpec  # the client's: its workload, platform and prefix are the client's paths
    params: dict[str, Any] = field(default_factory=dict, hash=False)
    shared_fs: bool = False
    pin_cpus: bool = False
    analyse: Analysis | None = None
    analysis_id: str | None = None


_INPUTS: dict[str, str] = {}  # sha256 -> local path, per worker process


def _worker_folder() -> Path:
    try:
        from distributed import get_worker

        return Path(get_worker().local_directory)
    except (ImportError, ValueError):
        return Path(tempfile.gettempdir())


def materialise(data: Shipped) -> Any:
    """An input on the worker: ``("path", PATH)`` and ``("value", HOSTS)`` as they are,
    ``("data", SHA, GZ, SUFFIX)`` written once."""
    if data[0] in ("path", "value"):
        return data[1]
    _, sha, payload, suffix = data
    path = _INPUTS.get(sha)
    if path is None or not os.path.isfile(path):
        import gzip

        folder = _worker_folder() / "adaptsched-inputs"
        folder.mkdir(parents=True, exist_ok=True)
        path = str(folder / f"{sha[:20]}{suffix}")
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "wb") as f:
            f.write(gzip.decompress(payload))
        os.replace(tmp, path)
        _INPUTS[sha] = path
    return path


def pack(prefix: Path) -> bytes:
    """A run's outputs (:data:`OUTPUT_SUFFIXES`) as one gzip-compressed tar."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=6) as tar:
        for suffix in OUTPUT_SUFFIXES:
            path = Path(f"{prefix}{suffix}")
            if path.is_file():
                tar.add(path, arcname=path.name)
    return buffer.getvalue()


def unpack(payload: bytes, folder: Path, name: str) -> int:
    """Writes a run's outputs under ``folder``; only ``NAME_*`` regular files are accepted."""
    with tarfile.open(fileobj=io.BytesIO(payload), mode="r:gz") as tar:
        for member in tar.getmembers():
            if not member.isfile() or "/" in member.name or not member.name.startswith(f"{name}_"):
                continue
            extracted = tar.extractfile(member)
            if extracted is None:
                continue
            target = folder / member.name
            tmp = target.with_name(target.name + ".part")
            tmp.write_bytes(extracted.read())
            tmp.replace(target)
    return len(payload)


def _cpu_of_worker() -> int | None:
    """LocalCluster workers are named 0, 1...: worker i runs on the i-th CPU (``pin_cpus``)."""
    try:
        from distributed import get_worker

        index = int(get_worker().name)
        cpus = sorted(os.sched_getaffinity(0))
    except (ImportError, ValueError, TypeError, AttributeError, OSError):
        return None
    return cpus[index % len(cpus)] if cpus else None


def execute(task: RunTask, workload: Shipped, platform: Shipped) -> dict[str, Any]:
    """One run on a worker (module-level: Dask pickles it by reference). Never raises for
    a failed run: returns ``{"ok": False, "error", "log_tail", "outputs"}`` instead."""
    begin = time.perf_counter()
    scratch = None
    if task.shared_fs:
        prefix = Path(task.spec.prefix)
    else:
        scratch = Path(tempfile.mkdtemp(prefix="adaptsched-run-", dir=_worker_folder()))
        prefix = scratch / task.name
    try:
        spec = replace(
            task.spec,
            workload=materialise(workload),
            platform=materialise(platform),
            prefix=str(prefix),
            progress=False,
        ).with_plugin_in(_worker_folder() / "adaptsched-plugins")  # a plugin file travels by its contents
        out = _run_and_analyse(task, spec)
        outputs = None if task.shared_fs else pack(prefix)
        out["task_s"] = time.perf_counter() - begin
        return {"ok": True, "result": out, "outputs": outputs}
    except Exception as error:  # reported by the client, with the run's last log lines
        return _failure(task, prefix, error)
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)


def _run_and_analyse(task: RunTask, spec: RunSpec) -> dict[str, Any]:
    """Runs the spec (pinned to this worker's CPU with ``pin_cpus``), then its analysis; the
    run's result dict."""
    from adaptsched.engines.run import run

    cpu = _cpu_of_worker() if task.pin_cpus else None
    affinity = None
    if cpu is not None:
        affinity = os.sched_getaffinity(0)
        os.sched_setaffinity(0, {cpu})  # run() pins its engine and scheduler to this CPU
    try:
        result = run(replace(spec, pin_cpu=cpu is not None), say=lambda *a: None)
    finally:
        if affinity is not None:
            os.sched_setaffinity(0, affinity)
    options = spec.options.values()
    analysed = time.perf_counter()
    out = task.analyse(spec.prefix, options, spec.workload) if task.analyse is not None else {}
    out.update(
        {
            "name": task.name,
            "key": task.key,
            "scheduler": spec.scheduler,
            "options": options,
            "engine": spec.engine,
            "wall_s": result.wall_s,
            "nb_jobs": result.nb_jobs,
            "nb_hosts": result.nb_hosts,
            "notes": result.notes,
            "host": socket.gethostname(),
            "adaptsched_version": __version__,
            "analysis": task.analysis_id,
            "params": task.params,
            "analysis_s": time.perf_counter() - analysed,
        }
    )
    return out


def _failure(task: RunTask, prefix: Path, error: Exception) -> dict[str, Any]:
    from adaptsched.engines.process import tail

    detail = "".join(traceback.format_exception_only(type(error), error)).strip()
    logs = [Path(f"{prefix}{s}") for s in ("_sched.log", "_batsim.log")]
    log_tail = "\n".join(f"  {p.name}:\n{tail(p, LOG_LINES)}" for p in logs if p.is_file())
    outputs = None
    if not task.shared_fs:
        try:
            outputs = pack(prefix)
        except OSError:
            pass
    return {"ok": False, "error": detail, "log_tail": log_tail, "outputs": outputs, "host": socket.gethostname()}
