"""Downey's workload model generator (workloads/downey.py, adaptsched generate downey)."""

import math

import numpy as np
import pytest
from test_cli import assert_usage_error, cli

from adaptsched.workloads.downey import ARRIVAL_PHASE_S, DAY_S, MEAN_L_S, arrival_rate, generate
from adaptsched.workloads.swf import read_swf


def test_rate_matches_the_papers_jobs_per_day():
    assert MEAN_L_S == pytest.approx(16275, abs=1)  # 271 minutes
    assert arrival_rate(0.5, 64) * ARRIVAL_PHASE_S == pytest.approx(85, abs=1)  # "80 jobs a day"
    assert arrival_rate(1.0, 64) * ARRIVAL_PHASE_S == pytest.approx(170, abs=1)  # "160"


def paper_speedup(n, a, sigma):
    """Downey (1996), sec. 2, written out from the paper: eq. (1), low variance (sigma <= 1),
    and eq. (2), high variance (sigma >= 1)."""
    if sigma <= 1:
        if n <= a:
            return a * n / (a + sigma * (n - 1) / 2)
        if n <= 2 * a - 1:
            return a * n / (sigma * (a - 0.5) + n * (1 - sigma / 2))
        return a
    if n <= a + a * sigma - sigma:
        return n * a * (sigma + 1) / (a + a * sigma - sigma + n * sigma)
    return a


def test_paper_speedup_by_hand():
    # A = 4, sigma = 0.5, n = 2: 8 / (4 + 0.25) = 1.88235; n = 6 (A <= n <= 7): 24 / (1.75 + 4.5) = 3.84
    assert paper_speedup(2, 4, 0.5) == pytest.approx(8 / 4.25) and paper_speedup(6, 4, 0.5) == pytest.approx(3.84)
    # sigma = 2, A = 4: n = 3 (<= 4 + 8 - 2 = 10): 3 x 4 x 3 / (10 + 6) = 2.25; n = 10 and beyond: A
    assert paper_speedup(3, 4, 2.0) == pytest.approx(2.25) and paper_speedup(12, 4, 2.0) == 4
    # sigma = 1: both models agree ("When sigma = 1 the two models are identical")
    assert paper_speedup(5, 8, 1.0) == pytest.approx(5 * 8 * 2 / (8 + 8 - 1 + 5))


def test_distributions_and_day_night_phases():
    w = generate(60, 0.75, seed=1)
    jobs = w["jobs"]
    sub = np.array([j["subtime"] for j in jobs])
    assert ((sub % DAY_S) < ARRIVAL_PHASE_S).all()  # nothing arrives at night
    per_day = len(jobs) / 60
    assert per_day == pytest.approx(arrival_rate(0.75, 64) * ARRIVAL_PHASE_S, rel=0.05)
    m = [j["moldable"] for j in jobs]
    log_l = np.log([x["t1_s"] for x in m])
    assert log_l.min() >= 2 and log_l.max() <= 12 and log_l.mean() == pytest.approx(7, abs=0.15)
    log_a = np.log([x["A"] for x in m])
    assert log_a.min() >= 0 and log_a.max() <= math.log(64) and log_a.mean() == pytest.approx(math.log(64) / 2, abs=0.1)
    sig = np.array([x["sigma"] for x in m])
    assert sig.min() >= 0 and sig.max() <= 2 and sig.mean() == pytest.approx(1, abs=0.05)
    offered = sum(x["t1_s"] for x in m) / (60 * ARRIVAL_PHASE_S * 64)
    assert offered == pytest.approx(0.75, rel=0.12)
    for j in jobs[:200]:  # the rigid request runs for L / S(n), Downey's eq. (1) or (2), there
        a, sigma = j["moldable"]["A"], j["moldable"]["sigma"]
        expected = j["moldable"]["t1_s"] / paper_speedup(j["res"], a, sigma)
        assert w["profiles"][j["profile"]]["delay"] == pytest.approx(expected)
        assert 1 <= j["res"] <= j["max_res"] <= 64 and j["res"] == min(64, max(1, round(j["moldable"]["A"])))
    assert generate(3, 0.75, seed=1)["jobs"] == generate(3, 0.75, seed=1)["jobs"]


def test_days_apart_are_the_same_jobs_each_day_on_an_empty_machine(tmp_path):
    """Days apart (the paper's day-long runs): the same jobs as chained, each day starting a whole
    number of days after the last, no sooner than its arrival phase plus its jobs' lifetimes; even
    the most stubborn allocation (MAX) has ended a day's jobs before the next day's first arrival."""
    from adaptsched.engines.run import run
    from adaptsched.engines.spec import RunSpec
    from adaptsched.workloads.convert import write_workload

    chained, apart = generate(3, 0.8, seed=2), generate(3, 0.8, seed=2, apart=True)
    assert [j["moldable"] for j in apart["jobs"]] == [j["moldable"] for j in chained["jobs"]]
    starts = apart["adaptsched"]["day_starts_s"]
    assert starts[0] == 0 and all(s % DAY_S == 0 for s in starts) and chained["adaptsched"]["day_starts_s"] is None
    day_of = [max(k for k, s in enumerate(starts) if j["subtime"] >= s) for j in apart["jobs"]]
    for k in range(2):
        lifetimes = sum(j["moldable"]["t1_s"] for j, d in zip(apart["jobs"], day_of) if d == k)
        assert starts[k + 1] - starts[k] >= ARRIVAL_PHASE_S + lifetimes
    for a, c, d in zip(apart["jobs"], chained["jobs"], day_of):
        assert a["subtime"] - starts[d] == pytest.approx(c["subtime"] - d * DAY_S, abs=1e-5)
    path = write_workload(apart, tmp_path / "apart.json")
    spec = RunSpec.make(
        "downey", path, 64, tmp_path / "max", options={"strategy": "MAX", "mode": "stubborn", "load": 0.8}
    )
    run(spec, say=lambda *a: None)
    import pandas as pd

    done = pd.read_csv(tmp_path / "max_jobs.csv")
    done = done[done["final_state"] == "COMPLETED_SUCCESSFULLY"]
    assert len(done) == len(apart["jobs"])
    for k in range(2):
        mine = done[(done["submission_time"] >= starts[k]) & (done["submission_time"] < starts[k + 1])]
        assert mine["finish_time"].max() < starts[k + 1]


def test_cli_json_and_swf(tmp_path):
    code, out, err = cli(
        "generate", "downey", tmp_path / "d.json", "--days", 2, "--load", 0.5, "--seed", 3, "--swf", tmp_path / "d.swf"
    )
    assert code == 0, err
    trace = read_swf(tmp_path / "d.swf")
    assert len(trace.jobs) == int(out.split(": ")[1].split()[0]) > 100
    code, out, err = cli(
        "run", "--scheduler", "fcfs", "--workload", tmp_path / "d.json", "--platform", 64, "--out", tmp_path / "fcfs"
    )
    assert code == 0, err
    assert_usage_error(*cli("generate", "downey", tmp_path / "x.json", "--days", 0)[::2], "--days: must be at least 1")
