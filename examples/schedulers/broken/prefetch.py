"""Deliberately broken: starts a job before its submission. ``adaptsched check`` must fail on it.

A plain pybatsim plugin (no adaptsched API: ``adaptsched check`` takes any plugin) that
"prefetches": when a job is submitted it starts it, and also the next job of the workload
file, which Batsim has not submitted yet. Both engines refuse to execute a job that is not
submitted, and ``adaptsched check`` reports the smallest workload that shows it (two jobs, the
second submitted later). ``tests/test_check.py`` checks that it does.
"""

import itertools
import json

from batsim.batsim import BatsimScheduler
from procset import ProcSet


class Prefetch(BatsimScheduler):
    def onSimulationBegins(self):
        self.free = ProcSet((0, self.bs.nb_compute_resources - 1))
        self.upcoming = {}  # job id -> the next job of the workload file
        for name, path in self.bs.workloads.items():
            with open(path) as handle:
                jobs = sorted(json.load(handle)["jobs"], key=lambda job: job["subtime"])
            for job, later in itertools.pairwise(jobs):
                self.upcoming[f"{name}!{job['id']}"] = (f"{name}!{later['id']}", later["res"])

    def onJobSubmission(self, job):
        self.start(job.id, job.requested_resources)
        later, res = self.upcoming.get(job.id, (None, 0))
        if later is not None and later not in self.bs.jobs:  # not submitted yet: the bug
            self.start(later, res)

    def start(self, job_id, res):
        if res > len(self.free):
            return
        hosts = ProcSet(*list(self.free)[:res])
        self.free -= hosts
        self.bs._events_to_send.append(  # pybatsim's execute_jobs() wants a submitted job
            {"timestamp": self.bs.time(), "type": "EXECUTE_JOB", "data": {"job_id": job_id, "alloc": str(hosts)}}
        )

    def onJobCompletion(self, job):
        self.free |= job.allocation if job.allocation is not None else ProcSet()
