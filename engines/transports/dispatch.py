"""pybatsim's ``Batsim._read_bat_msg`` for the usual messages, mirrored (the in-process transport).

pybatsim 3.2.1's ``_read_bat_msg`` (``batsim/batsim.py``) reads one message, calls the plugin's
handlers and sends one reply. Of its cost per message, most is not the plugin's: the text of
the reply formatted for its INFO log even when INFO is off, a ``Job`` built through a static
method and a method that returns a tuple, ``Job.workload`` computed four times per submission,
an ``Enum`` lookup through a Python method per completion, the reply's sort through a lambda.
:meth:`Dispatcher.read_bat_msg` does what it does, statement for statement, for the messages that make a
run (events ``JOB_SUBMITTED``, ``JOB_COMPLETED`` and ``REQUESTED_CALL``), without that overhead:
the same handlers (``onBeforeEvents``, ``onJobSubmission``, ``onJobCompletion``,
``onRequestedCall``, ``onNoMoreEvents``), read from ``bs.scheduler`` when pybatsim reads them, in
the same order, with the same arguments; the same ``batsim.batsim.Job`` objects (built by its own
constructor, with the same attributes and values); the same updates of ``bs`` (``_current_time``,
``_events_to_send``, ``jobs``, ``profiles``, the ``nb_jobs_*`` counters); the same reply
(``{"now": ..., "events": ...}``, the events sorted by timestamp as ``sorted`` with the same key
sorts them), given to ``bs.network.send`` as pybatsim gives it.

Every other message goes through pybatsim's own ``_read_bat_msg`` (:meth:`Dispatcher.route`
says which): the first one (``SIMULATION_BEGINS``, read by pybatsim's constructor), the last
(``SIMULATION_ENDS``), any with another event (kills, notifications, resource changes,
answers, messages from jobs...), any submitting a job id already in ``bs.jobs`` (pybatsim warns
and keeps the old job's metadata), any of an unexpected shape, and every message while
pybatsim's logger would log at INFO (``batsim.batsim`` at INFO or DEBUG), so logs stay identical.
pybatsim keeps its whole state on ``bs``, the mirror none, so either may read any message.

Two things only a handler of the message being read can cause are mirrored too, with one
difference: if it registers the very job id a later event of the message submits, or turns
pybatsim's INFO log on, the mirror logs pybatsim's lines itself, so their text, logger and
level are pybatsim's but a ``LogRecord``'s source line (and ``Logger.warn``'s
``DeprecationWarning``'s) is this module's.

The guard: the mirror runs only when

- pybatsim's version is the one it was written against (:data:`PYBATSIM_VERSION`), the source
  of what it mirrors (``Batsim._read_bat_msg``, ``Batsim.get_job_and_profile``, the whole ``Job``
  class) hashes to :data:`SOURCE_SHA256`, and ``EnumType.__getitem__`` is a plain lookup in
  ``_member_map_``, checked once, after the first message (:func:`check_pybatsim`);
- before each message (:meth:`Dispatcher.route`): ``bs`` is of the stock ``Batsim`` class, which
  still holds the checked methods, no instance attribute of ``bs`` replaces them,
  ``batsim.batsim.Job`` is the checked class with its checked members, ``bs.network`` is the
  transport's handler, ``bs.jobs`` and ``bs.profiles`` are dicts, ``bs.logger`` a ``Logger``.

``tests/conformance/test_dispatch.py`` proves the mirror message by message against pybatsim's
own code on every scheduler and workload of the conformance suite.
"""

from __future__ import annotations

import ast
import enum
import functools
import hashlib
import inspect
import logging
from logging import INFO, Logger
from operator import itemgetter
from typing import Any

PYBATSIM_VERSION = "3.2.1"
SOURCE_SHA256 = {
    "Batsim._read_bat_msg": "df1d562ab000e24d607533db0987a9e1d2a07aba672b04f65409b4996ab8a91e",
    "Batsim.get_job_and_profile": "d490a79f4e6b0089068aedb57fb4dbc5417f2c36a34251a90bac64a6cf6ce0c1",
    "Job": "2e129df5856ba99482ae07a4bf12c68c18416d4dbec962d629188679c1d7d76f",
}
ENABLED = True  # False: pybatsim's own code for every message (the tests compare both)
by_timestamp = itemgetter("timestamp")  # pybatsim's key, lambda event: event['timestamp']


def source_sha256(obj: Any) -> str:
    return hashlib.sha256(inspect.getsource(obj).encode()).hexdigest()


def _enum_getitem_is_plain(enum_type: type) -> bool:
    """``EnumType.__getitem__`` is ``return cls._member_map_[name]`` (3.10 to 3.13)."""
    getitem = getattr(enum_type, "__getitem__", None)
    return getitem is enum.EnumMeta.__getitem__ and _is_plain_lookup(getitem)


@functools.lru_cache(maxsize=16)
def _is_plain_lookup(getitem: Any) -> bool:
    """Whether ``getitem``'s source is ``return cls._member_map_[name]`` (read once per function)."""
    try:
        (function,) = ast.parse(inspect.getsource(getitem).strip()).body
    except (OSError, TypeError, SyntaxError, ValueError):
        return False
    if not isinstance(function, ast.FunctionDef):
        return False
    body = [s for s in function.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    return [ast.dump(s) for s in body] == [ast.dump(ast.parse("return cls._member_map_[name]").body[0])]


def check_pybatsim(module: Any) -> str | None:
    """None when the installed pybatsim is the one the mirror copies, else why not.

    What it reads (the version, the sources, the enum's ``__getitem__``) is read once per
    process for the same objects (:func:`_pybatsim_facts`): reading and parsing pybatsim's source
    cost about 20 ms, paid by every run of a process that runs many (a sweep's worker, the
    Klein-Perez tests: one run each). A replaced method or class is another key, read again."""
    batsim, job = module.Batsim, module.Job
    installed, sources = _pybatsim_facts(
        batsim.__dict__.get("_read_bat_msg"), batsim.__dict__.get("get_job_and_profile"), job
    )
    if installed is None:
        return "pybatsim's version is unknown"
    if installed != PYBATSIM_VERSION:
        return f"pybatsim {installed}, not {PYBATSIM_VERSION}"
    if isinstance(sources, str):
        return f"pybatsim's source cannot be read ({sources})"
    for name, digest in sources.items():
        if digest != SOURCE_SHA256[name]:
            return f"pybatsim's {name} is not the one mirrored (sha256 {digest[:12]})"
    if type(getattr(logging.getLogger(module.__name__), "_cache", None)) is not dict:
        return "logging.Logger has no _cache of isEnabledFor's answers"
    if not _enum_getitem_is_plain(type(job.State)):
        return "Job.State[name] is not a plain lookup of _member_map_"
    return None


@functools.lru_cache(maxsize=16)
def _pybatsim_facts(read_bat_msg: Any, get_job_and_profile: Any, job: Any) -> tuple[str | None, dict[str, str] | str]:
    """The installed pybatsim's version (None: unknown) and the sha256 of the mirrored source
    (or why it cannot be read), for these very objects."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        installed: str | None = version("pybatsim")
    except PackageNotFoundError:
        installed = None
    try:
        if read_bat_msg is None or get_job_and_profile is None:
            raise KeyError("_read_bat_msg" if read_bat_msg is None else "get_job_and_profile")
        sources: dict[str, str] | str = {
            "Batsim._read_bat_msg": source_sha256(read_bat_msg),
            "Batsim.get_job_and_profile": source_sha256(get_job_and_profile),
            "Job": source_sha256(job),
        }
    except (KeyError, OSError, TypeError) as error:
        sources = str(error)
    return installed, sources


class Dispatcher:
    """Says which messages :meth:`Dispatcher.read_bat_msg` may read for pybatsim's ``bs`` (module doc)."""

    def __init__(self, module: Any, handler: Any):
        self.module = module
        self.handler = handler
        self.batsim, self.job = batsim, job = module.Batsim, module.Job
        # what the mirror does instead of calling, compared by identity before each message
        self.messages = 0  # read by the mirror
        self.stock_read_bat_msg, self.get_job_and_profile = batsim._read_bat_msg, batsim.get_job_and_profile
        self.from_json_dict, self.workload, self.state = job.from_json_dict, job.workload, job.State
        state = job.State  # an Enum: its members cannot be reassigned
        self.states = state._member_map_
        self.submitted, self.in_submission, self.unknown = state.SUBMITTED, state.IN_SUBMISSON, state.UNKNOWN
        self.walltime_reached, self.failed = state.COMPLETED_WALLTIME_REACHED, state.COMPLETED_FAILED
        self.successful, self.killed = state.COMPLETED_SUCCESSFULLY, state.COMPLETED_KILLED

    def route(self, bs: Any, message: Any) -> bool:
        """True when :meth:`Dispatcher.read_bat_msg` may read ``message``; False: pybatsim's own code must."""
        batsim, job, own = self.batsim, self.job, bs.__dict__
        if (
            type(bs) is not batsim
            or batsim._read_bat_msg is not self.stock_read_bat_msg
            or batsim.get_job_and_profile is not self.get_job_and_profile
            or "_read_bat_msg" in own
            or "get_job_and_profile" in own
            or self.module.Job is not job
            or self.module.Batsim is not batsim  # Job.workload reads its separator there
            or job.from_json_dict is not self.from_json_dict
            or job.workload is not self.workload
            or job.State is not self.state
            or bs.network is not self.handler
            or "recv" in self.handler.__dict__
            or type(bs.jobs) is not dict
            or type(bs.profiles) is not dict
            or type(bs.logger) is not Logger  # its answer for INFO: cached False, or asked
            or (bs.logger._cache.get(INFO, True) and bs.logger.isEnabledFor(INFO))  # type: ignore[attr-defined]
        ):
            return False
        # The mirror does what pybatsim does in its order, so a malformed event fails alike on
        # either; it only has to leave to pybatsim the events it does not copy.
        jobs = bs.jobs
        try:
            events = message["events"]
            if type(events) is not list:  # not read twice (a generator would be consumed here)
                return False
            for event in events:
                kind = event["type"]
                if kind == "JOB_SUBMITTED":
                    if event["data"]["job_id"] in jobs:
                        return False
                elif kind != "JOB_COMPLETED" and kind != "REQUESTED_CALL":
                    return False
        except Exception:  # malformed: pybatsim's code says what is wrong with it
            return False
        return True

    # -- pybatsim's _read_bat_msg, for a message route() accepts --------------------------------
    def read_bat_msg(self, bs: Any) -> bool:
        """pybatsim 3.2.1's ``Batsim._read_bat_msg``, statement for statement, for a message
        :meth:`route` accepts. What differs: its INFO log lines are not formatted (INFO is off);
        ``get_job_and_profile`` and ``Job.from_json_dict`` are inlined; ``job.workload`` is
        computed once per event instead of up to four times (a function of ``job.id`` only);
        ``Job.State[name]`` reads ``Job.State._member_map_`` as ``EnumType.__getitem__`` does;
        ``Job.State``'s members are read once (an ``Enum``'s members cannot be reassigned); the
        sort key is ``itemgetter("timestamp")``, and one event is "sorted" by reading its key."""
        self.messages += 1
        msg = None
        while msg is None:
            msg = bs.network.recv(blocking=not bs.running_simulation)
            if msg is None:
                bs.scheduler.onDeadlock()
                continue

        bs._current_time = msg["now"]
        bs._events_to_send = []
        bs.scheduler.onBeforeEvents()

        for event in msg["events"]:
            event_type = event["type"]
            event_data = event.get("data", {})
            if event_type == "JOB_SUBMITTED":
                self.job_submitted(bs, event, event_data)
            elif event_type == "JOB_COMPLETED":
                self.job_completed(bs, event, event_data)
            else:  # REQUESTED_CALL
                bs.scheduler.onRequestedCall()

        bs.scheduler.onNoMoreEvents()

        events = bs._events_to_send
        if len(events) > 0:
            if len(events) == 1 and type(events) is list:
                by_timestamp(events[0])  # what sorted() reads of it
                bs._events_to_send = [events[0]]
            else:
                bs._events_to_send = sorted(events, key=by_timestamp)

        new_msg = {"now": bs._current_time, "events": bs._events_to_send}
        bs.network.send(new_msg)
        if bs.logger._cache.get(INFO, True) and bs.logger.isEnabledFor(INFO):  # turned on by a handler
            bs.logger.info(f"Message Sent to Batsim: {new_msg}")
        return True

    def job_submitted(self, bs: Any, event: dict, event_data: dict) -> None:
        """pybatsim's ``JOB_SUBMITTED`` case; route() sent any job id already known to pybatsim."""
        job_id = event_data["job_id"]
        data = event["data"]  # get_job_and_profile(event)
        json_dict = data["job"]
        job = self.job(  # Job.from_json_dict(json_dict)
            json_dict["id"],
            json_dict["subtime"],
            json_dict.get("walltime", -1),
            json_dict["res"],
            json_dict["profile"],
            json_dict,
        )
        profile = data["profile"] if "profile" in data else {}
        job.job_state = self.submitted
        bs.nb_jobs_submitted += 1

        workload = job.id.split(self.batsim.WORKLOAD_JOB_SEPARATOR)[0]  # job.workload
        profiles = bs.profiles
        if profile is not None:
            if workload not in profiles:
                profiles[workload] = {}
            if job.profile not in profiles[workload]:
                profiles[workload][job.profile] = profile

        assert job.profile in profiles[workload]
        job.profile_dict = profiles[workload][job.profile]

        jobs = bs.jobs
        if job_id in jobs:  # registered by a handler of this very message (route() checked before)
            bs.logger.warn(
                f"The job '{job_id}' was alredy in the job list. "
                "Probaly a dynamic job that was submitted "
                f"before: \nOld job: {jobs[job_id]}\nNew job: {job}"
            )
            if jobs[job_id].job_state == self.in_submission:
                bs.nb_jobs_in_submission = bs.nb_jobs_in_submission - 1
            job.metadata = jobs[job_id].metadata
            bs.nb_jobs_submitted_from_scheduler += 1
        else:
            bs.nb_jobs_submitted_from_batsim += 1
        jobs[job_id] = job

        if (bs.use_storage_controller) and (workload == "dyn-storage-controller"):
            pass
        else:
            bs.scheduler.onJobSubmission(job)

    def job_completed(self, bs: Any, event: dict, event_data: dict) -> None:
        """pybatsim's ``JOB_COMPLETED`` case."""
        job_id = event_data["job_id"]
        j = bs.jobs[job_id]
        j.finish_time = event["timestamp"]

        try:
            j.job_state = self.states[event["data"]["job_state"]]  # Job.State[...]
        except KeyError:
            j.job_state = self.unknown
        j.return_code = event["data"]["return_code"]

        if j.job_state == self.walltime_reached:
            bs.nb_jobs_timeout += 1
        elif j.job_state == self.failed:
            bs.nb_jobs_failed += 1
        elif j.job_state == self.successful:
            bs.nb_jobs_successful += 1
        elif j.job_state == self.killed:
            bs.nb_jobs_killed += 1
        bs.nb_jobs_completed += 1

        if (bs.use_storage_controller) and (j.workload == "dyn-storage-controller"):
            bs.storage_controller.data_staging_completed(j)
        else:
            bs.scheduler.onJobCompletion(j)
