"""Schedule invariants on real trace excerpts, checked on the engine's output traces.

For fcfs, easy and conservative on the CTC-SP2 and SDSC-SP2 excerpts (embedded
engine): no host runs two jobs at once, no job starts before its submission,
every allocation has the requested size, and, from the reservations the
schedulers write in each job's metadata, EASY's head job never starts after its
reservation and conservative backfilling never starts a job after its first
reservation (reservations are only ever moved earlier).
"""

import ast
import csv

import pytest
from helpers import CTC_EXCERPT, SDSC_EXCERPT, assert_no_host_runs_two_jobs

from adaptsched.engines.run import RunSpec, run

EPS = 1e-6


def intervals(text):
    for part in text.split():
        low, _, high = part.partition("-")
        yield int(low), int(high or low)


def check_trace(jobs_csv, nb_hosts):
    with open(jobs_csv) as handle:
        jobs = list(csv.DictReader(handle))
    records = []
    for job in jobs:
        assert job["final_state"] in ("COMPLETED_SUCCESSFULLY", "COMPLETED_WALLTIME_REACHED"), job["job_id"]
        start, finish = float(job["starting_time"]), float(job["finish_time"])
        assert start >= float(job["submission_time"]) - EPS, f"job {job['job_id']} starts before its submission"
        hosts = [h for low, high in intervals(job["allocated_resources"]) for h in range(low, high + 1)]
        assert len(hosts) == int(job["requested_number_of_resources"]) and max(hosts) < nb_hosts
        records.append((start, finish, hosts))
        if job["metadata"]:
            reservation = ast.literal_eval(job["metadata"])["reservation_s"]
            assert start <= reservation + EPS, f"job {job['job_id']} starts after its reservation"
    assert_no_host_runs_two_jobs(records)
    return jobs


@pytest.mark.parametrize("trace,hosts", [(CTC_EXCERPT, 338), (SDSC_EXCERPT, 128)], ids=["CTC-SP2", "SDSC-SP2"])
@pytest.mark.parametrize("scheduler", ["fcfs", "easy", "conservative"])
def test_invariants_on_trace_excerpts(tmp_path, trace, hosts, scheduler):
    result = run(RunSpec.make(scheduler, trace, hosts, tmp_path / scheduler, progress=False), say=lambda *a: None)
    jobs = check_trace(result.jobs_csv, hosts)
    assert len(jobs) == result.nb_jobs
    reserved = sum(1 for job in jobs if job["metadata"])
    if scheduler == "conservative":
        assert reserved == len(jobs)  # every job got a reservation on arrival
    elif scheduler == "easy":
        assert reserved > 0  # head jobs that had to wait
