"""Downey's numbers (Table 1, sec. 6.1) and claims, each claim a small function returning a
:class:`~adaptsched.reproduce.common.Claim`.

Arguments are plain numbers, every run keyed by its seed (a seed is one generated workload per
offered load; the runs of one seed share it, so comparisons are paired seed by seed):
``table1``: {strategy: {seed: metrics}} (greedy, rho = 0.75); ``fig11``: {(strategy, load,
mode): {seed: metrics}}; ``fig13``: {(strategy, c): {seed: metrics}}; ``fig15``: {(strategy,
load): {seed: metrics}} (greedy); metrics: a run's ``utilization``, ``turnaround_s``,
``queue_s``, ``cluster_size``, ``cluster_cv``, ``slowdown_p90``...

Tolerances come from the paper's own precision: a number it states to the unit ("twice", "5-8
times", "5000 seconds") holds within half its last digit (sec. 6.1: 2 +- 0.5, [5, 8] +- 0.5,
5,000 +- 500 s). "Significant" has the paper's meaning throughout (Figure 11: markers two
standard deviations wide, "non-overlapping data markers indicate statistically significant
variations"): a difference is significant when its 95 % interval excludes 0. So "better",
"worse" and "significantly worse" hold when the interval lies beyond 0; "not significantly
different" (sec. 6.5) does not hold when it excludes 0, and holds when it includes 0 and is
narrow enough to tell: within the smallest turnaround gap the paper reads as a difference,
AVG against PWS in Table 1 (5,782 against 6,017 s: 4 %).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from adaptsched.reproduce.common import (
    FAILS,
    HOLDS,
    INDEPENDENT,
    Claim,
    Part,
    Sample,
    beyond,
    decide,
    depends_on,
    in_band,
    num,
    pct1,
    per_seed,
    ratio_minus_one,
    workload_fact,
)

#: Table 1 of the paper (greedy, rho = 0.75, 120 days): load, utilization, turnaround (s),
#: queue (s), cluster size, its CV, p90 slowdown.
PAPER_TABLE1 = {
    "SEV": (0.64, 0.52, 5858, 204, 7.8, 1.04, 11.6),
    "AVG": (0.70, 0.52, 5782, 372, 9.4, 1.07, 35.3),
    "PWS": (0.73, 0.52, 6017, 566, 10.2, 1.10, 77.8),
    "MAX": (0.81, 0.51, 6597, 1115, 10.7, 1.11, 249),
    "ASP": (0.77, 0.49, 7510, 402, 9.9, 1.24, 63.6),
}
#: Days a point averages (Figure 11: "the average of 1200 day-long simulated runs"; Table 1 and
#: Figures 12, 13, 15: 120).
PAPER_DAYS = {"fig11": 1200, "table1": 120}
#: Metric -> +1 when higher is better, -1 when lower is better.
BETTER = {"utilization": 1, "turnaround_s": -1, "queue_s": -1, "slowdown_p90": -1}
#: Sec. 6.1: stubborn turnaround over ASP's, over the offered loads 0.5 to 1.0 ("twice as long",
#: "5-8 times", "13-17 times", "17-21 times"): (low, high) as the paper says it.
PAPER_RATIOS = {"SEV": (2, 2), "AVG": (5, 8), "PWS": (13, 17), "MAX": (17, 21)}
#: Half the last digit of a ratio the paper gives as a whole number.
RATIO_TOLERANCE = 0.5
#: Sec. 6.1: ASP's "mean turnaround times range from 5000 seconds when rho = 0.5 to 9000 seconds
#: when rho = 1.0", "utilization ranges from 0.4 to 0.6": {load: (turnaround s, utilization)}.
PAPER_ASP = {0.5: (5000, 0.4), 1.0: (9000, 0.6)}
#: Table 1: AVG's turnaround 5,782 s against PWS's 6,017 s, a difference the paper reads as one
#: (sec. 6.2: "the differences in turnaround times ... are more pronounced"): 4.1 %.
SAME_TURNAROUND = PAPER_TABLE1["PWS"][2] / PAPER_TABLE1["AVG"][2] - 1
Runs = Mapping[int, Mapping[str, float]]  # seed -> a run's metrics


def _series(runs: Runs | None, key: str) -> dict[int, float] | None:
    return {seed: m[key] for seed, m in runs.items() if key in m} if runs else None


def _part(label: str, a: Runs | None, b: Runs | None, key: str, sign: int) -> Part | None:
    """a's metric against b's (a / b - 1, seed by seed), which the claim wants above 0 (``sign``
    +1) or below (-1)."""
    x, y = _series(a, key), _series(b, key)
    if not x or not y:
        return None
    s = per_seed(ratio_minus_one, x, y)
    return Part(label, s, beyond(s, 0.0, below=sign < 0))


def _claim(text, paper, parts: Iterable[Part | None], source) -> Claim | None:
    known = [p for p in parts if p is not None]
    if not known:
        return None
    verdict, ours, details = decide(known, pct1)
    return Claim(text, paper, ours, "direction", source, INDEPENDENT, verdict, fmt=pct1, details=details)


def greedy_beats_stubborn(fig11: Mapping[tuple, Runs], strategies: Iterable[str], loads) -> Claim | None:
    """Sec. 6.2, Figure 11: "greedy strategies are better than stubborn strategies by all
    metrics": utilization, turnaround, queue and p90 slowdown, at every load, seed by seed."""
    parts = [
        _part(f"{s} at {load:g}: {key}", fig11.get((s, load, "greedy")), fig11.get((s, load, "stubborn")), key, sign)
        for load in loads
        for s in strategies
        for key, sign in BETTER.items()
    ]
    return _claim(
        "greedy beats stubborn on every metric, at every load",
        "better by all metrics",
        parts,
        'paper: sec. 6, "greedy strategies are better than stubborn strategies by all metrics"',
    )


def greedy_beats_asp(fig11: Mapping[tuple, Runs], strategies: Iterable[str], loads) -> Claim | None:
    """Sec. 6.2, Figure 11(b): "All of the greedy strategies perform *better* than ASP"
    (utilization, every load)."""
    parts = [
        _part(f"{s} at {load:g}", fig11.get((s, load, "greedy")), fig11.get(("ASP", load, "greedy")), "utilization", 1)
        for load in loads
        for s in strategies
    ]
    return _claim(
        "every greedy strategy beats ASP (utilization, every load)",
        "better than ASP (Figure 11(b))",
        parts,
        'paper: sec. 6.2, "All of the greedy strategies perform better than ASP"',
    )


def _versus(table1: Mapping[str, Runs], strategy: str, others: Iterable[str], key: str, sign: int) -> list:
    return [_part(f"{strategy} vs {o}: {key}", table1.get(strategy), table1.get(o), key, sign) for o in others]


def sev_smallest_clusters_shortest_queues(table1: Mapping[str, Runs]) -> Claim | None:
    """Table 1: "SEV allocates the smallest cluster sizes, resulting in the shortest queue times"."""
    others = ("AVG", "PWS", "MAX", "ASP")
    return _claim(
        "SEV has the smallest clusters and the shortest queues (Table 1)",
        "7.8 and 204 s, the least",
        _versus(table1, "SEV", others, "cluster_size", -1) + _versus(table1, "SEV", others, "queue_s", -1),
        'paper: sec. 6.3, "SEV allocates the smallest cluster sizes, resulting in the shortest queue times"',
    )


def sev_lowest_p90_slowdown(table1: Mapping[str, Runs]) -> Claim | None:
    """Table 1: "SEV has by far the lowest slowdowns" (p90)."""
    return _claim(
        "SEV has the lowest p90 slowdown (Table 1)",
        "11.6, the least",
        _versus(table1, "SEV", ("AVG", "PWS", "MAX", "ASP"), "slowdown_p90", -1),
        'paper: sec. 6.3, "SEV has by far the lowest slowdowns"',
    )


def max_worst_of_the_three(table1: Mapping[str, Runs]) -> Claim | None:
    """Table 1: "MAX allocates so many processors per job that the additional queue time
    overwhelms the saved run time. Utilization for this strategy is lower and turnaround times
    are higher" (than SEV, AVG and PWS)."""
    others = ("SEV", "AVG", "PWS")
    return _claim(
        "MAX has lower utilization and longer turnaround than SEV, AVG, PWS (Table 1)",
        ".51 vs .52; 6,597 s vs 5,782 to 6,017 s",
        _versus(table1, "MAX", others, "utilization", -1) + _versus(table1, "MAX", others, "turnaround_s", 1),
        'paper: sec. 6.3, "Utilization for this strategy is lower and turnaround times are higher"',
    )


def avg_beats_pws(table1: Mapping[str, Runs]) -> Claim | None:
    """Sec. 6.2: "the performance of PWS is marginally worse than that of AVG (the differences in
    turnaround times and slowdowns are more pronounced)"."""
    return _claim(
        "AVG beats PWS on turnaround and p90 slowdown (Table 1)",
        "5,782 vs 6,017 s; 35.3 vs 77.8",
        _versus(table1, "AVG", ("PWS",), "turnaround_s", -1) + _versus(table1, "AVG", ("PWS",), "slowdown_p90", -1),
        'paper: sec. 6.2, "PWS is marginally worse than that of AVG"',
    )


def asp_highest_cluster_cv(table1: Mapping[str, Runs]) -> Claim | None:
    """Sec. 6.3: "ASP has a higher CV of cluster size than any of the other strategies"."""
    return _claim(
        "ASP has the highest cluster-size CV (Table 1)",
        "1.24 vs 1.04 to 1.11",
        _versus(table1, "ASP", ("SEV", "AVG", "PWS", "MAX"), "cluster_cv", 1),
        'paper: sec. 6.3, "ASP has a higher CV of cluster size than any of the other strategies"',
    )


def large_minimum_degrades(fig13: Mapping[tuple, Runs], strategies: Iterable[str]) -> Claim | None:
    """Sec. 6.4, Figure 13: "Imposing a large minimum degrades performance greatly, reducing
    utilization and increasing turnaround times" (c = 1 against c = 0, rho = 0.75)."""
    parts = []
    for s in strategies:
        parts.append(_part(f"{s}: c=1 vs c=0 utilization", fig13.get((s, 1.0)), fig13.get((s, 0.0)), "utilization", -1))
        parts.append(_part(f"{s}: c=1 vs c=0 turnaround", fig13.get((s, 1.0)), fig13.get((s, 0.0)), "turnaround_s", 1))
    claim = _claim(
        "a large minimum fraction (c = 1) lowers utilization and lengthens turnaround",
        "degrades performance greatly",
        parts,
        'paper: sec. 6.4, "Imposing a large minimum degrades performance greatly"',
    )
    # c = 1 is the stubborn mode and c = 0 the greedy one (sec. 6.4: "when c = 0 the strategies are
    # greedy and when c = 1 they are stubborn"): this restates "greedy beats stubborn" at rho = 0.75
    return claim.with_class(depends_on("greedy beats stubborn: c = 1 is stubborn, c = 0 greedy")) if claim else None


# -- sec. 6.1: stubborn turnaround over ASP's -------------------------------------------------------
def _ratio_part(label, a: Runs | None, b: Runs | None, key: str, low: float, high: float) -> Part | None:
    """a's metric over b's, seed by seed, within [low, high]."""
    x, y = _series(a, key), _series(b, key)
    if not x or not y:
        return None
    s = per_seed(lambda u, v: u / v, x, y)
    return Part(label, s, in_band(s, low, high))


def stubborn_over_asp(fig11: Mapping[tuple, Runs], strategy: str, loads, days: str = "apart") -> Claim | None:
    """Sec. 6.1: "Even SEV ... yields turnaround times twice as long as ASP's. ... under AVG are
    5-8 times longer than ASP's, under PWS 13-17 times longer, and under MAX 17-21 times longer":
    the stubborn strategy's mean turnaround over ASP's, seed by seed, at every offered load of
    Figure 11 (0.5 to 1.0), within the paper's range +- half a unit (module doc)."""
    low, high = PAPER_RATIOS[strategy]
    band = (low - RATIO_TOLERANCE, high + RATIO_TOLERANCE)
    parts = [
        _ratio_part(
            f"rho {load:g}",
            fig11.get((strategy, load, "stubborn")),
            fig11.get(("ASP", load, "greedy")),
            "turnaround_s",
            *band,
        )
        for load in loads
    ]
    known = [p for p in parts if p is not None]
    if not known:
        return None
    verdict, ours, details = decide(known, num(3))
    paper = "twice" if low == high else f"{low}-{high} times"
    return Claim(
        f"stubborn {strategy}'s turnaround over ASP's, every load (days {days})",
        paper,
        ours,
        f"{band[0]:g} to {band[1]:g}",
        "paper: sec. 6.1; +- half a unit, the precision of its whole numbers",
        INDEPENDENT,
        verdict,
        fmt=num(3),
        details=details,
    )


def asp_range(fig11: Mapping[tuple, Runs]) -> list[Claim]:
    """Sec. 6.1: ASP's mean turnaround "from 5000 seconds when rho = 0.5 to 9000 seconds when
    rho = 1.0" (+- 500 s) and its utilization "from 0.4 to 0.6" (+- 0.05), at those two loads."""
    out = []
    for key, index, tol, fmt, text in (
        ("turnaround_s", 0, 500.0, num(4), "ASP's mean turnaround (s) at rho 0.5 and 1.0"),
        ("utilization", 1, 0.05, num(2), "ASP's utilization at rho 0.5 and 1.0"),
    ):
        parts = []
        for load, values in PAPER_ASP.items():
            series = _series(fig11.get(("ASP", load, "greedy")), key)
            if series:
                s = per_seed(float, series)
                parts.append(Part(f"rho {load:g}", s, in_band(s, values[index] - tol, values[index] + tol)))
        if parts:
            verdict, ours, details = decide(parts, fmt)
            paper = " and ".join(f"{v[index]:g}" for v in PAPER_ASP.values())
            source = "paper: sec. 6.1; +- half its last digit"
            out.append(Claim(text, paper, ours, f"+- {tol:g}", source, INDEPENDENT, verdict, fmt=fmt, details=details))
    return out


# -- sec. 6.5: variance is not useful -----------------------------------------------------------------
def insensitive_sizes(fig11: Mapping[tuple, Runs], fig15: Mapping[tuple, Runs], loads) -> Claim | None:
    """Sec. 6.5, Figure 15(a): SSEV and 3/2 AVG "allocate the same cluster sizes, on average, as
    their variance-sensitive counterparts" (greedy, every load): within 5 %, the smallest gap
    between two strategies' sizes in Table 1 (PWS 10.2 against MAX 10.7). They were designed to
    (sec. 6.5: "designed to allocate the same number of processors per job on average"): the
    claim checks that design, not a scheduling result."""
    parts = []
    for sensitive, insensitive in (("SEV", "SSEV"), ("PWS", "3/2AVG")):
        for load in loads:
            x = _series(fig15.get((insensitive, load)), "cluster_size")
            y = _series(fig11.get((sensitive, load, "greedy")), "cluster_size")
            if x and y:
                s = per_seed(ratio_minus_one, x, y)
                parts.append(Part(f"{insensitive} vs {sensitive} at {load:g}", s, in_band(s, -0.05, 0.05)))
    if not parts:
        return None
    verdict, ours, details = decide(parts, pct1)
    tol = PAPER_TABLE1["MAX"][4] / PAPER_TABLE1["PWS"][4] - 1
    return Claim(
        "SSEV and 3/2 AVG allocate the mean cluster sizes of SEV and PWS (Figure 15(a))",
        "the same",
        ours,
        f"+- 5 % (Table 1's smallest size gap: {100 * tol:.0f} %)",
        'paper: sec. 6.5, "these strategies allocate the same cluster sizes, on average"',
        depends_on("the design of SSEV and 3/2 AVG (sec. 6.5)"),
        verdict,
        fmt=pct1,
        details=details,
    )


def not_significantly_different(sample: Sample, margin: float) -> str:
    """Module doc: does not hold when the interval excludes 0 (a significant difference), holds
    when it includes 0 and lies within +- ``margin``, else needs more seeds."""
    ci = sample.ci
    if ci is None:
        return in_band(sample, -margin, margin)  # not measured, or one seed
    if ci[0] > 0 or ci[1] < 0:
        return FAILS
    return HOLDS if -margin <= ci[0] and ci[1] <= margin else in_band(sample, -margin, margin)


def ssev_like_sev(fig11: Mapping[tuple, Runs], fig15: Mapping[tuple, Runs], loads) -> Claim | None:
    """Sec. 6.5, Figure 15(b): "the average turnaround time for Simplified SEV is not
    significantly different from that of SEV" (greedy, every load): within the AVG-PWS gap of
    Table 1 (module doc), seed by seed."""
    parts = []
    for load in loads:
        x = _series(fig15.get(("SSEV", load)), "turnaround_s")
        y = _series(fig11.get(("SEV", load, "greedy")), "turnaround_s")
        if x and y:
            s = per_seed(ratio_minus_one, x, y)
            parts.append(Part(f"SSEV vs SEV at {load:g}", s, not_significantly_different(s, SAME_TURNAROUND)))
    if not parts:
        return None
    verdict, ours, details = decide(parts, pct1)
    return Claim(
        "SSEV's turnaround is SEV's, at every load (Figure 15(b))",
        "not significantly different",
        ours,
        f"interval including 0, within +- {100 * SAME_TURNAROUND:.1f} %",
        "paper: sec. 6.5; the margin: Table 1's AVG-PWS turnaround gap, which sec. 6.2 reads as a difference",
        INDEPENDENT,
        verdict,
        fmt=pct1,
        details=details,
    )


def threehalves_avg_worse_than_pws(fig11: Mapping[tuple, Runs], fig15: Mapping[tuple, Runs], loads) -> Claim | None:
    """Sec. 6.5: "The variance-insensitive version of this strategy [PWS] does significantly worse
    by all metrics": 3/2 AVG against PWS (greedy), utilization, turnaround, queue and p90
    slowdown, at every load, seed by seed."""
    parts = [
        _part(
            f"3/2AVG vs PWS at {load:g}: {key}",
            fig15.get(("3/2AVG", load)),
            fig11.get(("PWS", load, "greedy")),
            key,
            -sign,
        )
        for load in loads
        for key, sign in BETTER.items()
    ]
    return _claim(
        "3/2 AVG does worse than PWS on every metric, at every load",
        "significantly worse by all metrics",
        parts,
        'paper: sec. 6.5, "The variance-insensitive version of this strategy does significantly worse by all metrics"',
    )


# -- the workload, beside the paper's -----------------------------------------------------------------
#: Sec. 3.1 and 4: "the mean is 271 minutes", "the median ... 18 minutes", "the number of jobs per
#: day is between 80 (when rho = 0.5) and 160 (when rho = 1.0)", "the fraction of sequential jobs
#: in our simulations is ~17%".
PAPER_WORKLOAD = {"mean_min": 271.0, "median_min": 18.0, "sequential": 0.17}
PAPER_JOBS_PER_DAY = {0.5: 80, 1.0: 160}


def workload_facts(model: Mapping[str, float], realized: Mapping[str, Iterable[float]]) -> list[Claim]:
    """The workload beside the paper's (class *workload*, not counted): the model's own values
    (``model``: ``mean_min``, ``median_min``, ``jobs_day_0.5``, ``jobs_day_1``, ``sequential``: the
    share of jobs AVG runs on one processor, exact from the generator's distributions), each within
    half the last digit the paper gives; and what the generated workloads hold (``realized``, one
    value per workload: ``load_ratio``, their offered load over the nominal rho, within half the
    last digit of rho = 0.75; ``mean_A``, not stated by the paper)."""
    p = PAPER_WORKLOAD
    half = "paper: sec. 3.1, 4; +- half its last digit"

    def exact(key, note="the generator's distribution"):
        return Sample.exact_value(model.get(key), note=note)

    ratio = Sample.of(realized.get("load_ratio", ()), unit="workload")
    rho_tol = 0.005 / 0.75
    return [
        workload_fact(
            "offered load of the generated workloads over the nominal rho",
            "rho = lambda E[L] / N",
            ratio,
            (1 - rho_tol, 1 + rho_tol),
            f"+- {100 * rho_tol:.2f} % (rho = 0.75 +- 0.005)",
            "paper: sec. 4; +- half the last digit of rho",
            pct1_ratio,
        ),
        workload_fact(
            "mean sequential lifetime L (min)",
            f"{p['mean_min']:g}",
            exact("mean_min"),
            _half(p["mean_min"], 1),
            "+- 0.5",
            half,
        ),
        workload_fact(
            "median lifetime (min)",
            f"{p['median_min']:g}",
            exact("median_min"),
            _half(p["median_min"], 1),
            "+- 0.5",
            half,
        ),
        *(
            workload_fact(
                f"jobs per day at rho {load:g}",
                f"{count}",
                exact(f"jobs_day_{load:g}", "lambda x 12 h"),
                _half(count, 10),
                "+- 5",
                half,
            )
            for load, count in PAPER_JOBS_PER_DAY.items()
        ),
        workload_fact(
            "share of sequential jobs (AVG runs them on 1 processor: A < 1.5)",
            "~17 %",
            exact("sequential"),
            _half(p["sequential"], 0.01),
            "+- 0.5 points",
            half,
            share1,
        ),
        workload_fact(
            "mean average parallelism A of the jobs",
            "not stated (A uniform-log on [1, N])",
            Sample.of(realized.get("mean_A", ()), unit="workload"),
            None,
            "-",
            "-",
        ),
    ]


def _half(value: float, unit: float) -> tuple[float, float]:
    return value - unit / 2, value + unit / 2


def pct1_ratio(x: float) -> str:
    """A ratio near 1 as a signed percentage change ("+0.3 %")."""
    return pct1(x - 1)


def share1(x: float) -> str:
    return "-" if x != x else f"{100 * x:.1f} %"
