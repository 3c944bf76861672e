"""Lublin & Feitelson's rigid-job workload model (``adaptsched generate lublin``).

U. Lublin, D. G. Feitelson, "The workload on parallel supercomputers: modeling the
characteristics of rigid jobs", JPDC 63(11), 2003. Every constant and step follows the
reference generator ``m_lublin99.c`` (the Parallel Workloads Archive's models page); "Ref 1.x"
below numbers its steps as docs/workloads.md does:

* size (Ref 1.2): one uniform ``u`` decides serial (u <= SerialProb) and power of two
  (u <= SerialProb + Pow2Prob); a two-stage uniform gives ``par`` (log2 of the size),
  rounded for powers of two; n = floor(2^par + 0.5);
* runtime (Ref 1.3): p = clamp(pa n + pb, 0, 1); ln(runtime) is hyper-gamma (component 1
  with probability p), the whole draw repeated while it exceeds 12; runtime = int(e^X);
* arrivals (Ref 1.4): ln(inter-arrival) ~ Gamma(AARR ARAR, BARR), redrawn above 13, paid in
  "points" through 48 half-hour buckets whose weights follow the CDF of Gamma(ANUM, BNUM)
  (i = 11..58): a bucket of weight w receives arrivals at w times the mean rate;
* typed mode: a batch and an interactive stream, each advanced once at the start (batch
  first); each job takes the type whose next arrival is earlier (ties: interactive);
  typeless mode: one stream with the "whole sample" parameters, every job of type 0.

Our choices where the reference is silent or where we depart from it (docs/workloads.md):

* randomness: numpy's Generator (PCG64) seeded with ``seed``; the draws are vectorised, so
  the jobs are not those of the C program for any seed (Ref 1.6: bit-exactness would need
  drand48 and its draw order). Same options and seed, same bytes.
* ``clock``: ``"c"`` truncates the arrival time to an integer after each arrival as the C
  program does; that loses 0.5 s per arrival against the bucket clock (1.4 h after 10,000
  jobs) and slowly shifts the daily cycle. ``"exact"`` keeps the fractional time and rounds
  only the written subtime.
* ``hosts`` P: UHi = log2 P for the typeless and batch sets, UMed moved with it (offsets
  2.5 and 2); the interactive UHi stays 5.5 unless 2^5.5 > P (then log2 P, UMed = UHi - 2.5).
  ULow <= UMed <= UHi is enforced by clamping (only tiny machines need it). A power-of-two
  size is at most the largest power of two <= P (C's rounding could give 2^ceil(log2 P) > P).
* ``aarr``: replaces the typeless AARR (typeless mode only): SCOJO-P's alpha' (Ref 1.7;
  10.23 for its basic load W1, 9.83 for the heavier W2).
* ``start_hour``: the hour of day of time 0 (the C program's START, 0; the
  ``parallelworkloads`` wrapper uses 8). Subtimes are NOT shifted: the time of day of a job
  is (subtime + start_hour * 3600) mod 86400.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace

import numpy as np

from adaptsched.core.units import DAY_S
from adaptsched.errors import UsageError
from adaptsched.formats.bulk import gc_paused

GENERATOR = "lublin-feitelson-2003"
BUCKETS = 48
SECONDS_IN_BUCKET = 1800
CYCLIC_DAY_START = 11  # first half-hour index i of the weights' CDF window (i = 11..58)
TOO_MUCH_TIME = 12.0  # ln(runtime) redrawn above it
TOO_MUCH_ARRIVE_TIME = 13.0  # ln(inter-arrival) redrawn above it
MAX_RUNTIME_S = 162754  # int(e^12), the SWF header's MaxRuntime
DEFAULT_HOSTS = 128
CLOCKS = ("c", "exact")
MODES = ("typeless", "typed")
#: Runtime classes of SCOJO-P (short < 60 s, medium < 1 h, long >= 1 h), for class statistics.
RUNTIME_CLASSES_S = (("short", 0, 60), ("medium", 60, 3600), ("long", 3600, math.inf))


@dataclass(frozen=True)
class TypeParams:
    """One parameter set of the model (Ref 1.2-1.4 tables): size, runtime, arrivals."""

    name: str
    # size (log2 scale)
    serial_prob: float
    pow2_prob: float
    ulow: float
    umed: float
    uhi: float
    uprob: float
    # runtime: hyper-gamma on ln(runtime)
    a1: float
    b1: float
    a2: float
    b2: float
    pa: float
    pb: float
    # arrivals
    aarr: float
    barr: float
    anum: float
    bnum: float
    arar: float

    def as_dict(self) -> dict:
        return {k: v for k, v in asdict(self).items() if k != "name"}


BATCH = TypeParams(
    "batch",
    serial_prob=0.2927,
    pow2_prob=0.6686,
    ulow=1.2,
    umed=5.0,
    uhi=7.0,
    uprob=0.875,
    a1=6.57,
    b1=0.823,
    a2=639.1,
    b2=0.0156,
    pa=-0.003,
    pb=0.6986,
    aarr=6.0415,
    barr=0.8531,
    anum=6.1271,
    bnum=5.2740,
    arar=1.0519,
)
INTERACTIVE = TypeParams(
    "interactive",
    serial_prob=0.1541,
    pow2_prob=0.625,
    ulow=1.0,
    umed=3.0,
    uhi=5.5,
    uprob=0.705,
    a1=3.8351,
    b1=0.6605,
    a2=7.073,
    b2=0.6856,
    pa=-0.0118,
    pb=0.9156,
    aarr=6.5510,
    barr=0.6621,
    anum=8.9186,
    bnum=3.6680,
    arar=0.9797,
)
TYPELESS = TypeParams(
    "typeless",
    serial_prob=0.244,
    pow2_prob=0.576,
    ulow=0.8,
    umed=4.5,
    uhi=7.0,
    uprob=0.86,
    a1=4.2,
    b1=0.94,
    a2=312.0,
    b2=0.03,
    pa=-0.0054,
    pb=0.78,
    aarr=10.2303,
    barr=0.4871,
    anum=8.1737,
    bnum=3.9631,
    arar=1.0225,
)
#: Job type codes of the output (SWF field 15): batch 1, interactive 0 (typeless jobs: 0).
TYPE_CODE = {"batch": 1, "interactive": 0, "typeless": 0}


# ------------------------------------------------------------------------------------------
# Parameters for a machine
# ------------------------------------------------------------------------------------------
def params_for(base: TypeParams, hosts: int, *, aarr: float | None = None) -> TypeParams:
    """``base`` fitted to a machine of ``hosts`` nodes (module doc), AARR replaced by ``aarr``."""
    log2p = math.log2(hosts)
    offset = base.uhi - base.umed
    if base.name == "interactive":
        uhi = base.uhi if 2**base.uhi <= hosts else log2p
    else:
        uhi = log2p
    ulow = min(base.ulow, uhi)
    umed = min(max(uhi - offset, ulow), uhi)
    out = replace(base, uhi=uhi, umed=umed, ulow=ulow)
    if aarr is not None:
        out = replace(out, aarr=aarr)
    return out


def largest_pow2_exponent(hosts: int) -> int:
    """log2 of the largest power of two <= hosts (our cap on power-of-two sizes)."""
    return int(hosts).bit_length() - 1


# ------------------------------------------------------------------------------------------
# Daily cycle
# ------------------------------------------------------------------------------------------
def gamma_cdf(a: float, x: float) -> float:
    """Regularised lower incomplete gamma P(a, x) (Numerical Recipes' series / continued
    fraction, to 1e-15): the CDF at x of a Gamma(a, 1) variable."""
    if x <= 0:
        return 0.0
    gln = math.lgamma(a)
    if x < a + 1:
        ap, total, delta = a, 1.0 / a, 1.0 / a
        for _ in range(10000):
            ap += 1
            delta *= x / ap
            total += delta
            if abs(delta) < abs(total) * 1e-16:
                break
        return total * math.exp(-x + a * math.log(x) - gln)
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-16:
            break
    return 1.0 - math.exp(-x + a * math.log(x) - gln) * h


def bucket_weights(anum: float, bnum: float) -> np.ndarray:
    """The 48 half-hour weights w[k] (bucket k starts k x 30 min after midnight), mean 1:
    raw[(i - 1) mod 48] = F(i + 0.5) - F(i - 0.5) for i = 11..58, F the CDF of
    Gamma(anum, bnum) in half-hour units (Ref 1.4)."""
    raw = np.zeros(BUCKETS)
    for i in range(CYCLIC_DAY_START, CYCLIC_DAY_START + BUCKETS):
        raw[(i - 1) % BUCKETS] = gamma_cdf(anum, (i + 0.5) / bnum) - gamma_cdf(anum, (i - 0.5) / bnum)
    return raw / raw.mean()


# ------------------------------------------------------------------------------------------
# Draws (vectorised)
# ------------------------------------------------------------------------------------------
def _field(params: list[TypeParams], name: str, types: np.ndarray) -> np.ndarray:
    values = np.array([getattr(p, name) for p in params])
    return values[types]


def draw_sizes(rng: np.random.Generator, params: list[TypeParams], types: np.ndarray, hosts: int) -> np.ndarray:
    """Node counts (Ref 1.2) of jobs whose parameter set is ``params[types[j]]``."""
    count = len(types)
    u = rng.random(count)
    stage = rng.random(count)
    value = rng.random(count)
    serial = _field(params, "serial_prob", types)
    pow2 = serial + _field(params, "pow2_prob", types)
    ulow, umed, uhi = (_field(params, k, types) for k in ("ulow", "umed", "uhi"))
    low = stage <= _field(params, "uprob", types)
    par = np.where(low, ulow + value * (umed - ulow), umed + value * (uhi - umed))
    rounded = np.minimum(np.floor(par + 0.5), largest_pow2_exponent(hosts))
    par = np.where(u <= pow2, rounded, par)
    n = np.floor(np.exp2(par) + 0.5).astype(np.int64)
    n = np.where(u <= serial, 1, n)
    return np.clip(n, 1, hosts)


def draw_runtimes(
    rng: np.random.Generator, params: list[TypeParams], types: np.ndarray, sizes: np.ndarray
) -> np.ndarray:
    """Runtimes in whole seconds (Ref 1.3): hyper-gamma on ln(runtime), redrawn above 12."""
    count = len(types)
    p = np.clip(_field(params, "pa", types) * sizes + _field(params, "pb", types), 0.0, 1.0)
    shape1, scale1 = _field(params, "a1", types), _field(params, "b1", types)
    shape2, scale2 = _field(params, "a2", types), _field(params, "b2", types)
    x = np.empty(count)
    todo = np.arange(count)
    while todo.size:
        first = rng.random(todo.size) <= p[todo]
        shape = np.where(first, shape1[todo], shape2[todo])
        scale = np.where(first, scale1[todo], scale2[todo])
        x[todo] = rng.gamma(shape, scale)
        todo = todo[x[todo] > TOO_MUCH_TIME]
    return np.exp(x).astype(np.int64)


def draw_log_interarrivals(rng: np.random.Generator, p: TypeParams, count: int) -> np.ndarray:
    """ln(inter-arrival) of ``count`` arrivals: Gamma(AARR ARAR, BARR), redrawn above 13."""
    g = rng.gamma(p.aarr * p.arar, p.barr, size=count)
    while True:
        bad = np.flatnonzero(g > TOO_MUCH_ARRIVE_TIME)
        if not bad.size:
            return g
        g[bad] = rng.gamma(p.aarr * p.arar, p.barr, size=bad.size)


def bucket_clock(log_ia: np.ndarray, weights: np.ndarray, start_bucket: int = 0) -> np.ndarray:
    """Arrival times (s, fractional) after each of the inter-arrivals ``e^log_ia``, paid in
    points through the weighted buckets from ``start_bucket`` at time 0.

    The C program's points/reminder walk (Ref 1.4, steps 2-5) advances the clock so that the
    cumulated points equal the integral of w over the elapsed buckets; this inverts that
    integral directly (same times, up to rounding)."""
    cumulated = np.cumsum(np.exp(log_ia) / SECONDS_IN_BUCKET)
    w = np.roll(weights, -start_bucket)
    edges = np.concatenate(([0.0], np.cumsum(w)))
    per_day = edges[-1]
    days = np.floor(cumulated / per_day)
    rest = cumulated - days * per_day
    k = np.clip(np.searchsorted(edges, rest, side="right") - 1, 0, BUCKETS - 1)
    buckets = days * BUCKETS + k + (rest - edges[k]) / w[k]
    return buckets * SECONDS_IN_BUCKET


def truncating_clock(times: np.ndarray) -> np.ndarray:
    """The C program's clock: T = int(T + add) at each arrival, ``add`` the bucket clock's
    advance; each arrival loses the fractional part (0.5 s on average)."""
    out = np.empty(len(times), dtype=np.int64)
    t_int, previous = 0, 0.0
    for i, t in enumerate(times.tolist()):
        t_int = int(t_int + (t - previous))
        previous = t
        out[i] = t_int
    return out


# ------------------------------------------------------------------------------------------
# The generator
# ------------------------------------------------------------------------------------------
def model_params(mode: str, hosts: int, aarr: float | None) -> list[TypeParams]:
    """The parameter sets of a mode, indexed by job type code: typed [interactive, batch],
    typeless [typeless]."""
    if mode == "typeless":
        return [params_for(TYPELESS, hosts, aarr=aarr)]
    return [params_for(INTERACTIVE, hosts), params_for(BATCH, hosts)]


def check_options(jobs: int, hosts: int, mode: str, aarr: float | None, start_hour: int, clock: str) -> None:
    if jobs < 1:
        raise UsageError(f"--jobs must be at least 1, got {jobs}")
    if hosts < 1:
        raise UsageError(f"--hosts must be at least 1, got {hosts}")
    if mode not in MODES:
        raise UsageError(f"--mode must be one of {', '.join(MODES)}, got {mode!r}")
    if clock not in CLOCKS:
        raise UsageError(f"--clock must be one of {', '.join(CLOCKS)}, got {clock!r}")
    if aarr is not None:
        if not (math.isfinite(aarr) and aarr > 0):
            raise UsageError(f"--aarr must be a number > 0, got {aarr}")
        if mode != "typeless":
            raise UsageError("--aarr replaces the typeless AARR (SCOJO-P's alpha'): use it with --mode typeless")
    if not 0 <= start_hour <= 23:
        raise UsageError(f"--start-hour must be an hour 0..23, got {start_hour}")


def draw_jobs(
    jobs: int = 10000,
    *,
    hosts: int = DEFAULT_HOSTS,
    mode: str = "typeless",
    aarr: float | None = None,
    start_hour: int = 0,
    seed: int = 0,
    clock: str = "c",
) -> dict[str, np.ndarray]:
    """The model's jobs as arrays: ``arrival_s`` (float: the clock's value, integer-valued
    with clock "c"), ``size``, ``runtime_s``, ``type`` (1 batch, 0 interactive/typeless)."""
    check_options(jobs, hosts, mode, aarr, start_hour, clock)
    rng = np.random.Generator(np.random.PCG64(seed))
    params = model_params(mode, hosts, aarr)
    start_bucket = start_hour * BUCKETS // 24
    streams = []  # per type code: the arrival times of its stream
    for code in (1, 0) if mode == "typed" else (0,):  # batch advanced first
        p = params[code]
        times = bucket_clock(draw_log_interarrivals(rng, p, jobs), bucket_weights(p.anum, p.bnum), start_bucket)
        streams.append((code, truncating_clock(times).astype(float) if clock == "c" else times))
    if mode == "typed":
        (_, batch), (_, inter) = streams
        times = np.concatenate((batch, inter))
        types = np.concatenate((np.ones(jobs, np.int64), np.zeros(jobs, np.int64)))
        index = np.concatenate((np.arange(jobs), np.arange(jobs)))
        # merge of the two streams; a tie goes to interactive (type 0 sorts first)
        order = np.lexsort((index, types, times))[:jobs]
        arrival, types = times[order], types[order]
    else:
        arrival, types = streams[0][1], np.zeros(jobs, np.int64)
    sizes = draw_sizes(rng, params, types, hosts)
    runtimes = draw_runtimes(rng, params, types, sizes)
    return {"arrival_s": arrival, "size": sizes, "runtime_s": runtimes, "type": types}


def _metadata(options: dict, load: float, span: int) -> dict:
    """The workload's ``adaptsched`` metadata: the options, the offered load and span, the
    model's parameters and constants, and an SWF header as the reference generator writes."""
    mode, jobs, hosts, aarr = options["mode"], options["jobs"], options["hosts"], options["aarr"]
    params = model_params(mode, hosts, aarr)
    uhi_typeless = params_for(TYPELESS, hosts).uhi
    return {
        "generator": GENERATOR,
        **options,
        "submit_offset_s": 0,
        "offered_load": load if math.isfinite(load) else None,
        "span_s": span,
        "parameters": {p.name: p.as_dict() for p in params},
        "constants": {
            "buckets": BUCKETS,
            "seconds_in_bucket": SECONDS_IN_BUCKET,
            "cyclic_day_start": CYCLIC_DAY_START,
            "too_much_time": TOO_MUCH_TIME,
            "too_much_arrive_time": TOO_MUCH_ARRIVE_TIME,
            "pow2_cap": 2 ** largest_pow2_exponent(hosts),
        },
        "swf_header": {
            "Version": "2",
            "Acknowledge": "Uri Lublin, Hebrew University",
            "Information": "http://www.cs.huji.ac.il/labs/parallel/workload",
            "MaxJobs": str(jobs),
            "MaxRecords": str(jobs),
            "MaxNodes": str(round(2**uhi_typeless)),
            "MaxRuntime": str(MAX_RUNTIME_S),
            "Note": f"Lublin-Feitelson (2003) model by adaptsched: mode={mode} clock={options['clock']} "
            f"aarr={aarr if aarr is not None else 'default'} start_hour={options['start_hour']} seed={options['seed']}",
        },
    }


def generate(
    jobs: int = 10000,
    *,
    hosts: int = DEFAULT_HOSTS,
    mode: str = "typeless",
    aarr: float | None = None,
    start_hour: int = 0,
    seed: int = 0,
    clock: str = "c",
) -> dict:
    """A Batsim JSON workload dict of ``jobs`` jobs of the model (module doc), laid out as
    ``adaptsched convert`` lays out a trace."""
    drawn = draw_jobs(jobs, hosts=hosts, mode=mode, aarr=aarr, start_hour=start_hour, seed=seed, clock=clock)
    # clock "c": already whole seconds; "exact": rounded only here, on output
    subtimes = np.floor(drawn["arrival_s"] + 0.5).astype(np.int64).tolist()
    sizes = drawn["size"].tolist()
    runtimes = drawn["runtime_s"].tolist()
    types = drawn["type"].tolist()
    with gc_paused():  # 200,000 acyclic dicts: the collector's passes would only cost time
        out_jobs = [
            {
                "id": str(i + 1),
                "subtime": sub,
                "res": n,
                "walltime": rt + 1,
                "profile": f"delay_{rt}",
                "estimate_s": -1,
                "type": t,
            }
            for i, (sub, n, rt, t) in enumerate(zip(subtimes, sizes, runtimes, types))
        ]
    profiles = {f"delay_{rt}": {"type": "delay", "delay": rt} for rt in sorted(set(runtimes))}
    span = subtimes[-1] - subtimes[0]
    area = int(np.dot(drawn["size"], drawn["runtime_s"]))
    load = area / (hosts * span) if span > 0 else math.inf
    options = {
        "mode": mode,
        "jobs": jobs,
        "hosts": hosts,
        "seed": seed,
        "clock": clock,
        "aarr": aarr,
        "start_hour": start_hour,
    }
    metadata = _metadata(options, load, span)
    aarr_text = f", AARR {aarr}" if aarr is not None else ""
    return {
        "description": f"{jobs} jobs of the Lublin-Feitelson (2003) model, {mode}{aarr_text}, on {hosts} hosts "
        f"(seed {seed}, clock {clock}; adaptsched.workloads.lublin)",
        "nb_res": hosts,
        "adaptsched": metadata,
        "profiles": profiles,
        "jobs": out_jobs,
    }


# ------------------------------------------------------------------------------------------
# Statistics of a workload
# ------------------------------------------------------------------------------------------
def runtime_classes(workload: dict) -> dict[str, dict[str, float]]:
    """SCOJO-P's runtime classes of a workload (short < 60 s, medium < 1 h, long): for each,
    the share of the jobs and their mean ``res`` (the rigid request, N_opt)."""
    profiles = workload["profiles"]
    res = np.array([j["res"] for j in workload["jobs"]], dtype=float)
    runtime = np.array([float(profiles[j["profile"]]["delay"]) for j in workload["jobs"]])
    out = {}
    for name, low, high in RUNTIME_CLASSES_S:
        mask = (runtime >= low) & (runtime < high)
        out[name] = {"share": float(mask.mean()), "mean_res": float(res[mask].mean()) if mask.any() else math.nan}
    return out


# ------------------------------------------------------------------------------------------
# Analytic values (from the constants, no simulation)
# ------------------------------------------------------------------------------------------
def _par_cdf(p: TypeParams, x: np.ndarray) -> np.ndarray:
    """CDF of the two-stage uniform ``par``."""

    def uniform(lo: float, hi: float) -> np.ndarray:
        if hi <= lo:
            return (x >= lo).astype(float)
        return np.clip((x - lo) / (hi - lo), 0.0, 1.0)

    return p.uprob * uniform(p.ulow, p.umed) + (1 - p.uprob) * uniform(p.umed, p.uhi)


def size_pmf(p: TypeParams, hosts: int) -> np.ndarray:
    """P(n = k) for k = 0..hosts (index k), exactly (Ref 1.2 with our power-of-two cap)."""
    pmf = np.zeros(hosts + 1)
    pmf[1] += p.serial_prob
    cap = largest_pow2_exponent(hosts)
    for k in range(math.floor(p.ulow + 0.5), math.floor(p.uhi + 0.5) + 1):
        share = float(_par_cdf(p, np.array([k + 0.5]))[0] - _par_cdf(p, np.array([k - 0.5]))[0])
        pmf[min(2 ** min(k, cap), hosts)] += p.pow2_prob * share
    m = np.arange(1, hosts + 2)
    edges = np.log2(np.maximum(m - 0.5, 1e-300))
    shares = np.diff(_par_cdf(p, np.concatenate((edges, [np.log2(hosts + 1.5)]))))
    other = 1.0 - p.serial_prob - p.pow2_prob
    for size, share in zip(m, shares):
        if share > 0:
            pmf[min(int(size), hosts)] += other * share
    return pmf


def _gamma_grid(shape: float, scale: float, grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """pdf and CDF of Gamma(shape > 1, scale) on an increasing grid from 0 (trapezoids)."""
    pdf = np.zeros(len(grid))
    x = grid[1:]
    pdf[1:] = np.exp((shape - 1) * np.log(x) - x / scale - math.lgamma(shape) - shape * math.log(scale))
    steps = np.diff(grid) * (pdf[1:] + pdf[:-1]) / 2
    return pdf, np.concatenate(([0.0], np.cumsum(steps)))


def analytic(p: TypeParams, hosts: int = DEFAULT_HOSTS, *, grid_points: int = 240001) -> dict[str, float]:
    """Expected statistics of one parameter set (typeless mode), from the constants alone:
    P(serial), E[n], E[runtime], median runtime, the runtime classes' shares and mean n,
    E[n x runtime], E[inter-arrival] (the bucket clock; weights average 1), jobs a day and
    the offered load on ``hosts``. Runtimes are int(e^X), X truncated at 12 (Ref 1.3)."""
    pmf = size_pmf(p, hosts)
    sizes = np.arange(hosts + 1)
    grid = np.linspace(0.0, TOO_MUCH_TIME, grid_points)
    g1 = _gamma_grid(p.a1, p.b1, grid)[1]
    g2 = _gamma_grid(p.a2, p.b2, grid)[1]
    ks = np.arange(1, MAX_RUNTIME_S + 2)  # runtime >= k  <=>  X >= ln k
    lnk = np.log(ks)
    g1k, g2k = np.interp(lnk, grid, g1), np.interp(lnk, grid, g2)
    cls_edges = np.log([60.0, 3600.0])
    g1c, g2c = np.interp(cls_edges, grid, g1), np.interp(cls_edges, grid, g2)
    mean_rt = area = 0.0
    class_mass = np.zeros(3)
    class_n = np.zeros(3)
    cdf_rt = np.zeros(len(ks))  # P(runtime <= k - 1) = P(X < ln k)
    for n in np.flatnonzero(pmf):
        weight = pmf[n]
        mix = min(max(p.pa * n + p.pb, 0.0), 1.0)
        total = mix * g1[-1] + (1 - mix) * g2[-1]
        below = (mix * g1k + (1 - mix) * g2k) / total
        expected = float(np.sum(1.0 - below[:-1]))  # sum over k = 1..MAX of P(runtime >= k)
        mean_rt += weight * expected
        area += weight * n * expected
        cdf_rt += weight * below
        c = (mix * g1c + (1 - mix) * g2c) / total
        shares = np.array([c[0], c[1] - c[0], 1 - c[1]])
        class_mass += weight * shares
        class_n += weight * n * shares
    median = int(np.searchsorted(cdf_rt, 0.5, side="left"))  # smallest r with P(runtime <= r) >= .5
    shape = p.aarr * p.arar
    ga = np.linspace(0.0, TOO_MUCH_ARRIVE_TIME, grid_points)
    density, cdf_a = _gamma_grid(shape, p.barr, ga)
    mean_ia = float(np.trapezoid(np.exp(ga) * density, ga) / cdf_a[-1])
    out = {
        "serial": float(pmf[1] if p.serial_prob else 0.0),
        "mean_n": float(np.dot(pmf, sizes)),
        "mean_runtime_s": mean_rt,
        "median_runtime_s": float(median),
        "mean_area": area,
        "mean_interarrival_s": mean_ia,
        "jobs_per_day": DAY_S / mean_ia,
        "load": area / (hosts * mean_ia),
    }
    for (name, _, _), mass, nsum in zip(RUNTIME_CLASSES_S, class_mass, class_n):
        out[f"{name}_share"] = float(mass)
        out[f"{name}_mean_n"] = float(nsum / mass)
    return out
