"""A pybatsim scheduler that kills the process that started it, to test how sweeps survive it.

With option ``kill_worker`` true (pybatsim -o '{"kill_worker": true}'), at the third job
submission it sends SIGKILL to the Dask worker running the simulation: its own process
when it runs in the embedded engine's process (the ``inprocess`` transport, in a worker),
its parent otherwise (the process that started it: the worker, over ZeroMQ), and exits.
Otherwise, and until then, it is plain FCFS on the lowest host ids.
"""

import os
import signal

from batsim.batsim import BatsimScheduler
from procset import ProcSet


def _worker_pid():
    try:
        from distributed import get_worker

        get_worker()  # raises outside a Dask worker's task
        return os.getpid()
    except (ImportError, ValueError):
        return os.getppid()


class KillerSched(BatsimScheduler):
    def onSimulationBegins(self):
        self.kill_worker = bool(self.options.get("kill_worker"))
        self.free = list(range(self.bs.nb_compute_resources))
        self.waiting, self.running, self.seen = [], {}, 0

    def onJobSubmission(self, job):
        self.seen += 1
        if self.kill_worker and self.seen == 3:
            pid = _worker_pid()
            print(f"killerSched: killing my worker (pid {pid}) at the third submission", flush=True)
            os.kill(pid, signal.SIGKILL)
            os._exit(9)
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
        if started:
            self.bs.execute_jobs(started)
