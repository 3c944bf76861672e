"""A deterministic pybatsim scheduler that exercises every protocol feature the
embedded engine supports, for conformance tests against real Batsim.

It is not a good scheduler. FIFO first-fit, plus, in a fixed pattern:
- rejects jobs wider than the machine;
- runs ``parallel_homogeneous_total`` jobs on half their requested hosts (moldable);
- sets metadata on every third started job;
- asks CALL_ME_LATER 2.5 s after starting every fourth job and kills that job then
  if it still runs; a killed job is resubmitted once (pybatsim's ``resubmit_job``:
  dynamic REGISTER_JOB with the original's profile, plus SET_JOB_METADATA);
- registers a new profile and a new job in a dynamic workload every seventh
  submission (REGISTER_PROFILE, REGISTER_JOB);
- takes 1 ms of simulated "thinking time" (consume_time) on every odd decision
  round, so some decisions carry timestamps in the future of the message;
- sends NOTIFY registration_finished once nothing can happen any more.
Options (pybatsim -o JSON): {"dynamic": false} disables the dynamic parts.
"""

from batsim.batsim import BatsimScheduler
from procset import ProcSet


class TortureSched(BatsimScheduler):
    def onSimulationBegins(self):  # pybatsim calls onAfterBatsimInit only after the first message
        self.dynamic = self.options.get("dynamic", True) if isinstance(self.options, dict) else True
        self.free = list(range(self.bs.nb_compute_resources))
        self.waiting = []
        self.running = {}
        self.to_kill = {}  # requested-call time -> job id
        self.started = 0
        self.submissions = 0
        self.rounds = 0
        self.registered = 0
        self.resubmitted = set()
        self.finished_registration = False

    # -- helpers --------------------------------------------------------------
    def _size(self, job):
        profile = job.profile_dict or {}
        if profile.get("type") == "parallel_homogeneous_total":
            return max(1, job.requested_resources // 2)
        return job.requested_resources

    def _schedule(self):
        started = []
        while self.waiting:
            job = self.waiting[0]
            size = self._size(job)
            if size > len(self.free):
                break
            self.waiting.pop(0)
            hosts, self.free = self.free[:size], self.free[size:]
            job.allocation = ProcSet(*hosts)
            self.running[job.id] = job
            started.append(job)
        if started:
            self.bs.execute_jobs(started)
        for job in started:
            self.started += 1
            if self.started % 3 == 0:
                self.bs.set_job_metadata(job.id, {"started": self.started})  # a dict: resubmit_job extends it
            if self.started % 4 == 0 and job.id not in self.resubmitted:
                when = self.bs.time() + 2.5
                self.to_kill[when] = job.id
                self.bs.wake_me_up_at(when)

    def _release(self, job):
        running = self.running.pop(job.id, None)
        if running is not None:
            self.free = sorted(self.free + list(running.allocation))

    def _maybe_finish_registration(self):
        if (
            self.dynamic
            and not self.finished_registration
            and self.bs.no_more_static_jobs
            and not self.waiting
            and not self.running
            and not self.to_kill
        ):
            self.bs.notify_registration_finished()
            self.finished_registration = True

    # -- pybatsim callbacks -----------------------------------------------------
    def onJobSubmission(self, job):
        self.submissions += 1
        if job.requested_resources > self.bs.nb_compute_resources or job.requested_resources == 0:
            self.bs.reject_jobs([job])
            return
        self.waiting.append(job)
        if self.dynamic and self.submissions % 7 == 0:
            self.registered += 1
            name = f"dynp{self.registered}"
            self.bs.register_profiles("dyn", {name: {"type": "delay", "delay": 1.5 + self.registered}})
            new = self.bs.register_job(f"dyn!{self.registered}", 1, 10.0, name)
            self.waiting.append(new)

    def onJobCompletion(self, job):
        self._release(job)

    def onJobsKilled(self, jobs):
        for job in jobs:
            self._release(job)
            if self.dynamic and job.id not in self.resubmitted:
                copy = self.bs.resubmit_job(job)
                self.resubmitted.add(copy.id)
                copy.profile_dict = job.profile_dict
                self.waiting.append(copy)

    def onRequestedCall(self):
        now = self.bs.time()
        for when in sorted(w for w in self.to_kill if w <= now + 1e-9):
            job_id = self.to_kill.pop(when)
            job = self.running.get(job_id)
            if job is not None:  # (pybatsim sets job.state, not job.job_state, on execution)
                self.bs.kill_jobs([job])

    def onNoMoreJobsInWorkloads(self):
        pass

    def onNoMoreEvents(self):
        if not hasattr(self, "rounds"):  # the SIMULATION_BEGINS message
            return
        self.rounds += 1
        self._schedule()
        if self.rounds % 2:
            self.bs.consume_time(0.001)
        self._maybe_finish_registration()
