"""A synthetic flurry: a burst of jobs from one user inserted into a converted workload.

The Parallel Workloads Archive's cleaned logs remove *flurries*, bursts of near-identical
jobs from one user (D. G. Feitelson, D. Tsafrir, "Workload sanitation for performance
evaluation", ISPASS 2006). Papers that used a raw log ran with them. This transform puts a
documented, seeded synthetic flurry back into a Batsim workload made by
:func:`adaptsched.workloads.convert.convert_swf`, so that a reproduction can run on the
workload the paper had, and analyses can report with and without the inserted jobs.

    >>> workload, report = convert_swf(trace, hosts=430, zero_runtime="min:1")   # doctest: +SKIP
    >>> workload = add_flurry(workload, parse_flurry("ctc,seed=2"))              # doctest: +SKIP

**The spec** (:func:`parse_flurry`, the text ``adaptsched convert --add-flurry`` takes): an
optional preset name (``ctc``) then ``key=value`` pairs separated by commas, later keys
overriding the preset's:

* ``count``: jobs to insert (with ``arrivals=gaps`` it must equal the number of missing job
  numbers, or be left out);
* ``user``: their SWF user number (the job key ``user``; default -1);
* ``width``: hosts per job (at most the workload's ``nb_res``);
* ``runtime``: their runtime distribution in seconds, ``exp:MEAN`` (exponential, rounded up to
  whole seconds, so at least 1 s) or ``const:S``;
* ``zeros``: how many of them have a zero runtime in the log (default 0), drawn at random
  positions. Zero runtimes then follow the workload's own ``zero_runtime`` rule, as the
  trace's own did when it was converted: ``drop`` leaves them out (counted), ``min:S`` gives
  them S seconds;
* ``estimate``: the user's estimate (walltime) in seconds; a runtime past it is cut to it by
  the simulator, as the converter's default ``over_estimate=keep`` does for the trace's jobs;
* ``window``: ``START:END``, submit times in the trace's own seconds (SWF field 2);
* ``arrivals``: ``even`` (default: evenly spaced over the window, the first at START),
  ``uniform`` (independent uniform draws in the window) or ``gaps:FIRST:LAST``: the job
  numbers in [FIRST, LAST] that the workload lacks are the flurry's (a cleaned log names the
  removed range in its header); each is submitted at a uniform draw between the submit times
  of the kept jobs numbered just below and just above it (job numbers follow submission), and
  keeps that number as its id. No ``window`` then. In a converted part of the trace that does
  not reach past LAST (``first=N``), every job is outside the workload;
* ``seed``: the random generator's seed (numpy's ``default_rng``; default 1). The same spec
  and workload give the same jobs.

Jobs get ids above the workload's largest (``even``, ``uniform``) or the missing numbers
(``gaps``); ``subtime`` = submit time - the workload's ``submit_offset_s``; profiles
``delay_<runtime>`` shared with the trace's; the converter's job keys (``user`` and
``requested_procs`` from the spec, ``estimate_s``, ``status`` 1, -1 elsewhere) and
``flurry: true``. Jobs submitted before the workload's first job or after its last (a
converted part of a trace) are left out and counted. The jobs are merged into the workload in
submit order (ties: trace jobs first).

**The marks**: ``workload["adaptsched"]["flurry"]`` holds the spec, its text, ``label`` (a
synthetic flurry, our reconstruction), ``inserted``, ``job_ids`` (every inserted id),
``zero_runtime_dropped``, ``zero_runtime_kept``, ``outside_workload``, and the first and last
submit times; :func:`flurry_job_ids` reads the ids back for an analysis.

**The CTC preset** (``ctc``, our reconstruction of the flurry the archive's cleaned
CTC-SP2 log removed; docs/perkovic-keleher.md gives the source of each value):
``count=2080`` and ``user=135`` and ``arrivals=gaps:47421:50307`` from the cleaned log's
header ("user=135 and (job>=47421 and job<=50307) (2080 jobs removed)"); ``width=1``, from
user 135's jobs around it (all width 1) and the paper's Table 1 (median width 2 against the
cleaned log's 3); ``zeros=117``, the paper's Table 2 (134 jobs with zero runtime) minus the
cleaned log's 17; ``runtime=exp:107``: the paper's Table 1 mean runtime (10,984 s over 79,302
jobs) minus the cleaned log's total leaves about 101 s per flurry job, zeros included;
``estimate=21600`` (6 h): Table 1's mean estimate minus the cleaned log's leaves about 21,800 s
per job, and 6 h is one of the two estimates user 135's neighbouring jobs carry.
"""

from __future__ import annotations

import bisect
import copy
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from adaptsched.errors import InputError, UsageError
from adaptsched.limits import MAX_GENERATED_JOBS, shown

#: The label every inserted flurry carries in the workload's metadata.
LABEL = "synthetic flurry (adaptsched's reconstruction, not in the trace)"
ARRIVALS = ("even", "uniform", "gaps")


@dataclass(frozen=True)
class FlurrySpec:
    """The parameters of a synthetic flurry (module docstring); times in trace seconds."""

    count: int | None = None
    user: int = -1
    width: int = 1
    runtime: str = "exp:100"
    zeros: int = 0
    estimate_s: float = 3600.0
    window: tuple[float, float] | None = None
    arrivals: str = "even"
    gaps: tuple[int, int] | None = None
    seed: int = 1

    def text(self) -> str:
        """The spec as :func:`parse_flurry` reads it back."""
        parts = [] if self.count is None else [f"count={self.count}"]
        parts += [f"user={self.user}", f"width={self.width}", f"runtime={self.runtime}", f"zeros={self.zeros}"]
        parts.append(f"estimate={_num(self.estimate_s)}")
        if self.window is not None:
            parts.append(f"window={_num(self.window[0])}:{_num(self.window[1])}")
        if self.gaps is not None:
            parts.append(f"arrivals=gaps:{self.gaps[0]}:{self.gaps[1]}")
        else:
            parts.append(f"arrivals={self.arrivals}")
        parts.append(f"seed={self.seed}")
        return ",".join(parts)


#: The CTC-SP2 flurry, as we reconstruct it (module docstring).
CTC_FLURRY = FlurrySpec(
    count=2080,
    user=135,
    width=1,
    runtime="exp:107",
    zeros=117,
    estimate_s=21600.0,
    arrivals="gaps",
    gaps=(47421, 50307),
    seed=1,
)
PRESETS = {"ctc": CTC_FLURRY}


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def _bad(text: str, why: str) -> UsageError:
    return UsageError(f"--add-flurry {shown(text)}: {why}")


def _int(text: str, key: str, value: str, minimum: int, maximum: int | None = None) -> int:
    try:
        out = int(value)
    except ValueError:
        try:  # 1e6 is a whole number too
            number = float(value)
        except ValueError:
            number = math.nan
        if not number.is_integer():
            raise _bad(text, f"{key}={shown(value)} is not a whole number") from None
        out = int(number)
    if out < minimum:
        raise _bad(text, f"{key}={value} must be at least {minimum}")
    if maximum is not None and out > maximum:
        raise _bad(text, f"{key}={value}: at most {maximum:,} (docs/errors.md, limits)")
    return out


def _float(text: str, key: str, value: str) -> float:
    try:
        out = float(value)
    except ValueError:
        raise _bad(text, f"{key}={shown(value)} is not a number") from None
    if not math.isfinite(out):
        raise _bad(text, f"{key}={value} is not finite")
    return out


def _runtime(text: str, value: str) -> str:
    kind, _, number = value.partition(":")
    if kind not in ("exp", "const") or _float(text, "runtime", number or "x") <= 0:
        raise _bad(text, f"runtime={value!r}: expected exp:MEAN or const:S (seconds > 0)")
    return value


def parse_flurry(text: str) -> FlurrySpec:
    """A :class:`FlurrySpec` from its text (module docstring); a :class:`UsageError` naming
    the key on a bad one."""
    items = [item.strip() for item in text.split(",") if item.strip()]
    spec = FlurrySpec()
    if items and "=" not in items[0]:
        if items[0] not in PRESETS:
            raise _bad(text, f"unknown preset {items[0]!r} (known: {', '.join(PRESETS)})")
        spec = PRESETS[items.pop(0)]
    changes: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise _bad(text, f"{item!r}: expected key=value")
        if key == "count":
            changes["count"] = _int(text, key, value, 1, MAX_GENERATED_JOBS)
        elif key in ("user", "seed"):
            changes[key] = _int(text, key, value, -1 if key == "user" else 0)
        elif key == "width":
            changes["width"] = _int(text, key, value, 1)
        elif key == "zeros":
            changes["zeros"] = _int(text, key, value, 0)
        elif key == "runtime":
            changes["runtime"] = _runtime(text, value)
        elif key == "estimate":
            changes["estimate_s"] = _float(text, key, value)
            if changes["estimate_s"] <= 0:
                raise _bad(text, f"estimate={value} must be > 0 seconds")
        elif key == "window":
            start, _, end = value.partition(":")
            window = (_float(text, key, start), _float(text, key, end))
            if not window[0] < window[1]:
                raise _bad(text, f"window={value}: expected START:END with START < END")
            changes["window"] = window
        elif key == "arrivals":
            changes.update(_arrivals(text, value))
        else:
            raise _bad(
                text, f"unknown key {key!r} (count, user, width, runtime, zeros, estimate, window, arrivals, seed)"
            )
    spec = replace(spec, **changes)
    return _checked(text, spec)


def _arrivals(text: str, value: str) -> dict[str, Any]:
    if value in ("even", "uniform"):
        return {"arrivals": value, "gaps": None}
    kind, _, rest = value.partition(":")
    first, _, last = rest.partition(":")
    if kind != "gaps" or not first or not last:
        raise _bad(text, f"arrivals={value!r}: expected even, uniform or gaps:FIRST:LAST")
    lo, hi = _int(text, "arrivals", first, 0), _int(text, "arrivals", last, 0)
    if lo > hi:
        raise _bad(text, f"arrivals={value}: FIRST above LAST")
    if hi - lo >= MAX_GENERATED_JOBS:
        raise _bad(text, f"arrivals={value}: at most {MAX_GENERATED_JOBS:,} job numbers from FIRST to LAST")
    return {"arrivals": "gaps", "gaps": (lo, hi)}


def _checked(text: str, spec: FlurrySpec) -> FlurrySpec:
    if spec.gaps is not None:
        if spec.window is not None:
            raise _bad(text, "arrivals=gaps takes its times from the trace: no window")
        return spec
    if spec.count is None:
        raise _bad(text, "count is missing")
    if spec.window is None:
        raise _bad(text, "window=START:END is missing")
    if spec.zeros > spec.count:
        raise _bad(text, f"zeros={spec.zeros} above count={spec.count}")
    return spec


# --------------------------------------------------------------------------- the transform
def _draw_runtimes(spec: FlurrySpec, n: int, rng: np.random.Generator) -> list[int | float]:
    kind, _, number = spec.runtime.partition(":")
    value = float(number)
    if kind == "exp":
        runtimes = [max(1, math.ceil(x)) for x in rng.exponential(value, n)]
    else:
        runtimes = [int(value) if value.is_integer() else value] * n
    out: list[int | float] = list(runtimes)
    for index in rng.choice(n, size=min(spec.zeros, n), replace=False):
        out[int(index)] = 0
    return out


def _gap_arrivals(spec: FlurrySpec, jobs: list[dict], offset: float, rng: np.random.Generator):
    """(ids, submit times in trace seconds or None when a neighbour is missing)."""
    assert spec.gaps is not None
    first, last = spec.gaps
    submit = {int(job["id"]): float(job["subtime"]) + offset for job in jobs if isinstance(job["id"], int)}
    ids = [n for n in range(first, last + 1) if n not in submit]
    known = sorted(submit)
    if not known or not known[0] < first <= last < known[-1]:
        # a part of the trace that does not span the range: the flurry is outside it
        ids = ids[: spec.count] if spec.count is not None else ids
        return ids, [None] * len(ids)
    if spec.count is not None and len(ids) != spec.count:
        raise InputError(
            "workload",
            f"--add-flurry: arrivals=gaps:{first}:{last} finds {len(ids)} missing job numbers, count={spec.count}",
        )
    times: list[float | None] = []
    for number in ids:
        at = bisect.bisect_left(known, number)
        if at == 0 or at == len(known):
            times.append(None)  # no kept neighbour: the flurry lies outside this part of the trace
            continue
        low, high = submit[known[at - 1]], submit[known[at]]
        times.append(float(round(rng.uniform(min(low, high), max(low, high)))))
    return ids, times


def _window_arrivals(spec: FlurrySpec, jobs: list[dict], rng: np.random.Generator):
    assert spec.window is not None and spec.count is not None
    start, end = spec.window
    n = spec.count
    if spec.arrivals == "even":
        times = [float(round(start + (end - start) * i / n)) for i in range(n)]
    else:
        times = sorted(float(round(t)) for t in rng.uniform(start, end, n))
    top = max((int(job["id"]) for job in jobs if isinstance(job["id"], int)), default=0)
    return list(range(top + 1, top + 1 + n)), times


def add_flurry(workload: Mapping[str, Any], spec: FlurrySpec) -> dict[str, Any]:
    """A copy of ``workload`` (a converted Batsim workload) with the flurry's jobs merged in
    and marked (module docstring)."""
    out = copy.deepcopy(dict(workload))
    meta = out.setdefault("adaptsched", {})
    if "flurry" in meta:
        raise InputError("workload", "--add-flurry: this workload already holds a synthetic flurry")
    if spec.width > int(out["nb_res"]):
        raise InputError(
            "workload", f"--add-flurry: width={spec.width} is wider than the machine ({out['nb_res']} hosts)"
        )
    rng = np.random.default_rng(spec.seed)
    jobs: list[dict] = out["jobs"]
    offset = float(meta.get("submit_offset_s") or 0)
    if spec.gaps is not None:
        ids, times = _gap_arrivals(spec, jobs, offset, rng)
    else:
        ids, window_times = _window_arrivals(spec, jobs, rng)
        times = list(window_times)
    runtimes = _draw_runtimes(spec, len(ids), rng)
    rule = str(meta.get("rules", {}).get("zero_runtime", "drop"))
    zero_value = _zero_value(rule)
    first_s = min((float(j["subtime"]) for j in jobs), default=0.0)
    last_s = max((float(j["subtime"]) for j in jobs), default=0.0)
    profiles = out.setdefault("profiles", {})
    by_delay = {p.get("delay"): name for name, p in profiles.items() if p.get("type") == "delay"}
    new, dropped, kept_zero, outside = [], 0, 0, 0
    for number, at, runtime in zip(ids, times, runtimes, strict=True):
        if at is None or not first_s <= at - offset <= last_s:
            outside += 1
            continue
        if runtime == 0:
            if zero_value is None:
                dropped += 1
                continue
            runtime, kept_zero = zero_value, kept_zero + 1
        name = by_delay.get(runtime)
        if name is None:
            name = by_delay[runtime] = f"delay_{_num(runtime)}"
            profiles[name] = {"type": "delay", "delay": runtime}
        new.append(_job(spec, number, at - offset, name))
    out["jobs"] = _merged(jobs, new)
    meta["flurry"] = {
        "label": LABEL,
        "spec": spec.text(),
        "parameters": {k: v for k, v in asdict(spec).items()},
        "inserted": len(new),
        "job_ids": [job["id"] for job in new],
        "zero_runtime_dropped": dropped,
        "zero_runtime_kept": kept_zero,
        "outside_workload": outside,
        "first_subtime_s": min((j["subtime"] for j in new), default=None),
        "last_subtime_s": max((j["subtime"] for j in new), default=None),
    }
    out["description"] = f"{out.get('description', '')}; plus {len(new)} jobs of a {LABEL}".lstrip("; ")
    return out


def _zero_value(rule: str) -> int | float | None:
    if rule.startswith("min:"):
        value = float(rule[4:])
        return int(value) if value.is_integer() else value
    return None


def _job(spec: FlurrySpec, number: int, subtime: float, profile: str) -> dict[str, Any]:
    return {
        "id": number,
        "subtime": int(subtime) if float(subtime).is_integer() else round(subtime, 6),
        "res": spec.width,
        "walltime": int(spec.estimate_s) if spec.estimate_s.is_integer() else spec.estimate_s,
        "profile": profile,
        "user": spec.user,
        "group": -1,
        "queue": -1,
        "partition": -1,
        "requested_procs": spec.width,
        "estimate_s": int(spec.estimate_s) if spec.estimate_s.is_integer() else spec.estimate_s,
        "status": 1,
        "swf_line": -1,
        "flurry": True,
    }


def _merged(jobs: list[dict], new: list[dict]) -> list[dict]:
    """Both lists in submit order, trace jobs first among equal times (a stable sort)."""
    tagged = [(float(j["subtime"]), 0, i, j) for i, j in enumerate(jobs)]
    tagged += [(float(j["subtime"]), 1, i, j) for i, j in enumerate(new)]
    if all(tagged[i][0] <= tagged[i + 1][0] for i in range(len(jobs) - 1)):
        tagged.sort(key=lambda t: (t[0], t[1], t[2]))
        return [t[3] for t in tagged]
    # a trace not sorted by submit time: keep its order, put each new job after the last
    # trace job submitted at or before it
    out = list(jobs)
    for job in sorted(new, key=lambda j: float(j["subtime"])):
        at = len(out)
        while at > 0 and float(out[at - 1]["subtime"]) > float(job["subtime"]):
            at -= 1
        out.insert(at, job)
    return out


def flurry_job_ids(workload: Mapping[str, Any]) -> set[int]:
    """The ids of the synthetic flurry's jobs in a workload (empty if it has none)."""
    meta = workload.get("adaptsched", {}).get("flurry")
    return set(meta["job_ids"]) if meta else set()
