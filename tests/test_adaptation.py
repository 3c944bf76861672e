"""Job adaptation (Perković & Keleher, sec. 7), worked by hand.

Constant efficiency: k times fewer hosts, k times longer (estimate and runtime).
"""

import pytest
from helpers import CTC_EXCERPT, assert_no_host_runs_two_jobs
from test_core import _trace_jobs

from adaptsched.core.backfill import Backfill
from adaptsched.core.base import Job
from adaptsched.core.replay import replay

SUCCESS = "COMPLETED_SUCCESSFULLY"


def attempts(outcome):
    return [(a.kind, a.start_s, a.end_s, len(a.hosts)) for a in outcome.attempts]


def test_half_size_always_except_sequential_jobs():
    jobs = [(Job("a", 0, 4, 100), 100), (Job("odd", 0, 3, 60), 40), (Job("seq", 0, 1, 50), 50)]
    out = replay(Backfill(8, adaptation="half"), jobs)
    assert attempts(out["a"]) == [("resized", 0, 200, 2)]  # 2 hosts, twice as long
    assert out["a"].rejected and out["a"].scale == 2  # the copy replaced the original
    assert attempts(out["odd"]) == [("resized", 0, 60, 2)]  # ceil(3/2) = 2 hosts, 40 s x 3/2
    assert attempts(out["seq"]) == [("regular", 0, 50, 1)]  # untouched


def test_quarter_size_for_jobs_wider_than_4_hosts_else_half():
    jobs = [(Job("w8", 0, 8, 10), 10), (Job("w5", 0, 5, 10), 10), (Job("w4", 0, 4, 10), 10), (Job("w1", 0, 1, 10), 10)]
    out = replay(Backfill(16, adaptation="quarter"), jobs)
    assert attempts(out["w8"]) == [("resized", 0, 40, 2)]
    assert attempts(out["w5"]) == [("resized", 0, 25, 2)]  # ceil(5/4) = 2 hosts, 5/2 as long
    assert attempts(out["w4"]) == [("resized", 0, 20, 2)]
    assert attempts(out["w1"]) == [("regular", 0, 10, 1)]


def test_estimates_scale_with_the_shape_so_the_walltime_still_applies():
    # runtime 150 > estimate 100: halved, it runs 300 s but its walltime is 200 s.
    out = replay(Backfill(4, adaptation="half"), [(Job("a", 0, 4, 100), 150)])
    assert out["a"].attempts[0].end_s == 200 and out["a"].attempts[0].state == "COMPLETED_WALLTIME_REACHED"


def test_greedy_widens_into_an_empty_machine():
    # 4 idle hosts: regular ends at 100, half at 200, double (4 hosts) at 50.
    out = replay(Backfill(4, adaptation="greedy"), [(Job("a", 0, 2, 100), 80)])
    assert attempts(out["a"]) == [("resized", 0, 40, 4)]


def test_greedy_narrows_into_a_hole():
    # r holds 3 of 4 hosts until 100. a (2 hosts, 40 s): regular 100-140, double 100-120,
    # half on the free host 0-80: the earliest completion.
    jobs = [(Job("r", 0, 3, 100), 100), (Job("a", 1, 2, 40), 40)]
    out = replay(Backfill(4, adaptation="greedy"), jobs)
    assert attempts(out["r"]) == [("regular", 0, 100, 3)]
    assert attempts(out["a"]) == [("resized", 1, 81, 1)]


def test_greedy_ties_go_to_the_narrower_shape():
    # r holds 3 of 4 hosts until 100. a (2 hosts, 100 s): half-size on the free host
    # 0-200 and regular 100-200 end together (quarter-size is for jobs wider than 4).
    jobs = [(Job("r", 0, 3, 100), 100), (Job("a", 0, 2, 100), 100)]
    out = replay(Backfill(4, adaptation="greedy", greedy_third="quarter"), jobs)
    assert attempts(out["a"]) == [("resized", 0, 200, 1)]


def test_greedy_with_guarantees_never_moves_a_job_past_its_guarantee():
    sched = Backfill(4, adaptation="greedy")
    jobs = [(Job("r", 0, 3, 100), 30), (Job("a", 0, 2, 40), 40)]
    out = replay(sched, jobs)
    # a is guaranteed half-size 0-80. r ends at 30: double-size 30-50 would finish
    # earlier, and starts after 0, the guarantee: not allowed. a keeps its half shape.
    assert sched.first_reservation["a"] == 0
    assert attempts(out["a"]) == [("resized", 0, 80, 1)]


def test_start_time_widening_restores_a_halved_job_on_idle_hosts():
    # Alone on 4 hosts: halved to 2 hosts, widened at its start to its widest
    # alternative that fits, regular (double would need 8 hosts): it runs as submitted.
    out = replay(Backfill(4, adaptation="half", widening=True), [(Job("a", 0, 4, 100), 100)])
    assert attempts(out["a"]) == [("regular", 0, 100, 4)] and not out["a"].rejected


def test_start_time_widening_to_double_size():
    out = replay(Backfill(4, adaptation="half", widening=True), [(Job("a", 0, 2, 100), 100)])
    assert attempts(out["a"]) == [("resized", 0, 50, 4)]


def test_start_time_widening_only_uses_hosts_no_reservation_needs():
    # 9 hosts. r (5 hosts: too wide to double) runs 0-10, w (7 hosts) is guaranteed
    # 10-110. a (2 hosts, 200 s) starts at 1 on 2 of the 4 idle hosts; widened to 4 hosts
    # for 100 s it would take 2 of w's hosts at 10: it stays as it is, w starts on time.
    jobs = [(Job("r", 0, 5, 10), 9), (Job("w", 0, 7, 100), 90), (Job("a", 1, 2, 200), 190)]
    out = replay(Backfill(9, widening=True), jobs)
    assert attempts(out["r"]) == [("regular", 0, 9, 5)]
    assert attempts(out["a"]) == [("regular", 1, 191, 2)]
    assert attempts(out["w"]) == [("regular", 9, 99, 7)]


def test_widened_job_frees_its_slot_for_the_guaranteed_jobs():
    # 4 hosts. a (2 hosts, 100 s) starts at 0; w (4 hosts) is guaranteed at 100. a is
    # widened to 4 hosts for 50 s, so w starts at 50, before its guarantee.
    sched = Backfill(4, widening=True)
    out = replay(sched, [(Job("a", 0, 2, 100), 100), (Job("w", 0, 4, 10), 10)])
    assert attempts(out["a"]) == [("resized", 0, 50, 4)]
    assert sched.first_reservation["w"] == 100 and out["w"].start_s == 50


def test_widening_works_without_guarantees_too():
    out = replay(
        Backfill(4, order="R/L", guarantees=False, widening=True, adaptation="half"),
        [(Job("a", 0, 4, 100), 100), (Job("b", 0, 1, 10), 10)],
    )
    # R/L puts b first: b on 1 host, a halved on 2; widening a to 4 hosts needs 2 more, 1 is free.
    assert attempts(out["b"]) == [("regular", 0, 10, 1)]
    assert attempts(out["a"]) == [("resized", 0, 200, 2)]


def test_speculative_copy_of_a_resized_job_runs_in_its_shape():
    # half-size on 3 hosts: sequential jobs r (10,000 s), r2 (100 s) and r3 (ends at 1)
    # start at 0; big (3 hosts, 50 s) becomes 2 hosts, 75 s, guaranteed 100-175. s (2
    # hosts, 100 s) arrives at 1 and becomes 1 host, 200 s: r3's host is free for 99 s
    # (big needs it at 100). Speculated 25% of 200 = 50 s fits: the copy runs 1-61
    # (runtime 30 x 2) and succeeds.
    jobs = [
        (Job("r", 0, 1, 10000), 10000),
        (Job("r2", 0, 1, 100), 100),
        (Job("r3", 0, 1, 100), 1),
        (Job("big", 0, 3, 50), 50),
        (Job("s", 1, 2, 100), 30),
    ]
    out = replay(Backfill(3, adaptation="half", speculation=25), jobs)
    assert attempts(out["s"]) == [("speculative", 1, 61, 1)] and out["s"].scale == 2


def test_adaptation_options_are_checked():
    with pytest.raises(ValueError, match="adaptation"):
        Backfill(4, adaptation="third")
    with pytest.raises(ValueError, match="greedy_third"):
        Backfill(4, greedy_third="triple")


@pytest.mark.parametrize(
    "options",
    [
        dict(adaptation="half"),
        dict(adaptation="quarter"),
        dict(adaptation="greedy"),
        dict(adaptation="greedy", greedy_third="quarter", order="R/L", guarantees=False),
        dict(adaptation="half", widening=True, speculation=50, order="P/L"),
        dict(adaptation="half", widening=True, order="R/L", guarantees=False, test_runs=True),
    ],
)
def test_invariants_on_a_ctc_excerpt(options):
    jobs = _trace_jobs(CTC_EXCERPT, 338, first=1500)
    sched = Backfill(338, **options)
    out = replay(sched, jobs)
    assert_no_host_runs_two_jobs([(a.start_s, a.end_s, a.hosts) for o in out.values() for a in o.attempts])
    for outcome in out.values():
        assert outcome.start_s is not None and outcome.start_s >= outcome.job.submit_s
        guarantee = sched.first_reservation.get(outcome.job.id)
        if guarantee is not None:
            assert outcome.start_s <= guarantee + 1e-6
        done = [a for a in outcome.attempts if a.state == SUCCESS or a.kind in ("regular", "resized")]
        assert len(done) == 1  # killed attempts are never the job's completion
