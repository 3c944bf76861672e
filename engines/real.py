"""Runs real Batsim (4.2.x, C++/SimGrid) against a pybatsim scheduler process.

Batsim is found, in this order: the ``batsim`` argument, the ``BATSIM``
environment variable, ``batsim`` on PATH, and the shared build kit's install
prefix ``/opt/batsim/bin/batsim``. Both processes talk over a private ``ipc://``
endpoint, so parallel runs never collide. If either process fails, the other is
stopped and the error shows the last lines of both logs (``PREFIX_batsim.log``,
``PREFIX_sched.log``). Batsim writes its outputs under the export prefix it is given: a run gives
it one whose files end under their partial names (:func:`adaptsched.engines.run.partial.batsim_outputs`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from adaptsched.engines.transports.process import SchedulerProcess, pin, tail
from adaptsched.errors import SimulationError

BUILD_KIT_PREFIX = Path("/opt/batsim/bin/batsim")


def find_batsim(explicit: str | None = None) -> str | None:
    """Path of the Batsim executable, or None when none is installed."""
    for candidate in (explicit, os.environ.get("BATSIM")):
        if candidate:
            path = shutil.which(candidate) or (candidate if Path(candidate).is_file() else None)
            if path is None:
                raise SimulationError(
                    f"Batsim executable {candidate!r} (--batsim or $BATSIM) not found; docs/getting-started.md "
                    "says how to install Batsim 4.2.x"
                )
            return path
    found = shutil.which("batsim")
    if found:
        return found
    return str(BUILD_KIT_PREFIX) if BUILD_KIT_PREFIX.is_file() else None


def batsim_version(batsim: str) -> str:
    result = subprocess.run([batsim, "--version"], capture_output=True, text=True, timeout=30)
    return result.stdout.strip() or result.stderr.strip()


def run_batsim(
    batsim: str,
    platform: str | Path,
    workload: str | Path,
    export_prefix: str,
    scheduler: SchedulerProcess,
    *,
    log_path: str,
    dynamic_jobs: bool = False,
    ack_dynamic_jobs: bool = False,
    profile_reuse: bool = False,
    progress: Callable[[int], None] | None = None,
    poll_s: float = 0.2,
    schedule_trace: bool = False,
    energy: bool = False,
) -> float:
    """Runs one simulation; returns its wall time. ``scheduler`` is a started SchedulerProcess;
    Batsim runs on its CPU (if it has one) and writes its log to ``log_path``.

    Batsim writes ``EXPORT_PREFIX_jobs.csv``, ``EXPORT_PREFIX_schedule.csv``,
    ``EXPORT_PREFIX_machine_states.csv`` (as the embedded engine does) and, with
    ``schedule_trace``, its Pajé trace ``EXPORT_PREFIX_schedule.trace`` (large: off by default);
    with ``energy`` (``-E``), its energy model's ``EXPORT_PREFIX_consumed_energy.csv`` and
    ``EXPORT_PREFIX_pstate_changes.csv``.
    """
    command = [
        batsim,
        "-p",
        str(platform),
        "-w",
        str(workload),
        "-e",
        export_prefix,
        "-s",
        scheduler.endpoint.url,
        "-q",
    ]
    if not schedule_trace:
        command.append("--disable-schedule-tracing")
    if dynamic_jobs:
        command.append("--enable-dynamic-jobs")
    if ack_dynamic_jobs:
        command.append("--acknowledge-dynamic-jobs")
    if profile_reuse:
        command.append("--enable-profile-reuse")
    if energy:
        command.append("--energy")
    jobs_csv = Path(f"{export_prefix}_jobs.csv")
    start = time.perf_counter()
    with open(log_path, "w") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        _watch(process, scheduler, log_path, jobs_csv, progress, poll_s)
        if progress is not None and jobs_csv.exists():
            progress(_count_rows(jobs_csv))
    if process.returncode != 0:
        scheduler.kill()
        raise SimulationError(
            f"real Batsim failed with code {process.returncode}; last lines of {log_path}:\n"
            f"{tail(log_path)}\nscheduler log {scheduler.log_path}:\n{tail(scheduler.log_path)}"
        )
    return time.perf_counter() - start


#: Seconds real Batsim may go on after its scheduler exited with code 0. pybatsim exits right
#: after its last reply, while Batsim may still be ending the simulation and writing its outputs;
#: a Batsim still running after this waits for a reply from a scheduler that ended too early.
END_GRACE_S = 30.0


def _watch(
    process: subprocess.Popen[bytes],
    scheduler: SchedulerProcess,
    log_path: str,
    jobs_csv: Path,
    progress: Callable[[int], None] | None,
    poll_s: float,
) -> None:
    """Batsim's process beside its scheduler's until Batsim ends: on the scheduler's CPU (if it
    has one), stopped if the scheduler dies (or on any error here), its progress shown. A
    scheduler that exits with code 0 has most likely answered for the last time: Batsim is
    given :data:`END_GRACE_S` to end by itself (stopping it then would lose what it was writing)."""
    ended_s: float | None = None  # when the scheduler was first seen exited with code 0
    try:
        pin(process.pid, scheduler.cpu)
        while process.poll() is None:
            if not scheduler.alive():
                code = scheduler.process.poll() if scheduler.process is not None else None
                if code == 0:
                    ended_s = time.monotonic() if ended_s is None else ended_s
                    stop = time.monotonic() - ended_s > END_GRACE_S
                else:
                    stop = True
                if stop:
                    process.kill()
                    process.wait()
                    waited = f"; real Batsim had not ended {END_GRACE_S:g} s later" if code == 0 else ""
                    raise SimulationError(
                        "real Batsim stopped: "
                        + scheduler.describe_failure()
                        + waited
                        + f"\nlast lines of {log_path}:\n{tail(log_path)}"
                    )
            if progress is not None and jobs_csv.exists():
                progress(_count_rows(jobs_csv))
            time.sleep(poll_s)
    except BaseException:
        if process.poll() is None:
            process.kill()
            process.wait()
        raise


def _count_rows(path: Path) -> int:
    with open(path, "rb") as handle:
        return max(sum(chunk.count(b"\n") for chunk in iter(lambda: handle.read(1 << 20), b"")) - 1, 0)
