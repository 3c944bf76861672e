"""Never silently different: a run the embedded engine does not model exactly says so before
its first event, with what differs, by about how much, and ``--engine batsim``; one it cannot
run is refused; ``--engine auto`` picks the engine (engines/checks/fidelity.py)."""

import json
from pathlib import Path

import pytest

from adaptsched.engines.checks import fidelity
from adaptsched.engines.checks.fidelity import Fidelity, assess, choose_engine
from adaptsched.engines.run import RunSpec, run
from adaptsched.errors import SimulationError
from adaptsched.platforms.simgrid import read_platform, write_cluster
from adaptsched.workloads.batsim_json import load_workload

FIXTURES = Path(__file__).parent / "fixtures" / "platforms"


def workload(path, profiles, nb_res=2):
    jobs = [{"id": i, "subtime": i, "res": 1, "profile": name, "walltime": -1} for i, name in enumerate(profiles)]
    path.write_text(json.dumps({"nb_res": nb_res, "jobs": jobs, "profiles": profiles}))
    return path


def run_quietly(tmp_path, workload_path, platform, **kwargs):
    said = []
    spec = RunSpec.make("easy", workload_path, platform, tmp_path / "out", progress=False, **kwargs)
    result = run(spec, say=said.append)
    return result, "\n".join(str(s) for s in said)


def test_an_exact_run_says_nothing(tmp_path):
    path = workload(tmp_path / "w.json", {"d": {"type": "delay", "delay": 3}})
    result, said = run_quietly(tmp_path, path, write_cluster(2, tmp_path / "p.xml"))
    assert result.engine == "embedded" and "warning" not in said


def test_a_platform_whose_messages_take_time_is_modelled_and_says_nothing(tmp_path):
    """Batsim's messages over a cluster's links: modelled exactly (docs/network.md)."""
    path = workload(tmp_path / "w.json", {"d": {"type": "delay", "delay": 3}})
    result, said = run_quietly(tmp_path, path, FIXTURES / "cluster_bb.xml")
    assert result.engine == "embedded" and "warning" not in said
    first = (tmp_path / "out_jobs.csv").read_text().splitlines()[1].split(",")
    assert 0 < float(first[8]) < 0.01  # started after Batsim's messages, not at 0


def unmodelled_platform(tmp_path):
    path = tmp_path / "floyd.xml"
    path.write_text(
        """<?xml version='1.0'?>
<platform version="4.1"><zone id="z" routing="Floyd">
  <host id="master_host" speed="1Gf"/><host id="a" speed="1Gf"/><host id="b" speed="1Gf"/>
  <link id="l1" bandwidth="1MBps" latency="2ms"/><link id="l2" bandwidth="1MBps" latency="3ms"/>
  <route src="a" dst="master_host"><link_ctn id="l1"/></route>
</zone></platform>"""
    )
    return path


def test_a_platform_it_does_not_model_is_announced_with_an_estimate(tmp_path):
    path = workload(tmp_path / "w.json", {"d": {"type": "delay", "delay": 3}})
    result, said = run_quietly(tmp_path, path, unmodelled_platform(tmp_path))
    assert result.engine == "embedded"
    assert said.startswith("warning: the embedded engine does not model this run exactly")
    assert "Floyd routing (zone 'z')" in said
    assert "up to 5 ms each" in said and "job starts differ by up to about 25 ms" in said  # 2 ms + 3 ms
    assert "--engine batsim" in said


def test_a_platform_real_batsim_stops_on_is_refused(tmp_path):
    path = workload(tmp_path / "w.json", {"d": {"type": "delay", "delay": 3}})
    platform = tmp_path / "p.xml"
    platform.write_text(
        write_cluster(2, tmp_path / "q.xml")
        .read_text()
        .replace("<config>", '<config><prop id="network/coordinates" value="yes"/>')
    )
    with pytest.raises(SimulationError, match=r"unknown <config> key 'network/coordinates'.*--engine batsim"):
        run_quietly(tmp_path, path, platform)


def test_parallel_tasks_and_composed_profiles_on_a_network_are_modelled(tmp_path):
    profiles = {
        "p": {"type": "parallel_homogeneous_total", "cpu": 1e9, "com": 1e6},
        "h": {"type": "parallel_homogeneous", "cpu": 1e9, "com": 1e3},
        "c": {"type": "composed", "repeat": 2, "seq": ["h", "p"]},
    }
    path = workload(tmp_path / "w.json", profiles)
    result, said = run_quietly(tmp_path, path, FIXTURES / "cluster_bb.xml")
    assert result.engine == "embedded" and "warning" not in said


@pytest.mark.parametrize(
    "kind,why",
    [("smpi", "SMPI"), ("usage_trace", "usage traces"), ("parallel_homogeneous_pfs", "storage host")],
)
def test_profiles_it_cannot_run_are_refused_before_the_first_event(tmp_path, kind, why):
    path = workload(tmp_path / "w.json", {"d": {"type": "delay", "delay": 3}, "x": {"type": kind}})
    with pytest.raises(SimulationError) as error:
        run_quietly(tmp_path, path, write_cluster(2, tmp_path / "p.xml"))
    message = str(error.value)
    assert f"profile 'x' has type '{kind}'" in message and why in message and "--engine batsim" in message
    assert not (tmp_path / "out_jobs.csv").exists()


def test_auto_picks_the_embedded_engine_when_it_is_exact(tmp_path):
    path = workload(tmp_path / "w.json", {"d": {"type": "delay", "delay": 3}})
    result, said = run_quietly(tmp_path, path, write_cluster(2, tmp_path / "p.xml"), engine="auto")
    assert result.engine == "embedded" and said.count("warning") == 0


def test_auto_falls_back_to_the_embedded_engine_with_the_warning_without_batsim(tmp_path, monkeypatch):
    monkeypatch.setattr(fidelity, "batsim_found", lambda batsim: False)
    path = workload(tmp_path / "w.json", {"d": {"type": "delay", "delay": 3}})
    result, said = run_quietly(tmp_path, path, unmodelled_platform(tmp_path), engine="auto")
    assert result.engine == "embedded" and "warning: the embedded engine does not model" in said


def test_auto_picks_real_batsim_when_needed_and_installed():
    said = []
    inexact = Fidelity(differences=["messages take time"])
    assert choose_engine("auto", inexact, True, said.append) == "batsim"
    assert said == ["--engine auto: real Batsim, since messages take time"]
    refused = Fidelity(refusals=["profile 'x' has type 'smpi' (...)"])
    assert choose_engine("auto", refused, True, said.append) == "batsim"
    with pytest.raises(SimulationError, match="--engine batsim"):
        choose_engine("auto", refused, False, said.append)
    assert choose_engine("batsim", refused, True, said.append) == "batsim"  # never assessed


def test_assess_reads_the_loaded_workload(tmp_path):
    """The assessment reads the workload the run loaded: every profile it declares, a type
    written with escapes as any other, unused profiles too; parallel profiles sending bytes to
    their own host are refused on a platform without links only."""
    generated = read_platform(write_cluster(2, tmp_path / "p.xml"))
    plain = workload(tmp_path / "w.json", {"d": {"type": "delay", "delay": 3}})
    assert assess(generated, load_workload(plain, every_type=True)).exact
    escaped = tmp_path / "e.json"  # "smpi" written with an escape
    escaped.write_text(plain.read_text().replace('"delay", "delay"', '"\\u0073mpi", "delay"'))
    refusals = assess(generated, load_workload(escaped, every_type=True)).refusals
    assert len(refusals) == 1 and "profile 'd' has type 'smpi'" in refusals[0]
    unused = tmp_path / "u.json"  # a profile no job runs is refused all the same
    document = json.loads(plain.read_text())
    document["profiles"]["s"] = {"type": "smpi"}
    unused.write_text(json.dumps(document))
    assert assess(generated, load_workload(unused, every_type=True)).refusals
    loop = workload(tmp_path / "l.json", {"p": {"type": "parallel", "cpu": [1, 1], "com": [1, 0, 0, 0]}})
    assert "send bytes from a host to itself" in assess(generated, load_workload(loop, every_type=True)).refusals[0]
    assert assess(read_platform(FIXTURES / "cluster_bb.xml"), load_workload(loop, every_type=True)).exact


def test_a_run_reads_its_workload_once(tmp_path, monkeypatch):
    """One parsed workload for the assessment, the needs check, the engine and the end checks."""
    from adaptsched.workloads import batsim_json

    reads = []
    real = batsim_json.read_json
    monkeypatch.setattr(batsim_json, "read_json", lambda *a, **k: reads.append(a[0]) or real(*a, **k))
    path = workload(tmp_path / "w.json", {"d": {"type": "delay", "delay": 3}})
    result, _ = run_quietly(tmp_path, path, write_cluster(2, tmp_path / "p.xml"))
    assert result.engine == "embedded" and reads == [str(path)]


def test_auto_choosing_real_batsim_refuses_a_scheduler_timeout(tmp_path, monkeypatch):
    """Real Batsim waits for its scheduler without a limit: a timeout it would ignore is refused
    before the run, rather than a run that may hang with the timeout silently dropped."""
    from adaptsched.errors import UsageError

    monkeypatch.setattr(fidelity, "batsim_found", lambda batsim: True)
    path = workload(tmp_path / "w.json", {"d": {"type": "delay", "delay": 3}})
    with pytest.raises(UsageError, match=r"--engine auto chose real Batsim.*--scheduler-timeout works") as error:
        run_quietly(tmp_path, path, unmodelled_platform(tmp_path), engine="auto", scheduler_timeout_s=5.0)
    assert "--engine embedded" in str(error.value)
    assert not (tmp_path / "out_jobs.csv").exists()
