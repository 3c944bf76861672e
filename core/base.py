"""The interface every pure-Python scheduler implements, and its bookkeeping.

A scheduler is told about arrivals (:meth:`OnlineScheduler.submit`) and
completions (:meth:`OnlineScheduler.complete`) and, once per batch of
simultaneous events, decides (:meth:`OnlineScheduler.schedule`): jobs to start
on given hosts, jobs to reject, metadata to record, a time to be called back.
It needs neither ZeroMQ nor a simulator: the pybatsim plugins
(``adaptsched.schedulers``) are thin adapters over it, and what-if simulations
(``adaptsched.core.replay``) drive it directly.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sortedcontainers import SortedKeyList

from adaptsched.core.hosts import HostPool
from adaptsched.core.queue import WaitingQueue

INF = float("inf")


class Job:
    """What a scheduler knows of a job: its request, not its true runtime."""

    __slots__ = ("fields", "id", "res", "submit_s", "walltime_s")

    def __init__(self, id: str, submit_s: float, res: int, walltime_s: float, fields: dict | None = None):
        self.id = id
        self.submit_s = submit_s
        self.res = res
        self.walltime_s = walltime_s if walltime_s > 0 else INF  # Batsim's -1: no walltime
        self.fields = fields or {}

    def __repr__(self):
        return f"Job({self.id!r}, submit={self.submit_s:g}, res={self.res}, walltime={self.walltime_s:g})"


class Running:
    """A started job, or copy of a job: its hosts and its expected end.

    ``exec_id`` is what Batsim executes (the job, or a copy ``ID#N``), ``kind`` is
    "regular" for the job itself; a copy's expected end is when it will be killed.
    """

    __slots__ = ("end_s", "exec_id", "hosts", "job", "kind", "start_s")

    def __init__(
        self,
        job: Job,
        start_s: float,
        hosts: list,
        *,
        end_s: float | None = None,
        exec_id: str | None = None,
        kind: str = "regular",
    ):
        self.job = job
        self.start_s = start_s
        self.end_s = start_s + job.walltime_s if end_s is None else end_s
        self.hosts = hosts
        self.exec_id = job.id if exec_id is None else exec_id
        self.kind = kind

    @property
    def res(self) -> int:
        return len(self.hosts)


@dataclass
class Launch:
    """A copy of a job to register and execute (a speculative run, a test run, a resized job).

    The copy ``copy_id`` (``WORKLOAD!NAME#N``, as pybatsim's ``resubmit_job`` names
    them) has the original's submission time, ``res`` hosts, and a profile whose
    runtime is the original's times ``scale``; its metadata links it to its parent.
    """

    copy_id: str
    parent_id: str
    res: int
    walltime_s: float
    hosts: list
    kind: str  # "speculative", "test", "resized" or "molded"
    scale: float = 1.0
    runtime_s: float | None = None  # if set, the copy's exact runtime (a profile of its own)


@dataclass
class Decisions:
    starts: list = field(default_factory=list)  # (job id, host ids)
    launches: list = field(default_factory=list)  # Launch
    kills: list = field(default_factory=list)  # ids of running jobs or copies
    rejects: list = field(default_factory=list)  # job ids
    metadata: dict = field(default_factory=dict)  # job id -> dict
    wake_ups: list = field(default_factory=list)  # CALL_ME_LATER times

    def __bool__(self):
        return bool(self.starts or self.launches or self.kills or self.rejects or self.metadata or self.wake_ups)


class OnlineScheduler:
    """Waiting queue (in the chosen order), running jobs and host pool.

    Subclasses implement :meth:`plan`, which fills a :class:`Decisions` through
    :meth:`start`. Jobs wider than the machine (or asking for no host) are
    rejected on arrival.
    """

    name = "base"
    options: dict = {"order": ("fcfs", "queue order (adaptsched.core.queue)")}  # name -> (default, help)

    @classmethod
    def needs_dynamic_jobs(cls, options: dict) -> bool:
        """Whether these options register job copies (Batsim's --enable-dynamic-jobs)."""
        return False

    def __init__(self, nb_hosts: int, *, order: str = "fcfs"):
        self.nb_hosts = nb_hosts
        self.pool = HostPool(nb_hosts)
        self.queue = WaitingQueue(order)
        self.running = {}  # executed id (job or copy) -> Running
        self._rejects = []
        self._copies = {}  # job id -> number of copies launched

    # -- events -----------------------------------------------------------------
    def submit(self, job: Job, now: float):
        if job.res > self.nb_hosts or job.res <= 0:
            self._rejects.append(job.id)
            return
        self.queue.push(job)
        self.on_submit(job, now)

    def complete(self, job_id: str, now: float, state: str = "COMPLETED_SUCCESSFULLY"):
        """A job (or copy) ended; ``state`` is Batsim's final state."""
        running = self.running.pop(job_id, None)
        if running is None:
            return  # not ours (e.g. a killed job reported twice)
        self.pool.release(running.hosts)
        self.on_complete(running, now, state)

    def idle(self) -> bool:
        """Nothing waits and nothing runs."""
        return not len(self.queue) and not self.running

    def schedule(self, now: float) -> Decisions:
        decisions = Decisions(rejects=self._rejects)
        self._rejects = []
        self._decisions = decisions
        self.plan(now)
        return decisions

    # -- for subclasses -----------------------------------------------------------
    def on_submit(self, job: Job, now: float):
        pass

    def on_complete(self, running: Running, now: float, state: str):
        pass

    def plan(self, now: float):
        raise NotImplementedError

    def start(self, job: Job, now: float, hosts: list | None = None, planned_s: float | None = None) -> Running:
        """Starts a waiting job on ``hosts`` (allocated from the pool if None).

        ``planned_s``: where the job's interval begins in a planning profile, if the
        caller's plan placed it a hair away from ``now`` (subclasses may need it).
        """
        if hosts is None:
            hosts = self.pool.allocate(job.res)
        running = self.running[job.id] = Running(job, now, hosts)
        self._decisions.starts.append((job.id, hosts))
        return running

    def record(self, job: Job, **values):
        """Metadata for the job's row of ``_jobs.csv`` (merged with earlier values)."""
        self._decisions.metadata.setdefault(job.id, {}).update(values)

    def scale_of(self, job: Job) -> float:
        """The job's runtime relative to its submitted shape (adaptation changes it)."""
        return 1.0

    def launch(
        self,
        job: Job,
        now: float,
        *,
        kind: str,
        end_s: float,
        hosts: list | None = None,
        runtime_s: float | None = None,
    ) -> Running:
        """Starts a copy of a job on ``job.res`` hosts until ``end_s`` (when it would be killed).

        The copy runs the job's current shape: ``job.walltime_s`` and ``scale_of(job)``
        (its runtime is the original's times the scale, unless ``runtime_s`` gives it);
        ``hosts`` are allocated from the pool if None.
        """
        self._copies[job.id] = count = self._copies.get(job.id, 0) + 1
        copy_id = f"{job.id}#{count}"
        if hosts is None:
            hosts = self.pool.allocate(job.res)
        running = self.running[copy_id] = Running(job, now, hosts, end_s=end_s, exec_id=copy_id, kind=kind)
        self._decisions.launches.append(
            Launch(copy_id, job.id, job.res, job.walltime_s, hosts, kind, self.scale_of(job), runtime_s)
        )
        return running

    def kill(self, running: Running):
        self._decisions.kills.append(running.exec_id)

    def reject(self, job: Job):
        """Rejects a waiting job (whose work a copy has done)."""
        self._decisions.rejects.append(job.id)


class ReservingScheduler(OnlineScheduler):
    """A scheduler that promises waiting jobs a start time (a reservation).

    Each job's first reservation is kept in ``first_reservation`` and, unless
    ``record_reservations`` is off, written in its metadata (``reservation_s``), so
    that the promise can be checked on any output trace: ``start <= reservation_s``.
    Running jobs are kept by expected end (``by_end``), which backfilling needs.
    """

    options = {
        "order": ("fcfs", "queue order (adaptsched.core.queue)"),
        "record_reservations": (True, "write each job's first reservation in its metadata"),
    }

    def __init__(self, nb_hosts: int, *, order: str = "fcfs", record_reservations: bool = True):
        super().__init__(nb_hosts, order=order)
        self.record_reservations = record_reservations
        self.first_reservation = {}  # job id -> its first reservation
        self.by_end = SortedKeyList(key=lambda r: r.end_s)  # running jobs by expected end

    def promise(self, job: Job, start_s: float):
        """Notes a reservation; only a job's first one is kept and recorded."""
        if job.id not in self.first_reservation:
            self.first_reservation[job.id] = start_s
            if self.record_reservations:
                self.record(job, reservation_s=start_s)

    def start(self, job: Job, now: float, hosts: list | None = None, planned_s: float | None = None) -> Running:
        running = super().start(job, now, hosts)
        self.by_end.add(running)
        return running

    def launch(self, job: Job, now: float, **kwargs) -> Running:
        running = super().launch(job, now, **kwargs)
        self.by_end.add(running)
        return running

    def complete(self, job_id: str, now: float, state: str = "COMPLETED_SUCCESSFULLY"):
        running = self.running.get(job_id)
        if running is not None:
            self.by_end.remove(running)
        super().complete(job_id, now, state)
