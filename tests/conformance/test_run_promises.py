"""What a run promises, held with real Batsim 4.2.1 as with the embedded engine (fast-tier
twins: tests/test_physics.py, tests/test_plugin_exit.py, tests/test_engine.py):

* the end-of-run physics check times every job of an ordinary rigid run, and a wrong runtime
  injected into the engine (here: Batsim given a doctored workload) fails the run;
* outputs get their final names only when the run succeeded: a failed run's are kept under
  their partial names, and real Batsim's own folder is gone;
* a scheduler whose process ends before the simulation's end, even with status 0, in a
  decision or at import, fails ``run`` and ``check``, naming the plugin;
* times past 2^33 s: Batsim 4.2.1 itself rounds them (a 7.77 s delay runs 7.75 s at 1.7e15 s,
  exit status 0), as the embedded engine does; both are refused up front.

Runs only when real Batsim is present (BATSIM), like the rest of tests/conformance/.
"""

import json
import math

import pytest
from helpers import NO_BATSIM, NO_BATSIM_HELP, PLUGINS, find_batsim

import adaptsched.engines.real as real_module
from adaptsched.cli import main
from adaptsched.engines.run import RunSpec, run
from adaptsched.errors import SimulationError

BATSIM = find_batsim()
pytestmark = pytest.mark.skipif(BATSIM is None, reason=f"{NO_BATSIM}: {NO_BATSIM_HELP}")

FAULTY = str(PLUGINS / "faultySched.py")
#: 12 rigid jobs on 4 hosts, three delay profiles (job 5: 3 hosts, 20 s).
RIGID = {
    "nb_res": 4,
    "jobs": [{"id": i, "subtime": 3 * i, "res": 1 + i % 3, "walltime": 100, "profile": f"d{i % 3}"} for i in range(12)],
    "profiles": {
        "d0": {"type": "delay", "delay": 10},
        "d1": {"type": "delay", "delay": 7.5},
        "d2": {"type": "delay", "delay": 20},
    },
}
FIVE = {
    "nb_res": 2,
    "jobs": [{"id": i, "subtime": 10 * i, "res": 1, "profile": "d1", "walltime": 5} for i in range(1, 6)],
    "profiles": {"d1": {"type": "delay", "delay": 1}},
}


def write(tmp_path, name, doc):
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return str(path)


def batsim_run(tmp_path, workload, scheduler="easy", *extra):
    out = str(tmp_path / "r")
    return main(["run", "--scheduler", scheduler, "--workload", workload, "--platform", "4", "--out", out,
                 "--engine", "batsim", "--batsim", BATSIM, "--progress", "off", *extra])  # fmt: skip


def test_an_ordinary_run_on_real_batsim_times_every_job(tmp_path, capsys):
    assert batsim_run(tmp_path, write(tmp_path, "rigid.json", RIGID)) == 0
    assert "; physics: 12 of 12 jobs timed\n" in capsys.readouterr().out
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("r_")) == [
        "r_batsim.log",
        "r_jobs.csv",
        "r_machine_states.csv",
        "r_platform.xml",
        "r_sched.log",
        "r_schedule.csv",
    ]  # fmt: skip  (final names only: no partial file, no folder of Batsim's left)


def test_a_wrong_runtime_injected_into_real_batsim_fails_an_ordinary_run(tmp_path, capsys, monkeypatch):
    """Batsim runs a workload whose job 5 lasts 21 s; the run is checked against the real one (20 s)."""
    doctored = json.loads(json.dumps(RIGID))
    doctored["jobs"][5]["profile"] = "d2x"
    doctored["profiles"]["d2x"] = {"type": "delay", "delay": 21}
    wrong = write(tmp_path, "doctored.json", doctored)
    started = real_module.run_batsim
    monkeypatch.setattr(
        real_module, "run_batsim", lambda batsim, platform, _, *a, **k: started(batsim, platform, wrong, *a, **k)
    )
    assert batsim_run(tmp_path, write(tmp_path, "rigid.json", RIGID)) == 1
    err = capsys.readouterr().err
    assert "r_jobs.csv.partial breaks the run's physics (1 violation): job w0!5 ran 21.000000 s on 3 hosts" in err, err
    assert not (tmp_path / "r_jobs.csv").exists()


def test_a_failed_real_batsim_run_keeps_its_outputs_marked_partial(tmp_path):
    spec = RunSpec.make(
        FAULTY, write(tmp_path, "five.json", FIVE), 2, tmp_path / "crash", engine="batsim", batsim=BATSIM,
        options={"mistake": "crash"}, progress=False,
    )  # fmt: skip
    with pytest.raises(SimulationError) as info:
        run(spec, say=lambda *a: None)
    assert "faultySched" in str(info.value) and "marked partial" in str(info.value)
    assert not list(tmp_path.glob("crash_*.csv")) and not list(tmp_path.glob("*.partial-*"))
    # what Batsim wrote before it was stopped (it buffers its rows: maybe none of them)
    assert (tmp_path / "crash_jobs.csv.partial").is_file() and (tmp_path / "crash_machine_states.csv.partial").is_file()


@pytest.mark.parametrize("where", ["decision", "import"])
def test_a_plugin_that_ends_its_process_fails_a_real_batsim_run(tmp_path, capsys, monkeypatch, where):
    """Batsim then waits for an answer that never comes: stopped once the grace for a plugin
    that ended after its last answer is over (shortened here), the run fails, naming the plugin."""
    monkeypatch.setattr(real_module, "END_GRACE_S", 2.0)
    plugin = FAULTY if where == "decision" else str(PLUGINS / "exitsAtImport.py")
    extra = ["--option", "mistake=os_exit_0"] if where == "decision" else []
    assert batsim_run(tmp_path, write(tmp_path, "five.json", FIVE), plugin, *extra) == 1
    err = capsys.readouterr().err
    assert f"the scheduler process ({plugin}) exited with code 0" in err, err
    assert not (tmp_path / "r_jobs.csv").exists()


def test_check_on_real_batsim_fails_a_plugin_that_ends_its_process(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(real_module, "END_GRACE_S", 2.0)
    five = write(tmp_path, "five.json", FIVE)
    command = ["check", FAULTY, "--option", "mistake=os_exit_0", "--workload", five, "--engine", "batsim"]
    assert main([*command, "--batsim", BATSIM, "--shrink-time", "0", "--out", str(tmp_path / "c")]) == 1
    out = capsys.readouterr().out
    assert "FAILED: the scheduler runs without an error (crash)" in out and "exited with code 0" in out, out
    at_import = str(PLUGINS / "exitsAtImport.py")
    assert main(["check", at_import, "--engine", "batsim", "--batsim", BATSIM, "--out", str(tmp_path / "i")]) == 1
    assert "exitsAtImport.py: the plugin called os._exit(0) while loading" in capsys.readouterr().err


def test_real_batsim_rounds_times_past_two_to_the_33_as_the_embedded_engine_does(tmp_path, monkeypatch):
    """Past 2^33 s both clocks round to the double's spacing: at 1.7e15 s, a quarter of a second.
    With the refusal lifted, both engines run the 7.77 s job for 7.75 s (real Batsim with exit
    status 0) and write the same outputs; the physics check finds it on both."""
    doc = {
        "nb_res": 2,
        "jobs": [
            {"id": "a", "subtime": 1.7e15, "res": 1, "profile": "d100"},
            {"id": "b", "subtime": 1.7e15 + 0.3, "res": 1, "profile": "d777"},
        ],
        "profiles": {"d100": {"type": "delay", "delay": 100}, "d777": {"type": "delay", "delay": 7.77}},
    }
    workload = write(tmp_path, "late.json", doc)
    monkeypatch.setattr("adaptsched.engines.checks.inputs.MAX_TIME_S", math.inf)
    for engine in ("batsim", "embedded"):
        spec = RunSpec.make("fcfs", workload, 2, tmp_path / engine, engine=engine, batsim=BATSIM, progress=False)
        with pytest.raises(SimulationError, match=r"job w0!b ran 7\.750000 s on 1 hosts; its profile's time is 7\.77"):
            run(spec, say=lambda *a: None)
    assert (tmp_path / "batsim_jobs.csv.partial").read_text() == (tmp_path / "embedded_jobs.csv.partial").read_text()
    monkeypatch.undo()
    for engine in ("batsim", "embedded"):
        spec = RunSpec.make("fcfs", workload, 2, tmp_path / f"x{engine}", engine=engine, batsim=BATSIM, progress=False)
        with pytest.raises(Exception, match=r"field 'jobs\[0\]\.subtime': job 'a' is submitted at 1\.7e\+15 s"):
            run(spec, say=lambda *a: None)
