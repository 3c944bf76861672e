"""adaptsched sweep on real Dask (no mocks): specs, LocalCluster, a loopback Dask cluster.

* bad spec files each get their one-paragraph error naming the key, before anything runs;
* a LocalCluster sweep of 8 runs writes the same ``_jobs.csv`` as 8 direct ``adaptsched run``;
* a cluster of ``dask scheduler --host 127.0.0.1`` and two ``dask worker`` processes, each in
  its own temporary folder: a 12-run sweep through ``--scheduler-address`` completes every run
  although one worker is killed in the middle (with the only copy of the inputs), and a second
  sweep re-runs nothing.

Cluster options, addresses, job scripts and resuming: tests/test_sweep_cluster.py; workers
killed all along and a run that kills its worker: tests/test_sweep_chaos.py.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from adaptsched.cli import main
from adaptsched.sweep.report import configurations
from adaptsched.sweep.spec import parse_spec, read_spec

REPO = Path(__file__).resolve().parent.parent
EXCERPT = REPO / "workloads" / "excerpts" / "CTC-SP2-1996-3.1-cln.first5000.swf.gz"
BIN = Path(sys.executable).parent

GOOD = f"""
title = "t"
platforms = [64]

[[schedulers]]
name = "backfill"
options = {{ order = ["D", "P"], guarantees = [true, false] }}

[[workloads]]
trace = "{EXCERPT}"
first = 40
"""


def spec_file(tmp_path, text: str, name: str = "spec.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_good_spec_is_a_product_of_its_axes(tmp_path):
    spec = read_spec(spec_file(tmp_path, GOOD))
    assert len(spec.points) == 4
    assert {(p.options["order"], p.options["guarantees"]) for p in spec.points} == {
        ("D", True),
        ("D", False),
        ("P", True),
        ("P", False),
    }
    data = {
        "platforms": [16, 32],
        "engine": "embedded",
        "schedulers": [{"name": "fcfs"}, {"name": "easy", "options": {"order": ["fcfs", "sjf"]}}],
        "workloads": [{"generate": "downey", "days": 1, "load": [0.5, 0.9], "seed": [1, 2, 3]}],
    }
    assert len(parse_spec(data, tmp_path / "x.toml").points) == (1 + 2) * 6 * 2


BAD = [
    ("unknown scheduler", GOOD.replace('name = "backfill"', 'name = "bakfill"'), "schedulers[1].name", "bakfill"),
    ("unknown option", GOOD.replace("order =", "ordr ="), "schedulers[1].options.ordr", "no option"),
    ("bad option value", GOOD.replace('"P"', '"Q"'), "schedulers[1].options.order", "'Q'"),
    ("missing trace", GOOD.replace(str(EXCERPT), "nowhere/ctc.swf.gz"), "workloads[1].trace", "no such file"),
    ("empty axis", GOOD.replace('["D", "P"]', "[]"), "schedulers[1].options.order", "empty"),
    (
        "no schedulers",
        GOOD.split("[[schedulers]]")[0] + "schedulers = []\n" + GOOD.split("first = 40")[1],
        "schedulers",
        "empty",
    ),
    ("no platforms", GOOD.replace("platforms = [64]", ""), "platforms", "missing"),
    ("zero hosts", GOOD.replace("[64]", "[0]"), "platforms[1]", "at least one host"),
    ("unknown metric", GOOD + '[metrics]\ncollect = ["bsld"]\n', "metrics.collect[1]", "unknown metric"),
    ("unknown key", GOOD.replace('title = "t"', 'title = "t"\nseeds = 3'), "seeds", "unknown key"),
    ("bad engine", GOOD.replace('title = "t"', 'title = "t"\nengine = "simgrid"'), "engine", "unknown engine"),
    (
        "two workload kinds",
        GOOD.replace("first = 40", 'first = 40\ngenerate = "downey"'),
        "workloads[1]",
        "exactly one",
    ),
    ("bad first", GOOD.replace("first = 40", "first = -1"), "workloads[1].first", "whole number"),
    ("not TOML", GOOD.replace("platforms = [64]", "platforms = [64"), None, "not valid TOML"),
]


@pytest.mark.parametrize("what, text, key, words", BAD, ids=[b[0] for b in BAD])
def test_bad_spec_gets_one_paragraph_naming_the_key(tmp_path, capsys, what, text, key, words):
    spec = spec_file(tmp_path, text)
    out = tmp_path / "out"
    assert main(["sweep", str(spec), "--out", str(out)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"adaptsched sweep: error: {spec}")
    assert "\n" not in err and "Traceback" not in err
    if key is not None:
        assert f"field '{key}'" in err
    assert words in err
    assert not (out / "runs").exists()  # nothing ran


def test_missing_spec_file(tmp_path, capsys):
    assert main(["sweep", str(tmp_path / "none.toml"), "--out", str(tmp_path / "o")]) == 1
    assert "no such sweep spec file" in capsys.readouterr().err


def test_configurations_group_seeds():
    rows = [{"opt.order": o, "opt.seed": s, "m": 1.0} for o in ("P", "R") for s in (1, 2)]
    groups = configurations(["opt.order", "opt.seed"], rows)
    assert sorted(groups) == ["order=P", "order=R"]
    assert all(len(v) == 2 for v in groups.values())


@pytest.mark.slow
def test_local_cluster_sweep_equals_direct_runs(tmp_path, capsys):
    spec = spec_file(tmp_path, GOOD.replace('["D", "P"]', '["D", "P", "R", "1/L"]'))
    out = tmp_path / "sweep"
    assert main(["sweep", str(spec), "--out", str(out), "--workers", "2", "--progress", "off"]) == 0
    said = capsys.readouterr().out
    assert "8 runs: 8 done, 0 failed, 0 skipped" in said
    results = [json.loads(p.read_text()) for p in sorted((out / "runs").glob("*_result.json"))]
    assert len(results) == 8
    [workload] = (out / "inputs").glob("workload-*.json")
    platform = out / "inputs" / "cluster64.xml"
    for result in results:
        prefix = tmp_path / "direct" / result["name"]
        options = [f"--option={k}={json.dumps(v) if isinstance(v, bool) else v}" for k, v in result["options"].items()]
        command = ["run", "--scheduler", "backfill", "--workload", str(workload), "--platform", str(platform)]
        assert main(command + ["--out", str(prefix), "--progress", "off"] + options) == 0
        swept = (out / "runs" / f"{result['name']}_jobs.csv").read_text()
        assert swept == Path(f"{prefix}_jobs.csv").read_text(), result["name"]
    table = (out / "runs.csv").read_text().splitlines()
    assert len(table) == 9 and table[0].startswith("name,status,scheduler,opt.order,opt.guarantees")
    assert all(",done," in row for row in table[1:])
    assert sorted(p.name for p in out.glob("chart_*.png")) == [
        "chart_bsld_mean.png",
        "chart_response_mean_s.png",
        "chart_utilization.png",
        "chart_wait_mean_s.png",
    ]


def _start(command, folder: Path) -> subprocess.Popen:
    folder.mkdir(parents=True, exist_ok=True)
    log = open(folder / "log.txt", "w")
    return subprocess.Popen(
        command, cwd=folder, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True
    )


def _stop(process: subprocess.Popen):
    """Kills a process started by this test and everything it started (its own session)."""
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    process.wait(timeout=30)


@pytest.mark.slow
def test_distributed_sweep_survives_a_lost_worker_and_resumes(tmp_path):
    spec = spec_file(
        tmp_path,
        GOOD.replace('["D", "P"]', '["D", "P", "R", "1/L", "P/L", "R/L"]').replace("first = 40", "first = 150"),
    )
    scheduler_file = tmp_path / "scheduler" / "scheduler.json"
    processes = []
    try:
        scheduler = _start(
            [str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", "0", "--dashboard-address", "127.0.0.1:0"]
            + ["--scheduler-file", str(scheduler_file)],
            tmp_path / "scheduler",
        )
        processes.append(scheduler)
        for _ in range(600):  # hang guard only: the file appears when the scheduler listens
            if scheduler_file.is_file() and scheduler_file.stat().st_size:
                break
            assert scheduler.poll() is None, (tmp_path / "scheduler" / "log.txt").read_text()
            time.sleep(0.2)
        address = json.loads(scheduler_file.read_text())["address"]
        assert address.startswith("tcp://127.0.0.1:")
        workers = []

        def start_worker(i: int):
            folder = tmp_path / f"worker{i}"
            worker = _start(
                [str(BIN / "dask"), "worker", address, "--host", "127.0.0.1", "--nthreads", "1", "--nworkers", "1"]
                + ["--dashboard-address", "127.0.0.1:0", "--local-directory", str(folder / "dask"), "--name", f"w{i}"],
                folder,
            )
            workers.append(worker)
            processes.append(worker)

        start_worker(1)  # alone at first: it holds the only copy of the workload and platform

        out = tmp_path / "sweep"
        command = [str(BIN / "adaptsched"), "sweep", str(spec), "--out", str(out), "--scheduler-address", address]
        sweep = _start(command + ["--progress", "off"], tmp_path / "client")
        processes.append(sweep)
        killed = False
        for _ in range(30000):  # hang guard only (10 min)
            if sweep.poll() is not None:
                break
            # once 2 runs are done, and while a run of w1's is under way: its outputs exist, so its
            # start reached the scheduler before (sweep/worker.py announces it first, and waits)
            if not killed and len(list((out / "runs").glob("*_result.json"))) >= 2:
                if any((tmp_path / "worker1").glob("**/adaptsched-runs/*/*_jobs.csv*")):
                    # mid-sweep, 10 runs to go, one of them running on w1: a new worker joins, w1 dies
                    # with the only copy of the inputs, which Dask computes again for the runs left
                    start_worker(2)
                    _stop(workers[0])
                    killed = True
            time.sleep(0.02)
        log = (tmp_path / "client" / "log.txt").read_text()
        assert sweep.wait(timeout=600) == 0, log
        assert killed, log
        assert "12 runs: 12 done, 0 failed, 0 skipped" in log, log
        # a plain 'dask scheduler' (Dask's defaults): a worker holds up to 2 runs, 1 running
        assert re.search(r"worker tcp://127\.0\.0\.1:\d+ lost; [12] runs? resubmitted \(\S+ was running on it\)", log)
        assert re.search(r"1 worker lost, 1 joined, [12] runs? resubmitted", log), log
        results = sorted((out / "runs").glob("*_result.json"))
        assert len(results) == 12
        assert len(list((out / "runs").glob("*_jobs.csv"))) == 12
        assert len((out / "runs.csv").read_text().splitlines()) == 13
        stamps = {p: p.stat().st_mtime_ns for p in results}

        again = subprocess.run(
            command + ["--progress", "off"], capture_output=True, text=True, timeout=600, cwd=tmp_path / "client"
        )
        assert again.returncode == 0, again.stderr
        assert "12 runs: 12 skipped (done before), nothing to run" in again.stdout
        assert {p: p.stat().st_mtime_ns for p in results} == stamps
    finally:
        for process in reversed(processes):
            _stop(process)


CRASH = """
from batsim.batsim import BatsimScheduler


class Crash(BatsimScheduler):
    def onSimulationBegins(self):
        raise RuntimeError("deliberate crash")
"""


@pytest.mark.slow
def test_failed_run_is_retried_once_by_dask_then_reported_with_its_log(tmp_path, capsys):
    (tmp_path / "crash.py").write_text(CRASH)
    text = GOOD.replace('name = "backfill"', 'name = "crash.py"').replace('["D", "P"]', '["D"]')
    text = text.replace('options = { order = ["D"], guarantees = [true, false] }', "")
    spec = spec_file(tmp_path, text + '\n[[schedulers]]\nname = "fcfs"\n')
    out = tmp_path / "out"
    assert main(["sweep", str(spec), "--out", str(out), "--workers", "1", "--progress", "off"]) == 1
    said = capsys.readouterr()
    assert said.out.count("trying once more") == 1 and "FAILED: " in said.out
    assert "deliberate crash" in said.out  # the run's last log lines
    assert "1 of 2 runs failed" in said.err and "\n" not in said.err.strip()
    [log] = (out / "runs").glob("crash-*_sched.log")  # its log, shipped back from the worker
    assert "deliberate crash" in log.read_text()
    rows = (out / "runs.csv").read_text().splitlines()
    assert sorted(row.split(",")[1] for row in rows[1:]) == ["done", "failed"]


def test_run_key_holds_every_option_value_defaults_included(tmp_path):
    """A run is known by its options' values, defaults included: an option given at its
    default is the same run as one left out (a reproduction resumes it), another value is
    another run, and a run made before a default changed is not reused after (the key holds
    the default's value, not its absence)."""
    from adaptsched.engines.spec import RunSpec
    from adaptsched.sweep.grid import run_key

    workload, platform = tmp_path / "w.json", tmp_path / "p.xml"
    workload.write_text("{}")
    platform.write_text("<platform/>")

    def spec(scheduler="cirne-berman", **options):
        return RunSpec.make(scheduler, workload, platform, tmp_path / "r", options=options)

    assert run_key(spec()) == run_key(spec(whatif="counts")) != run_key(spec(whatif="replay"))
    assert spec().options.values()["whatif"] == "counts"
    plugin = tmp_path / "plugin.py"
    plugin.write_text("# a pybatsim plugin\n")
    assert spec(str(plugin), x=1).options.values() == {"x": 1}
    before = run_key(spec(str(plugin)))
    plugin.write_text("# another pybatsim plugin\n")
    assert run_key(spec(str(plugin))) != before  # a plugin file is known by its contents


def test_a_grid_runs_specs_with_a_host_count_on_a_client_it_is_given(tmp_path):
    """run_grid from Python: GridRuns of RunSpecs (the platform a number of hosts, keyed as the
    cluster file it stands for), on a client the caller holds; done runs are not run again."""
    from distributed import Client, LocalCluster

    from adaptsched.engines.spec import RunSpec
    from adaptsched.platforms.simgrid import write_cluster
    from adaptsched.sweep import GridRun, run_grid
    from adaptsched.sweep.grid import run_key
    from adaptsched.workloads.convert import convert_swf, write_workload

    workload = write_workload(convert_swf(EXCERPT, hosts=16, first=20)[0], tmp_path / "w.json")
    spec = RunSpec.make("easy", workload, 16, tmp_path / "out" / "easy", options={"order": "sjf"})
    assert run_key(spec) == run_key(
        RunSpec.make("easy", workload, write_cluster(16, tmp_path / "c.xml"), "x", options={"order": "sjf"})
    )
    runs = [GridRun("easy", spec), GridRun("fcfs", RunSpec.make("fcfs", workload, "16", tmp_path / "out" / "fcfs"))]
    loopback = {"dashboard_address": "127.0.0.1:0", "worker_dashboard_address": "127.0.0.1:0"}  # their HTTP servers
    with LocalCluster(n_workers=1, processes=False, **loopback) as cluster:  # messages over inproc://
        with Client(cluster, set_as_default=False) as client:
            said = []
            grid = run_grid(runs, tmp_path / "out", client=client, progress=False, say=said.append)
            assert grid.done == 2 and not grid.failed, grid.failed
            assert all(
                len((tmp_path / "out" / f"{name}_jobs.csv").read_text().splitlines()) == 21 for name in grid.results
            )
            again = run_grid(runs, tmp_path / "out", client=client, progress=False, say=said.append)
    assert again.done == 0 and again.skipped == 2 and set(again.results) == {"easy", "fcfs"}
    assert grid.results["easy"]["options"]["order"] == "sjf"


def test_reading_a_grid_does_not_import_dask_distributed():
    """``adaptsched.sweep``'s grid, job-queue and report helpers (what ``reproduce`` and its
    ``--help`` import) leave Dask's ``distributed`` (0.6 s to import) to the commands that run
    a grid: ``Where`` and ``run_grid`` come on first use."""
    import subprocess
    import sys

    code = (
        "import sys, adaptsched.reproduce.runner, adaptsched.sweep.grid, adaptsched.cli.reproduce\n"
        "assert 'distributed' not in sys.modules, 'distributed imported'\n"
        "from adaptsched.sweep import Where, run_grid\n"
        "assert 'distributed' in sys.modules and callable(run_grid) and Where.__name__ == 'Where'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
