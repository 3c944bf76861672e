"""FCFS that molds: a job that does not fit runs at once on the free hosts if its speedup model
says it would end sooner than by waiting for its request (docs/writing-a-scheduler.md, step 4).

A moldable job carries its speedup model in the workload (``adaptsched mold-annotate`` adds
it: ``"moldable": {"model": "downey", ...}``, sizes ``min_res`` to ``max_res``); ``model_of``
reads it. ``start_sized`` runs the job on another size: Batsim then runs a copy of it for the
model's runtime at that size (a job copy: the options say the run needs dynamic jobs).
"""

from dataclasses import dataclass

from adaptsched.api import AvailabilityProfile, OnlineScheduler, Options, model_of, plugin


@dataclass(frozen=True)
class MoldingOptions(Options):
    def needs_dynamic_jobs(self):
        return True  # a job molded to another size runs as a copy, registered during the run


class MyMoldable(OnlineScheduler):
    """FCFS; the first job that does not fit may run now on fewer hosts, if that ends it sooner."""

    name = "my-moldable"
    Options = MoldingOptions

    def plan(self, now):
        started = []
        for job in self.queue:
            if job.res <= self.pool.nb_free:
                self.start(job, now)
            elif not self.start_smaller(job, now):
                break  # it waits for its request, and every job behind it too
            started.append(job)
        self.queue.remove_all(started)

    def start_smaller(self, job, now):
        """Starts ``job`` on the free hosts if its model ends it sooner there than at its request."""
        n = min(self.pool.nb_free, job.fields.get("max_res", job.res))
        if "moldable" not in job.fields or n < job.fields.get("min_res", job.res):
            return False
        model = model_of(job.fields, self.nb_hosts)
        ends = sorted((r.end_s, r.res) for r in self.running.values())  # expected ends
        profile = AvailabilityProfile.of_running(self.nb_hosts, now, ends)
        wait_s = profile.earliest_fit(job.res, job.walltime_s, now) - now
        if now + model.runtime(n) >= now + wait_s + model.runtime(job.res):
            return False
        self.start_sized(job, now, n, model)
        return True


plugin(MyMoldable)
