"""The thin pybatsim adapter over adaptsched's pure schedulers (``adaptsched.core``).

It forwards pybatsim's callbacks (submissions, completions) to the pure
scheduler and, once per message from Batsim (``onNoMoreEvents``), sends the
scheduler's decisions: EXECUTE_JOB, REJECT_JOB, SET_JOB_METADATA, CALL_ME_LATER,
and for job copies REGISTER_PROFILE, REGISTER_JOB and KILL_JOB. A copy
``ID#N`` has its original's submission time and metadata
``{'parent_job': ID, 'kind': ...}`` (and ``'scale'``, if resized), as pybatsim's ``resubmit_job`` links them. With
dynamic jobs enabled, it sends NOTIFY registration_finished once no static job is
left to come and nothing waits or runs.
It is built on pybatsim's low-level ``BatsimScheduler`` (its high-level
``batsim.sched`` API is about 350 times slower).

A scheduler of one's own needs no adapter code: :func:`plugin` makes its pybatsim class
(docs/writing-a-scheduler.md).
"""

from __future__ import annotations

import json
import logging
import math
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from batsim.batsim import BatsimScheduler

from adaptsched.core.base import Job, Launch, OnlineScheduler
from adaptsched.core.needs import InputRefused, check_jobs
from adaptsched.core.options import OptionError, Options
from adaptsched.formats.intervals import procset

logger = logging.getLogger(__name__)
#: Set to "1" in the environment of a pybatsim process that ``adaptsched run`` starts: the run
#: has checked its workload (adaptsched/engines/checks/inputs.py), the plugin need not read it again.
INPUTS_CHECKED = "ADAPTSCHED_INPUTS_CHECKED"


def refuse(scheduler: str, message: str) -> SystemExit:
    """What stops the plugin on input or options it refuses: a one-paragraph message and exit
    status 1, no traceback (stock pybatsim's launcher lets exceptions through)."""
    logger.error("%s", message)
    return SystemExit(f"{scheduler}: error: {message}")


class PlannerScheduler(BatsimScheduler):
    """A pybatsim scheduler running the pure scheduler class ``core_class``.

    ``options``: the run's options already parsed (adaptsched's engine parses them once and
    hands them over in its process), or JSON values by name (the ``pybatsim`` command's
    ``-o``, and the ZeroMQ transport), checked here, once; the pure scheduler receives them
    parsed.
    """

    core_class: ClassVar[type[OnlineScheduler]]

    def __init__(self, options: Options | Mapping[str, Any] | None = None) -> None:
        super().__init__(options if options is not None else {})
        if isinstance(options, self.core_class.Options):
            self.core_options = options
        elif isinstance(options, Options):  # the same plugin file loaded twice (two classes)
            self.core_options = self.core_class.Options.parse(options.values())
        elif options is None or isinstance(options, Mapping):
            try:
                self.core_options = self.core_class.Options.parse(options or {})
            except OptionError as error:
                raise refuse(self.core_class.name, str(error)) from None
        else:
            raise TypeError(f"{self.core_class.name}: options must be a {self.core_class.Options.__name__} or a dict")
        self.core: OnlineScheduler | None = None
        self.jobs: dict[str, Any] = {}  # pybatsim Job objects of the waiting jobs
        self.copies: dict[str, Any] = {}  # pybatsim Job objects of the running copies
        self.scaled_profiles: set[str] = set()
        self.registration_open = False
        #: ``adaptsched run`` made the input checks: it hands its options over parsed, or says so
        #: in the environment of the pybatsim process it starts.
        self.inputs_checked = isinstance(options, Options) or os.environ.get(INPUTS_CHECKED) == "1"

    def onSimulationBegins(self) -> None:
        self.check_input()
        self.core = self.core_class(self.bs.nb_compute_resources, options=self.core_options)
        self.registration_open = bool(self.bs.dynamic_job_registration_enabled)
        if self.core_options.needs_dynamic_jobs() and not self.registration_open:
            raise refuse(
                self.core_class.name,
                f"scheduler {self.core_class.name!r} with these options runs job copies: "
                "start Batsim with --enable-dynamic-jobs --enable-profile-reuse",
            )

    def check_input(self) -> None:
        """Before the first event, under stock pybatsim only: the workloads Batsim names carry
        what the scheduler needs (:mod:`adaptsched.core.needs`). ``adaptsched run`` checked the
        workload it read before starting this plugin, in its process or in one it launched
        (:data:`INPUTS_CHECKED`)."""
        needs = self.core_options.needs()
        if not needs or self.inputs_checked:
            return
        for path in (getattr(self.bs, "workloads", None) or {}).values():
            try:
                with open(path, encoding="utf-8") as handle:
                    jobs = json.load(handle).get("jobs", [])
            except (OSError, ValueError, AttributeError) as error:
                logger.warning("cannot check the input of %s (%s): %s", self.core_class.name, path, error)
                continue
            for need in needs:
                try:
                    verdict = check_jobs(need, jobs, str(path), self.core_class.name)
                except InputRefused as error:
                    raise refuse(self.core_class.name, str(error)) from None
                if verdict.note:
                    logger.warning("%s", verdict.note)

    def onJobSubmission(self, job: Any) -> None:
        core = self.core
        assert core is not None  # SIMULATION_BEGINS comes first
        self.jobs[job.id] = job
        fields = job.json_dict
        if isinstance(fields, dict) and "moldable" in fields:  # molding needs the profile's type
            profile = self.bs.profiles.get(job.workload, {}).get(job.profile) or {}
            fields = {**fields, "profile_type": profile.get("type")}
        request = Job(job.id, job.submit_time, job.requested_resources, job.requested_time, fields)
        core.submit(request, self.bs.time())

    def onJobCompletion(self, job: Any) -> None:
        core = self.core
        assert core is not None  # SIMULATION_BEGINS comes first
        self.copies.pop(job.id, None)
        core.complete(job.id, self.bs.time(), job.job_state.name)

    def onJobsKilled(self, jobs: Any) -> None:
        pass  # Batsim reports killed jobs with JOB_COMPLETED (COMPLETED_KILLED) too

    def onRequestedCall(self) -> None:
        pass

    def onNoMoreJobsInWorkloads(self) -> None:
        pass

    def onNoMoreEvents(self) -> None:
        core = self.core
        if core is None:  # the SIMULATION_BEGINS message
            return
        bs = self.bs
        decisions = core.schedule(bs.time())
        for job_id, values in decisions.metadata.items():  # first: a rejected job's row is written at once
            bs.set_job_metadata(job_id, values)
        executed: list[Any] = []
        for job_id, hosts in decisions.starts:
            job = self.jobs.pop(job_id, None)
            if job is None:
                why = "already started or rejected" if job_id in bs.jobs else "not submitted yet"
                raise RuntimeError(
                    f"scheduler {core.name!r} started job {job_id!r} at t={bs.time():f}, which is not waiting ({why})"
                )
            job.allocation = procset(hosts)
            executed.append(job)
        for launch in decisions.launches:  # before the rejects: a resized copy replaces its original
            executed.append(self.register_copy(launch))
        if decisions.rejects:
            bs.reject_jobs_by_id(decisions.rejects)
            for job_id in decisions.rejects:
                self.jobs.pop(job_id, None)
        if executed:
            bs.execute_jobs(executed)
        if decisions.kills:
            bs.kill_jobs([self.copies.get(i) or self.running_job(i) for i in decisions.kills])
        for wake_at in decisions.wake_ups:
            bs.wake_me_up_at(wake_at)
        if self.registration_open and bs.no_more_static_jobs and core.idle():
            bs.notify_registration_finished()
            self.registration_open = False

    def running_job(self, job_id: str) -> Any:
        return self.bs.jobs[job_id]

    def register_copy(self, launch: Launch) -> Any:
        """REGISTER_JOB (and REGISTER_PROFILE for a rescaled one) of a job copy, with its link."""
        bs = self.bs
        parent = self.jobs[launch.parent_id]
        profile = parent.profile
        if launch.runtime_s is not None:  # an exact runtime: a profile of its own
            profile = f"{launch.copy_id}:{launch.res}"
            bs.register_profiles(parent.workload, {profile: {"type": "delay", "delay": launch.runtime_s}})
        elif launch.scale != 1.0:
            profile = f"{parent.profile}*{launch.scale!r}"
            if profile not in self.scaled_profiles:
                original = bs.profiles[parent.workload][parent.profile]
                if original.get("type") != "delay":
                    raise RuntimeError(f"cannot rescale profile {parent.profile!r} of type {original.get('type')!r}")
                bs.register_profiles(
                    parent.workload, {profile: {"type": "delay", "delay": original["delay"] * launch.scale}}
                )
                self.scaled_profiles.add(profile)
        walltime = launch.walltime_s if math.isfinite(launch.walltime_s) else -1  # Batsim: -1 = none
        copy = bs.register_job(launch.copy_id, launch.res, walltime, profile, subtime=parent.submit_time)
        link: dict[str, Any] = {"parent_job": launch.parent_id, "kind": launch.kind}
        if launch.scale != 1.0:
            link["scale"] = launch.scale  # its runtime relative to the job as submitted
        if launch.metadata:
            link.update(launch.metadata)
        bs.set_job_metadata(launch.copy_id, link)
        copy.allocation = procset(launch.hosts)
        self.copies[launch.copy_id] = copy
        return copy


def plugin(core_class: type[OnlineScheduler]) -> type[PlannerScheduler]:
    """Makes a pure scheduler a pybatsim plugin: the calling module gains the class stock pybatsim
    looks for, named after the file (``my_easy.py`` -> ``My_easy``: its first letter capitalised),
    so that the file loads as it is with ``pybatsim my_easy.py``, ``adaptsched run --scheduler
    my_easy.py``, ``adaptsched check`` and in sweeps. Call it once, at the end of the file::

        >>> from adaptsched.core.fcfs import Fcfs
        >>> Adapter = plugin(Fcfs)                     # in a doctest: named after this module
        >>> Adapter.core_class is Fcfs, issubclass(Adapter, PlannerScheduler)
        (True, True)

    A name already used in the module for something else (e.g. a scheduler class ``My_easy``
    in ``my_easy.py``) is an error: rename that class.
    """
    if not (isinstance(core_class, type) and issubclass(core_class, OnlineScheduler)):
        raise TypeError(f"plugin() takes a scheduler class (a subclass of OnlineScheduler), got {core_class!r}")
    caller = sys._getframe(1).f_globals
    module = str(caller.get("__name__", "__main__"))
    stem = Path(str(caller["__file__"])).name.split(".")[0] if caller.get("__file__") else module.rpartition(".")[2]
    name = stem[:1].upper() + stem[1:]  # pybatsim's launcher: module_to_class
    old = caller.get(name)
    if old is not None and not (isinstance(old, type) and getattr(old, "core_class", None) is core_class):
        raise TypeError(
            f"plugin({core_class.__name__}): stock pybatsim takes the class named {name!r} from {stem}.py, and "
            f"{name!r} is already defined there: rename your {type(old).__name__} {name!r}"
        )
    doc = f"pybatsim plugin running {core_class.__module__}.{core_class.__qualname__} (made by adaptsched's plugin())."
    adapter = type(name, (PlannerScheduler,), {"core_class": core_class, "__module__": module, "__doc__": doc})
    caller[name] = adapter
    return adapter
