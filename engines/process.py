"""The pybatsim scheduler process and the ZeroMQ link to it, shared by both engines.

The scheduler runs in a child process started with pybatsim's own launcher
(``python -m batsim.cmds.launcher``, i.e. the ``pybatsim`` command) exactly as a
user would start it by hand, so any pybatsim plugin works unchanged. Its socket
is bound to a private ``ipc://`` endpoint in a fresh temporary directory: nothing
listens on a network interface and parallel runs never collide on ports
(pybatsim's default ``tcp://*:28000`` would listen on every interface).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import deque
from pathlib import Path
from typing import IO, Any

import zmq

from adaptsched.errors import NO_ANSWER, SimulationError


def tail(path: str | Path, lines: int = 12) -> str:
    """The last lines of a log file, indented, for error messages: Python tracebacks are left
    out but for their last line, the exception (the log keeps them whole)."""
    try:
        with open(path, errors="replace") as log:
            last = deque(log, maxlen=lines + 400)
    except OSError:
        return "    (no log)"
    kept, removed = without_tracebacks([line.rstrip() for line in last])
    text = "\n".join(kept[-lines:]).strip("\n")
    if not text:
        return "    (empty log)"
    note = f"\n    (the traceback is in {path})" if removed else ""
    return "\n".join("    " + line for line in text.splitlines()) + note


_CHAINED = ("During handling of the above exception", "The above exception was the direct cause")


def without_tracebacks(lines: list[str]) -> tuple[list[str], bool]:
    """``lines`` without Python's tracebacks, each but its exception line; and whether any was."""
    kept: list[str] = []
    inside = removed = False
    for line in lines:
        bare = line.strip()
        if bare.startswith("Traceback (most recent call last):"):
            inside = removed = True
            continue
        if inside:
            if not bare or line[:1] in (" ", "\t") or bare.startswith(_CHAINED):
                continue
            inside = False
        elif bare.startswith(_CHAINED) or (kept and not bare and removed):
            continue
        kept.append(line)
    return kept, removed


def pick_cpu() -> int | None:
    """One CPU of this process's affinity set, spread over processes by pid."""
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return None
    return cpus[os.getpid() % len(cpus)] if cpus else None


def pin(pid: int, cpu: int | None) -> None:
    """Binds a process (and its threads created later) to one CPU; best effort.

    Batsim's protocol is a strict request-reply exchange, so the engine and the
    scheduler never compute at the same time: on one CPU each hand-over avoids a
    cross-CPU wake-up (measured: 51 us per round trip instead of 129 us).
    """
    if cpu is None:
        return
    try:
        os.sched_setaffinity(pid, {cpu})
    except (AttributeError, OSError):
        pass


class Endpoint:
    """A private ``ipc://`` endpoint in its own temporary directory."""

    def __init__(self) -> None:
        self.directory = tempfile.mkdtemp(prefix="adaptsched-")
        self.url = f"ipc://{self.directory}/scheduler.sock"

    def close(self) -> None:
        shutil.rmtree(self.directory, ignore_errors=True)


class SchedulerProcess:
    """A pybatsim scheduler (plugin name or ``.py`` path) in a child process."""

    def __init__(
        self,
        scheduler: str,
        options: dict[str, Any],
        endpoint: Endpoint,
        log_path: str | Path,
        *,
        verbosity: str = "warning",
        fixed_addresses: bool = False,
        cpu: int | None = None,
    ):
        self.scheduler = scheduler
        self.options = options
        self.endpoint = endpoint
        self.log_path = Path(log_path)
        self.command = [
            sys.executable,
            "-m",
            "batsim.cmds.launcher",
            scheduler,
            "-s",
            endpoint.url,
            "-t",
            "0",
            "-v",
            verbosity,
            "-o",
            json.dumps(options),
        ]
        if fixed_addresses:
            # Some schedulers iterate over sets of objects hashed by address (pybatsim's
            # fillerSched): without address randomisation their choices are reproducible.
            setarch = shutil.which("setarch")
            if setarch is None:
                raise SimulationError("fixed_addresses needs the 'setarch' command (util-linux)")
            self.command = [setarch, os.uname().machine, "-R"] + self.command
        self.cpu = cpu
        self.process: subprocess.Popen[bytes] | None = None
        self._log: IO[str] | None = None

    def start(self) -> SchedulerProcess:
        self._log = open(self.log_path, "w")
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        # A neutral working directory: ``python -m`` puts it first on sys.path, and a
        # folder named ``schedulers`` there (our repository root) would shadow pybatsim's.
        self.process = subprocess.Popen(
            self.command,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
            cwd=self.endpoint.directory,
        )
        if self.cpu is not None:
            pin(self.process.pid, self.cpu)
        return self

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def wait(self, timeout: float | None = None) -> int:
        """The process's exit code, once it ends (killed after ``timeout`` seconds)."""
        process = self.process
        if process is None:
            raise SimulationError(f"the scheduler process ({self.scheduler}) was never started")
        try:
            return process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            return process.wait()

    def kill(self) -> None:
        process = self.process
        if process is not None and process.poll() is None:
            process.kill()
            process.wait()

    def close(self) -> None:
        self.kill()
        if self._log is not None:
            self._log.close()

    def describe_failure(self) -> str:
        code = self.process.poll() if self.process else None
        state = "is still running" if code is None else f"exited with code {code}"
        return (
            f"the scheduler process ({self.scheduler}) {state}; last lines of {self.log_path}:\n{tail(self.log_path)}"
        )


class Connection:
    """Batsim's side of the protocol: a REQ socket that sends and waits for the reply.

    While waiting it checks every ``poll_s`` seconds that the scheduler is alive, so
    a crashed scheduler stops the run with its last log lines instead of a hang.
    """

    def __init__(self, process: SchedulerProcess, *, poll_s: float = 0.2, timeout_s: float | None = None):
        self.process = process
        self.poll_ms = int(poll_s * 1000)
        self.timeout_s = timeout_s
        self.context = zmq.Context()
        self.socket = self.context.socket(zmq.REQ)
        self.socket.setsockopt(zmq.LINGER, 0)
        self.socket.setsockopt(zmq.RCVTIMEO, self.poll_ms)
        self.socket.connect(process.endpoint.url)
        self.exchanges = 0

    def exchange(self, message: str) -> str:
        socket = self.socket
        socket.send_string(message)
        waited = 0.0
        while True:
            try:
                reply = socket.recv_string()  # waits at most poll_s (RCVTIMEO)
                break
            except zmq.Again:
                if not self.process.alive():
                    raise SimulationError(
                        "the scheduler stopped answering: " + self.process.describe_failure()
                    ) from None
                waited += self.poll_ms / 1000
                # the first answer also waits for pybatsim to start: no timeout on it
                if self.timeout_s is not None and self.exchanges > 0 and waited > self.timeout_s:
                    raise SimulationError(
                        f"the scheduler {NO_ANSWER} {self.timeout_s:g} s: " + self.process.describe_failure()
                    ) from None
        self.exchanges += 1
        return reply

    def close(self) -> None:
        self.socket.close(0)
        self.context.term()
