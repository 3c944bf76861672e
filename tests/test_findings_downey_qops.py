"""The claims of Downey's and Islam et al.'s reproductions, on small cases worked by hand: the
paper's numbers where they should hold, numbers outside the paper's precision where they
should not, and the classes of the claims that cannot fail on their own."""

import pytest

from adaptsched.reproduce.common import (
    BY_CONSTRUCTION,
    FAILS,
    HOLDS,
    INDEPENDENT,
    MORE,
    NOT_CHECKED,
    WORKLOAD,
    Sample,
    counts,
    headline,
    workload_fact,
)
from adaptsched.reproduce.downey import findings as downey
from adaptsched.reproduce.qops import findings as qops


def seeds(*values):
    return dict(enumerate(values, start=1))


def runs(**metrics_per_seed):
    """{seed: {metric: value}} from metric=[per-seed values]."""
    count = len(next(iter(metrics_per_seed.values())))
    return {k + 1: {m: v[k] for m, v in metrics_per_seed.items()} for k in range(count)}


# -- common -------------------------------------------------------------------------------------
def test_workload_facts_are_counted_apart_and_unstated_ones_not_checked():
    stated = workload_fact("load", "89 %", Sample.exact_value(0.889), (0.885, 0.895), "+- 0.5", "paper")
    off = workload_fact("load", "74 %", Sample.exact_value(0.761), (0.735, 0.745), "+- 0.5", "paper")
    unstated = workload_fact("width", "not stated", Sample.exact_value(8.9), None, "-", "-")
    assert (stated.verdict, off.verdict, unstated.verdict) == (HOLDS, FAILS, NOT_CHECKED)
    assert all(f.klass == WORKLOAD and not f.counted for f in (stated, off, unstated))
    k = counts([stated, off, unstated])
    assert (k["independent"], k["workload"], k["workload_hold"], k["workload_unstated"]) == (0, 2, 1, 1)
    assert "1 of 2 workload facts match the paper's, 1 more workload facts are shown" in headline(
        [stated, off, unstated]
    )


# -- Downey, sec. 6.1 ---------------------------------------------------------------------------------
def fig11_with(ratio, loads=(0.5, 1.0), strategy="AVG"):
    """ASP's turnaround 5,000 and 9,000 s at rho 0.5 and 1.0 (three seeds, a little noise), the
    stubborn strategy's ``ratio`` times it."""
    out = {}
    for load, asp in zip(loads, (5000.0, 9000.0)):
        out[("ASP", load, "greedy")] = runs(
            turnaround_s=[asp, asp * 1.01, asp * 0.99],
            utilization=[0.4, 0.41, 0.39] if load == 0.5 else [0.6, 0.61, 0.59],
        )
        out[(strategy, load, "stubborn")] = runs(
            turnaround_s=[asp * ratio, asp * 1.01 * ratio * 1.01, asp * 0.99 * ratio * 0.99]
        )
    return out


def test_stubborn_over_asp_within_the_papers_range_and_its_rounding():
    inside = downey.stubborn_over_asp(fig11_with(6.0), "AVG", (0.5, 1.0))
    assert inside.verdict == HOLDS and inside.klass == INDEPENDENT and inside.tolerance == "4.5 to 8.5"
    assert inside.ours.mean == pytest.approx(6.0, rel=0.02) and inside.paper == "5-8 times"
    # the chained reading's ratios (ours, measured: 14 to 40 for AVG) lie wholly outside
    assert downey.stubborn_over_asp(fig11_with(20.0), "AVG", (0.5, 1.0)).verdict == FAILS
    sev = downey.stubborn_over_asp(fig11_with(2.4, strategy="SEV"), "SEV", (0.5, 1.0))
    assert sev.paper == "twice" and sev.tolerance == "1.5 to 2.5" and sev.verdict == HOLDS
    assert downey.stubborn_over_asp(fig11_with(2.7, strategy="SEV"), "SEV", (0.5, 1.0)).verdict == FAILS
    assert downey.stubborn_over_asp({}, "AVG", (0.5,)) is None


def test_asp_turnaround_and_utilization_ranges():
    turnaround, utilization = downey.asp_range(fig11_with(6.0))
    assert turnaround.verdict == HOLDS and utilization.verdict == HOLDS
    slow = fig11_with(6.0)
    slow[("ASP", 1.0, "greedy")] = runs(turnaround_s=[9940.0, 9990.0, 9900.0], utilization=[0.6, 0.6, 0.6])
    turnaround, _ = downey.asp_range(slow)
    assert turnaround.verdict == FAILS and "rho 1" in turnaround.details  # 9,940 s: beyond 9,000 +- 500


# -- Downey, sec. 6.5 ---------------------------------------------------------------------------------
def test_not_significantly_different_has_one_threshold():
    margin = downey.SAME_TURNAROUND
    assert margin == pytest.approx(6017 / 5782 - 1)
    assert downey.not_significantly_different(Sample.of([0.01, -0.01, 0.0, 0.005]), margin) == HOLDS
    # a significant difference (interval excluding 0), however small, is a difference
    assert downey.not_significantly_different(Sample.of([0.010, 0.011, 0.012, 0.011]), margin) == FAILS
    # an interval including 0 but wider than the margin cannot tell
    assert downey.not_significantly_different(Sample.of([0.2, -0.2, 0.1]), margin).startswith(MORE)


def test_variance_insensitive_strategies():
    fig11 = {("SEV", 0.5, "greedy"): runs(turnaround_s=[5000, 5100, 4900], cluster_size=[8, 8.1, 7.9])}
    fig11[("PWS", 0.5, "greedy")] = runs(
        turnaround_s=[5500, 5600, 5400], utilization=[0.5, 0.51, 0.49], queue_s=[500, 510, 490],
        slowdown_p90=[70, 72, 68], cluster_size=[10, 10.1, 9.9],
    )  # fmt: skip
    fig15 = {("SSEV", 0.5): runs(turnaround_s=[5010, 5090, 4905], cluster_size=[8.05, 8.1, 7.9])}
    fig15[("3/2AVG", 0.5)] = runs(
        turnaround_s=[5800, 5900, 5700], utilization=[0.48, 0.49, 0.47], queue_s=[700, 710, 690],
        slowdown_p90=[90, 92, 88], cluster_size=[10.2, 10.2, 10.0],
    )  # fmt: skip
    assert downey.ssev_like_sev(fig11, fig15, (0.5,)).verdict == HOLDS
    assert downey.threehalves_avg_worse_than_pws(fig11, fig15, (0.5,)).verdict == HOLDS
    sizes = downey.insensitive_sizes(fig11, fig15, (0.5,))
    assert sizes.verdict == HOLDS and not sizes.counted and sizes.klass.startswith("depends on")
    # 3/2 AVG better on one metric: "worse by all metrics" does not hold
    fig15[("3/2AVG", 0.5)][1]["utilization"] = fig15[("3/2AVG", 0.5)][2]["utilization"] = 0.6
    fig15[("3/2AVG", 0.5)][3]["utilization"] = 0.61
    assert downey.threehalves_avg_worse_than_pws(fig11, fig15, (0.5,)).verdict == FAILS


def test_c_equal_1_restates_greedy_beats_stubborn():
    fig13 = {
        ("SEV", 0.0): seeds({"utilization": 0.5, "turnaround_s": 6000}, {"utilization": 0.51, "turnaround_s": 6100})
    }
    fig13[("SEV", 1.0)] = seeds({"utilization": 0.3, "turnaround_s": 9000}, {"utilization": 0.31, "turnaround_s": 9500})
    claim = downey.large_minimum_degrades(fig13, ["SEV"])
    assert claim.verdict == HOLDS and not claim.counted and "c = 1 is stubborn" in claim.klass


def test_downey_workload_facts_at_the_papers_precision():
    model = {"mean_min": 271.25, "median_min": 18.28, "jobs_day_0.5": 84.9, "jobs_day_1": 169.9, "sequential": 0.0975}
    facts = downey.workload_facts(model, {"load_ratio": [1.001, 0.999, 1.0, 1.002, 0.998], "mean_A": [15.1, 15.2]})
    verdicts = {f.claim: f.verdict for f in facts}
    assert all(f.klass == WORKLOAD for f in facts)
    assert verdicts["mean sequential lifetime L (min)"] == HOLDS and verdicts["median lifetime (min)"] == HOLDS
    assert verdicts["jobs per day at rho 0.5"] == HOLDS  # 84.9: within 80 +- 5
    assert verdicts["jobs per day at rho 1"] == FAILS  # 169.9 against 160 +- 5
    assert verdicts["share of sequential jobs (AVG runs them on 1 processor: A < 1.5)"] == FAILS
    assert verdicts["offered load of the generated workloads over the nominal rho"] == HOLDS
    assert verdicts["mean average parallelism A of the jobs"] == NOT_CHECKED


# -- Islam et al. -------------------------------------------------------------------------------------
def table_of(gains_by_key, trace="SDSC-SP2", noise=(0.0, 0.01, -0.01), dv_behind=0.02):
    out = {}
    for (cost, urgent, load), gains in gains_by_key.items():
        out[(trace, cost, urgent, load, "exact")] = {
            k: ([g + e for g in gains], (1 + max(gains) + e) * (1 - dv_behind) - 1)
            for k, e in enumerate(noise, start=1)
        }
    return out


def test_table1_cells_hold_within_5_percent_of_the_papers_revenue():
    paper = {k: [x / 100 for x in v] for k, v in qops.PAPER_TABLE1.items()}
    found = qops.table1_cells(table_of(paper, noise=(0.0, 0.0, 0.0)), "SDSC-SP2")
    assert len(found) == 30 and all(c.verdict == HOLDS for c in found), [c.claim for c in found if not c.holds]
    cell = next(c for c in found if c.claim == "SDSC-SP2: Table 1, C=10 U=80 % high load, OC 0.4")
    assert cell.paper == "+160 %" and cell.tolerance == "+147 % to +173 %" and cell.klass == INDEPENDENT
    # C = 2 at OC 0.2 and 0.4: arithmetic of the acceptance test, not counted
    arithmetic = [c for c in found if not c.counted]
    assert {c.claim.split(", ")[-1] for c in arithmetic} == {"OC 0.2", "OC 0.4"} and len(arithmetic) == 2
    # ours 10 points above the paper at +37 %: outside +30 % to +44 %
    high = {k: [x + 0.10 for x in v] for k, v in paper.items()}
    cell = next(
        c for c in qops.table1_cells(table_of(high), "SDSC-SP2") if c.claim.endswith("C=10 U=80 % orig load, OC 0.1")
    )
    assert cell.verdict == FAILS


def test_ctc_gains_of_the_text():
    table = table_of(
        {(10, 0.8, "orig"): [0.02, 0.03, 0.05, 0.05, 0.05], (10, 0.8, "high"): [0.6, 0.8, 1.0, 1.02, 1.0]},
        trace="CTC-SP2",
    )
    orig, high = qops.ctc_gain(table, "CTC-SP2", "orig"), qops.ctc_gain(table, "CTC-SP2", "high")
    assert orig.verdict == HOLDS and orig.paper == "around +5 %"
    assert high.verdict == HOLDS and high.paper == "as high as +100 %" and high.tolerance == "+90 % to +110 %"
    table = table_of({(10, 0.8, "high"): [0.3, 0.4, 0.5, 0.5, 0.5]}, trace="CTC-SP2")
    assert qops.ctc_gain(table, "CTC-SP2", "high").verdict == FAILS


def test_dvqops_within_5_percent_only_counts_where_the_factor_matters():
    flat = table_of({(c, u, "orig"): [0.01, 0.011, 0.012, 0.01, 0.012] for c, u in qops.ORIGINAL}, dv_behind=0.0)
    claim = qops.dvqops_near_best_static(flat, "SDSC-SP2")
    assert claim.klass == BY_CONSTRUCTION and not claim.counted and "any choice passes" in claim.details
    paper = table_of({k: [x / 100 for x in v] for k, v in qops.PAPER_TABLE1.items()}, dv_behind=0.08)
    claim = qops.dvqops_near_best_static(paper, "SDSC-SP2")
    assert claim.counted and claim.verdict == FAILS  # 8 % behind where the factor matters


def test_cost_claim_compares_factors_that_can_differ():
    paper = table_of({k: [x / 100 for x in v] for k, v in qops.PAPER_TABLE1.items()})
    claim = qops.cost_moves_best_factor(paper, "SDSC-SP2")
    assert claim.verdict == HOLDS and claim.paper == "OC 0.4 - 0.05: +13 points at C=10, +5 points at C=5"
    high_c2 = qops.high_factors_lose_when_urgent_cheap(paper, "SDSC-SP2")
    assert high_c2.verdict == HOLDS and not high_c2.counted and "no job pays more than 0.2" in high_c2.klass


def test_qops_workload_facts():
    part = {"load": 0.761, "high": [1.063, 1.066, 1.061], "width": 8.9, "runtime_s": 11000.0}
    facts = qops.workload_facts("CTC-SP2", dict(part, window="jobs 0 to 10,000"), (0.74, 1.04))
    verdicts = [f.verdict for f in facts]
    assert verdicts == [FAILS, FAILS, NOT_CHECKED, NOT_CHECKED] and all(f.klass == WORKLOAD for f in facts)
    assert facts[0].claim == "CTC-SP2: offered load of the jobs replayed (jobs 0 to 10,000)"
    facts = qops.workload_facts("CTC-SP2", {"load": 0.741, "high": [1.031, 1.033, 1.032]}, (0.74, 1.04))
    assert [f.verdict for f in facts[:2]] == [HOLDS, HOLDS]  # 103 % (sec. 5.3) is the paper's too


def test_qops_first_paragraph_names_a_trace_not_run():
    from adaptsched.reproduce.qops.report import scale_paragraph

    part = {"window": "jobs 0 to 3,000", "load": 0.89}
    results = {"a": {"wall_s": 60.0, "cpu_s": 30.0}}
    only_sdsc = scale_paragraph(
        {("SDSC-SP2", "load"): part}, jobs=3000, seeds=3, engine="embedded", wall_s=60, results=results, when=""
    )
    assert "CTC-SP2 not run here" in only_sdsc and "shortened run of 3,000 jobs" in only_sdsc
    both = scale_paragraph(
        {("SDSC-SP2", "load"): part, ("CTC-SP2", "load"): dict(part, load=0.74)},
        jobs=10000,
        seeds=3,
        engine="embedded",
        wall_s=60,
        results=results,
        when="",
    )
    assert "not run here" not in both and "this is its scale" in both
