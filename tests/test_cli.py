"""The command line: each bad input gives a clear one-paragraph error (file, line, field)."""

import json
import os
import subprocess
import sys

import pytest
from helpers import CTC_EXCERPT, REPO, find_batsim, needs_batsim

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


def assert_clean_error(code, err, *fragments, status=1):
    """An error (exit 1) or usage error (exit 2): one paragraph, no traceback, no "internal error"."""
    assert code == status, err
    assert "Traceback" not in err and "internal error" not in err, err
    for fragment in fragments:
        assert fragment in err, err


def assert_usage_error(code, err, *fragments):
    assert_clean_error(code, err, *fragments, status=2)


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
    ],
)
def test_convert_bad_swf(tmp_path, fixture, fragments):
    code, _, err = cli("convert", SWF_FIXTURES / fixture, tmp_path / "out.json")
    assert_clean_error(code, err, *fragments)


@pytest.mark.parametrize(
    "engine",
    ["embedded", pytest.param("batsim", marks=needs_batsim())],
)
def test_jobs_wider_than_the_platform_are_named_before_the_run(tmp_path, engine):
    """Batsim runs them and exits 0 with the jobs REJECTED; both engines say so first."""
    doc = {
        "nb_res": 4,
        "jobs": [
            {"id": 1, "subtime": 0, "res": 2, "profile": "d", "walltime": 10},
            {"id": 2, "subtime": 1, "res": 6, "profile": "d", "walltime": 10},
            {"id": 3, "subtime": 1, "res": 9, "profile": "p", "walltime": 10},
        ],
        "profiles": {
            "d": {"type": "delay", "delay": 3},
            "p": {"type": "parallel_homogeneous_total", "cpu": 1e9, "com": 0},
        },
    }
    workload = tmp_path / "wide.json"
    workload.write_text(json.dumps(doc))
    args = ["run", "--scheduler", "easy", "--workload", workload, "--platform", "4", "--out", tmp_path / "w"]
    code, out, err = cli(*args, "--engine", engine, env={**os.environ, "BATSIM": find_batsim() or ""})
    assert code == 0, err
    first, second = out.splitlines()[:2]  # before the run's own lines
    assert first == (
        "note: 1 job can never run: wider than the platform's 4 hosts (job 2: 6 hosts requested); "
        "the scheduler must reject it (final state REJECTED)"
    )
    assert "1 moldable job is wider than the platform's 4 hosts (job 3: 9 hosts requested)" in second


def test_convert_rejects_a_bad_rule(tmp_path):
    code, _, err = cli("convert", CTC_EXCERPT, tmp_path / "out.json", "--missing-estimate", "sometimes")
    assert_usage_error(code, err, "missing_estimate='sometimes'")  # a command-line value: exit 2


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
    assert_usage_error(code, err, "unknown scheduler 'magic'")  # a name given on the command line: exit 2
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
    assert_usage_error(code, err, "scheduler 'easy': no option 'speed'", "order")  # exit 2
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
    assert_usage_error(code, err, "option order='random': choose one of fcfs, sjf")
    for scheduler, option, allowed in [
        ("backfill", "order=xyz", "choose one of D, P, R"),
        ("backfill", "adaptation=third", "choose one of none, half, quarter, greedy"),
        ("downey", "strategy=FOO", "choose one of PWS, AVG"),
        ("backfill", "speculation=-5", "must be in [0, 100)"),
    ]:
        code, _, err = cli(
            "run", "--scheduler", scheduler, "--workload", workload, "--platform", "4",
            "--out", tmp_path / "v", "--option", option,
        )  # fmt: skip
        assert_usage_error(code, err, f"scheduler '{scheduler}': option {option.split('=')[0]}=", allowed)
        assert not (tmp_path / "v_jobs.csv").exists()  # checked before anything runs


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


# -- the errors a new user meets: one paragraph each, and the documented exit status ------------
def test_platform_with_no_host_is_a_usage_error(tmp_path):
    for hosts in ("0", "-3", "many"):
        code, _, err = cli("platform", "--hosts", hosts, tmp_path / "p.xml")
        assert_usage_error(code, err, "argument --hosts:")
    assert "must be at least 1, got 0" in cli("platform", "--hosts", "0", tmp_path / "p.xml")[2]
    assert not (tmp_path / "p.xml").exists()


def test_platform_into_a_missing_folder(tmp_path):
    code, _, err = cli("platform", "--hosts", "4", tmp_path / "nowhere" / "p.xml")
    assert_clean_error(code, err, "nowhere", "does not exist")


def test_run_out_where_nothing_can_be_written(tmp_path):
    workload = write(tmp_path / "w.json", '{"nb_res": 1, "jobs": [], "profiles": {}}')
    a_file = write(tmp_path / "a_file", "")
    code, _, err = cli("run", "--scheduler", "easy", "--workload", workload, "--platform", "4", "--out", a_file / "r")
    assert_clean_error(code, err, "--out", "cannot create the folder", "a_file")
    code, _, err = cli("run", "--scheduler", "easy", "--workload", workload, "--platform", "0", "--out", tmp_path / "r")
    assert_usage_error(code, err, "--platform 0", "at least one host")


def test_other_output_folders_are_checked_before_any_work(tmp_path):
    a_file = write(tmp_path / "a_file", "")
    for args in (
        ("demo", "--out", a_file / "demo"),
        ("compare", tmp_path / "r", "--out", a_file / "cmp"),
        ("reproduce", "downey", "--out", a_file / "d"),
    ):
        code, _, err = cli(*args)
        assert_clean_error(code, err, "--out", "cannot create the folder")
    code, _, err = cli("reproduce", "qops", "--out", tmp_path / "q", "--report-dir", a_file / "report")
    assert_clean_error(code, err, "--report-dir", "cannot create the folder")


def test_usage_errors_exit_2_and_interrupts_130(monkeypatch, capsys):
    from adaptsched import cli as module

    assert cli("no-such-command")[0] == 2
    assert cli("run", "--scheduler", "easy")[0] == 2  # required arguments missing

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(module.schedulers, "cmd_schedulers", interrupted)
    assert module.main(["schedulers"]) == 130
    assert "adaptsched schedulers: interrupted" in capsys.readouterr().err


def test_file_system_errors_are_user_errors_not_bugs(monkeypatch, capsys):
    import errno

    from adaptsched import cli as module

    def full_disk(args):
        raise OSError(errno.ENOSPC, "No space left on device", "/data/out_jobs.csv")

    monkeypatch.delenv("ADAPTSCHED_DEBUG", raising=False)
    monkeypatch.setattr(module.schedulers, "cmd_schedulers", full_disk)
    assert module.main(["schedulers"]) == 1
    err = capsys.readouterr().err
    assert "error: /data/out_jobs.csv: No space left on device" in err and "internal error" not in err


def test_missing_batsim_points_to_the_install_instructions(monkeypatch, tmp_path):
    from adaptsched.engines import real
    from adaptsched.engines.run import find_batsim_or_fail
    from adaptsched.errors import SimulationError

    monkeypatch.delenv("BATSIM", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(real, "BUILD_KIT_PREFIX", tmp_path / "no" / "batsim")
    with pytest.raises(SimulationError, match=r"docs/getting-started\.md") as error:
        find_batsim_or_fail()
    assert "Nix" in str(error.value) and "batsim-build" in str(error.value)
    monkeypatch.setenv("BATSIM", str(tmp_path / "nothere"))
    with pytest.raises(SimulationError, match=r"docs/getting-started\.md"):
        find_batsim_or_fail()


def test_metrics_of_a_run_where_nothing_ran(tmp_path):
    from test_analysis import HEADER, row

    header_only = write(tmp_path / "crashed_jobs.csv", HEADER + "\n")
    code, out, err = cli("metrics", header_only)
    assert_clean_error(code, err, "crashed_jobs.csv: holds no job at all", "did not finish", "crashed_sched.log")
    assert out == ""
    rejected = write(tmp_path / "rej_jobs.csv", HEADER + "\n" + row(1, 0, 2, "REJECTED") + "\n")
    code, _, err = cli("metrics", rejected)
    assert_clean_error(code, err, "holds 1 jobs and none of them ran (1 rejected)", "did not finish")
    write(tmp_path / "rej_schedule.csv", "batsim_version,nb_computing_machines\n4.2.1,4\n")
    code, _, err = cli("metrics", rejected)
    assert_clean_error(code, err, "the scheduler started no job")
    ran = write(tmp_path / "ran_jobs.csv", HEADER + "\n" + row(1, 0, 2, "COMPLETED_SUCCESSFULLY", 0, 5, "0-1") + "\n")
    code, out, err = cli("metrics", ran)
    assert code == 0 and "| jobs | 1 |" in out and "no _schedule.csv beside" in err


def test_compare_unlike_runs_on_the_command_line(tmp_path):
    from test_analysis import FIXTURES, THREE_JOBS, write_run

    small = write_run(tmp_path, "small", THREE_JOBS, nb_machines=4)
    code, _, err = cli("compare", FIXTURES / "easy", small, "--out", tmp_path / "x")
    assert_clean_error(
        code, err, "not comparable", "machine sizes differ: easy 8 hosts, small 4 hosts", "--allow-mixed"
    )
    code, _, err = cli("compare", FIXTURES / "easy", small, "--out", tmp_path / "x", "--allow-mixed")
    assert code == 0 and "warning: comparing unlike runs: machine sizes differ" in err
    code, _, err = cli("compare", FIXTURES / "easy", FIXTURES / "filler", "--out", tmp_path / "alike")
    assert code == 0 and "warning" not in err, err


def test_the_schedule_trace_needs_real_batsim(tmp_path):
    workload = write(tmp_path / "w.json", '{"nb_res": 1, "jobs": [], "profiles": {}}')
    code, _, err = cli(
        "run", "--scheduler", "easy", "--workload", workload, "--platform", "1", "--out", tmp_path / "r", "--paje"
    )
    assert_usage_error(code, err, "Pajé", "--engine batsim")


def test_a_scheduler_timeout_is_refused_with_real_batsim(tmp_path):
    """Real Batsim waits for its scheduler without a limit: the timeout would be ignored (and a
    plugin that never answers would hang the run), so it is refused before anything runs."""
    workload = write(tmp_path / "w.json", '{"nb_res": 1, "jobs": [], "profiles": {}}')
    command = ["run", "--scheduler", "easy", "--workload", workload, "--platform", "1", "--out", tmp_path / "r"]
    code, _, err = cli(*command, "--engine", "batsim", "--scheduler-timeout", "5")
    assert_usage_error(code, err, "--scheduler-timeout works with the embedded engine only", "--engine embedded")
    assert not (tmp_path / "r_jobs.csv").exists()


def test_demo_prints_the_report_folder_then_a_short_table(tmp_path):
    code, out, err = cli("demo", "--jobs", 300, "--out", tmp_path / "demo")
    assert code == 0, err
    lines = out.splitlines()
    report = next(i for i, line in enumerate(lines) if line.startswith("report: "))
    assert lines[report] == f"report: {tmp_path / 'demo' / 'comparison'}/"
    table = lines[report + 3 :]
    assert [c.strip() for c in table[0].split("|")[1:-1]] == ["metric", "fcfs", "easy", "conservative"]
    assert len(table) == 2 + 5 and "Per class" not in out  # not the whole comparison.md
    assert (tmp_path / "demo" / "comparison" / "comparison.md").read_text().count("\n") > 50
    assert "report.html, the run explorer" in lines[report + 1]
    page = (tmp_path / "demo" / "comparison" / "report.html").read_bytes()
    assert b'id="adaptsched-document"' in page  # the explorer's page: BokehJS and its data, compressed
    code, _, err = cli("demo", "--trace", tmp_path / "CTC.swf.gz", "--out", tmp_path / "d2")
    assert_clean_error(code, err, "no such trace", "CTC-SP2-1996-3.1-cln.swf.gz", "https://www.cs.huji.ac.il/")


def test_each_papers_options_reach_its_main_by_name():
    """``reproduce PAPER``: the options a paper's ``add_arguments`` declares are keyword
    parameters of its ``main`` (the command line hands them over by name, typed)."""
    import argparse
    import inspect

    from adaptsched.reproduce import commands

    for command in commands():
        parser = argparse.ArgumentParser()
        command.add_arguments(parser)
        dests = set(vars(parser.parse_args([])))
        parameters = inspect.signature(command.main).parameters
        assert dests <= set(parameters), (command.NAME, dests - set(parameters))
        assert all(parameters[d].kind is inspect.Parameter.KEYWORD_ONLY for d in dests)
        assert "setup" in parameters


def test_shared_options_are_declared_once():
    """An option several commands take is declared in one place (cli/common.py's groups)."""
    import ast

    from helpers import REPO

    declared: dict[str, list[str]] = {}
    for path in sorted((REPO / "cli").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "add_argument":
                for arg in node.args:
                    if isinstance(arg, ast.Constant) and str(arg.value).startswith("--"):
                        declared.setdefault(arg.value, []).append(path.name)
    for option in ("--hosts", "--seed", "--bound", "--batsim", "--window", "--workers", "--scheduler-address"):
        assert declared[option] == ["common.py"], (option, declared[option])
