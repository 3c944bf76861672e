"""The embedded engine: outputs, exact small cases, batching, errors, crashes, parallel runs."""

import csv
import gc
import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import PLUGINS, REPO

import adaptsched.engines.run as run_module
from adaptsched.engines.embedded.batsim import EmbeddedBatsim
from adaptsched.engines.embedded.outputs import JOBS_COLUMNS, SCHEDULE_COLUMNS
from adaptsched.engines.run import RunSpec, run
from adaptsched.errors import SimulationError
from adaptsched.formats.bulk import SparseCollections
from adaptsched.platforms.simgrid import read_platform, write_cluster
from adaptsched.workloads.batsim_json import load_workload

# 4 hosts. Jobs 1 and 2 fill the machine until 10; 3 (all hosts) arrives at 5; at 10,
# 4 (delay 10) and 5 (delay 5 > walltime 3: killed at its walltime) arrive.
W1 = {
    "nb_res": 4,
    "jobs": [
        {"id": 1, "subtime": 0, "res": 2, "profile": "d10", "walltime": 100},
        {"id": 2, "subtime": 0, "res": 2, "profile": "d10", "walltime": 100},
        {"id": 3, "subtime": 5, "res": 4, "profile": "d10", "walltime": 100},
        {"id": 4, "subtime": 10, "res": 1, "profile": "d10", "walltime": 100},
        {"id": 5, "subtime": 10, "res": 1, "profile": "d5", "walltime": 3},
    ],
    "profiles": {"d10": {"type": "delay", "delay": 10}, "d5": {"type": "delay", "delay": 5}},
}


#: Five jobs on 2 hosts, one every 10 s: a plugin that fails at the third submission has ended two.
FIVE = {
    "nb_res": 2,
    "jobs": [{"id": i, "subtime": 10 * i, "res": 1, "profile": "d1", "walltime": 5} for i in range(1, 6)],
    "profiles": {"d1": {"type": "delay", "delay": 1}},
}


def write_json(path, doc):
    path.write_text(json.dumps(doc))
    return path


def rows(prefix, suffix=""):
    with open(f"{prefix}_jobs.csv{suffix}") as handle:
        return {r["job_id"]: r for r in csv.DictReader(handle)}


def only_partial(prefix):
    """A failed run's outputs: under their partial names, none under the final ones."""
    for name in ("_jobs.csv", "_schedule.csv", "_machine_states.csv"):
        assert not Path(f"{prefix}{name}").exists(), name
        assert Path(f"{prefix}{name}.partial").exists(), name


def test_outputs_are_batsims_files_with_exact_times(tmp_path):
    workload = write_json(tmp_path / "w1.json", W1)
    result = run(RunSpec.make("fcfs", workload, 4, tmp_path / "fcfs", progress=False), say=lambda *a: None)
    with open(result.jobs_csv) as handle:
        assert next(csv.reader(handle)) == list(JOBS_COLUMNS)
    with open(result.schedule_csv) as handle:
        header, values = list(csv.reader(handle))
    assert header == list(SCHEDULE_COLUMNS)
    summary = dict(zip(header, values))
    assert summary["nb_jobs"] == "5" and summary["nb_jobs_killed"] == "1" and summary["makespan"] == "30.000000"
    assert summary["time_computing"] == "93.000000"  # host-seconds: 2*10 + 2*10 + 4*10 + 1*3 + 1*10
    jobs = rows(result.prefix)
    got = {
        j: (r["starting_time"], r["finish_time"], r["final_state"], r["allocated_resources"]) for j, r in jobs.items()
    }
    assert got == {
        "1": ("0.000000", "10.000000", "COMPLETED_SUCCESSFULLY", "0-1"),
        "2": ("0.000000", "10.000000", "COMPLETED_SUCCESSFULLY", "2-3"),
        "3": ("10.000000", "20.000000", "COMPLETED_SUCCESSFULLY", "0-3"),
        "4": ("20.000000", "30.000000", "COMPLETED_SUCCESSFULLY", "0"),
        "5": ("20.000000", "23.000000", "COMPLETED_WALLTIME_REACHED", "1"),
    }
    assert jobs["5"]["execution_time"] == "3.000000" and jobs["5"]["success"] == "0"
    # one row per job start or end, as Batsim writes it (times with %g): idle and computing hosts
    states = (tmp_path / "fcfs_machine_states.csv").read_text().splitlines()
    assert states[0] == "time,nb_sleeping,nb_switching_on,nb_switching_off,nb_idle,nb_computing"
    assert [(r.split(",")[0], r.split(",")[4:]) for r in states[1:]] == [
        ("4e-20", ["2", "2"]),  # 1 starts (after 4 messages of 1e-20 s each, as on real Batsim)
        ("5e-20", ["0", "4"]),  # 2 starts
        ("10", ["2", "2"]),  # 1 ends
        ("10", ["4", "0"]),  # 2 ends
        ("10", ["0", "4"]),  # 3 starts
        ("20", ["4", "0"]),  # 3 ends
        ("20", ["3", "1"]),  # 4 starts
        ("20", ["2", "2"]),  # 5 starts
        ("23", ["3", "1"]),  # 5 reaches its walltime
        ("30", ["4", "0"]),  # 4 ends
    ]
    assert all(r.split(",")[1:4] == ["0", "0", "0"] for r in states[1:])  # no power states


def gc_state():
    return gc.isenabled(), gc.get_threshold(), gc.get_freeze_count(), list(gc.callbacks)


@pytest.mark.parametrize("mistake", [None, "unknown_job"])
def test_a_run_leaves_the_garbage_collector_as_it_found_it(tmp_path, mistake):
    """The engine freezes the workload during a run, with a raised threshold, and pauses the GC
    for the end-of-run check: all undone at the end, after a run that stops on an invalid
    decision too."""
    workload = write_json(tmp_path / "w1.json", W1)
    before = gc_state()
    spec = RunSpec.make(
        str(PLUGINS / "faultySched.py"),
        workload,
        4,
        tmp_path / "run",
        options={"mistake": mistake or "none"},
        progress=False,
    )
    if mistake is None:
        run(spec, say=lambda *a: None)
    else:
        with pytest.raises(SimulationError):
            run(spec, say=lambda *a: None)
    assert gc_state() == before


def test_a_run_that_fails_before_the_engine_starts_leaves_the_garbage_collector_as_it_found_it(tmp_path, monkeypatch):
    """The workload and plugin are frozen as soon as they are built; a failure before the engine
    runs (here its progress bar) unfreezes them all the same."""
    workload = write_json(tmp_path / "w1.json", W1)
    before = gc_state()

    def broken(*args, **kwargs):
        raise OSError("no terminal")

    monkeypatch.setattr("adaptsched.engines.run.simulation.Progress", broken)
    with pytest.raises(OSError):
        run(RunSpec.make("fcfs", workload, 4, tmp_path / "run", progress=False), say=lambda *a: None)
    assert gc_state() == before


def test_made_to_last_freezes_what_it_built_only_when_the_block_succeeds():
    """A run's long-lived structures are built with the GC off and frozen at once; a block that
    fails freezes nothing, and the GC is back on either way."""
    from adaptsched.formats.bulk import made_to_last

    assert gc.get_freeze_count() == 0 and gc.isenabled()
    try:
        with made_to_last():
            assert not gc.isenabled()
            kept = [[i] for i in range(1000)]
        assert gc.isenabled() and gc.get_freeze_count() >= len(kept)
    finally:
        gc.unfreeze()
    with pytest.raises(ValueError), made_to_last():
        kept = [[i] for i in range(1000)]
        raise ValueError("the input is wrong")
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_a_finished_run_leaves_no_cyclic_garbage_that_grows_with_its_jobs(tmp_path):
    """The engine and its decision parser, the connection and pybatsim's Batsim and scheduler
    refer to each other during a run; the cycles are broken at its end, so that reference
    counting frees the run's jobs (pybatsim's, the plugin's, the workload's) and a long-lived
    process (a sweep's worker) does not find them all in its next full collection."""

    def garbage_after(nb_jobs):
        doc = {
            "nb_res": 4,
            "jobs": [
                {"id": i, "subtime": i, "res": 1 + i % 4, "profile": "d10", "walltime": 100} for i in range(nb_jobs)
            ],
            "profiles": {"d10": {"type": "delay", "delay": 10}},
        }
        workload = write_json(tmp_path / f"w{nb_jobs}.json", doc)
        gc.collect()
        run(RunSpec.make("easy", workload, 4, tmp_path / f"g{nb_jobs}", progress=False), say=lambda *a: None)
        return gc.collect()

    small, large = garbage_after(10), garbage_after(400)
    assert large - small < 50, (small, large)  # the plugin's module and classes, not its jobs


def test_the_decision_parser_holds_an_engine_without_weak_references_strongly():
    """A compiled engine (mypyc's native classes take no weak references: benchmarks/compiled.py)
    is held as it is; a pure-Python one through a proxy, so that the run is no cycle."""
    import weakref

    from adaptsched.engines.embedded.decisions import DecisionParser

    class Compiled:
        __slots__ = ()  # no __weakref__ slot: weakref.proxy refuses it, as it refuses a native class

    class Pure:
        pass

    compiled, pure = Compiled(), Pure()
    assert DecisionParser(compiled).engine is compiled
    assert type(DecisionParser(pure).engine) is weakref.ProxyType


def test_runs_in_one_process_leave_no_cyclic_garbage(tmp_path, monkeypatch):
    """What does form cycles (the platform's routes, the plugin module's classes) is collected
    when ``run`` returns: the run leaves every object in the oldest generation, where a sweep's
    worker, running one simulation after another, would otherwise keep every run's. (Here a
    collection after every run; by default one when it keeps their share of the time under 2 %.)"""
    monkeypatch.setattr(run_module, "COLLECTIONS", SparseCollections(share=float("inf")))
    workload = write_json(tmp_path / "w1.json", W1)
    for i in range(3):
        run(RunSpec.make("easy", workload, 4, tmp_path / f"r{i}", progress=False), say=lambda *a: None)
        assert gc.collect() == 0


def test_short_runs_in_one_process_keep_the_garbage_of_a_few_runs_at_most(tmp_path, monkeypatch):
    """By default a run is followed by a full collection unless the last one was recent: the
    garbage of short runs accumulates only until the next one. A scripted clock: the first
    collection takes 10 ms, so none for 0.5 s after it (2 %); runs end 0.2 s apart."""
    reads = iter([0.0, 0.01, 0.2, 0.4, 0.6, 0.61])
    collections = SparseCollections(share=0.02, clock=lambda: next(reads))
    monkeypatch.setattr(run_module, "COLLECTIONS", collections)
    workload = write_json(tmp_path / "w1.json", W1)
    ends = []
    for i in range(4):
        run(RunSpec.make("easy", workload, 4, tmp_path / f"r{i}", progress=False), say=lambda *a: None)
        ends.append(collections.last_end_s)
    assert ends == [0.01, 0.01, 0.01, 0.61]
    assert gc.collect() == 0


def test_delay_equal_to_walltime_reaches_the_walltime(tmp_path):
    # Batsim's check is strict: a delay equal to the walltime ends as WALLTIME_REACHED.
    doc = {
        "nb_res": 1,
        "jobs": [
            {"id": 1, "subtime": 0, "res": 1, "profile": "d5", "walltime": 5},
            {"id": 2, "subtime": 0, "res": 1, "profile": "d5", "walltime": 6},
        ],
        "profiles": {"d5": {"type": "delay", "delay": 5}},
    }
    result = run(
        RunSpec.make("fcfs", write_json(tmp_path / "w.json", doc), 1, tmp_path / "eq", progress=False),
        say=lambda *a: None,
    )
    jobs = rows(result.prefix)
    assert jobs["1"]["final_state"] == "COMPLETED_WALLTIME_REACHED"
    assert jobs["2"]["final_state"] == "COMPLETED_SUCCESSFULLY"


class ScriptedScheduler:
    """A connection that answers like a trivial FCFS scheduler and records messages."""

    def __init__(self, nb_hosts):
        self.free = list(range(nb_hosts))
        self.running, self.waiting, self.messages = {}, [], []

    def exchange(self, text):
        message = json.loads(text)
        self.messages.append(message)
        for event in message["events"]:
            if event["type"] == "JOB_SUBMITTED":
                self.waiting.append((event["data"]["job_id"], event["data"]["job"]["res"]))
            elif event["type"] == "JOB_COMPLETED":
                self.free = sorted(self.free + self.running.pop(event["data"]["job_id"]))
        events = []
        while self.waiting and self.waiting[0][1] <= len(self.free):
            job_id, res = self.waiting.pop(0)
            hosts, self.free = self.free[:res], self.free[res:]
            self.running[job_id] = hosts
            alloc = " ".join(str(h) for h in hosts)
            events.append(
                {"timestamp": message["now"], "type": "EXECUTE_JOB", "data": {"job_id": job_id, "alloc": alloc}}
            )
        return json.dumps({"now": message["now"], "events": events})


def test_events_are_batched_as_batsim_batches_them(tmp_path):
    # Checked against real Batsim 4.2.1: at t=10 the two completions and the two
    # submissions come in one message, ordered by when their timers were created
    # (the jobs' sleeps started at 0, the submitter's at 5); the submitter's goodbye
    # only reaches the server after that message left, so the NOTIFY comes alone.
    platform = read_platform(write_cluster(4, tmp_path / "p4.xml"))
    workload = load_workload(write_json(tmp_path / "w1.json", W1))
    scheduler = ScriptedScheduler(4)
    EmbeddedBatsim(platform, [workload], scheduler, str(tmp_path / "out")).run()
    summary = [
        (m["now"], [(e["type"], e["data"].get("job_id", e["data"].get("type"))) for e in m["events"]])
        for m in scheduler.messages
    ]
    assert summary == [
        (0.0, [("SIMULATION_BEGINS", None)]),
        (0.0, [("JOB_SUBMITTED", "w0!1"), ("JOB_SUBMITTED", "w0!2")]),
        (5.0, [("JOB_SUBMITTED", "w0!3")]),
        (
            10.0,
            [
                ("JOB_COMPLETED", "w0!1"),
                ("JOB_COMPLETED", "w0!2"),
                ("JOB_SUBMITTED", "w0!4"),
                ("JOB_SUBMITTED", "w0!5"),
            ],
        ),
        (10.0, [("NOTIFY", "no_more_static_job_to_submit")]),
        (20.0, [("JOB_COMPLETED", "w0!3")]),
        (23.0, [("JOB_COMPLETED", "w0!5")]),
        (30.0, [("JOB_COMPLETED", "w0!4")]),
        (30.0, [("SIMULATION_ENDS", None)]),
    ]


@pytest.mark.parametrize(
    "mistake,expected",
    [
        ("wrong_size", "the job requires 2 machines but 3 were given"),
        ("busy_host", "is currently computing jobs"),
        ("twice", "its state (RUNNING) is not SUBMITTED"),
        ("unknown_job", "cannot get job 'w0!nope': it does not exist"),
        ("unsupported", "does not support CHANGE_JOB_STATE events"),
        ("past_call", "awaken in the past"),
        ("quotes", "should not contain double quotes"),
    ],
)
def test_invalid_decisions_stop_the_run_with_a_clear_error(tmp_path, mistake, expected):
    workload = write_json(tmp_path / "w1.json", W1)
    with pytest.raises(SimulationError, match="t=") as info:
        run(
            RunSpec.make(
                str(PLUGINS / "faultySched.py"),
                workload,
                4,
                tmp_path / mistake,
                options={"mistake": mistake},
                progress=False,
            ),
            say=lambda *a: None,
        )
    assert expected in str(info.value)
    only_partial(tmp_path / mistake)
    assert f"marked partial: {tmp_path / mistake}_machine_states.csv.partial" in str(info.value)


@pytest.mark.parametrize("transport", ["inprocess", "zmq"])
@pytest.mark.parametrize(
    "mistake,expected",
    [
        ("crash", ["deliberate crash at the third submission"]),
        ("exit", ["sys.exit(3)", "exited with code 3"]),
        ("hang", ["did not answer within 1 s"]),
    ],
)
def test_a_failing_scheduler_keeps_the_results_already_written(tmp_path, transport, mistake, expected):
    """A plugin that raises, calls sys.exit or hangs stops the run with a clear message naming
    the plugin, on both transports; the rows written before are kept, the outputs are complete
    files, under their partial names (nothing under the final names)."""
    doc = {
        "nb_res": 2,
        "jobs": [{"id": i, "subtime": 10 * i, "res": 1, "profile": "d1", "walltime": 5} for i in range(1, 6)],
        "profiles": {"d1": {"type": "delay", "delay": 1}},
    }
    prefix = tmp_path / mistake
    stdout = sys.stdout
    with pytest.raises(SimulationError) as info:
        run(
            RunSpec.make(
                str(PLUGINS / "faultySched.py"),
                write_json(tmp_path / "w.json", doc),
                2,
                prefix,
                transport=transport,
                options={"mistake": mistake},
                progress=False,
                scheduler_timeout_s=1.0,
            ),
            say=lambda *a: None,
        )
    message = str(info.value)
    assert "faultySched" in message and any(e in message for e in expected), message
    only_partial(prefix)
    kept = rows(prefix, ".partial")
    assert sorted(kept) == ["1", "2"]  # completed before the failure, still in _jobs.csv
    summary = (tmp_path / f"{mistake}_schedule.csv.partial").read_text().splitlines()
    assert len(summary) == 2 and summary[1].split(",")[11] == "2"  # nb_jobs
    said = {"crash": "deliberate crash", "exit": "deliberate sys.exit", "hang": "deliberate hang"}[mistake]
    assert said in (tmp_path / f"{mistake}_sched.log").read_text()
    assert sys.stdout is stdout  # the plugin's output went to its log, and the process's came back


def test_a_timeout_in_process_off_the_main_thread_is_refused_not_dropped(tmp_path):
    """The watchdog interrupts the plugin with a signal, which only the main thread receives."""
    import threading

    spec = RunSpec.make(
        str(PLUGINS / "faultySched.py"),
        write_json(tmp_path / "w1.json", W1),
        4,
        tmp_path / "r",
        options={"mistake": "hang"},
        progress=False,
        scheduler_timeout_s=1.0,
    )
    failed: list[BaseException] = []

    def in_a_thread() -> None:
        try:
            run(spec, say=lambda *a: None)
        except BaseException as error:  # handed to the test's thread
            failed.append(error)

    thread = threading.Thread(target=in_a_thread, daemon=True)  # (a hung run must not keep the worker)
    thread.start()
    thread.join(timeout=60)
    assert not thread.is_alive(), "the run hung with its timeout dropped"
    [error] = failed
    assert isinstance(error, SimulationError) and "needs the main thread" in str(error) and "zmq" in str(error)


def test_a_plugin_that_kills_the_process_leaves_the_rows_written_on_disk(tmp_path):
    """In-process, a plugin that kills its process (a signal) ends the engine too, with that
    signal's status: the rows written before are on disk, under the partial names only."""
    command = [sys.executable, "-m", "adaptsched", "run", "--scheduler", str(PLUGINS / "faultySched.py")]
    command += ["--workload", str(write_json(tmp_path / "w.json", FIVE)), "--platform", "2"]
    command += ["--out", str(tmp_path / "gone"), "--option", 'mistake="kill"', "--progress", "off"]
    done = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == -9
    assert sorted(rows(tmp_path / "gone", ".partial")) == ["1", "2"]
    assert not (tmp_path / "gone_jobs.csv").exists() and not (tmp_path / "gone_schedule.csv").exists()


def test_an_interrupted_run_leaves_its_outputs_marked_partial(tmp_path):
    """Ctrl-C in the middle of a run: exit 130, nothing under the final names, what was written
    kept under the partial names, readable; ``metrics --workload`` refuses it, counting the jobs."""
    import signal
    import time

    excerpt = REPO / "workloads" / "excerpts" / "CTC-SP2-1996-3.1-cln.first5000.swf.gz"
    prefix = tmp_path / "cut"
    command = [sys.executable, "-m", "adaptsched", "run", "--scheduler", "conservative", "--workload", str(excerpt)]
    command += ["--platform", "338", "--out", str(prefix), "--progress", "off"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    partial = Path(f"{prefix}_jobs.csv.partial")
    for _ in range(6000):  # until its first rows are on disk (60 s at most)
        if partial.is_file() and partial.read_text().count("\n") > 1:
            break
        time.sleep(0.01)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 130, err
    assert "interrupted (what the run wrote is kept, marked partial:" in out, out
    assert not list(tmp_path.glob("cut_*.csv")), list(tmp_path.iterdir())
    kept = rows(prefix, ".partial")
    assert 0 < len(kept) < 5000
    done = subprocess.run(
        [sys.executable, "-m", "adaptsched", "metrics", str(partial), "--workload", f"{prefix}_workload.json"],
        capture_output=True, text=True, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert f"{5000 - len(kept):,} of the workload's 5,000 jobs have no row" in done.stderr, done.stderr


def test_moldable_job_runs_cpu_over_n_hosts(tmp_path):
    # parallel_homogeneous_total: 8e9 flops on the hosts given, at 1 Gflop/s each.
    doc = {
        "nb_res": 4,
        "jobs": [
            {"id": 1, "subtime": 0, "res": 4, "profile": "p", "walltime": 100},
            {"id": 2, "subtime": 0, "res": 2, "profile": "p", "walltime": 100},
        ],
        "profiles": {"p": {"type": "parallel_homogeneous_total", "cpu": 8e9, "com": 0}},
    }
    plugin = REPO / "tests" / "conformance" / "plugins" / "tortureSched.py"  # runs them on res // 2 hosts
    result = run(
        RunSpec.make(
            str(plugin),
            write_json(tmp_path / "w.json", doc),
            4,
            tmp_path / "mold",
            options={"dynamic": False},
            progress=False,
        ),
        say=lambda *a: None,
    )
    jobs = rows(result.prefix)
    assert (jobs["1"]["allocated_resources"], jobs["1"]["execution_time"]) == ("0-1", "4.000000")
    assert (jobs["2"]["allocated_resources"], jobs["2"]["execution_time"]) == ("2", "8.000000")


def test_parallel_runs_do_not_collide(tmp_path):
    workload = write_json(tmp_path / "w1.json", W1)
    cli = [sys.executable, "-m", "adaptsched", "run", "--workload", str(workload), "--platform", "4"]
    processes = [
        subprocess.Popen(
            cli + ["--scheduler", s, "--out", str(tmp_path / s)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for s in ("fcfs", "easy", "conservative", "easyBackfill")
    ]
    for process in processes:
        output, _ = process.communicate(timeout=3600)  # a hang guard, not a speed check
        assert process.returncode == 0, output
    for s in ("fcfs", "easy", "conservative", "easyBackfill"):
        assert len(rows(tmp_path / s)) == 5


def test_registered_profiles_and_jobs_keep_six_decimals_as_batsim(tmp_path):
    """Batsim re-reads what a scheduler registers from its own %f text: a resized copy of a
    1 s job on 3 of 10 hosts (x 10/3) runs 3.333333 s, not 3.3333333333333335 s, so four
    rounds of copies end at 13.333332 (real Batsim 4.2.1's times), not 13.333334."""
    doc = {
        "nb_res": 10,
        "jobs": [{"id": i, "subtime": 0, "res": 10, "profile": "d1", "walltime": 100} for i in range(1, 13)],
        "profiles": {"d1": {"type": "delay", "delay": 1}},
    }
    result = run(
        RunSpec.make(
            "backfill",
            write_json(tmp_path / "w.json", doc),
            10,
            tmp_path / "q",
            options={"adaptation": "quarter"},
            progress=False,
        ),
        say=lambda *a: None,
    )
    jobs = rows(result.prefix)
    assert sorted({r["finish_time"] for r in jobs.values() if r["finish_time"]}) == [
        "13.333332",
        "3.333333",
        "6.666666",
        "9.999999",
    ]
    assert {r["requested_time"] for j, r in jobs.items() if "#" in j} == {"333.333333"}


def test_simulation_begins_in_process_is_what_json_makes_of_its_text(tmp_path):
    # 100,000 hosts: the in-process message builds the resources directly, not through text
    platform = read_platform(write_cluster(4, tmp_path / "p4.xml"))
    path = write_json(tmp_path / "w1.json", W1)

    class Python(ScriptedScheduler):
        wire = "python"

        def exchange(self, message):
            return json.loads(super().exchange(json.dumps(message)))

    text, python = ScriptedScheduler(4), Python(4)
    EmbeddedBatsim(platform, [load_workload(path)], text, str(tmp_path / "text")).run()
    EmbeddedBatsim(platform, [load_workload(path)], python, str(tmp_path / "python")).run()
    assert python.messages[0] == text.messages[0]
    assert python.messages[0]["events"][0]["data"]["compute_resources"][3]["name"] == "host3"


@pytest.mark.parametrize("nb_hosts", [1, 9, 10, 338, 1024])
def test_a_numbered_cluster_is_built_as_its_file_reads(tmp_path, nb_hosts):
    from adaptsched.platforms.simgrid import cluster_platform

    path = write_cluster(nb_hosts, tmp_path / "c.xml")
    assert cluster_platform(nb_hosts, path) == read_platform(path)


@pytest.mark.parametrize("nb_hosts", [1, 10, 338])
def test_a_powered_cluster_is_built_as_its_file_reads(tmp_path, nb_hosts):
    """``--energy`` on a number of hosts: the powered cluster (pstates, watts) is built as read
    from the file it writes, not parsed back (the hosts' speeds and properties included)."""
    from adaptsched.platforms.power import PowerSpec
    from adaptsched.platforms.simgrid import cluster_platform

    power = PowerSpec(idle_w=90.5, sleep_w=9.76)
    path = write_cluster(nb_hosts, tmp_path / "c.xml", power=power)
    built = cluster_platform(nb_hosts, path, power=power)
    assert built == read_platform(path)
    assert len(built.compute_hosts[0].pstate_speeds) == 4 and "wattage_per_state" in built.compute_hosts[-1].properties


def test_a_scheduler_process_never_started_says_so(tmp_path):
    """Waiting for a scheduler process that never started is a clear error, not an
    AttributeError on None; killing and closing it are no-ops."""
    from adaptsched.engines.transports.process import Endpoint, SchedulerProcess

    endpoint = Endpoint()
    try:
        process = SchedulerProcess("easy", {}, endpoint, tmp_path / "sched.log")
        with pytest.raises(SimulationError, match=r"scheduler process \(easy\) was never started"):
            process.wait(timeout=1)
        assert not process.alive()
        process.kill()
        process.close()
        assert "exited" not in process.describe_failure() and "still running" in process.describe_failure()
    finally:
        endpoint.close()


def test_a_scheduler_process_is_waited_for_and_killed_when_late(tmp_path):
    from adaptsched.engines.transports.process import Endpoint, SchedulerProcess

    endpoint = Endpoint()
    process = SchedulerProcess("easy", {}, endpoint, tmp_path / "sched.log")
    process.command = [sys.executable, "-c", "import time; time.sleep(60)"]
    try:
        process.start()
        assert process.alive()
        assert process.wait(timeout=0.2) != 0  # killed once the timeout passed
        assert not process.alive()
    finally:
        process.close()
        endpoint.close()
