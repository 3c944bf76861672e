"""Islam et al.'s numbers (Tables 1 and 2) and claims, each claim a small function returning a
:class:`~adaptsched.reproduce.common.Claim`.

Arguments are plain numbers: ``table``: {scenario: {seed: (static gains, DVQoPS gain)}}, a
scenario being (trace, C, U, load, estimates) and a gain a revenue improvement over QoPS as a
fraction (0.21 for +21 %), the static gains at the OC-factors of :data:`OC_FACTORS`; the
trace may carry its part (``"SDSC-SP2 (last)"``). A seed draws the urgent jobs (and, at high
load, the duplicated ones): every comparison is paired seed by seed on the same workload.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from adaptsched.reproduce.common import (
    INDEPENDENT,
    NOT_CHECKABLE,
    NOT_CHECKED,
    Claim,
    Part,
    Sample,
    beyond,
    decide,
    pct,
    pct1,
)

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
OC_FACTORS = (0.0, 0.05, 0.1, 0.2, 0.4)
#: Sec. 5.2: DVQoPS is "within 5 %" of the best static OC-factor.
DVQOPS_TOLERANCE = 0.05
#: The original-load scenarios with exact estimates (Figures 5 to 8 (a), Table 1).
ORIGINAL = ((10, 0.8), (5, 0.8), (2, 0.8), (10, 0.5), (10, 0.2))

Scenario = tuple[str, int, float, str, str]
Table = Mapping[Scenario, Mapping[int, tuple[Sequence[float], float]]]


def points(x: float) -> str:
    """A difference of two relative changes, in percentage points with one decimal."""
    return f"{100 * x:+.1f} points"


def dvqops_gap(dvqops: float, static: Sequence[float]) -> float:
    """DVQoPS's revenue relative to the best static OC-factor's (both as improvements over
    QoPS): -0.1 means 10 % less revenue than the best static choice."""
    return (1 + dvqops) / (1 + max(static)) - 1


def _seeds(table: Table, key: Scenario) -> Mapping[int, tuple[Sequence[float], float]] | None:
    runs = table.get(key)
    return runs if runs else None


def _per_seed(table: Table, key: Scenario, fn) -> Sample:
    runs = _seeds(table, key) or {}
    return Sample.of((fn(gains, dv) for _, (gains, dv) in sorted(runs.items())))


def _claim(text, paper, parts, source, tol="direction", klass=INDEPENDENT, fmt=pct) -> Claim | None:
    if not parts:
        return None
    verdict, ours, details = decide(parts, fmt)
    if klass == NOT_CHECKABLE:
        verdict = NOT_CHECKED
    return Claim(text, paper, ours, tol, source, klass, verdict, fmt=fmt, details=details)


def _gap_parts(table: Table, trace: str, keys) -> list[Part]:
    parts = []
    for key in keys:
        full = (trace, *key)
        if _seeds(table, full):
            s = _per_seed(table, full, lambda gains, dv: dvqops_gap(dv, gains))
            parts.append(
                Part(f"C={key[0]} U={int(100 * key[1])} % {key[2]}", s, beyond(s, -DVQOPS_TOLERANCE, below=False))
            )
    return parts


def dvqops_near_best_static(table: Table, trace: str) -> Claim | None:
    """Sec. 5.2 (Figures 5, 6), 5.3 (Figure 7(a)): at the original load, "DVQoPS ... consistently
    achieves within 5% of the best VQoPS implementation for all traces": its revenue at least 95 %
    of the best static factor's, seed by seed, in every original-load scenario (exact estimates)."""
    keys = [(c, u, "orig", "exact") for c, u in ORIGINAL]
    return _claim(
        f"{trace}: DVQoPS within 5 % of the best static OC-factor at the original load",
        "within 5 %",
        _gap_parts(table, trace, keys),
        'paper: sec. 5.2, "consistently achieves within 5% of the best VQoPS implementation"',
        tol=">= -5 %",
        fmt=pct1,
    )


def dvqops_at_high_load(table: Table, trace: str) -> Claim | None:
    """At high load (Figures 7(b), 8(b), missing from our copy) the text says only "The overall
    trend, however, ...": not checkable; our gap is shown beside the 5 % of the original load."""
    return _claim(
        f"{trace}: DVQoPS within 5 % of the best static OC-factor at high load",
        "Figure 7(b), 8(b): not in our copy",
        _gap_parts(table, trace, [(10, 0.8, "high", "exact")]),
        'the text says only "the overall trend" is the same',
        tol=">= -5 % (as at the original load)",
        klass=NOT_CHECKABLE,
        fmt=pct1,
    )


def gains_grow_with_load(table: Table, trace: str) -> Claim | None:
    """Sec. 4.2.2, Table 1: "with load increase we see that the revenue improvement increases for
    all OC-Factor values" (C = 10, U = 80 %): every factor's gain higher at high load."""
    orig, high = _seeds(table, (trace, 10, 0.8, "orig", "exact")), _seeds(table, (trace, 10, 0.8, "high", "exact"))
    if not orig or not high:
        return None
    parts = []
    for i, oc in enumerate(OC_FACTORS):
        values = [high[k][0][i] - orig[k][0][i] for k in sorted(set(orig) & set(high))]
        s = Sample.of(values)
        parts.append(Part(f"OC {oc:g}: high - original load", s, beyond(s, 0.0, below=False)))
    return _claim(
        f"{trace}: the gain over QoPS grows with the load, for every OC-factor",
        "+21..39 % -> +63..160 %",
        parts,
        'paper: sec. 4.2.2, "with load increase ... the revenue improvement increases for all OC-Factor values"',
        fmt=points,
    )


def _factor_beats(table: Table, key: Scenario, better: float, worse: float, label: str) -> Part | None:
    if not _seeds(table, key):
        return None
    i, j = OC_FACTORS.index(better), OC_FACTORS.index(worse)
    s = _per_seed(table, key, lambda gains, _: gains[i] - gains[j])
    return Part(label, s, beyond(s, 0.0, below=False))


def cost_moves_best_factor(table: Table, trace: str) -> Claim | None:
    """Sec. 4.2.2: "as the relative cost of the urgent jobs decreases, we see the smaller
    OC-Factor values perform better": at C = 2 OC 0.05 beats 0.4 (Table 1: +26 % vs -100 %), at
    C = 10 OC 0.4 beats 0.05 (+39 % vs +26 %); U = 80 %, original load."""
    parts = [
        _factor_beats(table, (trace, 2, 0.8, "orig", "exact"), 0.05, 0.4, "C=2: OC 0.05 - OC 0.4"),
        _factor_beats(table, (trace, 10, 0.8, "orig", "exact"), 0.4, 0.05, "C=10: OC 0.4 - OC 0.05"),
    ]
    return _claim(
        f"{trace}: cheaper urgent jobs favour smaller OC-factors",
        "C=2: 0.05 > 0.4; C=10: 0.4 > 0.05",
        [p for p in parts if p],
        'paper: sec. 4.2.2, "as the relative cost of the urgent jobs decreases ... smaller OC-Factor values '
        'perform better"',
        fmt=points,
    )


def urgent_share_moves_best_factor(table: Table, trace: str) -> Claim | None:
    """Sec. 4.2.2: "as the number of urgent jobs decreases, smaller OC-Factor values perform
    better": at U = 20 % OC 0.05 beats 0.4 (+38 % vs +22 %), at U = 80 % OC 0.4 beats 0.05
    (+39 % vs +26 %); C = 10, original load."""
    parts = [
        _factor_beats(table, (trace, 10, 0.2, "orig", "exact"), 0.05, 0.4, "U=20 %: OC 0.05 - OC 0.4"),
        _factor_beats(table, (trace, 10, 0.8, "orig", "exact"), 0.4, 0.05, "U=80 %: OC 0.4 - OC 0.05"),
    ]
    return _claim(
        f"{trace}: fewer urgent jobs favour smaller OC-factors",
        "U=20 %: 0.05 > 0.4; U=80 %: 0.4 > 0.05",
        [p for p in parts if p],
        'paper: sec. 4.2.2, "as the number of urgent jobs decreases, smaller OC-Factor values perform better"',
        fmt=points,
    )


def high_factors_lose_when_urgent_cheap(table: Table, trace: str) -> Claim | None:
    """Sec. 5.3 (Figure 7(a)): "when the cost of the urgent jobs is very low, high static
    OC-Factors actually perform worse as compared to QoPS" (Table 1, C = 2: OC 0.2 -47 %, 0.4
    -100 %)."""
    key = (trace, 2, 0.8, "orig", "exact")
    if not _seeds(table, key):
        return None
    parts = []
    for oc in (0.2, 0.4):
        i = OC_FACTORS.index(oc)
        s = _per_seed(table, key, lambda gains, _, i=i: gains[i])
        parts.append(Part(f"C=2: OC {oc:g} vs QoPS", s, beyond(s, 0.0, below=True)))
    return _claim(
        f"{trace}: with cheap urgent jobs (C = 2) high OC-factors earn less than QoPS",
        "OC 0.2 -47 %, 0.4 -100 %",
        parts,
        'paper: sec. 5.3, "high static OC-Factors actually perform worse as compared to QoPS"',
    )


def ctc_gains_less(table: Table, sdsc: str, ctc: str) -> Claim | None:
    """Sec. 5.2 (Figure 6 against 5): on CTC "the improvements are lesser compared to the
    corresponding SDSC workload" (its lower load): the best static gain lower on CTC for U = 20,
    50, 80 % (C = 10, original load), seed by seed."""
    parts = []
    for u in (0.2, 0.5, 0.8):
        a, b = _seeds(table, (sdsc, 10, u, "orig", "exact")), _seeds(table, (ctc, 10, u, "orig", "exact"))
        if a and b:
            s = Sample.of(max(b[k][0]) - max(a[k][0]) for k in sorted(set(a) & set(b)))
            parts.append(Part(f"U={int(100 * u)} %: CTC - SDSC best gain", s, beyond(s, 0.0, below=True)))
    return _claim(
        "the gains on CTC are smaller than on SDSC",
        "lesser (Figures 5, 6)",
        parts,
        'paper: sec. 5.2, "the improvements are lesser compared to the corresponding SDSC workload"',
        fmt=points,
    )


def revenue_grows_with_window(revenue: Mapping[int, Mapping[int, float]]) -> Claim | None:
    """Sec. 4.3, Table 2: "By varying the length of the rollback window from 1 to 128 hours, the
    revenue varies from 414M units to 716M units" (474 M at 1 h, 716 M at 64 h): a 64-hour window
    earns more than a 1-hour one, seed by seed. ``revenue``: window (h) -> {seed: revenue}."""
    short, long_ = revenue.get(1), revenue.get(64)
    if not short or not long_:
        return None
    s = Sample.of(long_[k] / short[k] - 1 for k in sorted(set(short) & set(long_)))
    return _claim(
        "Table 2: a 64-hour rollback window earns more than a 1-hour one",
        "716 M vs 474 M (+51 %)",
        [Part("revenue at 64 h vs 1 h", s, beyond(s, 0.0, below=False))],
        'paper: sec. 4.3, "choosing the correct rollback window size"; Table 2',
        fmt=pct1,
    )


def table1_distance(
    ours: Mapping[tuple, Sequence[float]], paper: Mapping[tuple, Sequence[int]] = PAPER_TABLE1
) -> float:
    """Mean absolute difference, in percentage points, between our improvements over QoPS
    (fractions, per OC-factor) and the paper's Table 1 (percentages), over the scenarios
    ``(C, U, load)`` both have; NaN when none."""
    diffs = [abs(100 * g - p) for key, gains in ours.items() if key in paper for g, p in zip(gains, paper[key])]
    return sum(diffs) / len(diffs) if diffs else float("nan")
