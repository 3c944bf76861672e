"""The workloads ``adaptsched check`` runs a scheduler on, as Batsim JSON dicts.

Built-in cases (:func:`builtin_cases`), each small enough to run in well under a second:

* ``ctc``: the first 300 jobs of the bundled CTC-SP2 excerpt (a real trace: inexact
  estimates, a job past its estimate, wide jobs);
* ``lublin``: 300 jobs of Lublin & Feitelson's model, their arrivals packed so that the
  offered load is about 1.5 (a queue always forms);
* ``walltime``: the same jobs with every third one running past its walltime (killed there)
  and one running exactly its walltime (Batsim's rule: that reaches it), the others with
  estimates twice their runtime (early completions);
* one case per input the scheduler declares it reads (:func:`declared_needs`): ``moldable``
  (the ``lublin`` jobs, 70 % annotated with the model it reads, ``mold-annotate``), ``qos``
  (deadlines and prices, ``qos-annotate``), ``evolving`` (a Klein & Pérez test). A case a
  scheduler cannot run without its input (a declaration it does not waive) is annotated too.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CTC = Path(__file__).resolve().parent.parent / "workloads" / "excerpts" / "CTC-SP2-1996-3.1-cln.first5000.swf.gz"
CTC_HOSTS = 338
LUBLIN_HOSTS = 64
CASE_JOBS = 300
TARGET_LOAD = 1.5
MOLDABLE_FRACTION = 0.7


@dataclass(frozen=True)
class Case:
    """A workload to run the scheduler on: ``name``, what it is, the workload, the machine size."""

    name: str
    about: str
    workload: dict[str, Any]
    nb_hosts: int


def declared_needs(options: Any) -> list[Any]:
    """What the scheduler's options declare its input must carry (``Options.needs()``: a need,
    several, or None), as a list."""
    needs = getattr(options, "needs", None)
    declared = needs() if callable(needs) else None
    if declared is None:
        return []
    return list(declared) if isinstance(declared, (tuple, list)) else [declared]


def job_ids(workload: dict[str, Any], name: str = "w0") -> list[str]:
    """The workload's jobs as Batsim names them in ``_jobs.csv`` (``w0!ID``)."""
    return [f"{name}!{job['id']}" for job in workload["jobs"]]


def subset(workload: dict[str, Any], jobs: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The workload with only ``jobs`` (and the profiles they use)."""
    jobs = list(jobs)
    used = {job["profile"] for job in jobs}
    out = {k: v for k, v in workload.items() if k not in ("jobs", "profiles")}
    out["profiles"] = {name: p for name, p in workload["profiles"].items() if name in used}
    out["jobs"] = jobs
    return out


def ctc(nb_hosts: int) -> dict[str, Any]:
    from adaptsched.workloads.convert import convert_swf

    workload, _ = convert_swf(CTC, hosts=nb_hosts, first=CASE_JOBS)
    return workload


def lublin(nb_hosts: int, seed: int) -> dict[str, Any]:
    """Lublin & Feitelson's jobs, arrivals scaled to an offered load of :data:`TARGET_LOAD`."""
    from adaptsched.workloads.lublin import generate

    workload = generate(CASE_JOBS, hosts=nb_hosts, seed=seed)
    jobs, profiles = workload["jobs"], workload["profiles"]
    work = sum(job["res"] * profiles[job["profile"]]["delay"] for job in jobs)
    span = max(job["subtime"] for job in jobs) - min(job["subtime"] for job in jobs)
    factor = min(1.0, work / (TARGET_LOAD * nb_hosts * span)) if span > 0 else 1.0
    for job in jobs:
        job["subtime"] = math.floor(job["subtime"] * factor)
    return workload


def past_walltime(workload: dict[str, Any]) -> dict[str, Any]:
    """Every third job runs past its walltime, one exactly its walltime, the others have
    estimates twice their runtime (module doc)."""
    out = copy.deepcopy(workload)
    delays = {name: p["delay"] for name, p in out["profiles"].items()}
    for i, job in enumerate(out["jobs"]):
        runtime = delays[job["profile"]]
        if i == 1:
            job["walltime"] = runtime
        elif i % 3 == 0:
            job["walltime"] = max(1, math.floor(runtime / 2))
        else:
            job["walltime"] = 2 * runtime + 60
    return out


def prepared(workload: dict[str, Any], need: Any, seed: int) -> dict[str, Any] | None:
    """``workload`` annotated with what ``need`` asks for (None if adaptsched cannot make it
    from a rigid workload: the evolving case is a test of its own)."""
    if need.field == "moldable":
        from adaptsched.workloads.moldable import annotate

        model = need.models[0] if need.models else "downey"
        return annotate(workload, model=model, fraction=MOLDABLE_FRACTION, seed=seed)[0]
    if need.field == "deadline":
        from adaptsched.workloads.qos import annotate as qos_annotate

        return qos_annotate(workload, seed=seed)[0]
    if need.field == "walltime":
        return workload  # every built-in job has one
    return None


NEED_CASES = {"moldable": "moldable", "deadline": "qos", "evolving": "evolving"}


def evolving(nb_hosts: int, seed: int) -> dict[str, Any] | None:
    """A Klein & Pérez test (None on a machine narrower than its widest stage can be)."""
    from adaptsched.workloads.evolving import NODES, nth_case, to_workload

    if nb_hosts < NODES[1]:
        return None
    return to_workload(nth_case(0, seed + 1), nb_hosts)


def builtin_cases(needs: list[Any], *, nb_hosts: int | None = None, seed: int = 0) -> list[Case]:
    """The built-in cases (module doc) for a scheduler declaring ``needs``; on ``nb_hosts``
    hosts if given (else each case's own machine)."""
    required = [need for need in needs if getattr(need, "required", False)]

    def ready(workload: dict[str, Any]) -> dict[str, Any] | None:
        for need in required:
            annotated = prepared(workload, need, seed)
            if annotated is None:
                return None
            workload = annotated
        return workload

    cases = []
    base = lublin(nb_hosts or LUBLIN_HOSTS, seed)
    for name, about, workload, hosts in (
        ("ctc", f"CTC-SP2, its first {CASE_JOBS} jobs", ctc(nb_hosts or CTC_HOSTS), nb_hosts or CTC_HOSTS),
        ("lublin", f"Lublin-Feitelson, {CASE_JOBS} jobs, load {TARGET_LOAD}", base, nb_hosts or LUBLIN_HOSTS),
        ("walltime", "jobs past their walltime", past_walltime(base), nb_hosts or LUBLIN_HOSTS),
    ):
        made = ready(workload)
        if made is not None:
            cases.append(Case(name, about, made, hosts))
    for need in needs:
        case_name = NEED_CASES.get(need.field)
        if case_name is None or case_name in {c.name for c in cases}:
            continue
        if need.field == "evolving":
            annotated, hosts = evolving(nb_hosts or 100, seed), nb_hosts or 100
        else:
            annotated, hosts = prepared(base, need, seed), nb_hosts or LUBLIN_HOSTS
        if annotated is not None:
            cases.append(Case(case_name, f"{need.what}, as the scheduler declares it reads", annotated, hosts))
    return cases


def given_case(path: str | Path, nb_hosts: int | None) -> Case:
    """The user's workload (Batsim JSON, or an SWF trace converted for ``nb_hosts``)."""
    import json

    from adaptsched.errors import InputError

    path = Path(path)
    if path.name.lower().endswith((".swf", ".swf.gz")):
        from adaptsched.workloads.convert import convert_swf

        workload, _ = convert_swf(path, hosts=nb_hosts)
    else:
        from adaptsched.workloads.batsim_json import load_workload

        load_workload(path)  # Batsim's checks, errors naming the file, job and field
        try:
            workload = json.loads(path.read_text())
        except (OSError, ValueError) as error:
            raise InputError(path, f"cannot read the workload: {error}") from None
    return Case(path.name.split(".")[0], str(path), workload, nb_hosts or int(workload["nb_res"]))
