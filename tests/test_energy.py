"""Energy in the analysis and the run's checks: the metrics' energy columns on a run worked by
hand, and energy conservation (engines/embedded/energy_balance.py) holding on a run with sleep
states and failing on outputs that lose or add a joule."""

import json
import shutil
from pathlib import Path

import pytest

from adaptsched.analysis import compute_metrics, format_metrics
from adaptsched.engines.embedded.energy_balance import energy_balance
from adaptsched.engines.run import RunSpec, run
from adaptsched.platforms.power import PowerSpec
from adaptsched.platforms.simgrid import read_platform, write_cluster

REPO = Path(__file__).resolve().parent.parent
IDLE_OFF = str(REPO / "examples" / "schedulers" / "my_idle_off.py")

# Real Batsim 4.2.1's outputs (-E) of Batsim's test_energy_minimal_load100.json on
# energy_platform_homogeneous_no_net_128.xml under EASY: two 2-host jobs of 1e9 flops at 1e8
# flop/s (10 s at 190.738 W per host), submitted at 0 and 100 s, on 128 hosts idle at 95 W.
JOBS_CSV = """\
job_id,workload_name,profile,submission_time,requested_number_of_resources,requested_time,success,final_state,\
starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,allocated_resources,consumed_energy,metadata
0,w0,ptask_prof,0.000000,2,1000.000000,1,COMPLETED_SUCCESSFULLY,0.000000,10.000000,10.000000,0.000000,10.000000,\
1.000000,0-1,3814.760000,""
1,w0,ptask_prof,100.000000,2,1000.000000,1,COMPLETED_SUCCESSFULLY,100.000000,10.000000,110.000000,0.000000,\
10.000000,1.000000,0-1,3814.760000,""
"""
SCHEDULE_CSV = """\
batsim_version,consumed_joules,makespan,max_slowdown,max_turnaround_time,max_waiting_time,mean_slowdown,\
mean_turnaround_time,mean_waiting_time,nb_computing_machines,nb_grouped_switches,nb_jobs,nb_jobs_finished,\
nb_jobs_killed,nb_jobs_rejected,nb_jobs_success,nb_machine_switches,scheduling_time,simulation_time,success_rate,\
time_computing,time_idle,time_sleeping,time_switching_off,time_switching_on,time_unavailable
4.2.1,1341429.520000,110.000000,1.000000,10.000000,0.000000,1.000000,10.000000,0.000000,128,0,2,2,0,0,2,0,\
0.653455,0.763588,1.000000,40.000000,180.000000,0.000000,0.000000,0.000000,0.000000
"""


def write_run(folder: Path, jobs: str = JOBS_CSV) -> Path:
    (folder / "r_jobs.csv").write_text(jobs)
    (folder / "r_schedule.csv").write_text(SCHEDULE_CSV)
    return folder / "r_jobs.csv"


def test_energy_metrics_worked_by_hand(tmp_path):
    overall = compute_metrics(write_run(tmp_path))["overall"]
    # 128 hosts x 95 W x 110 s, plus 2 jobs x 2 hosts x 10 s x (190.738 - 95) W
    assert overall["energy_j"] == pytest.approx(1_337_600 + 3829.52, abs=1e-6)
    assert overall["energy_kwh"] == pytest.approx(1_341_429.52 / 3.6e6)
    assert overall["mean_power_w"] == pytest.approx(1_341_429.52 / 110)
    assert overall["jobs_energy_j"] == pytest.approx(2 * 2 * 10 * 190.738)
    assert overall["job_energy_mean_j"] == pytest.approx(2 * 10 * 190.738)
    assert overall["energy_outside_jobs_j"] == pytest.approx(95 * (128 * 110 - 40))  # idle host-seconds
    assert overall["energy_per_node_s_j"] == pytest.approx(1_341_429.52 / 40)  # 40 busy host-seconds
    text = format_metrics(compute_metrics(write_run(tmp_path)))
    assert "| energy (Batsim's consumed_joules) | 1,341,430 J (0.4 kWh) |" in text
    assert "| mean power | 12,194.8 W |" in text


def test_no_energy_columns_without_the_energy_model(tmp_path):
    jobs = JOBS_CSV.replace("3814.760000", "-1.000000")  # Batsim without -E
    metrics = compute_metrics(write_run(tmp_path, jobs))
    assert metrics["overall"]["energy_j"] is None and metrics["overall"]["mean_power_w"] is None
    assert "energy" not in format_metrics(metrics)


# -- energy conservation ---------------------------------------------------------------------------
WORKLOAD = {
    "nb_res": 8,
    "jobs": [
        {"id": "a", "subtime": 0, "walltime": 100, "res": 2, "profile": "d10"},
        {"id": "b", "subtime": 50, "walltime": 100, "res": 4, "profile": "d20"},
        {"id": "c", "subtime": 400, "walltime": 100, "res": 2, "profile": "ptask"},
    ],
    "profiles": {
        "d10": {"type": "delay", "delay": 10},
        "d20": {"type": "delay", "delay": 20},
        "ptask": {"type": "parallel_homogeneous", "cpu": 1e10, "com": 0},
    },
}


@pytest.fixture(scope="module")
def slept(tmp_path_factory):
    """A run of the idle switch-off plugin (idle_s=0) on 8 powered hosts: hosts sleep and wake."""
    folder = tmp_path_factory.mktemp("slept")
    (folder / "w.json").write_text(json.dumps(WORKLOAD))
    platform = write_cluster(8, folder / "p.xml", power=PowerSpec())
    spec = RunSpec.make(
        IDLE_OFF, folder / "w.json", platform, folder / "r", options={"idle_s": 0.0}, energy=True, progress=False
    )
    run(spec, say=lambda *a: None)  # the balance is checked at the end of the run too
    pstates = (folder / "r_pstate_changes.csv").read_text()
    assert ",-2" in pstates and ",-1" in pstates  # hosts went to sleep and woke up
    return folder


def test_energy_is_conserved_with_sleep_states(slept):
    balance = energy_balance(str(slept / "r"), read_platform(slept / "p.xml"))
    assert not balance.skipped and balance.holds
    assert abs(balance.error_j) < 1e-6 < balance.bound_j < 5  # %g times of a few hundred seconds
    assert balance.outside_j > 0 and balance.jobs_j > 0


@pytest.mark.parametrize("change", ["job", "sleep_watts"])
def test_a_lost_joule_breaks_the_balance(slept, tmp_path, change):
    for path in slept.iterdir():
        shutil.copy(path, tmp_path / path.name)
    if change == "job":  # one job 10 J too high
        jobs = (tmp_path / "r_jobs.csv").read_text().splitlines()
        fields = jobs[1].split(",")
        fields[15] = f"{float(fields[15]) + 10:.6f}"
        jobs[1] = ",".join(fields)
        (tmp_path / "r_jobs.csv").write_text("\n".join(jobs) + "\n")
        platform = tmp_path / "p.xml"
    else:  # the check reads 9.76 W asleep where the meter drew 9.75 W
        platform = write_cluster(8, tmp_path / "other.xml", power=PowerSpec(sleep_w=9.76))
    balance = energy_balance(str(tmp_path / "r"), read_platform(platform))
    assert not balance.holds, balance
    assert "energy is not conserved" in balance.message("r")


# -- sweeps ----------------------------------------------------------------------------------------
SWEEP = {
    "platforms": [16],
    "schedulers": [{"name": "easy"}],
    "workloads": [{"generate": "downey", "days": 1, "load": 0.5, "seed": 1}],
}


def test_a_sweep_with_energy_collects_it_beside_wait_and_slowdown(tmp_path):
    from adaptsched.sweep.spec import DEFAULT_COLLECT, parse_spec

    plain = parse_spec(SWEEP, tmp_path / "x.toml")
    assert not plain.energy and plain.metrics.collect == DEFAULT_COLLECT
    spec = parse_spec({**SWEEP, "energy": True}, tmp_path / "x.toml")
    assert spec.energy and spec.metrics.collect[: len(DEFAULT_COLLECT)] == DEFAULT_COLLECT
    assert {"energy_kwh", "mean_power_w"} <= set(spec.metrics.collect)
    chosen = parse_spec({**SWEEP, "energy": True, "metrics": {"collect": ["wait_mean_s"]}}, tmp_path / "x.toml")
    assert chosen.metrics.collect == ("wait_mean_s",)  # a collect given is kept as given


def test_a_sweep_energy_value_must_be_a_boolean(tmp_path):
    from adaptsched.errors import AdaptschedError
    from adaptsched.sweep.spec import parse_spec

    with pytest.raises(AdaptschedError, match=r"energy.*true or false"):
        parse_spec({**SWEEP, "energy": "yes"}, tmp_path / "x.toml")


def test_machine_state_counts_follow_every_change():
    """A ``_machine_states.csv`` row's counts, kept as the states change (no count over all the
    machines per row), equal the machines' states counted anew, through job starts and ends on
    slices and on scattered ids, then sleeping and switching states (the counts' slower path)."""
    import numpy as np

    from adaptsched.engines.embedded.machines import COMPUTING, IDLE, NAMES, MachineStates

    rng = np.random.default_rng(7)
    states = MachineStates(40)
    for step in range(600):
        if rng.random() < 0.5:
            low = int(rng.integers(0, 39))
            sel = slice(low, int(rng.integers(low + 1, 41)))
        else:
            sel = np.unique(rng.integers(0, 40, size=int(rng.integers(1, 12))))
        new = int(rng.integers(0, len(NAMES))) if step > 300 else int(rng.choice([IDLE, COMPUTING]))
        states.change(sel, new, float(step))
        counts = np.bincount(states.state, minlength=len(NAMES))
        sleeping, on, off, idle, computing = states.row()
        assert (sleeping, on, off, idle, computing) == (counts[2], counts[3], counts[4], counts[0], counts[1])
