"""``reproduce klein-perez``: each finding of sec. 5.2 on synthetic averages, the tolerances,
and a small end-to-end run (in-process only)."""

import copy

import pytest

from adaptsched.reproduce.klein_perez import findings as f
from adaptsched.reproduce.klein_perez.plan import VARIANTS


def papers_averages():
    """The paper's own averages: every finding holds on them."""
    metrics = f.TABLE1 + f.TABLE2
    return {v: {m: f.paper(v, m)[1] for m in metrics} for v in VARIANTS}


def test_every_finding_holds_on_the_papers_numbers():
    assert all(x.holds for x in f.check_findings(papers_averages()))
    assert all(row[-1] for row in f.within_tolerance(papers_averages()))


def changed(**edits):
    avg = copy.deepcopy(papers_averages())
    for key, value in edits.items():
        variant, metric = key.split("__")
        avg[variant.replace("_c", "+c")][metric] = value
    return avg


@pytest.mark.parametrize(
    "finding,edits",
    [
        (f.cbf_loses_everywhere, {"mic__makespan": 1.01}),
        (f.cbf_loses_everywhere, {"cbf__utilisation_pct": 70}),
        (f.every_variant_reserves_less, {"inf_c__reservation": 1.0}),
        (f.inf_reserves_most, {"mic__reservation": 0.64}),
        (f.makespans_close_wastes_apart, {"nos__makespan": 0.70}),
        (f.makespans_close_wastes_apart, {"inf__waste_pct": 4.0}),
        (f.nos_never_wastes, {"nos__waste_pct": 0.1}),
        (f.compacting_helps, {"mic_c__waste_pct": 2.0}),
        (f.compacting_helps, {"inf_c__stretches_pct": 30}),
        (f.stretching_waits_least, {"nos__avg_jwt": 0.50}),
        (f.users_gain, {"inf__avg_jct": 1.0}),
        (f.users_gain, {"mic__job_waste_pct": 70}),
    ],
)
def test_each_finding_fails_when_its_claim_does(finding, edits):
    assert finding(papers_averages()).holds
    assert not finding(changed(**edits)).holds


def test_tolerances():
    assert f.tolerance("cbf", "waste_pct") == 5 and f.tolerance("nos", "waste_pct") == 2
    assert f.tolerance("inf", "job_waste_pct") == 6 and f.tolerance("inf+c", "job_waste_pct") == 3
    assert f.tolerance("mic", "time_ms") is None
    rows = f.within_tolerance(changed(nos__utilisation_pct=64.5, mic__makespan=0.68))
    out = {(v, m) for v, m, *_, ok in rows if not ok}
    assert out == {("nos", "utilisation_pct"), ("mic", "makespan")}


@pytest.mark.slow
def test_reproduce_end_to_end_in_process(tmp_path):
    from adaptsched.reproduce.klein_perez.command import reproduce
    from adaptsched.reproduce.runner import Setup

    report = reproduce(tmp_path / "kp", tests=30, engine_tests=0, setup=Setup(say=lambda *a: None))
    text = report.read_text()
    assert "## Table 1" in text and "## Findings" in text and "| 100 |" in text
    for name in ("tables.png", "gantt_test1.png", "per_test.csv", "calibration.csv"):
        assert (report.parent / name).stat().st_size > 0
