"""A scheduler whose process ends before the simulation's end fails ``run`` and ``check`` (exit
1, a message naming the plugin), even when it ends with status 0: in a decision or at import,
in-process (engines/plugin_exit.py: ``os._exit`` raises while the plugin runs) and over ZeroMQ
(the engine sees its process gone). Real Batsim's: tests/conformance/test_run_promises.py.

Each command runs in a process of its own: were the guard gone, the plugin would end that
process with status 0, which the test sees, rather than end the test run."""

import json
import os
import subprocess
import sys
import threading

import pytest
from helpers import PLUGINS

from adaptsched.engines.plugin_exit import PluginExit, guarded

FIVE = {
    "nb_res": 2,
    "jobs": [{"id": i, "subtime": 10 * i, "res": 1, "profile": "d1", "walltime": 5} for i in range(1, 6)],
    "profiles": {"d1": {"type": "delay", "delay": 1}},
}
FAULTY = str(PLUGINS / "faultySched.py")
AT_IMPORT = str(PLUGINS / "exitsAtImport.py")


def adaptsched(tmp_path, *words):
    command = [sys.executable, "-m", "adaptsched", *map(str, words)]
    return subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=600)


def five(tmp_path):
    path = tmp_path / "five.json"
    path.write_text(json.dumps(FIVE))
    return path


@pytest.mark.parametrize("transport", ["inprocess", "zmq"])
@pytest.mark.parametrize("mistake", ["os_exit", "os_exit_0"])
def test_run_fails_when_the_plugin_ends_its_process_in_a_decision(tmp_path, transport, mistake):
    out = tmp_path / "gone"
    done = adaptsched(
        tmp_path, "run", "--scheduler", FAULTY, "--workload", five(tmp_path), "--platform", 2, "--out", out,
        "--option", f'mistake="{mistake}"', "--progress", "off", "--transport", transport,
    )  # fmt: skip
    code = "0" if mistake == "os_exit_0" else "4"
    said = f"called os._exit({code})" if transport == "inprocess" else f"exited with code {code}"
    assert done.returncode == 1 and "faultySched.py" in done.stderr and said in done.stderr, done.stderr
    assert not (tmp_path / "gone_jobs.csv").exists()
    kept = (tmp_path / "gone_jobs.csv.partial").read_text().splitlines()
    assert [line.split(",")[0] for line in kept[1:]] == ["1", "2"]  # ended before the third submission


@pytest.mark.parametrize("transport", ["inprocess", "zmq"])
def test_run_fails_when_the_plugin_ends_its_process_at_import(tmp_path, transport):
    done = adaptsched(
        tmp_path, "run", "--scheduler", AT_IMPORT, "--workload", five(tmp_path), "--platform", 2,
        "--out", tmp_path / "gone", "--progress", "off", "--transport", transport,
    )  # fmt: skip
    said = "called os._exit(0) while loading" if transport == "inprocess" else "exited with code 0"
    assert done.returncode == 1 and "exitsAtImport.py" in done.stderr and said in done.stderr, done.stderr
    assert not (tmp_path / "gone_jobs.csv").exists()


@pytest.mark.parametrize("transport", ["inprocess", "zmq"])
def test_check_fails_when_the_plugin_ends_its_process_in_a_decision(tmp_path, transport):
    done = adaptsched(
        tmp_path, "check", FAULTY, "--option", "mistake=os_exit_0", "--workload", five(tmp_path),
        "--transport", transport, "--out", tmp_path / "c",
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    assert "FAILED: the scheduler runs without an error (crash)" in done.stdout, done.stdout
    said = "called os._exit(0)" if transport == "inprocess" else "exited with code 0"
    assert "faultySched.py" in done.stdout and said in done.stdout, done.stdout


@pytest.mark.parametrize("transport", ["inprocess", "zmq"])
def test_check_fails_when_the_plugin_ends_its_process_at_import(tmp_path, transport):
    """``check`` reads a plugin file's options in its own process (schedulers/loader.py): an
    os._exit there is an input error naming the file, whichever transport the runs use."""
    done = adaptsched(tmp_path, "check", AT_IMPORT, "--transport", transport, "--out", tmp_path / "c")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "exitsAtImport.py: the plugin called os._exit(0) while loading" in done.stderr, done.stderr


def test_the_guard_holds_only_in_its_thread_and_process():
    """os._exit raises in the guarded thread only: another thread's (a Dask worker's) and a
    forked child's keep their meaning; outside the guard, os._exit is the real one again."""
    real = os._exit
    with guarded():
        with guarded():  # nested: still in force after the inner one ends
            pass
        with pytest.raises(PluginExit) as stop:
            os._exit(3)
        assert stop.value.code == 3
        ended: list[BaseException] = []

        def elsewhere():
            try:
                child = os.fork()
            except BaseException as error:  # pragma: no cover - reported below
                ended.append(error)
                return
            if child == 0:
                os._exit(7)  # the child's real end
            ended.append(os.waitpid(child, 0)[1])

        thread = threading.Thread(target=elsewhere)
        thread.start()
        thread.join()
        assert ended and os.waitstatus_to_exitcode(ended[0]) == 7
        child = os.fork()  # from the guarded thread itself
        if child == 0:
            os._exit(5)
        assert os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]) == 5
    assert os._exit is real
