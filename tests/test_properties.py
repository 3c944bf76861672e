"""Property tests: on small generated workloads (rigid, moldable, with deadlines, evolving, and
mixes of them), every scheduler with every family of its options either runs or refuses its
input before the first event, with a message naming the command that prepares it
(core/needs.py). A run must then keep, in its ``_jobs.csv``, the rules any correct schedule
keeps, checked here from the workload alone (:func:`violations`), beside the engine's own
end-of-run physics checks (engines/physics.py, which fail the run); over ZeroMQ it must write
the same bytes as in-process.

Workloads are drawn as data, job by job (sizes, runtimes, walltimes, submission times, speedup
parameters, QoS terms, stages), so that hypothesis shrinks a failure to its smallest workload.
The fast tier explores 20 workloads per configuration in-process (derandomized under the ``ci``
profile) and 20 over ZeroMQ across the configurations; the slow tier 500 per configuration
in-process and 50 per configuration over ZeroMQ, at random (a failure prints its seed).
"""

import ast
import csv
import json
import math
from itertools import pairwise

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from test_downey_workload import paper_speedup
from test_scojo import paper_scojo_p

from adaptsched.engines.run import RunSpec, run
from adaptsched.errors import InputRefused
from adaptsched.workloads.evolving import to_workload
from adaptsched.workloads.moldable import downey_fields, linear_fields, scojo_fields

#: Every scheduler, with each family of its options (one set of values per family).
CONFIGS = [
    ("fcfs", {}),
    ("easy", {}),
    ("conservative", {"order": "sjf"}),
    ("backfill", {}),
    ("backfill", {"order": "R/L", "guarantees": False}),
    ("backfill", {"speculation": 50}),
    ("backfill", {"test_runs": True, "test_threshold_s": 20, "test_run_s": 5, "test_run_max_s": 10}),
    ("backfill", {"adaptation": "half"}),
    ("backfill", {"adaptation": "greedy", "guarantees": False}),
    ("backfill", {"adaptation": "half", "widening": True}),
    ("downey", {}),
    ("downey", {"strategy": "PWS", "mode": "stubborn"}),
    ("downey", {"strategy": "ASP", "rigid": "keep"}),
    ("downey", {"strategy": "SEV", "mode": "hybrid"}),
    ("qops", {}),
    ("qops", {"deadlines": "none"}),
    ("qops", {"value_aware": True, "oc_factor": 0.05}),
    ("dvqops", {"max_window_h": 1}),
    ("scojo-trad", {}),
    ("scojo-p", {}),
    ("scojo-p", {"prediction": False, "rigid": "keep"}),
    ("cirne-berman", {}),
    ("cirne-berman", {"whatif": "replay", "rigid": "keep"}),
    ("evolving", {"variant": "cbf"}),
    ("evolving", {}),
    ("evolving", {"variant": "mic", "rigid": "keep"}),
    ("evolving", {"variant": "inf+c", "mapping": "lowest"}),
]
KINDS = ("rigid", "moldable", "deadlines", "evolving")
#: The kind of job each scheduler reads beyond a rigid request, and the speedup models it reads:
#: the workloads drawn for it hold that kind nine times in ten (the tenth explores its refusal).
READS = {
    "downey": ("moldable", ("downey", "linear")),
    "scojo-p": ("moldable", ("scojo-p", "downey")),
    "cirne-berman": ("moldable", ("scojo-p", "downey")),
    "scojo-trad": ("moldable", ("scojo-p", "downey")),
    "qops": ("deadlines", ()),
    "dvqops": ("deadlines", ()),
    "evolving": ("evolving", ()),
}
MODELS = ("downey", "linear", "scojo-p")
QOS_SCHEDULERS = ("qops", "dvqops")
EPS_S = 1e-5  # Batsim prints times to 6 decimals


class Drawn:
    """A stand-in for ``random.Random`` whose ``uniform`` returns values hypothesis drew (in [0, 1],
    scaled to the range asked): mold-annotate's own code builds the annotation from them."""

    def __init__(self, *fractions):
        self.fractions = list(fractions)

    def uniform(self, low, high):
        return low + self.fractions.pop(0) * (high - low)


@st.composite
def moldable_fields(draw, delay, res, hosts, models=MODELS):
    """A job's ``moldable`` annotation (mold-annotate's fields), of one of ``models``: Downey's
    with A and sigma drawn, linear speedup, or SCOJO-P's around the request."""
    model = draw(st.sampled_from(models))
    if model == "downey":
        fractions = Drawn(draw(st.floats(0, 1)), draw(st.floats(0, 1)))
        fields = downey_fields(fractions, float(delay), res, hosts, hosts, 2.0)
    elif model == "linear":
        fields = linear_fields(float(delay), res, hosts)
    else:
        fields = scojo_fields(float(delay), res, hosts)
    fields["max_res"] = max(fields["max_res"], res)
    return fields


@st.composite
def workloads(draw, scheduler=None):
    """A small Batsim workload, job by job: rigid jobs (now and then wider than the machine),
    some moldable, all with QoS terms, plus evolving applications; for ``scheduler``, nine
    times in ten with the kind of job it reads (:data:`READS`)."""
    hosts = draw(st.integers(2, 12))
    kinds = draw(st.sets(st.sampled_from(KINDS), min_size=1))
    needed, models = READS.get(scheduler, (None, MODELS))
    if needed is not None and draw(st.integers(0, 9)) < 9:
        kinds.add(needed)
    jobs, profiles = [], {}
    for i in range(draw(st.integers(1, 7))):
        delay = draw(st.integers(1, 300))
        walltimes = [delay + 1, 2 * delay, max(1, delay // 2), delay] + ([] if "deadlines" in kinds else [-1])
        walltime = draw(st.sampled_from(walltimes))
        res = draw(st.integers(1, hosts + 1))
        profiles[f"d{delay}"] = {"type": "delay", "delay": delay}
        job = {"id": str(i), "subtime": draw(st.integers(0, 200)), "res": res, "walltime": walltime}
        job["profile"] = f"d{delay}"
        if "moldable" in kinds and res <= hosts and draw(st.booleans()):
            job.update(draw(moldable_fields(delay, res, hosts, models or MODELS)))
        jobs.append(job)
    if "evolving" in kinds:
        stages = st.lists(st.tuples(st.integers(1, 100), st.integers(1, hosts)), min_size=1, max_size=3)
        evolving = to_workload(draw(st.lists(stages, min_size=1, max_size=3)), hosts)
        for k, job in enumerate(evolving["jobs"]):
            job["id"], job["subtime"] = f"e{k}", draw(st.integers(0, 200))
        jobs += evolving["jobs"]
        profiles.update(evolving["profiles"])
    if "deadlines" in kinds and all(job["walltime"] > 0 for job in jobs):
        for job in jobs:  # qos-annotate's terms: deadline at factor x estimate, 0.1 per host-second
            urgent, factor = draw(st.booleans()), draw(st.sampled_from([1.0, 2.0, 5.0]))
            estimate = float(job["walltime"])
            price = round(0.1 * job["res"] * estimate * (10 if urgent else 1), 6)
            job.update(estimate_s=estimate, deadline=job["subtime"] + factor * estimate, urgent=urgent, price=price)
    jobs.sort(key=lambda job: job["subtime"])
    return {"nb_res": hosts, "jobs": jobs, "profiles": profiles}


# -- the rules of a correct schedule ------------------------------------------------------------
def _hosts(text):
    for part in text.split():
        low, _, high = part.partition("-")
        yield from range(int(low), int(high or low) + 1)


def _near(a, b):
    return abs(a - b) <= EPS_S + 1e-9 * abs(b)


def model_runtime(job, n, hosts):
    """A moldable job's runtime on n hosts, from the papers' formulas (not adaptsched's models)."""
    spec = job["moldable"]
    if spec["model"] == "linear":
        return spec["t1_s"] / n
    if spec["model"] == "downey":
        return spec["t1_s"] / paper_speedup(n, spec["A"], spec["sigma"])
    return paper_scojo_p(spec["runtime_opt_s"], spec["n_opt"], hosts)[2](n)


def violations(doc, jobs_csv, scheduler):
    """Every way the run breaks a rule any correct schedule of ``doc`` keeps (empty: none):

    * each job of the workload has exactly one row of its own; copies (``ID#k``) name it;
    * an executed row starts no earlier than its submission, on as many distinct hosts of the
      machine as it asked for; no host runs two rows at once;
    * a rigid job wider than the machine never runs; any other job runs (itself or a copy),
      unless a QoS scheduler turned it away at admission;
    * a job run as itself runs min(delay, walltime) (delay without a walltime) and ends
      COMPLETED_WALLTIME_REACHED when its walltime is below its delay, COMPLETED_SUCCESSFULLY
      when above; a copy resized by the backfilling family keeps its host-seconds (linear
      speedup); a molded copy runs its model's runtime at its size (Downey, eq. 1-2; SCOJO-P,
      Table 1; linear), within its annotation's sizes; an evolving stage runs on its stage's
      nodes for at least its duration, the stages of one application one after the other;
    * under QoPS and DVQoPS every job that ran completes by its deadline (estimates are
      walltimes, upper bounds of the runs).
    """
    hosts = doc["nb_res"]
    wanted = {str(job["id"]): job for job in doc["jobs"]}
    delay = {name: p["delay"] for name, p in doc["profiles"].items()}
    with open(jobs_csv) as handle:
        rows = list(csv.DictReader(handle))
    problems, own, copies, busy = [], {}, {}, []
    for row in rows:
        job_id, _, copy = row["job_id"].partition("#")
        if job_id not in wanted:
            problems.append(f"row {row['job_id']}: no such job in the workload")
            continue
        if copy:
            copies.setdefault(job_id, []).append(row)
        elif job_id in own:
            problems.append(f"job {job_id} has two rows")
        else:
            own[job_id] = row
        if row["starting_time"]:
            start, end = float(row["starting_time"]), float(row["finish_time"])
            allocated = list(_hosts(row["allocated_resources"]))
            if start < float(row["submission_time"]) - EPS_S:
                problems.append(f"{row['job_id']} starts at {start}, before its submission")
            if len(set(allocated)) != int(row["requested_number_of_resources"]) or max(allocated) >= hosts:
                problems.append(
                    f"{row['job_id']}: hosts {row['allocated_resources']} for {row['requested_number_of_resources']}"
                )
            busy.append((start, end, allocated, row["job_id"]))
    problems += [f"job {job_id} has no row" for job_id in sorted(set(wanted) - set(own))]
    problems += _overlaps(busy)
    for job_id, job in wanted.items():
        row, mine = own.get(job_id), copies.get(job_id, [])
        if row is None:
            continue
        ran = [r for r in [row, *mine] if r["starting_time"]]
        if job["res"] > hosts and "moldable" not in job and "evolving" not in job:
            if ran:
                problems.append(f"job {job_id} is wider than the machine but ran")
            continue
        if not ran and scheduler not in QOS_SCHEDULERS:
            problems.append(f"job {job_id} never ran ({row['final_state']})")
        if row["starting_time"]:
            problems += _rigid_run(job, row, delay[job["profile"]])
        problems += _copies(job, mine, delay[job["profile"]], hosts)
        if scheduler in QOS_SCHEDULERS and ran and "deadline" in job:
            last = max(float(r["finish_time"]) for r in ran)
            if last > job["deadline"] + EPS_S:
                problems.append(f"job {job_id} accepted but ends at {last} after its deadline {job['deadline']}")
    return problems


def _overlaps(busy):
    events = []
    for start, end, allocated, name in busy:
        events += [(end, 0, allocated, name), (start, 1, allocated, name)]
    taken, problems = {}, []
    for _, kind, allocated, name in sorted(events, key=lambda e: (e[0], e[1])):  # ends before starts
        if kind == 0:
            for host in allocated:
                taken.pop(host, None)
            continue
        clash = sorted({taken[h] for h in allocated if h in taken})
        if clash:
            problems.append(f"{name} starts on hosts of {clash[:3]}")
        taken.update(dict.fromkeys(allocated, name))
    return problems


def _rigid_run(job, row, delay_s):
    """A job run as itself: min(delay, walltime), and its final state."""
    walltime, ran_s, state = job["walltime"], float(row["execution_time"]), row["final_state"]
    limited = walltime > 0 and walltime < delay_s
    expected = walltime if limited else delay_s
    if state == "COMPLETED_KILLED":
        return [] if ran_s <= expected + EPS_S else [f"job {job['id']} killed after {ran_s} s, beyond {expected}"]
    problems = []
    if not _near(ran_s, expected) or int(row["requested_number_of_resources"]) != job["res"]:
        problems.append(
            f"job {job['id']} ran {ran_s} s on {row['requested_number_of_resources']} hosts: {expected} on {job['res']}"
        )
    if walltime != delay_s:
        good = "COMPLETED_WALLTIME_REACHED" if limited else "COMPLETED_SUCCESSFULLY"
        if state != good:
            problems.append(f"job {job['id']} ended {state}, not {good}")
    return problems


def _copies(job, rows, delay_s, hosts):
    """The copies of a job: resized (host-seconds kept), molded (its model's runtime), stages."""
    problems, stages = [], []
    walltime = job["walltime"] if job["walltime"] > 0 else math.inf
    for row in rows:
        meta = ast.literal_eval(row["metadata"]) if row["metadata"] else {}
        kind, n = meta.get("kind"), int(row["requested_number_of_resources"])
        if not row["starting_time"]:
            continue
        ran_s, killed = float(row["execution_time"]), row["final_state"] == "COMPLETED_KILLED"
        if kind == "resized":
            scale = meta["scale"]
            expected = scale * min(delay_s, walltime)
            if not _near(n * scale, job["res"]) or not (killed or _near(ran_s, expected)):
                problems.append(f"{row['job_id']}: {n} hosts x {ran_s} s for {job['res']} x {delay_s} (scale {scale})")
        elif kind == "molded":
            native = model_runtime(job, job["res"], hosts)
            runtime = model_runtime(job, n, hosts)
            expected = min(runtime, walltime * runtime / native)
            if not job.get("min_res", 1) <= n <= job.get("max_res", hosts) or not (killed or _near(ran_s, expected)):
                problems.append(f"{row['job_id']}: {ran_s} s on {n} hosts, its model says {expected}")
        elif kind == "stage":
            d, nodes = job["evolving"]["stages"][meta["stage"]]
            if n != nodes or ran_s < d - EPS_S:
                problems.append(f"{row['job_id']}: stage {meta['stage']} ran {ran_s} s on {n}, not {d} s on {nodes}")
            stages.append((meta["stage"], float(row["starting_time"]), float(row["finish_time"])))
    stages.sort()
    for (_, _, end), (k, start, _) in pairwise(stages):
        if start < end - EPS_S:
            problems.append(f"job {job['id']}: stage {k} starts at {start}, before the one before ends ({end})")
    return problems


# -- running one example ------------------------------------------------------------------------
def note(what):
    """Hypothesis's statistics of what happened (outside hypothesis: nothing)."""
    try:
        event(what)
    except InvalidArgument:
        pass


def run_one(folder, doc, scheduler, options, transport):
    """Runs ``doc``; returns the outputs' prefix, or None if the input was refused (saying why)."""
    path = folder / "w.json"
    path.write_text(json.dumps(doc))
    prefix = folder / transport
    spec = RunSpec.make(scheduler, path, doc["nb_res"], prefix, options=options, transport=transport)
    try:
        run(spec, say=lambda *a: None)  # physics checked at its end: a violation raises
    except InputRefused as error:  # refused before the first event, saying why
        message = str(error)
        assert "Prepare the workload with `adaptsched" in message or " job " in message, (scheduler, options, message)
        note(f"{scheduler}: refused")
        return None
    note(f"{scheduler}: ran")
    return prefix


def runs_soundly(folder, doc, scheduler, options):
    prefix = run_one(folder, doc, scheduler, options, "inprocess")
    if prefix is not None:
        problems = violations(doc, f"{prefix}_jobs.csv", scheduler)
        assert not problems, "\n".join(problems[:10])
    return prefix


def same_on_both_transports(folder, doc, scheduler, options):
    inprocess = runs_soundly(folder, doc, scheduler, options)
    zmq = run_one(folder, doc, scheduler, options, "zmq")
    assert (inprocess is None) == (zmq is None), "refused on one transport only"
    if inprocess is not None:
        for suffix in ("_jobs.csv", "_machine_states.csv"):
            assert open(f"{inprocess}{suffix}").read() == open(f"{zmq}{suffix}").read(), suffix


IDS = [f"{scheduler}-{i}" for i, (scheduler, _) in enumerate(CONFIGS)]
HEALTH = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow]


def examples(n, **kwargs):
    return settings(max_examples=n, suppress_health_check=HEALTH, **kwargs)


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
@examples(20)
@given(data=st.data())
def test_every_run_keeps_the_rules_or_is_refused(tmp_path_factory, config, data):
    doc = data.draw(workloads(config[0]), label="workload")
    runs_soundly(tmp_path_factory.mktemp("p"), doc, *config)


@examples(20)
@given(data=st.data(), config=st.sampled_from(CONFIGS))
def test_over_zeromq_the_same_bytes(tmp_path_factory, data, config):
    doc = data.draw(workloads(config[0]), label="workload")
    same_on_both_transports(tmp_path_factory.mktemp("p"), doc, *config)


@pytest.mark.slow
@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
@examples(500, derandomize=False)
@given(data=st.data())
def test_every_run_keeps_the_rules_or_is_refused_long(tmp_path_factory, config, data):
    doc = data.draw(workloads(config[0]), label="workload")
    runs_soundly(tmp_path_factory.mktemp("p"), doc, *config)


@pytest.mark.slow
@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
@examples(50, derandomize=False)
@given(data=st.data())
def test_over_zeromq_the_same_bytes_long(tmp_path_factory, config, data):
    doc = data.draw(workloads(config[0]), label="workload")
    same_on_both_transports(tmp_path_factory.mktemp("p"), doc, *config)


@pytest.mark.parametrize(("scheduler", "options"), CONFIGS, ids=IDS)
def test_each_configuration_once_on_a_mixed_workload(tmp_path, scheduler, options):
    """Every configuration at least once, whatever hypothesis draws: a workload holding every
    kind of job (so that none is refused), whose run keeps the rules."""
    hosts = 8
    jobs = [
        {"id": str(i), "subtime": 10 * i, "res": 1 + (3 * i) % hosts, "walltime": 40 + 7 * i, "profile": f"d{i}"}
        for i in range(6)
    ]
    profiles = {f"d{i}": {"type": "delay", "delay": 20 + 11 * i} for i in range(6)}
    evolving = to_workload([[(30, 2), (20, 5)], [(15, 3)]], hosts)
    for k, job in enumerate(evolving["jobs"]):
        job["id"], job["subtime"] = f"e{k}", 5 + k
    jobs += evolving["jobs"]
    profiles.update(evolving["profiles"])
    scojo = scheduler in ("scojo-p", "cirne-berman", "scojo-trad")
    for i, job in enumerate(jobs):
        delay = profiles[job["profile"]]["delay"]
        if i % 3 != 2:  # two jobs in three moldable
            if scojo:
                job.update(scojo_fields(float(delay), job["res"], hosts))
            else:
                job.update(downey_fields(Drawn(0.5, 0.25 * (i % 4)), float(delay), job["res"], hosts, hosts, 2.0))
        job.update(estimate_s=float(job["walltime"]), deadline=job["subtime"] + 5.0 * job["walltime"])
        job.update(urgent=i % 4 == 0, price=0.1 * job["res"] * job["walltime"] * (10 if i % 4 == 0 else 1))
    doc = {"nb_res": hosts, "jobs": sorted(jobs, key=lambda job: job["subtime"]), "profiles": profiles}
    assert runs_soundly(tmp_path, doc, scheduler, options) is not None
