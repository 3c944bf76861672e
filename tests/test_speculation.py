"""Speculative backfilling and speculative test runs (Perković & Keleher, sec. 6), worked by hand."""

import pytest
from helpers import CTC_EXCERPT, assert_no_host_runs_two_jobs
from test_core import _trace_jobs

from adaptsched.core.backfill import Backfill
from adaptsched.core.base import Job
from adaptsched.core.replay import replay


def attempts(outcome):
    return [(a.kind, a.start_s, a.end_s, a.state) for a in outcome.attempts]


# 2 hosts. r (1 host) runs 0-100; big (2 hosts, 50 s) is guaranteed 100; s (1 host,
# estimate 100 s) arrives at 1: host 1 is free only until 100, a 99-s hole, so s
# cannot backfill with its estimate and is guaranteed 150 (after big).
def scenario(s_runtime):
    return [(Job("r", 0, 1, 100), 100), (Job("big", 0, 2, 50), 50), (Job("s", 1, 1, 100), s_runtime)]


def test_speculative_copy_killed_at_exactly_its_speculated_time_and_requeued():
    sched = Backfill(2, speculation=50)
    out = replay(sched, scenario(99.5))
    # Speculated 50 s <= 99-s hole: a copy starts at 1 and may run until 100 (the time
    # grows to fill the hole). It needs 99.5 s: killed at 100, s keeps its guarantee.
    assert attempts(out["s"]) == [
        ("speculative", 1, 100, "COMPLETED_KILLED"),
        ("regular", 150, 249.5, "COMPLETED_SUCCESSFULLY"),
    ]
    assert sched.first_reservation["s"] == 150 and not out["s"].rejected
    assert sched.speculation.speculated["s"] * 100 == (99 + 100) / 2  # next: the mean of the last and the estimate
    assert out["big"].start_s == 100  # the copy never delayed a guarantee


def test_successful_speculative_copy_does_the_job():
    out = replay(Backfill(2, speculation=50), scenario(60))
    assert attempts(out["s"]) == [("speculative", 1, 61, "COMPLETED_SUCCESSFULLY")]
    assert out["s"].rejected and (out["s"].start_s, out["s"].end_s) == (1, 61)


def test_no_speculation_when_the_hole_is_shorter_than_the_speculated_time():
    out = replay(Backfill(2, speculation=99.5), scenario(60))  # needs a 99.5-s hole, there are 99
    assert attempts(out["s"]) == [("regular", 150, 210, "COMPLETED_SUCCESSFULLY")]


# 2 hosts. r (1 host) runs 0-10000; big (2 hosts, 100 s) is guaranteed 10000; t (1 host,
# estimated 20000 s > 3 h) arrives at 1 and is guaranteed 10100.
def long_scenario(t_runtime):
    return [(Job("r", 0, 1, 10000), 10000), (Job("big", 0, 2, 100), 100), (Job("t", 1, 1, 20000), t_runtime)]


def test_test_run_that_finishes():
    out = replay(Backfill(2, test_runs=True), long_scenario(200))
    assert attempts(out["t"]) == [("test", 1, 201, "COMPLETED_SUCCESSFULLY")]
    assert out["t"].rejected and out["big"].start_s == 10000


def test_test_run_that_does_not_finish_is_killed_once_and_the_job_stays_queued():
    sched = Backfill(2, test_runs=True)
    out = replay(sched, long_scenario(5000))
    # The 9999-s hole allows a test of at most 15 min (900 s); one test per job.
    assert attempts(out["t"]) == [
        ("test", 1, 901, "COMPLETED_KILLED"),
        ("regular", 10100, 15100, "COMPLETED_SUCCESSFULLY"),
    ]
    assert sched.speculation.tested == {"t"}


def test_speculation_without_guarantees():
    # -NG keeps no guarantee: the copy may run until the next placed job needs the host.
    out = replay(Backfill(2, guarantees=False, speculation=50), scenario(99.5))
    assert attempts(out["s"])[0] == ("speculative", 1, 100, "COMPLETED_KILLED")
    assert out["s"].end_s is not None and not out["s"].rejected


@pytest.mark.parametrize("guarantees", [True, False])
@pytest.mark.parametrize("order", ["D", "R/L"])
def test_invariants_with_speculation_and_test_runs_on_ctc(order, guarantees):
    jobs = _trace_jobs(CTC_EXCERPT, 338, first=1500)
    sched = Backfill(338, order=order, guarantees=guarantees, speculation=50, test_runs=True, seed=2)
    out = replay(sched, jobs)
    every = [a for o in out.values() for a in o.attempts]
    assert_no_host_runs_two_jobs([(a.start_s, a.end_s, a.hosts) for a in every])
    kinds = {a.kind for a in every}
    assert {"speculative", "test", "regular"} <= kinds
    for o in out.values():
        done = [a for a in o.attempts if a.state == "COMPLETED_SUCCESSFULLY"]
        assert len(done) <= 1, o.job.id  # killed attempts never count as completions
        assert all(a.start_s >= o.job.submit_s for a in o.attempts)
        if guarantees and o.job.id in sched.first_reservation:  # the job's work is done by its guarantee
            finished = done or [a for a in o.attempts if a.kind == "regular"]
            assert finished[0].start_s <= sched.first_reservation[o.job.id] + 1e-6, o.job.id
    assert sched.idle()
