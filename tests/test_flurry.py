"""The synthetic-flurry transform (adaptsched.workloads.flurry, issue 31)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import SHARED_TRACES, needs_trace

from adaptsched.errors import InputError, UsageError
from adaptsched.workloads.convert import convert_swf, write_workload
from adaptsched.workloads.flurry import CTC_FLURRY, LABEL, add_flurry, flurry_job_ids, parse_flurry

CTC_FULL = SHARED_TRACES / "CTC-SP2-1996-3.1-cln.swf.gz"


def _swf(tmp_path: Path, rows: list[tuple[int, int, int, int]], zero_rule: str = "drop") -> dict:
    """A converted workload of (job number, submit s, runtime s, width) rows, estimates 1 h."""
    lines = ["; MaxNodes: 16"]
    lines += [f"{n} {t} 0 {r} {w} -1 -1 {w} 3600 -1 1 7 -1 1 1 -1 -1 -1" for n, t, r, w in rows]
    path = tmp_path / "t.swf"
    path.write_text("\n".join(lines) + "\n")
    workload, _ = convert_swf(path, zero_runtime=zero_rule)
    return workload


def _trace(tmp_path: Path, zero_rule: str = "drop") -> dict:
    # 40 jobs every 100 s from t = 1000, numbered 1 to 40
    return _swf(tmp_path, [(n, 1000 + 100 * (n - 1), 50, 2) for n in range(1, 41)], zero_rule)


WINDOW_SPEC = "count=30,user=9,width=3,runtime=exp:20,zeros=5,estimate=600,window=1500:3500,seed=4"


def test_count_window_width_and_marks(tmp_path):
    base = _trace(tmp_path, "min:1")
    out = add_flurry(base, parse_flurry(WINDOW_SPEC))
    meta = out["adaptsched"]["flurry"]
    new = [job for job in out["jobs"] if job.get("flurry")]
    assert len(new) == 30 == meta["inserted"] and len(out["jobs"]) == 70
    assert meta["label"] == LABEL and meta["spec"] == parse_flurry(WINDOW_SPEC).text()
    assert sorted(meta["job_ids"]) == list(range(41, 71))  # above the trace's largest id
    assert flurry_job_ids(out) == {job["id"] for job in new} and flurry_job_ids(base) == set()
    offset = out["adaptsched"]["submit_offset_s"]  # the first job's submit time, 1000
    assert offset == 1000
    assert all(1500 <= job["subtime"] + offset < 3500 for job in new)
    assert all(job["res"] == 3 and job["walltime"] == 600 and job["user"] == 9 for job in new)
    subtimes = [job["subtime"] for job in out["jobs"]]
    assert subtimes == sorted(subtimes)  # merged in submit order
    delays = [out["profiles"][job["profile"]]["delay"] for job in new]
    assert delays.count(1) >= 5 and meta["zero_runtime_kept"] == 5  # zeros -> min:1, as the trace's
    assert all(d >= 1 and d == int(d) for d in delays)
    assert not base["adaptsched"].get("flurry") and len(base["jobs"]) == 40  # the input is untouched


def test_even_arrivals_are_evenly_spaced(tmp_path):
    out = add_flurry(_trace(tmp_path), parse_flurry("count=4,runtime=const:10,window=2000:2400"))
    new = [job for job in out["jobs"] if job.get("flurry")]
    assert [job["subtime"] for job in new] == [1000, 1100, 1200, 1300]  # 2000, 2100... minus the offset
    assert all(out["profiles"][job["profile"]] == {"type": "delay", "delay": 10} for job in new)


def test_zero_runtimes_follow_the_workload_rule(tmp_path):
    out = add_flurry(_trace(tmp_path, "drop"), parse_flurry(WINDOW_SPEC))
    meta = out["adaptsched"]["flurry"]
    assert meta["zero_runtime_dropped"] == 5 and meta["inserted"] == 25 and meta["zero_runtime_kept"] == 0


def test_determinism_per_seed(tmp_path):
    base = _trace(tmp_path)
    one = add_flurry(base, parse_flurry(WINDOW_SPEC.replace("seed=4", "seed=7")))
    again = add_flurry(base, parse_flurry(WINDOW_SPEC.replace("seed=4", "seed=7")))
    other = add_flurry(
        base, parse_flurry(WINDOW_SPEC.replace("seed=4", "seed=8").replace("window", "arrivals=uniform,window"))
    )
    assert json.dumps(one, sort_keys=True) == json.dumps(again, sort_keys=True)
    assert json.dumps(one, sort_keys=True) != json.dumps(other, sort_keys=True)


def test_gaps_fill_the_missing_job_numbers(tmp_path):
    rows = [(n, 1000 + 100 * (n - 1), 50, 2) for n in range(1, 41) if not 11 <= n <= 20 and n != 25]
    base = _swf(tmp_path, rows)
    out = add_flurry(base, parse_flurry("count=11,width=1,runtime=exp:30,arrivals=gaps:11:30,seed=2"))
    new = {job["id"]: job for job in out["jobs"] if job.get("flurry")}
    assert sorted(new) == [*range(11, 21), 25]
    for number, job in new.items():  # between the kept jobs numbered just below and above
        low, high = (10, 21) if number < 25 else (24, 26)
        assert base["jobs"][[j["id"] for j in base["jobs"]].index(low)]["subtime"] <= job["subtime"]
        assert job["subtime"] <= base["jobs"][[j["id"] for j in base["jobs"]].index(high)]["subtime"]
    with pytest.raises(InputError, match="finds 11 missing job numbers, count=12"):
        add_flurry(base, parse_flurry("count=12,arrivals=gaps:11:30"))


def test_jobs_outside_a_converted_part_are_counted_not_inserted(tmp_path):
    base = _trace(tmp_path)
    out = add_flurry(base, parse_flurry("count=10,window=3000:6000"))  # the trace ends at 4900
    meta = out["adaptsched"]["flurry"]
    assert meta["inserted"] + meta["outside_workload"] == 10 and meta["outside_workload"] == 3


@pytest.mark.parametrize(
    "text, words",
    [
        ("count=3", "window=START:END is missing"),
        ("window=1:2", "count is missing"),
        ("nope,count=2", "unknown preset 'nope'"),
        ("count=2,window=1:2,colour=red", "unknown key 'colour'"),
        ("count=two,window=1:2", "count='two' is not a whole number"),
        ("count=2,window=5:2", "START < END"),
        ("count=2,window=1:2,runtime=gamma:3", "expected exp:MEAN or const:S"),
        ("count=2,window=1:2,zeros=3", "zeros=3 above count=2"),
        ("ctc,window=1:2", "no window"),
        ("count=2,window=1:2,arrivals=gaps:9:3", "FIRST above LAST"),
    ],
)
def test_bad_specs_name_the_key(text, words):
    with pytest.raises(UsageError, match=words):
        parse_flurry(text)


def test_too_wide_and_twice_are_refused(tmp_path):
    base = _trace(tmp_path)
    with pytest.raises(InputError, match="wider than the machine"):
        add_flurry(base, parse_flurry("count=2,width=17,window=1500:1600"))
    once = add_flurry(base, parse_flurry("count=2,window=1500:1600"))
    with pytest.raises(InputError, match="already holds"):
        add_flurry(once, parse_flurry("count=2,window=1500:1600"))


def test_spec_text_round_trips():
    assert parse_flurry("ctc") == CTC_FLURRY
    assert parse_flurry(CTC_FLURRY.text()) == CTC_FLURRY
    assert parse_flurry("ctc,seed=3").seed == 3 and parse_flurry("ctc,seed=3").count == 2080
    spec = parse_flurry(WINDOW_SPEC)
    assert parse_flurry(spec.text()) == spec


@pytest.mark.slow
@needs_trace(CTC_FULL)
def test_ctc_preset_gives_the_papers_table_1(tmp_path):
    """The reconstruction on the cleaned CTC log: 79,302 jobs and Table 1's means and median
    width (the parameters were read off Table 1, so this checks the arithmetic, not the paper)."""
    base, _ = convert_swf(CTC_FULL, hosts=430, zero_runtime="min:1")
    out = add_flurry(base, parse_flurry("ctc"))
    meta = out["adaptsched"]["flurry"]
    assert meta["inserted"] == 2080 and meta["outside_workload"] == 0 and len(out["jobs"]) == 79302
    assert sorted(meta["job_ids"])[0] == 47421 and sorted(meta["job_ids"])[-1] <= 50307
    widths = sorted(job["res"] for job in out["jobs"])
    assert widths[len(widths) // 2] == 2  # Table 1: median 2 (the cleaned log: 3)
    runtimes = [out["profiles"][job["profile"]]["delay"] for job in out["jobs"]]
    assert abs(sum(runtimes) / len(runtimes) - 10984) < 60  # Table 1: mean runtime 10,984 s
    assert meta["zero_runtime_kept"] + 17 == 134  # Table 2: 134 zero-runtime jobs
    path = write_workload(out, tmp_path / "paper.json")
    assert flurry_job_ids(json.loads(path.read_text())) == set(meta["job_ids"])


def test_gaps_beyond_a_converted_part_are_all_outside(tmp_path):
    rows = [(n, 1000 + 100 * (n - 1), 50, 2) for n in range(1, 41) if not 31 <= n <= 35]
    base = _swf(tmp_path, rows[:25])  # the trace's first 25 jobs: numbers 1 to 25
    out = add_flurry(base, parse_flurry("count=5,arrivals=gaps:31:35"))
    meta = out["adaptsched"]["flurry"]
    assert meta["inserted"] == 0 and meta["outside_workload"] == 5 and out["jobs"] == base["jobs"]


# ------------------------------------------------------------------ the reproduction's statistics
def test_queue_stats_by_hand():
    import pandas as pd

    from adaptsched.reproduce.perkovic_keleher.workloads import queue_stats

    # submitted at 0, 0, 5, 5; started at 0, 10, 5, 20: after t=0 one waits, after t=5 still
    # one (the job submitted and started at 5 never queues), t=10 none, 5..20 the last
    jobs = pd.DataFrame(
        {
            "submission_time": [0.0, 0.0, 5.0, 5.0],
            "starting_time": [0.0, 10.0, 5.0, 20.0],
            "waiting_time": [0.0, 10.0, 0.0, 15.0],
        }
    )
    assert queue_stats(jobs) == {"max_queue": 2, "immediate": 0.5}  # after t=5: jobs 2 and 4


def test_workload_statistics_claims_tell_the_cleaned_log_from_the_papers():
    """BF's longest queue on the cleaned log (193, measured) fails the paper's "approximately
    1,000"; one in the band (five flurry draws near 1,000) holds; 61 % within 15 %."""
    from adaptsched.reproduce.common import FAILS, HOLDS
    from adaptsched.reproduce.perkovic_keleher import findings as claims

    assert claims.max_queue_near_paper(193, "cleaned log").verdict == FAILS
    draws = {1: 1010.0, 2: 990.0, 3: 1040.0, 4: 975.0, 5: 1002.0}
    assert claims.max_queue_near_paper(draws, "paper's workload").verdict == HOLDS
    assert claims.immediate_near_paper(0.627, "cleaned log").verdict == HOLDS
    assert claims.immediate_near_paper(0.45, "cleaned log").verdict == FAILS
    width = claims.median_width_matches(2.0, "paper's workload")
    assert width.verdict == HOLDS and width.klass == claims.BY_CONSTRUCTION
    assert claims.zero_runtime_matches(0, "cleaned log").verdict == FAILS


# ------------------------------------------------------------------ adaptsched convert --add-flurry
def test_convert_add_flurry_end_to_end(tmp_path):
    from helpers import CTC_EXCERPT
    from test_cli import cli

    out = tmp_path / "ctc.json"
    spec = "count=50,user=135,width=1,runtime=exp:100,zeros=5,estimate=21600,window=100000:172000,seed=3"
    code, text, err = cli(
        "convert", CTC_EXCERPT, out, "--first", "1000", "--zero-runtime", "min:1", "--add-flurry", spec
    )
    assert code == 0, err
    assert "synthetic flurry (ours, not in the trace): 50 jobs inserted" in text
    workload = json.loads(out.read_text())
    assert len(workload["jobs"]) == 1050 and len(flurry_job_ids(workload)) == 50
    code, _, err = cli("convert", CTC_EXCERPT, out, "--add-flurry", "count=5,colour=red,window=1:2")
    assert code != 0 and "--add-flurry" in err and "unknown key 'colour'" in err and "Traceback" not in err


def test_paper_runs_pair_seeds_with_flurry_draws():
    from adaptsched.reproduce.perkovic_keleher.plan import mixes, paper_runs

    chosen = mixes(("flurry",))  # BF, P/L-NG, R/L-NG
    assert paper_runs(chosen, 3, 0) == []  # --flurry-seeds 0: the cleaned log only
    runs = paper_runs(chosen, 3, 2)  # seeds 1, 2, 3 on draws 1, 2, 1
    names = [name for _, name, _ in runs]
    assert len(runs) == 2 + 3 + 3 and "paper-f1_flurry_BF" in names and "paper-f2_flurry_BF" in names
    assert "paper-f1_flurry_RoverL-NG_seed3" in names and "paper-f2_flurry_PoverL-NG_seed2" in names
