"""The thin pybatsim adapter over adaptsched's pure schedulers (``adaptsched.core``).

It forwards pybatsim's callbacks (submissions, completions) to the pure
scheduler and, once per message from Batsim (``onNoMoreEvents``), sends the
scheduler's decisions: EXECUTE_JOB, REJECT_JOB, SET_JOB_METADATA, CALL_ME_LATER.
It is built on pybatsim's low-level ``BatsimScheduler`` (its high-level
``batsim.sched`` API is about 350 times slower).
"""

from __future__ import annotations

from procset import ProcInt, ProcSet

from batsim.batsim import BatsimScheduler

from adaptsched.core.base import Job
from adaptsched.core.hosts import runs


class Allocation(ProcSet):
    """A ProcSet that knows its Batsim text (pybatsim sends ``str(job.allocation)``)."""

    __slots__ = ("_text",)

    def __str__(self):
        return self._text


def procset(hosts) -> Allocation:
    """ProcSet of sorted, distinct host ids.

    ``ProcSet(*ids)`` merges its arguments one by one (2.6 s for CTC's first 5,000
    allocations); the maximal runs of sorted ids are already ProcSet's canonical
    interval list, so it is set directly (checked against ``ProcSet(*ids)`` in the tests),
    with its text, which pybatsim would otherwise format again.
    """
    pairs = runs(hosts)
    intervals = [ProcInt(a, b) for a, b in pairs]
    result = Allocation()
    result._itvs = intervals
    result._text = " ".join(str(a) if a == b else f"{a}-{b}" for a, b in pairs)
    return result


def parse_options(core_class, options) -> dict:
    """Checks pybatsim's ``-o`` options against the scheduler's declared options."""
    options = dict(options or {})
    known = core_class.options
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise ValueError(f"scheduler {core_class.name!r} has no option {unknown[0]!r}; "
                         f"its options are: {', '.join(known) or 'none'}")
    return options


class PlannerScheduler(BatsimScheduler):
    """A pybatsim scheduler running the pure scheduler class ``core_class``."""

    core_class = None

    def __init__(self, options=None):
        super().__init__(options or {})
        self.core_options = parse_options(self.core_class, options)
        self.core = None
        self.jobs = {}  # pybatsim Job objects of the waiting jobs

    def onSimulationBegins(self):
        self.core = self.core_class(self.bs.nb_compute_resources, **self.core_options)

    def onJobSubmission(self, job):
        self.jobs[job.id] = job
        request = Job(job.id, job.submit_time, job.requested_resources, job.requested_time, job.json_dict)
        self.core.submit(request, self.bs.time())

    def onJobCompletion(self, job):
        self.core.complete(job.id, self.bs.time())

    def onJobsKilled(self, jobs):
        pass  # Batsim reports killed jobs with JOB_COMPLETED (COMPLETED_KILLED) too

    def onRequestedCall(self):
        pass

    def onNoMoreJobsInWorkloads(self):
        pass

    def onNoMoreEvents(self):
        if self.core is None:  # the SIMULATION_BEGINS message
            return
        bs = self.bs
        decisions = self.core.schedule(bs.time())
        if decisions.rejects:
            bs.reject_jobs_by_id(decisions.rejects)
        if decisions.starts:
            started = []
            for job_id, hosts in decisions.starts:
                job = self.jobs.pop(job_id)
                job.allocation = procset(hosts)
                started.append(job)
            bs.execute_jobs(started)
        for job_id, values in decisions.metadata.items():
            bs.set_job_metadata(job_id, values)
        if decisions.wake_at is not None:
            bs.wake_me_up_at(decisions.wake_at)
