"""Perković & Keleher's numbers and claims, each claim a small pure function.

The paper's numbers come from its text (the figures' bars are not in the seed): sec. 5 gives
the order comparisons relative to BF and to 1/L, Table 2 the shape-group sizes, Table 3 the
guaranteed/actual delay ratios, sec. 7 the combined result (bounded slowdown about 15 % of
BF's, R/L-NG delay 21 % of BF's). The rest of the paper's findings are qualitative and are
checked as such.

Every function takes plain numbers: ``bsld``, ``wait`` map a mix's label (``BF``, ``R/L-NG``,
``BF spec 25%``...) to its mean bounded slowdown or delay over its runs; a label absent from
the mapping was not run. Each returns a :class:`~adaptsched.reproduce.common.Finding` (or
None when the runs needed are absent).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from adaptsched.reproduce.common import NAN, Finding, pct, relative, share

#: Relative change vs BF stated in sec. 5: (bounded slowdown, delay).
PAPER_VS_BF = {"P/L-NG": (-0.57, -0.38), "R/L-NG": (-0.77, -0.65)}
#: Relative change vs 1/L (shortest-first with guarantees), sec. 5.
PAPER_VS_SF = {"P/L-NG": (-0.35, -0.28), "R/L-NG": (-0.65, -0.59)}
PAPER_TABLE2 = {"SN": 14486, "SW": 25702, "LN": 25526, "LW": 13588}
PAPER_TABLE3 = {"mean": 16.33, "median": 3.89, "p15": 1.67, "p85": 14.83}
PAPER_COMBINED_BSLD = 0.15  # "around 15% of the bounded slowdown of conservative backfilling"
PAPER_RLNG_DELAY = 0.21  # "average delay for R/L-NG decreases to 21% of ... conservative backfilling"
PAPER_IMMEDIATE = 0.61  # share of jobs that start immediately under BF (sec. 5)

#: How close counts as "about": the combined bounded slowdown at most this share of BF's,
#: R/L-NG's combined delay at most this share, shortest-first at least this much better.
COMBINED_BSLD_AT_MOST = 0.25
RLNG_DELAY_AT_MOST = 0.35
SHORTEST_FIRST_GAIN = -0.2

ORDERS = ("P", "R", "1/L", "P/L", "R/L")
GROUPS = ("SN", "SW", "LN", "LW")
SPECULATION_PCTS = (25, 50, 75)


def ng_improves_every_order(bsld: Mapping[str, float]) -> Finding:
    """Sec. 5: dropping guarantees (-NG) lowers bounded slowdown for every order but D."""
    pairs = [c for c in ORDERS if c in bsld and c + "-NG" in bsld]
    better = [c for c in pairs if bsld[c + "-NG"] < bsld[c]]
    return Finding(
        "-NG improves bounded slowdown for every order but arrival order",
        len(better) == len(pairs),
        f"{len(better)} of {len(pairs)} orders improve: "
        + ", ".join(f"{c} {bsld[c]:.2f} → {bsld[c + '-NG']:.2f}" for c in pairs),
    )


def randomized_beats_priority(bsld: Mapping[str, float]) -> Finding | None:
    """Sec. 5: R beats P, with guarantees and without."""
    if "R" not in bsld or "P" not in bsld:
        return None
    holds = bsld["R"] < bsld["P"] and ("R-NG" not in bsld or bsld["R-NG"] < bsld.get("P-NG", NAN))
    numbers = f"R {bsld['R']:.2f} vs P {bsld['P']:.2f}"
    if "R-NG" in bsld:
        numbers += f"; R-NG {bsld['R-NG']:.2f} vs P-NG {bsld.get('P-NG', NAN):.2f}"
    return Finding("randomized beats priority, with or without guarantees", holds, numbers)


def shortest_first_helps(bsld: Mapping[str, float]) -> Finding | None:
    """Sec. 5: shortest-first (1/L) significantly decreases bounded slowdown against BF."""
    if "1/L" not in bsld:
        return None
    change = relative(bsld["1/L"], bsld.get("BF"))
    return Finding(
        "shortest-first significantly decreases bounded slowdown",
        change < SHORTEST_FIRST_GAIN,
        f"1/L {pct(change)} vs BF",
    )


def rlng_improves_every_group(groups: Mapping[str, Mapping[str, float]]) -> Finding | None:
    """Figure 4: R/L-NG lowers the bounded slowdown of every shape group against BF.
    ``groups``: label -> shape group (SN, SW, LN, LW) -> mean bounded slowdown."""
    if "BF" not in groups:
        return None
    improved = [g for g in GROUPS if "R/L-NG" in groups and groups["R/L-NG"][g] < groups["BF"][g]]
    return Finding(
        "R/L-NG improves every shape group over BF",
        len(improved) == len(GROUPS),
        "improved: " + (", ".join(improved) or "none"),
    )


def speculation_helps(base: str, plain: float, no_tests: Sequence[float]) -> Finding:
    """Sec. 6: speculative backfilling (at 25, 50, 75 %) lowers bounded slowdown."""
    return Finding(
        f"{base}: speculation improves bounded slowdown",
        max(no_tests) < plain,
        f"{plain:.2f} → " + ", ".join(f"{v:.2f}" for v in no_tests),
    )


def smaller_percentages_do_better(base: str, no_tests: Sequence[float]) -> Finding:
    """Sec. 6: without test runs, speculating at a smaller share of the estimate does better."""
    return Finding(
        f"{base}: smaller speculation percentages do better without test runs",
        no_tests[0] <= no_tests[-1],
        ", ".join(f"{v:.2f}" for v in no_tests),
    )


def speculative_test_runs_help(base: str, no_tests: Sequence[float], with_tests: Sequence[float]) -> Finding:
    """Sec. 6: speculative test runs improve speculative backfilling at every percentage."""
    return Finding(
        f"{base}: test runs improve speculative backfilling",
        all(a < b for a, b in zip(with_tests, no_tests)),
        ", ".join(f"{b:.2f} → {a:.2f}" for a, b in zip(with_tests, no_tests)),
    )


def resizing_trades_response(label: str, bsld_vs_bf: float, wait_vs_bf: float, response_vs_bf: float) -> Finding:
    """Sec. 7: half and quarter size lower bounded slowdown and delay but raise the response
    time (arguments: relative changes against BF)."""
    return Finding(
        f"{label}: bounded slowdown and delay fall, response time rises",
        bsld_vs_bf < 0 and wait_vs_bf < 0 and response_vs_bf > 0,
        f"bsld {pct(bsld_vs_bf)}, delay {pct(wait_vs_bf)}, response {pct(response_vs_bf)}",
    )


def combined_near_paper(bsld: Mapping[str, float], bf: float) -> Finding | None:
    """Sec. 7: the best combination reaches about 15 % of BF's bounded slowdown.
    ``bsld``: the combined mixes only."""
    if not bsld:
        return None
    best = min(bsld, key=bsld.__getitem__)
    return Finding(
        "combined techniques reach about 15 % of BF's bounded slowdown",
        bsld[best] / bf <= COMBINED_BSLD_AT_MOST,
        f"best: {best} at {share(bsld[best] / bf)}",
    )


def rlng_delay_near_paper(wait: Mapping[str, float], bf: float) -> Finding | None:
    """Sec. 7: R/L-NG's delay in combination falls to about 21 % of BF's.
    ``wait``: the combined R/L-NG mixes only."""
    if not wait:
        return None
    best = min(wait, key=wait.__getitem__)
    return Finding(
        "R/L-NG's delay falls to about 21 % of BF's",
        wait[best] / bf <= RLNG_DELAY_AT_MOST,
        f"{best}: {share(wait[best] / bf)}",
    )


#: The readings study (issue 15): the gains it compares, "LABEL METRIC" -> the paper's
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
