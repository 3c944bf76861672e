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
from typing import Any, ClassVar

from mypy_extensions import mypyc_attr
from sortedcontainers import SortedKeyList

from adaptsched.core import options as opt
from adaptsched.core.hosts import HostPool, as_interval_set
from adaptsched.core.intervals import IntervalSet
from adaptsched.core.job import Job as Job  # re-exported: a scheduler's interface names it
from adaptsched.core.options import Options
from adaptsched.core.queue import ORDERS, WaitingQueue
from adaptsched.core.speedup import SpeedupModel


class Running:
    """A started job, or copy of a job: its hosts and its expected end.

    ``exec_id`` is what Batsim executes (the job, or a copy ``ID#N``), ``kind`` is
    "regular" for the job itself; a copy's expected end is when it will be killed.

    >>> r = Running(Job("w0!1", 0.0, 2, 60.0), start_s=5.0, hosts=IntervalSet([(0, 1)]))
    >>> r.end_s, r.res, r.exec_id, r.kind
    (65.0, 2, 'w0!1', 'regular')
    """

    __slots__ = ("end_s", "exec_id", "hosts", "job", "kind", "start_s")

    def __init__(
        self,
        job: Job,
        start_s: float,
        hosts: IntervalSet,
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
    hosts: IntervalSet
    kind: str  # "speculative", "test", "resized" or "molded"
    scale: float = 1.0
    runtime_s: float | None = None  # if set, the copy's exact runtime (a profile of its own)
    metadata: dict[str, Any] | None = None  # more metadata of the copy, beside its link to its parent


@dataclass
class Decisions:
    """What one scheduling pass decided (:meth:`OnlineScheduler.schedule` returns it; the
    adapter sends it to Batsim): jobs started on hosts, copies launched, kills, rejects,
    metadata, wake-ups. Empty decisions are false.

    >>> d = Decisions(starts=[("w0!1", IntervalSet([(0, 3)]))], wake_ups=[120.0])
    >>> bool(d), bool(Decisions()), list(d.starts[0][1])
    (True, False, [0, 1, 2, 3])
    """

    starts: list[tuple[str, IntervalSet]] = field(default_factory=list)  # (job id, its hosts)
    launches: list[Launch] = field(default_factory=list)
    kills: list[str] = field(default_factory=list)  # ids of running jobs or copies
    rejects: list[str] = field(default_factory=list)  # job ids
    metadata: dict[str, dict[str, Any]] = field(default_factory=dict)  # job id -> values
    wake_ups: list[float] = field(default_factory=list)  # CALL_ME_LATER times

    def __bool__(self) -> bool:
        return bool(self.starts or self.launches or self.kills or self.rejects or self.metadata or self.wake_ups)


@dataclass(frozen=True)
class QueueOptions(Options):  # named directly: mypyc creates a class based on opt.Options before it loads opt
    """Options of a scheduler whose waiting queue has a chosen order (a base for one's own).

    >>> QueueOptions.parse({"order": "sjf"})
    QueueOptions(order='sjf')
    >>> [(spec.name, spec.default) for spec in QueueOptions.specs()]
    [('order', 'fcfs')]
    """

    order: str = opt.option("fcfs", "queue order (adaptsched.core.queue)", choices=tuple(ORDERS))


@dataclass(frozen=True)
class ReservingOptions(QueueOptions):
    """Options of a scheduler that promises start times (:class:`ReservingScheduler`).

    >>> options = ReservingOptions(order="saf", record_reservations=False)
    >>> options.changed()
    {'order': 'saf', 'record_reservations': False}
    """

    record_reservations: bool = opt.option(True, "write each job's first reservation in its metadata")


@mypyc_attr(allow_interpreted_subclasses=True)  # a researcher's own scheduler may extend it
class OnlineScheduler:
    """Waiting queue (in the chosen order), running jobs and host pool.

    Subclasses implement :meth:`plan`, which fills a :class:`Decisions` through
    :meth:`start`. Jobs wider than the machine (or asking for no host) are
    rejected on arrival.

    >>> class Fifo(OnlineScheduler):  # starts waiting jobs in order while they fit
    ...     def plan(self, now):
    ...         while len(self.queue) and self.queue[0].res <= self.pool.nb_free:
    ...             job = self.queue[0]; self.start(job, now); self.queue.remove_all([job])
    >>> s = Fifo(4); s.submit(Job("w0!1", 0.0, 3, 60.0), now=0.0); s.schedule(0.0).starts
    [('w0!1', IntervalSet([(0, 2)]))]
    """

    name: ClassVar[str] = "base"
    #: The scheduler's options (a frozen dataclass of :mod:`adaptsched.core.options`).
    Options: ClassVar[type[opt.Options]] = opt.Options
    options: opt.Options

    def __init__(self, nb_hosts: int, options: opt.Options | None = None, **values: Any):
        """``options``: already parsed (the engine parses a run's options once and hands them
        on); otherwise ``values`` by name, checked here."""
        self.nb_hosts = nb_hosts
        if options is None:
            options = self.Options.parse(values)
        elif values or not isinstance(options, self.Options):
            raise TypeError(f"{type(self).__name__}: options must be one {self.Options.__name__} or values by name")
        self.options = options
        self.pool = HostPool(nb_hosts)
        self.queue = WaitingQueue(self.queue_order())
        self.running: dict[str, Running] = {}  # executed id (job or copy) -> Running
        self._rejects: list[str] = []
        self._copies: dict[str, int] = {}  # job id -> number of copies launched
        self._decisions = Decisions()

    def queue_order(self) -> str:
        """The waiting queue's order (:mod:`adaptsched.core.queue`); arrival order by default."""
        return "fcfs"

    # -- events -----------------------------------------------------------------
    def submit(self, job: Job, now: float) -> None:
        if job.res > self.nb_hosts or job.res <= 0:
            self._rejects.append(job.id)
            return
        self.queue.push(job)
        self.on_submit(job, now)

    def complete(self, job_id: str, now: float, state: str = "COMPLETED_SUCCESSFULLY") -> None:
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
        """Runs :meth:`plan` and returns the decisions of this pass, with those made since the
        last pass (metadata :meth:`record` ed, or a :meth:`wake_up` asked, in :meth:`on_submit`
        or :meth:`on_complete`), the jobs too wide for the machine rejected first."""
        decisions = self._decisions
        decisions.rejects[:0] = self._rejects
        self._rejects = []
        self.plan(now)
        self._decisions = Decisions()
        return decisions

    # -- for subclasses -----------------------------------------------------------
    def on_submit(self, job: Job, now: float) -> None:
        pass

    def on_complete(self, running: Running, now: float, state: str) -> None:
        pass

    def plan(self, now: float) -> None:
        raise NotImplementedError

    def track(self, running: Running) -> None:
        """A job or copy now runs (:meth:`start`, :meth:`launch`, :meth:`assume_running`): the one
        place a subclass indexes it."""

    def start(self, job: Job, now: float, hosts: IntervalSet | list[int] | None = None) -> Running:
        """Starts a waiting job on ``hosts`` (allocated from the pool if None)."""
        allocated = self.pool.allocate(job.res) if hosts is None else as_interval_set(hosts)
        running = self.running[job.id] = Running(job, now, allocated)
        self._decisions.starts.append((job.id, allocated))
        self.track(running)
        return running

    def record(self, job: Job, **values: Any) -> None:
        """Metadata for the job's row of ``_jobs.csv`` (merged with earlier values)."""
        self._decisions.metadata.setdefault(job.id, {}).update(values)

    def launch(
        self,
        job: Job,
        now: float,
        *,
        kind: str,
        end_s: float,
        hosts: IntervalSet | list[int] | None = None,
        scale: float = 1.0,
        runtime_s: float | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Running:
        """Starts a copy of a job on ``job.res`` hosts until ``end_s`` (when it would be killed).

        The copy runs the job's current shape, ``job.res`` hosts and ``job.walltime_s``; its
        runtime is the original's times ``scale``, unless ``runtime_s`` gives it; ``hosts``
        are allocated from the pool if None; ``metadata`` joins its link to its parent.
        """
        self._copies[job.id] = count = self._copies.get(job.id, 0) + 1
        copy_id = f"{job.id}#{count}"
        allocated = self.pool.allocate(job.res) if hosts is None else as_interval_set(hosts)
        running = self.running[copy_id] = Running(job, now, allocated, end_s=end_s, exec_id=copy_id, kind=kind)
        self._decisions.launches.append(
            Launch(copy_id, job.id, job.res, job.walltime_s, allocated, kind, scale, runtime_s, metadata)
        )
        self.track(running)
        return running

    def mold(self, job: Job, now: float, n: int, *, scale: float, runtime_s: float) -> Running:
        """Runs a moldable job on ``n`` hosts: a copy of kind "molded" that runs ``runtime_s``
        seconds (its walltime scaled by ``scale``, its runtime relative to the submitted
        shape); the original is rejected. The analysis folds the copy back onto the job."""
        job.res, job.walltime_s = n, job.walltime_s * scale
        running = self.launch(job, now, kind="molded", end_s=now + job.walltime_s, scale=scale, runtime_s=runtime_s)
        self.reject(job)
        return running

    def start_sized(
        self, job: Job, now: float, n: int, model: SpeedupModel, *, runtime_s: float | None = None
    ) -> Running:
        """Starts a waiting moldable job on ``n`` hosts, ``model`` being its speedup.

        At its request, the job itself runs. A job of linear speedup (``moldable`` model
        ``linear``) whose profile is ``parallel_homogeneous_total`` runs itself on n hosts:
        Batsim spreads its flops over them (metadata ``molded`` = n). Otherwise a copy of kind
        "molded" runs ``model.runtime(n)`` seconds, with ``scale`` = S(request) / S(n), and the
        original is rejected (:meth:`mold`); the analysis folds it back. ``runtime_s`` overrides
        the copy's runtime (e.g. rounded to the microsecond)."""
        requested = job.res
        if n == requested:
            return self.start(job, now)
        spec = job.fields.get("moldable") if job.fields else None
        if (
            isinstance(spec, dict)
            and spec.get("model") == "linear"
            and job.fields.get("profile_type") == "parallel_homogeneous_total"
        ):
            self.record(job, molded=n)
            return self.start(job, now, self.pool.allocate(n))
        runtime = model.runtime(n) if runtime_s is None else runtime_s
        return self.mold(job, now, n, scale=model.speedup(requested) / model.speedup(n), runtime_s=runtime)

    def assume_running(self, job: Job, start_s: float, end_s: float, hosts: IntervalSet | list[int]) -> Running:
        """Takes ``job`` as already running on ``hosts`` until ``end_s`` (no decision is sent):
        the state a what-if simulation starts from (:func:`adaptsched.core.replay.replay`)."""
        allocated = as_interval_set(hosts)
        self.pool.take(allocated)
        running = self.running[job.id] = Running(job, start_s, allocated, end_s=end_s)
        self.track(running)
        return running

    def assume_waiting(self, job: Job, now: float, reserved_s: float) -> None:
        """Takes ``job`` as waiting and already admitted, with the start ``reserved_s`` it was
        promised (:func:`adaptsched.core.replay.replay`'s ``reserved``): here, a plain
        submission (a scheduler without reservations has nothing to keep)."""
        self.submit(job, now)

    def wake_up(self, at_s: float) -> None:
        """Asks to be called back at ``at_s`` (CALL_ME_LATER)."""
        self._decisions.wake_ups.append(at_s)

    def kill(self, running: Running) -> None:
        self._decisions.kills.append(running.exec_id)

    def reject(self, job: Job) -> None:
        """Rejects a waiting job (whose work a copy has done)."""
        self._decisions.rejects.append(job.id)


#: The metadata a :class:`ReservingScheduler` records of a job's reservations.
_RESERVATION_KEYS = ("reservation_s", "withdrawn_reservation_s", "withdrawn_at_s")


@mypyc_attr(allow_interpreted_subclasses=True)  # a researcher's own scheduler may extend it
class ReservingScheduler(OnlineScheduler):
    """A scheduler that promises waiting jobs a start time (a reservation).

    Each job's first reservation (:meth:`promise`) is kept in ``first_reservation`` and, unless
    ``record_reservations`` is off, written in its metadata (``reservation_s``), so
    that the promise can be checked on any output trace: ``start <= reservation_s``.
    A reservation the algorithm promises only for a while (EASY's: while the job is the first
    waiting job) is withdrawn when that ends (:meth:`withdraw`), and no check holds the job to
    it; the job's next :meth:`promise` is a new one.
    Running jobs are kept by expected end (``by_end``), which backfilling needs.

    >>> s = ReservingScheduler(4)
    >>> job = Job("w0!1", 0.0, 2, 60.0)
    >>> s.promise(job, 30.0); s.promise(job, 10.0)  # only the first promise is kept
    >>> s.withdraw(job, 5.0); s.promise(job, 40.0)  # withdrawn: the next one is a new promise
    >>> s.first_reservation, s.withdrawn
    ({'w0!1': 40.0}, {'w0!1': (30.0, 5.0)})
    """

    def __init__(self, nb_hosts: int, options: opt.Options | None = None, **values: Any):
        super().__init__(nb_hosts, options, **values)
        self.record_reservations = self.records_reservations()
        self.first_reservation: dict[str, float] = {}  # job id -> its first reservation (in force)
        self.withdrawn: dict[str, tuple[float, float]] = {}  # job id -> (its last withdrawn reservation, when)
        self.by_end: SortedKeyList = SortedKeyList(key=lambda r: r.end_s)  # running jobs by expected end

    def records_reservations(self) -> bool:
        """Whether each job's first reservation goes into its metadata; not by default."""
        return False

    def promise(self, job: Job, start_s: float) -> None:
        """Notes a reservation; only a job's first one is kept and recorded (the first since
        its last :meth:`withdraw`, if any)."""
        if job.id not in self.first_reservation:
            self.first_reservation[job.id] = start_s
            if self.record_reservations:
                if job.id in self.withdrawn:
                    self._record_reservation(job)
                else:
                    self.record(job, reservation_s=start_s)

    def withdraw(self, job: Job, now: float) -> None:
        """Withdraws the job's reservation in force, which the algorithm no longer promises (EASY's
        head job once another job goes ahead of it in the queue). The job is held to none until
        its next :meth:`promise`. Its metadata keeps the withdrawn one apart, where no check holds
        the job to it: ``withdrawn_reservation_s`` and ``withdrawn_at_s`` (when), the last one."""
        start_s = self.first_reservation.pop(job.id, None)
        if start_s is None:
            return
        self.withdrawn[job.id] = (start_s, now)
        if self.record_reservations:
            self._record_reservation(job)

    def _record_reservation(self, job: Job) -> None:
        """The job's reservation in force and its last withdrawn one, in this order, in its metadata
        (which replaces what earlier passes recorded, as Batsim's SET_JOB_METADATA does)."""
        values = self._decisions.metadata.setdefault(job.id, {})
        for key in _RESERVATION_KEYS:
            values.pop(key, None)
        start_s = self.first_reservation.get(job.id)
        if start_s is not None:
            values["reservation_s"] = start_s
        withdrawn = self.withdrawn.get(job.id)
        if withdrawn is not None:
            values["withdrawn_reservation_s"], values["withdrawn_at_s"] = withdrawn

    def track(self, running: Running) -> None:
        self.by_end.add(running)

    def complete(self, job_id: str, now: float, state: str = "COMPLETED_SUCCESSFULLY") -> None:
        running = self.running.get(job_id)
        if running is not None:
            self.by_end.remove(running)
        super().complete(job_id, now, state)
