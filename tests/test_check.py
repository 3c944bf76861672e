"""``adaptsched check``: every scheduler we ship passes it; deliberately broken ones fail it, with
the smallest workload that shows their violation, which replays.

Fast tier: the built-in cases and two seconds of fuzzing per scheduler, on the embedded engine.
With real Batsim (BATSIM or ``batsim`` on PATH), ``--engine both`` on every shipped scheduler
(slow) and on the broken examples.
"""

import json
from pathlib import Path

import pandas as pd
import pytest
from helpers import NO_BATSIM, NO_BATSIM_HELP, PLUGINS, REPO, find_batsim

from adaptsched import schedulers as registry
from adaptsched.analysis.checker import Target, check_scheduler
from adaptsched.analysis.checker.cases import builtin_cases, subset
from adaptsched.analysis.checker.promises import withdrawal_violations
from adaptsched.analysis.checker.shrink import shrink
from adaptsched.analysis.invariants import kind_of, run_failure, same_jobs, unended_jobs
from adaptsched.cli import main
from adaptsched.core.queue import ORDERS

BATSIM = find_batsim()
needs_batsim = pytest.mark.skipif(BATSIM is None, reason=f"{NO_BATSIM}: {NO_BATSIM_HELP}")
BROKEN = REPO / "examples" / "schedulers" / "broken"
FUZZ_S = "2"
TINY = {  # a rigid workload: one job of 2 hosts on 8
    "nb_res": 8,
    "jobs": [{"id": "1", "subtime": 0, "res": 2, "walltime": 100, "profile": "p"}],
    "profiles": {"p": {"type": "delay", "delay": 10}},
}


@pytest.mark.parametrize("name", list(registry.SCHEDULERS))
def test_every_shipped_scheduler_passes(name, tmp_path, capsys):
    status = main(["check", name, "--fuzz", FUZZ_S, "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert status == 0, out
    # its built-in cases (those its declared needs accept) and the fuzzing; evolving's needs
    # refuse every random (rigid) workload: said, and the pass is on its built-in case only
    assert "all checks passed" in out and ": ok" in out, out
    if name == "evolving":
        assert "0 random workloads run in" in out and "all checks passed on the 1 workloads run (" in out, out
    else:
        assert out.count(": ok") >= 2, out


@pytest.mark.parametrize(
    "plugin, kind",
    [("shared_host.py", "host-twice"), ("prefetch.py", "before-submission")],
)
def test_broken_examples_fail_with_the_smallest_workload(plugin, kind, tmp_path, capsys):
    status = main(["check", str(BROKEN / plugin), "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert status == 1, out
    assert "FAILED: " in out and f"({kind})" in out, out
    smallest = tmp_path / f"violation-{kind}.json"
    workload = json.loads(smallest.read_text())
    assert len(workload["jobs"]) == 2, workload  # two jobs at once: the least that shows either bug
    assert "the smallest: 2 job(s)" in out and "replay it: adaptsched run" in out
    # the file replays: the same violation again
    replay = main(
        ["run", "--scheduler", str(BROKEN / plugin), "--workload", str(smallest)]
        + ["--platform", str(workload["nb_res"]), "--out", str(tmp_path / "replay" / "run")]
    )
    assert replay == 1


def test_a_broken_promise_is_caught(tmp_path):
    report = check_scheduler(Target(str(PLUGINS / "brokenPromise.py")), tmp_path, shrink_s=60, say=lambda *a: None)
    assert not report.ok and report.first.kind == "guarantee"
    assert report.minimal and report.smallest_jobs < 300


# -- reservations: held to the promise the algorithm makes, and to no other ---------------------
PRIORITY_ORDERS = [order for order in ORDERS if order != "fcfs"]
EXAMPLES = REPO / "examples" / "schedulers"


def withdrawals(folder: Path) -> int:
    """Rows of the runs' ``_jobs.csv`` under ``folder`` that record a withdrawn reservation."""
    return sum(p.read_text().count("withdrawn_at_s") for p in folder.rglob("*_jobs.csv"))


@pytest.mark.parametrize("order", PRIORITY_ORDERS)
def test_easy_passes_under_every_priority_order(order, tmp_path, capsys):
    """A job that goes ahead of EASY's head in a priority order may delay it: the head's
    reservation was a promise only while it was the head, and check holds no job to it then."""
    status = main(["check", "easy", "--option", f"order={order}", "--fuzz", FUZZ_S, "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert status == 0 and "all checks passed" in out, out
    assert withdrawals(tmp_path / "cases") > 0  # heads did lose their place: the rule was exercised


@pytest.mark.slow
@pytest.mark.parametrize("order", list(ORDERS))
def test_easy_passes_thirty_seconds_of_fuzzing_under_every_order(order, tmp_path, capsys):
    status = main(["check", "easy", "--option", f"order={order}", "--fuzz", "30", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert status == 0 and "all checks passed" in out and "random workloads run in" in out, out


@pytest.mark.slow
def test_the_largest_first_example_passes_thirty_seconds_of_fuzzing(tmp_path, capsys):
    """A user's own EASY, widest first, written with the public API only (``promise``, ``withdraw``)."""
    status = main(["check", str(EXAMPLES / "my_largest_first.py"), "--fuzz", "30", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert status == 0 and "all checks passed" in out, out
    assert withdrawals(tmp_path / "cases") > 0


@pytest.mark.parametrize("options", [{}, {"order": "large"}], ids=["fcfs", "large"])
def test_a_head_delayed_by_backfilling_is_caught(options, tmp_path):
    """EASY whose backfilling takes hosts its head needs: its head starts after its reservation,
    while still the head (in arrival order a head never loses its place; in a priority order the
    check still holds a head to the reservation it had while it stayed the head)."""
    target = Target(str(PLUGINS / "greedyBackfill.py"), options)
    report = check_scheduler(target, tmp_path, shrink_s=30, say=lambda *a: None)
    assert not report.ok and report.first.kind == "guarantee", report.first
    assert "after its guarantee" in report.first.message
    if not options:
        assert withdrawals(tmp_path) == 0


def test_a_reservation_withdrawn_after_it_was_due_is_caught(tmp_path):
    """Withdrawing a promise already broken does not excuse it."""
    report = check_scheduler(Target(str(PLUGINS / "hiddenLateStart.py")), tmp_path, shrink_s=30, say=lambda *a: None)
    assert not report.ok and report.first.kind == "guarantee", report.first
    assert "was withdrawn at" in report.first.message and "after it was due" in report.first.message


def test_withdrawals_by_hand():
    """Each withdrawal is made by the reservation's time and no later than the job's start."""
    meta = "{'withdrawn_reservation_s': %s, 'withdrawn_at_s': %s}"
    raw = pd.DataFrame(
        {
            "job_id": ["ok", "due", "started", "none", "kept"],
            "workload_name": ["w0"] * 5,
            "starting_time": [20.0, 30.0, 5.0, 1.0, 12.0],
            "metadata": [
                meta % (10.0, 4.0),  # withdrawn at 4, before 10 and before its start at 20
                meta % (10.0, 12.0),  # at 12: its reservation was due at 10
                meta % (10.0, 6.0),  # at 6: the job had started at 5
                "",
                "{'reservation_s': 12.0, " + meta[1:] % (10.0, 10.0),  # at its time exactly; 12 in force
            ],
        }
    )
    assert withdrawal_violations(raw) == [
        "job w0!due's reservation 10.0 was withdrawn at 12.0, after it was due",
        "job w0!started's reservation was withdrawn at 6.0, after the job started at 5.0",
    ]


def test_fuzzing_finds_a_job_that_never_ends(tmp_path):
    tiny = {
        "nb_res": 8,
        "jobs": [{"id": "1", "subtime": 0, "res": 2, "walltime": 100, "profile": "p"}],
        "profiles": {"p": {"type": "delay", "delay": 10}},
    }
    (tmp_path / "tiny.json").write_text(json.dumps(tiny))
    target = Target(str(PLUGINS / "forgetful.py"))
    report = check_scheduler(target, tmp_path, workload=tmp_path / "tiny.json", fuzz_s=20, say=lambda *a: None)
    assert report.cases[0].violations == []  # the given workload passes ...
    assert report.first.kind == "never-ends" and report.first_case == "fuzz"  # ... random ones do not
    smallest = json.loads(report.smallest.read_text())
    [job] = smallest["jobs"]  # shrunk by hypothesis to one job wider than half the machine
    assert 2 * job["res"] > smallest["nb_res"]


FIVE = {  # faultySched makes its mistake at the third submission: 3 jobs are the least that show it
    "nb_res": 4,
    "jobs": [{"id": str(i), "subtime": i, "res": 1, "walltime": 100, "profile": "p"} for i in range(5)],
    "profiles": {"p": {"type": "delay", "delay": 10}},
}


def test_a_plugin_that_never_answers_is_a_crash_not_a_hang(tmp_path, capsys):
    """check times each answer of the plugin: a hang is found, shrunk and given a replay command
    that stops as the check's run did (rather than waiting for ever)."""
    (tmp_path / "five.json").write_text(json.dumps(FIVE))
    plugin = str(PLUGINS / "faultySched.py")
    command = ["check", plugin, "--option", "mistake=hang", "--workload", str(tmp_path / "five.json")]
    status = main(command + ["--scheduler-timeout", "0.5", "--out", str(tmp_path / "c")])
    out = capsys.readouterr().out
    assert status == 1 and "FAILED: the scheduler runs without an error (crash)" in out, out
    assert "did not answer within 0.5 s" in out and "the smallest: 3 job(s)" in out, out
    replay = next(line for line in out.splitlines() if line.startswith("replay it: "))
    assert replay.endswith("--option mistake=hang --scheduler-timeout 0.5"), replay


def test_a_plugin_that_kills_its_process_is_a_crash_over_zmq(tmp_path):
    """In-process, os._exit would end check with it; in its own process it is one more crash."""
    (tmp_path / "five.json").write_text(json.dumps(FIVE))
    target = Target(str(PLUGINS / "faultySched.py"), options={"mistake": "os_exit"}, transport="zmq")
    report = check_scheduler(target, tmp_path, workload=tmp_path / "five.json", say=lambda *a: None)
    assert report.first.kind == "crash" and "exited with code 4" in report.first.message
    assert report.smallest_jobs == 3


def test_a_scheduler_timeout_or_a_transport_needs_the_embedded_engine(tmp_path, capsys):
    for extra, said in (
        (["--scheduler-timeout", "5"], "--scheduler-timeout works with the embedded engine only"),
        (["--transport", "zmq"], "--transport chooses how the embedded engine runs the plugin"),
    ):
        status = main(["check", "easy", "--engine", "batsim", "--out", str(tmp_path)] + extra)
        err = capsys.readouterr().err
        assert status == 2 and said in err, err


def test_two_checks_in_one_process_count_their_own_refused_inputs(tmp_path):
    """Inputs the scheduler refuses up front (its declared needs) are counted in each check's
    report, not in the process: evolving's needs refuse a rigid workload and every fuzzed one."""
    tiny = {
        "nb_res": 8,
        "jobs": [{"id": "1", "subtime": 0, "res": 2, "walltime": 100, "profile": "p"}],
        "profiles": {"p": {"type": "delay", "delay": 10}},
    }
    (tmp_path / "tiny.json").write_text(json.dumps(tiny))
    reports, said = [], []
    for name, scheduler, fuzz_s in (("a", "evolving", 1), ("b", "easy", 0), ("c", "evolving", 1)):
        lines: list[str] = []
        target = Target(scheduler)
        reports.append(
            check_scheduler(target, tmp_path / name, workload=tmp_path / "tiny.json", fuzz_s=fuzz_s, say=lines.append)
        )
        said.append("\n".join(lines))
    first, easy, second = reports
    assert easy.refused_inputs == []
    for report, out, name in ((first, said[0], "a"), (second, said[2], "c")):
        fuzzed = report.fuzz.workloads
        assert len(report.refused_inputs) == 1 + fuzzed > 1  # the given workload, then each random one
        assert f"fuzz       {fuzzed} of {fuzzed} workloads refused up front" in out, out
        assert all(str(tmp_path / name) in message for message in report.refused_inputs)


@pytest.mark.parametrize("scheduler, need", [("downey", "moldable jobs"), ("evolving", "evolving applications")])
def test_a_check_where_every_workload_is_refused_does_not_pass(scheduler, need, tmp_path, capsys, monkeypatch):
    """A workload the scheduler's declared needs refuse is reported as refused, with the reason
    naming the user's file, never "ok"; a check that ran nothing exits 3, saying what to give:
    as docs/writing-a-scheduler.md shows it."""
    monkeypatch.chdir(tmp_path)
    rigid = Path("rigid.json")
    rigid.write_text(json.dumps(TINY))
    status = main(["check", scheduler, "--workload", str(rigid), "--out", str(tmp_path / "out")])
    out = capsys.readouterr().out
    assert status == 3, out
    if scheduler == "downey":
        doc = (REPO / "docs" / "writing-a-scheduler.md").read_text()
        assert out.split("\n", 1)[1] == doc.split("--workload rigid.json` prints\n\n```text\n")[1].split("```")[0]
    assert f"rigid         1 jobs,    8 hosts, embedded: refused: scheduler '{scheduler}' needs {need}" in out, out
    assert f"jobs of {rigid} has one" in out and ": ok" not in out and "all checks passed" not in out, out
    assert (
        "nothing was checked: every workload was refused by the scheduler's declared needs (the given workload):" in out
    )
    assert "give a workload it accepts, e.g. one prepared as it says" in out and "leave out --workload" in out, out


def test_fuzzing_that_runs_nothing_does_not_pass(tmp_path, capsys):
    """evolving's needs refuse every random (rigid) workload, and no built-in case fits 8 hosts."""
    assert main(["check", "evolving", "--platform", "8", "--out", str(tmp_path / "a")]) == 3
    out = capsys.readouterr().out
    assert "nothing was checked: no workload was run (no built-in case fits these hosts)" in out, out
    assert main(["check", "evolving", "--platform", "8", "--fuzz", "1", "--out", str(tmp_path / "b")]) == 3
    out = capsys.readouterr().out
    assert "fuzz       0 random workloads run in " in out and "s: nothing checked" in out, out
    assert "every workload was refused by the scheduler's declared needs (" in out and "all checks passed" not in out


def test_options_are_checked_before_anything_runs(tmp_path, capsys):
    assert main(["check", "easy", "--option", "order=nonsense", "--out", str(tmp_path)]) in (1, 2)
    assert "order" in capsys.readouterr().err
    assert not (tmp_path / "cases").exists()


# -- the pieces -------------------------------------------------------------------------------
def test_shrink_finds_the_two_jobs_that_matter():
    jobs = [{"id": str(i)} for i in range(40)]
    ids = lambda js: {j["id"] for j in js}  # noqa: E731
    smallest, minimal = shrink(jobs, lambda js: {"3", "31"} <= ids(js))
    assert ids(smallest) == {"3", "31"} and minimal


def test_builtin_cases():
    cases = {case.name: case for case in builtin_cases([])}
    assert list(cases) == ["ctc", "lublin", "walltime"]
    assert all(len(case.workload["jobs"]) == 300 for case in cases.values())
    walltime = cases["walltime"].workload
    delays = {name: p["delay"] for name, p in walltime["profiles"].items()}
    past = [j for j in walltime["jobs"] if delays[j["profile"]] > j["walltime"]]
    assert len(past) >= 90 and any(delays[j["profile"]] == j["walltime"] for j in walltime["jobs"])
    kept = subset(walltime, walltime["jobs"][:2])
    assert len(kept["jobs"]) == 2 and set(kept["profiles"]) == {j["profile"] for j in kept["jobs"]}


def test_violations_are_classified():
    assert kind_of("host 3 runs jobs w0!1 and w0!2 at once (5.0 < 9.0)") == "host-twice"
    assert kind_of("job w0!4 starts at 1.0 before its submission 2.0") == "before-submission"
    assert kind_of("job w0!4 starts at 9.0 after its guarantee 2.0") == "guarantee"
    assert run_failure("Cannot execute job 'w0!2': its state (NOT_SUBMITTED) is not JOB_STATE_SUBMITTED").kind == (
        "before-submission"
    )
    assert run_failure("the simulation deadlocked at t=0.000000").kind == "never-ends"
    assert run_failure("something else").kind == "refused"
    # a plugin in its own process that died (real Batsim, the zmq transport) crashed, as in-process
    died = "the scheduler process (p.py -s) exited with code 1; last lines of p_sched.log:\n    RuntimeError: boom"
    assert run_failure(f"real Batsim stopped: {died}").kind == "crash"
    assert run_failure(f"the scheduler stopped answering: {died}").kind == "crash"
    # ... unless real Batsim had stopped first on a decision it refused (checker.runs.essence puts it first)
    critical = "[batsim/CRITICAL] Invalid JSON message: unknown event type 'FOO'"
    refused = f"real Batsim: Invalid JSON message\nreal Batsim stopped: {died}\nlast lines of b.log:\n    {critical}"
    assert run_failure(refused).kind == "refused"


def test_unended_jobs_and_same_jobs(tmp_path):
    header = "job_id,workload_name,submission_time,requested_number_of_resources,requested_time,final_state,"
    header += "starting_time,finish_time,allocated_resources,metadata\n"
    (tmp_path / "a.csv").write_text(header + "1,w0,0,1,10,COMPLETED_SUCCESSFULLY,0,5,0,\n")
    (tmp_path / "b.csv").write_text(header + "1,w0,0,1,10,COMPLETED_SUCCESSFULLY,0,5.000001,0,\n")
    (tmp_path / "c.csv").write_text(header + "1,w0,0,1,10,COMPLETED_SUCCESSFULLY,0,6,0,\n")
    raw = pd.read_csv(tmp_path / "a.csv", dtype=str, keep_default_na=False)
    assert unended_jobs(raw, ["w0!1", "w0!2"]) == ["job w0!2 never ended (no row in _jobs.csv)"]
    assert same_jobs(tmp_path / "a.csv", tmp_path / "b.csv") == []  # within Batsim's 6 decimals
    assert same_jobs(tmp_path / "a.csv", tmp_path / "c.csv") == ["job w0!1: finish_time '5' against '6'"]


# -- with real Batsim -------------------------------------------------------------------------
@needs_batsim
@pytest.mark.parametrize("plugin, kind", [("shared_host.py", "host-twice"), ("prefetch.py", "before-submission")])
def test_broken_examples_fail_on_real_batsim(plugin, kind, tmp_path):
    target = Target(str(BROKEN / plugin), engines=("batsim",), batsim=BATSIM)
    report = check_scheduler(target, tmp_path, shrink_s=60, say=lambda *a: None)
    assert report.first.kind == kind and report.smallest_jobs == 2


@needs_batsim
def test_a_plugin_that_crashes_under_real_batsim_is_a_crash(tmp_path):
    """The same plugin error is a crash on either engine, not a decision real Batsim refused."""
    plugin = str(PLUGINS / "faultySched.py")  # raises at the third submission
    target = Target(plugin, options={"mistake": "crash"}, engines=("embedded", "batsim"), batsim=BATSIM)
    report = check_scheduler(target, tmp_path, shrink_s=60, say=lambda *a: None)
    kinds = {v.kind for case in report.cases for v in case.violations}
    assert kinds == {"crash"} and report.first.kind == "crash" and report.smallest_jobs == 3


@needs_batsim
def test_a_workload_the_plugin_hung_on_is_not_run_on_real_batsim(tmp_path):
    """Real Batsim would wait for ever for the answer the embedded run timed out on."""
    (tmp_path / "five.json").write_text(json.dumps(FIVE))
    plugin = str(PLUGINS / "faultySched.py")
    target = Target(plugin, {"mistake": "hang"}, ("embedded", "batsim"), BATSIM, scheduler_timeout_s=0.5)
    report = check_scheduler(target, tmp_path, workload=tmp_path / "five.json", shrink_s=30, say=lambda *a: None)
    [violation] = report.cases[0].violations
    assert violation.kind == "crash" and violation.message.startswith("embedded: ") and report.smallest_jobs == 3
    assert list((tmp_path / "cases").glob("*-embedded_jobs.csv*"))
    assert not list((tmp_path / "cases").glob("*-batsim_jobs.csv*"))  # never started (shrinking's 2 jobs do run)


@needs_batsim
def test_a_refused_workload_on_both_engines_is_refused_once(tmp_path):
    """The same needs refuse it on both engines: one refusal, and no _jobs.csv to compare."""
    (tmp_path / "rigid.json").write_text(json.dumps(TINY))
    target = Target("downey", engines=("embedded", "batsim"), batsim=BATSIM)
    report = check_scheduler(target, tmp_path, workload=tmp_path / "rigid.json", say=lambda *a: None)
    assert report.nothing_checked and not report.ok and len(report.refused_inputs) == 1
    assert report.cases[0].refused.startswith("scheduler 'downey' needs moldable jobs")


@needs_batsim
@pytest.mark.slow
@pytest.mark.parametrize("name", list(registry.SCHEDULERS))
def test_every_shipped_scheduler_passes_on_both_engines(name, tmp_path, capsys):
    status = main(["check", name, "--engine", "both", "--batsim", BATSIM, "--out", str(tmp_path)])
    assert status == 0, capsys.readouterr().out


def test_a_run_the_engine_stops_for_its_physics_is_a_physics_violation():
    """The engines check every run's physics at its end (engines/physics.py); `check` names the
    rule that check enforces rather than calling it a refused decision."""
    from adaptsched.analysis.invariants import KINDS, run_failure

    found = run_failure("w_jobs.csv breaks the run's physics (1 violation): job 2 ran 10 s; its profile's time is 5 s")
    assert found.kind == "physics" and "physics" in KINDS
