"""A run's physics (engines/physics.py), checked at the end of every run and by ``metrics
--workload``: hand-made violations of each rule are found and name the job; a deliberately
broken scheduler (a molded copy with the wrong runtime) fails the run on every engine."""

import json
import shutil

import pytest
from helpers import PLUGINS, find_batsim

from adaptsched.analysis.invariants import check_against_workload
from adaptsched.cli import main
from adaptsched.engines.physics import check_physics, physics_error, physics_violations
from adaptsched.engines.run import RunSpec, run
from adaptsched.errors import InputError, SimulationError
from adaptsched.platforms.simgrid import write_cluster
from adaptsched.workloads.batsim_json import load_workload

HEADER = (
    "job_id,workload_name,profile,submission_time,requested_number_of_resources,requested_time,success,"
    "final_state,starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,"
    "allocated_resources,consumed_energy,metadata"
)
#: 8 hosts; job 1 rigid (4 hosts, 100 s, walltime 200); job 2 moldable (Downey, A = 4, sigma = 0,
#: so S(n) = min(n, 4): 400 s of sequential work, 100 s on its 4 hosts); job 3 evolving.
WORKLOAD = {
    "nb_res": 8,
    "jobs": [
        {"id": 1, "subtime": 0, "res": 4, "walltime": 200, "profile": "d100"},
        {
            "id": 2,
            "subtime": 0,
            "res": 4,
            "walltime": 200,
            "profile": "d100",
            "moldable": {"model": "downey", "A": 4.0, "sigma": 0.0, "t1_s": 400.0},
        },
        {"id": 3, "subtime": 5, "res": 2, "walltime": -1, "profile": "d30", "evolving": {"stages": [[10, 1], [20, 2]]}},
    ],
    "profiles": {"d100": {"type": "delay", "delay": 100}, "d30": {"type": "delay", "delay": 30}},
}


def row(job, sub, res, wall, state, start, run_s, hosts, meta=""):
    meta = f'"{meta}"' if meta else '""'
    if state == "REJECTED":
        return f"{job},w0,p,{sub},{res},{wall},0,REJECTED,,,,,,,,,{meta}"
    ok = int(state == "COMPLETED_SUCCESSFULLY")
    return f"{job},w0,p,{sub},{res},{wall},{ok},{state},{start},{run_s},{start + run_s},0,0,1,{hosts},-1,{meta}"


SOUND = [
    row(1, 0, 4, 200, "COMPLETED_SUCCESSFULLY", 0, 100, "0-3"),
    row(2, 0, 4, 200, "REJECTED", 0, 0, ""),
    row("2#1", 0, 2, 400, "COMPLETED_SUCCESSFULLY", 0, 200, "4-5", "{'parent_job': 'w0!2', 'kind': 'molded'}"),
    row(3, 5, 2, -1, "REJECTED", 0, 0, ""),
    row("3#1", 5, 1, -1, "COMPLETED_SUCCESSFULLY", 200, 10, "6", "{'parent_job': 'w0!3', 'kind': 'stage', 'stage': 0}"),
    row(
        "3#2", 5, 2, -1, "COMPLETED_SUCCESSFULLY", 210, 20, "6-7", "{'parent_job': 'w0!3', 'kind': 'stage', 'stage': 1}"
    ),
]


@pytest.fixture
def workload(tmp_path):
    path = tmp_path / "w.json"
    path.write_text(json.dumps(WORKLOAD))
    return load_workload(path)


def check(tmp_path, workload, rows):
    path = tmp_path / "x_jobs.csv"
    path.write_text("\n".join([HEADER, *rows]) + "\n")
    return check_physics(path, workload, 8).violations


def replace(index, new):
    return [new if i == index else r for i, r in enumerate(SOUND)]


def test_a_sound_run_passes(tmp_path, workload):
    assert check(tmp_path, workload, SOUND) == []


OK, WALL, KILL = "COMPLETED_SUCCESSFULLY", "COMPLETED_WALLTIME_REACHED", "COMPLETED_KILLED"


def link(job, kind, **more):
    return str({"parent_job": f"w0!{job}", "kind": kind, **more})


def job1(state=OK, run_s=100, hosts="0-3", sub=0, wall=200):
    return replace(0, row(1, sub, 4, wall, state, 0, run_s, hosts))


MOLDED = row("1#1", 0, 2, 400, OK, 100, 200, "0-1", link(1, "molded"))
RESIZED = row("1#1", 0, 2, 400, OK, 300, 150, "0-1", link(1, "resized", scale=1.5))
STAGED = row("1#1", 0, 4, 200, OK, 300, 10, "0-3", link(1, "stage", stage=0))
SLOW_COPY = row("2#1", 0, 2, 400, OK, 0, 300, "4-5", link(2, "molded"))
SLOW_STAGE = row("3#2", 5, 2, -1, OK, 210, 25, "6-7", link(3, "stage", stage=1))


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (job1(run_s=90), "job w0!1 ran 90.000000 s on 4 hosts; its profile's time is 100"),
        (job1(sub=10), "job w0!1 starts at 0.000000, before its submission at 10.000000"),
        (job1(wall=50), "job w0!1 completed after 100.000000 s, past its walltime 50"),
        (job1(state=WALL, run_s=150), "job w0!1 was killed at its walltime after 150"),
        (job1(state=KILL, run_s=150), "job w0!1 was killed after 150.000000 s, later than its end"),
        (job1(hosts="3-6"), "host 4 runs jobs w0!"),
        (job1(hosts="6-9"), "job w0!1 runs on hosts 6-9, beyond the platform's 8"),
        (replace(2, SLOW_COPY), "job w0!2 (copy w0!2#1) ran 300.000000 s on 2 hosts; its speedup model's runtime on 2"),
        ([*SOUND[:2], MOLDED], "job w0!1 has no speedup model ('moldable') but ran molded as w0!1#1 on 2 hosts"),
        ([*SOUND, RESIZED], "job w0!1: resized copy w0!1#1 on 2 hosts has scale 1.5; its work on 4 hosts needs 2"),
        ([*SOUND, STAGED], "job w0!1 has no evolving stages but ran stage copy w0!1#1 for 10.000000 s"),
        (replace(5, SLOW_STAGE), "job w0!3 (copy w0!3#2) ran 25.000000 s on 2 hosts; stage 1's duration is 20"),
    ],
)
def test_each_violation_names_the_job(tmp_path, workload, rows, message):
    found = check(tmp_path, workload, rows)
    assert any(message in v for v in found), found


def test_a_model_that_disagrees_with_its_profile_breaks_the_work(tmp_path):
    doc = json.loads(json.dumps(WORKLOAD))
    doc["jobs"][1]["moldable"]["t1_s"] = 1.0  # the default the old code took: 1 s of work, not 400
    path = tmp_path / "w.json"
    path.write_text(json.dumps(doc))
    rows = replace(
        2, row("2#1", 0, 2, 400, "COMPLETED_SUCCESSFULLY", 0, 0.5, "4-5", "{'parent_job': 'w0!2', 'kind': 'molded'}")
    )
    found = check(tmp_path, load_workload(path), rows)
    assert any("job w0!2: its molded copies did 1.000000 s of sequential work, the job holds 400" in v for v in found)


def test_a_resubmitted_copy_of_a_parallel_task_runs_it_on_its_own_hosts(tmp_path):
    """Real Batsim under the conformance suite's torture scheduler: job 22 (52 Gflop over its
    hosts, 4 asked, walltime 21 s) is killed, resubmitted by pybatsim with the same profile and
    run on 2 hosts: 26 s there, so killed at its walltime, not 13 s (its time on 4 hosts)."""
    doc = {
        "nb_res": 4,
        "jobs": [{"id": 22, "subtime": 4, "res": 4, "walltime": 21, "profile": "p"}],
        "profiles": {"p": {"type": "parallel_homogeneous_total", "cpu": 52e9, "com": 0}},
    }
    path = tmp_path / "w.json"
    path.write_text(json.dumps(doc))
    loaded = load_workload(path)
    rows = [
        row(22, 4, 4, 21, KILL, 8.001, 2.5, "2-3"),
        row("22#1", 10.502, 4, 21, WALL, 25.502, 21, "0 2", "{'parent_job': 'w0!22', 'nb_resubmit': 1}"),
    ]
    (tmp_path / "x_jobs.csv").write_text("\n".join([HEADER, *rows]) + "\n")
    assert check_physics(tmp_path / "x_jobs.csv", loaded, 4, speeds=[1e9] * 4).violations == []
    rows[1] = rows[1].replace("COMPLETED_WALLTIME_REACHED,25.502,21", "COMPLETED_SUCCESSFULLY,25.502,13")
    (tmp_path / "x_jobs.csv").write_text("\n".join([HEADER, *rows]) + "\n")
    found = check_physics(tmp_path / "x_jobs.csv", loaded, 4, speeds=[1e9] * 4).violations
    assert any("its profile's time on its 4 hosts" in v or "past its walltime" in v for v in found), found


def test_many_short_molded_copies_carry_batsims_rounding(tmp_path):
    """Downey on the CTC year: a 1 s job molded to 1/S(n) s on n hosts, runtimes at Batsim's six
    decimals (n = 61: 0.016393 s, 4.4e-7 s short, 2.7e-5 s of work); the work check allows each
    copy's tolerance times its speedup."""
    doc = {
        "nb_res": 64,
        "jobs": [
            {
                "id": 1, "subtime": 0, "res": 1, "walltime": 10, "profile": "d1",
                "moldable": {"model": "downey", "A": 64.0, "sigma": 0.0, "t1_s": 1.0},
            }
        ],
        "profiles": {"d1": {"type": "delay", "delay": 1}},
    }  # fmt: skip
    path = tmp_path / "w.json"
    path.write_text(json.dumps(doc))
    rows = [
        row(1, 0, 1, 10, "REJECTED", 0, 0, ""),
        row("1#1", 0, 61, 10, OK, 0, round(1 / 61, 6), "0-60", "{'parent_job': 'w0!1', 'kind': 'molded'}"),
    ]
    (tmp_path / "x_jobs.csv").write_text("\n".join([HEADER, *rows]) + "\n")
    assert check_physics(tmp_path / "x_jobs.csv", load_workload(path), 64).violations == []


def moldable_workload(tmp_path):
    """12 hosts, eight Downey jobs of A = 8 asking for 8 hosts, arriving together: greedy
    allocation runs the first on 8 hosts and molds the next to the 4 left."""
    jobs = [
        {
            "id": i,
            "subtime": 0,
            "res": 8,
            "walltime": 1000,
            "profile": "d100",
            "moldable": {"model": "downey", "A": 8.0, "sigma": 0.5, "t1_s": 100.0 * 8 / (1 + 0.5 * 7 / 16)},
        }
        for i in range(8)
    ]
    path = tmp_path / "moldable.json"
    path.write_text(json.dumps({"nb_res": 12, "jobs": jobs, "profiles": {"d100": {"type": "delay", "delay": 100}}}))
    return path


@pytest.mark.parametrize("transport", ["inprocess", "zmq"])
def test_a_scheduler_giving_a_copy_the_wrong_runtime_fails_its_run(tmp_path, transport):
    workload = moldable_workload(tmp_path)
    spec = RunSpec.make(
        str(PLUGINS / "wrongCopyRuntime.py"), workload, 12, tmp_path / "broken", transport=transport,
        dynamic_jobs=True, profile_reuse=True, progress=False,
    )  # fmt: skip
    with pytest.raises(SimulationError, match=r"breaks the run's physics .* job w0!\d+ \(copy w0!\d+#1\) ran"):
        run(spec, say=lambda *a: None)
    assert not (tmp_path / "broken_jobs.csv").exists()  # a failed run's outputs never look whole:
    assert (tmp_path / "broken_jobs.csv.partial").stat().st_size > len(HEADER)  # they are kept, marked
    sound = run(RunSpec.make("downey", workload, 12, tmp_path / "sound", progress=False), say=lambda *a: None)
    assert "#1" in (tmp_path / "sound_jobs.csv").read_text()  # the sound scheduler molds too
    assert physics_error(check_physics(sound.jobs_csv, load_workload(workload), 12), sound.jobs_csv) is None


def test_metrics_with_the_workload_refuses_the_broken_run(tmp_path, capsys):
    workload = moldable_workload(tmp_path)
    spec = RunSpec.make(
        str(PLUGINS / "wrongCopyRuntime.py"), workload, 12, tmp_path / "broken", dynamic_jobs=True,
        profile_reuse=True, progress=False,
    )  # fmt: skip
    with pytest.raises(SimulationError):
        run(spec, say=lambda *a: None)
    jobs_csv = str(tmp_path / "broken_jobs.csv.partial")
    assert main(["metrics", jobs_csv, "--workload", str(workload)]) == 1
    err = capsys.readouterr().err
    assert "breaks the run's physics or invariants" in err and "(copy w0!" in err and "Traceback" not in err
    assert main(["metrics", jobs_csv]) == 0  # without the workload: metrics only


def test_one_library_call_checks_any_run_from_its_prefix_workload_and_platform(tmp_path):
    """physics_violations (what ``adaptsched check`` calls): a run's prefix, _jobs.csv or folder;
    its workload as a path or loaded; its platform as a file, or a number of hosts."""
    workload = moldable_workload(tmp_path)
    broken = tmp_path / "broken"
    broken.mkdir()
    spec = RunSpec.make(
        str(PLUGINS / "wrongCopyRuntime.py"), workload, 12, broken / "run", dynamic_jobs=True,
        profile_reuse=True, progress=False,
    )  # fmt: skip
    with pytest.raises(SimulationError):
        run(spec, say=lambda *a: None)
    platform = write_cluster(12, tmp_path / "cluster.xml")
    shutil.copy(broken / "run_jobs.csv.partial", broken / "run_jobs.csv")  # as a user may, to study it
    for where in (broken / "run", broken / "run_jobs.csv", broken, broken / "run_jobs.csv.partial"):
        for what in (workload, load_workload(workload, embedded=False)):
            for machine in (12, platform):
                found = physics_violations(where, what, machine, limit=2)
                assert len(found) == 3 and found[-1].startswith("and ") and "(copy w0!" in found[0], found
    assert check_against_workload(broken / "run", workload, 12)  # invariants and physics
    sound = run(RunSpec.make("downey", workload, 12, tmp_path / "sound", progress=False), say=lambda *a: None)
    assert physics_violations(tmp_path / "sound", workload, 12) == []
    assert check_against_workload(sound.jobs_csv, workload, 12) == []
    with pytest.raises(InputError, match="no such file"):
        physics_violations(tmp_path / "nothing", workload, 12)
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="holds 0"):
        physics_violations(tmp_path / "empty", workload, 12)


@pytest.mark.skipif(find_batsim() is None, reason="real Batsim not found")
def test_real_batsim_runs_are_checked_on_their_outputs(tmp_path):
    workload = moldable_workload(tmp_path)
    spec = RunSpec.make(
        str(PLUGINS / "wrongCopyRuntime.py"), workload, 12, tmp_path / "broken", engine="batsim",
        dynamic_jobs=True, profile_reuse=True, progress=False,
    )  # fmt: skip
    with pytest.raises(SimulationError, match=r"breaks the run's physics .* \(copy w0!\d+#1\) ran"):
        run(spec, say=lambda *a: None)
    run(RunSpec.make("downey", workload, 12, tmp_path / "sound", engine="batsim", progress=False), say=lambda *a: None)


def _outputs(rng, n_jobs, nb_hosts):
    """Random attempts on ``nb_hosts`` hosts (runs of hosts, some overlapping), as physics reads them."""
    import numpy as np

    from adaptsched.engines.physics import Outputs

    allocs, starts, runtimes = [], [], []
    for _ in range(n_jobs):
        runs = []
        for _ in range(rng.randint(1, 3)):
            a = rng.randrange(nb_hosts)
            b = min(nb_hosts - 1, a + rng.choice([0, 0, 1, 3, 7]))
            runs.append(f"{a}-{b}" if b > a else f"{a}")
        allocs.append(" ".join(runs))
        starts.append(float(rng.randrange(0, 40)))
        runtimes.append(float(rng.choice([0, 1e-6, 3, 5, 10])))
    n = len(allocs)
    return Outputs(
        ["w"] * n, [str(i) for i in range(n)], ["p"] * n, np.zeros(n), ["1"] * n, np.full(n, -1.0),
        ["COMPLETED_SUCCESSFULLY"] * n, np.array(starts), np.array(runtimes), allocs, {},
    )  # fmt: skip


def test_the_host_sweep_finds_the_clashes_the_host_listing_finds(monkeypatch):
    """Beyond EXPAND_MAX_HOSTS (attempt, host) pairs the host check sweeps over runs of hosts
    instead of listing every host of every attempt (10,000 jobs of 6,000 hosts listed took 3 GB):
    on random attempts both count the same clashes, and find one exactly when the other does."""
    import random

    from adaptsched.engines import physics

    rng = random.Random(7)
    found = 0
    for case in range(400):
        nb_hosts = rng.choice([4, 16, 64])
        out = _outputs(rng, rng.randint(1, 12), nb_hosts)
        listed = physics.Physics()
        physics._hosts(listed, out, nb_hosts, limit=5)
        monkeypatch.setattr(physics, "EXPAND_MAX_HOSTS", 0)
        swept = physics.Physics()
        physics._hosts(swept, out, nb_hosts, limit=5)
        monkeypatch.setattr(physics, "EXPAND_MAX_HOSTS", 2_000_000)
        assert swept.count == listed.count, (case, out.alloc, list(out.start), list(out.runtime))
        assert bool(swept.violations) == bool(listed.violations)
        found += bool(listed.count)
    assert 50 < found < 350  # both kinds of case were drawn


# ------------------------------------------------ what ``metrics --workload`` claims, one rule at a time
#: Job 1 killed by its scheduler after 50 s of its 100 (allowed), so that a copy may complete it.
JOB1_KILLED = row(1, 0, 4, 200, KILL, 0, 50, "0-3")
#: Each case breaks one rule of those ``adaptsched metrics --workload`` claims (analysis/invariants.py,
#: engines/physics.py), on the sound run above: its rows, the workload's changes, and every problem
#: the command must report (worked by hand; the count pins that no other rule fires). Both layers
#: check hosts and submissions: each layer's wording is listed, so that each check is needed.
BROKEN_ONE_AT_A_TIME = {
    "a job without a row": (
        [r for i, r in enumerate(SOUND) if i != 3],
        None,
        ["1 of the workload's 3 jobs have no row: the run did not finish them (job w0!3)"],
    ),
    "a start before the submission": (
        job1(sub=10),
        None,
        [
            "job 1 starts at 0.0 before its submission 10.0",
            "job w0!1 starts at 0.000000, before its submission at 10.000000",
        ],
    ),
    "an allocation of another size": (
        job1(hosts="0-2"),
        None,
        ["job 1 has 3 hosts up to 2, requested 4 of 8"],
    ),
    "a host running two jobs at once": (
        job1(hosts="2-5"),
        None,
        ["host 4 runs jobs 1 and 2#1 at once (0.0 < 100.0)", "host 5 runs jobs 1 and 2#1 at once (0.0 < 100.0)",
         "host 4 runs jobs w0!1 and w0!2#1 at once (w0!2#1 starts at 0.000000, w0!1 ends at 100.000000)",
         "host 5 runs jobs w0!1 and w0!2#1 at once (w0!2#1 starts at 0.000000, w0!1 ends at 100.000000)"],
    ),
    "a job completed twice": (
        [*SOUND, row("1#1", 0, 4, 200, OK, 300, 100, "0-3", link(1, "resubmitted"))],
        None,
        ["job w0!1 completed 2 times"],
    ),
    "a completion past the walltime": (
        job1(wall=50),
        None,
        [
            "job 1 completed after running past its walltime",
            "job w0!1 completed after 100.000000 s, past its walltime 50 s",
        ],
    ),
    "a runtime other than the profile's": (
        job1(run_s=90),
        None,
        ["job w0!1 ran 90.000000 s on 4 hosts; its profile's time is 100.000000 s"],
    ),
    "a walltime kill at another time": (
        job1(state=WALL, run_s=150),
        None,
        ["job w0!1 was killed at its walltime after 150.000000 s (walltime 200 s); its profile's time is 100.000000 s"],
    ),
    "a kill after the job's end": (
        job1(state=KILL, run_s=150),
        None,
        ["job w0!1 was killed after 150.000000 s, later than its end (its profile's time: 100.000000 s)"],
    ),
    "a molded copy off its model": (  # (its work follows from its runtime: both said)
        replace(2, row("2#1", 0, 2, 400, OK, 0, 190, "4-5", link(2, "molded"))),
        None,
        ["job w0!2 (copy w0!2#1) ran 190.000000 s on 2 hosts; its speedup model's runtime on 2 hosts is 200.000000 s",
         "job w0!2: its molded copies did 380.000000 s of sequential work, the job holds 400.000000 s"],
    ),
    "a molded copy of a rigid job": (
        [row(1, 0, 4, 200, "REJECTED", 0, 0, ""), *SOUND[1:], MOLDED],
        None,
        ["job w0!1 has no speedup model ('moldable') but ran molded as w0!1#1 on 2 hosts"],
    ),
    "molded copies that do another work": (
        replace(2, row("2#1", 0, 2, 400, OK, 0, 0.5, "4-5", link(2, "molded"))),
        {"t1_s": 1.0},
        ["job w0!2: its molded copies did 1.000000 s of sequential work, the job holds 400.000000 s"],
    ),
    "a resized copy without its work": (
        [JOB1_KILLED, *SOUND[1:], RESIZED],
        None,
        ["job w0!1: resized copy w0!1#1 on 2 hosts has scale 1.5; its work on 4 hosts needs 2"],
    ),
    "a stage copy of a job without stages": (
        [JOB1_KILLED, *SOUND[1:], STAGED],
        None,
        ["job w0!1 has no evolving stages but ran stage copy w0!1#1 for 10.000000 s"],
    ),
    "a stage copy of a stage the job does not have": (
        replace(5, row("3#2", 5, 2, -1, OK, 210, 20, "6-7", link(3, "stage", stage=5))),
        None,
        ["job w0!3: stage copy w0!3#2 names stage 5 of 2"],
    ),
    "a stage off its duration": (
        replace(5, SLOW_STAGE),
        None,
        ["job w0!3 (copy w0!3#2) ran 25.000000 s on 2 hosts; stage 1's duration is 20.000000 s"],
    ),
}  # fmt: skip


def metrics_against(tmp_path, rows, model=None):
    doc = json.loads(json.dumps(WORKLOAD))
    doc["jobs"][1]["moldable"].update(model or {})
    (tmp_path / "w.json").write_text(json.dumps(doc))
    (tmp_path / "x_jobs.csv").write_text("\n".join([HEADER, *rows]) + "\n")
    return main(["metrics", str(tmp_path / "x_jobs.csv"), "--workload", str(tmp_path / "w.json"), "--hosts", "8"])


def test_metrics_with_the_workload_passes_the_sound_run_and_says_what_it_checked(tmp_path, capsys):
    assert metrics_against(tmp_path, SOUND) == 0
    err = capsys.readouterr().err
    assert "physics and invariants hold" in err and "all 3 of its jobs have a row; physics: 4 of 4 jobs timed" in err


@pytest.mark.parametrize("case", list(BROKEN_ONE_AT_A_TIME))
def test_metrics_with_the_workload_finds_each_rule_broken_alone(tmp_path, capsys, case):
    rows, model, expected = BROKEN_ONE_AT_A_TIME[case]
    assert metrics_against(tmp_path, rows, model) == 1
    err = capsys.readouterr().err
    head, _, listed = err.partition(" found): ")
    assert head.endswith(f"({len(expected)}") and all(e in listed for e in expected), err


def test_metrics_refuses_a_host_beyond_the_machine(tmp_path, capsys):
    """The machine's size (``--hosts``, or its _schedule.csv) is checked first: a clear error."""
    assert metrics_against(tmp_path, job1(hosts="5-8")) == 1
    err = capsys.readouterr().err
    assert "x_jobs.csv: field 'allocated_resources': allocates host id 8, beyond the 8 hosts given" in err, err


# ------------------------------------------------ the end-of-run check times every job of an ordinary run
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


def run_rigid(tmp_path, transport, *extra):
    path = tmp_path / "rigid.json"
    path.write_text(json.dumps(RIGID))
    command = ["run", "--scheduler", "easy", "--workload", str(path), "--platform", "4", "--out", str(tmp_path / "r")]
    return main([*command, "--transport", transport, "--progress", "off", *extra])


@pytest.mark.parametrize("transport", ["inprocess", "zmq"])
def test_an_ordinary_run_times_every_job_and_says_so(tmp_path, capsys, transport):
    assert run_rigid(tmp_path, transport) == 0
    assert "; physics: 12 of 12 jobs timed\n" in capsys.readouterr().out
    result = run(RunSpec.make("fcfs", tmp_path / "rigid.json", 4, tmp_path / "f", progress=False), say=lambda *a: None)
    assert (result.attempts, result.timed, result.physics) == (12, 12, "physics: 12 of 12 jobs timed")


@pytest.mark.parametrize("transport", ["inprocess", "zmq"])
def test_a_wrong_runtime_injected_into_the_engine_fails_an_ordinary_run(tmp_path, capsys, monkeypatch, transport):
    """The engine runs job 5 one second longer than its profile says, on a plain rigid run (no
    dynamic jobs, no profile reuse: the engine frees each profile with its last job)."""
    from dataclasses import replace as copy_with

    from adaptsched.engines.embedded.batsim import EmbeddedBatsim

    made = EmbeddedBatsim.__init__

    def doctored(self, *args, **kwargs):
        made(self, *args, **kwargs)
        self.job_profiles["w0!5"] = copy_with(self.job_profiles["w0!5"], delay=21.0)

    monkeypatch.setattr(EmbeddedBatsim, "__init__", doctored)
    assert run_rigid(tmp_path, transport) == 1
    err = capsys.readouterr().err
    assert "r_jobs.csv.partial breaks the run's physics (1 violation): job w0!5 ran 21.000000 s on 3 hosts; " in err
    assert "its profile's time is 20.000000 s" in err and not (tmp_path / "r_jobs.csv").exists()


#: One job of each profile type the embedded engine runs, on 4 hosts of 1 Gflop/s.
EVERY_PROFILE = {
    "nb_res": 4,
    "jobs": [
        {"id": "delay", "subtime": 0, "res": 1, "walltime": -1, "profile": "d"},
        {"id": "total", "subtime": 0, "res": 2, "walltime": -1, "profile": "pht"},
        {"id": "each", "subtime": 0, "res": 1, "walltime": -1, "profile": "ph"},
        {"id": "vector", "subtime": 100, "res": 2, "walltime": -1, "profile": "par"},
        {"id": "seq", "subtime": 100, "res": 2, "walltime": -1, "profile": "comp"},
        {"id": "cut", "subtime": 200, "res": 2, "walltime": 15, "profile": "comp"},
        {"id": "talks", "subtime": 300, "res": 2, "walltime": -1, "profile": "phtcom"},
    ],
    "profiles": {
        "d": {"type": "delay", "delay": 4.5},
        "pht": {"type": "parallel_homogeneous_total", "cpu": 6e9, "com": 0},  # 3 s on each of 2 hosts
        "ph": {"type": "parallel_homogeneous", "cpu": 5e9, "com": 0},  # 5 s
        "par": {"type": "parallel", "cpu": [2e9, 7e9], "com": [0, 0, 0, 0]},  # 7 s: the slower host
        "comp": {"type": "composed", "repeat": 2, "seq": ["d", "pht"]},  # 2 x (4.5 + 3) = 15 s
        "phtcom": {"type": "parallel_homogeneous_total", "cpu": 6e9, "com": 1e6},
    },
}


@pytest.mark.parametrize(("platform", "said"), [
    ("4", "physics: 7 of 7 jobs timed"),
    (
        "slow_shared.xml",
        "physics: 6 of 7 jobs timed (1 not timed: their parallel tasks communicate over the platform's network)",
    ),
])  # fmt: skip
def test_every_profile_type_is_timed_but_communications_over_a_network(tmp_path, capsys, platform, said):
    from helpers import REPO

    path = tmp_path / "every.json"
    path.write_text(json.dumps(EVERY_PROFILE))
    where = str(REPO / "tests" / "fixtures" / "platforms" / platform) if platform.endswith(".xml") else platform
    assert main(["run", "--scheduler", "fcfs", "--workload", str(path), "--platform", where, "--out",
                 str(tmp_path / "e"), "--progress", "off"]) == 0  # fmt: skip
    assert f"; {said}\n" in capsys.readouterr().out
    if platform == "4":  # the times, by hand: the check would have found any other
        times = {r.split(",")[0]: r.split(",")[9] for r in (tmp_path / "e_jobs.csv").read_text().splitlines()[1:]}
        assert times == {"delay": "4.500000", "total": "3.000000", "each": "5.000000", "vector": "7.000000",
                         "seq": "15.000000", "cut": "15.000000", "talks": "3.000000"}  # fmt: skip


@pytest.mark.parametrize(
    ("late", "said"),
    [
        ({"subtime": 1.7e15}, "field 'jobs[1].subtime': job 'late' is submitted at 1.7e+15 s, past 8,589,934,592 s"),
        (
            {"subtime": 8e9, "walltime": 6e8, "profile": "long"},
            "field 'jobs[1].walltime': job 'late' (submitted at 8e+09 s, walltime 6e+08 s) can run until 8.6e+09 s",
        ),
        (
            {"subtime": 8e9, "profile": "long"},
            "field 'jobs[1].profile': job 'late' (submitted at 8e+09 s, a 7e+08 s delay) runs until 8.7e+09 s",
        ),
    ],
)
def test_times_past_the_clocks_precision_are_refused_up_front(tmp_path, capsys, late, said):
    """Past 2^33 s a double (the clock of both engines, and Batsim's) cannot resolve a
    microsecond: at 1.7e15 s, Batsim 4.2.1 runs a 7.77 s delay for 7.75 s and says nothing
    (tests/conformance/test_run_promises.py). Refused before the run, naming the job and field."""
    doc = {
        "nb_res": 2,
        "jobs": [
            {"id": "early", "subtime": 0, "res": 1, "walltime": 100, "profile": "short"},
            {"id": "late", "subtime": 0, "res": 1, "walltime": -1, "profile": "short", **late},
        ],
        "profiles": {"short": {"type": "delay", "delay": 7.77}, "long": {"type": "delay", "delay": 7e8}},
    }
    path = tmp_path / "late.json"
    path.write_text(json.dumps(doc))
    out = tmp_path / "o"
    assert main(["run", "--scheduler", "fcfs", "--workload", str(path), "--platform", "2", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert said in err and "cannot resolve a microsecond" in err, err
    assert not list(tmp_path.glob("o_*.csv*"))  # refused before the first event
