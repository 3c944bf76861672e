"""The embedded engine's two transports write the same outputs, byte for byte.

In-process (the plugin and pybatsim's ``Batsim`` object in the engine's process, Python
structures both ways) and ZeroMQ (a second process, JSON text): for every scheduler and
workload of the conformance suite (test_conformance.py), ``_jobs.csv`` and
``_machine_states.csv`` are byte-identical, and so is ``_schedule.csv`` except its two
wall-clock columns (``scheduling_time``, ``simulation_time``: seconds of this machine's time,
which differ between any two runs). No real Batsim needed.

pybatsim's fillerSched iterates over a set of job objects, so its choices depend on where
its objects are in memory: over ZeroMQ it runs without address randomisation (reproducible
from run to run), but in the engine's process the addresses are the engine's, so its outputs
cannot equal the ZeroMQ run's; for it this test checks that both transports run the same jobs
to completion on valid schedules (docs/engines.md).
"""

import csv
import json

import pytest
from helpers import CTC_EXCERPT, assert_no_host_runs_two_jobs
from test_conformance import SPECULATIVE, TORTURE, random_workload

from adaptsched.engines.run import RunSpec, run
from adaptsched.formats.intervals import parse_hosts
from adaptsched.platforms.simgrid import write_cluster
from adaptsched.workloads.convert import convert_swf, write_workload

pytestmark = pytest.mark.slow

WALL_CLOCK = ("scheduling_time", "simulation_time")
ADDRESS_DEPENDENT = ("fillerSched",)


def schedule_without_wall_clock(prefix):
    with open(f"{prefix}_schedule.csv") as handle:
        (row,) = csv.DictReader(handle)
    return {k: v for k, v in row.items() if k not in WALL_CLOCK}


def valid_schedule(prefix):
    with open(f"{prefix}_jobs.csv") as handle:
        rows = list(csv.DictReader(handle))
    executed = [r for r in rows if r["starting_time"]]
    assert all(float(r["starting_time"]) >= float(r["submission_time"]) for r in executed)
    assert_no_host_runs_two_jobs(
        [
            (float(r["starting_time"]), float(r["finish_time"]), set(parse_hosts(r["allocated_resources"])))
            for r in executed
        ]
    )
    return {r["job_id"]: r["final_state"] for r in rows}


def both_transports(tmp_path, name, scheduler, workload, platform, **kwargs):
    prefixes = {}
    for transport in ("zmq", "inprocess"):
        prefix = tmp_path / f"{name}_{transport}"
        run(
            RunSpec.make(
                scheduler,
                workload,
                platform,
                prefix,
                transport=transport,
                progress=False,
                fixed_addresses=True,
                **kwargs,
            ),
            say=lambda *a: None,
        )
        prefixes[transport] = prefix
    zmq, inprocess = prefixes["zmq"], prefixes["inprocess"]
    if scheduler in ADDRESS_DEPENDENT:
        assert sorted(valid_schedule(zmq)) == sorted(valid_schedule(inprocess))
        return
    for output in ("jobs.csv", "machine_states.csv"):
        a, b = open(f"{zmq}_{output}").read(), open(f"{inprocess}_{output}").read()
        assert a == b, f"_{output} differs between the transports"
    assert schedule_without_wall_clock(zmq) == schedule_without_wall_clock(inprocess)


@pytest.fixture(scope="module")
def ctc(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ctc")
    workload, _ = convert_swf(CTC_EXCERPT, hosts=338, first=1500)
    return write_workload(workload, folder / "ctc.json"), write_cluster(338, folder / "p338.xml")


@pytest.mark.parametrize(
    "scheduler,options",
    [
        ("fillerSched", {}),
        ("easyBackfill", {}),
        ("fcfs", {}),
        ("easy", {}),
        ("conservative", {}),
        ("backfill", {"order": "R/L", "guarantees": False, "seed": 5}),
        ("backfill", {"order": "P/L", "seed": 5}),
        ("backfill", {"order": "1/L", **SPECULATIVE}),
        ("backfill", {"order": "R/L", "guarantees": False, **SPECULATIVE}),
        ("backfill", {"adaptation": "quarter"}),
        ("backfill", {"adaptation": "greedy", "order": "P/L", "seed": 5}),
        ("backfill", {"order": "R/L", "guarantees": False, "adaptation": "half", "widening": True, **SPECULATIVE}),
    ],
    ids=[
        "fillerSched",
        "easyBackfill",
        "fcfs",
        "easy",
        "conservative",
        "R/L-NG",
        "P/L",
        "1/L+speculation",
        "R/L-NG+speculation",
        "quarter",
        "P/L+greedy",
        "R/L-NG+half+widening+speculation",
    ],
)
def test_ctc_excerpt(tmp_path, ctc, scheduler, options):
    both_transports(tmp_path, scheduler, scheduler, *ctc, options=options)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("scheduler", ["fillerSched", "easyBackfill", "easy", "conservative"])
def test_walltime_kills_and_coinciding_events(tmp_path, seed, scheduler):
    nb_res = (2, 4, 8, 3)[seed]
    workload = random_workload(tmp_path / "w.json", seed, nb_res)
    both_transports(tmp_path, "wk", scheduler, workload, write_cluster(nb_res, tmp_path / "p.xml"))


@pytest.mark.parametrize("seed", range(6))
def test_kills_resubmissions_and_dynamic_registration(tmp_path, seed):
    nb_res = (2, 4, 8)[seed % 3]
    workload = random_workload(tmp_path / "w.json", 100 + seed, nb_res, nb_jobs=30, moldable=True)
    both_transports(
        tmp_path,
        "dyn",
        TORTURE,
        workload,
        write_cluster(nb_res, tmp_path / "p.xml"),
        options={"dynamic": True},
        dynamic_jobs=True,
        profile_reuse=True,
    )


@pytest.mark.parametrize("seed", range(3))
def test_kills_and_moldable_jobs_without_dynamic_jobs(tmp_path, seed):
    workload = random_workload(tmp_path / "w.json", 200 + seed, 4, nb_jobs=30, moldable=True)
    both_transports(
        tmp_path, "static", TORTURE, workload, write_cluster(4, tmp_path / "p.xml"), options={"dynamic": False}
    )


@pytest.mark.parametrize(
    "options",
    [{"strategy": "SEV"}, {"strategy": "ASP"}, {"strategy": "PWS", "mode": "stubborn"}],
    ids=["SEV-greedy", "ASP", "PWS-stubborn"],
)
def test_molded_jobs(tmp_path, options):
    from adaptsched.workloads.downey import generate

    path = write_workload(generate(2, 0.75, seed=7), tmp_path / "downey.json")
    both_transports(tmp_path, "downey", "downey", path, write_cluster(64, tmp_path / "p64.xml"), options=options)


def test_natively_molded_jobs(tmp_path):
    from test_allocation import linear_ptotal_workload

    path = write_workload(linear_ptotal_workload(), tmp_path / "lin.json")
    both_transports(tmp_path, "lin", "downey", path, write_cluster(16, tmp_path / "p16.xml"))


@pytest.mark.parametrize(
    "scheduler,options",
    [("qops", {}), ("qops", {"value_aware": True, "oc_factor": 0.05}), ("dvqops", {"max_window_h": 8.0})],
    ids=["QoPS", "VQoPS", "DVQoPS"],
)
def test_admission_control(tmp_path, ctc, scheduler, options):
    from adaptsched.workloads.qos import annotate

    workload, _ = annotate(json.loads(open(ctc[0]).read()), urgent_fraction=0.5, exact=True, seed=2)
    path = write_workload(workload, tmp_path / "qos.json")
    both_transports(tmp_path, scheduler, scheduler, path, ctc[1], options=options)
