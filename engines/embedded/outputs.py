"""``PREFIX_jobs.csv``, ``PREFIX_schedule.csv`` and ``PREFIX_machine_states.csv`` exactly as
Batsim 4.2.1 writes them.

Source: Batsim ``src/export.cpp`` (``JobsTracer``). A job's row is written when it
completes or is rejected, so rows come in completion order; numbers are printed
with ``%f``; rejected jobs have empty time columns. The schedule summary's means
divide by every job, rejected ones included, and its ``time_*`` columns sum the
host-seconds spent in each state *up to each host's last state change* (the idle
tail after a host's last job is not counted), as Batsim does.

Rows are flushed to disk regularly, so a run that stops early (a crashed
scheduler, an invalid decision) keeps every row already produced. A run writes them under
their partial names (``suffix``: ``PREFIX_jobs.csv.partial``), renamed when it succeeds
(:mod:`adaptsched.engines.run.partial`).

``PREFIX_machine_states.csv`` (``MachineStateTracer`` in ``src/export.cpp``): one row each
time a job starts or ends (``Machines::update_machines_on_job_run`` and ``..._on_job_end`` in
``src/machines.cpp``, after every host of the job changed state), giving the number of
compute hosts in each state from then on. Columns ``time,nb_sleeping,nb_switching_on,
nb_switching_off,nb_idle,nb_computing``; the time is printed with ``%g`` (6 significant
digits, so long runs print times like ``1.23457e+06``), the counts with ``%d``. Without
energy (power states), hosts are only idle or computing, and no row is written at time 0.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Iterator
from typing import Any

from adaptsched.engines.embedded.cppnumbers import job_times
from adaptsched.formats.outputs import JOBS_COLUMNS, SCHEDULE_COLUMNS

#: What the embedded engine writes in ``batsim_version``: the protocol it speaks.
VERSION = "4.2.1-adaptsched-embedded"


def repeated(values: tuple[float, ...], count: int) -> Iterator[float]:
    """Terms whose exact sum is each value repeated ``count`` times, O(log count) of them:
    value * 2^k for each bit k of ``count`` (exact: a power-of-two scaling), so that
    ``math.fsum`` gives the very sum of the values repeated one by one (correctly rounded)."""
    k = 1
    while count:
        if count & 1:
            for value in values:
                yield value * k
        count >>= 1
        k <<= 1


#: A row of ``_jobs.csv`` (``JOBS_COLUMNS``): doubles printed with ``%f``, integers and texts
#: with ``%s``, the metadata between double quotes. ``consumed_energy`` is -1.000000 (Batsim's
#: default) without ``--energy``, else the job's energy as ``%Lf`` (engines/embedded/pstates.py).
ROW = '%s,%s,%s,%f,%s,%f,%s,%s,%f,%f,%f,%f,%f,%f,%s,%s,"%s"\n'
#: A rejected job's row: its time columns empty.
REJECTED_ROW = '%s,%s,%s,%f,%s,%f,0,%s,,,,,,,%s,,"%s"\n'


class JobsTracer:
    def __init__(self, prefix: str, nb_machines: int, *, flush_every: int = 512, suffix: str = "") -> None:
        self.jobs_path = f"{prefix}_jobs.csv{suffix}"
        self.schedule_path = f"{prefix}_schedule.csv{suffix}"
        self.nb_machines = nb_machines
        self._file = open(self.jobs_path, "w")
        self._file.write(",".join(JOBS_COLUMNS) + "\n")
        self._file.flush()
        self._pending = 0
        self._flush_every = flush_every
        self.nb_jobs = self.nb_finished = self.nb_success = self.nb_killed = self.nb_rejected = 0
        # Batsim sums in long double; exact sums (math.fsum at the end) print the same digits
        self.starts: list[float] = []
        self.finishes: list[float] = []
        self.submits: list[float] = []
        self.slowdowns: list[float] = []
        self.busy: list[tuple[float, float, int]] = []  # (start, finish, hosts) of every executed job
        self.makespan = self.max_wait = self.max_turnaround = self.max_slowdown = 0.0
        self.started_at = time.perf_counter()
        self.long_double = False  # times as Batsim's long double arithmetic gives them (longdouble.py)

    def write_job(self, job: Any, workload_name: str, allocation_text: str) -> None:
        self.nb_jobs += 1
        state = job.state
        rejected = state == "REJECTED"
        success = 1 if state == "COMPLETED_SUCCESSFULLY" else 0
        if rejected:
            self.nb_rejected += 1
            self._file.write(
                REJECTED_ROW
                % (
                    job.name,
                    workload_name,
                    job.profile,
                    job.subtime,
                    job.res,
                    job.walltime,
                    state,
                    allocation_text,
                    job.metadata,
                )
            )
        else:
            self.nb_finished += 1
            if success:
                self.nb_success += 1
            else:
                self.nb_killed += 1
            start, runtime = job.starting_time, job.runtime
            if self.long_double and not (start.is_integer() and runtime.is_integer()):
                runtime, finish, wait, turnaround, slowdown = job_times(start, job.finish_clock, job.subtime)
            else:
                finish = start + runtime
                wait = start - job.subtime
                turnaround = finish - job.subtime
                slowdown = turnaround / runtime
            self.starts.append(start)
            self.finishes.append(finish)
            self.submits.append(job.subtime)
            self.slowdowns.append(slowdown)
            # a job that took no time computed for none (Batsim's machines), though it prints a 1e-5 s runtime
            busy_until = start if job.finish_clock == start else finish
            self.busy.append((start, busy_until, job.res if job.allocation is None else len(job.allocation)))
            # max(self.makespan, finish) and so on, without the calls: the same (the first if equal)
            if finish > self.makespan:
                self.makespan = finish
            if wait > self.max_wait:
                self.max_wait = wait
            if turnaround > self.max_turnaround:
                self.max_turnaround = turnaround
            if slowdown > self.max_slowdown:
                self.max_slowdown = slowdown
            self._file.write(
                ROW
                % (
                    job.name,
                    workload_name,
                    job.profile,
                    job.subtime,
                    job.res,
                    job.walltime,
                    success,
                    state,
                    start,
                    runtime,
                    finish,
                    wait,
                    turnaround,
                    slowdown,
                    allocation_text,
                    job.consumed_energy,
                    job.metadata,
                )
            )
        self._pending += 1
        if self._pending >= self._flush_every:
            self._file.flush()
            self._pending = 0

    @property
    def pending(self) -> int:
        """Rows written but maybe not yet on disk."""
        return self._pending

    def flush(self) -> None:
        self._file.flush()
        self._pending = 0

    def time_computing(self) -> float:
        """Host-seconds spent computing: sum over jobs and hosts of finish - start, exactly."""
        return math.fsum(t for start, finish, hosts in self.busy for t in repeated((finish, -start), hosts))

    def finalize(
        self,
        *,
        scheduling_time_s: float,
        last_changes: Iterable[tuple[float, int]],
        energy: dict[str, str] | None = None,
    ) -> None:
        """Closes the jobs file and writes the schedule summary.

        ``last_changes``: (time, number of hosts) of the hosts' last state changes. A host's
        idle time that Batsim counts is its time before that change minus its computing time.
        ``energy``: with ``--energy``, the columns the energy model gives (``consumed_joules``,
        the switch counts, the ``time_*`` sums of every machine state).
        """
        if not self._file.closed:
            self._file.close()
        n = self.nb_jobs
        mean = (lambda total: total / n) if n else (lambda total: float("nan"))
        time_computing = self.time_computing()
        time_idle = math.fsum(t for value, count in last_changes for t in repeated((value,), count)) - time_computing
        sum_wait = math.fsum(self.starts + [-t for t in self.submits])
        sum_turnaround = math.fsum(self.finishes + [-t for t in self.submits])
        sum_slowdown = math.fsum(self.slowdowns)
        values = {
            "batsim_version": VERSION,
            "consumed_joules": "%f" % 0.0,
            "makespan": "%f" % self.makespan,
            "max_slowdown": "%f" % self.max_slowdown,
            "max_turnaround_time": "%f" % self.max_turnaround,
            "max_waiting_time": "%f" % self.max_wait,
            "mean_slowdown": "%f" % mean(sum_slowdown),
            "mean_turnaround_time": "%f" % mean(sum_turnaround),
            "mean_waiting_time": "%f" % mean(sum_wait),
            "nb_computing_machines": str(self.nb_machines),
            "nb_grouped_switches": "0",
            "nb_jobs": str(n),
            "nb_jobs_finished": str(self.nb_finished),
            "nb_jobs_killed": str(self.nb_killed),
            "nb_jobs_rejected": str(self.nb_rejected),
            "nb_jobs_success": str(self.nb_success),
            "nb_machine_switches": "0",
            "scheduling_time": "%f" % scheduling_time_s,
            "simulation_time": "%f" % (time.perf_counter() - self.started_at),
            "success_rate": "%f" % (self.nb_success / n if n else float("nan")),
            "time_computing": "%f" % time_computing,
            "time_idle": "%f" % time_idle,
            "time_sleeping": "%f" % 0.0,
            "time_switching_off": "%f" % 0.0,
            "time_switching_on": "%f" % 0.0,
            "time_unavailable": "%f" % 0.0,
        }
        if energy is not None:
            values.update(energy)
        with open(self.schedule_path, "w") as out:
            out.write(",".join(SCHEDULE_COLUMNS) + "\n")
            out.write(",".join(values[c] for c in SCHEDULE_COLUMNS) + "\n")


MACHINE_STATES_COLUMNS = ("time", "nb_sleeping", "nb_switching_on", "nb_switching_off", "nb_idle", "nb_computing")


class MachineStateTracer:
    """``PREFIX_machine_states.csv``: call :meth:`write` after each job start or end."""

    def __init__(self, prefix: str, nb_machines: int, *, suffix: str = "") -> None:
        self.path = f"{prefix}_machine_states.csv{suffix}"
        self.nb_machines = nb_machines
        self._file = open(self.path, "w", buffering=1 << 16)  # Batsim's WriteBuffer is 64 KiB too
        self._file.write(",".join(MACHINE_STATES_COLUMNS) + "\n")
        self._file.flush()

    def write(self, now: float, nb_computing: int) -> None:
        self._file.write("%g,0,0,0,%d,%d\n" % (now, self.nb_machines - nb_computing, nb_computing))

    def close(self) -> None:
        if not self._file.closed:
            self._file.close()


class EnergyMachineStateTracer(MachineStateTracer):
    """With ``--energy``: the counts of every machine state (engines/embedded/machines.py)."""

    def __init__(self, prefix: str, nb_machines: int, states: Any, *, suffix: str = "") -> None:
        super().__init__(prefix, nb_machines, suffix=suffix)
        self.states = states

    def write(self, now: float, nb_computing: int) -> None:
        self._file.write("%g,%d,%d,%d,%d,%d\n" % (now, *self.states.row()))
