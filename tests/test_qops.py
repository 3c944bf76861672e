"""QoPS and VQoPS admission control (core/qops.py): hand-worked cases and the deadline
invariant on a real trace excerpt."""

import functools

import pytest
from helpers import COMPILED, INTERPRETED_ONLY

from adaptsched.core.base import Job
from adaptsched.core.qops import Qops, positions
from adaptsched.core.replay import replay


def qjob(job_id, submit_s, res, walltime_s, deadline_s, price=1.0, urgent=False):
    return Job(
        job_id,
        submit_s,
        res,
        walltime_s,
        {"deadline": deadline_s, "price": price, "urgent": urgent, "estimate_s": walltime_s},
    )


def run(jobs, nb_hosts=4, **options):
    scheduler = Qops(nb_hosts, **options)
    out = replay(scheduler, [(j, j.walltime_s) for j in jobs])  # exact estimates
    return scheduler, out


def test_positions_halve_toward_the_end():
    assert positions(0) == [0] and positions(1) == [0, 1]
    assert positions(4) == [0, 2, 3, 4] and positions(8) == [0, 4, 6, 7, 8]


def test_rejected_when_it_would_push_an_accepted_job_past_its_deadline():
    # A holds the 4 hosts over [0, 10); B (deadline 21) is planned [10, 20). C (deadline 25)
    # fits nowhere: before B it pushes B to 30 > 21, moved behind B it ends at 30 > 25.
    jobs = [qjob("A", 0, 4, 10, 100), qjob("B", 1, 4, 10, 21), qjob("C", 2, 4, 10, 25)]
    sched, out = run(jobs)
    assert out["C"].rejected and out["C"].start_s is None
    assert (out["B"].start_s, out["B"].end_s) == (10, 20)
    assert [d[2] for d in sched.decisions_log] == [True, True, False]


def test_accepted_only_after_moving_a_later_job_ahead():
    # Serial machine, A runs over [0, 10). P (deadline 20) then loose Q, R, S wait behind it.
    # C (deadline 30) needs position 1 (after P, before the loose jobs), which is not a
    # candidate for 4 waiting jobs (0, 2, 3, 4): at position 0 it pushes P past 20, and only
    # moving P ahead of C (k_factor >= 1) makes the schedule feasible.
    def jobs():
        return [
            qjob("A", 0, 4, 10, 100),
            qjob("P", 1, 4, 10, 20),
            qjob("Q", 2, 4, 10, 1000),
            qjob("R", 3, 4, 10, 1000),
            qjob("S", 4, 4, 10, 1000),
            qjob("C", 5, 4, 10, 30),
        ]

    sched, out = run(jobs(), k_factor=0)
    assert out["C"].rejected  # no candidate position works without moving P
    sched, out = run(jobs(), k_factor=1)
    assert not out["C"].rejected and sched.decisions_log[-1][1:] == ("C", True, 0)
    assert (out["P"].start_s, out["C"].start_s) == (10, 20)
    assert all(out[j.id].end_s <= j.fields["deadline"] for j in jobs())


def test_vqops_rejects_a_cheap_job_qops_accepts():
    cheap = [qjob("a", 0, 2, 100, 1000, price=0.1 * 2 * 100)]  # 0.1 per processor-second
    assert not run(cheap, value_aware=False)[1]["a"].rejected
    assert not run(cheap, value_aware=True, oc_factor=0.05)[1]["a"].rejected
    assert run(cheap, value_aware=True, oc_factor=0.2)[1]["a"].rejected  # price 20 <= 0.2 x 200


def test_vqops_keeps_the_urgent_job_ahead():
    # U (urgent, price 100) waits behind A; N (normal, price 1) arrives. QoPS takes the first
    # feasible position, ahead of U, which delays U's completion and lowers its value;
    # VQoPS keeps the schedule of highest revenue: N behind U.
    def jobs():
        return [
            qjob("A", 0, 4, 10, 100),
            qjob("U", 1, 4, 10, 50, price=100, urgent=True),
            qjob("N", 2, 4, 10, 100, price=1),
        ]

    _, qops = run(jobs())
    assert qops["N"].start_s == 10 and qops["U"].start_s == 20
    _, vqops = run(jobs(), value_aware=True)
    assert vqops["U"].start_s == 10 and vqops["N"].start_s == 20


@pytest.mark.parametrize("options", [{}, {"value_aware": True, "oc_factor": 0.1}])
def test_every_accepted_job_meets_its_deadline_on_ctc(options):
    from helpers import CTC_EXCERPT

    from adaptsched.workloads.convert import convert_swf
    from adaptsched.workloads.qos import annotate

    workload, _ = convert_swf(CTC_EXCERPT, hosts=338, first=1500)
    workload, _ = annotate(workload, urgent_fraction=0.5, exact=True, seed=1)
    profiles = workload["profiles"]
    jobs = [
        (Job(str(j["id"]), j["subtime"], j["res"], j["walltime"], j), profiles[j["profile"]]["delay"])
        for j in workload["jobs"]
    ]
    out = replay(Qops(338, **options), jobs)
    accepted = [o for o in out.values() if not o.rejected]
    assert 300 < len(accepted) < len(out)
    for o in accepted:
        assert o.end_s <= o.job.fields["deadline"] + 1e-6, o.job.id


def test_qops_and_vqops_through_the_engine(tmp_path):
    import json

    from helpers import CTC_EXCERPT
    from test_cli import cli

    from adaptsched.analysis.qos import qos_metrics

    src = tmp_path / "ctc.json"
    assert cli("convert", CTC_EXCERPT, src, "--hosts", 338, "--first", 800)[0] == 0
    code, out, err = cli(
        "qos-annotate", src, tmp_path / "q.json", "--urgent", 0.5, "--exact", "--high-load", "--seed", 3
    )
    assert code == 0, err
    assert "high load: 800 -> " in out
    workload = json.loads((tmp_path / "q.json").read_text())
    revenue = {}
    for name, options in (("qops", []), ("vqops", ["--option", "value_aware=true", "--option", "oc_factor=0.2"])):
        code, _, err = cli(
            "run",
            "--scheduler",
            "qops",
            "--workload",
            tmp_path / "q.json",
            "--platform",
            338,
            "--out",
            tmp_path / name,
            *options,
        )
        assert code == 0, err
        m = qos_metrics(tmp_path / name, workload)
        assert m["all"]["missed"] == 0 and m["all"]["accepted_jobs"] < m["all"]["offered_jobs"]
        revenue[name] = m
    # VQoPS at a high OC-factor turns normal jobs away and keeps more of the urgent ones
    assert revenue["vqops"]["normal"]["accepted_jobs"] < revenue["qops"]["normal"]["accepted_jobs"]


@pytest.mark.parametrize("start", ["recorded", "empty"])
def test_dvqops_switches_oc_factor_when_the_urgent_share_changes(start):
    import random

    from adaptsched.core.dvqops import Dvqops

    rnd = random.Random(4)
    jobs = []
    for i in range(24 * 6):  # a job every 10 minutes for a day, 8 of 16 hosts for 0.5 to 1.5 h
        t = i * 600.0
        runtime = rnd.uniform(1800, 5400)
        urgent = t >= 12 * 3600 and rnd.random() < 0.8  # urgent jobs only in the second half
        price = 0.1 * 8 * runtime * (10 if urgent else 1)
        jobs.append(qjob(str(i), t, 8, runtime + 1, t + 5 * runtime, price=price, urgent=urgent))
    sched = Dvqops(16, max_window_h=4, what_if_start=start)
    out = replay(sched, [(j, j.walltime_s - 1) for j in jobs])
    first = [oc for t, oc, _ in sched.choices if t < 12 * 3600]
    later = [oc for t, oc, _ in sched.choices if t >= 16 * 3600]
    # no urgent jobs: turning normal jobs away earns nothing, but for the odd one that would finish
    # late (its value decays), only the smallest factor; many urgent jobs: normal ones are not worth
    # their room
    assert first and max(first) <= 0.05
    assert later and max(later) >= (0.05 if start == "empty" else 0.1)
    assert all(o.end_s <= o.job.fields["deadline"] + 1e-6 for o in out.values() if not o.rejected)


def test_dvqops_runs_through_the_engine_and_records_its_choices(tmp_path):
    import csv

    from helpers import CTC_EXCERPT
    from test_cli import cli

    src = tmp_path / "ctc.json"
    assert cli("convert", CTC_EXCERPT, src, "--hosts", 338, "--first", 600)[0] == 0
    assert cli("qos-annotate", src, tmp_path / "q.json", "--urgent", 0.5, "--exact")[0] == 0
    code, _, err = cli(
        "run",
        "--scheduler",
        "dvqops",
        "--workload",
        tmp_path / "q.json",
        "--platform",
        338,
        "--out",
        tmp_path / "d",
        "--option",
        "max_window_h=8",
    )
    assert code == 0, err
    rows = list(csv.DictReader(open(tmp_path / "d_jobs.csv")))
    assert all("'oc_factor'" in r["metadata"] and "'window_h'" in r["metadata"] for r in rows)


def test_replay_from_a_recorded_state_keeps_the_accepted_queue_and_its_guarantee():
    # 4 hosts: A runs on all of them since 0, planned until 100, really ending at 60; B was
    # accepted with a reservation at 100 (deadline 150). From t = 10, C (deadline 50) cannot
    # be accepted (the plan has no room before 100), and B starts when A really ends.
    a, b = qjob("A", 0.0, 4, 100.0, 500.0), qjob("B", 5.0, 4, 50.0, 150.0)
    c = qjob("C", 10.0, 4, 10.0, 50.0)
    out = replay(
        Qops(4, value_aware=True),
        [(c, 10.0)],
        running=[(a, 0.0, 100.0, [0, 1, 2, 3])],
        actual_end_s={"A": 60.0},
        waiting=[(b, 50.0)],
        reserved={"B": 100.0},
        start_s=10.0,
    )
    assert out["A"].end_s == 60.0
    assert out["C"].rejected and out["C"].start_s is None
    assert (out["B"].start_s, out["B"].end_s) == (60.0, 110.0)
    # an empty machine would have accepted C at once
    assert replay(Qops(4, value_aware=True), [(c, 10.0)])["C"].start_s == 10.0


@pytest.mark.parametrize("start", ["recorded", "empty"])
def test_dvqops_records_the_machine_state_its_what_ifs_start_from(start):
    import random

    from adaptsched.core.dvqops import Dvqops

    rnd = random.Random(7)
    jobs = []
    for i in range(24 * 6):  # a busy day on 16 hosts: a job every 10 minutes, 4 to 12 hosts
        t = i * 600.0
        runtime = rnd.uniform(600, 5400)
        urgent = rnd.random() < 0.5
        res = rnd.choice((4, 8, 12))
        price = 0.1 * res * runtime * (10 if urgent else 1)
        jobs.append(qjob(str(i), t, res, runtime + 1, t + 5 * runtime, price=price, urgent=urgent))
    sched = Dvqops(16, max_window_h=4, what_if_start=start)
    out = replay(sched, [(j, j.walltime_s - 1) for j in jobs])
    assert sched.choices
    assert all(o.end_s <= o.job.fields["deadline"] + 1e-6 for o in out.values() if not o.rejected)
    history = [(j, j.walltime_s - 1) for j in jobs]
    end = max(o.end_s for o in out.values() if o.end_s is not None)
    checked = 0
    for k in range(1, 16):  # the last hours: older states are forgotten
        t = end - k * 1800.0 + 7.0
        state = sched.state_at(t, history)
        if start == "empty":
            assert not state.running and not state.waiting
            continue
        running = {o.job.id for o in out.values() if o.start_s is not None and o.start_s < t < o.end_s}
        waiting = {o.job.id for o in out.values() if o.job.submit_s < t and o.start_s is not None and o.start_s >= t}
        assert {job.id for job, *_ in state.running} == running
        assert {job.id for job, *_ in state.waiting} == waiting
        for job, start_s, expected_end_s, hosts, actual_end_s in state.running:
            assert (start_s, actual_end_s, tuple(hosts)) == (out[job.id].start_s, out[job.id].end_s, out[job.id].hosts)
            assert expected_end_s == start_s + job.walltime_s
        for job, _, reserved_s in state.waiting:
            # a reservation keeps the deadline (later arrivals may push it back, never past that)
            assert reserved_s + job.walltime_s <= job.fields["deadline"] + 1e-6
            assert out[job.id].end_s <= job.fields["deadline"] + 1e-6
        checked += len(state.running) + len(state.waiting)
    assert checked > 0 or start == "empty"


def test_same_decisions_compares_every_opportunity_cost_test():
    from adaptsched.core.dvqops import same_decisions

    tests = [(5.0, 2, 10.0), (-1.0, 4, 100.0)]  # gain 5 against oc x 20; a loss: always rejected
    assert same_decisions(tests, 0.1, 0.2)  # 5 > 2 and 5 > 4: accepted at both
    assert not same_decisions(tests, 0.2, 0.4)  # 5 <= 8: rejected at 0.4
    assert same_decisions(tests, 0.25, 0.25) and same_decisions([], 0.0, 0.4)


@functools.cache
def reused_and_anew(start):
    """A busy day on 16 hosts with jobs ending before their estimates (so that the queue is
    compressed), under DVQoPS reusing its what-if replays within a retune (the same replay asked
    twice, or one at another OC-factor deciding every test alike) and under DVQoPS replaying
    each what-if anew: {reuse_replays: (choices, each job's (start, end, rejected), whether each
    what-if replay was given up)}. The last list is empty when the core is compiled (its calls
    to what_if_values are direct: the counter sees none)."""
    import random

    import adaptsched.core.dvqops as dvqops

    rnd = random.Random(11)
    jobs = []
    for i in range(24 * 8):
        t = i * 450.0
        estimate = rnd.uniform(600, 5400)
        urgent = rnd.random() < 0.4
        res = rnd.choice((2, 4, 8, 12))
        price = 0.1 * res * estimate * (10 if urgent else 1)
        jobs.append((qjob(str(i), t, res, estimate, t + 5 * estimate, price=price, urgent=urgent), estimate))
    jobs = [(j, rt * rnd.choice((1.0, 1.0, 0.5))) for j, rt in jobs]

    class Anew(dvqops.Dvqops):
        reuse_replays = False

    calls = []
    original = dvqops.what_if_values

    def counted(*args, **kwargs):
        found = original(*args, **kwargs)
        calls.append(found.beaten_below is not None)
        return found

    runs = {}
    dvqops.what_if_values = counted
    try:
        for cls in (dvqops.Dvqops, Anew):
            calls.clear()
            sched = cls(16, max_window_h=4, what_if_start=start)
            out = replay(sched, jobs)
            choices = sched.choices
            runs[cls.reuse_replays] = (
                choices,
                {k: (o.start_s, o.end_s, o.rejected) for k, o in out.items()},
                list(calls),
            )
    finally:
        dvqops.what_if_values = original
    return runs


@pytest.mark.parametrize("start", ["recorded", "empty"])
def test_dvqops_reused_what_if_replays_leave_every_decision_unchanged(start):
    runs = reused_and_anew(start)
    assert len({oc for _, oc, _ in runs[False][0]}) > 1  # (the window is chosen every 4 h)
    assert runs[True][:2] == runs[False][:2]


@pytest.mark.skipif(COMPILED, reason=INTERPRETED_ONLY)
@pytest.mark.parametrize("start", ["recorded", "empty"])
def test_dvqops_reuses_what_if_replays_and_gives_some_up(start):
    """With the same decisions (the test above), fewer replays, some given up below their bound."""
    runs = reused_and_anew(start)
    assert len(runs[True][2]) < len(runs[False][2])
    assert any(runs[True][2]) and not any(runs[False][2])  # replays given up, or none


def test_a_what_if_replay_is_given_up_only_below_its_bound():
    # VQoPS at factor 0 over a busy morning on 8 hosts, from an empty machine: with a bound no
    # revenue can reach, the replay is given up at once (a prefix of its tests); with one just
    # below its revenue, or equal to it, it runs to the end and gives the same values as without.
    import random

    from adaptsched.core.dvqops import what_if_values

    rnd = random.Random(3)
    history = []
    for i in range(40):
        t, estimate = i * 300.0, rnd.uniform(600, 3600)
        urgent, res = rnd.random() < 0.3, rnd.choice((2, 4, 8))
        price = 0.1 * res * estimate * (10 if urgent else 1)
        history.append((qjob(str(i), t, res, estimate, t + 3 * estimate, price=price, urgent=urgent), estimate / 2))
    full = what_if_values(8, history, 0.0, 5, 0.0, 40 * 300.0)
    revenue = sum(full.arrivals + full.waiting)
    assert revenue > 0 and full.beaten_below is None
    most = 1.01 * sum(job.fields["price"] for job, _ in history)  # beyond every job's full price
    high = what_if_values(8, history, 0.0, 5, 0.0, 40 * 300.0, bound=most)
    assert high.beaten_below == most and high.arrivals == []
    assert len(high.tests) < len(full.tests) and high.tests == full.tests[: len(high.tests)]
    assert what_if_values(8, history, 0.0, 5, 0.0, 40 * 300.0, bound=revenue * (1 - 1e-6)) == full
    assert what_if_values(8, history, 0.0, 5, 0.0, 40 * 300.0, bound=revenue).beaten_below is None  # a tie: kept


def test_a_what_if_replay_given_up_early_could_not_have_beaten_its_bound():
    # The early give-up (WhatIfQops: each waiting job's cap is its value if it started now, from
    # its admission on) against the full replay, on random busy workloads replayed from a state
    # recorded by a live DVQoPS run (running jobs, an inherited queue with its reservations) or
    # from an empty machine, at random factors and bounds around the full replay's revenue: a
    # replay given up must be one whose full revenue stays below its bound, and one not given up
    # must give the full replay's values.
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from adaptsched.core.dvqops import EMPTY, Dvqops, what_if_values

    shape = st.tuples(
        st.integers(0, 600),  # gap to the previous arrival
        st.sampled_from((1, 2, 4, 8)),
        st.integers(300, 4000),  # estimate
        st.sampled_from((0.2, 0.5, 1.0, 1.2)),  # runtime / estimate (over 1: killed at its walltime)
        st.sampled_from((1.5, 3.0, 6.0)),  # deadline slack
        st.booleans(),
    )

    @settings(max_examples=200)
    @given(
        st.lists(shape, min_size=4, max_size=28),
        st.floats(0.2, 0.8),
        st.sampled_from((0.0, 0.05, 0.1, 0.4)),
        st.floats(0.5, 1.1),
        st.booleans(),
    )
    def check(shapes, cut, oc, scale, recorded):
        jobs, t = [], 0.0
        for i, (gap, res, estimate, ratio, slack, urgent) in enumerate(shapes):
            t += gap
            price = 0.1 * res * estimate * (10 if urgent else 1)
            job = qjob(str(i), t, res, float(estimate), t + slack * estimate, price=price, urgent=urgent)
            jobs.append((job, estimate * ratio))
        start = jobs[int(cut * (len(jobs) - 1))][0].submit_s
        live = Dvqops(8, max_window_h=2)
        replay(live, [pair for pair in jobs if pair[0].submit_s < start])
        state = live.state_at(start, live.known) if recorded else EMPTY
        history = [(job, runtime) for job, runtime in jobs if job.submit_s >= start]
        end = t + 1.0
        full = what_if_values(8, history, oc, 5, start, end, state)
        revenue = sum(full.arrivals + full.waiting)
        bound = revenue * scale + (1e-3 if revenue == 0 else 0.0)
        early = what_if_values(8, history, oc, 5, start, end, state, bound=bound)
        if early.beaten_below is None:
            assert early[:3] == full[:3]
        else:
            assert revenue < bound
            assert early.tests == full.tests[: len(early.tests)]

    check()


def test_qops_compression_moves_the_same_jobs_as_the_planners_pass():
    # QoPS re-places its waiting jobs without giving their slots back first (fit_before): the
    # same moves, reservations and schedule as the reservation planner's pass, on a busy day
    # of jobs ending well before their estimates.
    import random

    from adaptsched.core.conservative import ReservationPlanner

    class PlannersPass(Qops):
        def compress(self, now):
            ReservationPlanner.compress(self, now)

    rnd = random.Random(5)
    jobs = []
    for i in range(300):
        t, estimate = i * 200.0, rnd.uniform(300, 7200)
        res, urgent = rnd.choice((1, 2, 4, 6, 8, 12)), rnd.random() < 0.3
        price = 0.1 * res * estimate * (10 if urgent else 1)
        jobs.append((qjob(str(i), t, res, estimate, t + 5 * estimate, price=price, urgent=urgent), estimate))
    jobs = [(j, rt * rnd.choice((1.0, 0.9, 0.5, 0.1))) for j, rt in jobs]
    for options in ({}, {"value_aware": True, "oc_factor": 0.05}):
        results = []
        for cls in (Qops, PlannersPass):
            sched = cls(16, **options)
            sched.audit = []
            out = replay(sched, jobs)
            results.append((sched.audit, sched.decisions_log, {k: (o.start_s, o.end_s) for k, o in out.items()}))
        assert results[0] == results[1]
        assert len(results[0][0]) > 20  # jobs did move


def test_inlined_admission_plans_and_values_as_the_profile_and_the_terms_do(monkeypatch):
    # VQoPS's hot loop works on the profile's lists (_try, _give_back) and its own copy of the
    # value function (value, planned_values): the same decisions, value tests and schedule as
    # with AvailabilityProfile's methods and QosTerms.value, on a busy day of early endings.
    import random

    import adaptsched.core.qops as qops_module
    from adaptsched.core.qos import QosTerms

    class ByTheBook(Qops):
        def _try(self, base, sequence, now):
            return self._try_slowly(base, sequence, now)

        def _take(self, pos, sequence, starts):
            self._take_slowly(pos, sequence, starts)

        def value(self, job, finish_s):
            return QosTerms.of(job.fields, job.walltime_s).value(job.submit_s, finish_s)

        def planned_values(self, jobs, starts):
            return [self.value(j, s + j.walltime_s) for j, s in zip(jobs, starts)]

    rnd = random.Random(7)
    jobs = []
    for i in range(400):
        t, estimate = i * 150.0, rnd.uniform(60, 7200)
        res, urgent = rnd.choice((1, 2, 4, 6, 8, 12, 16)), rnd.random() < 0.3
        price = 0.1 * res * estimate * (10 if urgent else 1)
        slack = rnd.choice((1.2, 2, 5))
        jobs.append((qjob(str(i), t, res, estimate, t + slack * estimate, price=price, urgent=urgent), estimate))
    jobs = [(j, rt * rnd.choice((1.0, 0.9, 0.5, 0.1))) for j, rt in jobs]
    for options in ({}, {"value_aware": True, "oc_factor": 0.0}, {"value_aware": True, "oc_factor": 0.05}):
        results = []
        for cls in (Qops, ByTheBook):
            if cls is ByTheBook:
                monkeypatch.setattr(qops_module, "_give_back", lambda profile, a, b, n: profile.release(a, b, n))
            sched = cls(16, **options)
            sched.value_tests = []
            out = replay(sched, jobs)
            results.append((sched.decisions_log, sched.value_tests, {k: (o.start_s, o.end_s) for k, o in out.items()}))
            monkeypatch.undo()
        assert results[0] == results[1]
        accepted = sum(1 for _, _, ok, _ in results[0][0] if ok)
        assert 50 < accepted < 390  # a day with both acceptances and rejections


def test_switching_qops_decides_each_arrival_with_the_factor_then_in_force():
    # two normal jobs (0.1 per processor-second): accepted at OC-factor 0, turned away at 0.4
    from adaptsched.core.dvqops import SwitchingQops

    jobs = [qjob(str(i), t, 2, 10.0, t + 100.0, price=0.1 * 2 * 10.0) for i, t in enumerate((0.0, 50.0))]
    out = replay(SwitchingQops(4, [(0.0, 0.0), (40.0, 0.4)], value_aware=True), [(j, 10.0) for j in jobs])
    assert not out["0"].rejected and out["1"].rejected
    out = replay(SwitchingQops(4, [(0.0, 0.0), (60.0, 0.4)], value_aware=True), [(j, 10.0) for j in jobs])
    assert not out["0"].rejected and not out["1"].rejected


def test_dvqops_ties_keep_the_smallest_or_the_factor_in_force():
    from adaptsched.core.dvqops import Dvqops

    scores = [(10.0, -0.0), (10.0, -0.4), (5.0, -0.1)]  # (what-if revenue, -OC-factor)
    assert Dvqops(8)._tie(scores, 0.4) == 0.0  # the smallest of the best
    keep = Dvqops(8, ties="current")
    assert keep._tie(scores, 0.4) == 0.4  # in force and among the best: kept
    assert keep._tie(scores, 0.1) == 0.0  # in force but worse: the smallest of the best
    assert keep._tie([(3.0, -3600.0), (3.0, -7200.0)], 7200.0) == 7200.0  # windows alike


def test_a_what_if_replay_sharing_another_ones_admissions_gives_the_same_values():
    # VQoPS over a busy morning on 8 hosts at two OC-factors that decide some tests apart: the
    # replay at the second factor, taking the candidates of the admissions it shares with the
    # first (shared_calls: up to the first test decided apart), gives the values and tests of
    # the replay made anew, and takes some but not all of them.
    import random

    from adaptsched.core.dvqops import same_decisions, shared_calls, what_if_values

    rnd = random.Random(3)
    history = []
    for i in range(40):
        t, estimate = i * 300.0, rnd.uniform(600, 3600)
        urgent, res = rnd.random() < 0.3, rnd.choice((2, 4, 8))
        price = 0.1 * res * estimate * (10 if urgent else 1)
        history.append((qjob(str(i), t, res, estimate, t + 3 * estimate, price=price, urgent=urgent), estimate / 2))
    end = 40 * 300.0
    first = what_if_values(8, history, 0.0, 5, 0.0, end, record=True)
    assert first.script is not None and len(first.script) == 40
    shared_some = False
    for oc in (0.05, 0.1, 0.2, 0.4, 1.0):
        anew = what_if_values(8, history, oc, 5, 0.0, end)
        calls = shared_calls(first, 0.0, oc)
        shared = what_if_values(8, history, oc, 5, 0.0, end, script=(first.script, calls))
        assert shared == anew
        if not same_decisions(first.tests, 0.0, oc):
            assert 0 < calls < len(first.script)
            shared_some = True
    assert shared_some


def test_a_schedule_taken_leaves_the_profile_as_giving_back_and_reserving_every_job_does():
    # Qops._take gives back and reserves only the re-planned jobs that move: at every admission
    # of a busy day (QoPS and VQoPS), the same steps and the same reservations, in the same
    # order, as _take_slowly's giving back and reserving every job; and some jobs kept their
    # start, others moved.
    import random

    seen = {"kept": 0, "moved": 0}

    class Checked(Qops):
        def _take(self, pos, sequence, starts):
            times, free, reservation = list(self.profile.times), list(self.profile.free), dict(self.reservation)
            old = {job.id: reservation[job.id] for job in self.waiting[pos:]}
            for planned, start in zip(sequence, starts):
                if planned.id in old:
                    seen["kept" if old[planned.id] == start else "moved"] += 1
            super()._take(pos, sequence, starts)
            fast = (list(self.profile.times), list(self.profile.free), list(self.reservation.items()))
            self.profile.times[:], self.profile.free[:] = times, free  # as it was: the slow way now
            self.reservation.clear()
            self.reservation.update(reservation)
            self._take_slowly(pos, sequence, starts)
            assert fast == (self.profile.times, self.profile.free, list(self.reservation.items()))

    rnd = random.Random(11)
    jobs = []
    for i in range(300):
        t, estimate = i * 200.0, rnd.uniform(60, 7200)
        res, urgent = rnd.choice((1, 2, 4, 6, 8, 12, 16)), rnd.random() < 0.3
        slack = rnd.choice((1.5, 3, 6))
        price = 0.1 * res * estimate * (10 if urgent else 1)
        jobs.append((qjob(str(i), t, res, estimate, t + slack * estimate, price=price, urgent=urgent), estimate))
    jobs = [(j, rt * rnd.choice((1.0, 0.7, 0.3))) for j, rt in jobs]
    for options in ({}, {"value_aware": True, "oc_factor": 0.05}):
        sched = Checked(16, **options)
        replay(sched, jobs)
        assert any(ok for _, _, ok, _ in sched.decisions_log)
    assert seen["kept"] > 50 and seen["moved"] > 50


def test_planning_try_finds_the_starts_the_profile_finds():
    # _try (the inlined hot loop, which skips the steps with too few hosts in one scan, finds the
    # step holding now once, and values each planned job on its terms read once) against
    # _try_slowly (AvailabilityProfile's own earliest_fit and reserve, Qops.value) on random busy
    # profiles and sequences, QoPS and VQoPS, jobs wider than the free hosts included (a
    # walltime of 0 is no limit: a Job is never of zero length, but _try would still place one
    # as the profile does), now anywhere, before the profile's first step included.
    from hypothesis import example, given
    from hypothesis import strategies as st

    from adaptsched.core.profile import AvailabilityProfile

    interval = st.tuples(st.integers(0, 40), st.integers(0, 30), st.integers(1, 8))
    job = st.tuples(st.integers(1, 9), st.sampled_from((0, 1, 3, 7, 20)), st.integers(0, 120), st.integers(-5, 40))

    @given(
        st.lists(interval, max_size=12),
        st.lists(job, min_size=1, max_size=6),
        st.integers(-5, 30),
        st.integers(0, 10),
        st.booleans(),
    )
    @example([(0, 10, 8), (10, 10, 7)], [(2, 3, 120, 0)], 5, 0, False)  # two steps too narrow in a row
    # a job starting at now, at a step's start, merges that step into the one before: the next
    # job's scan starts at the merged step (from the step after it, it would start at now, wrongly)
    @example([(0, 5, 4), (5, 5, 2)], [(2, 5, 120, 0), (5, 3, 120, 0)], 5, 0, True)
    @example([], [(1, 5, 120, 5)], 5, 0, True)  # completing just at submission + estimate: the full price
    def check(busy, seq, now, first_s, value_aware):
        base = AvailabilityProfile(8, float(first_s))
        for start, length, n in busy:
            if start >= first_s and base.earliest_fit(n, length, start, start) == start:
                base.reserve(start, start + length, n)
        before = (list(base.times), list(base.free))
        sched = Qops(8, value_aware=value_aware)
        sequence = [
            qjob(str(i), float(submit), n, float(w), float(d), price=1.0 + i) for i, (n, w, d, submit) in enumerate(seq)
        ]
        for j in sequence:
            sched._read_terms(j)
        fast = sched._try(base, sequence, float(now))
        assert fast == sched._try_slowly(base, sequence, float(now))
        assert len(fast[2]) == (len(fast[0]) if value_aware else 0)
        assert (base.times, base.free) == before  # the base is left as it was

    check()


# -- DVQoPS's own rules, worked by hand (Islam et al., sec. 4.3, Figure 4) ---------------------------
# A trap on 4 hosts, each job on all 4 hosts for an estimate of 1,000 s (it runs 999 s): a normal
# job N at t0 (price 0.1 x 4 x 1,000 = 400, deadline t0 + 5,000 s), then an urgent one U at t0 + 100
# (price 10 x 400 = 4,000, deadline t0 + 1,200 s: it must start by t0 + 200). VQoPS at OC-factor f
# accepts a job when its gain exceeds f x res x estimate = 4,000 f:
# * N, on an empty machine, gains 400 (it ends at t0 + 1,000, within its estimate: full price):
#   accepted at f = 0 and 0.05 (400 > 0, 400 > 200), turned away at f >= 0.1 (400 <= 400);
# * U: if N was accepted, U cannot start before t0 + 1,000 and end by its deadline: turned away;
#   else it starts at t0 + 100, ends at t0 + 1,100 (full price) and gains 4,000 > 4,000 f: accepted.
# The trap's revenue: 400 at f = 0 or 0.05, 4,000 at f = 0.1, 0.2 or 0.4.
def trap(t0, tag=""):
    normal = qjob(f"N{tag}", t0, 4, 1000.0, t0 + 5000.0, price=400.0)
    urgent = qjob(f"U{tag}", t0 + 100.0, 4, 1000.0, t0 + 1200.0, price=4000.0, urgent=True)
    return [normal, urgent]


def test_dvqops_factor_choice_by_hand():
    """Figure 4(c): the factor of highest what-if revenue over the window just past, the smallest
    of equals. Window 1 h, the trap at 0; X (4 hosts, 50 s, price 20) at 3,600 s triggers the
    choice over [0, 3,600): 400 at f = 0 and 0.05, 4,000 at 0.1, 0.2 and 0.4: f = 0.1. Live, N was
    taken at the initial factor 0 and U turned away; X is then decided at 0.1: 20 <= 0.1 x 4 x 50."""
    from adaptsched.core.dvqops import Dvqops

    x = qjob("X", 3600.0, 4, 50.0, 3600.0 + 500.0, price=20.0)
    sched = Dvqops(4, window_h=1)
    out = replay(sched, [(j, j.walltime_s - 1) for j in [*trap(0.0), x]])
    assert sched.choices == [(3600.0, 0.1, 3600.0)]
    assert not out["N"].rejected and out["U"].rejected and out["X"].rejected
    keep = Dvqops(4, window_h=1, ties="current")  # 0 (in force) is not among the best: the smallest of them
    replay(keep, [(j, j.walltime_s - 1) for j in [*trap(0.0), x]])
    assert keep.choices == [(3600.0, 0.1, 3600.0)]


def test_dvqops_retune_by_hand():
    """Sec. 4.3: the factor chosen is used "for the next rollback window hours", then chosen again
    from the window just before. Window 1 h: the trap at 0, X at 3,600 s (the first choice, 0.1,
    as above); Y (normal, 4 hosts, 1,000 s, price 400) at 5,000 s, less than an hour later: no
    choice, and Y is turned away at 0.1 (400 <= 400); Z (1 host, 10 s, price 1) at 7,300 s, over an
    hour after the first choice: a choice over [3,700, 7,300), where only Y arrived. Y pays 400 at
    f = 0 and 0.05 (400 > 200), nothing above: f = 0, the smaller. Z is then taken (1 > 0)."""
    from adaptsched.core.dvqops import Dvqops

    x = qjob("X", 3600.0, 4, 50.0, 4100.0, price=20.0)
    y = qjob("Y", 5000.0, 4, 1000.0, 10000.0, price=400.0)
    z = qjob("Z", 7300.0, 1, 10.0, 7400.0, price=1.0)
    sched = Dvqops(4, window_h=1)
    out = replay(sched, [(j, j.walltime_s - 1) for j in [*trap(0.0), x, y, z]])
    assert sched.choices == [(3600.0, 0.1, 3600.0), (7300.0, 0.0, 3600.0)]
    assert out["Y"].rejected and not out["Z"].rejected


def test_dvqops_window_choice_by_hand():
    """Figure 4(b): every max_window_h hours, DVQoPS itself is simulated over the last max_window_h
    hours with each candidate window, and the window of highest revenue is kept. max_window_h = 2:
    candidates 1 h and 2 h; the trap at 0 and again at 3,600 s (N2, U2); W (1 host, 10 s, price 1)
    at 7,200 s triggers the choice over [0, 7,200), from the factor in force, 0:
    * 1 h: [0, 1 h) at 0: N pays 400, U is turned away; [1 h, 2 h) at the best factor of
      [0, 1 h), 0.1: N2 turned away, U2 pays 4,000: 4,400;
    * 2 h: factor 0 throughout: N and N2 pay 400 each, U and U2 are turned away: 800.
    The window is 1 h, and the factor is then chosen over its last hour, [1 h, 2 h): the trap
    again, 0.1."""
    from adaptsched.core.dvqops import Dvqops

    w = qjob("W", 7200.0, 1, 10.0, 7300.0, price=1.0)
    sched = Dvqops(4, max_window_h=2)
    out = replay(sched, [(j, j.walltime_s - 1) for j in [*trap(0.0), *trap(3600.0, "2"), w]])
    assert sched.choices == [(7200.0, 0.1, 3600.0)]
    # live, at factor 0 until then: both normal jobs taken, both urgent ones turned away
    assert [out[j].rejected for j in ("N", "U", "N2", "U2")] == [False, True, False, True]
    history = sched._known()
    sched.oc_factor = 0.0  # as it was when the window was chosen: the simulations' revenues
    assert sched.simulate_dvqops(history, 3600.0, 0.0, 7200.0) == pytest.approx(4400.0)

    assert sched.simulate_dvqops(history, 7200.0, 0.0, 7200.0) == pytest.approx(800.0)
