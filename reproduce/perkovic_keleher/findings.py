"""Perković & Keleher's numbers and claims, each claim a small function returning a
:class:`~adaptsched.reproduce.common.Claim`.

The paper's numbers come from its text (the figures' bars are not in the seed): sec. 5 gives
the order comparisons relative to BF and to 1/L, Table 2 the shape-group sizes, Table 3 the
guaranteed/actual delay ratios, sec. 7 the combined result (bounded slowdown about 15 % of
BF's, R/L-NG delay 21 % of BF's). The rest of the paper's findings are qualitative.

Every function takes plain numbers: ``bsld``, ``wait``, ``response`` map a mix's label
(``BF``, ``R/L-NG``, ``BF spec 25%``...) to a *series*: {seed: value} for a randomized mix,
one number for a deterministic one (the same trace, no seed: one run is exact); a label absent
from the mapping was not run. Comparisons are paired seed by seed
(:func:`~adaptsched.reproduce.common.per_seed`), a deterministic mix standing beside every
seed. A function returns None when the runs it needs are absent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from adaptsched.reproduce.common import (
    BY_CONSTRUCTION,
    INDEPENDENT,
    Claim,
    Part,
    Series,
    beyond,
    decide,
    in_band,
    pct,
    per_seed,
    ratio_minus_one,
)

#: Relative change vs BF stated in sec. 5: (bounded slowdown, delay).
PAPER_VS_BF = {"P/L-NG": (-0.57, -0.38), "R/L-NG": (-0.77, -0.65)}
#: Relative change vs 1/L (shortest-first with guarantees), sec. 5.
PAPER_VS_SF = {"P/L-NG": (-0.35, -0.28), "R/L-NG": (-0.65, -0.59)}
PAPER_TABLE2 = {"SN": 14486, "SW": 25702, "LN": 25526, "LW": 13588}
PAPER_TABLE3 = {"mean": 16.33, "median": 3.89, "p15": 1.67, "p85": 14.83}
PAPER_COMBINED_BSLD = 0.15  # "around 15% of the bounded slowdown of conservative backfilling"
PAPER_RLNG_DELAY = 0.21  # "average delay for R/L-NG decreases to 21% of ... conservative backfilling"
PAPER_IMMEDIATE = 0.61  # share of jobs that start immediately under BF (sec. 4)

#: Our tolerances (the paper states none): a gain vs BF or 1/L within 10 points of the
#: paper's; "around 15 %" and "21 %" of BF's within 10 points; "significantly" (shortest
#: first) at least 20 % better.
GAIN_POINTS = 0.10
COMBINED_POINTS = 0.10
SHORTEST_FIRST_GAIN = -0.2
GAIN_SOURCE = "ours: the paper gives no error; 10 points"

ORDERS = ("P", "R", "1/L", "P/L", "R/L")
GROUPS = ("SN", "SW", "LN", "LW")
SPECULATION_PCTS = (25, 50, 75)
Metric = Mapping[str, Series]


def _claim(text, paper, parts, source, tol="direction", fmt=pct) -> Claim:
    verdict, ours, details = decide(parts, fmt)
    return Claim(text, paper, ours, tol, source, INDEPENDENT, verdict, fmt=fmt, details=details)


def _below(a: Series, b: Series, label: str, threshold: float = 0.0) -> Part:
    """a / b - 1 seed by seed, which the claim wants below ``threshold``."""
    s = per_seed(ratio_minus_one, a, b)
    return Part(label, s, beyond(s, threshold, below=True))


def _above(a: Series, b: Series, label: str, threshold: float = 0.0) -> Part:
    s = per_seed(ratio_minus_one, a, b)
    return Part(label, s, beyond(s, threshold, below=False))


def randomized_beats_priority(bsld: Metric) -> Claim | None:
    """Sec. 5: "Randomized backfilling performs better than priority backfilling with or
    without guarantees" (R below P, R-NG below P-NG)."""
    pairs = [(r, p) for r, p in (("R", "P"), ("R-NG", "P-NG")) if r in bsld and p in bsld]
    if not pairs:
        return None
    return _claim(
        "randomized beats priority, with or without guarantees",
        "R < P, R-NG < P-NG",
        [_below(bsld[r], bsld[p], f"{r} vs {p}") for r, p in pairs],
        'paper: sec. 5, "Randomized backfilling performs better than priority backfilling"',
    )


def ng_improves_every_order(bsld: Metric) -> Claim | None:
    """Sec. 5: "no-guarantees algorithms performed better with all sorting criteria except
    arrival order" (X-NG below X for every order but D; D-NG not below BF)."""
    orders = [c for c in ORDERS if c in bsld and c + "-NG" in bsld]
    if not orders:
        return None
    parts = [_below(bsld[c + "-NG"], bsld[c], f"{c}-NG vs {c}") for c in orders]
    if "BF" in bsld and "D-NG" in bsld:
        s = per_seed(ratio_minus_one, bsld["D-NG"], bsld["BF"])
        parts.append(Part("D-NG vs BF (not better)", s, beyond(s, 0.0, below=False) if s.values else "not measured"))
    return _claim(
        "-NG beats guarantees for every order except arrival order",
        "X-NG < X; D-NG not",
        parts,
        'paper: sec. 5, "performed better with all sorting criteria except arrival order"',
    )


def shortest_first_helps(bsld: Metric) -> Claim | None:
    """Sec. 5: "shortest-first order significantly decreases slowdown" (1/L against BF)."""
    if "1/L" not in bsld or "BF" not in bsld:
        return None
    return _claim(
        "shortest-first (1/L) significantly decreases bounded slowdown",
        "significantly",
        [_below(bsld["1/L"], bsld["BF"], "1/L vs BF", SHORTEST_FIRST_GAIN)],
        'ours: "significantly" read as at least 20 % below BF',
        tol="< -20 %",
    )


def priority_between(bsld: Metric) -> Claim | None:
    """Sec. 5: "Priority backfilling (with 3 priorities only) performs slightly worse than
    shortest-first backfilling, while randomized performs better" (P above 1/L, R below)."""
    if not all(k in bsld for k in ("P", "R", "1/L")):
        return None
    return _claim(
        "P (3 priorities) slightly worse than shortest-first, R better",
        "P > 1/L > R",
        [_above(bsld["P"], bsld["1/L"], "P vs 1/L"), _below(bsld["R"], bsld["1/L"], "R vs 1/L")],
        'paper: sec. 5, "performs slightly worse than shortest-first backfilling, while randomized performs better"',
    )


def gain_matches(label: str, base: str, bsld: Metric, wait: Metric, paper: tuple[float, float]) -> Claim | None:
    """Sec. 5: P/L-NG's and R/L-NG's bounded slowdown and delay relative to BF (or 1/L), each
    within :data:`GAIN_POINTS` of the paper's."""
    if not all(k in m for m in (bsld, wait) for k in (label, base)):
        return None
    parts = []
    for name, metric, target in (("bounded slowdown", bsld, paper[0]), ("delay", wait, paper[1])):
        s = per_seed(ratio_minus_one, metric[label], metric[base])
        parts.append(Part(f"{label} {name} vs {base}", s, in_band(s, target - GAIN_POINTS, target + GAIN_POINTS)))
    return _claim(
        f"{label} vs {base}: bounded slowdown {pct(paper[0])}, delay {pct(paper[1])}",
        f"{pct(paper[0])}, {pct(paper[1])}",
        parts,
        GAIN_SOURCE,
        tol="±10 points",
    )


def rlng_improves_every_group(groups: Mapping[str, Mapping[str, Series]]) -> Claim | None:
    """Sec. 5, Figure 4: "As compared to conservative backfilling, there are improvements in all
    groups" (R/L-NG's bounded slowdown below BF's in SN, SW, LN, LW). ``groups``: label ->
    group -> series."""
    if "BF" not in groups or "R/L-NG" not in groups:
        return None
    return _claim(
        "R/L-NG improves every shape group over BF",
        "all groups improve",
        [_below(groups["R/L-NG"][g], groups["BF"][g], f"{g}: R/L-NG vs BF") for g in GROUPS],
        'paper: sec. 5, "there are improvements in all groups"',
    )


def long_wide_gain_least(groups: Mapping[str, Mapping[str, Series]]) -> Claim | None:
    """Sec. 5: "Improvements for long wide jobs are smallest" (R/L-NG vs BF: LW's relative
    change above every other group's, seed by seed)."""
    if "BF" not in groups or "R/L-NG" not in groups:
        return None
    rl, bf = groups["R/L-NG"], groups["BF"]

    def lw_minus(other: str):
        return lambda lw, lw_bf, g, g_bf: (lw / lw_bf) - (g / g_bf)

    parts = []
    for g in GROUPS[:3]:
        s = per_seed(lw_minus(g), rl["LW"], bf["LW"], rl[g], bf[g])
        parts.append(Part(f"LW's change - {g}'s", s, beyond(s, 0.0, below=False)))
    return _claim(
        "long-wide jobs gain least (R/L-NG vs BF)",
        "LW smallest improvement",
        parts,
        'paper: sec. 5, "Improvements for long wide jobs are smallest"',
        fmt=lambda x: f"{100 * x:+.0f} points",
    )


def most_start_immediately(immediate: float | None) -> Claim | None:
    """Sec. 4: "An average of 61% of jobs start immediately. In other words, the majority of
    jobs have zero delay" under BF (deterministic)."""
    if immediate is None:
        return None
    s = per_seed(lambda x: x, immediate)
    return _claim(
        "under BF the majority of jobs start immediately",
        "61 %",
        [Part("share of jobs with no delay", s, beyond(s, 0.5, below=False))],
        'paper: sec. 4, "the majority of jobs have zero delay"',
        tol="> 50 %",
        fmt=lambda x: f"{100 * x:.0f} %",
    )


def speculation_helps(base: str, bsld: Metric) -> Claim | None:
    """Sec. 6, Figure 5 ("improvements ... relative to corresponding algorithms without
    speculation"): speculative backfilling at 25, 50, 75 % lowers bounded slowdown."""
    labels = [spec_label(base, p, False) for p in SPECULATION_PCTS]
    if base not in bsld or not all(k in bsld for k in labels):
        return None
    return _claim(
        f"{base}: speculation improves bounded slowdown",
        "improvements (Figure 5)",
        [_below(bsld[k], bsld[base], f"{k} vs {base}") for k in labels],
        "paper: sec. 6.2, Figure 5 (improvements relative to no speculation)",
    )


def smaller_percentages_do_better(base: str, bsld: Metric) -> Claim | None:
    """Sec. 6.2: without test runs, "bounded slowdowns ... tend to be smaller with smaller
    speculation percentage" (25 % below 75 %)."""
    low, high = spec_label(base, 25, False), spec_label(base, 75, False)
    if low not in bsld or high not in bsld:
        return None
    return _claim(
        f"{base}: smaller speculation percentages do better without test runs",
        "25 % < 75 %",
        [_below(bsld[low], bsld[high], "25 % vs 75 %")],
        'paper: sec. 6.2, "tend to be smaller with smaller speculation percentage"',
    )


def speculative_test_runs_help(base: str, bsld: Metric) -> Claim | None:
    """Sec. 6.2: "Test runs significantly improved performance of speculative backfilling" at
    every percentage."""
    pairs = [(spec_label(base, p, True), spec_label(base, p, False)) for p in SPECULATION_PCTS]
    if not all(a in bsld and b in bsld for a, b in pairs):
        return None
    return _claim(
        f"{base}: test runs improve speculative backfilling",
        "improvements (Figure 6)",
        [_below(bsld[a], bsld[b], f"{a} vs without") for a, b in pairs],
        'paper: sec. 6.2, "Test runs significantly improved performance of speculative backfilling"',
    )


def test_runs_favour_large_percentages(base: str, bsld: Metric) -> Claim | None:
    """Sec. 6.2: with test runs "the bounded slowdown slightly decreases with the higher
    speculation percentages" (75 % below 25 %), and test runs help "especially so for large
    speculation percentages"."""
    labels = [spec_label(base, p, t) for p in (25, 75) for t in (False, True)]
    if not all(k in bsld for k in labels):
        return None
    low_plain, low_test, high_plain, high_test = (bsld[k] for k in labels)

    def more_at_75(h_test, h_plain, l_test, l_plain):
        return (h_test / h_plain) - (l_test / l_plain)

    s = per_seed(more_at_75, high_test, high_plain, low_test, low_plain)
    return _claim(
        f"{base}: with test runs, larger percentages do better, and test runs help them most",
        "75 % < 25 %; the gain larger at 75 %",
        [
            _below(high_test, low_test, "with test runs, 75 % vs 25 %"),
            Part("test runs' change at 75 % - at 25 %", s, beyond(s, 0.0, below=True)),
        ],
        'paper: sec. 6.2, "slightly decreases with the higher speculation percentages", "especially so '
        'for large speculation percentages"',
    )


def spec_label(base: str, pct_: float, tests: bool) -> str:
    return f"{base} spec {pct_:g}%" + (" +test" if tests else "")


def resizing_trades_response(label: str, bsld: Metric, wait: Metric, response: Metric) -> Claim | None:
    """Sec. 7: half and quarter size lower delay and the slowdown of many jobs but lengthen jobs
    ("long jobs will be even longer"): bounded slowdown and delay fall, response rises, vs BF."""
    if label not in bsld or "BF" not in bsld:
        return None
    return _claim(
        f"{label}: bounded slowdown and delay fall, response time rises",
        "bsld, delay down; response up",
        [
            _below(bsld[label], bsld["BF"], "bounded slowdown vs BF"),
            _below(wait[label], wait["BF"], "delay vs BF"),
            _above(response[label], response["BF"], "response vs BF"),
        ],
        'paper: sec. 7.1, "decreases their delay ... long jobs will be even longer"',
    )


def widening_helps(bsld: Metric) -> Claim | None:
    """Sec. 7.1: "As compared with half-sized applications, start time widening gives
    significant improvements" (BF half + widening below BF half)."""
    if "BF half+widen" not in bsld or "BF half" not in bsld:
        return None
    return _claim(
        "start-time widening improves half size",
        "significant improvements",
        [_below(bsld["BF half+widen"], bsld["BF half"], "BF half+widen vs BF half")],
        'paper: sec. 7.1, "start time widening gives significant improvements"',
    )


def _best(metric: Metric, labels: Sequence[str]) -> str | None:
    known = [k for k in labels if k in metric]
    if not known:
        return None

    def mean(series: Series) -> float:
        if isinstance(series, Mapping):
            return sum(series.values()) / len(series) if series else float("inf")
        return float("inf") if series is None else float(series)

    return min(known, key=lambda k: mean(metric[k]))


def combined_near_paper(bsld: Metric, combined: Sequence[str]) -> Claim | None:
    """Sec. 7: "The bounded slowdown for several of the algorithms decreases to around 15% of
    the bounded slowdown of conservative backfilling" (the best combination's, within 10 points)."""
    best = _best(bsld, combined)
    if best is None or "BF" not in bsld:
        return None
    s = per_seed(lambda a, b: a / b, bsld[best], bsld["BF"])
    return _claim(
        "combined techniques reach around 15 % of BF's bounded slowdown",
        "around 15 %",
        [
            Part(
                f"{best} / BF",
                s,
                in_band(s, PAPER_COMBINED_BSLD - COMBINED_POINTS, PAPER_COMBINED_BSLD + COMBINED_POINTS),
            )
        ],
        'ours: "around" read as within 10 points',
        tol="±10 points",
        fmt=lambda x: f"{100 * x:.0f} %",
    )


def rlng_delay_near_paper(wait: Metric, combined: Sequence[str]) -> Claim | None:
    """Sec. 7: "The average delay for R/L-NG algorithm decreases to 21% of the delay for
    conservative backfilling" (its best combination's, within 10 points)."""
    best = _best(wait, [k for k in combined if k.startswith("R/L-NG")])
    if best is None or "BF" not in wait:
        return None
    s = per_seed(lambda a, b: a / b, wait[best], wait["BF"])
    return _claim(
        "R/L-NG's delay in combination falls to 21 % of BF's",
        "21 %",
        [Part(f"{best} / BF", s, in_band(s, PAPER_RLNG_DELAY - COMBINED_POINTS, PAPER_RLNG_DELAY + COMBINED_POINTS))],
        "ours: the paper states no error; 10 points",
        tol="±10 points",
        fmt=lambda x: f"{100 * x:.0f} %",
    )


#: The readings study: the gains it compares, "LABEL METRIC" -> the paper's
#: relative change vs BF (sec. 5), and the smallest change of a gain that counts as a move
#: (1 percentage point: below it, two seeds cannot tell a reading from the default).
PAPER_READING_GAINS = {
    "P/L-NG bsld": PAPER_VS_BF["P/L-NG"][0],
    "P/L-NG delay": PAPER_VS_BF["P/L-NG"][1],
    "R/L-NG bsld": PAPER_VS_BF["R/L-NG"][0],
    "R/L-NG delay": PAPER_VS_BF["R/L-NG"][1],
}
READING_MOVE = 0.01


def reading_direction(default: float, reading: float, paper: float, *, move: float = READING_MOVE) -> str:
    """Where a reading takes a gain vs BF, against the default reading's: "toward" the paper's
    (nearer to it), "away", "same" (changed by less than ``move``), or "" (a number missing)."""
    if not all(isinstance(x, float | int) and x == x for x in (default, reading, paper)):
        return ""
    if abs(reading - default) < move:
        return "same"
    return "toward" if abs(reading - paper) < abs(default - paper) else "away"


def closest_reading(gains: Mapping[str, float], paper: float) -> str | None:
    """The reading (a key of ``gains``: reading -> gain vs BF) whose gain is nearest the
    paper's; the first of equals; None if no gain is known."""
    known = {k: v for k, v in gains.items() if v == v}
    if not known:
        return None
    return min(known, key=lambda k: abs(known[k] - paper))


#: The paper's workload statistics: Table 1 (jobs, median width), Table 2 (134
#: jobs with zero runtime: 23 + 2 + 108 + 1), sec. 4 (61 % start at once under BF) and sec. 8
#: ("The maximum queue length observed ... was approximately 1,000 jobs").
PAPER_JOBS = 79302
PAPER_MEDIAN_WIDTH = 2.0
PAPER_ZERO_RUNTIME = 134
PAPER_MAX_QUEUE = 1000.0
#: Ours: the paper says "approximately" and gives one number; we allow 15 %.
STAT_TOLERANCE = 0.15
STAT_SOURCE = 'ours: the paper gives one number ("approximately" for the queue); 15 %'


def _value_claim(text, paper_text, series: Series, paper: float, fmt, source=STAT_SOURCE, klass=INDEPENDENT, note="BF"):
    s = per_seed(lambda x: x, series)
    low, high = paper * (1 - STAT_TOLERANCE), paper * (1 + STAT_TOLERANCE)
    verdict, ours, details = decide([Part(note, s, in_band(s, low, high))], fmt)
    tol = f"±{100 * STAT_TOLERANCE:.0f} %"
    return Claim(text, paper_text, ours, tol, source, klass, verdict, fmt=fmt, details=details)


def _chosen(table: str, what: str, workload: str) -> str:
    if workload.startswith("paper"):
        return f"{table}; the flurry's {what} was chosen from it"
    return f"{table}; ours: 15 %"


def max_queue_near_paper(queue: Series, workload: str) -> Claim | None:
    """Sec. 8: "The maximum queue length observed in the experiments ... was approximately
    1,000 jobs" (BF's longest queue, within :data:`STAT_TOLERANCE`)."""
    if queue is None:
        return None
    return _value_claim(
        f"BF's longest queue is about 1,000 jobs ({workload})",
        "≈ 1,000 (sec. 8)",
        queue,
        PAPER_MAX_QUEUE,
        lambda x: f"{x:,.0f}",
    )


def immediate_near_paper(immediate: Series, workload: str) -> Claim | None:
    """Sec. 4: "An average of 61% of jobs start immediately" under BF (within
    :data:`STAT_TOLERANCE` of 61 %)."""
    if immediate is None:
        return None
    return _value_claim(
        f"61 % of jobs start at once under BF ({workload})",
        "61 % (sec. 4)",
        immediate,
        PAPER_IMMEDIATE,
        lambda x: f"{100 * x:.1f} %",
    )


def median_width_matches(median: Series, workload: str) -> Claim | None:
    """Table 1: median job parallelism 2. By construction on the paper's workload: the
    flurry's width was read off this number."""
    if median is None:
        return None
    return _value_claim(
        f"median width 2 ({workload})",
        "2 (Table 1)",
        median,
        PAPER_MEDIAN_WIDTH,
        lambda x: f"{x:g}",
        source=_chosen("Table 1", "width", workload),
        note="the workload",
        klass=BY_CONSTRUCTION if workload.startswith("paper") else INDEPENDENT,
    )


def zero_runtime_matches(zero: Series, workload: str) -> Claim | None:
    """Table 2: 134 jobs with zero runtime. By construction on the paper's workload: the
    flurry's zero-runtime count is 134 minus the cleaned log's 17."""
    if zero is None:
        return None
    return _value_claim(
        f"134 zero-runtime jobs simulated ({workload})",
        "134 (Table 2)",
        zero,
        PAPER_ZERO_RUNTIME,
        lambda x: f"{x:,.0f}",
        source=_chosen("Table 2", "zero-runtime count", workload),
        note="the workload",
        klass=BY_CONSTRUCTION if workload.startswith("paper") else INDEPENDENT,
    )
