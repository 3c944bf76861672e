"""Downey's numbers (Table 1) and claims, each claim a small function returning a
:class:`~adaptsched.reproduce.common.Claim`.

Arguments are plain numbers, every run keyed by its seed (a seed is one generated workload per
offered load; the runs of one seed share it, so comparisons are paired seed by seed):
``table1``: {strategy: {seed: metrics}} (greedy, rho = 0.75); ``fig11``: {(strategy, load,
mode): {seed: metrics}}; ``fig13``: {(strategy, c): {seed: metrics}}; metrics: a run's
``utilization``, ``turnaround_s``, ``queue_s``, ``cluster_size``, ``cluster_cv``,
``slowdown_p90``...
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from adaptsched.reproduce.common import INDEPENDENT, Claim, Part, beyond, decide, pct1, per_seed, ratio_minus_one

#: Table 1 of the paper (greedy, rho = 0.75, 120 days): load, utilization, turnaround (s),
#: queue (s), cluster size, its CV, p90 slowdown.
PAPER_TABLE1 = {
    "SEV": (0.64, 0.52, 5858, 204, 7.8, 1.04, 11.6),
    "AVG": (0.70, 0.52, 5782, 372, 9.4, 1.07, 35.3),
    "PWS": (0.73, 0.52, 6017, 566, 10.2, 1.10, 77.8),
    "MAX": (0.81, 0.51, 6597, 1115, 10.7, 1.11, 249),
    "ASP": (0.77, 0.49, 7510, 402, 9.9, 1.24, 63.6),
}
#: Metric -> +1 when higher is better, -1 when lower is better.
BETTER = {"utilization": 1, "turnaround_s": -1, "queue_s": -1, "slowdown_p90": -1}
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
    return _claim(
        "a large minimum fraction (c = 1) lowers utilization and lengthens turnaround",
        "degrades performance greatly",
        parts,
        'paper: sec. 6.4, "Imposing a large minimum degrades performance greatly"',
    )
