"""Perković & Keleher's numbers and claims, each claim a small function returning a
:class:`~adaptsched.reproduce.common.Claim`.

The paper's numbers come from its text (the figures' bars are not in the seed): Table 1 and
Table 2 describe the workload, sec. 4 the share of jobs that start at once, Table 3 the
guaranteed/actual delay ratios, sec. 5 the order comparisons relative to BF and to 1/L, sec. 7
the adaptation and combined results, sec. 8 the longest queue. The rest is qualitative.

**Tolerances come from the paper's own precision**: a number printed to a whole percent is
read ±0.5 points, one printed to two decimals ±0.005, "approximately 1,000" (one significant
figure) ±500, "around 15 %" (a figure rounded to fives) ±2.5 points. The paper gives no spread
for any of them, so its own sampling error cannot be added. **Words carry one threshold each**,
the same in every claim (:data:`WORDS`): "slightly" (and "only matches") means in the stated
direction (or either) by less than 10 %; "significantly" and "large" by at least 10 %; a plain
"improves", "better" or "worse" is a direction (the 95 % interval wholly beyond 0).

Every function takes plain numbers: ``bsld``, ``wait``, ``response`` map a mix's label
(``BF``, ``R/L-NG``, ``BF spec 25%``...) to a *series*: {seed: value} for a randomized mix on
the whole trace, {window: value} (a :class:`Windows`) for a deterministic mix on each window of
the trace, or one number (a deterministic run on the whole trace: exact); a label absent from
the mapping was not run. Comparisons are paired seed by seed or window by window
(:func:`~adaptsched.reproduce.common.per_seed`), a deterministic number standing beside every
seed. A function returns None when the runs it needs are absent.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from adaptsched.reproduce.common import (
    FAILS,
    HOLDS,
    INDEPENDENT,
    WORKLOAD,
    Claim,
    Part,
    Sample,
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
#: Table 3: guaranteed / actual delay of the jobs that did not start at once under BF.
PAPER_TABLE3 = {"mean": 16.33, "median": 3.89, "p15": 1.67, "p85": 14.83}
PAPER_COMBINED_BSLD = 0.15  # "around 15% of the bounded slowdown of conservative backfilling"
PAPER_RLNG_DELAY = 0.21  # "average delay for R/L-NG decreases to 21% of ... conservative backfilling"
PAPER_IMMEDIATE = 0.61  # share of jobs that start immediately under BF (sec. 4)
BOUND_S = 10.0  # sec. 2: "We use a bound time of 10 sec"

#: The paper's precision (module doc): half a unit of its last printed digit.
WHOLE_PERCENT = 0.005
TWO_DECIMALS = 0.005
AROUND_FIVES = 0.025  # "around 15 %": a figure rounded to fives
ONE_FIGURE_QUEUE = 500.0  # "approximately 1,000": one significant figure
PRECISION_SOURCE = "paper: printed to a whole percent (±0.5 points); no spread given"

#: One threshold per word (module doc): the size of a change the word means.
WORDS = {"slightly": 0.10, "only matches": 0.10, "significantly": 0.10, "large": 0.10}
WORD_SOURCE = "ours: the paper's words carry no figure; one threshold (10 %) for every word in this report"

ORDERS = ("P", "R", "1/L", "P/L", "R/L")
GROUPS = ("SN", "SW", "LN", "LW")
SPECULATION_PCTS = (25, 50, 75)
Metric = Mapping[str, Series]


class Windows(dict):
    """{window: value} of a deterministic mix on each window of the trace: a series whose unit
    is the window, not the seed."""

    unit = "window"


def _unit(*series: object) -> str:
    return next((s.unit for s in series if isinstance(s, Windows)), "seed")


def paired(fn: Callable[..., float], *series: Series, note: str = "") -> Sample:
    """``fn`` of the series, paired seed by seed or window by window (:func:`per_seed`)."""
    return per_seed(fn, *series, unit=_unit(*series), note=note)


def _claim(text, paper, parts, source, tol="direction", fmt=pct, klass=INDEPENDENT) -> Claim:
    verdict, ours, details = decide(parts, fmt)
    return Claim(text, paper, ours, tol, source, klass, verdict, fmt=fmt, details=details)


def _below(a: Series, b: Series, label: str, threshold: float = 0.0) -> Part:
    """a / b - 1, paired, which the claim wants below ``threshold``."""
    s = paired(ratio_minus_one, a, b)
    return Part(label, s, beyond(s, threshold, below=True))


def _above(a: Series, b: Series, label: str, threshold: float = 0.0) -> Part:
    s = paired(ratio_minus_one, a, b)
    return Part(label, s, beyond(s, threshold, below=False))


def _not_below(a: Series, b: Series, label: str) -> Part:
    """a / b - 1, paired, which the claim wants not below 0 ("not better"): holds when the
    interval does not go below 0, does not hold when it lies wholly below."""
    s = paired(ratio_minus_one, a, b)
    verdict = beyond(s, 0.0, below=True)
    flipped = {HOLDS: FAILS, FAILS: HOLDS}.get(verdict, verdict)
    return Part(label, s, flipped)


def _within(a: Series, b: Series, label: str, low: float, high: float) -> Part:
    s = paired(ratio_minus_one, a, b)
    return Part(label, s, in_band(s, low, high))


def _slightly_above(a: Series, b: Series, label: str) -> list[Part]:
    """a above b, by less than "slightly" allows."""
    return [_above(a, b, f"{label} (worse)"), _below(a, b, f"{label} (slightly)", WORDS["slightly"])]


def _slightly_below(a: Series, b: Series, label: str) -> list[Part]:
    return [_below(a, b, f"{label} (better)"), _above(a, b, f"{label} (slightly)", -WORDS["slightly"])]


# -- sec. 5: orders -------------------------------------------------------------------------------
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


def ng_improves_every_order(bsld: Metric, windows: Metric | None = None) -> Claim | None:
    """Sec. 5: "no-guarantees algorithms performed better with all sorting criteria except
    arrival order" (X-NG below X for every order but D; D-NG not below BF). Deterministic
    pairs (1/L, D) on ``windows`` when given."""
    orders = [c for c in ORDERS if c in bsld and c + "-NG" in bsld]
    if not orders:
        return None
    windows = windows or {}

    def pick(a: str, b: str) -> Metric:
        return windows if a in windows and b in windows else bsld

    parts = [_below(pick(c + "-NG", c)[c + "-NG"], pick(c + "-NG", c)[c], f"{c}-NG vs {c}") for c in orders]
    if "BF" in bsld and "D-NG" in bsld:
        m = pick("D-NG", "BF")
        parts.append(_not_below(m["D-NG"], m["BF"], "D-NG vs BF (not better)"))
    return _claim(
        "-NG beats guarantees for every order except arrival order",
        "X-NG < X; D-NG not",
        parts,
        'paper: sec. 5, "performed better with all sorting criteria except arrival order"',
    )


def shortest_first_helps(bsld: Metric) -> Claim | None:
    """Sec. 5: "shortest-first order significantly decreases slowdown" (1/L against BF, by at
    least "significantly"'s threshold)."""
    if "1/L" not in bsld or "BF" not in bsld:
        return None
    t = WORDS["significantly"]
    return _claim(
        "shortest-first (1/L) significantly decreases bounded slowdown",
        "significantly",
        [_below(bsld["1/L"], bsld["BF"], "1/L vs BF", -t)],
        WORD_SOURCE,
        tol=f"< {pct(-t)}",
    )


def priority_between(bsld: Metric) -> Claim | None:
    """Sec. 5: "Priority backfilling (with 3 priorities only) performs slightly worse than
    shortest-first backfilling, while randomized performs better" (P above 1/L by less than
    "slightly"'s threshold, R below 1/L)."""
    if not all(k in bsld for k in ("P", "R", "1/L")):
        return None
    return _claim(
        "P (3 priorities) slightly worse than shortest-first, R better",
        "P > 1/L > R",
        [*_slightly_above(bsld["P"], bsld["1/L"], "P vs 1/L"), _below(bsld["R"], bsld["1/L"], "R vs 1/L")],
        WORD_SOURCE,
        tol=f"P above 1/L by < {pct(WORDS['slightly'])}; R below",
    )


def gain_matches(label: str, base: str, bsld: Metric, wait: Metric, paper: tuple[float, float]) -> Claim | None:
    """Sec. 5: P/L-NG's and R/L-NG's bounded slowdown and delay relative to BF (or 1/L), each
    within the paper's precision (a whole percent) of the paper's."""
    if not all(k in m for m in (bsld, wait) for k in (label, base)):
        return None
    parts = []
    for name, metric, target in (("bounded slowdown", bsld, paper[0]), ("delay", wait, paper[1])):
        parts.append(
            _within(
                metric[label], metric[base], f"{label} {name} vs {base}", target - WHOLE_PERCENT, target + WHOLE_PERCENT
            )
        )
    return _claim(
        f"{label} vs {base}: bounded slowdown {pct(paper[0])}, delay {pct(paper[1])}",
        f"{pct(paper[0])}, {pct(paper[1])}",
        parts,
        PRECISION_SOURCE,
        tol="±0.5 points",
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
    change above every other group's, paired)."""
    if "BF" not in groups or "R/L-NG" not in groups:
        return None
    rl, bf = groups["R/L-NG"], groups["BF"]

    def lw_minus(lw, lw_bf, g, g_bf):
        return (lw / lw_bf) - (g / g_bf)

    parts = []
    for g in GROUPS[:3]:
        s = paired(lw_minus, rl["LW"], bf["LW"], rl[g], bf[g])
        parts.append(Part(f"LW's change - {g}'s", s, beyond(s, 0.0, below=False)))
    return _claim(
        "long-wide jobs gain least (R/L-NG vs BF)",
        "LW smallest improvement",
        parts,
        'paper: sec. 5, "Improvements for long wide jobs are smallest"',
        fmt=lambda x: f"{100 * x:+.0f} points",
    )


# -- sec. 4 and Table 3: guarantees ---------------------------------------------------------------------
def immediate_near_paper(immediate: Series, workload: str, klass: str = INDEPENDENT) -> Claim | None:
    """Sec. 4: "An average of 61% of jobs start immediately" under BF (a whole percent)."""
    if immediate is None:
        return None
    s = paired(lambda x: x, immediate)
    return _claim(
        f"61 % of jobs start at once under BF ({workload})",
        "61 % (sec. 4)",
        [Part("BF", s, in_band(s, PAPER_IMMEDIATE - WHOLE_PERCENT, PAPER_IMMEDIATE + WHOLE_PERCENT))],
        PRECISION_SOURCE,
        tol="±0.5 points",
        fmt=lambda x: f"{100 * x:.1f} %",
        klass=klass,
    )


def table3_ratios(stats: Mapping[str, Series], workload: str, klass: str = INDEPENDENT) -> Claim | None:
    """Table 3: guaranteed / actual delay of the jobs that did not start at once under BF:
    average 16.33, median 3.89, 15 % of the jobs below 1.67, 85 % below 14.83 (two decimals).
    ``stats``: "mean", "median", "p15", "p85" -> series."""
    if not stats or any(stats.get(k) is None for k in PAPER_TABLE3):
        return None
    names = {"mean": "average", "median": "median", "p15": "15th percentile", "p85": "85th percentile"}
    parts = []
    for key, target in PAPER_TABLE3.items():
        s = paired(lambda x: x, stats[key])
        parts.append(Part(names[key], s, in_band(s, target - TWO_DECIMALS, target + TWO_DECIMALS)))
    return _claim(
        f"Table 3: guaranteed / actual delay under BF ({workload})",
        "average 16.33, median 3.89, 15 % < 1.67, 85 % < 14.83",
        parts,
        "paper: printed to two decimals (±0.005); no spread given",
        tol="±0.005",
        fmt=lambda x: f"{x:.2f}",
        klass=klass,
    )


def max_queue_near_paper(queue: Series, workload: str, klass: str = INDEPENDENT) -> Claim | None:
    """Sec. 8: "The maximum queue length observed in the experiments ... was approximately
    1,000 jobs" (BF's longest queue; one significant figure: 500 to 1,500)."""
    if queue is None:
        return None
    s = paired(lambda x: x, queue)
    low, high = 1000.0 - ONE_FIGURE_QUEUE, 1000.0 + ONE_FIGURE_QUEUE
    return _claim(
        f"BF's longest queue is about 1,000 jobs ({workload})",
        "≈ 1,000 (sec. 8)",
        [Part("BF", s, in_band(s, low, high))],
        'paper: "approximately 1,000", one significant figure',
        tol="±500",
        fmt=lambda x: f"{x:,.0f}",
        klass=klass,
    )


# -- sec. 6: speculation ----------------------------------------------------------------------------------
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
    every percentage (by at least "significantly"'s threshold)."""
    pairs = [(spec_label(base, p, True), spec_label(base, p, False)) for p in SPECULATION_PCTS]
    if not all(a in bsld and b in bsld for a, b in pairs):
        return None
    t = WORDS["significantly"]
    return _claim(
        f"{base}: test runs significantly improve speculative backfilling",
        "significant improvements (Figure 6)",
        [_below(bsld[a], bsld[b], f"{a} vs without", -t) for a, b in pairs],
        WORD_SOURCE,
        tol=f"< {pct(-t)}",
    )


def test_runs_favour_large_percentages(base: str, bsld: Metric) -> Claim | None:
    """Sec. 6.2: with test runs "the bounded slowdown slightly decreases with the higher
    speculation percentages" (75 % below 25 %, by less than "slightly"'s threshold), and test
    runs help "especially so for large speculation percentages"."""
    labels = [spec_label(base, p, t) for p in (25, 75) for t in (False, True)]
    if not all(k in bsld for k in labels):
        return None
    low_plain, low_test, high_plain, high_test = (bsld[k] for k in labels)

    def more_at_75(h_test, h_plain, l_test, l_plain):
        return (h_test / h_plain) - (l_test / l_plain)

    s = paired(more_at_75, high_test, high_plain, low_test, low_plain)
    return _claim(
        f"{base}: with test runs, larger percentages do slightly better, and test runs help them most",
        "75 % < 25 %; the gain larger at 75 %",
        [
            *_slightly_below(high_test, low_test, "with test runs, 75 % vs 25 %"),
            Part("test runs' change at 75 % - at 25 %", s, beyond(s, 0.0, below=True)),
        ],
        WORD_SOURCE,
        tol=f"75 % below 25 % by < {pct(WORDS['slightly'])}; gain larger",
    )


def spec_label(base: str, pct_: float, tests: bool) -> str:
    return f"{base} spec {pct_:g}%" + (" +test" if tests else "")


# -- sec. 7: adaptation -------------------------------------------------------------------------------------
def resizing_trades_response(label: str, bsld: Metric, wait: Metric, response: Metric) -> Claim | None:
    """Sec. 7.1: half and quarter size: "Improvements on bounded slowdown and delay are large,
    while the average response time is significantly increased" (each by at least the words'
    threshold, vs BF)."""
    if label not in bsld or "BF" not in bsld:
        return None
    t = WORDS["large"]
    return _claim(
        f"{label}: large falls in bounded slowdown and delay, response time significantly up",
        "bsld, delay down (large); response up (significantly)",
        [
            _below(bsld[label], bsld["BF"], "bounded slowdown vs BF", -t),
            _below(wait[label], wait["BF"], "delay vs BF", -t),
            _above(response[label], response["BF"], "response vs BF", WORDS["significantly"]),
        ],
        WORD_SOURCE,
        tol=f"< {pct(-t)}, < {pct(-t)}, > {pct(t)}",
    )


def greedy_only_matches_half(base: str, bsld: Metric) -> Claim | None:
    """Sec. 7.1: "Overall best greedy algorithm (one with quarter-size instead of double-size
    alternative ...) only matches the bounded slowdowns of half-size alternative applied
    always, and is still slightly worse than when quarter-size job alternative is applied
    always" (ours without the unstated "restrictions for long jobs")."""
    greedy, half, quarter = f"{base} greedy quarter", f"{base} half", f"{base} quarter"
    if not all(k in bsld for k in (greedy, half, quarter)):
        return None
    t = WORDS["only matches"]
    return _claim(
        f"{base}: the best greedy adaptation only matches half size, slightly worse than quarter",
        "greedy ≈ half; greedy > quarter (slightly)",
        [
            _within(bsld[greedy], bsld[half], "greedy (quarter) vs half", -t, t),
            *_slightly_above(bsld[greedy], bsld[quarter], "greedy (quarter) vs quarter"),
        ],
        WORD_SOURCE + '; our greedy lacks the paper\'s unstated "restrictions for long jobs"',
        tol=f"vs half within ±{pct(t)[1:]}; above quarter by < {pct(t)}",
    )


def widening_helps(bsld: Metric) -> Claim | None:
    """Sec. 7.1: "As compared with half-sized applications, start time widening gives
    significant improvements" (BF half + widening below BF half by at least the threshold)."""
    if "BF half+widen" not in bsld or "BF half" not in bsld:
        return None
    t = WORDS["significantly"]
    return _claim(
        "start-time widening significantly improves half size",
        "significant improvements",
        [_below(bsld["BF half+widen"], bsld["BF half"], "BF half+widen vs BF half", -t)],
        WORD_SOURCE,
        tol=f"< {pct(-t)}",
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
    the bounded slowdown of conservative backfilling" (the best combination's; "around" a figure
    rounded to fives: ±2.5 points)."""
    best = _best(bsld, combined)
    if best is None or "BF" not in bsld:
        return None
    s = paired(lambda a, b: a / b, bsld[best], bsld["BF"])
    low, high = PAPER_COMBINED_BSLD - AROUND_FIVES, PAPER_COMBINED_BSLD + AROUND_FIVES
    return _claim(
        "combined techniques reach around 15 % of BF's bounded slowdown",
        "around 15 %",
        [Part(f"{best} / BF", s, in_band(s, low, high))],
        'paper: "around 15%", a figure rounded to fives (±2.5 points)',
        tol="±2.5 points",
        fmt=lambda x: f"{100 * x:.0f} %",
    )


def rlng_delay_near_paper(wait: Metric, combined: Sequence[str]) -> Claim | None:
    """Sec. 7: "The average delay for R/L-NG algorithm decreases to 21% of the delay for
    conservative backfilling" (its best combination's, a whole percent)."""
    best = _best(wait, [k for k in combined if k.startswith("R/L-NG")])
    if best is None or "BF" not in wait:
        return None
    s = paired(lambda a, b: a / b, wait[best], wait["BF"])
    return _claim(
        "R/L-NG's delay in combination falls to 21 % of BF's",
        "21 %",
        [Part(f"{best} / BF", s, in_band(s, PAPER_RLNG_DELAY - WHOLE_PERCENT, PAPER_RLNG_DELAY + WHOLE_PERCENT))],
        PRECISION_SOURCE,
        tol="±0.5 points",
        fmt=lambda x: f"{100 * x:.0f} %",
    )


#: The readings study: the gains it compares, "LABEL METRIC" -> the paper's relative change vs
#: BF (sec. 5), and the smallest change of a gain that counts as a move (1 percentage point).
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


# -- the workload (Tables 1 and 2) ----------------------------------------------------------------------
#: Table 1 and Table 2's numbers about the workload: key of :func:`.workloads.workload_stats` ->
#: (label, the paper's value, its precision, format).
PAPER_WORKLOAD: dict[str, tuple[str, float, float, Callable[[float], str]]] = {
    "jobs": ("jobs", 79302, 0.5, lambda x: f"{x:,.0f}"),
    "width_mean": ("average width", 11, 0.5, lambda x: f"{x:.1f}"),
    "width_median": ("median width", 2, 0.5, lambda x: f"{x:g}"),
    "runtime_mean_s": ("average running time (s)", 10984, 0.5, lambda x: f"{x:,.0f}"),
    "estimate_mean_s": ("average estimate (s)", 24324, 0.5, lambda x: f"{x:,.0f}"),
    "estimate_median_s": ("median estimate (s)", 10800, 0.5, lambda x: f"{x:,.0f}"),
    "overestimate_mean": ("average overestimation factor", 176, 0.5, lambda x: f"{x:.1f}"),
    "overestimate_median": ("median overestimation factor", 3.90, 0.005, lambda x: f"{x:.2f}"),
    "zero_runtime_jobs": ("jobs with zero runtime simulated", 134, 0.5, lambda x: f"{x:,.0f}"),
}
#: How the paper prints each of them (Tables 1 and 2).
PAPER_PRINTED = {
    "jobs": "79,302",
    "width_mean": "11",
    "width_median": "2",
    "runtime_mean_s": "10,984",
    "estimate_mean_s": "24,324",
    "estimate_median_s": "10,800",
    "overestimate_mean": "176",
    "overestimate_median": "3.90",
    "zero_runtime_jobs": "134",
}


def workload_fact(key: str, value: Series, workload: str, source: str = "") -> Claim | None:
    """One number of Tables 1 and 2 against ours (class *workload*: a fact about the workload,
    not a scheduler's), within the paper's printed precision."""
    if value is None:
        return None
    label, target, precision, fmt = PAPER_WORKLOAD[key]
    s = paired(lambda x: x, value)
    table = "Table 2" if key == "zero_runtime_jobs" else "Table 1"
    return Claim(
        f"{label} ({workload})",
        f"{PAPER_PRINTED[key]} ({table})",
        s,
        f"±{precision:g}",
        source or f"paper: {table}, printed to ±{precision:g}",
        WORKLOAD,
        in_band(s, target - precision, target + precision),
        fmt=fmt,
    )
