"""Each paper's claims (``reproduce/<paper>/findings.py``) on small synthetic results, worked
by hand: the claim holds, fails, or is skipped when its runs are absent."""

import math

import pytest

from adaptsched.reproduce import PAPERS, commands
from adaptsched.reproduce.common import Finding, findings_table, pct, relative, share
from adaptsched.reproduce.downey import findings as downey
from adaptsched.reproduce.perkovic_keleher import findings as pk
from adaptsched.reproduce.qops import findings as qops


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
    assert findings_table([Finding("c", False, "n")])[-1] == "| c | **does not hold** | n |"
    assert Finding("c", True, "n").verdict == "holds"


# -- Perković & Keleher ----------------------------------------------------------------
ORDERS_BSLD = {
    "BF": 10.0,
    "P": 9.0,
    "R": 8.0,
    "1/L": 7.0,
    "P/L": 6.0,
    "R/L": 5.0,
    "D-NG": 11.0,
    "P-NG": 8.0,
    "R-NG": 4.0,
    "1/L-NG": 6.5,
    "P/L-NG": 5.0,
    "R/L-NG": 3.0,
}


def test_pk_orders_claims_hold_on_results_shaped_like_the_papers():
    f = pk.ng_improves_every_order(ORDERS_BSLD)
    assert f.holds and f.numbers.startswith("5 of 5 orders improve: P 9.00 → 8.00")
    assert pk.randomized_beats_priority(ORDERS_BSLD).holds
    f = pk.shortest_first_helps(ORDERS_BSLD)  # 7 / 10 - 1 = -30 %: below -20 %
    assert f.holds and f.numbers == "1/L -30 % vs BF"


def test_pk_orders_claims_fail_or_skip():
    worse = dict(ORDERS_BSLD, **{"R/L-NG": 5.5, "R-NG": 8.5, "1/L": 8.5})
    f = pk.ng_improves_every_order(worse)
    assert not f.holds and "3 of 5" in f.numbers
    assert not pk.randomized_beats_priority(worse).holds  # R-NG 8.5 is not below P-NG 8
    assert not pk.shortest_first_helps(worse).holds  # -15 % only
    assert pk.randomized_beats_priority({"BF": 1.0}) is None
    assert pk.shortest_first_helps({"BF": 1.0}) is None
    assert not pk.shortest_first_helps({"1/L": 1.0}).holds  # no BF to compare with: not shown to hold


def test_pk_shape_groups():
    groups = {"BF": dict(SN=4.0, SW=3.0, LN=2.0, LW=1.5), "R/L-NG": dict(SN=2.0, SW=2.0, LN=1.0, LW=1.0)}
    assert pk.rlng_improves_every_group(groups).holds
    groups["R/L-NG"]["LW"] = 1.6
    f = pk.rlng_improves_every_group(groups)
    assert not f.holds and f.numbers == "improved: SN, SW, LN"
    assert pk.rlng_improves_every_group({"R/L-NG": groups["R/L-NG"]}) is None
    assert pk.rlng_improves_every_group({"BF": groups["BF"]}).numbers == "improved: none"


def test_pk_speculation_claims():
    assert pk.speculation_helps("BF", 10.0, [8.0, 9.0, 9.5]).holds
    assert not pk.speculation_helps("BF", 9.0, [8.0, 9.0, 9.5]).holds  # 75 % is worse
    assert pk.smaller_percentages_do_better("BF", [8.0, 9.0, 9.5]).holds
    assert not pk.smaller_percentages_do_better("BF", [9.6, 9.0, 9.5]).holds
    f = pk.speculative_test_runs_help("BF", [8.0, 9.0, 9.5], [7.0, 8.0, 9.0])
    assert f.holds and f.numbers == "8.00 → 7.00, 9.00 → 8.00, 9.50 → 9.00"
    assert not pk.speculative_test_runs_help("BF", [8.0, 9.0, 9.5], [7.0, 9.0, 9.0]).holds


def test_pk_adaptation_and_combined_claims():
    f = pk.resizing_trades_response("BF half", -0.4, -0.3, 0.2)
    assert f.holds and f.numbers == "bsld -40 %, delay -30 %, response +20 %"
    assert not pk.resizing_trades_response("BF half", -0.4, -0.3, -0.01).holds
    f = pk.combined_near_paper({"BF half+widen": 4.0, "R/L-NG half+widen": 2.5}, 10.0)
    assert f.holds and f.numbers == "best: R/L-NG half+widen at 25 %"
    assert not pk.combined_near_paper({"BF half+widen": 2.6}, 10.0).holds
    assert pk.combined_near_paper({}, 10.0) is None
    f = pk.rlng_delay_near_paper({"R/L-NG half+widen": 300.0, "R/L-NG half+widen+spec": 350.0}, 1000.0)
    assert f.holds and f.numbers == "R/L-NG half+widen: 30 %"
    assert not pk.rlng_delay_near_paper({"R/L-NG half+widen": 360.0}, 1000.0).holds


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


# -- Downey ------------------------------------------------------------------------------
def _metrics(u, t, q, p90):
    return {"utilization": u, "turnaround_s": t, "queue_s": q, "slowdown_p90": p90}


def test_downey_greedy_beats_stubborn():
    fig11 = {
        ("AVG", 0.5, "greedy"): _metrics(0.5, 100, 10, 2),
        ("AVG", 0.5, "stubborn"): _metrics(0.4, 120, 20, 3),
        ("MAX", 0.5, "greedy"): _metrics(0.5, 100, 10, 2),  # no stubborn twin: not compared
    }
    f = downey.greedy_beats_stubborn(fig11, ["AVG", "MAX"], [0.5])
    assert f.holds and f.numbers == "every comparison holds"
    fig11[("AVG", 0.5, "stubborn")] = _metrics(0.6, 90, 20, 3)
    f = downey.greedy_beats_stubborn(fig11, ["AVG", "MAX"], [0.5])
    assert not f.holds and f.numbers == "AVG at 0.5: utilization 0.5 vs 0.6; AVG at 0.5: turnaround_s 100 vs 90"


def test_downey_table1_claims():
    assert downey.sev_lowest_p90_slowdown({"SEV": 11.0, "AVG": 35.0, "ASP": 60.0}).holds
    assert not downey.sev_lowest_p90_slowdown({"SEV": 40.0, "AVG": 35.0}).holds
    assert downey.asp_highest_cluster_cv({"SEV": 1.04, "ASP": 1.24}).holds
    f = downey.asp_highest_cluster_cv({"SEV": 1.3, "ASP": 1.24})
    assert not f.holds and f.numbers == "SEV 1.30, ASP 1.24"


# -- Islam et al. --------------------------------------------------------------------------
def test_qops_dvqops_gap_and_tolerance():
    assert qops.dvqops_gap(0.3, [0.1, 0.3, 0.2]) == pytest.approx(0.0)
    assert qops.dvqops_gap(0.1, [0.0, 0.2]) == pytest.approx(1.1 / 1.2 - 1)
    f = qops.dvqops_near_best_static({"a": -0.01, "b": -0.04})
    assert f.holds and f.numbers == "2 of 2 scenarios within 5 % (worst: b at -4.0 %)"
    f = qops.dvqops_near_best_static({"a": -0.01, "b": -0.14})
    assert not f.holds and "1 of 2" in f.numbers
    assert qops.dvqops_near_best_static({}) is None


def test_qops_gains_grow_with_load_and_cost():
    paper = {key: max(values) / 100 for key, values in qops.PAPER_TABLE1.items()}
    assert qops.gains_grow_with_load(paper).holds  # the paper's own Table 1: 39 % -> 160 %
    assert qops.gains_grow_with_cost(paper).holds  # 27 %, 35 %, 39 %
    assert not qops.gains_grow_with_load({(10, 0.8, "orig"): 0.4, (10, 0.8, "high"): 0.3}).holds
    f = qops.gains_grow_with_cost({(2, 0.8, "orig"): 0.3, (10, 0.8, "orig"): 0.2})
    assert not f.holds and f.numbers == "C=2: +30 %, C=10: +20 %"
    assert qops.gains_grow_with_load({}) is None and qops.gains_grow_with_cost({(2, 0.8, "orig"): 0.1}) is None


def test_qops_table1_distance_in_percentage_points():
    paper = {(10, 0.8, "orig"): (20, 30), (10, 0.8, "high"): (60, 90)}
    assert qops.table1_distance({(10, 0.8, "orig"): [0.25, 0.20]}, paper) == pytest.approx(7.5)  # 5 and 10 points
    both = {(10, 0.8, "orig"): [0.20, 0.30], (10, 0.8, "high"): [0.40, 0.90], (2, 0.8, "orig"): [9.0, 9.0]}
    assert qops.table1_distance(both, paper) == pytest.approx(5.0)  # 0, 0, 20, 0; (2, ...) not in the paper
    assert math.isnan(qops.table1_distance({}, paper))
    assert qops.table1_distance({k: [v / 100 for v in vs] for k, vs in qops.PAPER_TABLE1.items()}) == pytest.approx(0)


def test_qops_dvqops_at_high_load():
    f = qops.dvqops_near_best_static_at_high_load({"SDSC": -0.009, "CTC": -0.048})
    assert f.holds and f.numbers == "SDSC: -0.9 %; CTC: -4.8 %"
    f = qops.dvqops_near_best_static_at_high_load({"SDSC": -0.009, "CTC": -0.064})
    assert not f.holds and f.claim.endswith("at high load")
    assert qops.dvqops_near_best_static_at_high_load({}) is None
