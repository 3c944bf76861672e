"""What each scheduler needs of its input (core/needs.py), checked before the first event: by
``adaptsched run`` and by the pybatsim adapter (stock pybatsim), with the same message."""

import csv
import json

import pytest
from helpers import find_batsim

from adaptsched import schedulers as registry
from adaptsched.cli import main
from adaptsched.core.needs import InputRefused, Need, check_jobs
from adaptsched.engines.run import RunSpec, run
from adaptsched.errors import AdaptschedError

#: The minimal case: two rigid jobs of 40 hosts on 64, 1,000 s each.
MINIMAL = {
    "nb_res": 64,
    "jobs": [
        {"id": "1", "subtime": 0, "res": 40, "walltime": 2000, "profile": "d1000"},
        {"id": "2", "subtime": 10, "res": 40, "walltime": 2000, "profile": "d1000"},
    ],
    "profiles": {"d1000": {"type": "delay", "delay": 1000}},
}

#: The command each scheduler's refusal names, and the option that accepts a rigid trace.
PREPARES = {
    "downey": ("mold-annotate", "rigid=keep"),
    "qops": ("qos-annotate", "deadlines=none"),
    "dvqops": ("qos-annotate", None),  # value-aware: a job without terms pays nothing, and is rejected
    "scojo-p": ("mold-annotate", "rigid=keep"),
    "cirne-berman": ("mold-annotate", "rigid=keep"),
    "evolving": ("generate evolving", "rigid=keep"),
}


def write(path, doc):
    path.write_text(json.dumps(doc))
    return path


def rows(prefix):
    with open(f"{prefix}_jobs.csv") as handle:
        return {r["job_id"]: r for r in csv.DictReader(handle)}


def quiet(*args):
    pass


@pytest.mark.parametrize("name", list(PREPARES))
def test_each_scheduler_refuses_a_rigid_trace_naming_the_command(tmp_path, name):
    workload = write(tmp_path / "rigid.json", MINIMAL)
    with pytest.raises(AdaptschedError) as refused:
        run(RunSpec.make(name, workload, 64, tmp_path / name, progress=False), say=quiet)
    command, fallback = PREPARES[name]
    message = str(refused.value)
    assert f"adaptsched {command}" in message and (fallback is None or f"--option {fallback}" in message)
    assert "none of the 2 jobs" in message and "\n" not in message
    assert not (tmp_path / f"{name}_jobs.csv").exists()  # refused before the first event
    assert isinstance(refused.value, InputRefused)


@pytest.mark.parametrize("name", ["fcfs", "easy", "conservative"])
def test_the_other_schedulers_need_nothing_more(name):
    assert registry.core_class(name).Options().needs() == ()


@pytest.mark.parametrize("name", ["backfill", "scojo-trad", "scojo-p", "cirne-berman"])
def test_planners_by_estimate_need_a_walltime_on_every_job(tmp_path, name):
    doc = json.loads(json.dumps(MINIMAL))
    doc["jobs"][1]["walltime"] = -1
    if name in ("scojo-p", "cirne-berman"):
        doc["jobs"][0]["moldable"] = {"model": "scojo-p", "runtime_opt_s": 1000.0, "n_opt": 40}
    workload = write(tmp_path / "w.json", doc)
    with pytest.raises(InputRefused, match=r"1 of the 2 jobs .* have none \(first: job 2\).*adaptsched estimates"):
        run(RunSpec.make(name, workload, 64, tmp_path / "b", progress=False), say=quiet)


def test_evolving_cbf_needs_no_stages_but_a_walltime():
    (need,) = registry.core_class("evolving").Options.parse({"variant": "cbf"}).needs()
    assert not need.required and check_jobs(need, [{"id": 1, "walltime": 10}], "w.json", "evolving").note is None
    with pytest.raises(InputRefused, match="job 2 has neither evolving stages nor a walltime"):
        check_jobs(need, [{"id": 2, "walltime": -1}], "w.json", "evolving")


@pytest.mark.parametrize("name", [name for name, (_, fallback) in PREPARES.items() if fallback])
def test_the_fallback_option_runs_a_rigid_trace_as_it_is(tmp_path, name):
    """Each rigid job keeps its request and its runtime (the minimal case under downey:
    job 2 runs 1,000 s on 40 hosts, never molded to the 24 free ones)."""
    workload = write(tmp_path / "rigid.json", MINIMAL)
    fallback = dict([PREPARES[name][1].split("=")])
    result = run(RunSpec.make(name, workload, 64, tmp_path / name, options=fallback, progress=False), say=quiet)
    out = rows(result.prefix)
    assert sorted(out) == ["1", "2"]  # no copy
    for row in out.values():
        assert row["final_state"] == "COMPLETED_SUCCESSFULLY"
        assert float(row["execution_time"]) == 1000 and row["requested_number_of_resources"] == "40"
    assert float(out["2"]["starting_time"]) >= 1000  # it waited for its 40 hosts


def test_downey_on_the_minimal_case_through_the_command_line(tmp_path, capsys):
    workload = write(tmp_path / "min.json", MINIMAL)
    out = str(tmp_path / "d")
    assert main(["run", "--scheduler", "downey", "--workload", str(workload), "--platform", "64", "--out", out]) == 1
    err = capsys.readouterr().err
    assert err.startswith("adaptsched run: error: scheduler 'downey' needs moldable jobs")
    assert f"adaptsched mold-annotate {workload} OUT.json" in err and err.count("\n") == 1
    assert main(["run", "--scheduler", "downey", "--workload", str(workload), "--platform", "64", "--out", out,
                 "--option", "rigid=keep"]) == 0  # fmt: skip
    job2 = rows(out)["2"]
    assert (job2["allocated_resources"], job2["execution_time"]) == ("0-39", "1000.000000")


def partly():
    doc = json.loads(json.dumps(MINIMAL))
    doc["jobs"].append(
        {
            "id": "3",
            "subtime": 20,
            "res": 8,
            "walltime": 2000,
            "profile": "d1000",
            "moldable": {"model": "downey", "A": 8.0, "sigma": 0.0, "t1_s": 8000.0},
        }
    )
    return doc


def test_partly_fitting_input_says_how_many_jobs_of_each_kind(tmp_path):
    workload = write(tmp_path / "partly.json", partly())
    said = []
    result = run(RunSpec.make("downey", workload, 64, tmp_path / "d", progress=False), say=said.append)
    note = next(line for line in said if "downey:" in line)
    assert "1 of the 3 jobs" in note and "2 are not" in note and "keep their request and their runtime" in note
    out = rows(result.prefix)
    assert float(out["2"]["execution_time"]) == 1000 and out["2"]["allocated_resources"] == "0-39"


def test_a_model_the_scheduler_does_not_read_is_named():
    need = registry.core_class("scojo-p").Options().needs()[0]
    jobs = [{"id": "a", "moldable": {"model": "linear", "t1_s": 10.0}}]
    with pytest.raises(InputRefused, match="1 carry a model scojo-p does not read \\(first: job a: 'linear'\\)"):
        check_jobs(need, jobs, "w.json", "scojo-p")


def test_a_model_without_its_parameters_is_refused_even_with_the_fallback():
    (need,) = registry.core_class("downey").Options.parse({"rigid": "keep"}).needs()
    jobs = [{"id": "a", "moldable": {"model": "downey", "A": 4, "sigma": 0.5}}]  # t1_s would default to 1 s
    with pytest.raises(InputRefused, match=r"w\.json: job a: its 'moldable' model 'downey' lacks 't1_s'"):
        check_jobs(need, jobs, "w.json", "downey")


def test_a_job_asking_for_no_host_gets_a_note(tmp_path):
    doc = json.loads(json.dumps(MINIMAL))
    doc["jobs"][1]["res"] = 0
    said = []
    result = run(RunSpec.make("easy", write(tmp_path / "w.json", doc), 64, tmp_path / "e"), say=said.append)
    assert any("1 job asks for no host (res 0: job 2)" in line and "REJECTED" in line for line in said)
    assert rows(result.prefix)["2"]["final_state"] == "REJECTED"


class FakeBatsim:
    """What the adapter reads of pybatsim's Batsim at SIMULATION_BEGINS."""

    nb_compute_resources = 64
    dynamic_job_registration_enabled = True

    def __init__(self, workload):
        self.workloads = {"w0": str(workload)}


def test_the_plugin_refuses_at_simulation_start_with_the_same_message(tmp_path):
    """Under stock pybatsim (real Batsim), the adapter makes the same check from the workload
    files Batsim names, and stops with the message and exit status 1, no traceback."""
    from batsim.tools.launcher import instanciate_scheduler

    workload = write(tmp_path / "rigid.json", MINIMAL)
    with pytest.raises(AdaptschedError) as by_run:
        run(RunSpec.make("qops", workload, 64, tmp_path / "q", progress=False), say=quiet)
    plugin = instanciate_scheduler(str(registry.plugin_path("qops")), {})
    plugin.bs = FakeBatsim(workload)
    with pytest.raises(SystemExit) as by_plugin:
        plugin.onSimulationBegins()
    assert str(by_plugin.value) == f"qops: error: {by_run.value}"
    plugin = instanciate_scheduler(str(registry.plugin_path("qops")), {"deadlines": "none"})
    plugin.bs = FakeBatsim(workload)
    plugin.onSimulationBegins()  # accepted as it is


@pytest.mark.skipif(find_batsim() is None, reason="real Batsim not found")
def test_stock_pybatsim_refuses_before_the_first_event_against_real_batsim(tmp_path):
    import os
    import subprocess
    import sys

    workload = write(tmp_path / "rigid.json", MINIMAL)
    platform = tmp_path / "p.xml"
    from adaptsched.platforms.simgrid import write_cluster

    write_cluster(64, platform)
    socket = f"ipc://{tmp_path}/s.sock"
    plugin = subprocess.Popen(
        [sys.executable, "-m", "batsim.cmds.launcher", str(registry.plugin_path("downey")), "-s", socket],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env=dict(os.environ, PYTHONUNBUFFERED="1"),
    )
    batsim = subprocess.Popen(
        [
            find_batsim(),
            "-p",
            str(platform),
            "-w",
            str(workload),
            "-e",
            str(tmp_path / "out"),
            "-s",
            socket,
            "--enable-dynamic-jobs",
            "--enable-profile-reuse",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, err = plugin.communicate(timeout=60)
    batsim.kill()
    batsim.wait()
    assert plugin.returncode == 1 and "Traceback" not in err
    assert "downey: error: scheduler 'downey' needs moldable jobs" in err and "mold-annotate" in err


def test_need_declarations_name_a_command_and_a_fallback():
    for name, (_, fallback) in PREPARES.items():
        need = registry.core_class(name).Options().needs()[0]
        assert isinstance(need, Need) and need.required and need.fallback == fallback
        assert need.command.startswith("adaptsched ")
        if fallback:
            key, value = fallback.split("=")
            assert registry.core_class(name).Options.parse({key: value}).needs()[0].required is False


def test_value_aware_qops_has_no_fallback():
    from adaptsched.core.options import OptionError

    with pytest.raises(OptionError, match="value-aware QoPS rejects every job without terms"):
        registry.core_class("qops").Options.parse({"value_aware": "true", "deadlines": "none"})
    assert "deadlines" not in {spec.name for spec in registry.core_class("dvqops").Options.specs()}
