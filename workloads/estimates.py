"""User runtime estimates for a workload of delay jobs (``adaptsched estimates``).

Two models set each job's ``estimate_s`` (the user's requested time) and its ``walltime``:

* ``exact``: estimate = runtime, walltime = runtime + 1 s (the rule of ``qos-annotate
  --exact``: Batsim 4.2.1 ends a job whose runtime equals its walltime as
  COMPLETED_WALLTIME_REACHED, so one second more lets it complete).
* ``tsafrir``: D. Tsafrir, Y. Etsion, D. G. Feitelson, "Modeling User Runtime Estimates",
  JSSPP 2005, LNCS 3834, as Tsafrir's reference code ``est_model.cc`` builds them
  ("Ref 3.x" numbers its steps as docs/workloads.md does). A distribution of K estimate
  values ("bins") and their job counts is built for N jobs and a maximum estimate M
  (Ref 3.3, steps 1-7): a head of the 20 most popular values holding 89 % of the jobs
  (M itself the most popular, 21.7 %), and a tail of K - 20 values holding 11 %; the
  estimates are then dealt to the jobs, longest runtime first, each job drawing uniformly
  among the remaining estimates >= its runtime (Ref 3.4).

Our choices where the reference leaves it open (docs/workloads.md):

* M defaults to the longest runtime, as the ``parallelworkloads`` wrapper does (the model has
  no default: M is a property of the system).
* Limits: M >= 1 h (the model's); M > 5,700 s and N > 226 (the driver's; below them the
  head cannot hold 20 values or the tail is empty). Each is an error.
* A runtime above M is an error unless ``truncate``: the C code silently shortens such
  runtimes; we never change a runtime by default (with ``truncate``, the job's profile
  becomes a delay of M).
* Step 4 "sort the sizes descending" keeps index 0 for M (the text says so for the re-sort).
* Random numbers: numpy's Generator (PCG64) seeded with ``seed``: same inputs and seed, same
  estimates; not the C program's drand48 stream.
* walltime = the estimate, or runtime + 1 where the two are equal (Batsim would report those
  jobs as killed at their walltime); the count is reported.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from adaptsched.core import units
from adaptsched.errors import AdaptschedError, InputError, UsageError
from adaptsched.workloads.batsim_json import metadata

#: Estimates are whole seconds: the units of :mod:`adaptsched.core.units` as integers.
MINUTE_S, HOUR_S = int(units.MINUTE_S), int(units.HOUR_S)
TOP = 20  # number of head bins
HEAD_PERCENT = 89.0  # share of the jobs in the head
TAIL_PERCENT = 100.0 - HEAD_PERCENT
#: "Joint" estimates: in the top 20 of all four traces Tsafrir et al. studied (Ref 3.2).
JOINT_S = tuple(
    [5 * MINUTE_S, 15 * MINUTE_S, 10 * MINUTE_S, 20 * MINUTE_S, 30 * MINUTE_S]
    + [h * HOUR_S for h in (1, 2, 3, 4, 5, 6, 8, 10, 12, 18)]
)
#: "Round" multipliers that fill the head up to 20 values, in the order tried (Ref 3.2).
ROUND_S = tuple([h * HOUR_S for h in (200, 100, 50, 10, 5, 2, 1)] + [m * MINUTE_S for m in (20, 10, 5)])
#: (N, K) points of the piecewise-linear number of bins; K = 565 above 250,000 jobs.
K_POINTS = ((0, 0), (20, 10), (200, 20), (1000, 35), (10000, 90), (70000, 340), (250000, 565))
#: Time rank -> popularity rank in the traces SDSC, CTC, KTH, Blue (Ref 3.3 step 5).
TTR_TO_PR = (
    (3, 1, 1, 1),
    (1, 3, 4, 6),
    (4, 4, 10, 5),
    (17, 2, 14, 3),
    (13, 12, 20, 7),
    (7, 9, 2, 2),
    (8, 8, 3, 18),
    (18, 18, 7, 19),
    (2, 6, 12, 4),
    (6, 7, 6, 11),
    (16, 11, 19, 20),
    (10, 20, 5, 9),
    (5, 16, 18, 10),
    (15, 5, 16, 14),
    (14, 14, 9, 13),
    (19, 13, 17, 16),
    (11, 10, 15, 15),
    (12, 15, 13, 17),
    (9, 17, 8, 8),
    (20, 19, 11, 12),
)
TAIL_OFFSETS_S = (0, 30, -30, 20, -20, 10, -10)
MODEL_MIN_M_S = HOUR_S  # the model aborts below
DRIVER_MIN_M_S = 5700  # the driver demands M > 5700 s
DRIVER_MIN_JOBS = 226  # ... and N > 226
MODELS = ("exact", "tsafrir")


def head_percent(x: int) -> float:
    """Share (%) of popularity rank x = 2..20 before rescaling: 14.0491 e^(-0.177531 x) + 0.462513."""
    return 14.0491 * math.exp(-0.177531 * x) + 0.462513


def tail_weight(rank: int) -> float:
    """Raw size of tail popularity rank r >= 21: 795.6 r^-2.267 (rescaled to 11 % in all)."""
    return 795.6 * rank**-2.267


def _round_half_up(x: float) -> int:
    return math.floor(x + 0.5)


def number_of_bins(jobs: int) -> int:
    """K: piecewise linear in N through K_POINTS, 565 beyond 250,000 jobs (Ref 3.2)."""
    for (n0, k0), (n1, k1) in itertools.pairwise(K_POINTS):
        if jobs <= n1:
            return k0 + _round_half_up((jobs - n0) * (k1 - k0) / (n1 - n0))
    return K_POINTS[-1][1]


def default_a(bins: int) -> float:
    """The tail's shape a = 1 + 12.1039 K^-0.6026 (Ref 3.2)."""
    return 1.0 + 12.1039 * bins**-0.6026


def tail_fraction(x: float, a: float) -> float:
    """y = (a - 1) x / (a - x): estimate / M at normalised time rank x of the tail."""
    return (a - 1) * x / (a - x)


# ------------------------------------------------------------------------------------------
# The distribution (Ref 3.3)
# ------------------------------------------------------------------------------------------
@dataclass
class Bin:
    """One estimate value and how many jobs use it."""

    time_s: float
    percent: float = 0.0
    count: int = 0
    kind: str = "round"  # max, joint, round, user, tail
    user: bool = False  # its count is the user's
    rank: int = 0  # popularity rank (head: 1..20; tail: 21..)


@dataclass
class Distribution:
    """The estimate values and counts for N jobs (``bins``, head first), with K and a."""

    jobs: int
    max_s: float
    k: int
    a: float
    bins: list[Bin] = field(default_factory=list)

    def values(self) -> np.ndarray:
        """The N estimates, flattened, in descending order."""
        times = np.repeat([b.time_s for b in self.bins], [b.count for b in self.bins])
        return np.sort(times)[::-1]


def default_head(max_s: float) -> list[Bin]:
    """Step 2: M, the joint estimates below M, then round values until 20 (v[1:] sorted)."""
    head = [Bin(max_s, kind="max")]
    times = {max_s}
    for t in JOINT_S:
        if t < max_s:
            head.append(Bin(t, kind="joint"))
            times.add(t)
    for m in ROUND_S:
        if len(head) >= TOP:
            break
        t = math.floor(max_s / m) * m
        while t > 0 and len(head) < TOP:
            if t not in times:
                head.append(Bin(t, kind="round"))
                times.add(t)
            t -= m
    head[1:] = sorted(head[1:], key=lambda b: b.time_s)
    return head


def build_distribution(
    jobs: int, max_s: float, user_bins: list[tuple[float, int]], rng: np.random.Generator
) -> Distribution:
    """Steps 1-7 of Ref 3.3: the K estimate values and their job counts (summing to ``jobs``).

    ``user_bins``: (estimate in seconds, number of jobs); a bin at ``max_s`` sets M's count."""
    k = number_of_bins(jobs)
    a = default_a(k)
    m_count = next((c for t, c in user_bins if t == max_s), None)
    head = _head_with_user_bins(max_s, [(t, c) for t, c in user_bins if t != max_s])
    if m_count is not None:
        head[0].user, head[0].count = True, m_count
    sizes, user_rank = _head_sizes(head, m_count, jobs)
    _rank_by_popularity(head, sizes, user_rank, rng)
    tail = _tail(k, len(head), a, max_s, {b.time_s for b in head}, rng)
    # Step 7: counts, then equalise to exactly N.
    bins = head + tail
    for b in bins:
        if not b.user:
            b.count = max(1, _round_half_up(b.percent * jobs / 100.0))
    _equalise(bins, jobs)
    for b in bins:
        b.percent = 100.0 * b.count / jobs
    return Distribution(jobs, max_s, k, a, bins)


def _head_with_user_bins(max_s: float, others: list[tuple[float, int]]) -> list[Bin]:
    """Step 3: the head (:func:`default_head`) with the user bins' times merged in: a user
    bin takes a head value of its time, else a free place, else the nearest round (then joint)
    value not the user's."""
    head = default_head(max_s)
    for t, c in others:
        same = next((b for b in head if b.time_s == t), None)
        if same is not None:
            same.user, same.count = True, c
            continue
        new = Bin(t, count=c, kind="user", user=True)
        if len(head) < TOP:
            head.append(new)
            continue
        candidates = [i for i, b in enumerate(head) if b.kind == "round" and not b.user]
        candidates = candidates or [i for i, b in enumerate(head) if b.kind == "joint" and not b.user]
        if not candidates:
            raise UsageError(f"--bin: too many bins: the head holds {TOP} values, M included")
        head[min(candidates, key=lambda i: (abs(head[i].time_s - t), i))] = new
    head[1:] = sorted(head[1:], key=lambda b: b.time_s)
    return head


def _head_sizes(head: list[Bin], m_count: int | None, jobs: int) -> tuple[list[float], dict[int, int]]:
    """Step 4: the head's sizes (percent of the jobs) by popularity rank (index 0: rank 1,
    M's), the user bins placed at the rank of the nearest size; and each user bin's rank
    (by ``id``)."""
    ntop = len(head)
    rest = [head_percent(x) for x in range(2, ntop + 1)]
    if m_count is not None:
        first = 100.0 * m_count / jobs
        scale = (HEAD_PERCENT - first) / sum(rest) if rest else 0.0
        rest = [max(0.0, s * scale) for s in rest]
    else:
        first = HEAD_PERCENT - sum(rest)
    sizes = [first] + sorted(rest, reverse=True)
    owner: list[Bin | None] = [head[0] if m_count is not None else None] + [None] * (ntop - 1)
    for b in sorted((b for b in head[1:] if b.user), key=lambda b: -b.count):
        percent = 100.0 * b.count / jobs
        free = [i for i in range(1, ntop) if owner[i] is None]
        i = min(free, key=lambda i: (abs(sizes[i] - percent), i))
        sizes[i], owner[i] = percent, b
    user_total = sum(s for s, o in zip(sizes, owner) if o is not None)
    free_total = sum(s for s, o in zip(sizes, owner) if o is None)
    factor = 0.0 if user_total >= HEAD_PERCENT or free_total <= 0 else (HEAD_PERCENT - user_total) / free_total
    sizes = [s if o is not None else s * factor for s, o in zip(sizes, owner)]
    order = [0] + sorted(range(1, ntop), key=lambda i: (-sizes[i], i))
    sizes, owner = [sizes[i] for i in order], [owner[i] for i in order]
    return sizes, {id(o): i + 1 for i, o in enumerate(owner) if o is not None}


def _rank_by_popularity(
    head: list[Bin], sizes: list[float], user_rank: dict[int, int], rng: np.random.Generator
) -> None:
    """Step 5: each head value's popularity rank, from its time rank (randomised within
    :data:`TTR_TO_PR`'s bounds; user bins keep theirs), and so its size."""
    ntop = len(head)
    reserved = {r for key, r in user_rank.items() if key != id(head[0])}
    bound = {}
    for ttr, row in enumerate(TTR_TO_PR):
        for pr in row:
            bound[pr] = ttr
    chosen: set[int] = set()
    pool: list[int] = []
    for ttr, b in enumerate(head):
        pool += [pr for pr in TTR_TO_PR[ttr] if pr <= ntop and pr not in chosen and pr not in reserved]
        rng.shuffle(pool)
        if b.user and id(b) in user_rank:
            pr = user_rank[id(b)]
        elif ttr == 0:
            pr = 1
        else:
            free = [r for r in range(1, ntop + 1) if r not in chosen and r not in reserved]
            forced = [r for r in free if bound.get(r, -1) <= ttr]
            if forced:
                pr = forced[0]
            elif pool:
                pr = pool[int(rng.integers(len(pool)))]
                second = pool[int(rng.integers(len(pool)))]
                pr = min(pr, second)
            else:
                pr = free[0]
        chosen.add(pr)
        pool = [x for x in pool if x != pr]
        b.rank = pr
        b.percent = sizes[pr - 1]


def _tail(k: int, ntop: int, a: float, max_s: float, used: set[float], rng: np.random.Generator) -> list[Bin]:
    """Step 6: the tail's K - 20 values below M (whole minutes, nudged off the values used)
    and their sizes, shuffled."""
    tail_times = []
    n_tail = max(0, k - ntop)
    for i in range(1, n_tail + 1):
        t = _round_half_up(tail_fraction(i / n_tail, a) * max_s / MINUTE_S) * MINUTE_S
        for offset in TAIL_OFFSETS_S:
            candidate = t + offset
            if 0 < candidate < max_s and candidate not in used:
                tail_times.append(candidate)
                used.add(candidate)
                break
    weights = [tail_weight(r) for r in range(TOP + 1, TOP + 1 + len(tail_times))]
    total = sum(weights)
    tail_sizes = [TAIL_PERCENT * w / total for w in weights]
    ranks = list(range(TOP + 1, TOP + 1 + len(tail_times)))
    rng.shuffle(tail_times)
    perm = rng.permutation(len(tail_sizes))
    return [Bin(float(t), percent=tail_sizes[j], kind="tail", rank=ranks[j]) for t, j in zip(tail_times, perm.tolist())]


def _equalise(bins: list[Bin], jobs: int) -> None:
    """Step 7: make the counts sum to ``jobs`` by adjusting the non-user bins, largest first:
    a proportional change, then +-1 per bin, then bins down to 1, then to 0."""
    free = sorted((b for b in bins if not b.user), key=lambda b: -b.count)
    diff = jobs - sum(b.count for b in bins)
    if diff == 0:
        return
    sign = 1 if diff > 0 else -1
    free_total = sum(b.count for b in free)
    if free_total > 0:
        f = abs(diff) / free_total
        for b in free:
            if diff == 0:
                break
            step = min(math.ceil(f * b.count), abs(diff))
            if sign < 0:
                step = min(step, b.count - 1)
            b.count += sign * step
            diff -= sign * step
    while diff != 0:  # +-1 per bin; decreasing keeps every bin at >= 1
        moved = False
        for b in free:
            if diff == 0:
                break
            if sign > 0 or b.count > 1:
                b.count += sign
                diff -= sign
                moved = True
        if not moved:
            break
    for b in reversed(free):  # down to 0, if the user bins leave no room
        if diff == 0:
            break
        if b.count > 0:
            b.count -= 1
            diff += 1
    if diff != 0:
        raise UsageError(f"--bin: the user bins hold {jobs - diff} jobs, more than the {jobs} of the workload")


def assign(runtimes: np.ndarray, estimates: np.ndarray, rng: np.random.Generator) -> np.ndarray | int:
    """Ref 3.4: each job, longest runtime first, draws an estimate uniformly among the remaining
    ones >= its runtime. ``estimates``: N values in descending order. Returns the estimate of
    each job (in the input order), or the position j (0-based) where the j-th longest runtime
    exceeds the j-th largest estimate (infeasible)."""
    n = len(runtimes)
    order = np.argsort(-runtimes, kind="stable")
    rt = runtimes[order]
    bad = np.flatnonzero(rt > estimates)
    if bad.size:
        return int(bad[0])
    est = estimates.tolist()
    rts = rt.tolist()
    uniforms = rng.random(n).tolist()
    out = [0.0] * n
    hi = 0
    for j in range(n):
        r = rts[j]
        hi = max(hi, j)
        while hi < n - 1 and r <= est[hi + 1]:
            hi += 1
        k = j + int(uniforms[j] * (hi - j + 1))
        out[j] = est[k]
        est[k], est[j] = est[j], est[k]
    result = np.empty(n)
    result[order] = out
    return result


# ------------------------------------------------------------------------------------------
# Command
# ------------------------------------------------------------------------------------------
def parse_bins(texts: list[str]) -> list[tuple[str | float, float]]:
    """``--bin SEC=PCT`` values: (seconds, or "M" for the maximum estimate; percent)."""
    out: list[tuple[str | float, float]] = []
    for text in texts:
        sec, sep, pct = text.partition("=")
        seconds: str | float
        try:
            percent = float(pct)
            seconds = "M" if sec.strip().upper() == "M" else float(sec)
        except ValueError:
            seconds, percent = math.nan, math.nan
        bad_seconds = not isinstance(seconds, str) and not (math.isfinite(seconds) and seconds > 0)
        if not sep or not (0 < percent <= 100) or bad_seconds:
            raise UsageError(f"--bin {text}: expected SEC=PCT, SEC > 0 seconds (or M) and 0 < PCT <= 100")
        out.append((seconds, percent))
    return out


def _whole(x: float) -> int | float:
    return int(x) if float(x).is_integer() else float(x)


def annotate(
    workload: dict,
    *,
    model: str,
    max_estimate_s: float | None = None,
    bins: list[tuple[str | float, float]] | None = None,
    seed: int = 0,
    truncate: bool = False,
    source: str = "workload",
) -> tuple[dict, dict]:
    """A copy of ``workload`` with ``estimate_s`` and ``walltime`` set by ``model``, and a
    summary (``text`` is what the command prints). ``source`` names the input in errors."""
    if model not in MODELS:
        raise UsageError(f"--model must be one of {', '.join(MODELS)}, got {model!r}")
    bins = bins or []
    if model == "exact" and (bins or max_estimate_s is not None or truncate):
        raise UsageError("--max-estimate, --bin and --truncate belong to --model tsafrir")
    jobs, profiles, runtimes = _delay_jobs(workload, source)
    n = len(jobs)
    info: dict = {"model": model, "seed": seed} if model == "tsafrir" else {"model": model}
    if model == "exact":
        estimates = runtimes.copy()
    else:
        max_s = _max_estimate(runtimes, max_estimate_s, n, source)
        truncated = _truncated(jobs, profiles, runtimes, max_s, truncate, source)
        user = _user_bins(bins, max_s, n)
        rng = np.random.Generator(np.random.PCG64(seed))
        dist = build_distribution(n, max_s, user, rng)
        estimates = _assigned(runtimes, dist, rng, jobs, source)
        info.update(
            {
                "max_estimate_s": _whole(max_s),
                "max_estimate_from": "given" if max_estimate_s is not None else "longest runtime",
                "bins": [[_whole(t), c] for t, c in user],
                "k": dist.k,
                "a": dist.a,
                "truncated_runtimes": truncated,
            }
        )
    equal = _set_walltimes(jobs, runtimes, estimates)
    stats = estimate_stats(runtimes, estimates)
    info.update(stats)
    info["walltime_runtime_plus_1"] = equal
    meta = dict(metadata(workload))
    meta["estimates"] = info
    out = {k: v for k, v in workload.items() if k not in ("meta", "adaptsched", "profiles", "jobs")}
    out["adaptsched"] = meta
    out["profiles"] = profiles
    out["jobs"] = jobs
    if model == "exact":
        text = f"{n} exact estimates (= runtime); walltime = runtime + 1 s"
    else:
        text = (
            f"{n} estimates (tsafrir, M = {max_s:g} s, K = {info['k']}, a = {info['a']:.2f}, seed {seed}): "
            f"{stats['distinct']} distinct values, {100 * stats['share_at_max']:.2f}% at M, the 20 most popular hold "
            f"{100 * stats['share_top20']:.2f}%; accuracy (runtime/estimate) mean {stats['mean_accuracy']:.3f}, "
            f"median {stats['median_accuracy']:.3f}; {equal} with estimate = runtime: walltime runtime + 1 s "
            "(Batsim would report them as killed at their walltime)"
            + (f"; {truncated} runtimes above M shortened to M" if truncated else "")
        )
    return out, {**info, "text": text, "jobs": n}


def _delay_jobs(workload: dict, source: str) -> tuple[list[dict], dict, np.ndarray]:
    """Copies of the workload's jobs and profiles, and the runtimes; InputError if there is no
    job or one has another profile than ``delay``."""
    jobs = [dict(j) for j in workload["jobs"]]
    profiles = dict(workload["profiles"])
    if not jobs:
        raise InputError(source, "the workload has no job")
    for index, job in enumerate(jobs):
        if profiles.get(job["profile"], {}).get("type") != "delay":
            raise InputError(source, f"jobs[{index}] (job {job['id']}): only delay profiles have a runtime")
    return jobs, profiles, np.array([float(profiles[j["profile"]]["delay"]) for j in jobs])


def _max_estimate(runtimes: np.ndarray, max_estimate_s: float | None, n: int, source: str) -> float:
    """M: the given largest estimate, else the longest runtime; refused where the model or
    Tsafrir's driver cannot work (M < 1 h or too small a head, too few jobs)."""
    max_s = float(runtimes.max()) if max_estimate_s is None else float(max_estimate_s)
    if not math.isfinite(max_s) or max_s < MODEL_MIN_M_S:
        raise UsageError(f"--max-estimate {max_s:g}: the model needs M >= 1 h (3600 s)")
    if max_s <= DRIVER_MIN_M_S:
        raise UsageError(
            f"--max-estimate {max_s:g}: Tsafrir's driver demands M > {DRIVER_MIN_M_S} s "
            "(below it the head cannot hold its 20 values)"
            + (" (M defaults to the longest runtime)" if max_estimate_s is None else "")
        )
    if n <= DRIVER_MIN_JOBS:
        raise InputError(source, f"{n} jobs: Tsafrir's model needs more than {DRIVER_MIN_JOBS} (the tail is empty)")
    return max_s


def _truncated(
    jobs: list[dict], profiles: dict, runtimes: np.ndarray, max_s: float, truncate: bool, source: str
) -> int:
    """Runtimes above M: refused, or with ``truncate`` shortened to M (a profile of their
    own); returns how many were."""
    over = np.flatnonzero(runtimes > max_s)
    if over.size and not truncate:
        first = jobs[int(over[0])]
        raise InputError(
            source,
            f"{over.size} jobs run longer than M = {max_s:g} s (the first: job {first['id']}, "
            f"{runtimes[over[0]]:g} s): give a larger --max-estimate, or --truncate to shorten them to M",
        )
    if not over.size:
        return 0
    name = f"delay_{_whole(max_s)}"
    profiles.setdefault(name, {"type": "delay", "delay": _whole(max_s)})
    for i in over.tolist():
        jobs[i]["profile"] = name
    runtimes[over] = max_s
    return int(over.size)


def _user_bins(bins: list[tuple[str | float, float]], max_s: float, n: int) -> list[tuple[float, int]]:
    """``--bin`` values as (estimate, number of jobs), "M" read as M."""
    user: list[tuple[float, int]] = []
    for sec, pct in bins:
        t = max_s if sec == "M" else float(sec)
        if t > max_s:
            raise UsageError(f"--bin {sec:g}={pct:g}: the estimate is above M = {max_s:g} s")
        user.append((t, math.floor(n * pct / 100.0)))
    if len({t for t, _ in user}) != len(user):
        raise UsageError("--bin: two bins for the same estimate")
    return user


def _assigned(
    runtimes: np.ndarray, dist: Distribution, rng: np.random.Generator, jobs: list[dict], source: str
) -> np.ndarray:
    """The estimates of :func:`assign`; an error naming the first runtime no value can cover."""
    result = assign(runtimes, dist.values(), rng)
    if isinstance(result, int):
        j = result
        order = np.argsort(-runtimes, kind="stable")
        job = jobs[int(order[j])]
        raise AdaptschedError(
            f"{source}: no feasible estimates: the runtime ranked {j + 1} from the longest "
            f"({runtimes[order[j]]:g} s, job {job['id']}) exceeds the estimate ranked {j + 1} "
            f"({dist.values()[j]:g} s); give a larger --max-estimate M, or a larger bin for M (--bin M=PCT)"
        )
    return result


def _set_walltimes(jobs: list[dict], runtimes: np.ndarray, estimates: np.ndarray) -> int:
    """Each job's ``estimate_s`` and walltime (its estimate, or runtime + 1 s where they are
    equal, Batsim killing a job at a walltime equal to its runtime); returns how many were."""
    equal = 0
    for job, rt, est in zip(jobs, runtimes.tolist(), estimates.tolist()):
        job["estimate_s"] = _whole(est)
        if est == rt:
            job["walltime"] = _whole(rt + 1)
            equal += 1
        else:
            job["walltime"] = _whole(est)
    return equal


def estimate_stats(runtimes: np.ndarray, estimates: np.ndarray) -> dict:
    """Distinct values, share at the largest estimate, share of the 20 most popular values, and
    the mean and median accuracy runtime / estimate."""
    values, counts = np.unique(estimates, return_counts=True)
    n = len(estimates)
    accuracy = runtimes / estimates
    return {
        "distinct": len(values),
        "share_at_max": float(counts[-1] / n),
        "share_top20": float(np.sort(counts)[::-1][:TOP].sum() / n),
        "mean_accuracy": float(accuracy.mean()),
        "median_accuracy": float(np.median(accuracy)),
    }
