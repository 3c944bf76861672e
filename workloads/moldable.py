"""Moldable-job annotations of Batsim JSON workloads (``adaptsched mold-annotate``).

A moldable job keeps its rigid request (``res``, its ``delay`` profile's runtime) and gains
extra fields, which Batsim carries through untouched:

    "moldable": {"model": "downey", "A": 23.1, "sigma": 0.7, "t1_s": 86400.0},
    "min_res": 1, "max_res": 45

``model`` is one of (see :mod:`adaptsched.core.speedup`):

* ``linear``: ``{"t1_s"}``;
* ``downey``: ``{"A", "sigma", "t1_s"}``;
* ``scojo-p``: ``{"runtime_opt_s", "n_opt"}`` (the machine size is the workload's ``nb_res``),
  and ``e_min``, ``e_opt``, ``e_max``, ``interpolation`` where they are not Table 1's.

How a rigid job becomes moldable (``annotate``):

* a ``fraction`` of the jobs (seeded, one draw per job), sequential ones included, but none wider
  than the machine (it never runs); the others are rigid (an annotation they had is dropped);
* ``downey``: A log-uniform on [1, ``a_max``] (``machine``: the workload's ``nb_res``, as in
  Downey 1996 sec. 3; ``request``: the job's own request; or a number, e.g. 3000 for SCOJO-P's
  Fig. 14, whose mean N_opt of 69 needs A beyond the machine), sigma uniform on [0, 2]; the
  observed run (``res`` hosts, runtime t) fixes the sequential time t1 = t x S(res), so the
  model reproduces the trace's runtime at the requested size (the reference's conversion,
  ``../shared/reference/workload-models.md`` sec. 2.1, without its rounding);
  ``min_res`` = 1, ``max_res`` = min(machine, the smallest size reaching S = A);
* ``linear``: t1 = t x res, sizes 1 to machine;
* ``scojo-p``: N_opt = res, runtime at N_opt = t, sizes N_min to N_max (SCOJO-P sec. 4).

Parameters are rounded to six decimals, the precision of Batsim's messages (a scheduler
reads them back through Batsim), so the model's runtime at the request matches the trace's
to within a microsecond. These choices are our assumptions where the papers are silent (Cirne & Berman's own
distributions are not in the seeds); each is an option.
"""

from __future__ import annotations

import math
import random

from adaptsched.core.speedup import (
    EFFICIENCIES,
    INTERPOLATIONS,
    Downey,
    Linear,
    ScojoP,
    SpeedupModel,
    check_efficiencies,
)
from adaptsched.errors import AdaptschedError, UsageError

MODELS = ("downey", "linear", "scojo-p")


def model_of(job: dict, machine_hosts: int) -> SpeedupModel:
    """The speedup model of an annotated job description (ValueError if malformed); in a
    scheduler, ``model_of(job.fields, self.nb_hosts)``.

    >>> model = model_of({"id": 1, "moldable": {"model": "linear", "t1_s": 400.0}}, machine_hosts=64)
    >>> model, model.runtime(8)
    (Linear(t1_s=400.0), 50.0)
    """
    spec = job.get("moldable")
    if not isinstance(spec, dict):
        raise ValueError(f"job {job.get('id')!r} has no 'moldable' object")
    kind = spec.get("model")
    try:
        if kind == "downey":
            return Downey(spec["A"], spec["sigma"], spec["t1_s"])
        if kind == "linear":
            return Linear(spec["t1_s"])
        if kind == "scojo-p":
            return ScojoP.from_spec(spec, machine_hosts)
    except KeyError as missing:
        raise ValueError(f"job {job.get('id')!r}: moldable model {kind!r} needs {missing}") from None
    raise ValueError(f"job {job.get('id')!r}: unknown moldable model {kind!r} (choose among {', '.join(MODELS)})")


def downey_fields(rnd: random.Random, runtime: float, res: int, machine: int, top: float, sigma_max: float) -> dict:
    """A Downey job's fields: A log-uniform on [1, ``top``], sigma uniform on [0, ``sigma_max``]
    (two draws of ``rnd``, in that order), t1 from the observed run (module doc)."""
    A = round(math.exp(rnd.uniform(0.0, math.log(max(top, 1)))), 6)
    sigma = round(rnd.uniform(0.0, sigma_max), 6)
    shape = Downey(A, sigma)
    t1 = round(runtime * shape.speedup(res), 6)
    return {
        "moldable": {"model": "downey", "A": A, "sigma": sigma, "t1_s": t1},
        "min_res": 1,
        "max_res": min(machine, shape.n_max_useful),
    }


def linear_fields(runtime: float, res: int, machine: int) -> dict:
    """A linear job's fields: t1 = runtime x res, sizes 1 to the machine."""
    return {"moldable": {"model": "linear", "t1_s": runtime * res}, "min_res": 1, "max_res": machine}


def scojo_fields(runtime: float, res: int, machine: int, model_fields: dict | None = None) -> dict:
    """A SCOJO-P job's fields: N_opt = res, runtime at N_opt = the runtime, sizes N_min to N_max;
    ``model_fields``: the efficiencies and interpolation where not Table 1's
    (:func:`scojo_model_fields`)."""
    spec = {"model": "scojo-p", "runtime_opt_s": runtime, "n_opt": res, **(model_fields or {})}
    shape = ScojoP.from_spec(spec, machine)
    return {
        "moldable": spec,
        "min_res": shape.n_min,
        "max_res": shape.n_max,
    }


def a_max_number(a_max: str) -> float | None:
    """``--a-max`` as a number, None for ``machine`` and ``request``; AdaptschedError otherwise."""
    if a_max in ("machine", "request"):
        return None
    try:
        value = float(a_max)
    except ValueError:
        value = math.nan
    if not value >= 1:
        raise AdaptschedError(f"--a-max must be 'machine', 'request' or a number >= 1, got {a_max!r}")
    return value


def annotate(
    workload: dict,
    *,
    fraction: float = 1.0,
    model: str = "downey",
    seed: int = 0,
    a_max: str = "machine",
    sigma_max: float = 2.0,
    efficiencies: tuple[float, float, float] = EFFICIENCIES,
    interpolation: str = "speedup",
) -> tuple[dict, dict]:
    """A copy of ``workload`` with moldable annotations (module doc), and a summary dict.
    ``efficiencies`` (E(N_min), E(N_opt), E(N_max)) and ``interpolation``: SCOJO-P's model
    (:class:`ScojoP`); written into each job only when not Table 1's (0.8, 0.65, 0.4, speedup)."""
    model_fields = scojo_model_fields(model, efficiencies, interpolation)
    if not 0 <= fraction <= 1:
        raise UsageError(f"--fraction must be in [0, 1], got {fraction}")
    if model not in MODELS:
        raise AdaptschedError(f"unknown model {model!r}: choose among {', '.join(MODELS)}")
    a_max_value = a_max_number(a_max)
    machine = int(workload["nb_res"])
    profiles = workload.get("profiles", {})
    rnd = random.Random(seed)
    jobs, annotated = [], 0
    for job in workload["jobs"]:
        job = {k: v for k, v in job.items() if k not in ("moldable", "min_res", "max_res")}  # rigid unless drawn
        profile = profiles.get(job.get("profile"), {})
        draw = rnd.random()
        if draw < fraction and profile.get("type") == "delay" and 1 <= job["res"] <= machine:  # wider: never runs
            runtime = float(profile["delay"])
            res = int(job["res"])
            if model == "downey":
                top = a_max_value if a_max_value is not None else machine if a_max == "machine" else res
                job.update(downey_fields(rnd, runtime, res, machine, top, sigma_max))
            elif model == "linear":
                job.update(linear_fields(runtime, res, machine))
            else:
                job.update(scojo_fields(runtime, res, machine, model_fields))
            # the request stays a valid size of the job
            job["max_res"] = max(job["max_res"], res)
            annotated += 1
        jobs.append(job)
    out = dict(workload)
    out["jobs"] = jobs
    summary = {
        "jobs": len(jobs),
        "moldable": annotated,
        "model": model,
        "fraction": fraction,
        "seed": seed,
        "a_max": a_max,
        **({"efficiencies": list(efficiencies), "interpolation": interpolation} if model == "scojo-p" else {}),
    }
    return out, summary


def scojo_model_fields(model: str, efficiencies: tuple[float, float, float], interpolation: str) -> dict:
    """The fields SCOJO-P's model adds to a job's annotation beyond Table 1's, checked
    (AdaptschedError naming the option: ``--e-min``, ``--e-opt``, ``--e-max``)."""
    e_min, e_opt, e_max = efficiencies
    if model != "scojo-p":
        if tuple(efficiencies) != EFFICIENCIES or interpolation != "speedup":
            raise AdaptschedError("--e-min, --e-opt, --e-max and --interpolation apply to --model scojo-p only")
        return {}
    if interpolation not in INTERPOLATIONS:
        raise AdaptschedError(f"--interpolation must be one of {', '.join(INTERPOLATIONS)}, got {interpolation!r}")
    try:
        check_efficiencies(e_min, e_opt, e_max)
    except ValueError as bad:
        raise AdaptschedError(f"--e-min {e_min:g} --e-opt {e_opt:g} --e-max {e_max:g}: {bad}") from None
    fields: dict = {k: float(v) for k, v, d in zip(("e_min", "e_opt", "e_max"), efficiencies, EFFICIENCIES) if v != d}
    if interpolation != "speedup":
        fields["interpolation"] = interpolation
    return fields
