"""pybatsim's ``fillerSched``, made deterministic: the conformance suite's exact comparison.

Stock ``fillerSched`` (pybatsim 3.x, ``schedulers/fillerSched.py``) keeps the waiting
jobs in a ``set`` of job objects and walks a copy of it on every submission and
completion, starting each job that fits on the lowest free hosts. A set of objects
iterates in the order of their hash, that is of their memory addresses, so which of
two waiting jobs gets the free hosts depends on the process's allocation history; and
that history differs from run to run (address randomisation, and, under load, the
receive loop's timeouts allocating different objects), so two runs of the same
simulation may differ even on one engine.

This twin is line for line the same scheduler, with one change: the waiting jobs are a
``dict`` (insertion-ordered), walked in submission order. Same decisions kinds, same
``consume_time(0.005)`` before each batch of starts, same rejection of jobs wider than
the machine. Its outputs are a pure function of the workload, so the conformance suite
compares it exactly across engines; the stock one is checked on invariants only.
"""

from itertools import islice

from batsim.batsim import BatsimScheduler
from procset import ProcSet


class OrderedFillerSched(BatsimScheduler):
    def onAfterBatsimInit(self):
        self.sched_delay = 0.005
        self.openJobs = {}  # job id -> job, in submission order
        self.availableResources = ProcSet((0, self.bs.nb_compute_resources - 1))

    def scheduleJobs(self):
        scheduledJobs = []
        for job_id, job in list(self.openJobs.items()):
            nb_res_req = job.requested_resources
            if nb_res_req <= len(self.availableResources):
                job_alloc = ProcSet(*islice(self.availableResources, nb_res_req))
                job.allocation = job_alloc
                scheduledJobs.append(job)
                self.availableResources -= job_alloc
                del self.openJobs[job_id]
        self.bs.consume_time(self.sched_delay)
        if scheduledJobs:
            self.bs.execute_jobs(scheduledJobs)

    def onJobSubmission(self, job):
        if job.requested_resources > self.bs.nb_compute_resources:
            self.bs.reject_jobs([job])  # wider than the machine
        else:
            self.openJobs[job.id] = job
            self.scheduleJobs()

    def onJobCompletion(self, job):
        self.availableResources |= job.allocation
        self.scheduleJobs()
