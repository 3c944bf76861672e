"""Deadline-guaranteeing admission control: QoPS and VQoPS.

Islam, Balaji, Sabin & Sadayappan, "Analyzing and Minimizing the Impact of Opportunity Cost
in QoS-aware Job Scheduling" (2007), sec. 3 (QoPS) and 4.2 (VQoPS). Jobs carry ``deadline``,
``price`` and ``urgent`` (:mod:`adaptsched.workloads.qos`); runtimes are taken as the
estimates (walltimes), which jobs never exceed (Batsim kills them there).

**QoPS** (sec. 3; the details below, not in the seed, are our interpretation, after
``../shared/reference/workload-models.md`` sec. 4.3). Accepted jobs wait in an ordered
queue, planned like conservative backfilling: each at its earliest fit, in queue order,
after the running jobs. A new job is tried at about log2(N) + 1 queue positions, 0, N/2,
3N/4, 7N/8, ..., N. At a position, the job and every job behind it are re-planned in order;
if a job behind it would miss its deadline it is moved just ahead of the new job and the
re-plan repeated, at most ``k_factor`` times. The new job is accepted at the first position
where every deadline holds, else rejected at submission (REJECT_JOB). Jobs ahead of the
position keep their planned starts; jobs behind it may move later, never past their
deadlines. When a job ends early, waiting jobs are re-placed in queue order, never later.

**VQoPS** (sec. 4.2): the same candidate schedules, but it keeps the feasible one of highest
planned revenue (each waiting job's value at its planned completion: the queue order then
favours urgent and high-value jobs), and accepts the job only if that revenue exceeds the
current schedule's by more than its opportunity cost, ``oc_factor`` x res x estimate
(processor-seconds).

Guarantee: with estimates that are upper bounds, every accepted job completes by its
deadline (the planned completion is a bound, and plans only move earlier after admission).
"""

from __future__ import annotations

from adaptsched.core.base import INF
from adaptsched.core.conservative import EPS_S, ConservativeBackfilling
from adaptsched.core.profile import AvailabilityProfile


def positions(n: int) -> list[int]:
    """Candidate queue positions for a queue of ``n`` jobs: 0, n/2, 3n/4, ..., n."""
    out, low = [0], 0
    while low < n:
        low = low + (n - low + 1) // 2
        out.append(low)
    return list(dict.fromkeys(out))


def linear_value(finish_s: float, *, price: float, full_until_s: float, deadline_s: float) -> float:
    """Islam et al.'s value function: the full ``price`` if the job completes by
    ``full_until_s`` (submission + estimate), linearly less to zero at ``deadline_s``."""
    if finish_s <= full_until_s + 1e-9:
        return price
    if finish_s >= deadline_s or deadline_s <= full_until_s:
        return 0.0
    return price * (deadline_s - finish_s) / (deadline_s - full_until_s)


def job_value(job, finish_s: float) -> float:
    """:func:`linear_value` of a scheduler's job (its fields hold price, deadline, estimate_s)."""
    f = job.fields
    return linear_value(
        finish_s,
        price=float(f.get("price", 0.0)),
        deadline_s=float(f.get("deadline", INF)),
        full_until_s=job.submit_s + float(f.get("estimate_s", job.walltime_s)),
    )


class Qops(ConservativeBackfilling):
    name = "qops"
    options = {
        "k_factor": (5, "QoPS: at most this many jobs moved ahead of the new job per tried position"),
        "value_aware": (
            False,
            "VQoPS: keep the feasible schedule of highest revenue; accept only above the opportunity cost",
        ),
        "oc_factor": (0.0, "VQoPS: opportunity cost per processor-second of the new job"),
    }

    def __init__(self, nb_hosts: int, *, k_factor: int = 5, value_aware: bool = False, oc_factor: float = 0.0):
        super().__init__(nb_hosts, order="fcfs", record_reservations=False)
        if k_factor < 0:
            raise ValueError(f"k_factor must be >= 0, got {k_factor!r}")
        self.k_factor, self.value_aware, self.oc_factor = int(k_factor), bool(value_aware), float(oc_factor)
        self.waiting = []  # accepted waiting jobs, in QoPS order
        self.decisions_log = []  # (time, job id, accepted, position or None), for analysis and tests

    # -- planning -----------------------------------------------------------------
    def compression_order(self, now: float) -> list:
        return self.waiting

    @staticmethod
    def deadline(job) -> float:
        return float(job.fields.get("deadline", INF)) if job.fields else INF

    def _try(self, base: AvailabilityProfile, sequence: list, now: float):
        """Plans ``sequence`` into a copy of ``base``; returns (starts, index of the first job
        that misses its deadline or None)."""
        profile = base.copy()
        starts = []
        for i, job in enumerate(sequence):
            start = profile.earliest_fit(job.res, job.walltime_s, now)
            if start is None or start + job.walltime_s > self.deadline(job) + EPS_S:
                return starts, i
            profile.reserve(start, start + job.walltime_s, job.res)
            starts.append(start)
        return starts, None

    def candidates(self, new, now: float):
        """Feasible schedules with ``new`` inserted: (position, sequence, starts) per position."""
        found = []
        for pos in positions(len(self.waiting)):
            prefix, suffix = self.waiting[:pos], self.waiting[pos:]
            base = self.profile.copy()
            for job in suffix:  # the suffix is re-planned
                start = self.reservation[job.id]
                base.release(start, start + job.walltime_s, job.res)
            sequence = [new, *suffix]
            for _ in range(self.k_factor + 1):
                starts, miss = self._try(base, sequence, now)
                if miss is None:
                    found.append((pos, prefix, sequence, starts))
                    break
                at = sequence.index(new)
                if miss <= at:
                    break  # the new job itself (or a job moved ahead of it) cannot make it
                late = sequence.pop(miss)
                sequence.insert(at, late)
            if found and not self.value_aware:
                break  # QoPS: the first feasible position
        return found

    def revenue(self, jobs, starts) -> float:
        return sum(job_value(j, s + j.walltime_s) for j, s in zip(jobs, starts))

    def admit(self, new, now: float) -> bool:
        found = self.candidates(new, now)
        if not found:
            self.decisions_log.append((now, new.id, False, None))
            return False
        if self.value_aware:
            current = self.revenue(self.waiting, [self.reservation[j.id] for j in self.waiting])
            total, _, best = max(
                (self.revenue(f[1], [self.reservation[j.id] for j in f[1]]) + self.revenue(f[2], f[3]), -f[0], f)
                for f in found
            )
            if total - current <= self.oc_factor * new.res * new.walltime_s:
                self.decisions_log.append((now, new.id, False, None))
                return False
        else:
            best = found[0]
        pos, prefix, sequence, starts = best
        for job in self.waiting[pos:]:
            start = self.reservation.pop(job.id)
            self.profile.release(start, start + job.walltime_s, job.res)
        for job, start in zip(sequence, starts):
            self.profile.reserve(start, start + job.walltime_s, job.res)
            self.reservation[job.id] = start
        self.waiting = prefix + sequence
        self.next_start = min(self.reservation.values(), default=INF)
        self.decisions_log.append((now, new.id, True, pos))
        return True

    def plan(self, now: float):
        self.profile.advance(now)
        if self.freed_early:
            self.compress(now)
            self.freed_early = False
            self.next_start = min(self.reservation.values(), default=INF)
        for job in self.arrivals:
            if not self.admit(job, now):
                self.queue.remove_all([job])
                self.reject(job)
        self.arrivals = []
        started = []
        if self.next_start <= now + EPS_S:
            for job in self.waiting:
                if self.reservation[job.id] <= now + EPS_S and job.res <= self.pool.nb_free:
                    self.start(job, now, planned_s=self.reservation[job.id])
                    del self.reservation[job.id]
                    started.append(job)
        if started:
            done = {j.id for j in started}
            self.waiting = [j for j in self.waiting if j.id not in done]
            self.queue.remove_all(started)
            self.next_start = min(self.reservation.values(), default=INF)
        self.wake_up_if_needed(now)
