"""Batsim 4.2.1's processes, re-implemented on the SimGrid-like kernel.

Each function below is the Python twin of a Batsim actor, step for step, so that
the scheduler receives the same messages, batched the same way, in the same
order, at the same times as with real Batsim on a network-less platform:

========================  ==========================================================
``server``                ``src/server.cpp``: handles one internal message at a time;
                          sends the accumulated events to the scheduler when it is
                          ready and the server mailbox is empty.
``static_job_submitter``  ``src/job_submitter.cpp``: submits the jobs of one workload
                          at their submission times, grouped by equal times.
``execute_job``           ``src/jobs_execution.cpp``: runs one job (delay or
                          parallel_homogeneous_total profile) with its walltime.
``waiter``                ``waiter_process``: answers CALL_ME_LATER.
``killer``                ``killer_process``: KILL_JOB.
``request_reply``         ``src/network.cpp`` + ``src/protocol.cpp``: one exchange
                          with the scheduler, then its decisions delivered to the
                          server at their timestamps, then SCHED_READY.
========================  ==========================================================

Every check Batsim makes on a decision (unknown job, allocation of the wrong size,
busy host, job started twice, ...) stops the run with a
:class:`~adaptsched.errors.SimulationError` naming the event.
"""

from __future__ import annotations

import gc
import json
import time
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import replace
from typing import Any, NoReturn

from adaptsched.core.intervals import IntervalMap, IntervalSet
from adaptsched.engines.embedded import profiles
from adaptsched.engines.embedded.cppnumbers import batsim_double, ld_difference
from adaptsched.engines.embedded.decisions import DecisionParser, Message
from adaptsched.engines.embedded.energy import HostSet
from adaptsched.engines.embedded.jobs import JobRecord
from adaptsched.engines.embedded.kernel import (
    CREATE,
    EXEC_CANCEL,
    GET,
    KILL,
    PUT,
    SLEEP,
    SLEEP_HOOKED,
    Body,
    Mailbox,
    Simcall,
)
from adaptsched.engines.embedded.machines import COMPUTING, IDLE
from adaptsched.engines.embedded.network import kernel_for
from adaptsched.engines.embedded.outputs import EnergyMachineStateTracer, JobsTracer, MachineStateTracer
from adaptsched.engines.embedded.pstates import PowerSide, ids_of
from adaptsched.errors import SimulationError
from adaptsched.formats.intervals import RunsText, hosts_text, parse_runs
from adaptsched.formats.jsontext import RawJson, dumps
from adaptsched.workloads.batsim_json import Workload

#: ``json.loads``' own scanner (what it calls on a text without leading blanks): (value, end)
_scan: Callable[[str, int], tuple[Any, int]] = json.decoder.JSONDecoder().scan_once  # type: ignore[attr-defined]
COMPLETED_STATES = ("COMPLETED_SUCCESSFULLY", "COMPLETED_FAILED", "COMPLETED_WALLTIME_REACHED", "COMPLETED_KILLED")


class EngineOptions:
    """Batsim command-line switches the embedded engine honours."""

    def __init__(
        self,
        *,
        dynamic_jobs: bool = False,
        ack_dynamic_jobs: bool = False,
        profile_reuse: bool = False,
        forward_profiles: bool = False,
        sched_config: str = "",
        energy: bool = False,
    ) -> None:
        self.dynamic_jobs = dynamic_jobs  # --enable-dynamic-jobs
        self.ack_dynamic_jobs = ack_dynamic_jobs  # --acknowledge-dynamic-jobs
        self.profile_reuse = profile_reuse  # --enable-profile-reuse
        self.forward_profiles = forward_profiles  # --forward-profiles-on-submission
        self.sched_config = sched_config  # --sched-cfg
        self.energy = energy  # -E, --energy: the energy model (engines/embedded/pstates.py)

    @property
    def garbage_collect_profiles(self) -> bool:
        return not (self.dynamic_jobs and self.profile_reuse)


class EventBuffer:
    """Batsim's ``JsonProtocolWriter``: the events waiting to be sent, as JSON text (what goes
    over ZeroMQ: Batsim's own text, every double printed with ``%f``)."""

    def __init__(self) -> None:
        self.events: list[Any] = []

    def append(self, timestamp: float, etype: str, data: Any) -> None:
        """An event whose ``data`` is a Python value (:func:`~adaptsched.formats.jsontext.dumps`)."""
        self.events.append('{"timestamp":%f,"type":"%s","data":%s}' % (timestamp, etype, dumps(data)))

    def job_submitted(self, timestamp: float, job: JobRecord, profile: Any) -> None:
        if profile is None:
            data = '{"job_id":%s,"job":%s}' % (dumps(job.id), job.json)
        else:
            data = '{"job_id":%s,"job":%s,"profile":%s}' % (dumps(job.id), job.json, profile.json)
        self.events.append('{"timestamp":%f,"type":"JOB_SUBMITTED","data":%s}' % (timestamp, data))

    def job_completed(self, timestamp: float, job: JobRecord) -> None:
        self.events.append(
            '{"timestamp":%f,"type":"JOB_COMPLETED","data":{"job_id":%s,"job_state":"%s","return_code":%d,"alloc":"%s"}}'
            % (timestamp, dumps(job.id), job.state, job.return_code, job.alloc_text)
        )

    def empty(self) -> bool:
        return not self.events

    def message(self, now: float) -> Any:  # the text (here) or the structure (in-process)
        text = '{"now":%f,"events":[%s]}' % (now, ",".join(self.events))
        self.events = []
        return text


def received(t: float) -> float:
    """A double as the scheduler receives it from Batsim's text (printed with ``%f``, read back)."""
    return t if t.is_integer() else float("%f" % t)


class PythonEventBuffer(EventBuffer):
    """The same events as Python structures, each exactly what ``json.loads`` makes of the text
    :class:`EventBuffer` writes (the in-process transport: no JSON text per message)."""

    def append(self, timestamp: float, etype: str, data: Any) -> None:
        # rare events (simulation begins or ends, kills, notifications): through the text, exact
        self.events.append({"timestamp": received(timestamp), "type": etype, "data": json.loads(dumps(data))})

    def job_submitted(self, timestamp: float, job: JobRecord, profile: Any) -> None:
        # json.loads(text) without its wrappers: the text is dumps' (no surrounding blanks), one value
        text = job.json
        data = {"job_id": job.id, "job": _scan(text, 0)[0] if text else json.loads(text)}
        if profile is not None:
            data["profile"] = json.loads(profile.json)
        received = timestamp if timestamp.is_integer() else float("%f" % timestamp)  # received(), inline
        self.events.append({"timestamp": received, "type": "JOB_SUBMITTED", "data": data})

    def job_completed(self, timestamp: float, job: JobRecord) -> None:
        data = {"job_id": job.id, "job_state": job.state, "return_code": job.return_code, "alloc": job.alloc_text}
        received = timestamp if timestamp.is_integer() else float("%f" % timestamp)  # received(), inline
        self.events.append({"timestamp": received, "type": "JOB_COMPLETED", "data": data})

    def message(self, now: float) -> dict[str, Any]:
        message = {"now": received(now), "events": self.events}
        self.events = []
        return message


class EmbeddedBatsim:
    """One simulation: a platform, static workloads and a scheduler connection."""

    def __init__(
        self,
        platform: Any,
        workloads: list[Workload],
        connection: Any,
        export_prefix: str,
        *,
        options: EngineOptions | None = None,
        progress: Callable[[int], None] | None = None,
        output_suffix: str = "",
    ) -> None:
        """``output_suffix`` follows each output's name (``.partial``: :mod:`adaptsched.engines.run.partial`)."""
        self.platform = platform
        # The engine's own view of each workload: its profiles as Batsim holds them during the run
        # (freed with their last job unless reused, registered by the scheduler), in a dict of its
        # own. The workloads given are left as they are: the end-of-run physics check times every
        # job against them (engines/checks/physics.py), and a caller may run them again.
        self.workloads = {w.name: replace(w, profiles=dict(w.profiles)) for w in workloads}
        self.static_workloads = [w.name for w in workloads]
        self.connection = connection
        self.options = options or EngineOptions()
        self.progress = progress  # called with the number of completed jobs
        self.kernel = kernel_for(self)  # a network model when the platform's messages take time
        self.mbox = Mailbox("server")
        self.python_wire = getattr(connection, "wire", "text") == "python"
        self.events = PythonEventBuffer() if self.python_wire else EventBuffer()
        self.nb_hosts = platform.nb_hosts
        self.speeds = [h.speed_flops for h in platform.compute_hosts]
        self.uniform_speed = self.speeds[0] if self.speeds and len(set(self.speeds)) == 1 else None
        # hosts as runs: a job's cost does not grow with its width
        # (the job computing on each host, the host's last state change): one map, one assign per run
        self.host_job: IntervalMap[tuple[str | None, float]] = IntervalMap(self.nb_hosts, (None, 0.0))
        # _schedule.csv's nb_computing_machines counts storage machines too (Batsim's machines.size())
        self.tracer = JobsTracer(export_prefix, self.nb_hosts + len(platform.storage_hosts), suffix=output_suffix)
        self.tracer.long_double = platform.network is not None  # fractional times: Batsim's arithmetic
        self.machine_states = MachineStateTracer(export_prefix, self.nb_hosts, suffix=output_suffix)
        self.nb_computing = 0  # hosts running a job (compute sharing is off)
        self.power: PowerSide | None = None  # the energy model, with --energy
        if self.options.energy:
            self.power = PowerSide(self, export_prefix, output_suffix)
            self.machine_states.close()
            self.machine_states = EnergyMachineStateTracer(
                export_prefix, self.nb_hosts, self.power.states, suffix=output_suffix
            )
        # server state (ServerData)
        self.sched_ready = True
        self.end_sent = False
        self.end_ack = False
        self.nb_submitted = self.nb_completed = self.nb_running = 0
        self.nb_waiters = self.nb_killers = 0
        self.submitters_finished = 0
        self.registration_finished = False
        self.jobs_to_delete: list[str] = []
        self.met: set[str] = set()  # every job id ever registered (Batsim's _jobs_met)
        self.jobs: dict[str, JobRecord] = {}  # live jobs: full id -> JobRecord
        self.job_profiles: dict[str, Any] = {}  # full id -> Profile, kept while the job lives
        self.static_jobs: dict[str, list[JobRecord]] = {}  # workload name -> its jobs in submission order
        for workload in self.workloads.values():
            static = self.static_jobs[workload.name] = []
            for spec in sorted(workload.jobs.values(), key=lambda j: (j.subtime, j.id)):
                job = self.jobs[spec.id] = JobRecord(spec)
                self.met.add(job.id)
                self.job_profiles[job.id] = workload.profiles[job.profile]
                static.append(job)
        self.decisions = DecisionParser(self)
        self.scheduling_time_s = 0.0
        self.nb_messages = 0

    # -- running --------------------------------------------------------------
    def run(self) -> EmbeddedBatsim:
        """Runs the simulation; outputs are written even when it fails."""
        gc.freeze()  # the workload lives for the whole run: the cyclic GC need not scan it (-20% time)
        # The youngest objects are collected every 100,000 allocations rather than 700 (a few
        # collections instead of hundreds). What survives them is not frozen: a plugin's cycle
        # that outlives one collection and dies later (a per-job record pointing back at its job,
        # say) must still be freed during the run, or a long run's memory grows with every job.
        threshold = gc.get_threshold()
        gc.set_threshold(max(threshold[0], 100_000), *threshold[1:])
        try:
            for name in self.static_workloads:
                self.kernel.spawn(f"workload_submitter_{name}", self.static_job_submitter(name))
            self.kernel.spawn("server", self.server())
            self.kernel.run()
            if not self.end_ack:
                raise SimulationError(
                    f"the simulation deadlocked at t={self.kernel.now:f}: no event can happen any more "
                    f"but {self.nb_submitted - self.nb_completed} submitted job(s) are not finished "
                    "(a scheduler with dynamic job registration must send NOTIFY registration_finished)"
                )
        finally:
            gc.set_threshold(*threshold)
            # Back with the rest, every object in the oldest generation: what the run made and kept
            # (jobs, records) would otherwise be scanned by the next collection of the middle one,
            # triggered by whatever the caller does next (0.4 s on CTC's year).
            gc.freeze()
            gc.unfreeze()
            self.machine_states.close()
            summary = None
            if self.power is not None:
                self.power.close()
                summary = self.power.summary()
            self.tracer.finalize(
                scheduling_time_s=self.scheduling_time_s, last_changes=self.last_changes(), energy=summary
            )
            self.decisions.detach()  # no cycle left through a compiled engine
            if self.power is not None:
                self.power.detach()
        return self

    @property
    def now(self) -> float:
        return self.kernel.now

    def fail(self, message: str) -> NoReturn:
        raise SimulationError(f"t={self.kernel.now:f}: {message}")

    # -- jobs and profiles ------------------------------------------------------
    def workload(self, name: str) -> Workload:
        try:
            return self.workloads[name]
        except KeyError:
            self.fail(f"workload '{name}' does not exist")

    def job_at(self, job_id: str) -> JobRecord:
        job = self.jobs.get(job_id)
        if job is None:
            if "!" not in job_id:
                self.fail(f"invalid job identifier '{job_id}': should be WORKLOAD!NAME, e.g. 'w0!42'")
            self.workload(job_id.split("!", 1)[0])
            self.fail(f"cannot get job '{job_id}': it does not exist")
        return job

    def job_is_registered(self, job_id: str) -> bool:
        if "!" not in job_id:
            self.fail(f"invalid job identifier '{job_id}': should be WORKLOAD!NAME, e.g. 'w0!42'")
        self.workload(job_id.split("!", 1)[0])
        return job_id in self.met

    def delete_jobs(self) -> None:
        jobs, job_profiles, workloads = self.jobs, self.job_profiles, self.workloads
        collect = self.options.garbage_collect_profiles
        for job_id in self.jobs_to_delete:
            job = jobs.pop(job_id)
            del job_profiles[job_id]
            # its actor (ended) and the record refer to each other, and the record, frozen with
            # the workload, is never collected during the run: the actor is freed now, not at the end
            job.actor = None
            if job.task is not None:
                profiles.release(job.task)  # a parallel task past its walltime stops now
            if collect:
                workloads[job.workload].profiles[job.profile] = None
        self.jobs_to_delete = []

    # -- machines -------------------------------------------------------------
    def hosts_start(self, job: JobRecord, hosts: IntervalSet) -> None:
        now = self.kernel.now
        assign, state = self.host_job.assign, (job.id, now)
        for low, high in hosts.runs:
            assign(low, high, state)
        self.nb_computing += hosts.size  # len(hosts), without the call
        if self.power is not None:
            self.power.states.change(job.energy_ids.sel, COMPUTING, now)
        self.machine_states.write(now, self.nb_computing)

    def hosts_end(self, hosts: IntervalSet, machines: HostSet | None = None) -> None:
        """``machines``: the same as ``hosts``, with the energy model (the job's ``energy_ids``)."""
        now = self.kernel.now
        assign, state = self.host_job.assign, (None, now)
        for low, high in hosts.runs:
            assign(low, high, state)
        self.nb_computing -= hosts.size
        if self.power is not None:
            if machines is None:
                machines = ids_of(hosts, self.power.meter.n)
            self.power.states.change(machines.sel, IDLE, now)
        self.machine_states.write(now, self.nb_computing)

    def last_changes(self) -> list[tuple[float, int]]:
        """(time, number of hosts) of the hosts' last state changes (the schedule's exact sums,
        ``math.fsum``, do not depend on how the hosts are grouped)."""
        return [(since, count) for (_, since), count in self.host_job.counts()]

    # -- messages to the scheduler --------------------------------------------
    def append_job_completed(self, job: JobRecord) -> None:
        self.events.job_completed(self.kernel.now, job)

    def write_job(self, job: JobRecord) -> None:
        self.tracer.write_job(job, job.workload, job.alloc_text)
        if self.progress is not None:
            self.progress(self.tracer.nb_jobs)

    def simulation_begins(self) -> None:
        resources = [
            {
                "id": i,
                "name": h.name,
                "state": "idle",
                "properties": {"role": "", **h.properties},
                "zone_properties": {},
            }
            for i, h in enumerate(self.platform.compute_hosts)
        ]
        config = {
            "redis-enabled": False,
            "redis-hostname": "127.0.0.1",
            "redis-port": 6379,
            "redis-prefix": "default",
            "profiles-forwarded-on-submission": self.options.forward_profiles,
            "dynamic-jobs-enabled": self.options.dynamic_jobs,
            "dynamic-jobs-acknowledged": self.options.ack_dynamic_jobs,
            "profile-reuse-enabled": not self.options.garbage_collect_profiles,
            "sched-config": self.options.sched_config,
            "forward-unknown-events": False,
        }
        profiles = {
            name: {p: RawJson(prof.json) for p, prof in w.profiles.items() if prof is not None}
            for name, w in self.workloads.items()
        }
        storage = [
            {"id": self.nb_hosts + i, "name": h.name, "state": "idle", "properties": {"role": "", **h.properties}}
            for i, h in enumerate(self.platform.storage_hosts)
        ]
        for machine in storage:
            machine["zone_properties"] = {}
        data = {
            "nb_resources": self.nb_hosts + len(storage),
            "nb_compute_resources": self.nb_hosts,
            "nb_storage_resources": len(storage),
            "allow_compute_sharing": False,
            "allow_storage_sharing": True,
            "config": config,
            "compute_resources": resources,
            "storage_resources": storage,
            "workloads": {name: w.path for name, w in self.workloads.items()},
            "profiles": profiles,
        }
        direct = self.python_wire and all(
            type(k) is str and type(v) is str for h in self.platform.compute_hosts for k, v in h.properties.items()
        )
        if direct:  # what json.loads makes of their text, built at once (100,000 hosts: seconds less)
            data["compute_resources"] = []
            self.events.append(self.kernel.now, "SIMULATION_BEGINS", data)
            self.events.events[-1]["data"]["compute_resources"] = resources
        else:
            self.events.append(self.kernel.now, "SIMULATION_BEGINS", data)

    # -- actors ---------------------------------------------------------------
    def server(self) -> Body:
        self.simulation_begins()
        yield from self.generate_and_send()
        handlers = {
            "JOB_SUBMITTED": self.on_job_submitted,
            "JOB_COMPLETED": self.on_job_completed,
            "SCHED_READY": self.on_sched_ready,
            "SCHED_EXECUTE_JOB": self.on_execute_job,
            "SCHED_REJECT_JOB": self.on_reject_job,
            "SCHED_KILL_JOB": self.on_kill_jobs,
            "SCHED_CALL_ME_LATER": self.on_call_me_later,
            "WAITING_DONE": self.on_waiting_done,
            "KILLING_DONE": self.on_killing_done,
            "SCHED_SET_JOB_METADATA": self.on_set_job_metadata,
            "JOB_REGISTERED_BY_DP": self.on_register_job,
            "PROFILE_REGISTERED_BY_DP": None,
            "END_DYNAMIC_REGISTER": self.on_end_dynamic_register,
            "CONTINUE_DYNAMIC_REGISTER": self.on_continue_dynamic_register,
            "SUBMITTER_HELLO": None,
            "SUBMITTER_BYE": self.on_submitter_bye,
            "PSTATE_MODIFICATION": self.on_pstate_modification,
            "SCHED_TELL_ME_ENERGY": self.on_tell_me_energy,
        }
        if self.power is not None:
            handlers["SWITCHED_ON"] = handlers["SWITCHED_OFF"] = self.power.on_switched
        receive = (GET, self.mbox)  # get(): inline, one generator less
        pending = self.mbox.pending  # the mailbox is empty when this deque is
        events = self.events
        while not self.end_ack:
            message = yield receive
            handler = handlers[message[0]]
            if handler is not None:
                creation = handler(message)
                if creation is not None:  # handlers that start an actor do it by a simcall
                    if type(creation) is not tuple:  # the energy model's: several simcalls
                        yield from creation
                    else:
                        actor = yield creation
                        if creation[0] == CREATE and len(creation) > 3:
                            creation[3].actor = actor  # the job this actor executes
            if self.sched_ready and not self.end_ack and not pending:
                if events.events:  # generate_and_send(), inline: its simcall and state, in its order
                    text = events.message(self.kernel.now)
                    self.nb_messages += 1
                    yield (CREATE, "Scheduler REQ-REP", self.request_reply(text))
                    self.sched_ready = False
                    if self.jobs_to_delete:
                        self.delete_jobs()
                elif self.simulation_finished() and not self.end_sent:
                    self.events.append(self.kernel.now, "SIMULATION_ENDS", {})
                    yield from self.generate_and_send()
                    self.end_sent = True

    def generate_and_send(self) -> Body:
        text = self.events.message(self.kernel.now)
        self.nb_messages += 1
        yield (CREATE, "Scheduler REQ-REP", self.request_reply(text))
        self.sched_ready = False

    def simulation_finished(self) -> bool:
        return (
            self.submitters_finished == len(self.static_workloads)
            and (not self.options.dynamic_jobs or self.registration_finished)
            and self.nb_completed == self.nb_submitted
            and self.nb_running == 0
            and self.nb_waiters == 0
            and self.nb_killers == 0
            and (self.power is None or self.power.nb_switching == 0)
        )

    def static_job_submitter(self, workload_name: str) -> Body:
        mbox = self.mbox
        yield (PUT, mbox, ("SUBMITTER_HELLO",))
        current = self.kernel.now
        to_send: list[JobRecord] = []
        first = self.power is not None  # the first job's submission is read with --energy
        for job in self.static_jobs.pop(workload_name):
            if job.subtime > current:
                if to_send:
                    yield (PUT, mbox, ("JOB_SUBMITTED", to_send))
                    to_send = []
                # Batsim subtracts in long double (job_submitter.cpp): the same once the clock is fractional
                yield (SLEEP, job.subtime - current if current.is_integer() else ld_difference(job.subtime, current))
                current = self.kernel.now
            to_send.append(job)
            if first:
                first = False
                assert self.power is not None
                yield from self.power.first_submitted()
        if to_send:
            yield (PUT, mbox, ("JOB_SUBMITTED", to_send))
        yield (PUT, mbox, ("SUBMITTER_BYE",))

    def execute_job(self, job: JobRecord, hosts: IntervalSet, alloc_text: str | None = None) -> Body:
        kernel = self.kernel
        job.starting_time = kernel.now
        job.allocation = hosts
        job.alloc_text = hosts_text(hosts) if alloc_text is None else alloc_text
        remaining = job.walltime
        profile = self.job_profiles[job.id]
        power = self.power
        if power is not None:
            yield from power.job_start(job)
        self.hosts_start(job, hosts)
        if profile.type == "delay":
            job.delay_start = kernel.now
            job.delay_required = profile.delay
            in_time = remaining < 0 or profile.delay < remaining
            sleep_s, code = (profile.delay, profile.ret) if in_time else (remaining, -1)
            if power is None:
                yield (SLEEP, sleep_s)
            else:  # its end updates its first host's energy
                yield (SLEEP_HOOKED, sleep_s, power.delay_hooks(hosts))
        else:  # parallel tasks and composed profiles (profiles.py)
            code = yield from profiles.run(self, job, profile, hosts, [remaining])
        job.return_code = code
        if code == 0:
            job.state = "COMPLETED_SUCCESSFULLY"
        elif code > 0:
            job.state = "COMPLETED_FAILED"
        elif code == -1:
            job.state = "COMPLETED_WALLTIME_REACHED"
        else:
            job.state = "COMPLETED_KILLED"
        self.hosts_end(hosts, job.energy_ids)
        job.finish_clock = kernel.now
        job.runtime = kernel.now - job.starting_time
        if job.runtime == 0:
            job.runtime = 1e-5  # Batsim's epsilon for null runtimes
        if power is not None:
            yield from power.job_end(job)
        if job.state != "COMPLETED_KILLED":
            yield (PUT, self.mbox, ("JOB_COMPLETED", job))

    def waiter(self, target: float) -> Body:
        current = self.kernel.now
        if current < target:
            yield (SLEEP, max(target - current, 1e-5))
        if not (self.end_sent or self.end_ack):
            yield (PUT, self.mbox, ("WAITING_DONE",))

    def killer(self, job_ids: list[str]) -> Body:
        progress = {}
        for job_id in job_ids:
            job = self.job_at(job_id)
            if job.state in ("REJECTED", "SUBMITTED", "NOT_SUBMITTED"):
                self.fail(f"bad kill: job {job_id} has not been started")
            if job.state != "RUNNING":
                continue
            now = self.kernel.now
            profile = self.job_profiles[job.id]
            if profile.type == "delay":
                ratio = (now - job.delay_start) / job.delay_required
                progress[job_id] = {"profile_name": job.profile, "progress": float(ratio)}
            else:
                progress[job_id] = profiles.progress(job.task, now)
                execution = profiles.running_execution(job.task)
                if execution is not None:
                    yield (EXEC_CANCEL, execution)  # the job's actor ends it as killed
                    continue
            yield (KILL, job.actor)
            job.state = "COMPLETED_KILLED"  # its return code keeps its initial value, -1
            assert job.allocation is not None  # it runs
            self.hosts_end(job.allocation)
            job.finish_clock = self.kernel.now
            job.runtime = self.kernel.now - job.starting_time
            if job.runtime == 0:
                job.runtime = 1e-5
            if self.power is not None:
                yield from self.power.job_end(job)
        yield (PUT, self.mbox, ("KILLING_DONE", job_ids, progress))

    # -- server handlers (server.cpp) -----------------------------------------
    def on_submitter_bye(self, message: Message) -> None:
        self.submitters_finished += 1
        if self.submitters_finished == len(self.static_workloads):
            self.events.append(self.kernel.now, "NOTIFY", {"type": "no_more_static_job_to_submit"})

    def on_job_submitted(self, message: Message) -> None:
        now = self.kernel.now
        forward = self.options.forward_profiles
        submitted = self.events.job_submitted
        for job in message[1]:
            job.state = "SUBMITTED"
            self.nb_submitted += 1
            submitted(now, job, self.job_profiles[job.id] if forward else None)

    def on_job_completed(self, message: Message) -> None:
        job = message[1]
        self.nb_running -= 1
        self.nb_completed += 1
        self.events.job_completed(self.kernel.now, job)  # append_job_completed(job), inline
        self.tracer.write_job(job, job.workload, job.alloc_text)  # write_job(job), inline
        if self.progress is not None:
            self.progress(self.tracer.nb_jobs)
        self.jobs_to_delete.append(job.id)

    def on_sched_ready(self, message: Message) -> None:
        self.sched_ready = True
        if self.end_sent:
            self.end_ack = True

    def on_waiting_done(self, message: Message) -> None:
        self.events.append(self.kernel.now, "REQUESTED_CALL", {})
        self.nb_waiters -= 1

    def on_killing_done(self, message: Message) -> None:
        job_ids, progress = message[1], message[2]
        for job_id in job_ids:
            job = self.job_at(job_id)
            if job.state == "COMPLETED_KILLED":
                self.nb_running -= 1
                self.nb_completed += 1
                self.append_job_completed(job)
                self.write_job(job)
                self.jobs_to_delete.append(job.id)
        data = {"job_ids": list(job_ids), "job_progress": {j: progress[j] for j in job_ids if j in progress}}
        self.events.append(self.kernel.now, "JOB_KILLED", data)
        self.nb_killers -= 1

    def on_register_job(self, message: Message) -> None:
        job = message[1]
        self.nb_submitted += 1
        if self.options.ack_dynamic_jobs:
            self.events.job_submitted(self.kernel.now, job, None)

    def on_end_dynamic_register(self, message: Message) -> None:
        self.registration_finished = True

    def on_continue_dynamic_register(self, message: Message) -> None:
        self.registration_finished = False

    def on_set_job_metadata(self, message: Message) -> None:
        job_id, metadata = message[1], message[2]
        job = self.jobs.get(job_id)  # a live job: registered, its workload known (its id was checked)
        if job is not None:
            job.metadata = metadata
            return
        if not self.job_is_registered(job_id):
            self.fail(f"the job '{job_id}' does not exist, cannot set its metadata")
        self.job_at(job_id).metadata = metadata

    def on_reject_job(self, message: Message) -> None:
        job_id = message[1]
        if not self.job_is_registered(job_id):
            self.fail(f"REJECT_JOB: job '{job_id}' does not exist")
        job = self.job_at(job_id)
        if job.state != "SUBMITTED":
            self.fail(
                f"invalid rejection received: job '{job_id}' cannot be rejected at the present time "
                f"(its state is {job.state}); to be rejected, a job must be submitted and not allocated yet"
            )
        job.state = "REJECTED"
        self.nb_completed += 1
        self.write_job(job)
        self.jobs_to_delete.append(job.id)

    def on_kill_jobs(self, message: Message) -> Simcall | None:
        to_kill = []
        for job_id in message[1]:
            if not self.job_is_registered(job_id):
                self.fail(f"trying to kill job '{job_id}' but it does not exist")
            job = self.job_at(job_id)
            if not job.kill_requested:
                if job.state != "RUNNING" and job.state not in COMPLETED_STATES:
                    self.fail(
                        f"invalid KILL_JOB: job '{job_id}' is neither running nor completed (its state is {job.state})"
                    )
                job.kill_requested = True
                to_kill.append(job_id)
        if to_kill:
            self.nb_killers += 1
            return (CREATE, "killer_process", self.killer(to_kill))
        return None

    def on_call_me_later(self, message: Message) -> Simcall:
        target = message[1]
        if not target > self.kernel.now:
            self.fail(
                f"CALL_ME_LATER: you asked to be awaken in the past! (you ask: {target:f}, it is: {self.kernel.now:f})"
            )
        self.nb_waiters += 1
        return (CREATE, f"waiter {target:f}", self.waiter(target))

    def on_execute_job(self, message: Message) -> Simcall:
        job, hosts, alloc_text = message[1], message[2], message[3]
        if job.state != "SUBMITTED":
            self.fail(
                f"cannot execute job '{job.id}': its state ({job.state}) is not SUBMITTED "
                "(a job can be started only once)"
            )
        job.state = "RUNNING"
        self.nb_running += 1
        starts, values = self.host_job.starts, self.host_job.values
        for low, high in hosts.runs:  # every piece of the host map over the run must be idle (None)
            i, n = bisect_right(starts, low) - 1, len(starts)
            while i < n and starts[i] <= high:
                if values[i][0] is not None:
                    self.fail_busy(job, hosts, alloc_text)
                i += 1
        if self.power is not None:
            self.power.check_execute(job, hosts, alloc_text)
        profile = self.job_profiles[job.id]
        if hosts.size != job.res and not profiles.moldable(profile):
            self.fail(
                f"job '{job.id}' allocation ('{alloc_text}') is invalid: the job requires {job.res} "
                f"machines but {len(hosts)} were given (only parallel_homogeneous_total profiles, "
                "and composed profiles of those, may run on another number of machines)"
            )
        # the text of canonical runs is the decision's own (hosts_text would write it again)
        actor_gen = self.execute_job(job, hosts, str.__str__(alloc_text) if type(alloc_text) is RunsText else None)
        return (CREATE, f"job_{job.id}", actor_gen, job)

    def on_pstate_modification(self, message: Message) -> Body:
        if self.power is None:
            self.fail(
                "SET_RESOURCE_STATE received: a pstate modification needs Batsim's energy model, which is "
                "not enabled (add --energy; real Batsim stops on it too)"
            )
        return self.power.on_set_resource_state(message)

    def on_tell_me_energy(self, message: Message) -> Body:
        if self.power is None:
            self.fail(
                "QUERY consumed_energy received: the energy consumption needs Batsim's energy model, which is "
                "not enabled (add --energy; real Batsim stops on it too)"
            )
        return self.power.on_query(message)

    def fail_busy(self, job: JobRecord, hosts: IntervalSet, alloc_text: str) -> NoReturn:
        """Stops the run on the first host of ``hosts`` that computes a job (no time-sharing)."""
        for low, high in hosts.runs:
            for host, _, (other, _since) in self.host_job.pieces(low, high):
                if other is not None:
                    self.fail(
                        f"job '{job.id}': invalid allocation ('{alloc_text}'): machine {host} "
                        f"(hostname='{self.platform.compute_hosts[host].name}') is currently computing "
                        f"jobs (these ones: {{{other}}}) whereas time-sharing on compute "
                        "machines is disabled"
                    )
        raise AssertionError("fail_busy: every host is idle")  # pragma: no cover - callers check first

    # -- the exchange with the scheduler (network.cpp, protocol.cpp) ----------
    def request_reply(self, message: Any) -> Body:
        if self.python_wire and self.tracer.pending:
            # the plugin computes in this process: if it kills it (os._exit), the rows are on disk
            self.tracer.flush()
        start = time.perf_counter()
        reply = self.connection.exchange(message)
        self.scheduling_time_s += time.perf_counter() - start
        if self.python_wire:
            doc = reply  # pybatsim's reply as it would pass it to json.dumps
            if type(doc) is dict and not doc.get("events", True) and type(doc.get("now")) is float:
                idle_now = batsim_double(doc["now"])  # idle_reply(idle_now), inline: one generator less
                if idle_now > self.kernel.now:
                    yield (SLEEP, idle_now - self.kernel.now)
                yield (PUT, self.mbox, ("SCHED_READY",))
                return
        else:
            if reply.endswith(', "events": []}') and reply.startswith('{"now": '):  # pybatsim's idle answer
                try:
                    idle_now = float(reply[8:-15])
                except ValueError:
                    pass
                else:
                    yield from self.idle_reply(batsim_double(idle_now))
                    return
            try:
                doc = json.loads(reply)
            except json.JSONDecodeError as error:
                self.fail(f"invalid JSON message from the scheduler: could not be parsed ({error.msg})")
        if not isinstance(doc, dict):
            self.fail("invalid JSON message from the scheduler: not a JSON object")
        now = doc.get("now")
        if not isinstance(now, (int, float)) or isinstance(now, bool):
            self.fail("invalid JSON message from the scheduler: no numeric 'now' key")
        events = doc.get("events")
        if not isinstance(events, (list, tuple) if self.python_wire else list):
            self.fail("invalid JSON message from the scheduler: 'events' should be an array")
        kernel = self.kernel
        parse_event = self.decisions.parse_event
        execute_decision, metadata_decision = self.execute_decision, self.metadata_decision
        now = batsim_double(float(now))  # as RapidJSON reads it
        for number, event in enumerate(events):
            decided = None
            if type(event) is dict:  # the usual decisions, checked short
                etype = event.get("type")
                if etype == "EXECUTE_JOB":
                    decided = execute_decision(event, now)
                elif etype == "SET_JOB_METADATA":
                    decided = metadata_decision(event, now)
            timestamp, message = decided if decided is not None else parse_event(number, event, now)
            if message is None:
                continue
            if timestamp > kernel.now:
                yield (SLEEP, timestamp - kernel.now)
            yield (PUT, self.mbox, message)
        if now > kernel.now:
            yield (SLEEP, now - kernel.now)
        yield (PUT, self.mbox, ("SCHED_READY",))

    def execute_decision(self, event: dict[str, Any], now: float) -> tuple[float, Message] | None:
        """A valid EXECUTE_JOB as pybatsim writes it (a float timestamp, ``job_id`` and ``alloc``
        strings) -> what ``DecisionParser.parse_event`` returns for it, by the same operations
        (the timestamp read as RapidJSON reads it), without building its error texts; None for
        anything else, which ``parse_event`` then checks in full (and fails on as Batsim does)."""
        envelope = short_envelope(event, now)
        if envelope is None:
            return None
        timestamp, data = envelope
        job_id, alloc = data.get("job_id"), data.get("alloc")
        if type(job_id) is not str:
            return None
        job = self.jobs.get(job_id)
        if job is None:
            return None
        if type(alloc) is RunsText:  # adaptsched's adapter's text: its runs, as parse_runs reads them
            hosts = IntervalSet(alloc.runs)
        elif type(alloc) is str:
            try:
                hosts = parse_runs(alloc)
            except ValueError:
                return None
        else:
            return None
        if not hosts or hosts.max() >= self.nb_hosts:
            return None
        return timestamp, ("SCHED_EXECUTE_JOB", job, hosts, alloc)

    def metadata_decision(self, event: dict[str, Any], now: float) -> tuple[float, Message] | None:
        """A valid SET_JOB_METADATA as pybatsim writes it (a float timestamp, ``job_id`` and
        ``metadata`` strings, no double quote in it) -> what ``DecisionParser.parse_event`` returns
        for it, by the same operations; None for anything else, which ``parse_event`` checks in full."""
        envelope = short_envelope(event, now)
        if envelope is None:
            return None
        timestamp, data = envelope
        job_id, metadata = data.get("job_id"), data.get("metadata")
        if type(job_id) is not str or type(metadata) is not str or '"' in metadata:
            return None
        return timestamp, ("SCHED_SET_JOB_METADATA", job_id, metadata)

    def idle_reply(self, now: float) -> Body:
        """A reply without decisions: the scheduler is ready again at its ``now``."""
        if now > self.kernel.now:
            yield (SLEEP, now - self.kernel.now)
        yield (PUT, self.mbox, ("SCHED_READY",))


def short_envelope(event: dict[str, Any], now: float) -> tuple[float, dict[str, Any]] | None:
    """The timestamp and two-key ``data`` of a decision as pybatsim writes it (a float timestamp,
    read as Batsim's RapidJSON reads it, not after ``now``), for the short checks of
    :meth:`EmbeddedBatsim.execute_decision` and :meth:`EmbeddedBatsim.metadata_decision`; None for
    anything else, which ``DecisionParser.parse_event`` then checks in full."""
    timestamp = event.get("timestamp")
    data = event.get("data")
    if type(timestamp) is not float or type(data) is not dict or len(data) != 2:
        return None
    timestamp = batsim_double(timestamp)  # as parse_event: Batsim's RapidJSON
    if not timestamp <= now:
        return None
    return timestamp, data
