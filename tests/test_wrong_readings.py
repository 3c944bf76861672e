"""Sensitivity to a wrong reading (issue 24): for each paper, a deliberately wrong setting goes
through the same findings code as the reproduction, at reduced size, and at least one
independent claim that does not fail under our reading must fail under the wrong one. A
wrong reading no claim catches would mean the gate cannot tell the paper's algorithm from
another."""

import pytest

from adaptsched.reproduce.common import FAILS


def newly_failing(wrong, right) -> set[str]:
    """The independent claims that fail under the wrong reading and not under ours."""
    fails = {c.claim for c in wrong if c.counted and c.verdict == FAILS}
    return fails - {c.claim for c in right if c.counted and c.verdict == FAILS}


# -- Klein & Pérez: mic (and mic+c) with the stretch limit l = 1.5 or 3 instead of 2 ------------------
KP_TESTS = 500  # l = 1.5 needs this many: on 300 tests its cells only "need more tests"
KP_HOSTS = 102


def kp_per_test(limit: float, count: int) -> dict:
    """{cbf, mic, mic+c: per-test metrics} of the first ``count`` tests, mic and mic+c with the
    stretch limit ``limit`` (l = 2 is the paper's)."""
    from adaptsched.analysis.evolving import plan_metrics
    from adaptsched.reproduce.klein_perez.plan import plans_of
    from adaptsched.workloads.evolving import generate_tests

    tests = generate_tests(count, 1)
    cbf = [plans_of(apps, KP_HOSTS, "cbf") for apps in tests]
    per_test = {"cbf": [plan_metrics(c, c, KP_HOSTS) for c in cbf]}
    for variant in ("mic", "mic+c"):
        per_test[variant] = [
            plan_metrics(plans_of(apps, KP_HOSTS, variant, stretch_limit=limit), c, KP_HOSTS)
            for apps, c in zip(tests, cbf)
        ]
    return per_test


@pytest.fixture(scope="module")
def kp_right():
    """Our reading, l = 2, on the largest size the tests use."""
    return kp_per_test(2.0, KP_TESTS)


def kp_claims(per_test: dict, count: int):
    """The cells of mic and mic+c (:func:`findings.cell`) on the first ``count`` tests."""
    from adaptsched.reproduce.klein_perez import findings

    first = {v: rows[:count] for v, rows in per_test.items()}
    return [findings.cell(first, v, m) for v in ("mic", "mic+c") for m in findings.GATED]


@pytest.mark.parametrize("limit,count", [(1.5, KP_TESTS), (3.0, 200)])
def test_klein_perez_mic_with_another_stretch_limit_fails_a_claim(kp_right, limit, count):
    wrong = kp_claims(kp_per_test(limit, count), count)
    right = kp_claims(kp_right, count)
    assert newly_failing(wrong, right), [(c.claim, c.verdict) for c in wrong]


# -- Perković & Keleher: R ignored (the random factor taken as a constant: R orders as D) -------------
PK_JOBS = 500  # on 300 jobs the orders barely differ: no claim decides either way
PK_SEEDS = 3


def pk_bsld(order: str, guarantees: bool, seed: int, jobs) -> float:
    """Mean bounded slowdown (10 s bound, at least 1) of one mix replayed in-process."""
    from adaptsched.core.backfill import Backfill
    from adaptsched.core.replay import replay

    out = replay(Backfill(430, order=order, guarantees=guarantees, seed=seed), jobs)
    done = [(o.start_s, o.end_s, o.job.submit_s) for o in out.values() if o.start_s is not None and o.end_s is not None]
    return sum(max(1.0, (end - submit) / max(end - start, 10.0)) for start, end, submit in done) / len(done)


def test_perkovic_keleher_with_r_ignored_fails_a_claim():
    from helpers import CTC_EXCERPT

    from adaptsched.core.base import Job
    from adaptsched.reproduce.perkovic_keleher import findings
    from adaptsched.workloads.convert import convert_swf

    workload, _ = convert_swf(CTC_EXCERPT, hosts=430, first=PK_JOBS)
    profiles = workload["profiles"]
    jobs = [
        (Job(str(j["id"]), j["subtime"], j["res"], j["walltime"]), profiles[j["profile"]]["delay"])
        for j in workload["jobs"]
    ]
    bsld: dict = {
        "BF": pk_bsld("D", True, 0, jobs),
        "D-NG": pk_bsld("D", False, 0, jobs),
        "1/L": pk_bsld("1/L", True, 0, jobs),
    }
    for order in ("P", "R"):
        for guarantees, suffix in ((True, ""), (False, "-NG")):
            bsld[order + suffix] = {s: pk_bsld(order, guarantees, s, jobs) for s in range(1, PK_SEEDS + 1)}
    wrong = dict(bsld, R=bsld["BF"], **{"R-NG": bsld["D-NG"]})  # R constant: R orders as D

    def claims(values):
        found = [findings.randomized_beats_priority(values), findings.ng_improves_every_order(values)]
        return [c for c in [*found, findings.priority_between(values)] if c is not None]

    assert newly_failing(claims(wrong), claims(bsld)), [(c.claim, c.verdict, c.details) for c in claims(wrong)]


# -- Downey: AVG read as MAX (AVG's cluster size taken as MAX's) -------------------------------------
def test_downey_with_avg_read_as_max_fails_a_claim(tmp_path):
    from adaptsched.engines.run import run
    from adaptsched.engines.run.spec import RunSpec
    from adaptsched.platforms.simgrid import write_cluster
    from adaptsched.reproduce.downey import findings
    from adaptsched.reproduce.downey.plan import analyse_run
    from adaptsched.workloads.convert import write_workload
    from adaptsched.workloads.downey import generate

    platform = write_cluster(64, tmp_path / "cluster64.xml")
    table1: dict = {s: {} for s in ("AVG", "PWS", "MAX")}
    for seed in (1, 2, 3):
        workload = write_workload(generate(2, 0.75, hosts=64, seed=seed), tmp_path / f"w{seed}.json")
        for strategy in table1:
            prefix = tmp_path / f"{strategy}_{seed}"
            options = {"strategy": strategy, "load": 0.75}
            run(
                RunSpec.make("downey", workload, platform, prefix, options=options, progress=False), say=lambda *a: None
            )
            table1[strategy][seed] = analyse_run(str(prefix), options, str(workload))
    wrong = dict(table1, AVG=table1["MAX"])  # AVG read as MAX: AVG's runs are MAX's

    def claims(values):
        return [findings.max_worst_of_the_three(values), findings.avg_beats_pws(values)]

    assert newly_failing(claims(wrong), claims(table1)), [(c.claim, c.verdict, c.details) for c in claims(wrong)]


# -- Islam et al.: the OC-factor fixed at 0 (VQoPS blind to the opportunity cost) ---------------------
QOS_JOBS = 300


def qos_revenue(options: dict, path) -> float:
    import json

    from adaptsched.core.base import Job
    from adaptsched.core.qops import Qops, job_value
    from adaptsched.core.replay import replay

    w = json.loads(path.read_text())
    profiles = w["profiles"]
    jobs = [
        (Job(str(j["id"]), j["subtime"], j["res"], j["walltime"], j), float(profiles[j["profile"]]["delay"]))
        for j in w["jobs"]
    ]
    out = replay(Qops(w["nb_res"], **options), jobs)
    return sum(job_value(o.job, o.end_s) for o in out.values() if o.end_s is not None and not o.rejected)


def test_islam_with_the_oc_factor_fixed_at_0_fails_a_claim(tmp_path):
    from helpers import SDSC_EXCERPT

    from adaptsched.reproduce.qops import findings
    from adaptsched.reproduce.qops.plan import scenario_workload

    right: dict = {}
    wrong: dict = {}
    for cost in (2, 10):
        key = ("SDSC-SP2", cost, 0.8, "orig", "exact")
        for seed in (1, 2, 3):
            path = scenario_workload(
                tmp_path,
                "SDSC-SP2",
                cost,
                0.8,
                "orig",
                "exact",
                jobs=QOS_JOBS,
                trace_files={"SDSC-SP2": SDSC_EXCERPT},
                seed=seed,
            )
            base = qos_revenue({}, path)
            gains = [qos_revenue({"value_aware": True, "oc_factor": oc}, path) / base - 1 for oc in findings.OC_FACTORS]
            right.setdefault(key, {})[seed] = (gains, gains[0])
            wrong.setdefault(key, {})[seed] = ([gains[0]] * len(gains), gains[0])  # every factor taken as 0

    def claims(table):
        found = [
            findings.cost_moves_best_factor(table, "SDSC-SP2"),
            findings.high_factors_lose_when_urgent_cheap(table, "SDSC-SP2"),
        ]
        return [c for c in found if c is not None]

    assert newly_failing(claims(wrong), claims(right)), [(c.claim, c.verdict, c.details) for c in claims(wrong)]
