"""``reproduce klein-perez``: the cells and claims of sec. 5.2 on small in-process results and on
edited ones, the n_max calibration, and end-to-end runs (through the engine, and the
engine's tables against the in-process ones on 50 tests)."""

import copy
import math
import re

import pytest

from adaptsched.reproduce.common import BY_CONSTRUCTION, FAILS, HOLDS, INDEPENDENT, WORKLOAD
from adaptsched.reproduce.klein_perez import findings as f
from adaptsched.reproduce.klein_perez.plan import (
    CALIBRATED_ON,
    VARIANTS,
    calibration_distance,
    choose_n_max,
    cross_check,
    in_process,
)
from adaptsched.workloads.evolving import generate_tests

HOSTS = 102


@pytest.fixture(scope="module")
def small():
    """60 tests in-process at n_max 102: {variant: per-test metrics}."""
    results, _, _ = in_process(generate_tests(60, 1), HOSTS)
    return results


def test_cells_are_classed_and_gated_at_the_papers_precision(small):
    cells = f.cells(small)
    assert len(cells) == 54
    classes = [c.klass for c in cells]
    assert classes.count(BY_CONSTRUCTION) == 10 and classes.count(INDEPENDENT) == 30
    assert [c.claim for c in cells if c.klass == WORKLOAD] == ["cbf waste % (avg)", "cbf job waste % (avg)"]
    identities = [c.claim for c in cells if c.klass.startswith("depends on an arithmetic identity")]
    assert len(identities) == 10 and all("utilisation" in c or "reservation" in c for c in identities)
    calibrated = [c.claim for c in cells if c.klass.startswith("depends on n_max")]
    assert calibrated == ["cbf utilisation % (avg)", "nos makespan (avg)"] and len(CALIBRATED_ON) == 2
    by_name = {c.claim: c for c in cells}
    # half the last printed digit, plus the paper's own sampling error from its printed range over
    # 1,000 tests: makespan .49 to .82, the range of 1,000 normal values 6.48 standard deviations
    assert f.expected_range(2) == pytest.approx(2 / math.sqrt(math.pi), abs=1e-6)
    assert f.expected_range(1000) == pytest.approx(6.4829, abs=1e-3)
    assert f.tolerance("nos", "makespan") == pytest.approx(0.005 + 1.96 * 0.33 / 6.4829 / math.sqrt(1000), rel=1e-3)
    assert f.tolerance("nos", "waste_pct") == 0.5  # 0 0 0: its rounding alone
    assert by_name["mic+c waste % (avg)"].paper == "ε" and by_name["mic+c waste % (avg)"].tolerance == "< 0.5"
    assert f.tolerance("mic", "time_ms") is None
    # the per-application cells rest on the tests, not on the applications (clustered interval)
    jw = by_name["mic job waste % (avg)"].ours
    assert jw.n == 60 and len(jw.values) > 60 and jw.interval is not None


def edited(per_test, variant, metric, value):
    out = copy.deepcopy(per_test)
    for row in out[variant]:
        row[metric] = [value] * len(row[metric]) if isinstance(row[metric], list) else value
    return out


def test_a_cell_fails_outside_its_band_and_needs_more_tests_across_an_edge(small):
    assert f.cell(edited(small, "mic", "stretches_pct", 30.0), "mic", "stretches_pct").verdict == FAILS
    assert f.cell(edited(small, "mic", "stretches_pct", 22.5), "mic", "stretches_pct").verdict == HOLDS
    assert f.cell(edited(small, "mic+c", "job_stretch_pct", 0.6), "mic+c", "job_stretch_pct").verdict == FAILS
    assert f.cell(edited(small, "mic+c", "job_stretch_pct", 0.4), "mic+c", "job_stretch_pct").verdict == HOLDS
    spread = copy.deepcopy(small)  # mean 24 with a wide spread: the interval straddles 24
    for i, row in enumerate(spread["mic"]):
        row["stretches_pct"] = 14.0 if i % 2 else 34.0
    assert f.cell(spread, "mic", "stretches_pct").verdict == "needs more tests"


@pytest.mark.parametrize(
    "finding,variant,metric,value",
    [
        (f.cbf_loses_everywhere, "mic", "makespan", 1.01),
        (f.cbf_loses_everywhere, "cbf", "utilisation_pct", 99.0),
        (f.variants_reserve_less, "inf+c", "reservation", 1.0),
        (f.inf_reserves_most, "mic", "reservation", 0.9),
        (f.makespan_differs_less_than_waste, "inf", "makespan", 0.3),
        (f.nos_never_wastes, "nos", "waste_pct", 0.1),
        (f.compacting_helps, "mic+c", "waste_pct", 50.0),
        (f.stretching_waits_least, "nos", "avg_jwt", 0.2),
        (f.users_gain, "inf", "avg_jct", 1.0),
        (f.few_stretched_a_lot, "mic", "job_stretch_pct", 5.0),  # equal stretch: the top 10 % carry 10 %
        (f.no_bound_on_waste, "inf", "job_waste_pct", 50.0),
        (f.mic_bounds_waste, "mic", "job_waste_pct", 150.0),
        (f.mic_c_favours_throughput, "mic+c", "makespan", 0.9),
    ],
)
def test_each_claim_holds_on_the_papers_averages_and_fails_when_its_claim_does(small, finding, variant, metric, value):
    paper = papers_averages()
    assert finding(paper).verdict == HOLDS
    assert finding(edited(paper, variant, metric, value)).verdict == FAILS
    assert finding(edited(small, variant, metric, value)).verdict == FAILS


#: Klein & Pérez, Tables 1 and 2, the averages (written here from the paper, ε read as 0.25):
#: waste %, reservation, utilisation %, makespan, avg JCT, avg JWT, stretches %.
TABLES_1_2 = {
    "cbf": (70, 1, 40, 1, 1, 1, 0),
    "nos": (0, 0.58, 61, 0.65, 0.61, 0.55, 0),
    "mic": (2, 0.60, 63, 0.64, 0.61, 0.54, 22),
    "mic+c": (0.25, 0.59, 63, 0.63, 0.60, 0.54, 7),
    "inf": (7, 0.63, 64, 0.63, 0.62, 0.53, 26),
    "inf+c": (1, 0.59, 64, 0.62, 0.60, 0.53, 13),
}
#: Table 2's job stretch % and job waste %: (average, largest).
JOB_STRETCH = {"cbf": (0, 0), "nos": (0, 0), "mic": (4, 76), "mic+c": (0.25, 60), "inf": (19, 884), "inf+c": (5, 1354)}
JOB_WASTE = {"cbf": (67, 681), "nos": (0, 0), "mic": (2, 75), "mic+c": (0.25, 41), "inf": (6, 360), "inf+c": (1, 119)}


def papers_averages(tests=12, applications=10):
    """Per-test results that are the paper's averages, each test shifted by the same small amount
    in every variant (so that the paired comparisons are exact): one application in ten carries a
    test's whole job stretch and job waste (the average times ten), and the first test has the
    paper's largest ones."""
    keys = ("waste_pct", "reservation", "utilisation_pct", "makespan", "avg_jct", "avg_jwt", "stretches_pct")
    out = {}
    for variant, averages in TABLES_1_2.items():
        rows = []
        for i in range(tests):
            shift = 0.001 * (i % 5 - 2)
            row = {k: v + shift * (v != 0) for k, v in zip(keys, averages)}
            for metric, (mean, largest) in (
                ("job_stretch_pct", JOB_STRETCH[variant]),
                ("job_waste_pct", JOB_WASTE[variant]),
            ):
                row[metric] = [largest if i == 0 else applications * mean] + [0.0] * (applications - 1)
            rows.append(row)
        out[variant] = rows
    return out


def test_every_claim_of_sec_5_2_has_a_source_and_a_class(small):
    claims = f.check_findings(small)
    assert len(claims) == len(f.FINDINGS) == 12
    assert {c.klass for c in claims if not c.klass.startswith("depends on an arithmetic identity")} == {
        INDEPENDENT,
        BY_CONSTRUCTION,
    }
    assert all(c.source and c.paper and c.tolerance for c in claims)
    by_construction = [c.claim for c in claims if c.klass == BY_CONSTRUCTION]
    assert by_construction == [
        "nos has zero waste and zero stretch",
        "mic and mic+c waste at most 100 % of a job (l = 2)",
    ]


def test_calibration_chooses_the_nearest_on_the_fine_grid():
    rows = [
        {"hosts": 90, "cbf_utilisation_pct": 40.0, "nos_makespan": 0.65},  # coarse grid: never chosen
        {"hosts": 100, "cbf_utilisation_pct": 40.6, "nos_makespan": 0.660},
        {"hosts": 102, "cbf_utilisation_pct": 40.1, "nos_makespan": 0.6475},
        {"hosts": 104, "cbf_utilisation_pct": 39.6, "nos_makespan": 0.635},
    ]
    assert calibration_distance(rows[2]) == pytest.approx(((0.1 / 0.5) ** 2 + (0.0025 / 0.005) ** 2) ** 0.5)
    assert choose_n_max(rows) == 102
    with pytest.raises(ValueError):
        choose_n_max(rows[:1])


def test_cross_check_counts_agreeing_pairs_and_the_largest_difference(small):
    same = cross_check(small, small)
    assert same["agree"] == same["pairs"] == 6 * 60 and max(same["largest"].values()) == 0
    off = edited(small, "inf", "makespan", 0.5)
    other = cross_check(off, small)
    assert other["agree"] < other["pairs"] and other["largest"]["makespan"] > 0.01


@pytest.mark.slow
def test_reproduce_end_to_end_through_the_engine(tmp_path):
    from adaptsched.reproduce.klein_perez.command import reproduce
    from adaptsched.reproduce.runner import Setup

    report = reproduce(tmp_path / "kp", tests=8, setup=Setup(say=lambda *a: None, workers=2))
    text = report.read_text()
    assert "## Table 1" in text and "## Findings" in text
    assert re.search(r"\| n_max \| not stated \| 10[0-5] \|", text) and re.search(r"\| \*\*10[0-5]\*\* \|", text)
    assert "so ours is calibrated on two cells of Table 1" in text
    assert "Every number below (but *Time*) comes from the engine: each test under the six variants" in text
    assert re.search(r"\| 48 \| 8 \| [\d,]+ \| [\d,]+ \| [\d,]+ \| [\d,]+ \| 48 of 48 \|", text), text
    for name in ("tables.png", "gantt_test1.png", "per_test.csv", "calibration.csv", "findings.csv"):
        assert (report.parent / name).stat().st_size > 0


@pytest.mark.slow
def test_engine_tables_equal_the_in_process_ones_on_50_tests(tmp_path):
    """The engine's per-test metrics (from the runs' _jobs.csv) against the in-process plans', on
    50 tests under the six variants (300 runs), and so the tables and every claim."""
    from adaptsched.analysis.evolving import summarise
    from adaptsched.reproduce.klein_perez.command import engine_check
    from adaptsched.reproduce.runner import Setup

    cases = generate_tests(50, 1)
    engine = engine_check(cases, HOSTS, 1, out=tmp_path / "kp", setup=Setup(say=lambda *a: None, workers=2))
    assert engine["runs"] == 300 and not engine["missing"] and not engine["failures"]
    in_proc, _, _ = in_process(cases, HOSTS)
    cross = cross_check(engine["per_test"], in_proc)
    assert cross["agree"] == cross["pairs"] == 300
    for v in VARIANTS:
        ours, theirs = summarise(engine["per_test"][v]), summarise(in_proc[v])
        for metric, triple in ours.items():
            assert triple == pytest.approx(theirs[metric], abs=1e-9)
    verdicts = [(c.claim, c.verdict) for c in f.check(engine["per_test"])]
    assert verdicts == [(c.claim, c.verdict) for c in f.check(in_proc)]


def test_utilisation_and_reservation_restate_makespan_and_waste_test_by_test(small):
    """Why those cells are classed as identities: on every test, a variant's utilisation is CBF's
    over its makespan, and its reservation (1 + waste) / (1 + CBF waste)."""
    for variant in f.STRETCHING:
        for row, cbf in zip(small[variant], small["cbf"]):
            assert row["utilisation_pct"] == pytest.approx(cbf["utilisation_pct"] / row["makespan"], rel=1e-9)
            expected = (1 + row["waste_pct"] / 100) / (1 + cbf["waste_pct"] / 100)
            assert row["reservation"] == pytest.approx(expected, rel=1e-9)
