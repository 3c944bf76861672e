"""Batsim's profiles beyond ``delay`` on the embedded engine (engines/embedded/profiles.py),
worked by hand on network-less platforms (identity with real Batsim, on platforms with a network
too: tests/conformance/test_corpus.py and test_network.py)."""

import csv
import json

import pytest

from adaptsched.engines.run import RunSpec, run
from adaptsched.errors import InputError, SimulationError
from adaptsched.platforms.simgrid import write_cluster


def run_jobs(tmp_path, jobs, profiles, nb_hosts=4, speed="1Gf"):
    path = tmp_path / "w.json"
    path.write_text(json.dumps({"nb_res": nb_hosts, "jobs": jobs, "profiles": profiles}))
    platform = write_cluster(nb_hosts, tmp_path / "p.xml", speed=speed)
    run(RunSpec.make("fcfs", path, platform, tmp_path / "out", progress=False), say=lambda *a: None)
    with open(tmp_path / "out_jobs.csv") as handle:
        return {row["job_id"]: row for row in csv.DictReader(handle)}


def job(i, profile, res=1, walltime=-1, subtime=0):
    return {"id": i, "subtime": subtime, "res": res, "profile": profile, "walltime": walltime}


def test_composed_profiles_run_their_sequence_repeat_times(tmp_path):
    profiles = {
        "d2": {"type": "delay", "delay": 2},
        "h": {"type": "parallel_homogeneous", "cpu": 3e9, "com": 0},  # 3 s on every host at 1 Gflop/s
        "c": {"type": "composed", "repeat": 3, "seq": ["d2", "h"]},
    }
    rows = run_jobs(tmp_path, [job(1, "c", res=2)], profiles)
    assert float(rows["1"]["execution_time"]) == 3 * (2 + 3)
    assert rows["1"]["final_state"] == "COMPLETED_SUCCESSFULLY"


def test_a_composed_job_deducts_whole_delays_from_its_walltime(tmp_path):
    """do_delay_task: 2 + 2 of a walltime of 5 leave 1; the third delay (2) is cut at 1."""
    profiles = {"d2": {"type": "delay", "delay": 2}, "c": {"type": "composed", "repeat": 4, "seq": ["d2"]}}
    rows = run_jobs(tmp_path, [job(1, "c", walltime=5)], profiles)
    assert float(rows["1"]["execution_time"]) == 5 and rows["1"]["final_state"] == "COMPLETED_WALLTIME_REACHED"


def test_parallel_profiles_last_as_long_as_their_slowest_host(tmp_path):
    profiles = {
        "h": {"type": "parallel_homogeneous", "cpu": 4e9, "com": 1e6},  # 4 s whatever the number of hosts
        "p": {"type": "parallel", "cpu": [1e9, 6e9, 0], "com": [0] * 9},  # the second host's 6 s
        "t": {"type": "parallel_homogeneous_total", "cpu": 8e9, "com": 0},  # 8e9 / 4 hosts / 2 Gflop/s
    }
    jobs = [job(1, "h", res=3), job(2, "p", res=3, subtime=10), job(3, "t", res=4, subtime=20)]
    rows = run_jobs(tmp_path, jobs, profiles, speed="2Gf")
    assert [float(rows[i]["execution_time"]) for i in "123"] == [2.0, 3.0, 1.0]


def test_a_parallel_profile_on_another_number_of_hosts_stops_the_run(tmp_path):
    profiles = {"p": {"type": "parallel", "cpu": [1e9, 1e9, 1e9], "com": [0] * 9}}
    with pytest.raises(SimulationError, match=r"allocation \(2\) is different from .* profile data \(3\)"):
        run_jobs(tmp_path, [job(1, "p", res=2)], profiles)


@pytest.mark.parametrize(
    "profiles,fragment",
    [
        ({"c": {"type": "composed", "seq": ["nope"]}}, "the used profile 'nope' does not exist"),
        ({"c": {"type": "composed", "seq": []}}, "'seq' must be a non-empty array"),
        ({"c": {"type": "composed", "seq": ["c"], "repeat": 0}}, "'repeat' must be an integer > 0"),
        ({"p": {"type": "parallel", "cpu": [1, 2], "com": [0, 0, 0]}}, "'com' has 3 elements, 'cpu' 2"),
        ({"p": {"type": "parallel", "cpu": [1, -2], "com": [0] * 4}}, "'cpu' must be a non-empty array of numbers"),
    ],
)
def test_bad_profiles_are_input_errors_naming_the_profile(tmp_path, profiles, fragment):
    first = next(iter(profiles))
    with pytest.raises(InputError, match=fragment):
        run_jobs(tmp_path, [job(1, first)], profiles)
