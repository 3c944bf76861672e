"""Islam et al.'s numbers (Tables 1 and 2) and claims, each claim a small pure function.

Arguments are plain numbers: revenue improvements over QoPS as fractions (0.21 for +21 %),
keyed by scenario ``(C, U, load)`` where needed.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

from adaptsched.reproduce.common import Finding

#: The paper's Table 1: revenue improvement (%) over QoPS at OC-factors 0, 0.05, 0.1, 0.2, 0.4.
PAPER_TABLE1 = {
    (10, 0.8, "orig"): (21, 26, 37, 37, 39),
    (5, 0.8, "orig"): (20, 25, 34, 35, 30),
    (2, 0.8, "orig"): (19, 26, 27, -47, -100),
    (10, 0.5, "orig"): (23, 34, 46, 45, 45),
    (10, 0.2, "orig"): (26, 38, 22, 22, 22),
    (10, 0.8, "high"): (63, 90, 135, 144, 160),
}
#: The paper's Table 2: window (h) -> (OC-factor variance x 1e-5, load variance, revenue).
PAPER_TABLE2 = {
    1: (3.15, 10.60, 473631718),
    4: (6.18, 2.89, 508341077),
    16: (7.84, 0.62, 555062813),
    32: (2.99, 0.34, 692266945),
    48: (1.36, 0.24, 715606095),
    64: (1.03, 0.17, 715733110),
    128: (1.13, 0.04, 701476009),
}
#: Sec. 5.3: DVQoPS is "within 5 %" of the best static OC-factor.
DVQOPS_TOLERANCE = 0.05


def dvqops_gap(dvqops: float, static: Sequence[float]) -> float:
    """DVQoPS's revenue relative to the best static OC-factor's (both as improvements over
    QoPS): -0.1 means 10 % less revenue than the best static choice."""
    return (1 + dvqops) / (1 + max(static)) - 1


def dvqops_near_best_static(gaps: Mapping[str, float]) -> Finding | None:
    """Sec. 5.3: DVQoPS within 5 % of the best static OC-factor in every scenario.
    ``gaps``: scenario label -> :func:`dvqops_gap`."""
    if not gaps:
        return None
    worst = min(gaps, key=gaps.__getitem__)
    within = [s for s, gap in gaps.items() if gap >= -DVQOPS_TOLERANCE]
    return Finding(
        "DVQoPS within 5 % of the best static OC-factor",
        len(within) == len(gaps),
        f"{len(within)} of {len(gaps)} scenarios within 5 % (worst: {worst} at {100 * gaps[worst]:+.1f} %)",
    )


def dvqops_near_best_static_at_high_load(gaps: Mapping[str, float]) -> Finding | None:
    """Sec. 5.3 at high load (Figure 7(b), Figure 8): DVQoPS within 5 % of the best static
    OC-factor. ``gaps``: run label (trace, part, size) -> :func:`dvqops_gap`, high-load runs only."""
    if not gaps:
        return None
    failing = [s for s, gap in gaps.items() if gap < -DVQOPS_TOLERANCE]
    return Finding(
        "DVQoPS within 5 % of the best static OC-factor at high load",
        not failing,
        "; ".join(f"{s}: {100 * g:+.1f} %" for s, g in gaps.items()),
    )


def gains_grow_with_load(best: Mapping[tuple, float]) -> Finding | None:
    """Table 1: value-awareness gains more at high load (C = 10, U = 80 %).
    ``best``: (C, U, load) -> best static improvement over QoPS."""
    orig, high = best.get((10, 0.8, "orig")), best.get((10, 0.8, "high"))
    if orig is None or high is None:
        return None
    return Finding(
        "the gain over QoPS grows with the load",
        high > orig,
        f"best static OC-factor: {100 * orig:+.0f} % at original load, {100 * high:+.0f} % at high load",
    )


def gains_grow_with_cost(best: Mapping[tuple, float]) -> Finding | None:
    """Table 1: the dearer urgent jobs are (C = 2, 5, 10; U = 80 %, original load), the more
    value-awareness gains. ``best``: (C, U, load) -> best static improvement over QoPS."""
    costs = [c for c in (2, 5, 10) if (c, 0.8, "orig") in best]
    if len(costs) < 2:
        return None
    gains = [best[(c, 0.8, "orig")] for c in costs]
    return Finding(
        "the gain over QoPS grows with the urgent jobs' cost C",
        all(a <= b for a, b in itertools.pairwise(gains)),
        ", ".join(f"C={c}: {100 * g:+.0f} %" for c, g in zip(costs, gains)),
    )


def table1_distance(
    ours: Mapping[tuple, Sequence[float]], paper: Mapping[tuple, Sequence[int]] = PAPER_TABLE1
) -> float:
    """Mean absolute difference, in percentage points, between our improvements over QoPS
    (fractions, per OC-factor) and the paper's Table 1 (percentages), over the scenarios
    ``(C, U, load)`` both have; NaN when none."""
    diffs = [abs(100 * g - p) for key, gains in ours.items() if key in paper for g, p in zip(gains, paper[key])]
    return sum(diffs) / len(diffs) if diffs else float("nan")
