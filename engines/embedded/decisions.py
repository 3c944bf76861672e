"""The scheduler's decisions, checked as Batsim 4.2.1 checks them (``src/protocol.cpp``).

:class:`DecisionParser` reads one reply of the scheduler, already decoded from JSON, event by
event (``parse_and_apply_event``): each decision is checked (its type supported, its job
known, its allocation a valid interval set on existing machines, ...) and turned into the
internal message the engine's server handles at the decision's timestamp. A decision Batsim
would refuse stops the run with a :class:`~adaptsched.errors.SimulationError` naming the
event. Dynamic registrations (REGISTER_JOB, REGISTER_PROFILE) take effect here, at parse
time, as in Batsim.
"""

from __future__ import annotations

import re
import weakref
from typing import Any, NoReturn, Protocol, cast

from adaptsched.core.intervals import IntervalSet
from adaptsched.engines.embedded.cppnumbers import batsim_double
from adaptsched.engines.embedded.jobs import JobRecord
from adaptsched.formats.intervals import parse_runs
from adaptsched.formats.jsontext import reserialized
from adaptsched.workloads.batsim_json import Workload, parse_job, parse_profile


class DecidingEngine(Protocol):
    """What the parser needs of the engine (an ``EmbeddedBatsim``): a protocol, not an import,
    so the engine may import its parser without a cycle."""

    nb_hosts: int
    options: Any
    workloads: dict[str, Workload]
    jobs: dict[str, JobRecord]
    job_profiles: dict[str, Any]
    met: set[str]
    registration_finished: bool

    def fail(self, message: str) -> NoReturn: ...

    def job_at(self, job_id: str) -> JobRecord: ...


#: What a decision becomes: the internal message the server handles (its type first), or None.
Message = tuple[Any, ...]

SUPPORTED_EVENTS = (
    "EXECUTE_JOB",
    "REJECT_JOB",
    "KILL_JOB",
    "CALL_ME_LATER",
    "NOTIFY",
    "SET_JOB_METADATA",
    "REGISTER_JOB",
    "REGISTER_PROFILE",
    "ANSWER",
    "SET_RESOURCE_STATE",
    "QUERY",
)

#: ``std::stoi``: leading blanks, a sign, digits; what follows them is ignored.
_STOI = re.compile(r"\s*[+-]?\d+")


_DETACHED = object()  # what a parser holds once its engine's run has ended


class DecisionParser:
    """Checks the decisions of one engine's scheduler (``engine``: an ``EmbeddedBatsim``)."""

    def __init__(self, engine: DecidingEngine) -> None:
        # a proxy: the engine holds its parser, and a strong reference back would make the whole
        # run (workload, platform, pybatsim's jobs through the connection) cyclic garbage. A
        # compiled engine (mypyc's native classes take no weak references: benchmarks/compiled.py)
        # is held strongly, and its run left to the cyclic GC.
        try:
            self.engine = cast(DecidingEngine, weakref.proxy(engine))
        except TypeError:
            self.engine = engine

    def detach(self) -> None:
        """Drops the engine, at the end of its run: a compiled engine, held strongly, would
        otherwise leave the run (its workload and job records) as cyclic garbage, which only a
        full collection frees (engines/run/__init__.py collects only now and then)."""
        self.engine = cast(DecidingEngine, _DETACHED)

    def parse_event(self, number: int, event: Any, now: float) -> tuple[float, Message | None]:
        """Checks one decision (``parse_and_apply_event``) -> (timestamp, server message)."""
        engine = self.engine
        where = f"invalid JSON message: event {number}"
        if not isinstance(event, dict):
            engine.fail(f"{where} should be an object")
        timestamp = event.get("timestamp")
        if not isinstance(timestamp, (int, float)) or isinstance(timestamp, bool):
            engine.fail(f"{where} should have a numeric 'timestamp' key")
        # as Batsim's RapidJSON reads it
        timestamp = batsim_double(timestamp) if type(timestamp) is float else float(timestamp)
        if timestamp > now:
            engine.fail(f"{where}: timestamp {timestamp:g} should be lower than or equal to now={now:g}")
        etype = event.get("type")
        if not isinstance(etype, str):
            engine.fail(f"{where} should have a string 'type' key")
        data = event.get("data")
        if "data" not in event:
            engine.fail(f"{where} should have a 'data' key")
        where = f"{where} ({etype})"
        if etype not in SUPPORTED_EVENTS:
            engine.fail(
                f"{where}: the embedded engine does not support {etype} events "
                f"(it supports {', '.join(SUPPORTED_EVENTS)}); use --engine batsim"
            )
        if not isinstance(data, dict):
            engine.fail(f"{where}: the 'data' value should be an object")
        return timestamp, getattr(self, "parse_" + etype.lower())(where, data)

    def _job_id(self, where: str, data: dict[str, Any], key: str = "job_id") -> str:
        engine = self.engine
        value = data.get(key)
        if not isinstance(value, str):
            engine.fail(f"{where}: the '{key}' value should be a string")
        return value

    def parse_execute_job(self, where: str, data: dict[str, Any]) -> Message:
        engine = self.engine
        if len(data) not in (2, 3):
            engine.fail(f"{where}: the 'data' value should be of size in {{2,3}} (size={len(data)})")
        job_id = self._job_id(where, data)
        job = engine.job_at(job_id)
        alloc = data.get("alloc")
        if not isinstance(alloc, str):
            engine.fail(f"{where}: the 'alloc' value should be a string")
        hosts = self.parse_interval_set(where, alloc)
        if not hosts:
            engine.fail(f"{where}: the number of allocated resources should be strictly positive (got 0)")
        extra = set(data) - {"job_id", "alloc"}
        if extra:
            engine.fail(
                f"{where}: the embedded engine does not support '{sorted(extra)[0]}' in EXECUTE_JOB; "
                "use --engine batsim"
            )
        return ("SCHED_EXECUTE_JOB", job, hosts, alloc)

    def parse_interval_set(self, where: str, text: str) -> IntervalSet:
        """Host ids of Batsim's interval-set text ("0-3 7"), as runs; their union if they overlap."""
        engine = self.engine
        try:
            hosts = parse_runs(text)
        except ValueError as error:
            engine.fail(f"{where}: {error}")
        if hosts and hosts.max() >= engine.nb_hosts:
            engine.fail(
                f"{where}: machine {hosts.max()} does not exist (the platform has {engine.nb_hosts} "
                f"compute machines, 0-{engine.nb_hosts - 1})"
            )
        return hosts

    def parse_reject_job(self, where: str, data: dict[str, Any]) -> Message:
        engine = self.engine
        if len(data) != 1:
            engine.fail(f"{where}: the 'data' value should be of size 1 (size={len(data)})")
        return ("SCHED_REJECT_JOB", self._job_id(where, data))

    def parse_kill_job(self, where: str, data: dict[str, Any]) -> Message:
        engine = self.engine
        ids = data.get("job_ids")
        if len(data) != 1 or not isinstance(ids, (list, tuple)) or not ids:
            engine.fail(f"{where}: the 'data' value should be {{'job_ids': [non-empty array]}}")
        if not all(isinstance(i, str) for i in ids):
            engine.fail(f"{where}: every job id should be a string")
        return ("SCHED_KILL_JOB", list(ids))

    def parse_call_me_later(self, where: str, data: dict[str, Any]) -> Message:
        engine = self.engine
        target = data.get("timestamp")
        if len(data) != 1 or not isinstance(target, (int, float)) or isinstance(target, bool):
            engine.fail(f"{where}: the 'data' value should be {{'timestamp': number}}")
        return ("SCHED_CALL_ME_LATER", batsim_double(float(target)))

    def parse_notify(self, where: str, data: dict[str, Any]) -> Message:
        engine = self.engine
        kind = data.get("type")
        if kind == "registration_finished":
            return ("END_DYNAMIC_REGISTER",)
        if kind == "continue_registration":
            return ("CONTINUE_DYNAMIC_REGISTER",)
        engine.fail(f"unknown NOTIFY type received ({kind!r})")

    def parse_set_job_metadata(self, where: str, data: dict[str, Any]) -> Message:
        engine = self.engine
        metadata = data.get("metadata")
        if len(data) != 2 or not isinstance(metadata, str):
            engine.fail(f"{where}: the 'data' value should be {{'job_id': string, 'metadata': string}}")
        if '"' in metadata:
            engine.fail(f"{where}: the 'metadata' value should not contain double quotes (got ###{metadata}###)")
        return ("SCHED_SET_JOB_METADATA", self._job_id(where, data), metadata)

    def parse_answer(self, where: str, data: dict[str, Any]) -> Message | None:
        engine = self.engine
        if "estimate_waiting_time" not in data or len(data) != 1:
            engine.fail(f"{where}: unknown ANSWER type")
        return None  # Batsim only warns that it does not know what to do with it

    def parse_set_resource_state(self, where: str, data: dict[str, Any]) -> Message:
        """``handle_set_resource_state`` (``protocol.cpp:1160-1207``): machines and a pstate."""
        engine = self.engine
        if len(data) != 2:
            engine.fail(f"{where}: the 'data' value should be of size 2 (size={len(data)})")
        resources = data.get("resources")
        if not isinstance(resources, str):
            engine.fail(f"{where}: the 'data' value should contain a 'resources' string")
        hosts = self.parse_interval_set(where, resources)
        if not hosts:
            engine.fail(f"{where}: the number of allocated resources should be strictly positive (got 0)")
        state = data.get("state")
        if not isinstance(state, str):
            engine.fail(f"{where}: the 'data' value should contain a 'state' string")
        match = _STOI.match(state)
        if match is None or not -(2**31) <= int(match.group()) < 2**31:
            engine.fail(f"{where}: the 'state' value should be a string corresponding to an integer (got '{state}')")
        return ("PSTATE_MODIFICATION", hosts, int(match.group()))

    def parse_query(self, where: str, data: dict[str, Any]) -> Message:
        """``handle_query`` (``protocol.cpp:761-800``): only ``{"requests": {"consumed_energy": {}}}``."""
        engine = self.engine
        requests = data.get("requests")
        if len(data) != 1 or not isinstance(requests, dict) or not requests:
            engine.fail(f"{where}: the 'data' value should be {{'requests': non-empty object}}")
        for key, value in requests.items():
            if key != "consumed_energy":
                engine.fail(f"{where}: unknown QUERY '{key}'")
            if not isinstance(value, dict) or value:
                engine.fail(f"{where}: the value of 'consumed_energy' should be an empty object")
        return ("SCHED_TELL_ME_ENERGY",)

    def parse_register_profile(self, where: str, data: dict[str, Any]) -> Message:
        engine = self.engine
        if not engine.options.dynamic_jobs:
            engine.fail(
                f"{where}: dynamic profile registration received but the option seems disabled (enable dynamic jobs)"
            )
        if engine.registration_finished:
            engine.fail(f"{where}: dynamic profile registration received after registration_finished")
        workload_name = data.get("workload_name")
        profile_name = data.get("profile_name")
        if not isinstance(workload_name, str) or not isinstance(profile_name, str):
            engine.fail(f"{where}: 'workload_name' and 'profile_name' should be strings")
        if not isinstance(data.get("profile"), dict):
            engine.fail(f"{where}: ['data']['profile'] should be an object")
        workload = engine.workloads.get(workload_name)
        if workload is None:
            workload = engine.workloads[workload_name] = Workload(workload_name, "", 0, {}, {})
        if profile_name in workload.profiles:
            engine.fail(
                f"invalid new profile registration: profile '{profile_name}' already existed "
                f"in workload '{workload_name}'"
            )
        try:
            profile = reserialized(data["profile"])  # as Batsim re-reads it: floats to 6 decimals
            workload.profiles[profile_name] = parse_profile(profile_name, profile, ("scheduler", f"{where}: "))
        except Exception as error:  # InputError: report as a decision error
            engine.fail(str(error).split(": ", 1)[-1])
        return ("PROFILE_REGISTERED_BY_DP",)

    def parse_register_job(self, where: str, data: dict[str, Any]) -> Message:
        engine = self.engine
        if not engine.options.dynamic_jobs:
            engine.fail(
                f"{where}: dynamic job registration received but the option seems disabled (enable dynamic jobs)"
            )
        if engine.registration_finished:
            engine.fail(f"{where}: dynamic job registration received after registration_finished")
        job_id = self._job_id(where, data)
        desc = data.get("job")
        if not isinstance(desc, dict):
            engine.fail(f"{where}: ['data']['job'] should be an object")
        if "!" not in job_id:
            engine.fail(f"{where}: invalid job identifier '{job_id}': should be WORKLOAD!NAME")
        workload_name = job_id.split("!", 1)[0]
        if workload_name not in engine.workloads:
            engine.fail(f"{where}: workload '{workload_name}' should exist (register a profile in it first)")
        if job_id in engine.met:
            engine.fail(f"cannot register new job '{job_id}', it already exists in the workload")
        workload = engine.workloads[workload_name]
        profile_name = desc.get("profile")
        live_profile = workload.profiles.get(profile_name) if isinstance(profile_name, str) else None
        live = live_profile is not None
        live_profiles = {profile_name: live_profile} if live else {}  # the one parse_job needs
        if isinstance(profile_name, str) and profile_name in workload.profiles and not live:
            engine.fail(
                f"cannot get profile '{profile_name}': it existed some time ago but is no longer "
                "accessible (profiles are freed with their last job unless profile reuse is enabled)"
            )
        desc = reserialized(desc)  # as Batsim re-reads it: floats (walltime, subtime) to 6 decimals
        desc["id"] = job_id
        try:
            job = JobRecord(parse_job(desc, workload_name, live_profiles, ("scheduler", f"{where}: ")))
        except Exception as error:  # InputError: report as a decision error
            engine.fail(str(error).split(": ", 1)[-1])
        job.state = "SUBMITTED"
        engine.jobs[job.id] = job
        engine.met.add(job.id)
        engine.job_profiles[job.id] = live_profiles[job.profile]
        return ("JOB_REGISTERED_BY_DP", job)
