"""adaptsched.analysis: reading, attempt folding, metrics, comparisons, Gantt charts.

Real fixtures (tests/fixtures/analysis/, see README.md there) are Batsim 4.2.1 outputs of the
same 60-job workload on 8 hosts: ``easy`` (pybatsim easyBackfill), ``filler``
(pybatsim fillerSched) and ``kr`` (kill_resubmit_sched.py: jobs killed and resubmitted with
pybatsim's resubmit_job, others executed through a copy while the original is rejected).
The hand-made cases below are small enough to check every number by hand.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from adaptsched.analysis import (
    bounded_slowdown,
    compare_runs,
    compute_metrics,
    format_metrics,
    load_jobs,
    report_run,
    to_jobset,
)
from adaptsched.analysis.gantt import choose_window, plot_gantt
from adaptsched.analysis.jobs import read_jobs_csv
from adaptsched.errors import InputError
from adaptsched.formats.intervals import alloc_stats

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "analysis"
HEADER = (
    "job_id,workload_name,profile,submission_time,requested_number_of_resources,"
    "requested_time,success,final_state,starting_time,execution_time,finish_time,"
    "waiting_time,turnaround_time,stretch,allocated_resources,consumed_energy,metadata"
)
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def row(job_id, sub, res, state, start=None, runtime=None, alloc="", meta="", walltime=-1):
    """One Batsim v4 jobs.csv line (6-decimal floats, quoted metadata, empty if rejected)."""
    success = int(state == "COMPLETED_SUCCESSFULLY")
    if start is None:
        times = ",,,,,"
        energy = ""
    else:
        finish = start + runtime
        times = (
            f"{start:.6f},{runtime:.6f},{finish:.6f},{start - sub:.6f},"
            f"{finish - sub:.6f},{(finish - sub) / runtime:.6f}"
        )
        energy = "-1.000000"
    meta = meta.replace('"', '""')
    return f'{job_id},w0,p,{sub:.6f},{res},{walltime:.6f},{success},{state},{times},{alloc},{energy},"{meta}"'


def write_run(tmp_path, name, rows, nb_machines=None):
    path = tmp_path / f"{name}_jobs.csv"
    path.write_text("\n".join([HEADER, *rows]) + "\n")
    if nb_machines is not None:
        (tmp_path / f"{name}_schedule.csv").write_text(
            f"batsim_version,makespan,nb_computing_machines,nb_jobs\n4.2.1,0.000000,{nb_machines},{len(rows)}\n"
        )
    return path


# j1: wait 0, runtime 100 on 2 hosts; j2: wait 90, runtime 5 (< bound);
# j3: wait 30, runtime 40, walltime reached; j4: rejected.
THREE_JOBS = [
    row(1, 0, 2, "COMPLETED_SUCCESSFULLY", 0, 100, "0-1"),
    row(2, 10, 1, "COMPLETED_SUCCESSFULLY", 100, 5, "2"),
    row(3, 20, 1, "COMPLETED_WALLTIME_REACHED", 50, 40, "3"),
    row(4, 30, 2, "REJECTED"),
]


# --------------------------------------------------------------------------- metrics
def test_hand_worked_metrics(tmp_path):
    path = write_run(tmp_path, "three", THREE_JOBS)
    m = compute_metrics(path, hosts=4)
    o = m["overall"]
    assert (o["jobs"], o["executed"], o["completed"], o["killed"], o["rejected"]) == (4, 3, 2, 1, 1)
    assert o["wait_mean_s"] == pytest.approx(40.0)  # (0 + 90 + 30) / 3
    assert o["wait_median_s"] == pytest.approx(30.0)
    assert o["wait_p90_s"] == pytest.approx(78.0)  # 30 + 0.8 * (90 - 30)
    assert o["response_mean_s"] == pytest.approx((100 + 95 + 70) / 3)
    assert o["response_p90_s"] == pytest.approx(99.0)  # 95 + 0.8 * 5
    # bsld: j1 max(1, 100/100) = 1; j2 (90+5)/max(5,10) = 9.5; j3 (30+40)/40 = 1.75
    assert o["bsld_mean"] == pytest.approx((1 + 9.5 + 1.75) / 3)
    # window [0, 105]: busy 2*100 + 5 + 40 = 245 host-s over 4 hosts
    assert o["makespan_s"] == pytest.approx(105.0)
    assert o["busy_node_s"] == pytest.approx(245.0)
    assert o["utilization"] == pytest.approx(245 / (4 * 105))
    # queue: j2 waits 90 s and j3 30 s, one host each; both wait during [20, 50]
    assert o["mean_queue_hosts"] == pytest.approx(120 / 105)
    # j3 reached its walltime after 40 s on 1 host: 40 host-seconds of work without result
    assert o["killed_node_s"] == pytest.approx(40.0) and o["wasted_node_s"] == 0.0
    assert m["hosts"] == 4 and m["hosts_source"] == "hosts argument"
    json.dumps(m)  # plain types only


def test_labels_say_what_they_measure(tmp_path):
    # A 4-host machine: four 4-host jobs submitted at 0 run one after the other.
    rows = [row(1, 0, 4, "COMPLETED_SUCCESSFULLY", 0, 100, "0-3")]
    rows += [row(i, 0, 4, "COMPLETED_WALLTIME_REACHED", 100 * (i - 1), 100, "0-3") for i in (2, 3, 4)]
    m = compute_metrics(write_run(tmp_path, "backlog", rows, nb_machines=4))
    o = m["overall"]
    # queued demand: 4 hosts x (100 + 200 + 300) s of waiting over a 400 s window = 6 hosts,
    # more than the machine's 4: a backlog, said as such
    assert o["mean_queue_hosts"] == pytest.approx(6.0)
    text = format_metrics(m)
    assert "| queued demand: hosts requested by waiting jobs, time-average | 6.00 (1.50 x the 4 hosts) |" in text
    # three jobs killed at their walltime: 3 x 4 hosts x 100 s, not "0 wasted"
    assert o["killed_node_s"] == 1200.0 and o["wasted_node_s"] == 0.0
    assert "| host-seconds of jobs killed for good (walltime or scheduler) | 1,200 |" in text
    assert "| host-seconds of attempts redone (killed copies, resubmitted jobs) | 0 |" in text


def test_bound_parameter_and_formula():
    assert bounded_slowdown([90, 0], [5, 100], 10.0).tolist() == [9.5, 1.0]
    assert bounded_slowdown([90], [5], 1.0).tolist() == [19.0]
    assert bounded_slowdown([0], [0.5], 10.0).tolist() == [1.0]  # never below 1


def test_bound_s_changes_short_jobs_only(tmp_path):
    path = write_run(tmp_path, "three", THREE_JOBS)
    m = compute_metrics(path, hosts=4, bound_s=1.0)
    assert m["overall"]["bsld_mean"] == pytest.approx((1 + 19 + 1.75) / 3)
    assert m["parameters"]["bound_s"] == 1.0


def test_class_breakdown(tmp_path):
    path = write_run(tmp_path, "three", THREE_JOBS)
    m = compute_metrics(path, hosts=4, short_s=30, long_s=100, wide_hosts=1)
    c = m["classes"]
    assert [c[k]["jobs"] for k in ("short", "medium", "long", "narrow", "wide")] == [1, 1, 1, 2, 1]
    assert c["short"]["wait_mean_s"] == pytest.approx(90.0)
    assert c["short"]["bsld_mean"] == pytest.approx(9.5)
    assert c["medium"]["killed"] == 1 and c["medium"]["completed"] == 0
    assert c["long"]["bsld_mean"] == pytest.approx(1.0)
    assert c["narrow"]["wait_mean_s"] == pytest.approx(60.0)
    assert c["narrow"]["bsld_mean"] == pytest.approx((9.5 + 1.75) / 2)
    # utilization shares add up: busy host-s of the class over 4 hosts x 105 s
    assert c["long"]["utilization"] == pytest.approx(200 / 420)
    assert c["wide"]["utilization"] == pytest.approx(200 / 420)
    assert c["narrow"]["utilization"] == pytest.approx(45 / 420)
    assert sum(c[k]["utilization"] for k in ("short", "medium", "long")) == pytest.approx(m["overall"]["utilization"])
    # default thresholds: all short and narrow; empty classes have None statistics
    d = compute_metrics(path, hosts=4)["classes"]
    assert d["short"]["jobs"] == 3 and d["long"]["jobs"] == 0
    assert d["long"]["wait_mean_s"] is None and d["wide"]["bsld_mean"] is None


def test_hosts_inference(tmp_path):
    inferred = write_run(tmp_path, "nosched", THREE_JOBS)
    m = compute_metrics(inferred)
    assert m["hosts"] == 4 and "highest allocated host id" in m["hosts_source"]
    from_schedule = write_run(tmp_path, "sched", THREE_JOBS, nb_machines=16)
    m = compute_metrics(from_schedule)
    assert m["hosts"] == 16 and "sched_schedule.csv" in m["hosts_source"]
    assert m["overall"]["utilization"] == pytest.approx(245 / (16 * 105))
    assert compute_metrics(from_schedule, hosts=5)["hosts"] == 5  # argument wins
    with pytest.raises(InputError, match="allocates host id 3, beyond the 2 hosts given"):
        compute_metrics(from_schedule, hosts=2)


def test_real_output_matches_batsim_schedule():
    m = compute_metrics(FIXTURES / "easy")  # prefix accepted too
    sched = pd.read_csv(FIXTURES / "easy_schedule.csv").iloc[0]
    o = m["overall"]
    assert m["hosts"] == 8
    assert o["jobs"] == sched["nb_jobs"] == 60
    assert o["completed"] == sched["nb_jobs_success"]
    assert o["killed"] == sched["nb_jobs_killed"] == 12
    assert o["wait_mean_s"] == pytest.approx(sched["mean_waiting_time"], abs=1e-6)
    assert o["response_mean_s"] == pytest.approx(sched["mean_turnaround_time"], abs=1e-6)
    assert o["busy_node_s"] == pytest.approx(sched["time_computing"])  # evalys' integral
    assert o["makespan_s"] == pytest.approx(sched["makespan"])
    assert o["utilization"] == pytest.approx(1130 / (8 * 186))
    text = format_metrics(m)
    assert text.startswith("## Metrics of easy_jobs.csv")
    assert "| utilization | 75.9 % |" in text and "| short (< 1 h) | 60 |" in text


def test_header_only_file_gives_empty_metrics(tmp_path):
    path = write_run(tmp_path, "none", [])
    assert load_jobs(path).empty
    m = compute_metrics(path, hosts=2)
    assert m["overall"]["jobs"] == 0 and m["overall"]["utilization"] is None
    format_metrics(m)


# --------------------------------------------------------------------------- folding
RESUBMITTED = [
    # job 1: killed after 10 s on 4 hosts, resubmitted (pybatsim convention), then succeeds
    row(1, 0, 4, "COMPLETED_KILLED", 0, 10, "0-3"),
    row("1#1", 10, 4, "COMPLETED_SUCCESSFULLY", 12, 30, "0-1", meta="{'parent_job': 'w0!1', 'nb_resubmit': 1}"),
    # job 2: original rejected, executed through a copy (JSON metadata, bare parent id)
    row(2, 5, 1, "REJECTED"),
    row("2c", 5, 1, "COMPLETED_SUCCESSFULLY", 42, 8, "2", meta='{"parent_job": "2"}'),
    # job 3: killed twice, the third attempt reaches its walltime
    row(3, 0, 1, "COMPLETED_KILLED", 0, 5, "4"),
    row("3#1", 5, 1, "COMPLETED_KILLED", 5, 5, "4", meta="{'parent_job': 'w0!3', 'nb_resubmit': 1}"),
    row("3#2", 10, 1, "COMPLETED_WALLTIME_REACHED", 10, 20, "4-5", meta="{'parent_job': 'w0!3', 'nb_resubmit': 2}"),
]


def test_fold_killed_and_resubmitted(tmp_path):
    jobs = load_jobs(write_run(tmp_path, "resub", RESUBMITTED)).set_index("job_id")
    assert list(jobs.index) == ["1", "2", "3"]
    one = jobs.loc["1"]
    assert (one.submission_time, one.starting_time, one.finish_time) == (0, 12, 42)
    assert (one.waiting_time, one.turnaround_time) == (12, 42)
    assert one.final_state == "COMPLETED_SUCCESSFULLY" and one.success == 1
    assert one.allocated_resources == "0-1" and one.requested_number_of_resources == 4
    assert one.attempts == 2 and one.wasted_node_s == 40.0  # 4 hosts x 10 s
    three = jobs.loc["3"]
    assert three.attempts == 3 and three.wasted_node_s == 10.0  # final attempt excluded
    assert three.final_state == "COMPLETED_WALLTIME_REACHED" and three.success == 0


def test_fold_copy_and_rejected_original(tmp_path):
    jobs = load_jobs(write_run(tmp_path, "resub", RESUBMITTED)).set_index("job_id")
    two = jobs.loc["2"]
    assert (two.submission_time, two.starting_time, two.waiting_time) == (5, 42, 37)
    assert two.final_state == "COMPLETED_SUCCESSFULLY" and two.allocated_resources == "2"
    assert two.attempts == 1 and two.wasted_node_s == 0.0


def test_fold_original_missing_from_file(tmp_path):
    rows = [
        row("9#1", 3, 2, "COMPLETED_KILLED", 3, 4, "0-1", meta="{'parent_job': 'w0!9', 'nb_resubmit': 1}"),
        row("9#2", 7, 2, "COMPLETED_SUCCESSFULLY", 8, 2, "2-3", meta="{'parent_job': 'w0!9', 'nb_resubmit': 2}"),
    ]
    jobs = load_jobs(write_run(tmp_path, "orphan", rows))
    assert len(jobs) == 1
    job = jobs.iloc[0]
    assert (job.job_id, job.workload_name, job.submission_time, job.starting_time) == ("9", "w0", 3.0, 8.0)
    assert (job.attempts, job.wasted_node_s, job.waiting_time) == (2, 8.0, 5.0)


def test_fold_metrics_never_count_killed_or_rejected_attempts(tmp_path):
    path = write_run(tmp_path, "resub", RESUBMITTED)
    o = compute_metrics(path, hosts=6)["overall"]
    assert (o["jobs"], o["completed"], o["killed"], o["rejected"]) == (3, 2, 1, 0)
    assert o["resubmitted_jobs"] == 2 and o["wasted_node_s"] == 50.0
    assert o["killed_node_s"] == 40.0  # job 3's final attempt reached its walltime: 2 hosts x 20 s
    # utilization counts every attempt: 40 + 60 + 8 + 5 + 5 + 40 host-seconds
    assert o["busy_node_s"] == pytest.approx(158.0)
    raw = compute_metrics(path, hosts=6, fold=False)["overall"]
    assert (raw["jobs"], raw["completed"], raw["killed"], raw["rejected"]) == (7, 2, 4, 1)


def test_unfolded_and_unlinked_rows_unchanged(tmp_path):
    path = write_run(tmp_path, "resub", RESUBMITTED)
    raw = load_jobs(path, fold=False)
    assert len(raw) == 7 and "attempts" not in raw.columns
    easy_raw = read_jobs_csv(FIXTURES / "easy_jobs.csv")
    easy = load_jobs(FIXTURES / "easy_jobs.csv")
    assert easy["attempts"].eq(1).all() and easy["wasted_node_s"].eq(0).all()
    pd.testing.assert_frame_equal(easy.drop(columns=["attempts", "wasted_node_s", "scale"]), easy_raw)
    assert load_jobs(path).set_index("job_id").loc["2", "attempts"] == 1
    rejected = load_jobs(write_run(tmp_path, "rej", THREE_JOBS)).set_index("job_id")
    assert rejected.loc["4", "attempts"] == 0


def test_fold_real_kill_resubmit_output():
    raw = load_jobs(FIXTURES / "kr_jobs.csv", fold=False)
    jobs = load_jobs(FIXTURES / "kr_jobs.csv").set_index("job_id")
    assert len(raw) == 80 and len(jobs) == 60
    assert (raw["final_state"] == "REJECTED").sum() == 12
    assert not (jobs["final_state"] == "REJECTED").any()
    three = jobs.loc["3"]  # killed at 11 and 13 (4 hosts x 2 s each), done 13 -> 21
    assert (three.attempts, three.wasted_node_s, three.waiting_time) == (3, 16.0, 4.0)
    assert three.final_state == "COMPLETED_SUCCESSFULLY"
    ten = jobs.loc["10"]  # killed once (3 hosts x 2 s), then walltime reached
    assert (ten.attempts, ten.wasted_node_s, ten.final_state) == (2, 6.0, "COMPLETED_WALLTIME_REACHED")
    two = jobs.loc["2"]  # rejected original + copy
    assert (two.attempts, two.starting_time, two.allocated_resources) == (1, 6.0, "0 3-4")
    m = compute_metrics(FIXTURES / "kr")
    assert m["overall"]["completed"] == 48 and m["overall"]["killed"] == 12
    assert m["overall"]["busy_node_s"] == pytest.approx(1180.0)  # Batsim time_computing


# --------------------------------------------------------------------------- evalys
def test_to_jobset():
    js = to_jobset(load_jobs(FIXTURES / "easy"), hosts=8)
    assert len(js.df) == 60 and js.MaxProcs == 8
    assert float(js.utilisation["area"].sum()) == pytest.approx(1130.0)
    assert to_jobset(load_jobs(FIXTURES / "kr", fold=False)).MaxProcs == 8


def test_to_jobset_rejected_only(tmp_path):
    path = write_run(tmp_path, "rejonly", [row(1, 0, 2, "REJECTED"), row(2, 1, 1, "REJECTED")])
    with pytest.raises(InputError, match="all 2 jobs were rejected") as info:
        to_jobset(load_jobs(path))
    assert "rejonly_jobs.csv" in str(info.value)


def test_alloc_stats_matches_procset():
    from procset import ProcSet

    texts = ["0-3 7", "", "12", "5-6 9 100-200", "3-4 6-7 9"]
    sizes, tops = alloc_stats(texts)
    assert sizes.tolist() == [len(ProcSet.from_str(t)) for t in texts]
    assert tops.tolist() == [7, -1, 12, 200, 9]


def test_default_gantt_window_caps_jobs():
    raw = read_jobs_csv(FIXTURES / "easy_jobs.csv")
    assert choose_window([raw]) == (0.0, 186.0)  # small run: everything
    begin, end = choose_window([raw], max_jobs=10)
    tenth_start = sorted(raw["starting_time"])[9]
    assert (begin, end) == (0.0, tenth_start)
    # A shorter span: the window starts where job starts are densest.
    begin, end = choose_window([raw], max_span_s=50.0)
    starts = sorted(raw["starting_time"].dropna())
    held = lambda t: sum(t <= s < t + 50.0 for s in starts)  # noqa: E731
    assert begin in starts and end == begin + 50.0
    assert held(begin) == max(held(t) for t in starts)


# --------------------------------------------------------------------------- bad input
def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="no such file") as info:
        compute_metrics(tmp_path / "nothere_jobs.csv")
    assert "nothere_jobs.csv" in str(info.value)
    with pytest.raises(InputError, match=r"ghost_jobs\.csv"):  # a prefix names the file
        load_jobs(tmp_path / "ghost")


def test_empty_file(tmp_path):
    path = tmp_path / "empty_jobs.csv"
    path.write_text("")
    with pytest.raises(InputError, match="empty file") as info:
        load_jobs(path)
    assert str(path) in str(info.value)


def test_not_a_batsim_file(tmp_path):
    path = tmp_path / "other.csv"
    path.write_text("a,b,c\n1,2,3\n")
    with pytest.raises(InputError, match="missing column") as info:
        compute_metrics(path)
    assert info.value.path == str(path) and "other.csv" in str(info.value)


def test_bad_values_are_located(tmp_path):
    bad = write_run(tmp_path, "bad", [THREE_JOBS[0], THREE_JOBS[1].replace(",100.000000,", ",soon,", 1)])
    with pytest.raises(InputError, match="not a number") as info:
        load_jobs(bad)
    assert (info.value.line, info.value.field) == (3, "starting_time")
    noalloc = write_run(tmp_path, "noalloc", [THREE_JOBS[0].replace(",0-1,", ",,")])
    with pytest.raises(InputError, match="interval set") as info:
        load_jobs(noalloc)
    assert info.value.line == 2 and "noalloc_jobs.csv" in str(info.value)


def test_bad_schedule_file(tmp_path):
    path = write_run(tmp_path, "s", THREE_JOBS)
    (tmp_path / "s_schedule.csv").write_text("nb_computing_machines\n")
    with pytest.raises(InputError, match=r"s_schedule\.csv"):
        compute_metrics(path)


# --------------------------------------------------------------------------- outputs
def _is_png(path) -> bool:
    data = Path(path).read_bytes()
    return data[:8] == PNG_MAGIC and len(data) > 10_000


def test_compare_runs_writes_everything(tmp_path):
    written = compare_runs([FIXTURES / "easy", FIXTURES / "kr_jobs.csv"], tmp_path / "cmp")
    assert set(written) == {
        "markdown",
        "csv",
        "json",
        "overall_bars",
        "class_bsld",
        "wait_cdf",
        "gantt:easy",
        "gantt:kr",
    }
    names = sorted(Path(p).name for p in written.values())
    assert names == [
        "class_bsld.png",
        "comparison.csv",
        "comparison.json",
        "comparison.md",
        "gantt_easy.png",
        "gantt_kr.png",
        "overall_bars.png",
        "wait_cdf.png",
    ]
    for key, path in written.items():
        if path.endswith(".png"):
            assert _is_png(path), key
    table = pd.read_csv(written["csv"], index_col="metric")
    assert list(table.columns) == ["easy", "kr"]
    assert table.loc["jobs", "kr"] == 60 and table.loc["resubmitted_jobs", "kr"] == 7
    assert table.loc["wait_mean_s", "easy"] == pytest.approx(7 / 3)
    assert {"short.wait_mean_s", "short.bsld_mean", "wide.bsld_mean"} <= set(table.index)
    md = Path(written["markdown"]).read_text()
    assert "| metric | easy | kr |" in md and "![Gantt chart of kr](gantt_kr.png)" in md
    assert set(json.loads(Path(written["json"]).read_text())) == {"easy", "kr"}


def test_compare_refuses_unlike_runs_unless_allowed(tmp_path):
    small = write_run(tmp_path, "small", THREE_JOBS, nb_machines=4)
    with pytest.raises(InputError, match="not comparable") as info:
        compare_runs([FIXTURES / "easy", small], tmp_path / "x")
    message = str(info.value)
    assert "machine sizes differ: easy 8 hosts, small 4 hosts" in message
    assert "workloads differ: easy 60 jobs, small 4 jobs" in message and "--allow-mixed" in message
    # same size, same number of jobs, other submission times
    shifted = write_run(
        tmp_path,
        "shifted",
        [THREE_JOBS[0].replace("1,w0,p,0.000000", "1,w0,p,1.000000", 1)] + THREE_JOBS[1:],
        nb_machines=4,
    )
    with pytest.raises(InputError, match="small and shifted have 4 jobs each, 1 of them different"):
        compare_runs([small, shifted], tmp_path / "x")
    said = []
    written = compare_runs([FIXTURES / "easy", small], tmp_path / "mixed", allow_mixed=True, say=said.append)
    assert said and "machine sizes differ" in said[0]
    assert "**Warning: these runs are not alike**" in Path(written["markdown"]).read_text()
    # a run where nothing ran cannot be compared
    empty = write_run(tmp_path, "empty", [])
    with pytest.raises(InputError, match="holds no job at all"):
        compare_runs([small, empty], tmp_path / "y")


def test_compare_runs_labels_window_and_errors(tmp_path):
    written = compare_runs([FIXTURES / "easy"], tmp_path / "one", labels=["EASY bf"], gantt_window=(20, 60))
    assert Path(written["gantt:EASY bf"]).name == "gantt_EASY_bf.png"
    assert "Window: 20-60 s" in Path(written["markdown"]).read_text()
    with pytest.raises(ValueError, match="labels"):
        compare_runs([FIXTURES / "easy"], tmp_path / "x", labels=["a", "b"])
    with pytest.raises(InputError, match=r"missing_jobs\.csv"):
        compare_runs([FIXTURES / "easy", tmp_path / "missing"], tmp_path / "x")


def test_report_run(tmp_path):
    out = report_run(FIXTURES / "kr", tmp_path / "rep", bound_s=20.0)
    assert Path(out["markdown"]).name == "kr_metrics.md" and _is_png(out["gantt"])
    assert json.loads(Path(out["json"]).read_text())["parameters"]["bound_s"] == 20.0
    assert out["metrics"]["overall"]["jobs"] == 60 and out["text"].startswith("## Metrics")
    rejected = write_run(tmp_path, "rej", [row(1, 0, 2, "REJECTED")])
    out = report_run(rejected)  # no executed job: placeholder chart, no crash
    assert Path(out["gantt"]).parent == tmp_path and Path(out["gantt"]).is_file()
    assert out["metrics"]["overall"]["rejected"] == 1 and out["metrics"]["hosts"] is None


# --------------------------------------------------------------------------- Perkovic & Keleher
PK_RUN = [
    # 1: resized to half width (runtime 100 -> 200): bsld = 250 / 100, scale 2
    row(1, 0, 4, "REJECTED", walltime=150),
    row(
        "1#1",
        0,
        2,
        "COMPLETED_SUCCESSFULLY",
        50,
        200,
        "0-1",
        meta="{'parent_job': 'w0!1', 'kind': 'resized', 'scale': 2.0}",
        walltime=300,
    ),
    # 2: a speculative copy killed after 20 s on 1 host, then its regular run
    row(2, 0, 1, "COMPLETED_SUCCESSFULLY", 60, 30, "3", meta="{'reservation_s': 60}", walltime=1000),
    row(
        "2#1",
        0,
        1,
        "COMPLETED_KILLED",
        10,
        20,
        "3",
        meta="{'parent_job': 'w0!2', 'kind': 'speculative'}",
        walltime=1000,
    ),
    # 3: a test run that finishes; the original is rejected
    row(3, 0, 1, "REJECTED", meta="{'reservation_s': 100}", walltime=20000),
    row(
        "3#1",
        0,
        1,
        "COMPLETED_SUCCESSFULLY",
        40,
        100,
        "2",
        meta="{'parent_job': 'w0!3', 'kind': 'test'}",
        walltime=20000,
    ),
    # 4: guaranteed at 40, started at 10 (wait 10): ratio 4
    row(4, 0, 4, "COMPLETED_SUCCESSFULLY", 10, 5, "4-7", meta="{'reservation_s': 40}", walltime=50),
]


def test_resized_job_folds_with_its_scale_and_slowdown_uses_the_submitted_width(tmp_path):
    path = write_run(tmp_path, "pk", PK_RUN, nb_machines=8)
    jobs = load_jobs(path).set_index("job_id")
    assert jobs.loc["1", "scale"] == 2.0 and jobs.loc["2", "scale"] == 1.0
    assert jobs.loc["1", "execution_time"] == 200 and jobs.loc["1", "attempts"] == 1
    m = compute_metrics(path)
    # bsld: job 1 250/max(100,10) = 2.5; 2 90/30 = 3; 3 140/100 = 1.4; 4 max(1, 15/10) = 1.5
    assert m["overall"]["bsld_mean"] == pytest.approx((2.5 + 3 + 1.4 + 1.5) / 4)


def test_backfilling_metrics_by_hand(tmp_path):
    from adaptsched.analysis.backfilling import backfilling_metrics, shape_groups

    path = write_run(tmp_path, "pk", PK_RUN, nb_machines=8)
    m = backfilling_metrics(path)
    # estimates 150, 1000, 20000, 50 (median 575); widths 4, 1, 1, 4 (median 2.5)
    jobs = load_jobs(path).set_index("job_id")
    assert shape_groups(jobs).to_dict() == {"1": "SW", "2": "LN", "3": "LN", "4": "SW"}
    assert m["groups"]["SW"]["jobs"] == 2 and m["groups"]["SN"]["jobs"] == 0
    assert m["groups"]["LN"]["bsld_mean"] == pytest.approx((3 + 1.4) / 2)
    s = m["speculation"]
    assert s["speculative"] == {"attempts": 1, "successes": 0, "success_rate": 0.0, "wasted_node_s": 20.0}
    assert s["test"] == {"attempts": 1, "successes": 1, "success_rate": 1.0, "wasted_node_s": 0.0}
    assert s["all"]["attempts"] == 2 and s["all"]["success_rate"] == 0.5
    g = m["guarantees"]
    # delayed jobs with a guarantee: 2 (60/60 = 1), 3 (100/40 = 2.5), 4 (40/10 = 4)
    assert g["jobs"] == 3 and g["median"] == pytest.approx(2.5) and g["mean"] == pytest.approx(7.5 / 3)
    assert g["late"] == 0 and m["resized_jobs"] == 1


def test_invariants_catch_each_violation(tmp_path):
    from adaptsched.analysis.invariants import check_invariants

    good = read_jobs_csv(write_run(tmp_path, "pk", PK_RUN, nb_machines=8))
    assert check_invariants(good, 8, guarantees=True) == []
    bad = read_jobs_csv(
        write_run(
            tmp_path,
            "bad",
            [
                row(1, 0, 2, "COMPLETED_SUCCESSFULLY", 0, 100, "0-1", walltime=200),
                row(2, 0, 1, "COMPLETED_SUCCESSFULLY", 50, 10, "1", walltime=200),  # host 1 busy
                row(3, 30, 1, "COMPLETED_SUCCESSFULLY", 20, 10, "2", walltime=200),  # before submission
                row(
                    4, 0, 1, "COMPLETED_SUCCESSFULLY", 40, 10, "3", meta="{'reservation_s': 30}", walltime=200
                ),  # after its guarantee
                row(5, 0, 1, "COMPLETED_SUCCESSFULLY", 0, 10, "4", walltime=200),
                row(
                    "5#1", 0, 1, "COMPLETED_SUCCESSFULLY", 20, 10, "4", meta="{'parent_job': 'w0!5'}", walltime=200
                ),  # completed twice
                row(6, 0, 1, "COMPLETED_SUCCESSFULLY", 100, 300, "5", walltime=200),  # past walltime
            ],
        )
    )
    problems = " | ".join(check_invariants(bad, 8, guarantees=True))
    for text in (
        "host 1 runs jobs 1 and 2",
        "job 3 starts at 20.0 before",
        "w0!4 starts at 40.0 after",
        "w0!5 completed 2 times",
        "job 6 completed after running past",
    ):
        assert text in problems, text
    assert len(check_invariants(bad, 8, guarantees=True)) == 5
    assert "guarantee" not in " ".join(check_invariants(bad, 8))


def _attempts(draw_ints, n):
    """A frame of ``n`` attempts on 16 hosts (runs of hosts, in any order and overlapping;
    some never started, some without a finish time), as check_invariants reads them."""
    import numpy as np

    rows = []
    for i in range(n):
        runs = []
        for _ in range(draw_ints(1, 3)):
            a = draw_ints(0, 15)
            b = min(15, a + [0, 0, 1, 3, 7][draw_ints(0, 4)])
            runs.append(f"{a}-{b}" if b > a else f"{a}")
        start = float(draw_ints(0, 30))
        runtime = [0.0, 1e-7, 3.0, 5.0, 10.0, np.nan][draw_ints(0, 5)]
        started = draw_ints(0, 9) > 0
        rows.append(
            {
                "job_id": str(i),
                "starting_time": start if started else np.nan,
                "finish_time": start + runtime if started else np.nan,
                "allocated_resources": " ".join(runs),
            }
        )
    return pd.DataFrame(rows)


@given(st.data())
def test_the_host_sweep_words_the_clashes_the_host_listing_words(data):
    """Beyond EXPAND_MAX_HOSTS (attempt, host) pairs (10,000 jobs of 6,000 hosts listed took
    4.8 GB), check_invariants finds two jobs on a host at once with the physics check's sweep
    over runs of hosts: the same sentences, in the same order, as the listing of every host."""
    from adaptsched.analysis.invariants import _listed_clashes, _swept_clashes

    ints = lambda low, high: data.draw(st.integers(low, high))  # noqa: E731
    raw = _attempts(ints, ints(1, 12))
    ran, ids, limit = raw["starting_time"].notna().to_numpy(), raw["job_id"].to_numpy(), ints(1, 8)
    assert _swept_clashes(raw, ran, ids, limit) == _listed_clashes(raw, ran, ids, limit)


def test_check_invariants_sweeps_beyond_the_listing_limit(tmp_path, monkeypatch):
    import random

    from adaptsched.analysis.invariants import check_invariants
    from adaptsched.engines import physics
    from adaptsched.formats.intervals import interval_text

    rng = random.Random(3)
    frames = []
    for case in range(40):
        rows = []
        for i in range(12):
            hosts = sorted(rng.sample(range(12), rng.randint(1, 6)))
            start = rng.randrange(30)
            rows.append(
                row(i, 0, len(hosts), "COMPLETED_SUCCESSFULLY", start, rng.choice([1, 3, 10]), interval_text(hosts))
            )
        frames.append(read_jobs_csv(write_run(tmp_path, f"r{case}", rows)))
    listed = [check_invariants(raw, 12, limit=4) for raw in frames]
    monkeypatch.setattr(physics, "EXPAND_MAX_HOSTS", 0)
    assert [check_invariants(raw, 12, limit=4) for raw in frames] == listed
    assert sum(" at once (" in " ".join(p) for p in listed) > 30  # clashes were drawn


# --------------------------------------------------------------------------- Gantt charts
def test_attempts_are_told_apart_by_kind(tmp_path):
    from adaptsched.analysis.gantt import CATEGORIES, attempt_categories

    extra = [
        row(5, 0, 1, "COMPLETED_WALLTIME_REACHED", 0, 10, "4"),
        row(6, 0, 1, "COMPLETED_KILLED", 0, 5, "5"),  # killed by the scheduler, then resubmitted
        row("6#1", 5, 1, "COMPLETED_SUCCESSFULLY", 5, 5, "5", meta="{'parent_job': 'w0!6', 'nb_resubmit': 1}"),
        row("7#1", 0, 2, "COMPLETED_SUCCESSFULLY", 0, 9, "6-7", meta="{'parent_job': 'w0!7', 'kind': 'molded'}"),
        row(8, 0, 1, "COMPLETED_FAILED", 10, 1, "5"),
    ]
    frame = read_jobs_csv(write_run(tmp_path, "kinds", PK_RUN + extra))
    ran = frame[frame["starting_time"].notna()]
    assert dict(zip(ran["job_id"], attempt_categories(ran))) == {
        "1#1": "resized",
        "2": "regular",
        "2#1": "speculative-killed",
        "3#1": "speculative",  # a test run that did the job's work
        "4": "regular",
        "5": "walltime",
        "6": "killed",
        "6#1": "regular",
        "7#1": "molded",
        "8": "failed",
    }
    colours = [tint for _, tints in CATEGORIES.values() for tint in tints]
    assert len(colours) == len(set(colours)), "a colour means two things"
    info = plot_gantt(frame, tmp_path / "kinds.png", hosts=8)
    assert _is_png(info["path"]) and len(info["legend"]) == 8  # every category drawn, each in the legend
    assert info["legend"][0].startswith("regular run, completed")


def test_gantt_window_by_time_or_job(tmp_path):
    from adaptsched.analysis.gantt import parse_window
    from adaptsched.errors import UsageError

    assert parse_window(None) is None
    assert parse_window("1d:2d") == (86400.0, 172800.0)
    assert parse_window("90min:2.5h") == (5400.0, 9000.0)
    assert parse_window("100:250") == (100.0, 250.0)
    raw = read_jobs_csv(write_run(tmp_path, "resub", RESUBMITTED))
    # job 3: submitted at 0, its attempts end at 5, 10 and 30: 10 % margin (3 s) on each side
    assert parse_window("job:3", [raw]) == (0.0, 33.0)
    assert parse_window("job:w0!2", [raw]) == (pytest.approx(5 - 4.5), pytest.approx(50 + 4.5))
    for bad in ("5:3", "100", "a:b", "job:99"):
        with pytest.raises(UsageError, match="--window"):
            parse_window(bad, [raw])
    written = compare_runs([FIXTURES / "kr"], tmp_path / "cmp", gantt_window="job:10")
    assert "Window: 29-39 s" in Path(written["markdown"]).read_text()  # job 10: 30 to 38, 1 s margin
