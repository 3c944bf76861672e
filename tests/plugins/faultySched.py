"""A pybatsim scheduler that makes one chosen mistake, to test how engines report them.

Option ``mistake`` (pybatsim -o '{"mistake": ...}'):
  wrong_size   starts the first job on one host more than it asks for
  busy_host    starts the second job on the hosts of the first one
  twice        starts the first job twice
  unknown_job  starts a job that does not exist
  unsupported  sends an event the embedded engine does not support (CHANGE_JOB_STATE)
  past_call    asks to be called back in the past
  quotes       sets metadata containing double quotes
  crash        raises an exception when the third job is submitted
  exit         calls sys.exit(3) when the third job is submitted
  hang         loops forever when the third job is submitted
  os_exit      calls os._exit(4) when the third job is submitted
  os_exit_0    calls os._exit(0) (success!) when the third job is submitted
  kill         kills its own process (SIGKILL) when the third job is submitted
Otherwise it is plain FCFS on the lowest host ids.
"""

import os
import signal
import sys
import time

from batsim.batsim import BatsimScheduler
from procset import ProcSet


class FaultySched(BatsimScheduler):
    def onSimulationBegins(self):
        self.mistake = self.options.get("mistake")
        self.free = list(range(self.bs.nb_compute_resources))
        self.waiting, self.running, self.seen = [], {}, 0

    def onJobSubmission(self, job):
        self.seen += 1
        if self.mistake == "crash" and self.seen == 3:
            raise RuntimeError("faultySched: deliberate crash at the third submission")
        if self.mistake == "exit" and self.seen == 3:
            print("faultySched: deliberate sys.exit at the third submission")
            sys.exit(3)
        if self.mistake == "os_exit" and self.seen == 3:
            os._exit(4)
        if self.mistake == "os_exit_0" and self.seen == 3:
            os._exit(0)
        if self.mistake == "kill" and self.seen == 3:
            os.kill(os.getpid(), signal.SIGKILL)
        if self.mistake == "hang" and self.seen == 3:
            print("faultySched: deliberate hang at the third submission", flush=True)
            while True:
                time.sleep(0.05)
        self.waiting.append(job)

    def onJobCompletion(self, job):
        self.free = sorted(self.free + list(self.running.pop(job.id).allocation))

    def onNoMoreEvents(self):
        if not hasattr(self, "free"):
            return
        started = []
        while self.waiting and self.waiting[0].requested_resources <= len(self.free):
            job = self.waiting.pop(0)
            size = job.requested_resources
            hosts, self.free = self.free[:size], self.free[size:]
            job.allocation = ProcSet(*hosts)
            self.running[job.id] = job
            started.append(job)
        if not started:
            return
        first = started[0]
        if self.mistake == "wrong_size":
            first.allocation = ProcSet(*range(first.requested_resources + 1))
        elif self.mistake == "busy_host" and len(started) > 1:
            started[1].allocation = first.allocation
        elif self.mistake == "twice":
            started.append(first)
        elif self.mistake == "unknown_job":
            self.bs._events_to_send.append(
                {"timestamp": self.bs.time(), "type": "EXECUTE_JOB", "data": {"job_id": "w0!nope", "alloc": "0"}}
            )
        elif self.mistake == "unsupported":
            self.bs._events_to_send.append(
                {
                    "timestamp": self.bs.time(),
                    "type": "CHANGE_JOB_STATE",
                    "data": {"job_id": first.id, "job_state": "COMPLETED_KILLED"},
                }
            )
        elif self.mistake == "past_call":
            self.bs.wake_me_up_at(self.bs.time() - 1)
        elif self.mistake == "quotes":
            self.bs.set_job_metadata(first.id, 'say "hi"')
        self.bs.execute_jobs(started)
