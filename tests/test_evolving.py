"""Klein & Pérez's evolving applications (adaptsched.core.evolving): the EP helpers on the
paper's sec. 3.1 examples, Algorithm 3 on a case worked by hand, and properties of
Algorithms 1-3 on random tests (hypothesis)."""

import doctest
import importlib
import math
import pkgutil

import pytest
from helpers import COMPILED, INTERPRETED_ONLY
from hypothesis import given, settings
from hypothesis import strategies as st

from adaptsched.core import evolving
from adaptsched.core.base import Job
from adaptsched.core.conservative import ConservativeBackfilling
from adaptsched.core.evolving import (
    EP,
    INF,
    VARIANTS,
    NodeMapper,
    Planner,
    Scheduled,
    fit,
    map_nodes,
    mapping_problems,
    schedule,
)
from adaptsched.core.profile import AvailabilityProfile
from adaptsched.core.replay import replay


@pytest.mark.skipif(COMPILED, reason=INTERPRETED_ONLY)
def test_doctests():
    from adaptsched.core import profile

    modules = [
        importlib.import_module(m.name) for m in pkgutil.iter_modules(evolving.__path__, "adaptsched.core.evolving.")
    ]
    attempted = 0
    for module in (*modules, profile):
        failed, tried = doctest.testmod(module)
        assert failed == 0
        attempted += tried
    assert attempted >= 10  # the package's submodules hold the examples: they were found


# -- sec. 3.1 -----------------------------------------------------------------------------------
def test_ep_helpers_on_the_papers_examples():
    ep = EP.of([(500, 5), (3600, 10)])
    assert [ep(t) for t in (0, 499, 500, 4099, 4100, -1)] == [5, 5, 10, 10, 0, 0]
    assert ep.duration_s == 4100
    # max over half-open intervals, 0 on an empty one
    assert ep.max(0, 500) == 5 and ep.max(0, 501) == 10 and ep.max(500, 500) == 0 and ep.max(4100, 5000) == 0
    # loc: end of the last stage attaining the maximum; unclipped, or clipped to t1 (the paper's)
    assert ep.loc(0, 300) == 500 and ep.loc(0, 300, clip=True) == 300
    assert ep.loc(0, 600) == 4100 and ep.loc(0, 600, clip=True) == 600
    assert ep.chps() == (500, 4100)
    # the scheduled EP of the text: delayed 3600 s, first stage stretched by 500 s
    ep_s = EP.of([(3600, 0), (1000, 5), (3600, 10)])
    assert ep_s.is_delayed_stretched_of(ep)
    assert ep.delay(3600).is_delayed_stretched_of(ep) and ep.is_delayed_stretched_of(ep)
    assert not EP.of([(3600, 0), (400, 5), (3600, 10)]).is_delayed_stretched_of(ep)  # shrunk
    assert not EP.of([(1000, 6), (3600, 10)]).is_delayed_stretched_of(ep)  # other nodes
    assert ep.delay(3600).chps() == (3600, 4100, 7700)
    # the resource EP of the text, as a sum
    ep_r = EP.of([(1200, 10)]) + EP.of([(1200, 0), (3600, 20)])
    assert ep_r == EP.of([(1200, 10), (3600, 20)])
    assert (ep + ep).stages == ((500.0, 10), (3600.0, 20))
    assert (EP.of([(10, 1)]) + EP.of([(5, 0), (10, 2)])).stages == ((5.0, 1), (5.0, 3), (5.0, 2))


def test_profile_min_free_and_loc_are_the_papers_max_and_loc():
    p = AvailabilityProfile(10)
    p.reserve(10.0, 30.0, 4)
    p.reserve(40.0, 50.0, 8)
    ep_r = EP.of([(10, 0), (20, 4), (10, 0), (10, 8)])
    for t0, t1 in [(0, 10), (0, 11), (5, 45), (30, 40), (41, 42), (45, 60), (60, 70), (7, 7)]:
        assert p.min_free(t0, t1) == 10 - ep_r.max(t0, t1)
        if ep_r.max(t0, t1) > 0:
            assert p.loc(t0, t1) == ep_r.loc(t0, t1)


# -- Algorithm 3, by hand ----------------------------------------------------------------------
def hand_case():
    """n_max 10, busy 4 on [10, 30) and 8 on [40, 50); src (10, 1), (10, 1), (10, 10)."""
    p = AvailabilityProfile(10)
    p.reserve(10.0, 30.0, 4)
    p.reserve(40.0, 50.0, 8)
    return p, [(10.0, 1), (10.0, 1), (10.0, 10)]


@pytest.mark.parametrize("clip", [False, True])
def test_fit_by_hand(clip):
    p, src = hand_case()
    # nos: the third stage needs all 10 nodes, free from 30; no stretch: start at 10
    assert fit(src, p, 1.0, clip_loc=clip) == (10.0, (10.0, 10.0, 10.0))
    # mic: start at 0, the second stage stretched to 20 (2 x 10, the limit) to wait for 30
    assert fit(src, p, 2.0, clip_loc=clip) == (0.0, (10.0, 20.0, 10.0))
    assert fit(src, p, INF, clip_loc=clip) == (0.0, (10.0, 20.0, 10.0))
    # compacting: end at 40 as well, but start as late as possible (no stretch)
    assert fit(src, p, 2.0, compact=True, clip_loc=clip) == (10.0, (10.0, 10.0, 10.0))
    assert fit(src, p, INF, compact=True, clip_loc=clip) == (10.0, (10.0, 10.0, 10.0))
    # a stretch limit of 1.5: the second stage holds 15 s, from 5
    assert fit(src, p, 1.5, clip_loc=clip) == (5.0, (10.0, 15.0, 10.0))
    assert (p.times, p.free) == ([0.0, 10.0, 30.0, 40.0, 50.0], [10, 6, 10, 2, 10])  # fit does not reserve


def test_fit_from_a_later_origin():
    # from 25: stages at 25 and 35 fit, the third needs 10 nodes on [45, 55) but [40, 50) is busy
    p, src = hand_case()
    assert fit(src, p, INF, 25.0) == (25.0, (10.0, 15.0, 10.0))  # the second stage waits for 50
    assert fit(src, p, 1.0, 25.0) == (30.0, (10.0, 10.0, 10.0))  # or the whole moves by 5
    assert fit(src, p, INF, 25.0, compact=True) == (30.0, (10.0, 10.0, 10.0))


def test_first_stage_is_moved_not_stretched():
    p = AvailabilityProfile(4)
    p.reserve(0.0, 10.0, 2)
    # (5, 1) fits at 0, (5, 3) waits for 10: the first stage moves to [5, 10)
    for l in (1.0, 2.0, INF):
        assert fit([(5.0, 1), (5.0, 3)], p, l) == (5.0, (5.0, 5.0))


def test_the_stretched_stage_needs_room_to_hold_its_nodes():
    # the first stage could stretch to wait, but its 3 nodes are not free while it would hold them
    p = AvailabilityProfile(4)
    p.reserve(5.0, 10.0, 2)  # 2 free on [5, 10)
    p.reserve(0.0, 10.0, 1)  # and 3 free on [0, 5), 1 on [5, 10)
    assert fit([(5.0, 3), (5.0, 4)], p, INF) == (10.0, (5.0, 5.0))


def test_variants_and_the_planner():
    assert set(VARIANTS) == {"cbf", "nos", "mic", "mic+c", "inf", "inf+c"}
    with pytest.raises(ValueError, match="unknown variant"):
        Planner(10, "xyz")
    with pytest.raises(ValueError, match="at least 1"):
        fit([(1.0, 1)], AvailabilityProfile(2), 0.5)
    with pytest.raises(ValueError, match="do not fit"):
        fit([(1.0, 3)], AvailabilityProfile(2), 1.0)
    planner = Planner(10, "mic", stretch_limit=1.0)  # the override: no stretch
    p, src = hand_case()
    planner.profile = p
    assert planner.place(src).start_s == 10.0


def test_mic_stretches_a_stage_to_twice_its_length_and_no_further():
    """mic is l = 2 (sec. 5.1). On the hand case, (10, 1), (8, 1), (10, 10): the third stage
    needs the 10 nodes of [30, 40), so the second must end at 30. nos: no stretch, start 12.
    mic: the second stage lasts at most 16 s, [14, 30), after the first, [4, 14): start 4.
    l = 3 would let it last 20 s, [10, 30), and start at 0."""
    p, _ = hand_case()
    src = [(10.0, 1), (8.0, 1), (10.0, 10)]
    for variant, start, stages in (("nos", 12.0, (10.0, 8.0, 10.0)), ("mic", 4.0, (10.0, 16.0, 10.0))):
        planner = Planner(10, variant)
        planner.profile = p.copy()
        placed = planner.place(src)
        assert (placed.start_s, tuple(d for d, _ in placed.stages)) == (start, stages), variant
    assert fit(src, p, 3.0) == (0.0, (10.0, 20.0, 10.0))


# -- properties on random tests ----------------------------------------------------------------
@st.composite
def random_tests(draw, max_apps=8, max_stages=5):
    """Small random tests: many coinciding times, a small machine, so that stretches happen."""
    n_max = draw(st.integers(2, 12))
    apps = draw(
        st.lists(
            st.lists(st.tuples(st.integers(1, 10).map(float), st.integers(1, n_max)), min_size=1, max_size=max_stages),
            min_size=1,
            max_size=max_apps,
        )
    )
    return n_max, apps


def check_plan(plans, apps, n_max, l):
    total = EP(())
    for s, requested in zip(plans, apps):
        req = EP.of(requested)
        assert s.ep.is_delayed_stretched_of(req)  # C1
        assert s.start_s >= 0
        for (d, _), (rd, _) in zip(s.stages, s.requested):
            assert d <= l * rd + 1e-9  # the stretch limit
        assert s.stages[0][0] == s.requested[0][0]  # the first stage is moved, never stretched
        assert s.stages[-1][0] == s.requested[-1][0]  # the last stage is never stretched
        total = total + s.ep
    assert all(n <= n_max for _, n in total.stages)  # sum of the ep_s <= n_max


def check_algorithms_2_and_3(n_max, apps):
    plans = {}
    for variant, (l, _) in VARIANTS.items():
        if variant == "cbf":
            continue
        plans[variant] = schedule(apps, n_max, variant)
        check_plan(plans[variant], apps, n_max, l)
        # loc clipped to t1 (the paper's) gives the same fits, in more tries
        assert schedule(apps, n_max, variant, clip_loc=True) == plans[variant]
    assert all(s.stretch_s == 0 for s in plans["nos"])  # nos never stretches
    assert all(p[0].start_s == 0 for p in plans.values())  # the first application is alone


def check_compacting(n_max, apps):
    """Compacting keeps the completion, starts no earlier, so never stretches more."""
    for l in (2.0, INF):
        planner = Planner(n_max, "mic" if l == 2.0 else "inf")
        for stages in apps:
            profile = planner.profile.copy()
            base_start, base = fit(stages, profile, l)
            start, durations = fit(stages, profile, l, compact=True)
            assert start + sum(durations) == base_start + sum(base)
            assert start >= base_start
            assert sum(durations) <= sum(base)
            planner.place(stages)


def nos_brute_force(stages, profile, t0=0.0):
    """Earliest integer start at which every stage fits back to back."""
    t = t0
    while True:
        s, ok = t, True
        for d, n in stages:
            if profile.min_free(s, s + d) < n:
                ok = False
                break
            s += d
        if ok:
            return t
        t += 1.0


def check_nos_is_earliest(n_max, apps):
    planner = Planner(n_max, "nos")
    for stages in apps:
        expected = nos_brute_force(stages, planner.profile)
        assert planner.place(stages).start_s == expected


def check_cbf_is_conservative_backfilling(n_max, apps):
    plans = schedule(apps, n_max, "cbf")
    jobs = []
    for i, stages in enumerate(apps):
        total = sum(d for d, _ in stages)
        jobs.append((Job(str(i), 0.0, max(n for _, n in stages), total), total))
    outcomes = replay(ConservativeBackfilling(n_max, record_reservations=False), jobs)
    assert [outcomes[str(i)].start_s for i in range(len(apps))] == [s.start_s for s in plans]
    for s in plans:
        assert s.stretch_s == 0 and len(s.stages) == 1
        assert s.allocated_node_s == s.stages[0][0] * s.stages[0][1] >= s.used_node_s


def check_node_mapping(n_max, apps, mapping, seed):
    for variant in ("nos", "inf+c", "cbf"):
        plans = schedule(apps, n_max, variant)
        hosts = map_nodes(plans, n_max, mapping, seed)
        assert mapping_problems(plans, hosts) == []
        for stage_hosts in hosts:
            assert all(stage_hosts[0][0] in nodes for nodes in stage_hosts)  # the driver stays


def check_everything(case, mapping, seed):
    n_max, apps = case
    check_algorithms_2_and_3(n_max, apps)
    check_compacting(n_max, apps)
    check_nos_is_earliest(n_max, apps)
    check_cbf_is_conservative_backfilling(n_max, apps)
    check_node_mapping(n_max, apps, mapping, seed)


CASES = (random_tests(), st.sampled_from(["random", "lowest"]), st.integers(0, 3))


@settings(max_examples=150)
@given(*CASES)
def test_properties_of_algorithms_1_2_3(case, mapping, seed):
    """C1, sum of ep_s <= n_max, stretch <= l d, first and last stages unstretched, the paper's
    loc gives the same fits, compacting keeps C and starts no earlier, nos starts at the
    earliest feasible time, cbf = ConservativeBackfilling's replay, Algorithm 1 meets C2-C4."""
    check_everything(case, mapping, seed)


@pytest.mark.slow
@settings(max_examples=2000)
@given(*CASES)
def test_properties_on_2000_random_tests(case, mapping, seed):
    check_everything(case, mapping, seed)


def test_mapping_problems_are_found():
    plans = [Scheduled(0.0, ((10.0, 2), (10.0, 2)), ((10.0, 2), (10.0, 2))), Scheduled(5.0, ((10.0, 1),), ((10.0, 1),))]
    assert mapping_problems(plans, [[(0, 1), (0, 1)], [(2,)]]) == []
    assert any("C2" in p for p in mapping_problems(plans, [[(0,), (0, 1)], [(2,)]]))
    assert any("C4" in p for p in mapping_problems(plans, [[(0, 1), (1, 2)], [(3,)]]))
    assert any("C3" in p for p in mapping_problems(plans, [[(0, 1), (0, 1)], [(1,)]]))


def test_node_mapper_shrinks_the_most_recent_and_grows_at_random():
    mapper = NodeMapper(10, "random", seed=3)
    first = mapper.resize("a", 3)
    grown = mapper.resize("a", 7)
    assert grown[:3] == first and len(set(grown)) == 7
    assert mapper.resize("a", 2) == first[:2]  # the driver (first node) stays
    assert sorted(mapper.free) == sorted(set(range(10)) - set(first[:2]))
    with pytest.raises(ValueError, match="only 8 are free"):
        mapper.resize("b", 9)
    lowest = NodeMapper(5, "lowest")
    assert lowest.resize("a", 2) == [0, 1] and lowest.resize("b", 2) == [2, 3]
    lowest.resize("a", 0)
    assert lowest.resize("c", 3) == [0, 1, 4]
    assert math.isinf(INF)


# -- the workload generator (sec. 5.1) -----------------------------------------------------------
def test_generate_sanity_means():
    from adaptsched.analysis.evolving import plan_metrics, summarise
    from adaptsched.workloads.evolving import N_MAX, generate_tests

    tests = generate_tests(1000, seed=1)
    apps = [len(t) for t in tests]
    stages = [len(a) for t in tests for a in t]
    durations = [d for t in tests for a in t for d, _ in a]
    nodes = [n for t in tests for a in t for _, n in a]
    assert min(apps) == 15 and max(apps) == 20 and sum(apps) / len(apps) == pytest.approx(17.5, abs=0.15)
    assert min(stages) == 1 and max(stages) == 10 and sum(stages) / len(stages) == pytest.approx(5.5, abs=0.1)
    assert min(durations) >= 500 and max(durations) <= 3600
    assert sum(durations) / len(durations) == pytest.approx(2050, abs=15)
    assert min(nodes) == 1 and max(nodes) == 75 and sum(nodes) / len(nodes) == pytest.approx(38, abs=0.3)
    assert all(isinstance(d, int) and isinstance(n, int) for d, n in tests[0][0:1][0])
    # CBF wastes about 70 % (the paper's average)
    waste = [plan_metrics(p, p, N_MAX)["waste_pct"] for p in (schedule(t, N_MAX, "cbf") for t in tests[:300])]
    assert summarise([{"waste_pct": w} for w in waste])["waste_pct"][1] == pytest.approx(70, abs=5)


def test_generate_is_per_test_reproducible_and_writes_workloads(tmp_path):
    import json

    from adaptsched.core.base import Job
    from adaptsched.core.evolving import stages_of
    from adaptsched.errors import AdaptschedError
    from adaptsched.workloads.evolving import generate_tests, nth_case, read_test, to_workload, write_tests

    assert generate_tests(5, seed=3)[4] == generate_tests(50, seed=3)[4] == nth_case(4, seed=3)
    assert generate_tests(3, seed=3) != generate_tests(3, seed=4)
    paths = write_tests(tmp_path / "w", 3, seed=3)
    assert [p.name for p in paths] == ["test0001.json", "test0002.json", "test0003.json"]
    workload = json.loads(paths[1].read_text())
    assert read_test(workload) == [list(map(tuple, a)) for a in nth_case(1, seed=3)]
    job = workload["jobs"][0]
    stages = job["evolving"]["stages"]
    assert job["subtime"] == 0 and job["res"] == max(n for _, n in stages)
    assert job["walltime"] == sum(d for d, _ in stages) + 1
    assert workload["profiles"][job["profile"]] == {"type": "delay", "delay": sum(d for d, _ in stages)}
    as_job = Job(job["id"], 0.0, job["res"], job["walltime"], job)
    assert stages_of(as_job) == tuple((float(d), n) for d, n in stages)
    assert stages_of(Job("x", 0.0, 3, 50.0)) == ((50.0, 3),)
    with pytest.raises(AdaptschedError, match="75 nodes"):
        write_tests(tmp_path / "v", 1, hosts=64)
    with pytest.raises(AdaptschedError, match="more than the machine"):
        to_workload([[(10, 5)]], hosts=4)


# -- the metrics (sec. 5.1) ----------------------------------------------------------------------
def test_metrics_by_hand():
    from adaptsched.analysis.evolving import plan_metrics, summarise

    apps = [[(10, 2)], [(5, 1), (5, 3)]]
    nos, cbf = schedule(apps, 4, "nos"), schedule(apps, 4, "cbf")
    assert [(s.start_s, s.end_s) for s in nos] == [(0, 10), (5, 15)]
    assert [(s.start_s, s.end_s) for s in cbf] == [(0, 10), (10, 20)]
    m, c = plan_metrics(nos, cbf, 4), plan_metrics(cbf, cbf, 4)
    assert m["waste_pct"] == 0 and c["waste_pct"] == pytest.approx(25)  # A_CBF = 20 + 30, U = 40
    assert m["reservation"] == pytest.approx(0.8) and c["reservation"] == 1
    assert m["utilisation_pct"] == pytest.approx(100 * 40 / 60) and c["utilisation_pct"] == pytest.approx(50)
    assert m["makespan"] == pytest.approx(0.75)
    assert m["avg_jct"] == pytest.approx(12.5 / 15) and m["avg_jwt"] == pytest.approx(0.5)
    assert c["job_waste_pct"] == [0, pytest.approx(50)] and m["job_waste_pct"] == [0, 0]
    stretched = Scheduled(0.0, ((10.0, 1), (20.0, 1), (10.0, 10)), ((10.0, 1), (10.0, 1), (10.0, 10)))
    s = plan_metrics([stretched], [Scheduled(0.0, ((30.0, 10),), stretched.requested)], 10)
    assert s["stretches_pct"] == 100 and s["job_stretch_pct"] == [pytest.approx(100 / 3)]
    assert s["job_waste_pct"] == [pytest.approx(100 * 10 / 120)] and s["waste_pct"] == pytest.approx(100 * 10 / 120)
    summary = summarise([m, c])
    assert summary["waste_pct"] == (0, pytest.approx(12.5), pytest.approx(25))
    assert summary["job_waste_pct"] == (0, pytest.approx(12.5), pytest.approx(50))  # over all applications


# -- the online scheduler (the ``evolving`` plugin's core) ------------------------------------
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_scheduler_runs_the_plan_in_process(variant):
    from adaptsched.core.evolving import EvolvingScheduler
    from adaptsched.workloads.evolving import nth_case

    apps = nth_case(0, seed=2)
    plans = schedule(apps, 100, variant)
    hosts = map_nodes(plans, 100, "random", 0)
    jobs = []
    for i, stages in enumerate(apps):
        total = sum(d for d, _ in stages)
        fields = {"evolving": {"stages": [list(s) for s in stages]}}
        jobs.append((Job(f"w0!{i + 1}", 0.0, max(n for _, n in stages), total + 1, fields), float(total)))
    outcomes = replay(EvolvingScheduler(100, variant=variant), list(reversed(jobs)))  # arrival order is irrelevant
    for i, (plan, stage_hosts) in enumerate(zip(plans, hosts)):
        attempts = outcomes[f"w0!{i + 1}"].attempts
        if variant == "cbf":
            (a,) = attempts
            assert (a.start_s, a.end_s, a.kind) == (plan.start_s, plan.end_s, "regular")
            continue
        stages = [a for a in attempts if a.kind == "stage"]
        held = {round(a.start_s, 6): a for a in attempts if a.kind == "hold"}
        assert len(stages) == len(plan.stages) and outcomes[f"w0!{i + 1}"].rejected
        for k, (a, t, (d, _), nodes) in enumerate(zip(stages, plan.starts(), plan.stages, stage_hosts)):
            assert a.start_s == pytest.approx(t) and a.end_s - a.start_s == pytest.approx(plan.requested[k][0])
            assert sorted(a.hosts) == sorted(nodes)  # the hosts of Algorithm 1, offline
            if d > plan.requested[k][0]:
                hold = held[round(a.end_s, 6)]
                assert hold.end_s == pytest.approx(t + d) and hold.hosts == a.hosts


def test_scheduler_options():
    from adaptsched.core.evolving import EvolvingOptions
    from adaptsched.core.options import OptionError

    o = EvolvingOptions.parse({"variant": "mic", "stretch_limit": "3"})
    assert o.planner(10).limit == 3 and o.planner(10).compacting is False and o.needs_dynamic_jobs()
    assert EvolvingOptions.parse({"variant": "inf", "compact": "yes"}).planner(10).compacting
    assert EvolvingOptions.parse({"stretch_limit": "inf"}).planner(10).limit == INF
    assert not EvolvingOptions.parse({"variant": "cbf"}).needs_dynamic_jobs()
    with pytest.raises(OptionError, match="at least 1"):
        EvolvingOptions.parse({"stretch_limit": "0.5"})
    with pytest.raises(OptionError, match="do not apply"):
        EvolvingOptions.parse({"variant": "cbf", "compact": "yes"})


@pytest.mark.parametrize("variant", ["nos", "inf+c"])
def test_embedded_engine_run_folds_to_the_plan(tmp_path, variant):
    from adaptsched.engines.run import RunSpec, run
    from adaptsched.reproduce.klein_perez.plan import analyse_run
    from adaptsched.workloads.evolving import write_tests

    (path,) = write_tests(tmp_path / "w", 1, seed=5)
    prefix = tmp_path / f"run_{variant}"
    run(RunSpec.make("evolving", path, 100, prefix, options={"variant": variant}, progress=False), say=lambda *a: None)
    result = analyse_run(str(prefix), {"variant": variant}, str(path))
    assert result["problems"] == result["violations"] == result["metrics_differ"] == []
    assert result["copies"] > 20


# -- the command line ----------------------------------------------------------------------------
def test_generate_and_run_from_the_command_line(tmp_path):
    """Issue 12, acceptance 3: generate evolving DIR, then run one test under inf+c; fold = plan."""
    from test_cli import assert_usage_error, cli

    from adaptsched.reproduce.klein_perez.plan import analyse_run

    code, _, err = cli("generate", "evolving", tmp_path / "w", "--tests", "2", "--seed", "4")
    assert code == 0, err
    assert sorted(p.name for p in (tmp_path / "w").iterdir()) == ["test0001.json", "test0002.json"]
    assert_usage_error(*cli("generate", "evolving", tmp_path / "v", "--hosts", "50")[::2], "75 nodes")
    assert_usage_error(*cli("generate", "evolving", tmp_path / "v", "--swf", "x.swf")[::2], "no SWF form")
    workload = tmp_path / "w" / "test0001.json"
    args = ("run", "--scheduler", "evolving", "--workload", workload, "--platform", "100", "--out")
    code, _, err = cli(*args, tmp_path / "o" / "t", "--option", "variant=inf+c")
    assert code == 0, err
    result = analyse_run(str(tmp_path / "o" / "t"), {"variant": "inf+c"}, str(workload))
    assert result["problems"] == result["violations"] == result["metrics_differ"] == []
    assert_usage_error(*cli(*args, tmp_path / "o" / "u", "--option", "variant=xyz")[::2], "variant", "inf+c")
