"""Conformance: the embedded engine's outputs equal real Batsim 4.2.1's.

For the same platform (network-less, as ``adaptsched platform`` generates), workload
and scheduler, both engines' ``_jobs.csv`` must agree on job_id, submission_time,
requested_number_of_resources, requested_time, final_state, starting_time,
finish_time and allocated_resources (times within 1.5e-6 s + 1e-11 relative: both
print 6 decimals, and with resized or molded jobs' fractional runtimes the clocks drift
a few ulps apart, which may flip the last digits), and on the
metadata and the schedule summary (sums over hosts within a relative 1e-10), and on every
row of ``_machine_states.csv`` (see ``assert_same_machine_states``). Runs only when real Batsim is named by the
BATSIM environment variable or is on PATH (docs/getting-started.md says how to install
it); skipped otherwise.

Schedulers: pybatsim's easyBackfill, tests/plugins/orderedFillerSched.py (pybatsim's
fillerSched walking its waiting jobs in submission order), adaptsched's fcfs, easy
and conservative, and tests/conformance/plugins/tortureSched.py, which kills and
resubmits jobs, registers jobs and profiles dynamically, runs moldable jobs on
other sizes, asks CALL_ME_LATER, rejects jobs and sends decisions timestamped in
the future. Stock fillerSched iterates over a set of job objects, so its choices depend
on memory addresses, which differ from run to run even without address randomisation
(under load, pybatsim's receive loop allocates differently): it is checked on both
engines on invariants only (``test_stock_fillerSched_invariants``). Every exact
comparison is a pure function of its inputs, whatever the machine's load.
"""

import csv
import json
import math
import random
from pathlib import Path

import pytest
from helpers import CTC_EXCERPT, NO_BATSIM, NO_BATSIM_HELP, PLUGINS, find_batsim, schedule_violations

from adaptsched.analysis.invariants import SAME_COLUMNS
from adaptsched.engines.run import RunSpec, run
from adaptsched.platforms.simgrid import write_cluster
from adaptsched.workloads.convert import convert_swf, write_workload

BATSIM = find_batsim()
pytestmark = pytest.mark.skipif(BATSIM is None, reason=f"{NO_BATSIM}: {NO_BATSIM_HELP}")

TORTURE = str(Path(__file__).parent / "plugins" / "tortureSched.py")
FILLER = str(PLUGINS / "orderedFillerSched.py")  # fillerSched in submission order
SCHEDULER_IDS = lambda scheduler: Path(scheduler).stem  # noqa: E731
KEYS = SAME_COLUMNS  # the columns both engines must write alike (analysis/invariants.py)
TIMES = ("submission_time", "requested_time", "starting_time", "finish_time")
SUMMARY = (
    "makespan",
    "nb_jobs",
    "nb_jobs_finished",
    "nb_jobs_killed",
    "nb_jobs_rejected",
    "nb_jobs_success",
    "mean_waiting_time",
    "mean_turnaround_time",
    "time_computing",
    "time_idle",
)


def read_jobs(prefix):
    with open(f"{prefix}_jobs.csv") as handle:
        return {row["job_id"]: row for row in csv.DictReader(handle)}


def read_summary(prefix):
    with open(f"{prefix}_schedule.csv") as handle:
        return next(csv.DictReader(handle))


def assert_same_machine_states(real, embedded):
    """``_machine_states.csv``: the same rows in the same order, counts equal. Times are
    printed with %g (6 significant digits): they must print the same, except where the
    engines' clocks differ by less than the tolerance of the jobs' times. Both engines start
    the first jobs a few times 1e-20 s after 0 (each of Batsim's internal messages takes
    1e-20 s on the generated platforms' 1e20 B/s loopback), so the first rows print alike."""
    with open(f"{real}_machine_states.csv") as a, open(f"{embedded}_machine_states.csv") as b:
        rows_a, rows_b = a.read().splitlines(), b.read().splitlines()
    assert rows_a[0] == rows_b[0] == "time,nb_sleeping,nb_switching_on,nb_switching_off,nb_idle,nb_computing"
    assert len(rows_a) == len(rows_b), "not the same number of machine-state changes"
    assert rows_a[1] == rows_b[1], "the first machine-state change (at a few 1e-20 s) differs"
    for line, (x, y) in enumerate(zip(rows_a[1:], rows_b[1:]), start=2):
        if x == y:
            continue
        (ta, *ca), (tb, *cb) = x.split(","), y.split(",")
        assert ca == cb, (line, x, y)
        assert abs(float(ta) - float(tb)) <= 1e-9 + 1e-5 * abs(float(ta)), (line, x, y)


def assert_same_outputs(real, embedded):
    a, b = read_jobs(real), read_jobs(embedded)
    assert sorted(a) == sorted(b), "not the same jobs"
    for job_id, row in a.items():
        other = b[job_id]
        for key in KEYS:
            if key in TIMES and row[key] and other[key]:
                # printed with 6 decimals; fractional runtimes (resized or molded jobs) leave
                # SimGrid's and our clocks a few ulps apart, which may flip the last digits
                x, y = float(row[key]), float(other[key])
                assert abs(x - y) <= 1.5e-6 + 1e-11 * abs(x), (job_id, key, row[key], other[key])
            else:
                assert row[key] == other[key], (job_id, key, row[key], other[key])
    assert_same_machine_states(real, embedded)
    sa, sb = read_summary(real), read_summary(embedded)
    for key in SUMMARY:  # sums over many hosts: equal up to float accumulation order
        assert math.isclose(float(sa[key]), float(sb[key]), rel_tol=1e-10, abs_tol=1e-6), (key, sa[key], sb[key])
    return a


def both_engines(tmp_path, name, scheduler, workload, platform, **kwargs):
    prefixes = {}
    for engine in ("batsim", "embedded"):
        prefix = tmp_path / f"{name}_{engine}"
        run(
            RunSpec.make(scheduler, workload, platform, prefix, engine=engine, batsim=BATSIM, progress=False, **kwargs),
            say=lambda *a: None,
        )
        prefixes[engine] = prefix
    return assert_same_outputs(prefixes["batsim"], prefixes["embedded"])


@pytest.fixture(scope="module")
def ctc(tmp_path_factory):
    """The first 1,500 jobs of CTC-SP2 on 338 hosts (walltime kills included: jobs past their estimate)."""
    folder = tmp_path_factory.mktemp("ctc")
    workload, _ = convert_swf(CTC_EXCERPT, hosts=338, first=1500)
    return write_workload(workload, folder / "ctc.json"), write_cluster(338, folder / "p338.xml")


SPECULATIVE = {"speculation": 50.0, "test_runs": True, "seed": 5}


@pytest.mark.parametrize(
    "scheduler,options",
    [
        (FILLER, {}),
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
        "orderedFillerSched",
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
    rows = both_engines(tmp_path, Path(scheduler).stem, scheduler, *ctc, options=options)
    assert len(rows) >= 1500
    assert any(r["final_state"] == "COMPLETED_WALLTIME_REACHED" for r in rows.values())
    if options.get("speculation"):  # copies were killed, others did their job
        assert any(r["final_state"] == "COMPLETED_KILLED" for r in rows.values())
    if options.get("speculation") or options.get("adaptation"):
        assert any(r["final_state"] == "REJECTED" for r in rows.values())
    if options.get("adaptation"):  # resized copies ran
        assert any("'resized'" in r["metadata"] for r in rows.values())


def random_workload(path, seed, nb_res, nb_jobs=40, moldable=False):
    """Small integer times so that many events coincide; some walltimes below the runtime."""
    rnd = random.Random(seed)
    jobs, profiles = [], {}
    for i in range(nb_jobs):
        delay, res = rnd.randint(1, 20), rnd.randint(1, nb_res)
        walltime = delay + rnd.randint(-3, 10) if rnd.random() < 0.7 else max(1, delay - rnd.randint(0, 3))
        if moldable and rnd.random() < 0.3:
            name = f"p{delay}_{res}"
            profiles[name] = {"type": "parallel_homogeneous_total", "cpu": delay * res * 1e9, "com": 0}
        else:
            name = f"d{delay}"
            profiles[name] = {"type": "delay", "delay": delay}
        jobs.append({"id": i, "subtime": rnd.randint(0, 40), "res": res, "profile": name, "walltime": max(1, walltime)})
    jobs.append({"id": nb_jobs, "subtime": 3, "res": nb_res + 1, "profile": "d1", "walltime": 5})  # too wide
    profiles["d1"] = {"type": "delay", "delay": 1}
    path.write_text(json.dumps({"nb_res": nb_res, "jobs": jobs, "profiles": profiles}))
    return path


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("scheduler", [FILLER, "easyBackfill", "easy", "conservative"], ids=SCHEDULER_IDS)
def test_walltime_kills_and_coinciding_events(tmp_path, seed, scheduler):
    nb_res = (2, 4, 8, 3)[seed]
    workload = random_workload(tmp_path / "w.json", seed, nb_res)
    rows = both_engines(tmp_path, "wk", scheduler, workload, write_cluster(nb_res, tmp_path / "p.xml"))
    assert any(r["final_state"] == "COMPLETED_WALLTIME_REACHED" for r in rows.values())


@pytest.mark.parametrize("engine", ["batsim", "embedded"])
@pytest.mark.parametrize("case", ["ctc", 0, 1, 2, 3])
def test_stock_fillerSched_invariants(tmp_path, ctc, engine, case):
    """pybatsim's own fillerSched, whose choices depend on memory addresses (see the module
    docstring): on each engine, a correct schedule of every job (invariants only)."""
    if case == "ctc":
        (workload, platform), nb_res = ctc, 338
    else:
        nb_res = (2, 4, 8, 3)[case]
        workload = random_workload(tmp_path / "w.json", case, nb_res)
        platform = write_cluster(nb_res, tmp_path / "p.xml")
    prefix = tmp_path / f"filler_{engine}"
    run(
        RunSpec.make("fillerSched", workload, platform, prefix, engine=engine, batsim=BATSIM, progress=False),
        say=lambda *a: None,
    )
    assert schedule_violations(f"{prefix}_jobs.csv", workload, nb_res) == []


@pytest.mark.parametrize("seed", range(6))
def test_kills_resubmissions_and_dynamic_registration(tmp_path, seed):
    nb_res = (2, 4, 8)[seed % 3]
    workload = random_workload(tmp_path / "w.json", 100 + seed, nb_res, nb_jobs=30, moldable=True)
    rows = both_engines(
        tmp_path,
        "dyn",
        TORTURE,
        workload,
        write_cluster(nb_res, tmp_path / "p.xml"),
        options={"dynamic": True},
        dynamic_jobs=True,
        profile_reuse=True,
    )
    states = {r["final_state"] for r in rows.values()}
    assert "COMPLETED_KILLED" in states and "REJECTED" in states
    assert any("#" in job_id for job_id in rows), "a killed job was resubmitted"
    assert any(r["workload_name"] == "dyn" for r in rows.values()), "jobs were registered dynamically"


@pytest.mark.parametrize("seed", range(3))
def test_kills_and_moldable_jobs_without_dynamic_jobs(tmp_path, seed):
    workload = random_workload(tmp_path / "w.json", 200 + seed, 4, nb_jobs=30, moldable=True)
    rows = both_engines(
        tmp_path, "static", TORTURE, workload, write_cluster(4, tmp_path / "p.xml"), options={"dynamic": False}
    )
    assert any(r["final_state"] == "COMPLETED_KILLED" for r in rows.values())


@pytest.mark.parametrize(
    "options",
    [{"strategy": "SEV"}, {"strategy": "ASP"}, {"strategy": "PWS", "mode": "stubborn"}],
    ids=["SEV-greedy", "ASP", "PWS-stubborn"],
)
def test_molded_jobs(tmp_path, options):
    """Downey's strategies mold jobs into copies with their own profiles: same outputs on both
    engines, and on real Batsim every folded job ran for exactly t1 / S(its size)."""
    from test_allocation import check_molded_rows

    from adaptsched.workloads.downey import generate

    workload = generate(2, 0.75, seed=7)
    path = write_workload(workload, tmp_path / "downey.json")
    rows = both_engines(tmp_path, "downey", "downey", path, write_cluster(64, tmp_path / "p64.xml"), options=options)
    assert any("'molded'" in r["metadata"] for r in rows.values())
    assert check_molded_rows(tmp_path / "downey_batsim", workload) > 20


def test_natively_molded_jobs(tmp_path):
    """Linear jobs with parallel_homogeneous_total profiles run on the chosen size without copies."""
    from test_allocation import check_native_rows, linear_ptotal_workload

    workload = linear_ptotal_workload()
    path = write_workload(workload, tmp_path / "lin.json")
    both_engines(tmp_path, "lin", "downey", path, write_cluster(16, tmp_path / "p16.xml"))
    assert check_native_rows(tmp_path / "lin_batsim", workload) > 10


@pytest.mark.parametrize(
    "scheduler,options",
    [("qops", {}), ("qops", {"value_aware": True, "oc_factor": 0.05}), ("dvqops", {"max_window_h": 8.0})],
    ids=["QoPS", "VQoPS", "DVQoPS"],
)
def test_admission_control(tmp_path, ctc, scheduler, options):
    """Jobs rejected at submission (with their metadata), deadlines kept, on both engines."""
    from adaptsched.workloads.qos import annotate

    workload, _ = annotate(json.loads(open(ctc[0]).read()), urgent_fraction=0.5, exact=True, seed=2)
    path = write_workload(workload, tmp_path / "qos.json")
    rows = both_engines(tmp_path, scheduler, scheduler, path, ctc[1], options=options)
    assert sum(r["final_state"] == "REJECTED" for r in rows.values()) > 100
    deadline = {str(j["id"]): j["deadline"] for j in workload["jobs"]}
    assert all(float(r["finish_time"]) <= deadline[i] + 1e-6 for i, r in rows.items() if r["finish_time"])


def test_machine_states_and_the_schedule_trace_on_request(tmp_path):
    """Real Batsim writes _machine_states.csv always, its Pajé trace only when asked."""
    workload = random_workload(tmp_path / "w.json", 7, 4)
    platform = write_cluster(4, tmp_path / "p.xml")
    common = dict(batsim=BATSIM, progress=False)
    run(RunSpec.make("easy", workload, platform, tmp_path / "plain", engine="batsim", **common), say=lambda *a: None)
    assert (tmp_path / "plain_machine_states.csv").is_file() and not (tmp_path / "plain_schedule.trace").exists()
    run(
        RunSpec.make("easy", workload, platform, tmp_path / "paje", engine="batsim", schedule_trace=True, **common),
        say=lambda *a: None,
    )
    assert (tmp_path / "paje_schedule.trace").read_text().startswith("%EventDef")


@pytest.fixture(scope="module")
def scojo_w2(tmp_path_factory):
    """1,000 jobs of SCOJO-P's W2 (Lublin-Feitelson, alpha' 9.83, 128 hosts), exact estimates,
    90 % moldable with SCOJO-P's speedup model."""
    from adaptsched.workloads.estimates import annotate as estimates
    from adaptsched.workloads.lublin import generate
    from adaptsched.workloads.moldable import annotate

    folder = tmp_path_factory.mktemp("scojo")
    workload = estimates(generate(1000, hosts=128, mode="typeless", aarr=9.83, seed=1), model="exact")[0]
    workload, _ = annotate(workload, model="scojo-p", fraction=0.9, seed=1)
    return workload, write_workload(workload, folder / "w2.json"), write_cluster(128, folder / "p128.xml")


@pytest.mark.slow
@pytest.mark.parametrize(
    "scheduler,options",
    [("scojo-trad", {}), ("scojo-p", {}), ("scojo-p", {"prediction": False}), ("cirne-berman", {})],
    ids=["scojo-trad", "scojo-p", "scojo-p-non-predictive", "cirne-berman"],
)
def test_scojo_schedulers(tmp_path, scojo_w2, scheduler, options):
    """Barsanti & Sodan's three schedulers: same outputs on both engines, and on real Batsim
    every molded row lasts runtime(n) with n in [N_min, N_max]."""
    from adaptsched.analysis.scojo import molded_row_violations

    workload, path, platform = scojo_w2
    rows = both_engines(tmp_path, "scojo", scheduler, path, platform, options=options)
    assert len(rows) >= 1000
    assert molded_row_violations(tmp_path / "scojo_batsim", workload) == []
    molded = sum("'molded'" in r["metadata"] for r in rows.values())
    assert (molded == 0) if scheduler == "scojo-trad" else (molded > 50)


@pytest.mark.parametrize("variant", ["cbf", "nos", "mic", "mic+c", "inf", "inf+c"])
def test_evolving_applications(tmp_path, variant):
    """Klein & Pérez's evolving applications: stage and hold copies registered on the fly, on the
    nodes of Algorithm 1, CALL_ME_LATER at planned starts; same outputs on both engines, and the
    run on real Batsim folds to the in-process plan (C2-C4, check_invariants, equal metrics)."""
    from adaptsched.reproduce.klein_perez.plan import analyse_run
    from adaptsched.workloads.evolving import write_tests

    (path,) = write_tests(tmp_path / "w", 1, seed=7)
    rows = both_engines(
        tmp_path, "evo", "evolving", path, write_cluster(100, tmp_path / "p100.xml"), options={"variant": variant}
    )
    result = analyse_run(str(tmp_path / "evo_batsim"), {"variant": variant}, str(path))
    assert result["problems"] == result["violations"] == result["metrics_differ"] == []
    if variant != "cbf":
        assert sum("'kind': 'stage'" in r["metadata"] for r in rows.values()) > 20
    if variant in ("mic", "inf"):  # (this test's compacted plans happen to stretch nothing)
        assert any("'kind': 'hold'" in r["metadata"] for r in rows.values())
