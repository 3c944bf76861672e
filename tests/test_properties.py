"""Property tests (issue 25): on small generated workloads (rigid, moldable, with deadlines,
evolving, and mixes of them), every scheduler with every family of options, on both transports,
either runs and passes the end-of-run physics checks (engines/checks/physics.py: a violation fails the
run), or refuses its input before the first event with the message that names the command that
prepares it (core/needs.py). Nothing else may happen: no crash, no other error.

A short profile runs in the fast tier (a few seconds); ``-m slow`` runs the long one.
"""

import json

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from adaptsched.engines.run import RunSpec, run
from adaptsched.errors import InputRefused
from adaptsched.workloads import moldable, qos
from adaptsched.workloads.evolving import to_workload

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


@st.composite
def workloads(draw):
    """A small Batsim workload: rigid jobs, some made moldable (Downey, linear or SCOJO-P's
    model), given QoS terms, or turned into evolving applications."""
    hosts = draw(st.integers(2, 12))
    n = draw(st.integers(1, 7))
    kinds = draw(st.sets(st.sampled_from(KINDS), min_size=1))
    jobs, profiles = [], {}
    for i in range(n):
        delay = draw(st.integers(1, 300))
        walltime = draw(st.sampled_from([delay + 1, 2 * delay, max(1, delay // 2), delay, -1]))
        res = draw(st.integers(1, hosts + 1))  # now and then wider than the machine
        profiles[f"d{delay}"] = {"type": "delay", "delay": delay}
        jobs.append(
            {
                "id": str(i),
                "subtime": draw(st.integers(0, 200)),
                "res": res,
                "walltime": walltime,
                "profile": f"d{delay}",
            }
        )
    doc = {"nb_res": hosts, "jobs": jobs, "profiles": profiles}
    seed = draw(st.integers(0, 3))
    if "evolving" in kinds:
        evolving = to_workload(
            [
                [(draw(st.integers(1, 100)), draw(st.integers(1, hosts))) for _ in range(draw(st.integers(1, 3)))]
                for _ in range(draw(st.integers(1, 3)))
            ],
            hosts,
        )
        for k, job in enumerate(evolving["jobs"]):
            job["id"] = f"e{k}"
            job["subtime"] = draw(st.integers(0, 200))
        doc["jobs"] += evolving["jobs"]
        doc["profiles"].update(evolving["profiles"])
    if "moldable" in kinds:
        model = draw(st.sampled_from(moldable.MODELS))
        doc, _ = moldable.annotate(doc, model=model, fraction=draw(st.sampled_from([0.5, 1.0])), seed=seed)
    if "deadlines" in kinds and all(job["walltime"] > 0 for job in doc["jobs"]):
        doc, _ = qos.annotate(doc, seed=seed)
    doc["jobs"].sort(key=lambda job: job["subtime"])
    return doc


def run_one(tmp_path, doc, scheduler, options, transport):
    path = tmp_path / "w.json"
    path.write_text(json.dumps(doc))
    spec = RunSpec.make(scheduler, path, doc["nb_res"], tmp_path / "out", options=options, transport=transport)
    try:
        run(spec, say=lambda *a: None)  # physics checked at its end: a violation raises
    except InputRefused as error:  # refused before the first event, saying why
        message = str(error)
        assert "Prepare the workload with `adaptsched" in message or " job " in message, (scheduler, options, message)
        event(f"{scheduler}: refused")
    else:
        event(f"{scheduler}: ran")


IDS = [f"{scheduler}-{i}" for i, (scheduler, _) in enumerate(CONFIGS)]


def examples(n):
    return settings(max_examples=n, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
@examples(3)
@given(doc=workloads())
def test_every_run_passes_its_physics_or_is_refused(tmp_path_factory, config, doc):
    run_one(tmp_path_factory.mktemp("p"), doc, *config, "inprocess")


@examples(2)
@given(doc=workloads(), config=st.sampled_from(CONFIGS))
def test_over_zeromq_too(tmp_path_factory, doc, config):
    run_one(tmp_path_factory.mktemp("p"), doc, *config, "zmq")


@pytest.mark.slow
@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
@examples(200)
@given(doc=workloads())
def test_every_run_passes_its_physics_or_is_refused_long(tmp_path_factory, config, doc):
    run_one(tmp_path_factory.mktemp("p"), doc, *config, "inprocess")


@pytest.mark.slow
@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
@examples(4)
@given(doc=workloads())
def test_over_zeromq_too_long(tmp_path_factory, config, doc):
    run_one(tmp_path_factory.mktemp("p"), doc, *config, "zmq")


@pytest.mark.parametrize(("scheduler", "options"), CONFIGS, ids=IDS)
def test_each_configuration_once_on_a_mixed_workload(tmp_path, scheduler, options):
    """Every configuration at least once, whatever hypothesis draws: a workload holding every
    kind of job (so that none is refused)."""
    hosts = 8
    base = {
        "nb_res": hosts,
        "jobs": [
            {"id": str(i), "subtime": 10 * i, "res": 1 + (3 * i) % hosts, "walltime": 40 + 7 * i, "profile": f"d{i}"}
            for i in range(6)
        ],
        "profiles": {f"d{i}": {"type": "delay", "delay": 20 + 11 * i} for i in range(6)},
    }
    evolving = to_workload([[(30, 2), (20, 5)], [(15, 3)]], hosts)
    for k, job in enumerate(evolving["jobs"]):
        job["id"], job["subtime"] = f"e{k}", 5 + k
    base["jobs"] += evolving["jobs"]
    base["profiles"].update(evolving["profiles"])
    model = "scojo-p" if scheduler in ("scojo-p", "cirne-berman", "scojo-trad") else "downey"
    doc, _ = moldable.annotate(base, model=model, fraction=0.7, seed=1)
    doc, _ = qos.annotate(doc, seed=1)
    (tmp_path / "w.json").write_text(json.dumps(doc))
    run(RunSpec.make(scheduler, tmp_path / "w.json", hosts, tmp_path / "out", options=options), say=lambda *a: None)
