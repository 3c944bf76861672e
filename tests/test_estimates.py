"""User runtime estimates (workloads/estimates.py, adaptsched estimates): exact, and Tsafrir,
Etsion & Feitelson (2005) as ../shared/reference/workload-models.md sec. 3 ("Ref") gives it."""

import csv
import json
import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_cli import assert_clean_error, assert_usage_error, cli

from adaptsched.workloads import estimates as E
from adaptsched.workloads import lublin
from adaptsched.workloads.convert import convert_swf, write_workload
from adaptsched.workloads.swf import EXCERPT_DIR


@pytest.fixture(scope="module")
def w1():
    """A generated W1-like workload of 10,000 jobs (alpha' = 10.23, 128 hosts)."""
    return lublin.generate(10000, aarr=10.23, seed=1)


@pytest.fixture(scope="module")
def w1e(w1):
    return E.annotate(w1, model="tsafrir", seed=1)


def runtimes_of(workload):
    return np.array([float(workload["profiles"][j["profile"]]["delay"]) for j in workload["jobs"]])


def test_sanity_on_a_generated_10k_workload(w1, w1e):
    out, summary = w1e
    est = np.array([j["estimate_s"] for j in out["jobs"]], dtype=float)
    rt = runtimes_of(out)
    assert len(est) == 10000 and (est >= rt).all()
    assert (runtimes_of(w1) == rt).all()  # runtimes unchanged
    counts = Counter(est.tolist())
    assert len(counts) == 90 == summary["k"]  # K at 10,000 jobs
    assert counts[rt.max()] / 10000 == pytest.approx(0.2172, abs=2e-4)  # M = the longest runtime
    assert sum(c for _, c in counts.most_common(20)) / 10000 == pytest.approx(0.89, abs=2e-3)
    accuracy = rt / est
    assert accuracy.mean() == pytest.approx(0.13, abs=0.02)
    assert np.median(accuracy) == pytest.approx(0.04, abs=0.01)
    assert summary["max_estimate_s"] == rt.max() and summary["max_estimate_from"] == "longest runtime"
    assert out["adaptsched"]["estimates"]["model"] == "tsafrir"
    assert out["adaptsched"]["generator"] == "lublin-feitelson-2003"  # the generator's metadata kept


def test_walltime_rule(w1e):
    out, summary = w1e
    equal = 0
    for job, rt in zip(out["jobs"], runtimes_of(out)):
        if job["estimate_s"] == rt:
            assert job["walltime"] == rt + 1
            equal += 1
        else:
            assert job["walltime"] == job["estimate_s"] > rt
    assert equal == summary["walltime_runtime_plus_1"] >= 1  # the longest job's estimate is M = its runtime


def test_k_and_a_values():
    assert [E.number_of_bins(n) for n in (1000, 10000, 50000, 100000)] == [35, 90, 257, 378]
    assert [round(E.default_a(k), 2) for k in (35, 90, 257, 378)] == [2.42, 1.80, 1.43, 1.34]
    assert E.number_of_bins(300000) == 565 and E.number_of_bins(20) == 10 and E.number_of_bins(0) == 0
    assert E.tail_fraction(1.0, 1.8) == pytest.approx(1.0) and E.tail_fraction(0.0, 1.8) == 0


def test_default_head_sizes_and_times():
    sizes = [E.head_percent(x) for x in range(2, 21)]
    assert E.HEAD_PERCENT - sum(sizes) == pytest.approx(21.73, abs=0.006)
    ref = [10.31, 8.71, 7.37, 6.25, 5.31, 4.52, 3.86, 3.31, 2.84, 2.46, 2.13, 1.86, 1.63, 1.44, 1.28, 1.15, 1.04, 0.94]
    assert sizes[:-1] == pytest.approx(ref, abs=0.006) and sizes[-1] == pytest.approx(0.87, abs=0.006)
    head = E.default_head(40 * 3600)
    times = [b.time_s for b in head]
    assert len(head) == 20 and times[0] == 40 * 3600 and times[1:] == sorted(times[1:])
    assert set(E.JOINT_S) <= set(times)  # all 15 joint estimates are below 40 h
    assert {b.time_s for b in head if b.kind == "round"} == {35 * 3600, 30 * 3600, 25 * 3600, 20 * 3600}
    assert len(E.default_head(5701)) == 20  # the driver's limit M > 5700 s fills the head


def test_time_rank_table_is_a_permutation_per_column():
    for column in range(4):
        assert sorted(row[column] for row in E.TTR_TO_PR) == list(range(1, 21))


@pytest.mark.parametrize("jobs", [227, 1000, 4321, 10000, 60000])
@pytest.mark.parametrize("max_s", [5701.0, 36000.0, 162754.0])
def test_distribution_counts_sum_to_n(jobs, max_s):
    d = E.build_distribution(jobs, max_s, [], np.random.Generator(np.random.PCG64(jobs)))
    assert sum(b.count for b in d.bins) == jobs
    assert all(0 < b.time_s <= max_s for b in d.bins) and d.bins[0].time_s == max_s
    assert len({b.time_s for b in d.bins}) == len(d.bins)
    assert sorted(b.rank for b in d.bins[:20]) == list(range(1, 21))  # each head rank once
    assert d.bins[0].rank == 1


def test_bin_at_m_gives_its_share(w1):
    out, summary = E.annotate(w1, model="tsafrir", bins=E.parse_bins(["M=40"]), seed=2)
    est = np.array([j["estimate_s"] for j in out["jobs"]])
    assert (est == summary["max_estimate_s"]).mean() == pytest.approx(0.40, abs=0.005)
    assert (est >= runtimes_of(out)).all()


def test_user_bins_keep_their_counts(w1):
    bins = E.parse_bins(["7200=12", "5400=3", "M=25"])
    out, summary = E.annotate(w1, model="tsafrir", bins=bins, max_estimate_s=180000, seed=3)
    counts = Counter(j["estimate_s"] for j in out["jobs"])
    assert (counts[7200], counts[5400], counts[180000]) == (1200, 300, 2500)
    assert summary["bins"] == [[7200, 1200], [5400, 300], [180000, 2500]]


def test_seed_decides_and_same_seed_same_estimates(w1):
    a = E.annotate(w1, model="tsafrir", seed=5)[0]
    b = E.annotate(w1, model="tsafrir", seed=5)[0]
    c = E.annotate(w1, model="tsafrir", seed=6)[0]
    assert a == b and a["jobs"] != c["jobs"]


def test_exact_model(w1):
    out, summary = E.annotate(w1, model="exact")
    for job, rt in zip(out["jobs"], runtimes_of(out)):
        assert job["estimate_s"] == rt and job["walltime"] == rt + 1
    assert summary["walltime_runtime_plus_1"] == 10000


def _workload(runtimes, hosts=4):
    profiles = {f"delay_{r}": {"type": "delay", "delay": r} for r in set(runtimes)}
    jobs = [
        {"id": str(i + 1), "subtime": i, "res": 1, "walltime": -1, "profile": f"delay_{r}"}
        for i, r in enumerate(runtimes)
    ]
    return {"nb_res": hosts, "profiles": profiles, "jobs": jobs}


def test_errors():
    base = runtimes_of(lublin.generate(1000, seed=1)).astype(int).tolist()
    m = max(base)
    E.annotate(_workload(base), model="tsafrir")  # feasible
    with pytest.raises(E.UsageError, match="M >= 1 h"):
        E.annotate(_workload(base), model="tsafrir", max_estimate_s=3000)
    with pytest.raises(E.UsageError, match="5700"):
        E.annotate(_workload(base), model="tsafrir", max_estimate_s=5000)
    with pytest.raises(E.InputError, match="run longer than M"):
        E.annotate(_workload(base), model="tsafrir", max_estimate_s=m - 1)
    out, summary = E.annotate(_workload(base), model="tsafrir", max_estimate_s=m - 1, truncate=True)
    assert summary["truncated_runtimes"] == base.count(m) and runtimes_of(out).max() == m - 1
    with pytest.raises(E.InputError, match="more than 226"):
        E.annotate(_workload(base[:226]), model="tsafrir")
    long = [39000] * 500 + [40000] * 500  # half the jobs near M: only 21.7 % of the estimates are M
    with pytest.raises(E.AdaptschedError, match=r"no feasible estimates.*--bin M=PCT"):
        E.annotate(_workload(long), model="tsafrir")
    E.annotate(_workload(long), model="tsafrir", bins=E.parse_bins(["M=100"]))  # all at M: feasible
    with pytest.raises(E.UsageError, match="above M"):
        E.annotate(_workload(base), model="tsafrir", bins=E.parse_bins([f"{2 * m}=5"]))
    for bad in ("M", "3600=0", "x=5", "-5=3", "100=101"):
        with pytest.raises(E.UsageError, match="--bin"):
            E.parse_bins([bad])


def test_cli_errors(tmp_path):
    w = tmp_path / "w.json"
    write_workload(lublin.generate(1000, seed=1), w)
    out = tmp_path / "o.json"
    assert_usage_error(*cli("estimates", w, out, "--model", "tsafrir", "--max-estimate", 1800)[::2], "M >= 1 h")
    assert_usage_error(*cli("estimates", w, out, "--model", "exact", "--bin", "M=40")[::2], "tsafrir")
    assert_usage_error(*cli("estimates", w, out)[::2], "--model")
    code, _, err = cli("estimates", w, out, "--model", "tsafrir", "--max-estimate", 6000)
    assert_clean_error(code, err, "run longer than M", "--truncate")
    assert not out.exists()


def test_estimates_apply_to_downey_and_converted_traces():
    from adaptsched.workloads.downey import generate

    downey = generate(4, 0.75, seed=1)
    out, summary = E.annotate(downey, model="tsafrir", seed=1)
    rt = runtimes_of(out)
    est = np.array([j["estimate_s"] for j in out["jobs"]])
    assert (est >= rt).all() and summary["jobs"] == len(downey["jobs"]) > 226
    assert out["adaptsched"]["generator"] == "downey-1996"
    old = {k: v for k, v in downey.items() if k != "adaptsched"} | {"meta": downey["adaptsched"]}  # an old file
    assert E.annotate(old, model="exact")[0]["adaptsched"]["generator"] == "downey-1996"
    trace, _ = convert_swf(EXCERPT_DIR / "CTC-SP2-1996-3.1-cln.first5000.swf.gz", first=2000)
    out, summary = E.annotate(trace, model="tsafrir", seed=1)
    assert summary["max_estimate_s"] == runtimes_of(trace).max()
    assert all(j["walltime"] > 0 for j in out["jobs"])


def test_pipeline_generate_estimates_run_no_job_killed(tmp_path):
    """Acceptance 4 on 1,000 jobs (the 10,000-job version is slow-marked below)."""
    _pipeline(tmp_path, 1000)


@pytest.mark.slow
def test_pipeline_10k_acceptance_4(tmp_path):
    _pipeline(tmp_path, 10000)


def _pipeline(tmp_path, jobs):
    w1, w1e = tmp_path / "w1.json", tmp_path / "w1e.json"
    code, _, err = cli("generate", "lublin", w1, "--aarr", 10.23, "--seed", 1, "--jobs", jobs)
    assert code == 0, err
    code, out, err = cli("estimates", w1, w1e, "--model", "tsafrir", "--seed", 1)
    assert code == 0, err
    assert "distinct values" in out and "% at M" in out
    code, _, err = cli("run", "--scheduler", "easy", "--workload", w1e, "--platform", 128, "--out", tmp_path / "o/e")
    assert code == 0, err
    with open(tmp_path / "o" / "e_jobs.csv", newline="") as stream:
        states = Counter(row["final_state"] for row in csv.DictReader(stream))
    assert states == {"COMPLETED_SUCCESSFULLY": jobs}
    again = tmp_path / "again.json"
    assert cli("estimates", w1, again, "--model", "tsafrir", "--seed", 1)[0] == 0
    assert again.read_bytes() == w1e.read_bytes()  # same seed, same bytes
    assert json.loads(w1e.read_text())["adaptsched"]["estimates"]["seed"] == 1
    assert math.isfinite(json.loads(w1e.read_text())["adaptsched"]["estimates"]["a"])


def test_qos_annotate_uses_estimate_s(w1e):
    from adaptsched.workloads.qos import annotate

    out, summary = w1e
    annotated, _ = annotate(out, seed=1)
    assert [j["estimate_s"] for j in annotated["jobs"]] == [j["estimate_s"] for j in out["jobs"]]
    longest = max(annotated["jobs"], key=lambda j: j["walltime"])  # estimate M, walltime M + 1
    assert longest["estimate_s"] == summary["max_estimate_s"] == longest["walltime"] - 1


@given(st.lists(st.integers(1, 50), min_size=1, max_size=60), st.integers(0, 2**32 - 1))
def test_assign_deals_every_estimate_once_and_never_below_the_runtime(runtimes, seed):
    rng = np.random.Generator(np.random.PCG64(seed))
    rt = np.array(runtimes, dtype=float)
    est = np.sort(rt + rng.integers(0, 30, size=len(rt)))[::-1].astype(float)  # feasible by construction
    out = E.assign(rt, est.copy(), rng)
    assert not isinstance(out, int)
    assert (out >= rt).all() and sorted(out.tolist()) == sorted(est.tolist())
    short = np.sort(rt)[::-1]
    short[0] -= 0.5  # one estimate short: some runtime exceeds the estimate of its rank
    position = E.assign(rt, np.sort(short)[::-1], rng)
    assert isinstance(position, int) and position == (rt == rt.max()).sum() - 1


def test_estimates_go_to_swf_field_9(tmp_path):
    from adaptsched.workloads.swf import read_swf, write_swf

    trace, _ = convert_swf(EXCERPT_DIR / "CTC-SP2-1996-3.1-cln.first5000.swf.gz", first=1000)
    out, _ = E.annotate(trace, model="tsafrir", seed=4)
    write_swf(out, tmp_path / "e.swf")
    back = read_swf(tmp_path / "e.swf")
    assert [j.requested_time_s for j in back.jobs] == [j["estimate_s"] for j in out["jobs"]]
    offset = trace["adaptsched"]["submit_offset_s"]
    assert [j.submit_s for j in back.jobs] == [j["subtime"] + offset for j in out["jobs"]]
    assert back.header["MaxNodes"] == trace["adaptsched"]["swf_header"]["MaxNodes"]
