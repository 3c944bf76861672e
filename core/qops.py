"""Deadline-guaranteeing admission control: QoPS and VQoPS.

Islam, Balaji, Sabin & Sadayappan, "Analyzing and Minimizing the Impact of Opportunity Cost
in QoS-aware Job Scheduling" (2007), sec. 3 (QoPS) and 4.2 (VQoPS). Jobs carry QoS terms
(:mod:`adaptsched.core.qos`: deadline, price, urgency, estimate); runtimes are taken as the
walltimes, which jobs never exceed (Batsim kills them there). QoPS is the reservation
planner of :mod:`adaptsched.core.conservative` with its own queue order and admission
control (:meth:`Qops.admit`) as hooks.

**QoPS** (sec. 3; the details below, not in the seed, are our interpretation, docs/qops.md
gives each). Accepted jobs wait in an ordered
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

from dataclasses import dataclass
from functools import cache
from typing import Any

from mypy_extensions import mypyc_attr

from adaptsched.core import options as opt
from adaptsched.core.base import Job
from adaptsched.core.conservative import ReservationPlanner
from adaptsched.core.needs import Need
from adaptsched.core.options import OptionError, Options, option
from adaptsched.core.profile import AvailabilityProfile
from adaptsched.core.qos import DEADLINE, QosTerms
from adaptsched.core.units import EPS_S, INF


def positions(n: int) -> list[int]:
    """Candidate queue positions for a queue of ``n`` jobs: 0, n/2, 3n/4, ..., n."""
    return list(_positions(n))


@cache
def _positions(n: int) -> tuple[int, ...]:
    """:func:`positions`, worked out once per queue length (every arrival asks)."""
    out, low = [0], 0
    while low < n:
        low = low + (n - low + 1) // 2
        out.append(low)
    return tuple(dict.fromkeys(out))


def job_value(job: Job, finish_s: float) -> float:
    """What a scheduler's job pays if it completes at ``finish_s`` (its fields hold its terms)."""
    return QosTerms.of(job.fields, job.walltime_s).value(job.submit_s, finish_s)


#: ``profile.release(start, end, n)`` without logging to its ``freed`` (VQoPS gives back every
#: waiting job at every arrival): the profile's own step update, called unbound (one call, as before).
_give_back = AvailabilityProfile._add


#: A candidate schedule: (queue position of the new job, jobs ahead, re-planned sequence, their
#: starts, the sequence's revenue at them: VQoPS's, else 0).
Candidate = tuple[int, list[Job], list[Job], list[float], float]

#: What admission control chose (:meth:`Qops.choose`): (the candidate, VQoPS's revenue gain).
Choice = tuple[Candidate, float]

#: A planning try (:meth:`Qops._try`): (starts, index of the first job late or None, VQoPS's values).
Try = tuple[list[float], int | None, list[float]]


@dataclass(frozen=True)
class QopsOptions(Options):
    k_factor: int = option(5, "QoPS: at most this many jobs moved ahead of the new job per tried position", low=0)
    value_aware: bool = option(
        False, "VQoPS: keep the feasible schedule of highest revenue; accept only above the opportunity cost"
    )
    oc_factor: float = option(0.0, "VQoPS: opportunity cost per processor-second of the new job", low=0.0)
    deadlines: str = option(
        "refuse",
        "a workload without QoS terms: refuse it (qos-annotate prepares one), or none: jobs without terms "
        "have no deadline and pay nothing",
        choices=("refuse", "none"),
    )

    def needs(self) -> tuple[Need, ...]:
        without = "jobs without terms have no deadline and pay nothing"
        need = Need(
            "jobs with QoS terms",
            DEADLINE,
            (),
            "adaptsched qos-annotate IN.json OUT.json",
            None if self.value_aware else "deadlines=none",
            without + (": value-aware QoPS rejects them (they bring no revenue)" if self.value_aware else ""),
            required=self.deadlines == "refuse",
        )
        return (need,)

    def check(self) -> None:
        if self.value_aware and self.deadlines != "refuse":
            raise OptionError(
                f"option deadlines={self.deadlines}: value-aware QoPS rejects every job without terms (it pays "
                "nothing): add QoS terms with qos-annotate instead",
                option="deadlines",
            )


@mypyc_attr(allow_interpreted_subclasses=True)  # a researcher's own scheduler may extend it
class Qops(ReservationPlanner):
    name = "qops"
    summary = "QoPS deadline-guaranteeing admission control; value_aware=true: VQoPS with an opportunity-cost factor"
    Options = QopsOptions

    def __init__(self, nb_hosts: int, options: opt.Options | None = None, **values: Any):
        super().__init__(nb_hosts, options, **values)
        o = opt.narrow(self.options, QopsOptions)
        self.k_factor, self.value_aware = o.k_factor, o.value_aware
        self.oc_factor = o.oc_factor  # DVQoPS changes it as it goes
        self.terms: dict[str, QosTerms] = {}  # job id -> its QoS terms, read once
        # job id -> (price, submission + estimate, deadline): :meth:`value`'s arithmetic, read once
        self.value_terms: dict[str, tuple[float, float, float]] = {}
        # If a dict, job id -> QoS terms shared with other schedulers of the same jobs (DVQoPS
        # and its what-if replays: each job's terms are read once, not once per replay).
        self.terms_cache: dict[str, QosTerms] | None = None
        self.waiting: list[Job] = []  # accepted waiting jobs, in QoPS order
        self.decisions_log: list[tuple[float, str, bool, int | None]] = []  # (time, job, accepted, position)
        # VQoPS: if a list, every opportunity-cost test, (revenue gain, res, estimate): the job
        # was accepted iff not gain <= oc_factor * res * estimate. Two OC-factors on the same side of
        # every test make the same decisions (DVQoPS reuses a what-if replay so).
        self.value_tests: list[tuple[float, int, float]] | None = None

    # -- the planner's hooks: QoPS's own queue order, admission control ---------------
    def _read_terms(self, job: Job) -> None:
        """Notes ``job``'s QoS terms (from ``terms_cache`` if it has them)."""
        cache = self.terms_cache
        terms = None if cache is None else cache.get(job.id)
        if terms is None:
            terms = QosTerms.of(job.fields, job.walltime_s)
            if cache is not None:
                cache[job.id] = terms
        self.terms[job.id] = terms
        self.value_terms[job.id] = (terms.price, job.submit_s + terms.estimate_s, terms.deadline_s)

    def on_submit(self, job: Job, now: float) -> None:
        self._read_terms(job)
        super().on_submit(job, now)

    def assume_waiting(self, job: Job, now: float, reserved_s: float) -> None:
        """An accepted job, at the end of the QoPS queue, keeping its reservation (and so its
        guarantee): the state a DVQoPS what-if replay starts from."""
        self._read_terms(job)
        self.waiting.append(job)
        super().assume_waiting(job, now, reserved_s)

    def compression_order(self, now: float) -> list[Job]:
        return self.waiting

    def compress(self, now: float) -> None:
        """The planner's full compression in QoPS order, each job's earliest fit no later than
        its reservation found without giving its slot back (:meth:`AvailabilityProfile.fit_before`:
        the same start) and the profile changed only for the jobs that move (most do not)."""
        profile, reservation = self.profile, self.reservation
        for job in self.waiting:
            old = reservation.get(job.id)
            if old is None or old <= now:
                continue
            new = profile.fit_before(job.res, job.walltime_s, now, old)
            if new < old:
                profile.shift(job.res, old, new, job.walltime_s)
                reservation[job.id] = new
                if new < self.next_start:
                    self.next_start = new
                if self.audit is not None:
                    self.audit.append((job.id, old, new))

    def start_order(self) -> list[Job]:
        return self.waiting

    def forget_started(self, started: list[Job]) -> None:
        done = {job.id for job in started}
        self.waiting = [job for job in self.waiting if job.id not in done]
        self.queue.remove_all(started)

    def deadline(self, job: Job) -> float:
        return self.terms[job.id].deadline_s

    def value(self, job: Job, finish_s: float) -> float:
        """What ``job`` pays if it completes at ``finish_s``: :meth:`QosTerms.value` (the same
        arithmetic as :func:`adaptsched.core.qos.linear_value`, inlined: the hot path of VQoPS)."""
        price, full_until_s, deadline_s = self.value_terms[job.id]
        if finish_s <= full_until_s + 1e-9:
            return price
        if finish_s >= deadline_s or deadline_s <= full_until_s:
            return 0.0
        return price * (deadline_s - finish_s) / (deadline_s - full_until_s)

    # -- admission ---------------------------------------------------------------------
    def _try(self, base: AvailabilityProfile, sequence: list[Job], now: float) -> Try:
        """Plans ``sequence`` from ``now`` on ``base`` (:meth:`AvailabilityProfile.plan`, which
        leaves it as it is); returns (starts, index of the first job that misses its deadline or
        None, and with ``value_aware`` each planned job's :meth:`value` at its end, else no values)."""
        terms = self.value_terms
        starts, missed = base.plan([(job.res, job.walltime_s, terms[job.id][2] + EPS_S) for job in sequence], now)
        if not self.value_aware:
            return starts, missed, []
        return starts, missed, [self.value(job, start + job.walltime_s) for job, start in zip(sequence, starts)]

    def candidates(self, new: Job, now: float) -> list[Candidate]:
        """Feasible schedules with ``new`` inserted, one per position tried (QoPS: the first).

        VQoPS tries every position: their bases (the profile without the re-planned suffix)
        are built from the last position back, each from the next one's by giving back the
        jobs between them (a profile's steps depend only on its function: the same bases as
        giving back each suffix from the profile), and the schedules found are listed in
        position order."""
        if not self.value_aware:
            for pos in _positions(len(self.waiting)):
                base = self.profile.copy()
                for job in self.waiting[pos:]:  # the suffix is re-planned
                    start = self.reservation[job.id]
                    _give_back(base, start, start + job.walltime_s, job.res)
                candidate = self._insert(base, new, pos, now)
                if candidate is not None:
                    return [candidate]  # QoPS: the first feasible position
            return []
        found: list[Candidate] = []
        base, end = self.profile.copy(), len(self.waiting)
        for pos in reversed(_positions(len(self.waiting))):
            for job in self.waiting[pos:end]:
                start = self.reservation[job.id]
                _give_back(base, start, start + job.walltime_s, job.res)
            end = pos
            candidate = self._insert(base, new, pos, now)
            if candidate is not None:
                found.append(candidate)
        found.reverse()
        return found

    def _insert(self, base: AvailabilityProfile, new: Job, pos: int, now: float) -> Candidate | None:
        """``new`` at queue position ``pos``, the suffix re-planned into ``base`` (left as it is):
        late jobs moved ahead of it, at most ``k_factor`` times; None if it cannot be done."""
        sequence = [new, *self.waiting[pos:]]
        for _ in range(self.k_factor + 1):
            starts, miss, values = self._try(base, sequence, now)
            if miss is None:
                return (pos, self.waiting[:pos], sequence, starts, sum(values))
            at = sequence.index(new)
            if miss <= at:
                return None  # the new job itself (or a job moved ahead of it) cannot make it
            late = sequence.pop(miss)
            sequence.insert(at, late)
        return None

    def planned_values(self, jobs: list[Job], starts: list[float]) -> list[float]:
        """Each job's :meth:`value` if it starts at its start (the same arithmetic, inlined: VQoPS
        values every candidate schedule of every arrival)."""
        terms, out = self.value_terms, []
        for job, start in zip(jobs, starts):
            finish_s = start + job.walltime_s
            price, full_until_s, deadline_s = terms[job.id]
            if finish_s <= full_until_s + 1e-9:
                out.append(price)
            elif finish_s >= deadline_s or deadline_s <= full_until_s:
                out.append(0.0)
            else:
                out.append(price * (deadline_s - finish_s) / (deadline_s - full_until_s))
        return out

    def admit(self, job: Job, now: float) -> bool:
        """QoPS (and VQoPS) admission control: accepts the job in a schedule where every
        accepted job keeps its deadline (:meth:`choose`), or rejects it."""
        chosen = self.choose(job, now)
        if chosen is None:
            self.decisions_log.append((now, job.id, False, None))
            return False
        best, gain = chosen
        if self.value_aware:
            if self.value_tests is not None:
                self.value_tests.append((gain, job.res, job.walltime_s))
            if gain <= self.oc_factor * job.res * job.walltime_s:
                self.decisions_log.append((now, job.id, False, None))
                return False
        pos, prefix, sequence, starts, _ = best
        self._take(pos, sequence, starts)
        self.waiting = prefix + sequence
        self.next_start = min(self.reservation.values(), default=INF)
        self.decisions_log.append((now, job.id, True, pos))
        return True

    def choose(self, job: Job, now: float) -> Choice | None:
        """The schedule :meth:`admit` takes if any (QoPS: the first candidate; VQoPS: the one of
        highest planned revenue, if its gain exceeds the opportunity cost), with VQoPS's
        revenue gain over the current schedule (QoPS: 0); None if no schedule keeps every
        deadline."""
        found = self.candidates(job, now)
        if not found:
            return None
        if not self.value_aware:
            return found[0], 0.0
        # each waiting job's value at its reservation, once: the current schedule's revenue,
        # and that of each candidate's prefix (the same sums, of the same values in order)
        reservation = self.reservation
        held = self.planned_values(self.waiting, [reservation[j.id] for j in self.waiting])
        current = sum(held)
        # the candidate of highest revenue, the first (the smallest position) among equals
        best, total = found[0], sum(held[: found[0][0]]) + found[0][4]
        for f in found[1:]:
            revenue = sum(held[: f[0]]) + f[4]
            if revenue > total:
                best, total = f, revenue
        return best, total - current

    def _take(self, pos: int, sequence: list[Job], starts: list[float]) -> None:
        """Puts a candidate schedule in place: the queue's suffix from ``pos`` given back to the
        profile, ``sequence`` reserved at ``starts``. A job that keeps its start changes nothing
        (given back and taken again: the same steps, which depend only on the profile's
        function), so only the others are given back and reserved; every suffix job's reservation
        is still taken out and put back (the same order of the reservations); a test compares it
        with giving back and reserving them all."""
        profile, reservation = self.profile, self.reservation
        planned_at = {job.id: start for job, start in zip(sequence, starts)}
        kept = set()
        for waiting in self.waiting[pos:]:
            start = reservation.pop(waiting.id)
            if planned_at[waiting.id] == start:
                kept.add(waiting.id)
            else:
                profile.release(start, start + waiting.walltime_s, waiting.res)
        for planned, start in zip(sequence, starts):
            if planned.id not in kept:
                profile.reserve(start, start + planned.walltime_s, planned.res)
            reservation[planned.id] = start
