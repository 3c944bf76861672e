"""Perković & Keleher's backfilling family: sorting criteria, guarantees, -NG, anti-starvation."""

import pytest
from helpers import CTC_EXCERPT
from test_core import _trace_jobs, check_no_double_booking

from adaptsched.core.backfill import Backfill
from adaptsched.core.base import Job
from adaptsched.core.conservative import ConservativeBackfilling
from adaptsched.core.priorities import Criterion
from adaptsched.core.replay import replay


def starts(outcomes):
    return {job_id: o.start_s for job_id, o in outcomes.items()}


def test_criteria_orders():
    jobs = [Job("long", 0, 1, 400), Job("short", 5, 1, 100), Job("mid", 9, 1, 200)]
    assert [j.id for j in Criterion("D").order(jobs, 10)] == ["long", "short", "mid"]
    assert [j.id for j in Criterion("1/L").order(jobs, 10)] == ["short", "mid", "long"]
    # score + weight x delay: every job gains at the same rate, so a job overtakes only
    # jobs that arrived later, by weight x (difference of arrival times), whatever the time.
    weighted = Criterion("1/L", starvation_weight=1e-3)  # "long" gains 5e-3 over "short"
    assert [j.id for j in weighted.order(jobs, 10)] == ["short", "long", "mid"]
    assert [j.id for j in weighted.order(jobs, 5000)] == ["short", "long", "mid"]
    later = Job("later", 20, 1, 100)  # arrived 20 s after "long": 1/400 + 2e-2 > 1/100
    assert [j.id for j in weighted.order(jobs + [later], 30)] == ["short", "long", "mid", "later"]


def test_r_over_l_and_p_over_l_divide_by_the_estimate():
    """R/L scores R / L with R uniform on [0, 1): a 10 s job comes before a 10,000 s one unless its
    R is under a thousandth of the other's, about once in 2,000 passes. P/L scores P / L with P in
    1..3: at that ratio of estimates the short job is first whatever the levels (1/10 > 3/10,000)."""
    short, long = Job("short", 5, 1, 10), Job("long", 0, 1, 10_000)
    r = Criterion("R/L", seed=3)
    firsts = [r.order([long, short], 0)[0].id for _ in range(2000)]
    assert firsts.count("short") >= 1990
    p = Criterion("P/L", seed=3)
    for job in (long, short):
        p.on_arrival(job)
    assert [j.id for j in p.order([long, short], 0)] == ["short", "long"]


def test_priority_is_drawn_once_and_random_at_every_pass():

    jobs = [Job(str(i), 0, 1, 10) for i in range(50)]
    p = Criterion("P", seed=1, priority_levels=3)
    for job in jobs:
        p.on_arrival(job)
    assert set(p.priority.values()) == {1, 2, 3}
    assert p.order(jobs, 0) == p.order(jobs, 100)  # same levels: same order
    r = Criterion("R", seed=1)
    assert r.order(jobs, 0) != r.order(jobs, 0)  # drawn again at every pass
    assert Criterion("R", seed=7).order(jobs, 0) == Criterion("R", seed=7).order(jobs, 0)  # seeded
    with pytest.raises(ValueError, match="unknown sorting criterion"):
        Criterion("X")


def test_d_with_guarantees_is_conservative_backfilling():
    jobs = _trace_jobs(CTC_EXCERPT, 338, first=2000)
    a = replay(ConservativeBackfilling(338), jobs)
    b = replay(Backfill(338, order="D", guarantees=True), jobs)
    assert starts(a) == starts(b)


def test_shortest_first_with_guarantees_compresses_short_jobs_first():
    # 2 hosts. a (2 hosts, walltime 10) ends early at 1. b (2 hosts, 20 s) and c (2 hosts,
    # 5 s) hold guarantees at 10 and 30. At t=1, 1/L re-places c first: c moves to 1, b
    # can only move to 6; arrival order (D) would move b to 1 and leave c at 21.
    jobs = [(Job("a", 0, 2, 10), 1), (Job("b", 0, 2, 20), 20), (Job("c", 0, 2, 5), 5)]
    by_length = replay(Backfill(2, order="1/L"), jobs)
    assert starts(by_length) == {"a": 0, "b": 6, "c": 1}
    by_arrival = replay(Backfill(2, order="D"), jobs)
    assert starts(by_arrival) == {"a": 0, "b": 1, "c": 21}


def test_no_guarantee_reschedules_everything_in_score_order():
    # 3 hosts; a (2 hosts) runs 0-10. w (3 hosts, 30 s) arrives at 1, s (1 host, 5 s) at 2,
    # x (1 host, 3 s) at 9. With guarantees (1/L): w is guaranteed 10; s backfills at 2
    # on the free host; x cannot end by 10 and must wait for w: 40. Without (1/L-NG):
    # at 9 the shorter x is placed first and starts; w's start moves to 12.
    jobs = [(Job("a", 0, 2, 10), 10), (Job("w", 1, 3, 30), 30), (Job("s", 2, 1, 5), 5), (Job("x", 9, 1, 3), 3)]
    guaranteed = replay(Backfill(3, order="1/L", guarantees=True), jobs)
    assert starts(guaranteed) == {"a": 0, "w": 10, "s": 2, "x": 40}
    no_guarantee = replay(Backfill(3, order="1/L", guarantees=False, starvation_weight=0), jobs)
    assert starts(no_guarantee) == {"a": 0, "w": 12, "s": 2, "x": 9}


def test_anti_starvation_eventually_starts_a_wide_job():
    # 4 hosts; the wide job (4 hosts, 50 s) arrives at 0.5, and 1-host 10-s jobs every
    # 3 s for 1000 s keep at least one host busy. Under 1/L-NG without weight the short
    # jobs always come first and the wide job starves until the stream ends. With weight
    # 1e-3 it outranks every short job submitted more than (1/10 - 1/50) / 1e-3 = 80 s
    # after it, so it starts once the earlier ones are done.
    jobs = [(Job("wide", 0.5, 4, 50), 50)] + [(Job(f"s{i}", 3.0 * i, 1, 10), 10) for i in range(334)]
    starved = replay(Backfill(4, order="1/L", guarantees=False, starvation_weight=0), jobs)
    assert starved["wide"].start_s > 990
    weighted = replay(Backfill(4, order="1/L", guarantees=False, starvation_weight=1e-3), jobs)
    assert 80 < weighted["wide"].start_s < 100
    check_no_double_booking(weighted, 4)


@pytest.mark.parametrize("order", ["D", "P", "R", "1/L", "P/L", "R/L"])
@pytest.mark.parametrize("guarantees", [True, False])
def test_invariants_on_ctc(order, guarantees):
    jobs = _trace_jobs(CTC_EXCERPT, 338, first=1500)
    sched = Backfill(338, order=order, guarantees=guarantees, seed=3)
    out = replay(sched, jobs)
    assert all(o.start_s is not None for o in out.values())
    check_no_double_booking(out, 338)
    if guarantees:  # no job starts after its first guarantee
        for job_id, first in sched.first_reservation.items():
            assert out[job_id].start_s <= first + 1e-6, job_id


def test_ng_passes_paper_changes_nothing_for_a_fixed_order():
    # 1/L-NG with no starvation weight: a rebuild at an on-time end finds the last schedule
    # again, so rebuilding only at arrivals and early ends (the paper's Figure 2) is the same
    jobs = _trace_jobs(CTC_EXCERPT, 338, first=800)
    every = replay(Backfill(338, order="1/L", guarantees=False, starvation_weight=0.0), jobs)
    paper = replay(Backfill(338, order="1/L", guarantees=False, starvation_weight=0.0, ng_passes="paper"), jobs)
    assert {k: (o.start_s, o.end_s) for k, o in every.items()} == {k: (o.start_s, o.end_s) for k, o in paper.items()}


@pytest.mark.parametrize("order", ["P/L", "R/L"])
def test_ng_passes_paper_keeps_the_invariants(order):
    jobs = _trace_jobs(CTC_EXCERPT, 338, first=1500)
    out = replay(Backfill(338, order=order, guarantees=False, seed=2, ng_passes="paper"), jobs)
    assert all(o.start_s is not None for o in out.values())
    check_no_double_booking(out, 338)


def test_bf_is_the_same_under_every_reading():
    # The readings of reproduce perkovic-keleher (starvation weight, when -NG rebuilds, how
    # P is drawn) act on the -NG orders only: BF (D with guarantees) never moves
    from adaptsched.reproduce.perkovic_keleher.plan import READINGS

    jobs = _trace_jobs(CTC_EXCERPT, 338, first=800)
    plain = starts(replay(Backfill(338, order="D", guarantees=True), jobs))
    for options in READINGS.values():
        assert starts(replay(Backfill(338, order="D", guarantees=True, **options), jobs)) == plain
