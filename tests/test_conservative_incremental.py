"""Incremental compression: re-placing only the jobs a freed region admits gives
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


@st.composite
def narrow_backlogs(draw):
    """Deep queues of a few narrow shapes arriving in batches, most ending long before their
    walltime: each early completion moves chains of same-shape reservations, and the scans of
    a shape start where the last one of that shape found its fit."""
    nb_hosts = draw(st.integers(2, 10))
    shapes = draw(
        st.lists(st.tuples(st.sampled_from([1, 1, 2, 3]), st.sampled_from([6, 20, 30, 90])), min_size=1, max_size=3)
    )
    jobs, t = [], 0
    for _ in range(draw(st.integers(1, 14))):
        t += draw(st.sampled_from([0, 1, 3, 10, 40]))
        res, walltime = draw(st.sampled_from(shapes))
        for _ in range(draw(st.integers(1, 8))):
            runtime = draw(st.sampled_from([0.5, 1, 2, 3, 7, walltime]))
            jobs.append(
                (Job(str(len(jobs)), float(t), min(res, nb_hosts), float(walltime)), float(min(runtime, walltime)))
            )
    return nb_hosts, jobs


@settings(max_examples=300)
@given(narrow_backlogs())
def test_incremental_compression_of_narrow_same_shape_backlogs(stream):
    nb_hosts, jobs = stream
    incremental, reference = both(nb_hosts, jobs)
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


def test_profile_helpers_of_incremental_compression():
    p = AvailabilityProfile(10)
    p.reserve(10.0, 30.0, 4)
    p.reserve(40.0, 50.0, 8)
    assert p.max_free(12.0, 45.0) == 10 and p.max_free(40.0, 50.0) == 2 and p.max_free(5.0, 5.0) == 0
    assert p.free_range(12.0, 45.0) == (2, 10) and p.free_range(0.0, 10.0) == (10, 10)
    assert p.free_before(10.0) == 10 and p.free_before(11.0) == 6 and p.free_before(50.0) == 2
    assert p.step_start(35.0) == 30.0 and p.step_start(-5.0) == 0.0
    # 7 hosts for 15 s: [0, 10) is too short, [30, 40) too, unless its own slot begins at 40
    assert p.fit_before(7, 15.0, 0.0, 60.0) == 50.0 and p.fit_before(7, 10.0, 0.0, 60.0) == 0.0
    assert p.fit_before(7, 15.0, 0.0, 45.0) == 45.0 and p.fit_before(7, 15.0, 0.0, 40.0) == 30.0
    assert p.fit_before(7, 15.0, 31.0, 40.0) == 31.0  # a start between steps, as asked
    assert p.widened(30.0, 35.0, 7) == ([], [], [10], [40.0])  # 6 free before 30, 2 from 40
    shifted = p.copy()
    shifted.reserve(60.0, 70.0, 3)
    reference = shifted.copy()
    reference.release(60.0, 70.0, 3)
    reference.reserve(20.0, 30.0, 3)
    shifted.shift(3, 60.0, 20.0, 10.0)
    assert (shifted.times, shifted.free) == (reference.times, reference.free)
