"""Batsim JSON workloads: loading and validation with Batsim 4.2.1's rules.

A workload is ``{"nb_res": N, "jobs": [...], "profiles": {...}}`` (see
``../shared/reference/batsim-v4.md`` section 2.1). The checks are Batsim's own
(``src/jobs.cpp``, ``src/profiles.cpp``, ``src/workload.cpp``), reported as
:class:`~adaptsched.errors.InputError` naming the file, the job and the field.

Profile types the embedded engine executes: ``delay`` (sleep ``delay`` seconds)
and ``parallel_homogeneous_total`` (``cpu`` flops in total, spread evenly over the
allocated hosts, so it runs for cpu / (n · host speed) seconds; its ``com`` is
accepted and costs nothing on network-less platforms). Other types load only for
real Batsim (``--engine batsim``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from adaptsched.errors import InputError
from adaptsched.formats.jsontext import dumps, is_int, is_number

EMBEDDED_PROFILE_TYPES = ("delay", "parallel_homogeneous_total")


@dataclass
class Profile:
    name: str
    type: str
    delay: float = 0.0  # delay profiles: seconds
    cpu: float = 0.0  # parallel_homogeneous_total: flops in total
    com: float = 0.0
    ret: int = 0  # return code on normal completion
    json: str = ""  # description as Batsim writes it


class JobSpec:
    """A job as a workload describes it. ``id`` is the full identifier ``WORKLOAD!NAME``.

    The embedded engine keeps its own record of each job while it runs
    (:class:`adaptsched.engines.embedded.jobs.JobRecord`).
    """

    __slots__ = ("id", "json", "name", "profile", "res", "subtime", "walltime", "workload")

    def __init__(self, workload, name, subtime, res, walltime, profile, json_text):
        self.workload = workload
        self.name = name
        self.id = f"{workload}!{name}"
        self.subtime = subtime
        self.res = res
        self.walltime = walltime
        self.profile = profile
        self.json = json_text  # its description as Batsim sends it to the scheduler ("" if not kept)


@dataclass
class Workload:
    name: str
    path: str
    nb_res: int
    jobs: dict[str, JobSpec]  # job name -> JobSpec
    profiles: dict[str, Profile | None]  # profile name -> Profile, or None once garbage-collected

    @property
    def nb_jobs(self) -> int:
        return len(self.jobs)


def parse_profile(name: str, desc, where, *, embedded: bool = True) -> Profile:
    """Checks one profile description; ``where`` prefixes error messages."""
    path, prefix = where
    if not isinstance(desc, dict):
        raise InputError(path, f"{prefix}profile '{name}' is not a JSON object")
    ptype = desc.get("type")
    if not isinstance(ptype, str):
        raise InputError(path, f"{prefix}profile '{name}' has no string 'type'", field="type")
    ret = desc.get("ret", 0)
    if not is_int(ret):
        raise InputError(path, f"{prefix}profile '{name}': 'ret' must be an integer", field="ret")
    profile = Profile(name, ptype, ret=ret, json=dumps(desc))
    if ptype == "delay":
        delay = desc.get("delay")
        if not is_number(delay) or delay <= 0:
            raise InputError(
                path, f"{prefix}profile '{name}': 'delay' must be a number > 0, got {delay!r}", field="delay"
            )
        profile.delay = float(delay)
    elif ptype == "parallel_homogeneous_total":
        for key in ("cpu", "com"):
            value = desc.get(key)
            if not is_number(value) or value < 0:
                raise InputError(
                    path, f"{prefix}profile '{name}': '{key}' must be a number >= 0, got {value!r}", field=key
                )
        profile.cpu, profile.com = float(desc["cpu"]), float(desc["com"])
    elif embedded:
        raise InputError(
            path,
            f"{prefix}profile '{name}' has type '{ptype}', which the embedded engine does not execute "
            f"(it runs {', '.join(EMBEDDED_PROFILE_TYPES)}); use --engine batsim",
            field="type",
        )
    return profile


def parse_job(desc, workload: str, profiles: dict, where, *, describe: bool = True) -> JobSpec:
    """Checks one job description as Batsim's ``Job::from_json`` does.

    ``describe``: also keep the job's JSON as Batsim sends it to the scheduler.
    """
    path, prefix = where
    if not isinstance(desc, dict):
        raise InputError(path, f"{prefix}a job is not a JSON object")
    raw_id = desc.get("id")
    if isinstance(raw_id, str):
        name = raw_id
    elif is_int(raw_id):
        name = str(raw_id)
    else:
        raise InputError(path, f"{prefix}a job has no 'id' (string or integer), got {raw_id!r}", field="id")
    if "!" in name:
        wl, _, name = name.partition("!")
        if wl != workload or not name or "!" in name:
            raise InputError(path, f"{prefix}job id '{raw_id}' is not of the form '{workload}!NAME'", field="id")
    label = f"{prefix}job '{name}'"
    subtime = desc.get("subtime")
    if not is_number(subtime):
        raise InputError(path, f"{label}: 'subtime' must be a number, got {subtime!r}", field="subtime")
    walltime = desc.get("walltime", -1)
    if not is_number(walltime) or not (walltime == -1 or walltime > 0):
        raise InputError(
            path, f"{label}: 'walltime' must be -1 (none) or a number > 0, got {walltime!r}", field="walltime"
        )
    res = desc.get("res")
    if not is_int(res) or res < 0:
        raise InputError(path, f"{label}: 'res' must be an integer >= 0, got {res!r}", field="res")
    profile = desc.get("profile")
    if not isinstance(profile, str):
        raise InputError(path, f"{label}: 'profile' must be a string, got {profile!r}", field="profile")
    if profile not in profiles:
        raise InputError(path, f"{label}: profile '{profile}' does not exist", field="profile")
    text = ""
    if describe:
        described = dict(desc)
        described["id"] = f"{workload}!{name}"
        text = dumps(described)
    return JobSpec(workload, name, float(subtime), res, float(walltime), profile, text)


def load_workload(path, name: str = "w0", *, embedded: bool = True) -> Workload:
    """Loads and checks a Batsim JSON workload file; ``name`` is Batsim's ``w0``, ``w1``...

    ``embedded=False`` (a check before running real Batsim) accepts every profile
    type and skips what only the embedded engine needs.
    """
    path = str(path)
    try:
        text = Path(path).read_text()
    except FileNotFoundError:
        raise InputError(path, "no such workload file") from None
    except OSError as error:
        raise InputError(path, f"cannot read: {error.strerror}") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(path, f"not valid JSON: {error.msg} (column {error.colno})", line=error.lineno) from None
    if not isinstance(doc, dict):
        raise InputError(path, "not a JSON object")
    nb_res = doc.get("nb_res")
    if not is_int(nb_res) or nb_res <= 0:
        raise InputError(path, f"must be a positive integer, got {nb_res!r}", field="nb_res")
    raw_profiles = doc.get("profiles")
    if not isinstance(raw_profiles, dict):
        raise InputError(path, "the 'profiles' object is missing", field="profiles")
    raw_jobs = doc.get("jobs")
    if not isinstance(raw_jobs, list):
        raise InputError(path, "the 'jobs' array is missing", field="jobs")

    profiles: dict[str, Profile | None] = {
        pname: parse_profile(pname, pdesc, (path, ""), embedded=embedded) for pname, pdesc in raw_profiles.items()
    }
    jobs: dict[str, JobSpec] = {}
    for index, desc in enumerate(raw_jobs):
        job = parse_job(desc, name, profiles, (path, f"jobs[{index}]: "), describe=embedded)
        if job.name in jobs:
            raise InputError(path, f"jobs[{index}]: duplicate job id '{job.name}'", field="id")
        jobs[job.name] = job
    # Batsim drops the profiles no job uses from memory at load time.
    used = {job.profile for job in jobs.values()}
    for pname in profiles:
        if pname not in used:
            profiles[pname] = None
    return Workload(name, str(Path(path).resolve()), nb_res, jobs, profiles)


def metadata(workload: dict) -> dict:
    """adaptsched's metadata of a workload dict: its ``adaptsched`` key (``convert``, every
    generator, ``estimates``), else the ``meta`` key of older Downey workloads, else {}."""
    for key in ("adaptsched", "meta"):
        value = workload.get(key)
        if isinstance(value, dict):
            return value
    return {}


def too_wide_note(workload: Workload, nb_hosts: int, *, shown: int = 10) -> str | None:
    """A note naming the jobs that ask for more hosts than the platform has, or None.

    Batsim runs such a workload: the scheduler has to reject those jobs (they end
    ``REJECTED``) and the run exits 0 without a word. Both engines print this note before
    the run starts: id, hosts requested, hosts available. A job with a
    ``parallel_homogeneous_total`` profile may still run if the scheduler molds it to fewer
    hosts; the others never can.
    """
    wide = [job for job in workload.jobs.values() if job.res > nb_hosts]
    if not wide:
        return None
    moldable = {
        name for name, profile in workload.profiles.items() if profile and profile.type == "parallel_homogeneous_total"
    }
    never = [job for job in wide if job.profile not in moldable]
    molded = [job for job in wide if job.profile in moldable]

    def listing(jobs) -> str:
        text = ", ".join(f"job {job.name}: {job.res} hosts requested" for job in jobs[:shown])
        return text + (f", and {len(jobs) - shown} more" if len(jobs) > shown else "")

    parts = []
    if never:
        what = "1 job can never run" if len(never) == 1 else f"{len(never)} jobs can never run"
        parts.append(
            f"note: {what}: wider than the platform's {nb_hosts} hosts ({listing(never)}); "
            f"the scheduler must reject {'it' if len(never) == 1 else 'them'} (final state REJECTED)"
        )
    if molded:
        what = "1 moldable job is" if len(molded) == 1 else f"{len(molded)} moldable jobs are"
        parts.append(
            f"note: {what} wider than the platform's {nb_hosts} hosts ({listing(molded)}); "
            + (
                "it runs only if the scheduler molds it"
                if len(molded) == 1
                else "they run only if the scheduler molds them"
            )
            + " to fewer hosts"
        )
    return "\n".join(parts)
