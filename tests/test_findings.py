"""The evidence behind every claim (``reproduce/common.py``: samples, intervals, verdicts, the
findings table) and each paper's claims (``reproduce/<paper>/findings.py``) on small synthetic
results, worked by hand: a claim holds, fails, needs more seeds, or is skipped when its runs
are absent."""

import csv
import math

import pytest

from adaptsched.reproduce import PAPERS, commands
from adaptsched.reproduce.common import (
    BY_CONSTRUCTION,
    FAILS,
    HOLDS,
    INDEPENDENT,
    NOT_CHECKABLE,
    NOT_CHECKED,
    NOT_MEASURED,
    Claim,
    Finding,
    Part,
    Sample,
    beyond,
    bootstrap,
    combine,
    counts,
    decide,
    depends_on,
    findings_table,
    findings_table_v1,
    headline,
    in_band,
    pct,
    per_seed,
    pooled,
    ratio_minus_one,
    relative,
    share,
    t95,
    write_findings_csv,
)
from adaptsched.reproduce.downey import findings as downey
from adaptsched.reproduce.perkovic_keleher import findings as pk
from adaptsched.reproduce.qops import findings as qops

MORE = "needs more seeds"


def test_every_paper_registers_a_command():
    names = [c.NAME for c in commands()]
    assert names == ["perkovic-keleher", "downey", "qops", "scojo-p", "klein-perez"] and len(PAPERS) == 5
    for command in commands():
        assert command.HELP and callable(command.add_arguments) and callable(command.main)


def test_common_helpers_tolerate_missing_numbers():
    assert relative(3.0, 4.0) == pytest.approx(-0.25)
    assert math.isnan(relative(3.0, None)) and math.isnan(relative(3.0, 0.0)) and math.isnan(relative(math.nan, 1))
    assert pct(-0.25) == "-25 %" and pct(0.5) == "+50 %" and pct(math.nan) == "-" and pct(None) == "-"
    assert share(0.27) == "27 %" and share(math.nan) == "-"
    assert findings_table_v1([Finding("c", False, "n")])[-1] == "| c | **does not hold** | n |"
    assert Finding("c", True, "n").verdict == "holds"


# -- samples and intervals -----------------------------------------------------------------------
def test_t_quantiles():
    assert t95(1) == 12.706 and t95(4) == 2.776 and t95(30) == 2.042
    assert t95(60) == pytest.approx(2.000, abs=2e-3) and t95(1000) == pytest.approx(1.962, abs=2e-3)
    with pytest.raises(ValueError):
        t95(0)


def test_a_sample_gives_mean_spread_and_a_t_interval():
    s = Sample.of([1.0, 2.0, 3.0, None, math.nan])  # missing runs are left out
    assert s.values == (1.0, 2.0, 3.0) and s.n == 3 and s.mean == 2.0 and (s.low, s.high) == (1.0, 3.0)
    lo, hi = s.ci
    assert hi - 2.0 == pytest.approx(4.303 * 1.0 / math.sqrt(3)) and lo == pytest.approx(4.0 - hi)
    assert Sample.of([5.0]).ci is None  # one seed of a random quantity: no interval
    assert Sample.exact_value(5.0).ci == (5.0, 5.0)  # a deterministic run: the value itself
    assert Sample.of([]).ci is None and math.isnan(Sample.of([]).mean)
    assert Sample.of([2.0, 2.0, 2.0]).ci == (2.0, 2.0)


def test_pooled_values_get_an_interval_clustered_by_group():
    s = pooled([[1.0, 3.0], [2.0, 2.0, 2.0], [4.0]])
    assert s.n == 3 and len(s.values) == 6 and s.mean == pytest.approx(14 / 6)
    lo, hi = s.ci
    ratio, nbar = 14 / 6, 2.0
    var = ((4 - ratio * 2) ** 2 + (6 - ratio * 3) ** 2 + (4 - ratio) ** 2) / (3 * 2 * nbar**2)
    assert hi - lo == pytest.approx(2 * 4.303 * math.sqrt(var))


def test_bootstrap_interval_contains_the_statistic():
    values = [float(i % 7) for i in range(200)]
    s = bootstrap(lambda idx: sum(values[i] for i in idx) / len(idx), len(values), resamples=300)
    lo, hi = s.ci
    assert lo <= s.mean <= hi and s.n == 200 and hi - lo < 1.5
    assert bootstrap(lambda idx: 1.0, 10, resamples=50).ci == (1.0, 1.0)


def test_per_seed_pairs_series_and_broadcasts_deterministic_runs():
    a, b = {1: 2.0, 2: 4.0, 3: 6.0}, {1: 1.0, 2: 2.0, 4: 9.0}
    s = per_seed(ratio_minus_one, a, b)
    assert s.values == (1.0, 1.0)  # seeds 1 and 2 only: the ones both ran
    s = per_seed(ratio_minus_one, a, 2.0)  # a deterministic run beside every seed
    assert s.values == (0.0, 1.0, 2.0) and not s.exact
    s = per_seed(ratio_minus_one, 3.0, 2.0)
    assert s.exact and s.values == (0.5,) and s.ci == (0.5, 0.5)
    assert per_seed(ratio_minus_one, a, None).values == ()
    assert per_seed(ratio_minus_one, {1: 1.0}, {1: 0.0}).values == ()  # a division by 0: left out


# -- verdicts --------------------------------------------------------------------------------------
def test_a_value_claim_holds_fails_or_needs_more_seeds():
    tight = Sample.of([10.0, 10.2, 9.8, 10.1])
    assert in_band(tight, 9.0, 11.0) == HOLDS
    assert in_band(tight, 11.0, 13.0) == FAILS  # the whole interval below the band
    wide = Sample.of([8.0, 12.0, 9.0, 11.5])
    assert in_band(wide, 9.0, 11.0) == MORE  # the interval straddles the band's edges
    assert in_band(Sample.of([10.0]), 9.0, 11.0) == MORE  # one seed decides nothing
    assert in_band(Sample.of([], unit="test"), 9.0, 11.0) == NOT_MEASURED
    assert in_band(Sample.of([1.0, 3.0, 2.0], unit="test"), 2.5, 9.0) == "needs more tests"
    assert in_band(Sample.exact_value(10.0), 10.0, 10.0) == HOLDS


def test_a_direction_claim_holds_only_beyond_its_threshold():
    better = Sample.of([-0.3, -0.2, -0.25])
    assert beyond(better, 0.0, below=True) == HOLDS and beyond(better, 0.0, below=False) == FAILS
    assert beyond(Sample.of([-0.3, 0.1, -0.1]), 0.0, below=True) == MORE
    assert beyond(Sample.exact_value(0.0), 0.0, below=True) == FAILS  # equal is not better
    assert beyond(Sample.exact_value(-0.08), -0.2, below=True) == FAILS  # not "significantly"
    assert combine([HOLDS, MORE, HOLDS]) == MORE and combine([HOLDS, MORE, FAILS]) == FAILS
    assert combine([HOLDS, HOLDS]) == HOLDS and combine([]) == NOT_MEASURED


def test_decide_names_the_part_that_decided():
    ok = Part("a", Sample.of([-1.0, -1.1, -0.9]), HOLDS)
    bad = Part("b", Sample.exact_value(0.2), FAILS)
    unsure = Part("c", Sample.of([-1.0, 1.0, 0.1]), MORE)
    verdict, sample, details = decide([ok, unsure, bad])
    assert verdict == FAILS and sample.note == "b" and details.startswith("c ") and "b 0.2: does not hold" in details
    assert details.endswith("1 of 3 parts hold")
    verdict, sample, details = decide([ok])
    assert verdict == HOLDS and sample.note == "a" and details == ""  # one part: nothing to add
    assert decide([]) == (NOT_MEASURED, None, "")


# -- claims, tables, headlines ------------------------------------------------------------------------
def claim(verdict, klass=INDEPENDENT, ours=None):
    return Claim("c", "p", ours or Sample.of([1.0, 2.0]), "±1", "ours: x", klass, verdict)


def test_headline_counts_independent_claims_and_the_other_classes_beside():
    claims = [
        claim(HOLDS),
        claim(HOLDS),
        claim(FAILS),
        claim(MORE),
        claim(HOLDS, depends_on("CB worse than traditional")),
        claim(FAILS, depends_on("n_max, calibrated on this cell")),
        claim(HOLDS, BY_CONSTRUCTION),
        claim(NOT_CHECKED, NOT_CHECKABLE),
    ]
    k = counts(claims)
    assert (k["independent"], k["hold"], k["fail"], k["more"]) == (4, 2, 1, 1)
    assert (k["depends"], k["depends_hold"], k["by_construction"], k["not_checkable"]) == (2, 1, 1, 1)
    assert headline(claims) == (
        "**2 of 4 independent claims hold** (1 do not, 1 need more seeds); beside them, 2 depend on another "
        "result (1 of them hold), 1 hold by construction, 1 are not checkable."
    )
    assert headline([claim(HOLDS)]) == "**1 of 1 independent claims hold**."


def test_findings_table_rows_show_mean_interval_spread_tolerance_class_verdict(tmp_path):
    c = Claim("R/L-NG vs BF", "-77 %", Sample.of([-0.3, -0.4, -0.35]), "±10 points", "ours: x", INDEPENDENT, FAILS, pct)
    d = Claim(
        "1/L vs BF",
        "significantly",
        Sample.exact_value(-0.08, note="1/L vs BF"),
        "< -20 %",
        "ours",
        INDEPENDENT,
        FAILS,
        pct,
    )
    e = Claim("one seed", "x", Sample.of([0.5]), "±1", "ours", INDEPENDENT, MORE, pct, details="why")
    lines = findings_table([c, d, e])
    assert lines[0].startswith("| # | claim | paper | ours: mean | 95 % interval | min to max | tolerance | its source")
    assert lines[2] == (
        "| 1 | R/L-NG vs BF | -77 % | -35 % | [-47 %, -23 %] | -40 % to -30 % (3 seeds) | ±10 points | ours: x | "
        "independent | **does not hold** |"
    )
    assert "| -8 % | exact (1/L vs BF) | -8 % |" in lines[3]
    assert "| +50 % | - (one seed) | +50 % (1 seed) |" in lines[4] and lines[-1] == "3. why"
    write_findings_csv(tmp_path / "f.csv", [c, d])
    rows = list(csv.DictReader(open(tmp_path / "f.csv")))
    assert rows[0]["verdict"] == FAILS and float(rows[0]["ci_low"]) == pytest.approx(-0.474, abs=1e-3)
    assert rows[1]["exact"] == "True" and rows[1]["n"] == "1"


# -- Perković & Keleher ----------------------------------------------------------------------------
def seeds(*values):
    return {k: v for k, v in enumerate(values, start=1)}


ORDERS_BSLD = {
    "BF": 10.0,
    "P": seeds(9.0, 9.2, 8.8),
    "R": seeds(8.0, 8.1, 7.9),
    "1/L": 8.5,
    "P/L": seeds(6.0, 6.1, 5.9),
    "R/L": seeds(5.0, 5.2, 4.8),
    "D-NG": 11.0,
    "P-NG": seeds(8.0, 8.2, 7.8),
    "R-NG": seeds(4.0, 4.1, 3.9),
    "1/L-NG": 6.5,
    "P/L-NG": seeds(4.3, 4.4, 4.2),
    "R/L-NG": seeds(2.3, 2.4, 2.2),
}


def test_pk_orders_claims_on_results_shaped_like_the_papers():
    assert pk.randomized_beats_priority(ORDERS_BSLD).verdict == HOLDS
    f = pk.ng_improves_every_order(ORDERS_BSLD)
    assert f.verdict == HOLDS and f.details == "6 of 6 parts hold"  # 5 orders, and D-NG not better than BF
    f = pk.shortest_first_helps(ORDERS_BSLD)  # 8.5 / 10 - 1 = -15 %: not "significantly" (-20 %)
    assert f.verdict == FAILS and f.ours.exact and f.ours.mean == pytest.approx(-0.15)
    assert pk.priority_between(ORDERS_BSLD).verdict == HOLDS  # P 9 > 1/L 8.5 > R 8


def test_pk_orders_claims_fail_need_more_seeds_or_skip():
    worse = dict(ORDERS_BSLD, **{"R-NG": seeds(8.5, 8.6, 8.4)})
    f = pk.ng_improves_every_order(worse)
    assert f.verdict == FAILS and f.ours.note == "R-NG vs R" and "R-NG vs R +6 %" in f.details
    noisy = dict(ORDERS_BSLD, R=seeds(6.0, 12.0, 8.0))
    assert pk.randomized_beats_priority(noisy).verdict == MORE
    assert pk.randomized_beats_priority({"BF": 1.0}) is None and pk.shortest_first_helps({"1/L": 1.0}) is None


def test_pk_gains_against_the_papers_within_10_points():
    bsld = {"BF": 10.0, "R/L-NG": seeds(2.3, 2.4, 2.2)}
    wait = {"BF": 1000.0, "R/L-NG": seeds(350.0, 360.0, 340.0)}
    f = pk.gain_matches("R/L-NG", "BF", bsld, wait, (-0.77, -0.65))
    assert f.verdict == HOLDS and f.tolerance == "±10 points"
    wait["R/L-NG"] = seeds(600.0, 610.0, 590.0)  # -40 %: 25 points short of -65 %
    f = pk.gain_matches("R/L-NG", "BF", bsld, wait, (-0.77, -0.65))
    assert f.verdict == FAILS and f.ours.note == "R/L-NG delay vs BF"
    assert pk.gain_matches("P/L-NG", "BF", bsld, wait, (-0.57, -0.38)) is None


def test_pk_shape_groups():
    groups = {
        "BF": dict(SN=4.0, SW=3.0, LN=2.0, LW=1.5),
        "R/L-NG": {g: seeds(*(v * f for f in (0.5, 0.52, 0.48))) for g, v in dict(SN=4.0, SW=3.0, LN=2.0).items()},
    }
    groups["R/L-NG"]["LW"] = seeds(1.4, 1.42, 1.38)
    assert pk.rlng_improves_every_group(groups).verdict == HOLDS
    assert pk.long_wide_gain_least(groups).verdict == HOLDS  # LW -7 %, the others -50 %
    groups["R/L-NG"]["LW"] = seeds(1.6, 1.62, 1.58)
    f = pk.rlng_improves_every_group(groups)
    assert f.verdict == FAILS and f.ours.note == "LW: R/L-NG vs BF"
    assert pk.rlng_improves_every_group({"BF": groups["BF"]}) is None


def test_pk_speculation_claims():
    bsld = {"BF": 10.0}
    for p, plain, tests in ((25, 8.0, 7.5), (50, 9.0, 7.2), (75, 9.5, 7.0)):
        bsld[pk.spec_label("BF", p, False)] = plain
        bsld[pk.spec_label("BF", p, True)] = tests
    assert pk.speculation_helps("BF", bsld).verdict == HOLDS
    assert pk.smaller_percentages_do_better("BF", bsld).verdict == HOLDS
    assert pk.speculative_test_runs_help("BF", bsld).verdict == HOLDS
    assert pk.test_runs_favour_large_percentages("BF", bsld).verdict == HOLDS  # 7.0 < 7.5; -26 % vs -6 %
    bsld[pk.spec_label("BF", 75, False)] = 10.5
    assert pk.speculation_helps("BF", bsld).verdict == FAILS
    bsld[pk.spec_label("BF", 25, True)] = 8.5
    assert pk.speculative_test_runs_help("BF", bsld).verdict == FAILS
    assert pk.speculation_helps("1/L-NG", bsld) is None


def test_pk_adaptation_and_combined_claims():
    bsld = {"BF": 10.0, "BF half": 6.0, "BF half+widen": 5.0, "R/L-NG half+widen": seeds(1.4, 1.5, 1.6)}
    wait = {"BF": 1000.0, "BF half": 600.0, "R/L-NG half+widen": seeds(200.0, 210.0, 220.0)}
    response = {"BF": 5000.0, "BF half": 6000.0}
    assert pk.resizing_trades_response("BF half", bsld, wait, response).verdict == HOLDS
    response["BF half"] = 4900.0
    assert pk.resizing_trades_response("BF half", bsld, wait, response).verdict == FAILS
    assert pk.widening_helps(bsld).verdict == HOLDS
    combined = ["BF half+widen", "R/L-NG half+widen"]
    f = pk.combined_near_paper(bsld, combined)
    assert f.verdict == HOLDS and f.ours.note == "R/L-NG half+widen / BF" and f.ours.mean == pytest.approx(0.15)
    assert pk.rlng_delay_near_paper(wait, combined).verdict == HOLDS  # 21 %
    bsld["R/L-NG half+widen"] = seeds(3.0, 3.1, 3.2)  # 31 %: outside 15 % ± 10 points
    assert pk.combined_near_paper(bsld, combined).verdict == FAILS
    assert pk.combined_near_paper({}, combined) is None


def test_pk_most_jobs_start_immediately():
    assert pk.most_start_immediately(0.61).verdict == HOLDS
    assert pk.most_start_immediately(0.45).verdict == FAILS
    assert pk.most_start_immediately(None) is None


def test_pk_readings_direction_and_closest():
    # paper -57 %: the default at -33 %; a reading at -40 % moves toward it, at -20 % away,
    # at -33.5 % it is the same (less than 1 point), past it at -70 % it is still nearer
    assert pk.reading_direction(-0.33, -0.40, -0.57) == "toward"
    assert pk.reading_direction(-0.33, -0.20, -0.57) == "away"
    assert pk.reading_direction(-0.33, -0.335, -0.57) == "same"
    assert pk.reading_direction(-0.33, -0.70, -0.57) == "toward"
    assert pk.reading_direction(-0.33, -0.85, -0.57) == "away"  # overshoots by more than the gap
    assert pk.reading_direction(-0.33, math.nan, -0.57) == ""
    assert pk.PAPER_READING_GAINS == {
        "P/L-NG bsld": -0.57,
        "P/L-NG delay": -0.38,
        "R/L-NG bsld": -0.77,
        "R/L-NG delay": -0.65,
    }
    gains = {"default": -0.64, "starvation_weight=0": -0.68, "ng_passes=paper": -0.63}
    assert pk.closest_reading(gains, -0.77) == "starvation_weight=0"
    assert pk.closest_reading({"default": -0.5, "x": math.nan}, -0.77) == "default"
    assert pk.closest_reading({"x": math.nan}, -0.77) is None


# -- Downey ------------------------------------------------------------------------------------------
def _metrics(u, t, q, p90, size=8.0, cv=1.1):
    return {
        "utilization": u,
        "turnaround_s": t,
        "queue_s": q,
        "slowdown_p90": p90,
        "cluster_size": size,
        "cluster_cv": cv,
    }


def runs(*per_seed_metrics):
    return dict(enumerate(per_seed_metrics, start=1))


def test_downey_greedy_beats_stubborn_seed_by_seed():
    fig11 = {
        ("AVG", 0.5, "greedy"): runs(
            _metrics(0.5, 100, 10, 2), _metrics(0.52, 98, 11, 2.1), _metrics(0.49, 101, 9, 1.9)
        ),
        ("AVG", 0.5, "stubborn"): runs(
            _metrics(0.4, 120, 20, 3), _metrics(0.41, 125, 22, 3.2), _metrics(0.39, 118, 19, 2.9)
        ),
        ("MAX", 0.5, "greedy"): runs(_metrics(0.5, 100, 10, 2)),  # no stubborn twin: not compared
    }
    f = downey.greedy_beats_stubborn(fig11, ["AVG", "MAX"], [0.5])
    assert f.verdict == HOLDS and f.details == "4 of 4 parts hold"
    fig11[("AVG", 0.5, "stubborn")][2] = _metrics(0.6, 90, 22, 3.2)  # seed 2: stubborn better on two metrics
    f = downey.greedy_beats_stubborn(fig11, ["AVG", "MAX"], [0.5])
    assert f.verdict == MORE and "AVG at 0.5: utilization" in f.details
    assert downey.greedy_beats_stubborn({}, ["AVG"], [0.5]) is None


def test_downey_table1_claims():
    def t1(**per_strategy):
        return {s: runs(*(_metrics(*m) for m in ms)) for s, ms in per_strategy.items()}

    table1 = t1(
        SEV=[(0.52, 5800, 200, 11, 7.8, 1.04), (0.53, 5850, 210, 12, 7.7, 1.05)],
        AVG=[(0.52, 5700, 370, 35, 9.4, 1.07), (0.53, 5760, 380, 36, 9.5, 1.06)],
        PWS=[(0.52, 6000, 560, 77, 10.2, 1.10), (0.53, 6050, 570, 78, 10.1, 1.11)],
        MAX=[(0.51, 6600, 1100, 249, 10.7, 1.11), (0.50, 6650, 1120, 250, 10.8, 1.10)],
        ASP=[(0.49, 7500, 400, 63, 9.9, 1.24), (0.48, 7550, 410, 64, 9.8, 1.25)],
    )
    for finding in (
        downey.sev_smallest_clusters_shortest_queues,
        downey.sev_lowest_p90_slowdown,
        downey.avg_beats_pws,
        downey.asp_highest_cluster_cv,
    ):
        assert finding(table1).verdict == HOLDS, finding.__name__
    assert downey.max_worst_of_the_three(table1).verdict != FAILS
    wrong = dict(table1, AVG=table1["MAX"])  # AVG read as MAX
    assert downey.max_worst_of_the_three(wrong).verdict == FAILS and downey.avg_beats_pws(wrong).verdict == FAILS
    assert downey.asp_highest_cluster_cv({}) is None


def test_downey_large_minimum_degrades():
    fig13 = {
        ("SEV", 0.0): runs(_metrics(0.5, 6000, 0, 0), _metrics(0.51, 6100, 0, 0)),
        ("SEV", 1.0): runs(_metrics(0.3, 9000, 0, 0), _metrics(0.31, 9500, 0, 0)),
    }
    assert downey.large_minimum_degrades(fig13, ["SEV", "AVG"]).verdict == HOLDS
    fig13[("SEV", 1.0)] = runs(_metrics(0.55, 9000, 0, 0), _metrics(0.56, 9500, 0, 0))
    assert downey.large_minimum_degrades(fig13, ["SEV"]).verdict == FAILS


# -- Islam et al. ---------------------------------------------------------------------------------------
def test_qops_dvqops_gap():
    assert qops.dvqops_gap(0.3, [0.1, 0.3, 0.2]) == pytest.approx(0.0)
    assert qops.dvqops_gap(0.1, [0.0, 0.2]) == pytest.approx(1.1 / 1.2 - 1)


def paper_like(trace="SDSC-SP2", noise=(0.0, 0.01, -0.01)):
    """The paper's Table 1 as three seeds (a little noise), DVQoPS 2 % behind the best."""
    table = {}
    for (cost, urgent, load), gains in qops.PAPER_TABLE1.items():
        key = (trace, cost, urgent, load, "exact")
        table[key] = {}
        for seed, e in enumerate(noise, start=1):
            g = [x / 100 + e for x in gains]
            table[key][seed] = (g, (1 + max(g)) * 0.98 - 1)
    return table


def test_qops_claims_hold_on_the_papers_table_1():
    table = paper_like()
    for finding in (
        qops.gains_grow_with_load,
        qops.cost_moves_best_factor,
        qops.high_factors_lose_when_urgent_cheap,
    ):
        assert finding(table, "SDSC-SP2").verdict == HOLDS, finding.__name__
    assert qops.urgent_share_moves_best_factor(table, "SDSC-SP2").verdict == HOLDS  # U=20 %: 38 > 22
    f = qops.dvqops_near_best_static(table, "SDSC-SP2")
    assert f.verdict == HOLDS and f.ours.mean == pytest.approx(-0.02) and f.tolerance == ">= -5 %"
    assert f.details == "5 of 5 parts hold"  # the original-load scenarios of Table 1


def test_qops_claims_fail_when_the_oc_factor_does_not_matter():
    table = paper_like()
    flat = {key: {s: ([g[0]] * 5, dv) for s, (g, dv) in runs_.items()} for key, runs_ in table.items()}
    assert qops.cost_moves_best_factor(flat, "SDSC-SP2").verdict == FAILS  # equal gains: no factor beats another
    assert qops.high_factors_lose_when_urgent_cheap(flat, "SDSC-SP2").verdict == FAILS  # OC 0: +19 % > 0


def test_qops_dvqops_within_5_percent_seed_by_seed():
    table = paper_like()
    key = ("SDSC-SP2", 10, 0.8, "orig", "exact")
    table[key] = {s: (g, (1 + max(g)) * 0.90 - 1) for s, (g, _) in table[key].items()}  # 10 % behind
    f = qops.dvqops_near_best_static(table, "SDSC-SP2")
    assert f.verdict == FAILS and f.ours.note == "C=10 U=80 % orig" and f.ours.mean == pytest.approx(-0.10)
    high = qops.dvqops_at_high_load(table, "SDSC-SP2")
    assert high.klass == NOT_CHECKABLE and high.verdict == NOT_CHECKED and high.ours.mean == pytest.approx(-0.02)
    assert qops.dvqops_near_best_static({}, "SDSC-SP2") is None


def test_qops_ctc_gains_less_and_table_2():
    sdsc, ctc = paper_like("SDSC-SP2"), paper_like("CTC-SP2", noise=(-0.2, -0.21, -0.19))
    for u in (0.2, 0.5):
        for t, table in (("SDSC-SP2", sdsc), ("CTC-SP2", ctc)):
            table[(t, 10, u, "orig", "exact")] = table[(t, 10, 0.8, "orig", "exact")]
    assert qops.ctc_gains_less({**sdsc, **ctc}, "SDSC-SP2", "CTC-SP2").verdict == HOLDS
    assert qops.ctc_gains_less({**sdsc, **ctc}, "CTC-SP2", "SDSC-SP2").verdict == FAILS
    revenue = {1: seeds(474.0, 480.0, 470.0), 64: seeds(716.0, 700.0, 720.0)}
    assert qops.revenue_grows_with_window(revenue).verdict == HOLDS
    assert qops.revenue_grows_with_window({1: seeds(1.0)}) is None


def test_qops_table1_distance_in_percentage_points():
    paper = {(10, 0.8, "orig"): (20, 30), (10, 0.8, "high"): (60, 90)}
    assert qops.table1_distance({(10, 0.8, "orig"): [0.25, 0.20]}, paper) == pytest.approx(7.5)  # 5 and 10 points
    both = {(10, 0.8, "orig"): [0.20, 0.30], (10, 0.8, "high"): [0.40, 0.90], (2, 0.8, "orig"): [9.0, 9.0]}
    assert qops.table1_distance(both, paper) == pytest.approx(5.0)  # 0, 0, 20, 0; (2, ...) not in the paper
    assert math.isnan(qops.table1_distance({}, paper))
    assert qops.table1_distance({k: [v / 100 for v in vs] for k, vs in qops.PAPER_TABLE1.items()}) == pytest.approx(0)


def test_readme_quotes_each_committed_reports_headline():
    """README's line per paper says "x of y independent claims hold" as its committed report does
    (issue 24: the headline comes from the report, not from memory)."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    readme = (root / "README.md").read_text()
    for paper in ("perkovic-keleher", "downey", "qops", "scojo-p", "klein-perez"):
        report = (root / "docs" / "results" / paper / "report.md").read_text()
        found = re.search(r"(\d+) of (\d+) independent claims hold", report)
        assert found, f"docs/results/{paper}/report.md has no headline"
        assert f"**{found.group(0)}**" in readme, (paper, found.group(0))
