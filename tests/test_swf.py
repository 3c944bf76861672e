"""SWF reader (adaptsched.workloads.swf) and SWF -> Batsim JSON conversion (.convert)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from helpers import SHARED_TRACES, needs_trace

from adaptsched.errors import AdaptschedError, InputError
from adaptsched.workloads.convert import ConversionOptionError, convert_swf, write_workload
from adaptsched.workloads.swf import EXCERPT_DIR, SwfJob, read_swf

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "swf"
GOOD = FIXTURES / "good.swf"
CTC_FULL = SHARED_TRACES / "CTC-SP2-1996-3.1-cln.swf.gz"  # ../shared next to the repository
CTC_EXCERPT = EXCERPT_DIR / "CTC-SP2-1996-3.1-cln.first5000.swf.gz"
SDSC_EXCERPT = EXCERPT_DIR / "SDSC-SP2-1998-4.2-cln.first2000.swf.gz"

JOB = "1 100 5 50 2 -1 -1 2 100 -1 1 7 3 -1 1 -1 -1 -1"


def _jobs_by_id(workload: dict) -> dict[int, dict]:
    return {job["id"]: job for job in workload["jobs"]}


def _write(tmp_path: Path, text: str, name: str = "t.swf") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


# ------------------------------------------------------------------------------------------
# Reader
# ------------------------------------------------------------------------------------------
def test_read_good_file():
    trace = read_swf(GOOD)
    assert trace.path == str(GOOD) and trace.name == "good.swf"
    assert [job.job_number for job in trace.jobs] == [1, 2, 3, 4, 5, 6, 7, 8]
    first = trace.jobs[0]
    assert isinstance(first, SwfJob)
    assert first == SwfJob(1, 100, 5, 50, 2, 3.5, -1, 2, 100, -1, 1, 7, 3, -1, 1, -1, -1, -1, 13)
    assert first.runtime_s == 50 and type(first.runtime_s) is int
    assert first.avg_cpu_s == 3.5 and type(first.avg_cpu_s) is float
    assert trace.jobs[5].runtime_s == 12.5
    # Empty line (16) and mid-file comment (18) skipped, line numbers kept.
    assert [job.line for job in trace.jobs] == [13, 14, 15, 17, 19, 20, 21, 22]
    with pytest.raises(AttributeError):
        first.runtime_s = 1  # immutable


def test_read_header():
    trace = read_swf(GOOD)
    h = trace.header
    assert h["Version"] == "2.2" and h["Computer"] == "Test machine"
    assert h["Information"] == "http://example.org/\nhttp://example.org/more"  # continuation
    assert h["Note"] == "first note\nsecond note\ncontinued"  # repeated key, then continuation
    assert h["MaxNodes"] == "8 (test partition; 16 total)"
    assert trace.header_int("MaxNodes") == 8 and trace.header_int("UnixStartTime") == 1000000000
    assert trace.header_int("MaxRuntime") is None
    assert len(trace.header_lines) == 12 and trace.header_lines[0] == "; Version: 2.2"
    assert "a comment between jobs" not in "\n".join(trace.header_lines)


def test_read_gzip_by_magic_and_name(tmp_path):
    data = gzip.compress(GOOD.read_bytes())
    for name in ("g.swf.gz", "no_extension"):
        path = tmp_path / name
        path.write_bytes(data)
        assert read_swf(path).jobs == [job for job in read_swf(GOOD).jobs]


@pytest.mark.parametrize(
    "name, field, words",
    [
        ("bad_17_fields.swf", None, ["expected 18 fields, found 17"]),
        ("bad_non_numeric.swf", "runtime_s", ["'abc' is not a number", "SWF field 4"]),
    ],
)
def test_bad_fixtures(name, field, words):
    path = FIXTURES / name
    with pytest.raises(InputError) as info:
        read_swf(path)
    err = info.value
    assert err.path == str(path) and err.line == 4 and err.field == field
    message = str(err)
    assert message.startswith(f"{path}:4: ")
    for word in words:
        assert word in message
    if field:
        assert f"field '{field}'" in message


@pytest.mark.parametrize(
    "line, field, words",
    [
        ("1 100 5 50 2.5 -1 -1 2 100 -1 1 7 3 -1 1 -1 -1 -1", "allocated_procs", "not an integer"),
        ("1 100 5 nan 2 -1 -1 2 100 -1 1 7 3 -1 1 -1 -1 -1", "runtime_s", "not a number"),
        ("1 100 5 1_0 2 -1 -1 2 100 -1 1 7 3 -1 1 -1 -1 -1", "runtime_s", "not a number"),
        ("1 100 5 50 2 -1 -1 2 1e9x -1 1 7 3 -1 1 -1 -1 -1", "requested_time_s", "not a number"),
    ],
)
def test_bad_values(tmp_path, line, field, words):
    path = _write(tmp_path, f"; MaxNodes: 4\n{JOB}\n\n{line}\n")
    with pytest.raises(InputError) as info:
        read_swf(path)
    assert info.value.line == 4 and info.value.field == field and words in str(info.value)


def test_accepted_values(tmp_path):
    # -1 anywhere, decimals in time fields, 1.0 in an integer field, a negative submit time.
    path = _write(tmp_path, "3 -10 -1 -1.0 4.0 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1\n")
    (job,) = read_swf(path).jobs
    assert job.submit_s == -10 and job.runtime_s == -1 and job.allocated_procs == 4
    assert type(job.runtime_s) is int and type(job.allocated_procs) is int


def test_odd_values_never_stop_the_reading(tmp_path):
    """Negative values (other than -1) anywhere, and text in the fields the simulation does not
    need, are read (as read, or as -1) and counted with example lines."""
    lines = [
        "1 100 -7 50 2 -1 -1 2 -0.5 -1 1 7 3 -1 1 -1 -1 -1",  # wait -7, estimate -0.5
        "2 100 5 -5 2 1.5 -1 2 100 -1 -9 -2 3 -1 1 -1 -1 -1",  # runtime -5, status -9, user -2
        "3 100 5 50 2 n/a 12KB 2 100 -1 1 7 3 -1 1 -1 -1 x",  # text where nothing is needed
    ]
    trace = read_swf(_write(tmp_path, "\n".join(lines) + "\n"))
    one, two, three = trace.jobs
    assert (one.wait_s, one.requested_time_s, two.runtime_s, two.status, two.user) == (-7, -0.5, -5, -9, -2)
    assert (three.avg_cpu_s, three.used_memory_kb, three.think_time_s, three.runtime_s) == (-1, -1, -1, 50)
    odd = {name: (o.negative, o.unreadable, o.lines) for name, o in trace.odd_values.items()}
    assert odd == {  # runtime, submit and status are judged by the converter
        "wait_s": (1, 0, [1]),
        "requested_time_s": (1, 0, [1]),
        "user": (1, 0, [2]),
        "avg_cpu_s": (0, 1, [3]),
        "used_memory_kb": (0, 1, [3]),
        "think_time_s": (0, 1, [3]),
    }


def test_file_errors(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        read_swf(tmp_path / "missing.swf")
    with pytest.raises(InputError, match="directory"):
        read_swf(tmp_path)
    fake = tmp_path / "fake.swf.gz"
    fake.write_text(JOB + "\n")
    with pytest.raises(InputError, match="not gzip"):
        read_swf(fake)
    truncated = tmp_path / "truncated.swf.gz"
    data = gzip.compress(((JOB + "\n") * 1000).encode())
    truncated.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError, match="gzip") as info:
        read_swf(truncated)
    assert str(truncated) in str(info.value)


# ------------------------------------------------------------------------------------------
# Conversion
# ------------------------------------------------------------------------------------------
def test_convert_defaults():
    workload, report = convert_swf(GOOD)
    assert workload["nb_res"] == 8
    assert report.hosts == 8 and report.hosts_from == "header MaxNodes"
    assert report.read == 8 and report.kept == 5
    assert report.dropped == {"runtime 0 or missing": 2, "wider than the machine (8 hosts)": 1}
    assert report.drop_lines == {"runtime 0 or missing": [15, 22], "wider than the machine (8 hosts)": [17]}
    assert report.read == report.kept + report.n_dropped + report.n_excluded

    jobs = _jobs_by_id(workload)
    assert list(jobs) == [1, 2, 5, 6, 7]
    # Subtimes shifted so that the first kept job is at 0; offset and epoch kept in metadata.
    assert [job["subtime"] for job in workload["jobs"]] == [0, 60, 200, 300, 400]
    meta = workload["adaptsched"]
    assert meta["submit_offset_s"] == 100 and meta["unix_start_time"] == 1000000000
    assert meta["hosts"] == 8 and meta["rules"]["over_estimate"] == "keep"
    assert meta["report"]["kept"] == 5 and meta["swf_header"]["Computer"] == "Test machine"

    assert jobs[1] == {
        "id": 1, "subtime": 0, "res": 2, "walltime": 100, "profile": "delay_50", "user": 7, "group": 3,
        "queue": 1, "partition": -1, "requested_procs": 2, "estimate_s": 100, "status": 1, "swf_line": 13,
    }  # fmt: skip
    # Runtime past its estimate: kept, walltime stays the estimate (killed at the walltime).
    assert jobs[2]["walltime"] == 100 and workload["profiles"][jobs[2]["profile"]]["delay"] == 200
    assert report.counts["past_estimate"] == 1
    assert any(note.startswith("1 job runs past its estimate: kept") for note in report.notes)
    # No estimate: walltime = runtime + 1 s (Batsim kills a job whose delay equals its
    # walltime); no allocated count: res = requested processors.
    assert jobs[5]["walltime"] == 31 and jobs[5]["res"] == 3 and jobs[5]["estimate_s"] == -1
    # Profile sharing: jobs 1 and 7 both run 50 s. No extra second. Decimal runtime.
    assert jobs[1]["profile"] == jobs[7]["profile"] == "delay_50"
    assert workload["profiles"] == {
        "delay_12.5": {"type": "delay", "delay": 12.5},
        "delay_30": {"type": "delay", "delay": 30},
        "delay_50": {"type": "delay", "delay": 50},
        "delay_200": {"type": "delay", "delay": 200},
    }
    # The true runtime is not a job key.
    assert all("runtime" not in key for job in workload["jobs"] for key in job)

    summary = report.summary()
    assert summary.splitlines()[0] == "good.swf: read 8 jobs, kept 5, dropped 3; 8 hosts (header MaxNodes)"
    assert "runtime 0 or missing: 2 (lines 15, 22)" in summary


def test_convert_estimate_rules():
    workload, report = convert_swf(GOOD, missing_estimate="factor:2", over_estimate="extend")
    jobs = _jobs_by_id(workload)
    assert jobs[5]["walltime"] == 60 and jobs[2]["walltime"] == 200 and report.kept == 5
    workload, _ = convert_swf(GOOD, missing_estimate="factor:1.25")
    assert _jobs_by_id(workload)[5]["walltime"] == 37.5
    workload, report = convert_swf(GOOD, missing_estimate="runtime")  # exact: ends AT its walltime
    assert _jobs_by_id(workload)[5]["walltime"] == 30 and report.counts["walltime_equals_runtime"] >= 1
    workload, _ = convert_swf(GOOD, missing_estimate="runtime+60")
    assert _jobs_by_id(workload)[5]["walltime"] == 90

    workload, report = convert_swf(GOOD, missing_estimate="drop", over_estimate="drop")
    assert list(_jobs_by_id(workload)) == [1, 6, 7]
    assert report.dropped["no estimate"] == 1 and report.dropped["runtime past the estimate"] == 1
    assert report.drop_lines["runtime past the estimate"] == [14]


def test_convert_zero_runtime_min():
    workload, report = convert_swf(GOOD, zero_runtime="min:1")
    jobs = _jobs_by_id(workload)
    assert 3 in jobs and 8 in jobs and jobs[3]["profile"] == "delay_1"
    assert workload["profiles"]["delay_1"] == {"type": "delay", "delay": 1}
    assert report.counts["zero_runtime_replaced"] == 2 and "runtime 0 or missing" not in report.dropped


def test_convert_hosts():
    workload, report = convert_swf(GOOD, hosts=16)
    assert workload["nb_res"] == 16 and report.hosts_from == "given" and 4 in _jobs_by_id(workload)
    _, report = convert_swf(GOOD, hosts=3)
    assert report.dropped["wider than the machine (3 hosts)"] == 3  # jobs 2 (4), 4 (16), 7 (8)


def test_convert_hosts_from_widest_job(tmp_path):
    text = "".join(line + "\n" for line in GOOD.read_text().splitlines() if not line.startswith("; Max"))
    workload, report = convert_swf(_write(tmp_path, text))
    assert workload["nb_res"] == 16 and report.hosts_from == "widest job" and report.n_dropped == 2


def test_convert_first_and_window():
    workload, report = convert_swf(GOOD, first=2)
    assert list(_jobs_by_id(workload)) == [1, 2]
    assert report.excluded == {"after the first 2 kept jobs": 6}
    assert report.read == report.kept + report.n_dropped + report.n_excluded

    # Window on ORIGINAL submit times, [start, end); subtimes restart at 0.
    workload, report = convert_swf(GOOD, start_s=160, end_s=500)
    assert list(_jobs_by_id(workload)) == [2, 5, 6]
    assert [job["subtime"] for job in workload["jobs"]] == [0, 140, 240]
    assert workload["adaptsched"]["submit_offset_s"] == 160
    assert report.excluded == {"outside the time window": 3}  # jobs 1, 7, 8
    assert report.read == report.kept + report.n_dropped + report.n_excluded

    workload, report = convert_swf(GOOD, start_s=160, first=2)
    assert list(_jobs_by_id(workload)) == [2, 5]


def test_convert_negative_submit_and_duplicates(tmp_path):
    lines = [
        "1  -5 0 50 2 -1 -1 2 100 -1 1 7 3 -1 1 -1 -1 -1",
        "2  10 0 50 2 -1 -1 2 100 -1 1 7 3 -1 1 -1 -1 -1",
        "2  20 0 60 2 -1 -1 2 100 -1 1 7 3 -1 1 -1 -1 -1",
        "3  30 0 60 2 -1 -1 2 100 -1 1 7 3 -1 1 -1 -1 -1",
    ]
    workload, report = convert_swf(_write(tmp_path, "\n".join(lines) + "\n"))
    assert list(_jobs_by_id(workload)) == [2, 3]
    assert report.dropped == {"negative submit time": 1, "duplicate job number": 1}
    assert [job["subtime"] for job in workload["jobs"]] == [0, 20]


def test_convert_every_status_code(tmp_path):
    """No status code stops the conversion or drops a job: checkpointed jobs are simulated once
    (from their summary line, else from their parts summed), odd codes are kept and named."""
    lines = [
        "1 0 5 50 2 -1 -1 2 100 -1 1 7 3 -1 1 -1 -1 -1",  # completed
        "2 10 5 60 2 -1 -1 2 100 -1 0 7 3 -1 1 -1 -1 -1",  # failed
        "3 20 5 70 2 -1 -1 2 100 -1 5 7 3 -1 1 -1 -1 -1",  # cancelled after running
        "4 30 5 100 4 -1 -1 4 500 -1 1 7 3 -1 1 -1 -1 -1",  # summary of a checkpointed job...
        "4 30 5 40 4 -1 -1 4 500 -1 2 7 3 -1 1 -1 -1 -1",  # ...its first part
        "4 80 5 60 4 -1 -1 4 500 -1 3 7 3 -1 1 -1 -1 -1",  # ...its last part
        "5 40 5 30 2 -1 -1 2 500 -1 2 7 3 -1 1 -1 -1 -1",  # parts without a summary line
        "6 45 5 10 1 -1 -1 1 50 -1 -1 7 3 -1 1 -1 -1 -1",  # unknown
        "5 90 5 20 2 -1 -1 2 500 -1 4 7 3 -1 1 -1 -1 -1",  # ...last part, failed
        "7 50 -7 30 2 -3 x 2 100 -1 7 -2 3 -1 1 -1 -1 -1",  # status 7, odd unused fields
        "8 60 5 -5 2 -1 -1 2 100 -1 -9 7 3 -1 1 -1 -1 -1",  # negative runtime: cannot run
        "9 70 5 30 2 -1 -1 2 100 -1 -9 7 3 -1 1 -1 -1 -1",  # status -9
    ]
    workload, report = convert_swf(_write(tmp_path, "; MaxNodes: 8\n" + "\n".join(lines) + "\n"))
    jobs = _jobs_by_id(workload)
    assert list(jobs) == [1, 2, 3, 4, 5, 6, 7, 9]
    assert workload["profiles"][jobs[4]["profile"]]["delay"] == 100  # the summary's runtime
    assert workload["profiles"][jobs[5]["profile"]]["delay"] == 50  # 30 + 20
    assert report.read == report.kept + report.n_dropped + report.n_excluded + report.n_merged == 12
    assert report.dropped == {"negative runtime": 1} and report.n_merged == 3
    assert report.statuses == {-9: 1, -1: 1, 0: 1, 1: 2, 2: 1, 5: 1, 7: 1}
    summary = report.summary()
    assert "merged 3 partial-execution lines" in summary
    assert "status of the kept jobs: -9 not an SWF 2.2 code 1, -1 unknown 1, 0 failed 1, 1 completed 2" in summary
    assert "1 job has status 7 (not an SWF 2.2 code; line 11): kept as it ran" in summary
    assert "field used_memory_kb: 1 value that is not a number (read as -1), line 11" in summary
    assert "checkpointed job without a summary line" in summary
    assert json.loads(json.dumps(report.to_dict()))["statuses"]["7"] == 1


def test_convert_bad_options_and_empty_result():
    for kwargs in (
        {"missing_estimate": "factor:0.5"},
        {"missing_estimate": "twice"},
        {"over_estimate": "kill"},
        {"zero_runtime": "min:0"},
        {"zero_runtime": "min:x"},
        {"hosts": 0},
        {"first": 0},
        {"start_s": 10, "end_s": 10},
    ):
        with pytest.raises(ConversionOptionError) as info:
            convert_swf(GOOD, **kwargs)
        assert isinstance(info.value, AdaptschedError) and isinstance(info.value, ValueError)
    with pytest.raises(InputError, match="no job left"):
        convert_swf(GOOD, start_s=10_000)


def test_write_workload(tmp_path):
    workload, _ = convert_swf(GOOD)
    out = write_workload(workload, tmp_path / "w.json")
    text = out.read_text()
    assert json.loads(text) == workload
    # One job per line; "id": only as job ids (Batsim rewrites every "id": of a job).
    assert sum(line.startswith('{"id":') for line in text.splitlines()) == len(workload["jobs"])
    assert text.count('"id":') == len(workload["jobs"])
    # Deterministic.
    again = write_workload(convert_swf(GOOD)[0], tmp_path / "w2.json")
    assert again.read_bytes() == out.read_bytes()
    deep = write_workload(workload, tmp_path / "new" / "dir" / "w.json")  # its folder made, as run's
    assert deep.read_bytes() == out.read_bytes()
    with pytest.raises(AdaptschedError, match="cannot write"):
        write_workload(workload, tmp_path / "w.json" / "under-a-file.json")


# ------------------------------------------------------------------------------------------
# Real traces
# ------------------------------------------------------------------------------------------
def test_excerpts():
    ctc = read_swf(CTC_EXCERPT)
    assert len(ctc.jobs) == 5000 and ctc.header_int("MaxNodes") == 338
    assert "adaptsched excerpt" in ctc.header["Note"]
    workload, report = convert_swf(ctc)
    # CTC excerpt: nothing dropped; 499 jobs run past their estimate and are kept.
    assert (report.read, report.kept, report.n_dropped) == (5000, 5000, 0)
    assert report.counts["past_estimate"] == 499 and report.counts["no_estimate"] == 1
    assert workload["nb_res"] == 338 and workload["jobs"][0]["subtime"] == 0

    sdsc = read_swf(SDSC_EXCERPT)
    assert len(sdsc.jobs) == 2000 and sdsc.jobs[0].job_number == 11
    _, report = convert_swf(sdsc)
    assert (report.read, report.kept) == (2000, 1873)
    assert report.dropped == {"runtime 0 or missing": 127}
    for path in (CTC_EXCERPT, SDSC_EXCERPT):
        assert path.stat().st_size < 150_000


@needs_trace(CTC_FULL)
def test_full_ctc():
    workload, report = convert_swf(CTC_FULL)
    assert report.read == 77222 and workload["nb_res"] == 338
    assert report.kept == report.read - report.n_dropped == len(workload["jobs"])
    assert not report.excluded
    # No job dropped for its estimate; the 17 zero-runtime jobs are the only drops.
    assert "runtime past the estimate" not in report.dropped and "no estimate" not in report.dropped
    assert report.dropped == {"runtime 0 or missing": 17}
    assert report.counts["past_estimate"] == 7174
