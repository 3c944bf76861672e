"""Incremental compression (issue 26): re-placing only the jobs a freed region admits gives
the same reservations, moves and schedule as re-placing every waiting job (the full pass).

Random job streams on small machines build deep queues with many ties (same submission
times, same walltimes, early and on-time completions, jobs without walltime); each is
replayed twice, incrementally and with the full pass, and every move must agree.
"""

from hypothesis import given, settings
from hypothesis import strategies as st

from adaptsched.core.base import Job
from adaptsched.core.conservative import ConservativeBackfilling
from adaptsched.core.profile import AvailabilityProfile
from adaptsched.core.replay import replay


def full(nb_hosts: int, **options) -> ConservativeBackfilling:
    """ConservativeBackfilling re-placing every waiting job at each compression (the reference)."""
    sched = ConservativeBackfilling(nb_hosts, **options)
    sched.incremental = False
    sched.profile.freed = None
    return sched


def both(nb_hosts, jobs, **options):
    results = []
    for sched in (ConservativeBackfilling(nb_hosts, **options), full(nb_hosts, **options)):
        sched.audit = []
        out = replay(sched, [(Job(j.id, j.submit_s, j.res, j.walltime_s), r) for j, r in jobs])
        results.append((sched.audit, {k: (o.start_s, o.hosts) for k, o in out.items()}, sched.first_reservation))
    return results


@st.composite
def streams(draw):
    nb_hosts = draw(st.integers(2, 12))
    n = draw(st.integers(1, 60))
    jobs, t = [], 0
    for i in range(n):
        t += draw(st.sampled_from([0, 0, 1, 2, 5, 13]))
        res = draw(st.integers(1, nb_hosts))
        walltime = draw(st.sampled_from([1, 2, 3, 5, 8, 20, 50, -1]))
        runtime = draw(st.sampled_from([0.5, 1, 2, 4, 7, 19, 30]))
        if walltime > 0:
            runtime = min(runtime, walltime)
        jobs.append((Job(str(i), float(t), res, float(walltime)), float(runtime)))
    order = draw(st.sampled_from(["fcfs", "fcfs", "sjf", "large"]))
    return nb_hosts, jobs, order


@settings(max_examples=300)
@given(streams())
def test_incremental_compression_moves_the_same_jobs_as_the_full_pass(stream):
    nb_hosts, jobs, order = stream
    incremental, reference = both(nb_hosts, jobs, order=order)
    assert incremental == reference


def test_incremental_compression_on_a_deep_queue_touches_few_jobs():
    """A machine twice over-subscribed: the same schedule, and most waiting jobs untouched."""
    import random

    rng = random.Random(3)
    jobs, t = [], 0.0
    for i in range(600):
        t += rng.choice([0.0, 10.0, 30.0, 60.0])
        walltime = rng.choice([100.0, 300.0, 1000.0, 3000.0])
        jobs.append((Job(str(i), t, rng.choice([1, 2, 4, 8, 16, 32]), walltime), walltime * rng.random()))
    incremental, reference = both(64, jobs)
    assert incremental == reference and len(incremental[0]) > 100


def test_runs_through_and_max_free():
    p = AvailabilityProfile(10)
    p.reserve(10.0, 30.0, 4)
    p.reserve(40.0, 50.0, 8)
    assert p.max_free(12.0, 45.0) == 10 and p.max_free(40.0, 50.0) == 2 and p.max_free(5.0, 5.0) == 0
    assert p.runs_through(35.0, 45.0, 3) == (40.0, 40.0)  # 3 hosts free from 0 to 40, then from 50 on
    assert p.runs_through(0.0, 60.0, 3) == (float("inf"), float("inf"))
    assert p.runs_through(42.0, 45.0, 3) == (0.0, float("-inf"))
