"""Downey's numbers (Table 1) and claims, each claim a small pure function.

Arguments are plain numbers: ``fig11`` maps (strategy, offered load, mode) to a run's metrics
(``utilization``, ``turnaround_s``, ``queue_s``, ``slowdown_p90``...), the Table 1 claims take
{strategy: mean value}.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from adaptsched.reproduce.common import Finding

#: Table 1 of the paper (greedy, rho = 0.75, 120 days): load, utilization, turnaround (s),
#: queue (s), cluster size, its CV, p90 slowdown.
PAPER_TABLE1 = {
    "SEV": (0.64, 0.52, 5858, 204, 7.8, 1.04, 11.6),
    "AVG": (0.70, 0.52, 5782, 372, 9.4, 1.07, 35.3),
    "PWS": (0.73, 0.52, 6017, 566, 10.2, 1.10, 77.8),
    "MAX": (0.81, 0.51, 6597, 1115, 10.7, 1.11, 249),
    "ASP": (0.77, 0.49, 7510, 402, 9.9, 1.24, 63.6),
}
#: Metric -> +1 when higher is better, -1 when lower is better (greedy vs stubborn).
BETTER = {"utilization": 1, "turnaround_s": -1, "queue_s": -1, "slowdown_p90": -1}


def greedy_beats_stubborn(fig11: Mapping[tuple, Mapping[str, float]], strategies: Iterable[str], loads) -> Finding:
    """Sec. 6, Figure 11: greedy allocation beats stubborn on every metric, at every load."""
    worse = []
    for load in loads:
        for s in strategies:
            g, st = fig11.get((s, load, "greedy")), fig11.get((s, load, "stubborn"))
            if g and st:
                for key, better in BETTER.items():
                    if better * (g[key] - st[key]) < 0:
                        worse.append(f"{s} at {load:g}: {key} {g[key]:.3g} vs {st[key]:.3g}")
    return Finding(
        "greedy beats stubborn on every metric",
        not worse,
        "every comparison holds" if not worse else "; ".join(worse[:6]) + (" ..." if len(worse) > 6 else ""),
    )


def sev_lowest_p90_slowdown(p90: Mapping[str, float]) -> Finding:
    """Table 1: SEV has the lowest 90th-percentile slowdown of the greedy strategies."""
    return Finding(
        "SEV has the lowest p90 slowdown (Table 1)",
        min(p90, key=p90.__getitem__) == "SEV",
        ", ".join(f"{s} {v:.1f}" for s, v in p90.items()),
    )


def asp_highest_cluster_cv(cv: Mapping[str, float]) -> Finding:
    """Table 1: ASP's cluster sizes vary the most (highest coefficient of variation)."""
    return Finding(
        "ASP has the highest cluster-size CV (Table 1)",
        max(cv, key=cv.__getitem__) == "ASP",
        ", ".join(f"{s} {v:.2f}" for s, v in cv.items()),
    )
