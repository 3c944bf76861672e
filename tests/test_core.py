"""The pure planning core: availability profile, queue orders, FCFS, EASY, conservative.

Small cases worked by hand, then invariants on real trace excerpts through the
in-process replay driver (no simulator).
"""

import random
from itertools import pairwise

import pytest
from helpers import CTC_EXCERPT, SDSC_EXCERPT, assert_no_host_runs_two_jobs

from adaptsched.core.base import Job
from adaptsched.core.conservative import ConservativeBackfilling
from adaptsched.core.easy import EasyBackfilling
from adaptsched.core.fcfs import Fcfs
from adaptsched.core.profile import AvailabilityProfile
from adaptsched.core.queue import WaitingQueue
from adaptsched.core.replay import replay
from adaptsched.core.units import INF
from adaptsched.workloads.convert import convert_swf


# -- availability profile -----------------------------------------------------------
def test_profile_reserve_release_and_merge():
    p = AvailabilityProfile(10, now=0.0)
    p.reserve(5.0, 15.0, 4)
    p.reserve(10.0, 20.0, 6)
    assert (p.times, p.free) == ([0.0, 5.0, 10.0, 15.0, 20.0], [10, 6, 0, 4, 10])
    p.release(10.0, 20.0, 6)  # undoing merges the steps back
    assert (p.times, p.free) == ([0.0, 5.0, 15.0], [10, 6, 10])
    with pytest.raises(ValueError, match="over-subscribed"):
        p.reserve(6.0, 7.0, 7)


def test_profile_earliest_fit():
    p = AvailabilityProfile(8, now=0.0)
    p.reserve(0.0, 10.0, 6)  # 2 free until 10
    p.reserve(10.0, 12.0, 3)  # 5 free on [10, 12)
    p.reserve(20.0, INF, 8)  # nothing free from 20 on
    assert p.earliest_fit(2, 100.0, after=0.0) is None  # never: the machine is full from 20
    assert p.earliest_fit(2, 5.0, after=0.0) == 0.0
    assert p.earliest_fit(3, 5.0, after=0.0) == 10.0  # 5 free on [10,12), 8 on [12,20)
    assert p.earliest_fit(6, 5.0, after=0.0) == 12.0
    assert p.earliest_fit(6, 9.0, after=0.0) is None  # [12, 21) hits the full machine
    assert p.earliest_fit(3, 5.0, after=11.0) == 11.0
    assert p.earliest_fit(6, 5.0, after=0.0, before=11.0) is None
    assert p.earliest_fit(9, 1.0, after=0.0) is None  # wider than the machine


def test_profile_advance_forgets_the_past():
    p = AvailabilityProfile(4, now=0.0)
    p.reserve(0.0, 10.0, 2)
    p.reserve(10.0, 30.0, 4)
    p.advance(15.0)
    assert (p.times, p.free) == ([15.0, 30.0], [0, 4])
    assert p.free_at(29.0) == 0 and p.free_at(30.0) == 4


def test_profile_random_operations_match_a_brute_force_timeline():
    rnd = random.Random(7)
    for _ in range(50):
        p = AvailabilityProfile(16)
        used = {}  # integer time -> hosts used
        for _ in range(20):
            start = rnd.randrange(0, 40)
            end = start + rnd.randrange(1, 15)
            n = rnd.randrange(1, 6)
            if all(used.get(t, 0) + n <= 16 for t in range(start, end)):
                p.reserve(float(start), float(end), n)
                for t in range(start, end):
                    used[t] = used.get(t, 0) + n
        for t in range(60):
            assert p.free_at(t + 0.5) == 16 - used.get(t, 0)
        n, d = rnd.randrange(1, 17), rnd.randrange(1, 10)
        brute = next(s for s in range(100) if all(16 - used.get(t, 0) >= n for t in range(s, s + d)))
        assert p.earliest_fit(n, float(d), after=0.0) == brute


def _random_profile(rnd, nb_hosts, reservations, now=0.0):
    p = AvailabilityProfile(nb_hosts, now=now)
    for _ in range(reservations):
        start = float(rnd.randrange(0, 60))
        end = INF if rnd.random() < 0.05 else start + rnd.randrange(1, 12)
        n = rnd.randrange(1, max(2, nb_hosts // 4))
        if p.min_free(start, end) >= n:
            p.reserve(start, end, n)
    return p


def repeats(profile):
    """The times where a step has as many free hosts as the one before (a profile extended
    before its start keeps one: its new first step is not merged with the old one)."""
    return {t for t, a, b in zip(profile.times[1:], profile.free, profile.free[1:]) if a == b}


def test_profile_shift_is_release_then_reserve():
    """shift moves n hosts for w seconds from old to new < old: as a function of time, the free
    hosts drop by n on [new, new + w) and rise by n on [old, old + w), computed here point by
    point from the profile before the move (``free_at``, and all hosts before its start). On
    profiles of up to 60 steps (updates of more than 16 steps take a slice), overlapping or not:
    the same function, and no two equal steps in a row made (the steps depend only on the function);
    where the new slot does not fit, the error names the first time it runs short."""
    rnd = random.Random(11)
    errors = 0
    for trial in range(3000):
        p = _random_profile(rnd, rnd.randrange(1, 40), rnd.randrange(0, 80), now=float(rnd.randrange(0, 3)))
        old = float(rnd.randrange(1, 40))
        new = rnd.choice([old - 0.5, float(rnd.randrange(0, int(old)))])
        w = rnd.choice([0.0, 1.0, 3.0, 7.0, 20.0, 45.0, INF])
        n = rnd.randrange(1, p.nb_hosts + 1)
        before = p.copy()

        def expected(t, before=before, new=new, old=old, w=w, n=n):
            free = before.free_at(t) if t >= before.times[0] else before.nb_hosts
            return free - n * (new <= t < new + w) + n * (old <= t < old + w)

        # every point where either function may step, and one inside each step
        marks = sorted({*before.times, new, old, new + w, old + w} - {INF})
        points = [*marks, *((a + b) / 2 for a, b in pairwise(marks)), marks[-1] + 1.0]
        short = [t for t in points if new <= t < min(new + w, old) and expected(t) < 0]
        got = p.copy()
        if short:
            with pytest.raises(ValueError, match=rf"over-subscribed profile at t={min(short):g} \("):
                got.shift(n, old, new, w)
            errors += 1
            continue
        got.shift(n, old, new, w)
        assert got.times[0] == (new if new < before.times[0] and w > 0 else before.times[0])  # extended
        points = [t for t in points if t >= got.times[0]]
        assert [got.free_at(t) for t in points] == [expected(t) for t in points], (trial, before, old, new, w, n)
        if new >= before.times[0]:  # (a profile extended before its start keeps its old first step)
            assert repeats(got) <= repeats(before), (trial, before, got)  # no equal steps in a row made
        assert got.times == sorted(set(got.times)), (trial, got)
    assert 100 < errors < 2900  # both outcomes tried


def test_profile_earliest_fit_matches_a_brute_force_scan():
    """The earliest start on a step (or ``after``) whose window holds n free hosts, no later than
    ``before``: busy steps skipped, windows reaching the last step, jobs wider than the machine."""
    rnd = random.Random(5)
    for _ in range(2000):
        p = _random_profile(rnd, rnd.randrange(1, 9), rnd.randrange(0, 30))
        n, w = rnd.randrange(1, p.nb_hosts + 2), rnd.choice([0.5, 1.0, 2.0, 5.0, 13.0, INF])
        after, before = float(rnd.randrange(0, 70)), rnd.choice([INF, float(rnd.randrange(0, 70))])
        candidates = sorted({after} | {t for t in p.times if t > after})
        brute = next((s for s in candidates if s <= before and n <= p.nb_hosts and p.min_free(s, s + w) >= n), None)
        assert p.earliest_fit(n, w, after, before) == brute, (p, n, w, after, before)


# -- queue orders ------------------------------------------------------------------------
def test_queue_orders_break_ties_by_arrival():
    jobs = [Job("a", 0, 4, 100), Job("b", 1, 1, 50), Job("c", 2, 4, 50), Job("d", 3, 2, 100)]
    expected = {"fcfs": "abcd", "sjf": "bcad", "ljf": "adbc", "small": "bdac", "large": "acdb", "saf": "bcda"}
    for order, names in expected.items():
        queue = WaitingQueue(order)
        for job in jobs:
            queue.push(job)
        assert "".join(job.id for job in queue) == names, order
    with pytest.raises(ValueError, match="unknown queue order 'nope'"):
        WaitingQueue("nope")


# -- the three schedulers, worked by hand ------------------------------------------------
# 4 hosts. a: 2 hosts, walltime 10, runs 10; b: 4 hosts, walltime 10, runs 5;
# c: 1 host at t=1, walltime 5 (killed at 5); d: 2 hosts at t=2, walltime 20, runs 3.
HAND = [(Job("a", 0, 2, 10), 10), (Job("b", 0, 4, 10), 5), (Job("c", 1, 1, 5), 5), (Job("d", 2, 2, 20), 3)]


def _starts(outcomes):
    return {job_id: (o.start_s, o.hosts) for job_id, o in outcomes.items()}


def test_fcfs_by_hand():
    out = replay(Fcfs(4), HAND)
    # c fits at t=1 but must wait behind b: no backfilling.
    assert _starts(out) == {"a": (0, (0, 1)), "b": (10, (0, 1, 2, 3)), "c": (15, (0,)), "d": (15, (1, 2))}


def test_easy_by_hand():
    out = replay(EasyBackfilling(4), HAND)
    # b is the head with shadow time 10 (a's walltime); c ends by 6 <= 10: backfilled at 1.
    # d (ends at 22 > 10, no extra hosts) waits; it becomes head at 10 with shadow 20
    # (b's walltime end) and starts at 15 when b ends early.
    assert _starts(out) == {"a": (0, (0, 1)), "b": (10, (0, 1, 2, 3)), "c": (1, (2,)), "d": (15, (0, 1))}
    assert out["b"].metadata == {"reservation_s": 10} and out["d"].metadata == {"reservation_s": 20}
    assert out["c"].killed and not out["d"].killed


def test_easy_uses_extra_hosts_and_protects_the_head():
    # 4 hosts: a runs on 3 until 10. The head h needs 2: shadow 10, and at 10 it leaves
    # 4 - 2 = 2 extra hosts. x (1 host, runs long) uses one of them: it starts at once.
    # y (1 host, long) finds no free host until a ends; at 10 h and y both start.
    jobs = [(Job("a", 0, 3, 10), 10), (Job("h", 1, 2, 10), 10), (Job("x", 2, 1, 100), 100), (Job("y", 3, 1, 100), 100)]
    out = replay(EasyBackfilling(4), jobs)
    assert out["x"].start_s == 2  # 1 host <= 2 extra hosts
    assert out["h"].start_s == 10  # its reservation holds: 4 - 1 (x) = 3 >= 2 at t=10
    assert out["y"].start_s == 10  # nothing free before 10; at 10 it fits beside h


def test_easy_never_lets_backfill_delay_the_head():
    # a: 4 hosts until 10. h: 4 hosts -> shadow 10, extra 0. s: 1 host, walltime 20:
    # would end after 10 and there is no extra host, so it must wait.
    jobs = [(Job("a", 0, 3, 10), 10), (Job("h", 1, 4, 10), 10), (Job("s", 2, 1, 20), 20)]
    out = replay(EasyBackfilling(4), jobs)
    assert out["h"].start_s == 10 and out["s"].start_s == 20


def _starts_of(decisions):
    return [job_id for job_id, _ in decisions.starts]


@pytest.mark.parametrize("order", ["fcfs", "large"])
def test_easy_withdraws_the_reservation_of_a_head_a_job_goes_ahead_of(order):
    """By hand, 4 hosts. a (3 hosts, walltime 10) runs from 0. h (2 hosts) arrives at 1: the head,
    reserved at 10 (a's end). L (4 hosts) arrives at 2. In arrival order h keeps its place and
    starts at 10; L is the head then, reserved at 20 (h's end). Widest first, L goes ahead of h:
    h's reservation is withdrawn (it was a promise only while h was the head); L starts at 10 and
    holds every host until 20, h is the head again, reserved at 20, and starts then."""
    s = EasyBackfilling(4, order=order)
    s.submit(Job("a", 0, 3, 10), 0)
    assert _starts_of(s.schedule(0)) == ["a"]
    s.submit(Job("h", 1, 2, 10), 1)
    first = s.schedule(1)
    assert first.starts == [] and first.metadata == {"h": {"reservation_s": 10}}
    s.submit(Job("L", 2, 4, 10), 2)
    arrival = s.schedule(2)
    s.complete("a", 10)
    at_10 = s.schedule(10)
    if order == "fcfs":
        assert arrival.metadata == {}  # L waits behind the head, without a reservation
        assert _starts_of(at_10) == ["h"] and at_10.metadata == {"L": {"reservation_s": 20}}
        assert s.withdrawn == {}
        return
    assert arrival.metadata == {"h": {"withdrawn_reservation_s": 10, "withdrawn_at_s": 2}, "L": {"reservation_s": 10}}
    assert _starts_of(at_10) == ["L"]
    assert at_10.metadata == {"h": {"reservation_s": 20, "withdrawn_reservation_s": 10, "withdrawn_at_s": 2}}
    s.complete("L", 20)
    assert _starts_of(s.schedule(20)) == ["h"]
    assert s.first_reservation == {"h": 20, "L": 10} and s.withdrawn == {"h": (10, 2)}


def test_easy_without_recorded_reservations_withdraws_silently():
    s = EasyBackfilling(4, order="large", record_reservations=False)
    for job, now in ((Job("a", 0, 3, 10), 0), (Job("h", 1, 2, 10), 1), (Job("L", 2, 4, 10), 2)):
        s.submit(job, now)
        assert s.schedule(now).metadata == {}
    assert s.withdrawn == {"h": (10, 2)} and s.first_reservation == {"L": 10}


def test_conservative_by_hand():
    sched = ConservativeBackfilling(4)
    sched.audit = []
    out = replay(sched, HAND)
    assert _starts(out) == {"a": (0, (0, 1)), "b": (10, (0, 1, 2, 3)), "c": (1, (2,)), "d": (15, (0, 1))}
    assert sched.first_reservation == {"a": 0, "b": 10, "c": 1, "d": 20}
    assert sched.audit == [("d", 20, 15)]  # b ended 5 s early: d moved from 20 to 15


def test_conservative_with_jobs_without_walltime():
    """Batsim's walltime -1 (Downey's generated jobs): a running job holds its hosts for ever in
    the plan, so a wider arrival fits at no time. It waits unplaced (no reservation, no promise),
    a narrow later job backfills meanwhile, and it is placed and started when the job ends.
    By hand, 4 hosts: a (3 hosts, no walltime, runs 20 s) starts at 0; b (2 hosts) arrives at 1
    and fits at no time; c (1 host, 5 s) arrives at 2 and starts at once; a ends at 20, b starts."""
    jobs = [
        (Job("a", 0, 3, -1), 20.0),
        (Job("b", 1, 2, 10), 10.0),
        (Job("c", 2, 1, 5), 5.0),
    ]
    sched = ConservativeBackfilling(4)
    out = replay(sched, jobs)
    assert {name: (o.start_s, o.end_s) for name, o in out.items()} == {
        "a": (0, 20),
        "b": (20, 30),
        "c": (2, 7),
    }
    assert sched.unplaced == []


def test_conservative_does_not_let_a_later_job_delay_an_earlier_reservation():
    # a holds 2 of 4 hosts until 10. b (4 hosts) is reserved at 10. c (2 hosts, walltime 20)
    # fits now but would run past 10 on hosts b needs: EASY would start it only if it used
    # extra hosts; conservative must not start it before b ends.
    jobs = [(Job("a", 0, 2, 10), 10), (Job("b", 1, 4, 10), 10), (Job("c", 2, 2, 20), 20)]
    out = replay(ConservativeBackfilling(4), jobs)
    assert out["b"].start_s == 10 and out["c"].start_s == 20


def test_conservative_waits_for_a_completion_reported_in_a_later_message_of_the_same_instant():
    # Batsim may deliver, at t=10, the arrival of c in one message and the completion of a
    # (due at 10 by its walltime) in the next one. b is due at 10 but a's hosts are not back.
    sched = ConservativeBackfilling(4)
    sched.submit(Job("a", 0, 4, 10), 0)
    sched.submit(Job("b", 0, 4, 10), 0)
    assert [j for j, _ in sched.schedule(0).starts] == ["a"]
    sched.submit(Job("c", 10, 1, 5), 10)
    assert sched.schedule(10).starts == []  # b is due, but a has not been reported ended yet
    sched.complete("a", 10)
    assert [j for j, _ in sched.schedule(10).starts] == ["b"]
    assert sched.first_reservation == {"a": 0, "b": 10, "c": 20}


def test_conservative_calls_back_at_a_reservation_no_event_triggers():
    # 4 hosts. R1 (2 hosts, walltime 10) ends early at 1; R2 (2 hosts) runs 0-5.
    # X (4 hosts, 10 s) is reserved at 10 (R1's walltime end). Y (2 hosts, 5 s) arrives
    # after X and is reserved in the hole [5, 10). At t=1 compression, in queue order,
    # cannot move X (Y's reservation is still in the way), then moves Y to 1.
    # Y and R2 end by 6: from then on nothing runs and no event would ever start X.
    jobs = [(Job("R1", 0, 2, 10), 1), (Job("R2", 0, 2, 5), 5), (Job("X", 0, 4, 10), 10), (Job("Y", 0, 2, 5), 5)]
    sched = ConservativeBackfilling(4)
    out = replay(sched, jobs)
    assert sched.first_reservation == {"R1": 0, "R2": 0, "X": 10, "Y": 5}
    assert (out["Y"].start_s, out["X"].start_s) == (1, 10)  # X keeps its guarantee, via a call-back at 10
    assert sched.wake_requested == 10


@pytest.mark.parametrize("order", ["sjf", "ljf", "small", "large", "saf"])
def test_easy_keeps_every_promise_in_force_under_a_priority_order(order):
    """On a trace excerpt, in-process: every job starts by its reservation in force, and every
    withdrawn one was withdrawn while its job waited and before it was due (the head starts at
    its shadow time at the latest, unless another job went ahead of it first)."""
    jobs = _trace_jobs(CTC_EXCERPT, 338, first=1500)
    sched = EasyBackfilling(338, order=order)
    out = replay(sched, jobs)
    assert all(o.start_s is not None for o in out.values())
    for job_id, reserved_s in sched.first_reservation.items():
        assert out[job_id].start_s <= reserved_s, job_id
    assert sched.withdrawn, "no head lost its place: the case does not exercise the rule"
    for job_id, (reserved_s, at_s) in sched.withdrawn.items():
        assert at_s <= reserved_s and at_s <= out[job_id].start_s, job_id


def test_rejects_jobs_wider_than_the_machine():
    for cls in (Fcfs, EasyBackfilling, ConservativeBackfilling):
        out = replay(cls(4), [(Job("w", 0, 5, 10), 10), (Job("z", 0, 0, 10), 10), (Job("ok", 0, 4, 10), 10)])
        assert out["w"].start_s is None and out["z"].start_s is None and out["ok"].start_s == 0


# -- invariants on real trace excerpts (in-process replay) -------------------------------------
def _trace_jobs(path, hosts, first):
    workload, _ = convert_swf(path, hosts=hosts, first=first)
    profiles = workload["profiles"]
    return [
        (Job(str(j["id"]), j["subtime"], j["res"], j["walltime"]), profiles[j["profile"]]["delay"])
        for j in workload["jobs"]
    ]


def check_no_double_booking(outcomes, nb_hosts):
    records = []
    for o in outcomes.values():
        if o.start_s is not None:
            assert o.start_s >= o.job.submit_s, f"{o.job.id} starts before its submission"
            assert len(o.hosts) == o.job.res and max(o.hosts) < nb_hosts
            records.append((o.start_s, o.end_s, o.hosts))
    assert_no_host_runs_two_jobs(records)


@pytest.mark.parametrize("path,hosts", [(CTC_EXCERPT, 338), (SDSC_EXCERPT, 128)])
def test_invariants_on_trace_excerpts(path, hosts):
    jobs = _trace_jobs(path, hosts, first=3000)
    for cls in (Fcfs, EasyBackfilling, ConservativeBackfilling):
        sched = cls(hosts)
        if cls is ConservativeBackfilling:
            sched.audit = []
        out = replay(sched, jobs)
        assert all(o.start_s is not None for o in out.values())
        check_no_double_booking(out, hosts)
        if cls is EasyBackfilling:  # the head job is never delayed past its reservation
            for job_id, shadow in sched.first_reservation.items():
                assert out[job_id].start_s <= shadow, job_id
            assert sched.withdrawn == {}  # in arrival order, the head stays the head until it starts
        if cls is ConservativeBackfilling:  # reservations only move earlier, and hold
            assert all(new < old for _, old, new in sched.audit) and sched.audit
            for job_id, first in sched.first_reservation.items():
                assert out[job_id].start_s <= first, job_id
