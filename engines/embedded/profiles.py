"""Job profiles other than ``delay``, executed as Batsim 4.2.1 does (``src/jobs_execution.cpp``,
``execute_task`` and ``do_delay_task``; ``src/task_execution.cpp``, ``execute_parallel_task``).

- ``parallel_homogeneous_total``: ``cpu / n`` flops on each of the ``n`` allocated hosts and
  ``com / n`` bytes from each host to each other one; ``parallel_homogeneous``: ``cpu`` flops on
  each host, ``com`` bytes between each pair; ``parallel``: the profile's ``cpu`` vector and
  ``com`` matrix, on exactly as many hosts. Each is one parallel task (SimGrid's ``exec_init``
  on all the hosts): on a platform with a network, engines/embedded/network.py runs it with
  SimGrid's ptask_L07 model (latency, shared links, the slowest host); on a network-less one
  it lasts its slowest host's ``flops / speed``. With a walltime, the job waits for it at most
  the time left, and what it waited is deducted from that time.
- ``composed``: its ``seq`` profiles one after the other, ``repeat`` times; a delay deducts its
  whole delay from the time left (``do_delay_task``), a parallel task the time it ran. The
  first sub-profile that fails, reaches the walltime or is killed ends the job with its code.

A job's execution is a tree of :class:`Task` (Batsim's ``BatTask``), which a kill reads for the
job's progress (``generate_task_tree``, ``src/protocol.cpp:337-365``) and cancels.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any, NoReturn, Protocol

from adaptsched.engines.embedded.jobs import JobRecord
from adaptsched.engines.embedded.kernel import EXEC_START, EXEC_WAIT, SLEEP, SLEEP_HOOKED, Kernel, Simcall
from adaptsched.platforms.simgrid import Platform
from adaptsched.workloads.batsim_json import Profile, Workload


class Engine(Protocol):
    """What a profile's execution needs of :class:`~adaptsched.engines.embedded.batsim.EmbeddedBatsim`."""

    kernel: Kernel
    platform: Platform
    speeds: list[float]
    power: Any  # the energy model (engines/embedded/pstates.py), or None

    def workload(self, name: str) -> Workload: ...

    def fail(self, message: str) -> NoReturn: ...


#: What executes a profile: a generator of simcalls that returns the job's return code.
Execution = Generator[Simcall, Any, int]

PARALLEL = ("parallel_homogeneous_total", "parallel_homogeneous", "parallel")


class Task:
    """Batsim's ``BatTask``: one profile's execution; a composed one has its sub-tasks."""

    __slots__ = ("delay_required", "delay_start", "exec_duration", "exec_start", "execution", "index", "profile", "sub")

    def __init__(self, profile: Profile, library: Callable[[str], Profile]) -> None:
        self.profile = profile
        self.index = -1  # the sub-task running (current_task_index)
        self.delay_start = -1.0
        self.delay_required = 0.0
        self.execution: Any = None  # the parallel task, once started (BatTask::ptask)
        self.exec_start = -1.0
        self.exec_duration = 0.0
        self.sub: list[Task] = []
        if profile.type == "composed":  # initialize_sequential_tasks: repeat x seq
            subs = [library(x) if isinstance(x, str) else x for x in profile.seq]
            self.sub = [Task(sub, library) for _ in range(profile.repeat) for sub in subs]


def run(engine: Engine, job: JobRecord, profile: Profile, hosts: Any, remaining: list[float]) -> Execution:
    """Executes a job's profile (a generator of simcalls); returns its return code: the
    profile's ``ret``, -1 (walltime reached) or -2 (killed). ``remaining``: [walltime left, or -1]."""
    workload = engine.workload(job.workload)

    def library(name: str) -> Profile:
        found: Profile | None = workload.profiles.get(name)
        if found is None:
            engine.fail(f"job '{job.id}': the composed profile '{profile.name}' uses profile '{name}', which is gone")
        return found

    job.task = Task(profile, library)
    return (yield from _execute(engine, job.task, hosts, remaining))


def _execute(engine: Engine, task: Task, hosts: Any, remaining: list[float]) -> Execution:
    profile = task.profile
    if profile.type == "delay":
        task.delay_start = engine.kernel.now
        task.delay_required = profile.delay
        hooks = None if engine.power is None else engine.power.delay_hooks(hosts)
        return profile.ret if (yield from _delay(profile.delay, remaining, hooks)) == 0 else -1
    if profile.type in PARALLEL:
        code = yield from _parallel(engine, task, hosts, remaining)
        return profile.ret if code == 0 else code
    for index, sub in enumerate(task.sub):  # composed
        task.index = index
        code = yield from _execute(engine, sub, hosts, remaining)
        if code != 0:
            return code
    return profile.ret


def _delay(sleep_s: float, remaining: list[float], hooks: Any = None) -> Execution:
    """``do_delay_task``: 0, or -1 when the walltime ends it. ``hooks``: the energy model's."""
    left = remaining[0]
    if left < 0 or sleep_s < left:
        yield (SLEEP, sleep_s) if hooks is None else (SLEEP_HOOKED, sleep_s, hooks)
        if left > 0:
            remaining[0] = left - sleep_s
        return 0
    yield (SLEEP, left) if hooks is None else (SLEEP_HOOKED, left, hooks)
    remaining[0] = 0.0
    return -1


def matrices(profile: Profile, n: int) -> tuple[list[float], list[float] | None]:
    """(flops per host, bytes from host i to host j at i * n + j, or None) of a parallel profile
    on ``n`` hosts (``task_execution.cpp:21-140``)."""
    if profile.type == "parallel":
        return list(profile.cpus), list(profile.coms)
    if profile.type == "parallel_homogeneous_total":
        cpu, com = profile.cpu / n, profile.com / n
    else:
        cpu, com = profile.cpu, profile.com
    nbytes = [0.0 if i // n == i % n else com for i in range(n * n)] if com > 0 else None
    return [cpu] * n, nbytes


def _parallel(engine: Engine, task: Task, hosts: Any, remaining: list[float]) -> Execution:
    """``execute_parallel_task``: 0, -1 (walltime) or -2 (cancelled by a kill)."""
    profile = task.profile
    ids = list(hosts)
    if profile.type == "parallel" and len(profile.cpus) != len(ids):
        engine.fail(
            f"profile '{profile.name}': the number of resources given by the allocation ({len(ids)}) is "
            f"different from the number of resources given by the profile data ({len(profile.cpus)})"
        )
    flops, nbytes = matrices(profile, len(ids))
    if len(ids) == 1:
        nbytes = None  # SimGrid runs a one-host task as a plain execution: no bytes (ExecImpl::start)
    speeds = engine.speeds
    duration = max((f / speeds[h] for f, h in zip(flops, ids) if f > 0), default=0.0)  # network-less platforms
    names = [engine.platform.compute_hosts[h].name for h in ids]
    kernel = engine.kernel
    task.exec_start = kernel.now
    task.exec_duration = duration
    if engine.power is None:
        execution = yield (EXEC_START, duration, (names, flops, nbytes))
    else:
        hooks = engine.power.exec_hooks(ids, flops)
        execution = yield (EXEC_START, duration, (names, flops, nbytes), hooks)
        hooks.started()
    task.execution = execution
    left, before = remaining[0], kernel.now
    outcome = yield (EXEC_WAIT, execution, left if left >= 0 else None)
    if left >= 0:
        remaining[0] = left - (kernel.now - before)
    return 0 if outcome == "done" else (-1 if outcome == "timeout" else -2)


def running_execution(task: Task | None) -> Any:
    """The parallel task a kill cancels (``cancel_ptask``), or None: then the job's actor is killed."""
    while task is not None:
        if task.execution is not None:
            return task.execution
        task = task.sub[task.index] if task.sub and task.index >= 0 else None
    return None


def release(task: Task | None) -> None:
    """A deleted job's parallel tasks stop, if one still runs (a walltime's: see network.py)."""
    if task is None:
        return
    if task.execution is not None and not task.execution.done:
        task.execution.cancelled = True
        if task.execution.hooks is not None:  # its hosts' energy, charged at its load (U3)
            hooks, task.execution.hooks = task.execution.hooks, None
            hooks.on_end(task.execution)
    for sub in task.sub:
        release(sub)


def progress(task: Task, now: float) -> dict[str, Any]:
    """The job's progress as Batsim reports it in JOB_KILLED (``generate_task_tree``)."""
    name = task.profile.name
    if task.execution is not None:
        execution = task.execution
        if hasattr(execution, "remains"):  # SimGrid's L07 action: 1 - remaining ratio
            ratio = 1.0 - execution.remains
        else:
            ratio = (now - task.exec_start) / task.exec_duration if task.exec_duration > 0 else 1.0
        return {"profile_name": name, "progress": float(ratio)}
    if task.delay_start != -1:
        ratio = 1.0 if task.delay_required == 0 else (now - task.delay_start) / task.delay_required
        return {"profile_name": name, "progress": float(ratio)}
    if task.index < 0:
        return {"profile_name": name, "current_task_index": -1}
    return {"profile_name": name, "current_task_index": task.index, "current_task": progress(task.sub[task.index], now)}


def moldable(profile: Profile) -> bool:
    """Whether a job may run on another number of hosts than it requests (``server.cpp:1010-1026``):
    a ``parallel_homogeneous_total`` profile, or a composed one made of those only."""
    if profile.type == "parallel_homogeneous_total":
        return True
    return profile.type == "composed" and all(
        not isinstance(sub, str) and sub.type == "parallel_homogeneous_total" for sub in profile.seq
    )
