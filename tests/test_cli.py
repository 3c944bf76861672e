"""The command line: each bad input gives a clear one-paragraph error (file, line, field)."""

import json
import subprocess
import sys

import pytest
from helpers import CTC_EXCERPT, REPO

SWF_FIXTURES = REPO / "tests" / "fixtures" / "swf"


#: Only a guard against a hung process, never a speed check: a busy machine may be 10x slower.
HANG_GUARD_S = 3600


def cli(*args, cwd=None, env=None):
    result = subprocess.run(
        [sys.executable, "-m", "adaptsched", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=HANG_GUARD_S,
    )
    return result.returncode, result.stdout, result.stderr


def assert_clean_error(code, err, *fragments):
    assert code == 1, err
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in err, err


def test_schedulers_lists_names_descriptions_and_plugin_paths():
    code, out, _ = cli("schedulers")
    assert code == 0
    for name in ("fcfs", "easy", "conservative"):
        assert f"{name}: " in out and str(REPO / "schedulers" / f"{name}.py") in out
    assert "--option order=" in out


def test_convert_reports_kept_and_dropped(tmp_path):
    code, out, err = cli("convert", CTC_EXCERPT, tmp_path / "ctc.json", "--first", "100")
    assert code == 0, err
    assert "kept 100" in out and json.loads((tmp_path / "ctc.json").read_text())["nb_res"] == 338


@pytest.mark.parametrize(
    "fixture,fragments",
    [
        ("bad_17_fields.swf", ["bad_17_fields.swf:", "expected 18 fields, found 17"]),
        ("bad_non_numeric.swf", ["bad_non_numeric.swf:", "field '"]),
        ("bad_negative_runtime.swf", ["bad_negative_runtime.swf:", "field 'runtime_s'"]),
    ],
)
def test_convert_bad_swf(tmp_path, fixture, fragments):
    code, _, err = cli("convert", SWF_FIXTURES / fixture, tmp_path / "out.json")
    assert_clean_error(code, err, *fragments)


def test_convert_rejects_a_bad_rule(tmp_path):
    code, _, err = cli("convert", CTC_EXCERPT, tmp_path / "out.json", "--missing-estimate", "sometimes")
    assert_clean_error(code, err, "missing_estimate='sometimes'")


def test_platform_command_writes_a_cluster(tmp_path):
    code, out, _ = cli("platform", "--hosts", "12", tmp_path / "p.xml")
    assert code == 0 and "12 compute hosts" in out
    assert (tmp_path / "p.xml").read_text().count('<host id="host') == 12


def write(path, text):
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    "workload,fragments",
    [
        ('{"nb_res": 4, "jobs": [], "profiles": {}', ["w.json:1:", "not valid JSON"]),
        ('{"nb_res": 0, "jobs": [], "profiles": {}}', ["w.json:", "field 'nb_res'"]),
        (
            '{"nb_res": 4, "jobs": [{"id": 1, "subtime": 0, "res": 1, "profile": "nope"}], "profiles": {}}',
            ["w.json:", "jobs[0]: job '1': profile 'nope' does not exist", "field 'profile'"],
        ),
        (
            '{"nb_res": 4, "jobs": [{"id": 1, "subtime": "soon", "res": 1, "profile": "d"}], '
            '"profiles": {"d": {"type": "delay", "delay": 1}}}',
            ["field 'subtime'", "must be a number"],
        ),
        ('{"nb_res": 4, "jobs": [], "profiles": {"d": {"type": "delay", "delay": -1}}}', ["field 'delay'"]),
        (
            '{"nb_res": 4, "jobs": [], "profiles": {"s": {"type": "smpi", "trace": "x"}}}',
            ["type 'smpi'", "use --engine batsim"],
        ),
    ],
)
def test_run_bad_workloads(tmp_path, workload, fragments):
    path = write(tmp_path / "w.json", workload)
    code, _, err = cli("run", "--scheduler", "easy", "--workload", path, "--platform", "4", "--out", tmp_path / "r")
    assert_clean_error(code, err, *fragments)


def test_run_bad_platform_and_missing_files(tmp_path):
    workload = write(tmp_path / "w.json", '{"nb_res": 1, "jobs": [], "profiles": {}}')
    platform = write(tmp_path / "p.xml", "<platform><zone><host id='a' speed='1Gf'></zone></platform>")
    code, _, err = cli(
        "run", "--scheduler", "easy", "--workload", workload, "--platform", platform, "--out", tmp_path / "r"
    )
    assert_clean_error(code, err, "p.xml:1:", "not valid XML")
    no_master = write(
        tmp_path / "q.xml",
        "<platform version='4.1'><zone id='z' routing='Full'><host id='a' speed='1Gf'/></zone></platform>",
    )
    code, _, err = cli(
        "run", "--scheduler", "easy", "--workload", workload, "--platform", no_master, "--out", tmp_path / "r"
    )
    assert_clean_error(code, err, "q.xml:", "master host")
    code, _, err = cli(
        "run",
        "--scheduler",
        "easy",
        "--workload",
        tmp_path / "nothere.json",
        "--platform",
        "4",
        "--out",
        tmp_path / "r",
    )
    assert_clean_error(code, err, "nothere.json:", "no such workload file")


def test_run_unknown_scheduler_and_bad_option(tmp_path):
    workload = write(tmp_path / "w.json", '{"nb_res": 1, "jobs": [], "profiles": {}}')
    code, _, err = cli(
        "run", "--scheduler", "magic", "--workload", workload, "--platform", "4", "--out", tmp_path / "r"
    )
    assert_clean_error(code, err, "unknown scheduler 'magic'")
    code, _, err = cli(
        "run",
        "--scheduler",
        "easy",
        "--workload",
        workload,
        "--platform",
        "4",
        "--out",
        tmp_path / "r",
        "--option",
        "speed=11",
    )
    assert_clean_error(code, err, "scheduler 'easy' has no option 'speed'", "order")
    code, _, err = cli(
        "run",
        "--scheduler",
        "easy",
        "--workload",
        workload,
        "--platform",
        "4",
        "--out",
        tmp_path / "r",
        "--option",
        "order=random",
    )
    assert_clean_error(code, err, "unknown queue order 'random'")


def test_metrics_bad_input(tmp_path):
    code, _, err = cli("metrics", tmp_path / "ghost_jobs.csv")
    assert_clean_error(code, err, "ghost_jobs.csv")
    bad = write(tmp_path / "bad_jobs.csv", "a,b\n1,2\n")
    code, _, err = cli("metrics", bad)
    assert_clean_error(code, err, "bad_jobs.csv")


@pytest.mark.slow
def test_run_report_and_compare(tmp_path):
    args = ["--workload", CTC_EXCERPT, "--platform", "338"]
    for scheduler in ("fcfs", "easy"):
        code, out, err = cli("run", "--scheduler", scheduler, *args, "--out", tmp_path / scheduler, "--report")
        assert code == 0, err
        assert "jobs/s" in out and "bounded slowdown, mean" in out
    code, out, err = cli("compare", tmp_path / "fcfs", tmp_path / "easy", "--out", tmp_path / "cmp")
    assert code == 0, err
    for name in ("comparison.md", "comparison.csv", "overall_bars.png", "wait_cdf.png", "gantt_fcfs.png"):
        assert (tmp_path / "cmp" / name).stat().st_size > 0
    code, out, _ = cli("metrics", tmp_path / "easy_jobs.csv", "--json")
    assert code == 0 and json.loads(out)["overall"]["jobs"] == 5000


def test_cli_works_from_the_repository_root(tmp_path):
    # The root holds a folder named 'schedulers', which must not shadow pybatsim's.
    workload = write(
        tmp_path / "w.json",
        '{"nb_res": 1, "jobs": [{"id": 1, "subtime": 0, "res": 1, '
        '"profile": "d"}], "profiles": {"d": {"type": "delay", "delay": 1}}}',
    )
    code, _out, err = cli(
        "run",
        "--scheduler",
        "easyBackfill",
        "--workload",
        workload,
        "--platform",
        "1",
        "--out",
        tmp_path / "r",
        cwd=REPO,
    )
    assert code == 0, err
