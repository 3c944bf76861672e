"""Batsim JSON workloads: loading and validation with Batsim 4.2.1's rules.

A workload is ``{"nb_res": N, "jobs": [...], "profiles": {...}}`` (see
``../shared/reference/batsim-v4.md`` section 2.1). The checks are Batsim's own
(``src/jobs.cpp``, ``src/profiles.cpp``, ``src/workload.cpp``), reported as
:class:`~adaptsched.errors.InputError` naming the file, the job and the field.

Profile types the embedded engine executes: ``delay`` (sleep ``delay`` seconds),
``parallel_homogeneous_total`` (``cpu`` flops in total, spread evenly over the
allocated hosts, so it runs for cpu / (n · host speed) seconds, and ``com`` bytes spread
over the pairs of hosts), ``parallel_homogeneous`` (``cpu`` flops on each host, ``com``
bytes between each pair), ``parallel`` (a ``cpu`` vector and an n x n ``com`` matrix) and
``composed`` (``seq``, the names of other profiles run one after the other, ``repeat``
times; resolved to the profiles themselves at load, as Batsim holds them). Communications
cost nothing on network-less platforms (engines/embedded/network.py models the others).
Other types load only for real Batsim (``--engine batsim``).
"""

from __future__ import annotations

import codecs
import json
import re
import shlex
import sys
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adaptsched.errors import InputError
from adaptsched.formats.bulk import gc_paused
from adaptsched.formats.files import HEAD_BYTES, head, looks_like_swf, opened, rest_of, text_kind
from adaptsched.formats.jsontext import dict_format, dumps, is_int, is_number
from adaptsched.formats.jsontext import escape as _escape
from adaptsched.formats.rapidjson import batsim_float
from adaptsched.limits import brief, shown

#: Profile types the embedded engine executes as Batsim 4.2.1 does (the others load only for
#: real Batsim, and the engine's fidelity assessment refuses them: engines/checks/fidelity.py).
EMBEDDED_PROFILE_TYPES = ("delay", "parallel_homogeneous_total", "parallel_homogeneous", "parallel", "composed")
#: The fields of a job beyond Batsim's that a workload keeps for the checks before and after a
#: run (what a scheduler needs, :mod:`adaptsched.core.needs`; a run's physics).
ANNOTATIONS = ("moldable", "evolving", "deadline", "max_res")


@dataclass(slots=True)
class Profile:
    name: str
    type: str
    delay: float = 0.0  # delay profiles: seconds
    cpu: float = 0.0  # parallel_homogeneous_total: flops in total; parallel_homogeneous: per host
    com: float = 0.0
    ret: int = 0  # return code on normal completion
    json: str = ""  # description as Batsim writes it
    cpus: tuple = ()  # parallel: flops on each host
    coms: tuple = ()  # parallel: bytes from host i to host j at i * n + j
    seq: list | tuple = ()  # composed: the names, then (load_workload) the profiles; () for the others (no list each)
    repeat: int = 1  # composed


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
    annotations: dict[str, dict[str, Any]] = field(default_factory=dict)  # job name -> its ANNOTATIONS fields, if any
    #: Every profile the file declares, in its order, used or not (what the fidelity assessment
    #: reads: Batsim drops the unused ones from ``profiles``).
    declared: dict[str, Profile] = field(default_factory=dict)

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
                path, f"{prefix}profile '{name}': 'delay' must be a number > 0, got {brief(delay)}", field="delay"
            )
        profile.delay = float(delay)
    elif ptype == "parallel":
        _parse_parallel(profile, desc, path, prefix)
    elif ptype == "composed":
        _parse_composed(profile, desc, path, prefix)
    elif ptype in ("parallel_homogeneous_total", "parallel_homogeneous"):
        for key in ("cpu", "com"):
            value = desc.get(key)
            if not is_number(value) or value < 0:
                raise InputError(
                    path, f"{prefix}profile '{name}': '{key}' must be a number >= 0, got {brief(value)}", field=key
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


def _parse_parallel(profile: Profile, desc: dict, path, prefix: str):
    """``parallel``: ``cpu``, n flop amounts >= 0; ``com``, n x n byte amounts >= 0."""
    name = profile.name
    cpu, com = desc.get("cpu"), desc.get("com")
    if not isinstance(cpu, list) or not cpu or not all(is_number(x) and x >= 0 for x in cpu):
        raise InputError(
            path, f"{prefix}profile '{name}': 'cpu' must be a non-empty array of numbers >= 0", field="cpu"
        )
    if not isinstance(com, list) or not all(is_number(x) and x >= 0 for x in com):
        raise InputError(path, f"{prefix}profile '{name}': 'com' must be an array of numbers >= 0", field="com")
    if len(com) != len(cpu) ** 2:
        raise InputError(
            path,
            f"{prefix}profile '{name}' is incoherent: 'com' has {len(com)} elements, 'cpu' {len(cpu)} "
            f"(it needs {len(cpu)}^2 = {len(cpu) ** 2})",
            field="com",
        )
    profile.cpus, profile.coms = tuple(float(x) for x in cpu), tuple(float(x) for x in com)


def _parse_composed(profile: Profile, desc: dict, path, prefix: str):
    """``composed``: ``seq``, a non-empty array of profile names; ``repeat``, an integer > 0 (1)."""
    name = profile.name
    repeat, seq = desc.get("repeat", 1), desc.get("seq")
    if not is_int(repeat) or repeat <= 0:
        raise InputError(
            path, f"{prefix}profile '{name}': 'repeat' must be an integer > 0, got {brief(repeat)}", field="repeat"
        )
    if not isinstance(seq, list) or not seq or not all(isinstance(x, str) for x in seq):
        raise InputError(
            path, f"{prefix}profile '{name}': 'seq' must be a non-empty array of profile names", field="seq"
        )
    profile.seq, profile.repeat = list(seq), repeat


def resolve_composed(profiles: dict, path) -> set:
    """Each composed profile's ``seq`` as the profiles themselves (Batsim's ``check_validity``);
    returns the names of the profiles some composed profile uses."""
    used = set()
    for name, profile in profiles.items():
        if profile is None or profile.type != "composed" or not all(isinstance(x, str) for x in profile.seq):
            continue
        for sub in profile.seq:
            if profiles.get(sub) is None:
                raise InputError(path, f"invalid composed profile '{name}': the used profile '{sub}' does not exist")
        used.update(profile.seq)
        profile.seq = [profiles[sub] for sub in profile.seq]
    return used


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
        raise InputError(path, f"{prefix}a job has no 'id' (string or integer), got {brief(raw_id)}", field="id")
    if "!" in name:
        wl, _, name = name.partition("!")
        if wl != workload or not name or "!" in name:
            raise InputError(path, f"{prefix}job id '{raw_id}' is not of the form '{workload}!NAME'", field="id")
    label = f"{prefix}job '{name}'"
    subtime = desc.get("subtime")
    if not is_number(subtime):
        raise InputError(path, f"{label}: 'subtime' must be a number, got {brief(subtime)}", field="subtime")
    walltime = desc.get("walltime", -1)
    if not is_number(walltime) or not (walltime == -1 or walltime > 0):
        raise InputError(
            path, f"{label}: 'walltime' must be -1 (none) or a number > 0, got {brief(walltime)}", field="walltime"
        )
    res = desc.get("res")
    if not is_int(res) or res < 0:
        raise InputError(path, f"{label}: 'res' must be an integer >= 0, got {brief(res)}", field="res")
    profile = desc.get("profile")
    if not isinstance(profile, str):
        raise InputError(path, f"{label}: 'profile' must be a string, got {brief(profile)}", field="profile")
    if profile not in profiles:
        raise InputError(path, f"{label}: profile '{profile}' does not exist", field="profile")
    text = _description(desc, f"{workload}!{name}") if describe else ""
    return JobSpec(workload, name, float(subtime), res, float(walltime), profile, text)


#: Per form of job description (its keys, the types of its values): the ``%`` format of its
#: text and where its strings are, or None for one :func:`dumps` writes value by value.
_FORMS: dict[tuple[tuple, tuple], tuple[str, tuple[int, ...]] | None] = {}
_MAX_FORMS = 64
_UNSEEN: tuple[str, tuple[int, ...]] = ("", ())


def _description(desc: dict, job_id: str) -> str:
    """``dumps`` of the job's description with its full id ``job_id``: the text Batsim sends the
    scheduler. The jobs of a workload share a few forms (their keys and the types of their
    values): each form's text is one ``%`` format, filled in one call, with the strings escaped
    as ``dumps`` escapes them (two thirds of the time of writing it value by value)."""
    keys = tuple(desc)
    values = list(desc.values())
    values[keys.index("id")] = job_id
    kinds = tuple(map(type, values))
    form = _FORMS.get((keys, kinds), _UNSEEN)
    if form is _UNSEEN:
        form = dict_format(keys, kinds)
        if len(_FORMS) < _MAX_FORMS:
            _FORMS[keys, kinds] = form
    if form is None:
        return dumps(dict(zip(keys, values)))
    text, strings = form
    for i in strings:
        values[i] = _escape(values[i])
    return text % tuple(values)


def load_workload(path, name: str = "w0", *, embedded: bool = True, every_type: bool = False) -> Workload:
    """Loads and checks a Batsim JSON workload file; ``name`` is Batsim's ``w0``, ``w1``...

    ``embedded=False`` (a check before running real Batsim) accepts every profile
    type and skips what only the embedded engine needs. ``every_type``: the embedded engine's
    reading (its numbers, the jobs' descriptions) that still accepts every profile type, for a
    run whose fidelity assessment decides what it refuses (engines/checks/fidelity.py).
    """
    # Every object made here lives on (the document until the jobs are made, the jobs after):
    # no cycle to collect, and each collection of the cyclic GC would walk them all again
    # (CTC-SP2's 77,205 jobs: a tenth of the time).
    with gc_paused():
        return _load(str(path), name, embedded, every_type)


def _load(path: str, name: str, embedded: bool, every_type: bool = False) -> Workload:
    # the embedded engine reads numbers as Batsim's RapidJSON does: a subtime of 17 digits may be
    # one ulp away from Python's, which moves the clock by that much (formats/rapidjson.py)
    doc = read_json(path, "workload", parse_float=batsim_float if embedded else None)
    if not isinstance(doc, dict):
        raise InputError(path, "not a JSON object")
    nb_res = doc.get("nb_res")
    if not is_int(nb_res) or nb_res <= 0:
        raise InputError(path, f"must be a positive integer, got {brief(nb_res)}", field="nb_res")
    raw_profiles = doc.get("profiles")
    if not isinstance(raw_profiles, dict):
        raise InputError(path, "the 'profiles' object is missing", field="profiles")
    raw_jobs = doc.get("jobs")
    if not isinstance(raw_jobs, list):
        raise InputError(path, "the 'jobs' array is missing", field="jobs")

    profiles: dict[str, Profile | None] = {
        pname: parse_profile(pname, pdesc, (path, ""), embedded=embedded and not every_type)
        for pname, pdesc in raw_profiles.items()
    }
    declared = {pname: profile for pname, profile in profiles.items() if profile is not None}
    jobs: dict[str, JobSpec] = {}
    annotations: dict[str, dict[str, Any]] = {}
    for index, desc in enumerate(raw_jobs):
        job = parse_job(desc, name, profiles, (path, f"jobs[{index}]: "), describe=embedded)
        if job.name in jobs:
            raise InputError(path, f"jobs[{index}]: duplicate job id '{job.name}'", field="id")
        jobs[job.name] = job
        if not desc.keys().isdisjoint(ANNOTATIONS):
            annotations[job.name] = {key: desc[key] for key in ANNOTATIONS if key in desc}
    of_jobs = {job.profile for job in jobs.values()}
    _check_csv_safe(path, jobs, of_jobs)
    # Batsim drops the profiles no job (and no composed profile) uses from memory at load time.
    used = of_jobs | resolve_composed(profiles, path)
    for pname in profiles:
        if pname not in used:
            profiles[pname] = None
    return Workload(name, str(Path(path).resolve()), nb_res, jobs, profiles, annotations, declared)


#: What a job id or a profile name cannot hold: Batsim writes them unquoted in ``_jobs.csv``.
_UNSAFE_NAMES = {",": "a comma", '"': "a double quote", "\n": "a line break", "\r": "a line break"}


def _unsafe(text: str) -> str | None:
    """The first character of :data:`_UNSAFE_NAMES` that ``text`` holds (one fast scan each), or None."""
    found = [(text.index(char), char) for char in _UNSAFE_NAMES if char in text]
    return min(found)[1] if found else None


def _check_csv_safe(path: str, jobs: dict[str, JobSpec], profiles: set[str]) -> None:
    """Refuses a job id or a profile name (of a job) holding a comma, a double quote or a line
    break, naming the first job: Batsim 4.2.1 writes both unquoted in ``_jobs.csv``, so that no
    CSV reader reads them back; it stops on such a job id itself (a "not valid JSON" once it
    prefixes the id with ``w0!``), and writes such a profile name as it is. One scan of all the
    names, then a search for the first culprit only when there is one."""
    if _unsafe("\0".join(jobs)) is None and _unsafe("\0".join(profiles)) is None:
        return
    for index, job in enumerate(jobs.values()):
        for key, value in (("id", job.name), ("profile", job.profile)):
            bad = _unsafe(value)
            if bad is not None:
                what = "job id" if key == "id" else "profile name"
                raise InputError(
                    path,
                    f"jobs[{index}]: {what} {shown(value)} holds {_UNSAFE_NAMES[bad]}, which Batsim's "
                    f"CSV outputs cannot carry (it writes {what}s unquoted in _jobs.csv; real Batsim 4.2.1 "
                    + ("stops on such a job id)" if key == "id" else "writes a _jobs.csv no CSV reader reads back)")
                    + ": rename it without commas, double quotes or line breaks",
                    field=key,
                )


class _Constant:
    """What ``NaN``, ``Infinity`` or ``-Infinity`` parse to, until the check names its field."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return self.name


def read_json(path: str, what: str = "file", parse_float: Callable[[str], float] | None = None):
    """A JSON file's document, or an :class:`InputError` naming what is wrong in the user's
    terms: a missing file, one that is not JSON text (binary, gzip-compressed, UTF-16, an SWF
    trace: :func:`json_text`), a UTF-8 byte-order mark, invalid JSON (line and column), nesting
    past Python's recursion limit, or NaN / Infinity, which Batsim refuses (the field's path and
    line). ``parse_float`` reads fractional numbers (``float`` when None)."""
    text = json_text(path, what)
    if text.startswith("\ufeff"):
        raise InputError(
            path,
            "starts with a UTF-8 byte-order mark (BOM), which JSON does not allow and Batsim refuses: save it "
            "without one (e.g. sed -i '1s/^\\xEF\\xBB\\xBF//' FILE)",
            line=1,
        )
    found: list[_Constant] = []

    def constant(name: str) -> _Constant:
        found.append(_Constant(name))
        return found[-1]

    try:
        doc = json.loads(text, parse_constant=constant, parse_float=parse_float)
    except json.JSONDecodeError as error:
        raise InputError(path, f"not valid JSON: {error.msg} (column {error.colno})", line=error.lineno) from None
    except RecursionError:
        raise InputError(
            path,
            f"arrays or objects nested too deeply (past Python's limit of about {sys.getrecursionlimit():,} "
            f"levels; a workload nests 4): not a {what} file",
        ) from None
    except ValueError as error:  # an integer of more than 4,300 digits (Python's limit)
        digits = re.search(r"value has (\d+) digits", str(error))
        size = f" of {int(digits.group(1)):,} digits" if digits else ""
        raise InputError(
            path, f"holds an integer{size}, past the 4,300 digits Python reads: not a {what} file"
        ) from None
    if found:
        try:
            where = _path_of(doc, found[0]) or "?"
        except RecursionError:
            where = "?"
        token = found[0].name
        line = text.count("\n", 0, max(text.find(token), 0)) + 1
        raise InputError(
            path, f"{token} is not a number JSON allows (Batsim refuses NaN and Infinity)", line=line, field=where
        )
    return doc


def json_text(path: str, what: str = "file") -> str:
    """The text of a JSON file, judged on its first bytes before it is read whole: a gzip file (an
    SWF trace or not), UTF-16 text, binary data, or an SWF trace are refused with what to do,
    and so is a file larger than :data:`~adaptsched.limits.MAX_TEXT_BYTES`."""
    with opened(path, gunzip=False, what=what) as (gzipped, chunks):
        first, chunks = head(chunks)
        kind = text_kind(first)
        if gzipped:
            inflated = _inflated_head(first)
            if text_kind(inflated) == "text" and looks_like_swf(inflated.decode("utf-8", "replace")):
                raise InputError(path, swf_given(path, what))
            raise InputError(
                path, f"not a text file: it is gzip-compressed (decompress it first: zcat {path} > OUT.json)"
            )
        if kind.startswith("utf-16"):
            codec = "utf-16" if first[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE) else kind
            if looks_like_swf(first[: len(first) & ~1].decode(codec, "replace")):
                raise InputError(path, swf_given(path, what))
            raise InputError(
                path,
                f"UTF-16 text, which JSON does not allow and Batsim refuses: save it as UTF-8 "
                f"(e.g. iconv -f UTF-16 -t UTF-8 {path} > OUT.json)",
            )
        if kind == "binary":
            raise InputError(path, f"not a text file (it holds binary data): a {what} file is UTF-8 text")
        if looks_like_swf(first.decode("utf-8", "replace")):
            raise InputError(path, swf_given(path, what))
        return rest_of(path, chunks, what)


def _inflated_head(data: bytes) -> bytes:
    """The first bytes that the start of a gzip file inflates to (b"" if they are corrupt)."""
    try:
        return zlib.decompressobj(31).decompress(data, HEAD_BYTES)
    except zlib.error:
        return b""


def swf_given(path: str, what: str) -> str:
    """What to do with an SWF trace given where a Batsim JSON file is expected."""
    name = Path(path).name
    for suffix in (".gz", ".swf"):
        name = name.removesuffix(suffix)
    return (
        f"this is an SWF trace (Standard Workload Format), not a Batsim JSON {what}: convert it first, "
        f"e.g. adaptsched convert {shlex.quote(path)} {shlex.quote(name + '.json')} (docs/convert.md)"
    )


def _path_of(doc, target, prefix: str = "") -> str | None:
    """Where ``target`` sits in ``doc`` (``jobs[3].subtime``), or None."""
    if doc is target:
        return prefix
    if isinstance(doc, dict):
        items = ((f"{prefix}.{k}" if prefix else str(k), v) for k, v in doc.items())
    elif isinstance(doc, list):
        items = ((f"{prefix}[{i}]", v) for i, v in enumerate(doc))
    else:
        return None
    for where, value in items:
        found = _path_of(value, target, where)
        if found is not None:
            return found
    return None


def metadata(workload: dict) -> dict:
    """adaptsched's metadata of a workload dict: its ``adaptsched`` key (``convert``, every
    generator, ``estimates``), else the ``meta`` key of older Downey workloads, else {}."""
    for key in ("adaptsched", "meta"):
        value = workload.get(key)
        if isinstance(value, dict):
            return value
    return {}
