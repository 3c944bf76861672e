"""engines/transports/dispatch.py's mirror of pybatsim's ``Batsim._read_bat_msg`` against pybatsim's own code.

Every scheduler and workload of the conformance suite (as tests/conformance/test_transports.py
lists them), plus an example user plugin, a plugin written for stock pybatsim and pybatsim's
built-ins that run on the embedded engine (the others use pybatsim's ``batsim.sched`` API or
resource states the engine does not support, on either dispatcher), runs twice in-process: once
with pybatsim's own ``_read_bat_msg`` for every message, once with the mirror. Between the two:

- every reply, message by message, is equal (``now`` and the events, in order);
- the plugin's handlers are called in the same order with the same arguments: each ``Job``
  with the same attributes, in the same order, with the same values, and the same objects
  (numbered by first appearance) where pybatsim passes the same object twice;
- after each message, the ``Batsim`` object's counters, clock and job count are equal, and at
  the end every job in ``bs.jobs`` and ``bs.profiles`` are;
- ``_jobs.csv`` and ``_machine_states.csv`` are byte-identical, ``_schedule.csv`` too but its
  two wall-clock columns;
- the mirror read most messages (it is not silently off).

pybatsim's fillerSched (and fillerSchedWithEvents) picks jobs from a set of objects, in an order that depends on their
memory addresses, which differ between two runs: for it only the messages up to its first
choice, and the validity of both schedules, are compared (test_transports.py says more).

The guard: a pybatsim whose mirrored source differs, a subclass of ``Batsim``, a plugin that
replaces a bypassed method, or pybatsim's logger at INFO send every message to pybatsim's code.
"""

from __future__ import annotations

import pytest
from helpers import CTC_EXCERPT
from test_conformance import SPECULATIVE, TORTURE, random_workload
from test_transports import ADDRESS_DEPENDENT, schedule_without_wall_clock, valid_schedule

import adaptsched.engines.transports.dispatch as dispatch
import adaptsched.engines.transports.inprocess as inprocess
from adaptsched.engines.run import RunSpec, run
from adaptsched.platforms.simgrid import write_cluster
from adaptsched.workloads.convert import convert_swf, write_workload

REPO = inprocess.Path(__file__).resolve().parents[2]
HANDLERS = (
    "onSimulationBegins",
    "onSimulationEnds",
    "onJobSubmission",
    "onJobCompletion",
    "onJobsKilled",
    "onJobMessage",
    "onRequestedCall",
    "onNoMoreJobsInWorkloads",
    "onNoMoreExternalEvents",
    "onNotifyEventMachineUnavailable",
    "onNotifyEventMachineAvailable",
    "onBeforeEvents",
    "onNoMoreEvents",
)
COUNTERS = (
    "_current_time",
    "running_simulation",
    "nb_jobs_submitted_from_batsim",
    "nb_jobs_submitted_from_scheduler",
    "nb_jobs_submitted",
    "nb_jobs_killed",
    "nb_jobs_rejected",
    "nb_jobs_scheduled",
    "nb_jobs_in_submission",
    "nb_jobs_completed",
    "nb_jobs_successful",
    "nb_jobs_failed",
    "nb_jobs_timeout",
    "no_more_static_jobs",
    "no_more_external_events",
)


class Recorder:
    """What the plugin sees and what pybatsim answers, in one run."""

    def __init__(self):
        self.trace = []  # handler calls, replies, bs's counters after each message
        self.numbers = {}  # id(object) -> first appearance
        self.connection = None

    def describe(self, value):
        from batsim.batsim import Job

        if isinstance(value, Job):
            number = self.numbers.setdefault(id(value), len(self.numbers))
            return ("Job", number, repr(list(vars(value).items())))
        if isinstance(value, list):
            return [self.describe(v) for v in value]
        return repr(value)

    def wrap(self, scheduler):
        for name in HANDLERS:
            method = getattr(scheduler, name, None)
            if method is not None:
                setattr(scheduler, name, self.handler(scheduler, name, method))
        return scheduler

    def handler(self, scheduler, name, method):
        def recorded(*args):
            self.trace.append((name, [self.describe(a) for a in args], self.state(scheduler.bs)))
            return method(*args)

        return recorded

    @staticmethod
    def state(bs):
        return [repr(getattr(bs, name, None)) for name in COUNTERS] + [len(getattr(bs, "jobs", ()))]

    def exchanged(self, bs, reply):
        self.trace.append(("reply", repr(reply), self.state(bs)))

    def final_state(self):
        bs = self.connection.bs
        return (
            [(job_id, repr(list(vars(job).items()))) for job_id, job in bs.jobs.items()],
            repr(bs.profiles),
            [repr(getattr(bs, name, None)) for name in COUNTERS],
            len(bs.jobs_manually_changed),
        )


def recorded_run(monkeypatch, prefix, scheduler, workload, platform, mirror, **kwargs):
    recorder = Recorder()
    load_scheduler, exchange, init = (
        inprocess.load_scheduler,
        inprocess.InProcessConnection.exchange,
        inprocess.InProcessConnection.__init__,
    )

    def loading(name, options):
        return recorder.wrap(load_scheduler(name, options))

    def exchanging(self, message):
        reply = exchange(self, message)
        recorder.exchanged(self.bs, reply)
        return reply

    def initialising(self, *args, **kw):
        recorder.connection = self
        init(self, *args, **kw)

    with monkeypatch.context() as patch:
        patch.setattr(dispatch, "ENABLED", mirror)
        patch.setattr(inprocess, "load_scheduler", loading)
        patch.setattr(inprocess.InProcessConnection, "exchange", exchanging)
        patch.setattr(inprocess.InProcessConnection, "__init__", initialising)
        run(
            RunSpec.make(scheduler, workload, platform, prefix, transport="inprocess", progress=False, **kwargs),
            say=lambda *a: None,
        )
    return recorder


def both_dispatchers(monkeypatch, tmp_path, scheduler, workload, platform, min_share=0.9, **kwargs):
    runs = {}
    for name, mirror in (("stock", False), ("mirror", True)):
        recorder = recorded_run(monkeypatch, tmp_path / name, scheduler, workload, platform, mirror, **kwargs)
        runs[name] = recorder
    stock, mirror = runs["stock"], runs["mirror"]
    assert stock.connection.dispatcher is None
    read = mirror.connection.dispatcher.messages
    messages = sum(1 for step in mirror.trace if step[0] == "reply")
    assert read >= min_share * messages, f"the mirror read only {read} of {messages} messages"
    if scheduler in (*ADDRESS_DEPENDENT, "fillerSchedWithEvents"):
        first_choice = next(i for i, step in enumerate(stock.trace) if step[0] == "reply" and "EXECUTE" in step[1])
        assert stock.trace[: first_choice + 1] == mirror.trace[: first_choice + 1]
        assert sorted(valid_schedule(tmp_path / "stock")) == sorted(valid_schedule(tmp_path / "mirror"))
        return
    for number, (a, b) in enumerate(zip(stock.trace, mirror.trace)):
        assert a == b, f"step {number} differs"
    assert len(stock.trace) == len(mirror.trace)
    assert stock.final_state() == mirror.final_state()
    for output in ("jobs.csv", "machine_states.csv"):
        a = (tmp_path / f"stock_{output}").read_bytes()
        assert a == (tmp_path / f"mirror_{output}").read_bytes(), f"_{output} differs"
    assert schedule_without_wall_clock(tmp_path / "stock") == schedule_without_wall_clock(tmp_path / "mirror")


@pytest.fixture(scope="module")
def ctc(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ctc")
    workload, _ = convert_swf(CTC_EXCERPT, hosts=338, first=1500)
    return write_workload(workload, folder / "ctc.json"), write_cluster(338, folder / "p338.xml")


CTC_CASES = {
    "fillerSched": ("fillerSched", {}),
    "fillerSchedWithEvents": ("fillerSchedWithEvents", {}),
    "easyBackfill": ("easyBackfill", {}),
    "fcfs": ("fcfs", {}),
    "easy": ("easy", {}),
    "conservative": ("conservative", {}),
    "R/L-NG": ("backfill", {"order": "R/L", "guarantees": False, "seed": 5}),
    "P/L": ("backfill", {"order": "P/L", "seed": 5}),
    "1/L+speculation": ("backfill", {"order": "1/L", **SPECULATIVE}),
    "R/L-NG+speculation": ("backfill", {"order": "R/L", "guarantees": False, **SPECULATIVE}),
    "quarter": ("backfill", {"adaptation": "quarter"}),
    "P/L+greedy": ("backfill", {"adaptation": "greedy", "order": "P/L", "seed": 5}),
    "R/L-NG+half+widening+speculation": (
        "backfill",
        {"order": "R/L", "guarantees": False, "adaptation": "half", "widening": True, **SPECULATIVE},
    ),
    "my_fcfs (examples/schedulers)": (str(REPO / "examples" / "schedulers" / "my_fcfs.py"), {}),
    "orderedFillerSched (tests/plugins)": (str(REPO / "tests" / "plugins" / "orderedFillerSched.py"), {}),
}
FAST = ("easyBackfill", "easy")


@pytest.mark.parametrize("case", [c if c in FAST else pytest.param(c, marks=pytest.mark.slow) for c in CTC_CASES])
def test_ctc_excerpt(monkeypatch, tmp_path, ctc, case):
    scheduler, options = CTC_CASES[case]
    both_dispatchers(monkeypatch, tmp_path, scheduler, *ctc, options=options)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("scheduler", ["fillerSched", "easyBackfill", "easy", "conservative"])
def test_walltime_kills_and_coinciding_events(monkeypatch, tmp_path, seed, scheduler):
    nb_res = (2, 4, 8, 3)[seed]
    workload = random_workload(tmp_path / "w.json", seed, nb_res)
    both_dispatchers(monkeypatch, tmp_path, scheduler, workload, write_cluster(nb_res, tmp_path / "p.xml"))


@pytest.mark.parametrize("seed", [0, *(pytest.param(s, marks=pytest.mark.slow) for s in range(1, 6))])
def test_kills_resubmissions_and_dynamic_registration(monkeypatch, tmp_path, seed):
    nb_res = (2, 4, 8)[seed % 3]
    workload = random_workload(tmp_path / "w.json", 100 + seed, nb_res, nb_jobs=30, moldable=True)
    both_dispatchers(
        monkeypatch,
        tmp_path,
        TORTURE,
        workload,
        write_cluster(nb_res, tmp_path / "p.xml"),
        options={"dynamic": True},
        min_share=0.5,  # kills, notifications, resubmissions: pybatsim's own code
        dynamic_jobs=True,
        profile_reuse=True,
    )


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3))
def test_kills_and_moldable_jobs_without_dynamic_jobs(monkeypatch, tmp_path, seed):
    workload = random_workload(tmp_path / "w.json", 200 + seed, 4, nb_jobs=30, moldable=True)
    both_dispatchers(
        monkeypatch,
        tmp_path,
        TORTURE,
        workload,
        write_cluster(4, tmp_path / "p.xml"),
        options={"dynamic": False},
        min_share=0.5,
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    "options",
    [{"strategy": "SEV"}, {"strategy": "ASP"}, {"strategy": "PWS", "mode": "stubborn"}],
    ids=["SEV-greedy", "ASP", "PWS-stubborn"],
)
def test_molded_jobs(monkeypatch, tmp_path, options):
    from adaptsched.workloads.downey import generate

    path = write_workload(generate(2, 0.75, seed=7), tmp_path / "downey.json")
    both_dispatchers(monkeypatch, tmp_path, "downey", path, write_cluster(64, tmp_path / "p64.xml"), options=options)


@pytest.mark.slow
@pytest.mark.parametrize(
    "scheduler,options",
    [("qops", {}), ("qops", {"value_aware": True, "oc_factor": 0.05}), ("dvqops", {"max_window_h": 8.0})],
    ids=["QoPS", "VQoPS", "DVQoPS"],
)
def test_admission_control(monkeypatch, tmp_path, ctc, scheduler, options):
    import json

    from adaptsched.workloads.qos import annotate

    workload, _ = annotate(json.loads(open(ctc[0]).read()), urgent_fraction=0.5, exact=True, seed=2)
    path = write_workload(workload, tmp_path / "qos.json")
    both_dispatchers(monkeypatch, tmp_path, scheduler, path, ctc[1], options=options)


# -- the guard ---------------------------------------------------------------------------------
PROBE = """
import logging

from batsim.batsim import BatsimScheduler
from procset import ProcSet


class Probe(BatsimScheduler):
    \"\"\"First come, first served, written for stock pybatsim; its options change what it does to pybatsim.\"\"\"

    def onSimulationBegins(self):
        self.free = ProcSet((0, self.bs.nb_compute_resources - 1))
        self.queue = []
        mode = self.options.get("mode")
        if mode == "override":  # replaces a method the mirror does not call
            self.bs.get_job_and_profile = self.bs.get_job_and_profile
        if mode == "info":
            logging.getLogger("batsim.batsim").setLevel(logging.INFO)

    def onJobSubmission(self, job):
        if job.requested_resources > self.bs.nb_compute_resources:
            self.bs.reject_jobs([job])
        else:
            self.queue.append(job)
        if self.options.get("mode") == "info-later" and self.bs.nb_jobs_submitted == 5:
            logging.getLogger("batsim.batsim").setLevel(logging.INFO)  # in the middle of a message

    def onJobCompletion(self, job):
        self.free |= job.allocation

    def onNoMoreEvents(self):
        while self.queue and self.queue[0].requested_resources <= len(self.free):
            job = self.queue.pop(0)
            job.allocation = ProcSet(*list(self.free)[: job.requested_resources])
            self.free -= job.allocation
            self.bs.execute_jobs([job])
"""


@pytest.fixture
def probe(tmp_path):
    import logging

    path = tmp_path / "plugin" / "probe.py"
    path.parent.mkdir()
    path.write_text(PROBE)
    workload = random_workload(tmp_path / "w.json", 7, 4, nb_jobs=20)
    try:
        yield str(path), workload, write_cluster(4, tmp_path / "p.xml")
    finally:
        logging.getLogger("batsim.batsim").setLevel(logging.NOTSET)


def log_lines(prefix):
    """The plugin's log without the times of its lines."""
    import re

    text = open(f"{prefix}_sched.log").read()
    return [re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}", "TIME", line) for line in text.splitlines()]


def test_a_stock_pybatsim_plugin(monkeypatch, tmp_path, probe):
    both_dispatchers(monkeypatch, tmp_path, *probe)


@pytest.mark.parametrize(
    "change",
    [
        ("SOURCE_SHA256", {**dispatch.SOURCE_SHA256, "Job": "0" * 64}, "pybatsim's Job is not the one mirrored"),
        ("PYBATSIM_VERSION", "3.2.2", "pybatsim 3.2.1, not 3.2.2"),
    ],
    ids=["source", "version"],
)
def test_another_pybatsim_reads_every_message_itself(monkeypatch, tmp_path, probe, change):
    name, value, note = change
    monkeypatch.setattr(dispatch, name, value)
    recorder = recorded_run(monkeypatch, tmp_path / "r", *probe, mirror=True)
    assert recorder.connection.dispatcher is None
    assert f"pybatsim's own _read_bat_msg reads every message: {note}" in open(f"{tmp_path / 'r'}_sched.log").read()


def test_a_plugin_that_replaces_what_the_mirror_bypasses(monkeypatch, tmp_path, probe):
    recorder = recorded_run(monkeypatch, tmp_path / "r", *probe, mirror=True, options={"mode": "override"})
    assert recorder.connection.dispatcher is not None
    assert recorder.connection.dispatcher.messages == 0


@pytest.mark.parametrize("mode", ["info", "info-later"])
def test_pybatsim_logging_at_info(monkeypatch, tmp_path, probe, mode):
    """At INFO pybatsim logs every message: its own code reads them, and the logs are the same."""
    import logging

    logs = {}
    for name, mirror in (("stock", False), ("mirror", True)):
        logging.getLogger("batsim.batsim").setLevel(logging.NOTSET)
        recorder = recorded_run(monkeypatch, tmp_path / name, *probe, mirror=mirror, options={"mode": mode})
        logs[name] = log_lines(tmp_path / name)
    assert any("Message Received from Batsim" in line for line in logs["mirror"])
    assert logs["stock"] == logs["mirror"]
    assert 0 < recorder.connection.dispatcher.messages < 10 if mode == "info-later" else True


def test_a_subclass_of_batsim_is_not_mirrored():
    import logging

    import batsim.batsim as module

    class Subclass(module.Batsim):
        pass

    handler = inprocess.InProcessHandler()
    mirror = dispatch.Dispatcher(module, handler)
    bs = object.__new__(Subclass)
    bs.__dict__.update(network=handler, jobs={}, profiles={}, logger=logging.getLogger("batsim.batsim"))
    message = {"now": 0.0, "events": [{"timestamp": 0.0, "type": "REQUESTED_CALL", "data": {}}]}
    assert not mirror.route(bs, message)
    bs.__class__ = module.Batsim
    assert mirror.route(bs, message)
    assert not mirror.route(bs, {"now": 0.0, "events": [{"timestamp": 0.0, "type": "JOB_KILLED", "data": {}}]})
    bs.jobs["w0!1"] = None
    submitted = {"job_id": "w0!1", "job": {"id": "w0!1", "subtime": 0, "res": 1, "profile": "p"}}
    event = {"timestamp": 0.0, "type": "JOB_SUBMITTED", "data": submitted}
    assert not mirror.route(bs, {"now": 0.0, "events": [event]})
