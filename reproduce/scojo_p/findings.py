"""Barsanti & Sodan's numbers and claims (sec. 5.3, issue 11 sec. 7), each a small pure function.

A *summary* is what :func:`adaptsched.analysis.scojo.scojo_metrics` gives for a run, averaged
over seeds: ``{"utilization": u, "classes": {"short"|"medium"|"long"|"all": {"response_mean_s",
"wait_mean_s", "bsld_mean", "shrunk", "expanded", "n_opt_mean", ...}}}``. Variants are named
``trad``, ``scojo-p``, ``non-pred`` and ``cb``. A claim with a missing number does not hold
and says so.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from adaptsched.reproduce.common import Finding, pct, relative

Summary = Mapping[str, object]

#: The paper's figures (W1, 100% moldable, mean of 4 seeds).
PAPER = {
    "scojo_vs_trad": -0.70,
    "cb_vs_trad": -0.30,
    "scojo_vs_cb": -0.59,
    "response_ratio": {"short": 1 / 3, "medium": 1 / 3, "long": 1 / 2},
    "wait_ratio": {"short": 1 / 3, "medium": 1 / 3, "long": 1 / 4},
    "utilization": {"cb": 0.8969, "scojo-p": 0.786},
    "w2_long_vs_cb": {"wait": -0.67, "response": -0.48},
    "n_opt_mean": {"scojo-p": 12.0, "downey": 69.0},
}


def value(summary: Summary | None, klass: str, key: str) -> float:
    """summary["classes"][klass][key], NaN when missing."""
    try:
        x = summary["classes"][klass][key]  # type: ignore[index]
        return float(x)
    except (KeyError, TypeError, ValueError):
        return math.nan


def utilization_of(results: Mapping[str, Summary] | None, name: str) -> float:
    """results[name]["utilization"], NaN when missing."""
    try:
        return float(results[name]["utilization"])  # type: ignore[index,arg-type]
    except (KeyError, TypeError, ValueError):
        return math.nan


def response(summary: Summary | None, klass: str = "all") -> float:
    return value(summary, klass, "response_mean_s")


def _ok(x: float) -> bool:
    return math.isfinite(x)


def response_vs_traditional(results: Mapping[str, Summary], points: float = 0.15) -> Finding:
    """Mean response vs traditional: SCOJO-P -70 %, Cirne-Berman -30 %, each within ±15 points."""
    trad = response(results.get("trad"))
    s = relative(response(results.get("scojo-p")), trad)
    c = relative(response(results.get("cb")), trad)
    holds = _ok(s) and _ok(c) and abs(s - PAPER["scojo_vs_trad"]) <= points and abs(c - PAPER["cb_vs_trad"]) <= points
    return Finding(
        "mean response vs traditional: SCOJO-P -70 %, CB -30 % (±15 points)",
        holds,
        f"SCOJO-P {pct(s)}, CB {pct(c)}",
    )


def scojo_vs_cirne_berman(results: Mapping[str, Summary]) -> Finding:
    """Mean response, SCOJO-P vs Cirne-Berman: -59 % (pass if -40 to -75 %)."""
    r = relative(response(results.get("scojo-p")), response(results.get("cb")))
    return Finding("mean response SCOJO-P vs CB: -59 % (-40 to -75 %)", _ok(r) and -0.75 <= r <= -0.40, pct(r))


def _ratios(results: Mapping[str, Summary], key: str, paper: Mapping[str, float], what: str) -> Finding:
    parts, holds = [], True
    for klass, target in paper.items():
        r = value(results.get("scojo-p"), klass, key) / value(results.get("cb"), klass, key)
        if not (_ok(r) and r > 0):
            holds = False
            parts.append(f"{klass} -")
            continue
        holds &= target / 1.5 <= r <= target * 1.5
        parts.append(f"{klass} {r:.2f} (paper {target:.2f})")
    return Finding(what, holds, ", ".join(parts))


def class_response_ratios(results: Mapping[str, Summary]) -> Finding:
    """Fig. 5: response SCOJO-P / CB about 1/3 for short and medium jobs, 1/2 for long ones (×/÷ 1.5)."""
    return _ratios(
        results, "response_mean_s", PAPER["response_ratio"], "response SCOJO-P/CB: short, medium 1/3, long 1/2 (×/÷1.5)"
    )


def class_wait_ratios(results: Mapping[str, Summary]) -> Finding:
    """Fig. 6: wait SCOJO-P / CB about 1/3 for short and medium jobs, 1/4 for long ones (×/÷ 1.5)."""
    return _ratios(results, "wait_mean_s", PAPER["wait_ratio"], "wait SCOJO-P/CB: short, medium 1/3, long 1/4 (×/÷1.5)")


def utilization(results: Mapping[str, Summary], points: float = 0.08) -> Finding:
    """Sec. 5.3: CB's utilization (89.69 %) above SCOJO-P's (78.6 %), each within ±8 points."""

    cb, sp = utilization_of(results, "cb"), utilization_of(results, "scojo-p")
    paper = PAPER["utilization"]
    holds = _ok(cb) and _ok(sp) and cb > sp and abs(cb - paper["cb"]) <= points and abs(sp - paper["scojo-p"]) <= points
    return Finding(
        "utilization: CB 89.69 % > SCOJO-P 78.6 % (each ±8 points)",
        holds,
        f"CB {100 * cb:.1f} %, SCOJO-P {100 * sp:.1f} %",
    )


def non_predictive_a_little_worse(results: Mapping[str, Summary], limit: float = 0.15) -> Finding:
    """Sec. 5.3: non-predictive SCOJO-P "only a little worse": mean response at most +15 %."""
    r = relative(response(results.get("non-pred")), response(results.get("scojo-p")))
    return Finding("non-predictive only a little worse (<= +15 % mean response)", _ok(r) and r <= limit, pct(r))


def adaptations(results: Mapping[str, Summary], workload: str = "W1") -> Finding:
    """Figs 8, 13: SCOJO-P mostly shrinks jobs, Cirne-Berman mostly expands them."""
    s_shrunk, s_expanded = (
        value(results.get("scojo-p"), "all", "shrunk"),
        value(results.get("scojo-p"), "all", "expanded"),
    )
    c_shrunk, c_expanded = value(results.get("cb"), "all", "shrunk"), value(results.get("cb"), "all", "expanded")
    numbers = [s_shrunk, s_expanded, c_shrunk, c_expanded]
    holds = all(map(_ok, numbers)) and s_shrunk > s_expanded and c_expanded > c_shrunk
    return Finding(
        f"{workload}: SCOJO-P mostly shrinks, CB mostly expands",
        holds,
        f"SCOJO-P {s_shrunk:.0f} shrunk / {s_expanded:.0f} expanded; CB {c_shrunk:.0f} / {c_expanded:.0f}",
    )


def fraction_effect(full: Mapping[str, Summary], partial: Mapping[str, Summary], fraction: float = 0.8) -> Finding:
    """Sec. 5.3: with 80 % moldable jobs SCOJO-P does 4 % better and CB 5 % worse than with 100 %
    (signs only)."""
    s = relative(response(partial.get("scojo-p")), response(full.get("scojo-p")))
    c = relative(response(partial.get("cb")), response(full.get("cb")))
    return Finding(
        f"f = {fraction:g} vs 1: SCOJO-P better (paper -4 %), CB worse (paper +5 %)",
        _ok(s) and _ok(c) and s < 0 < c,
        f"SCOJO-P {pct(s)}, CB {pct(c)}",
    )


def w2_long_jobs(results: Mapping[str, Summary], points: float = 0.20) -> Finding:
    """Sec. 5.3, W2: long jobs under SCOJO-P vs CB, wait -67 % and response -48 % (±20 points)."""
    w = relative(value(results.get("scojo-p"), "long", "wait_mean_s"), value(results.get("cb"), "long", "wait_mean_s"))
    r = relative(response(results.get("scojo-p"), "long"), response(results.get("cb"), "long"))
    paper = PAPER["w2_long_vs_cb"]
    holds = _ok(w) and _ok(r) and abs(w - paper["wait"]) <= points and abs(r - paper["response"]) <= points
    return Finding(
        "W2 long jobs vs CB: wait -67 %, response -48 % (±20 points)", holds, f"wait {pct(w)}, response {pct(r)}"
    )


def best_ideal_load(responses: Mapping[float, float], paper_best: float = 0.9, within: float = 0.05) -> Finding:
    """Sec. 5.2: the ideal load 0.9 performs best: its mean response within 5 % of the best one."""
    known = {k: v for k, v in responses.items() if _ok(v)}
    if paper_best not in known:
        return Finding("ideal load 0.9 is best (within 5 %)", False, "no run at 0.9")
    best = min(known, key=known.__getitem__)
    r = relative(known[paper_best], known[best])
    return Finding(
        "ideal load 0.9 is best (within 5 %)",
        r <= within,
        ", ".join(f"{k:g}: {v / 3600:.2f} h" for k, v in sorted(known.items())) + f"; best {best:g}",
    )


def downey_variant(results: Mapping[str, Summary], main: Mapping[str, Summary]) -> Finding:
    """Fig. 14: with the Cirne-Berman-Downey model SCOJO-P is still (slightly) better than CB,
    non-predictive beats predictive, and N_opt is far larger than with the simple model (69 vs 12)."""
    sp, cb, npred = response(results.get("scojo-p")), response(results.get("cb")), response(results.get("non-pred"))
    n_downey = value(results.get("scojo-p"), "all", "n_opt_mean")
    n_simple = value(main.get("scojo-p"), "all", "n_opt_mean")
    holds = all(map(_ok, (sp, cb, npred, n_downey, n_simple))) and sp < cb and npred < sp and n_downey > n_simple
    return Finding(
        "Fig. 14 (Downey model): SCOJO-P < CB, non-pred < pred, N_opt far above the simple model's",
        holds,
        f"response SCOJO-P {sp / 3600:.2f} h, CB {cb / 3600:.2f} h, non-pred {npred / 3600:.2f} h; "
        f"mean N_opt {n_downey:.0f} (paper 69) vs {n_simple:.1f} (paper 12)",
    )


# -- why a claim does not hold: one sentence or two from our own numbers --------------------
def _util(results: Mapping[str, Summary] | None, name: str) -> str:
    u = utilization_of(results, name)
    return f"{100 * u:.1f} %" if _ok(u) else "-"


def load_hint(w1: Mapping[str, Summary], w2: Mapping[str, Summary]) -> str:
    """Whether the paper's W1 utilizations are nearer our W1's or our heavier W2's."""

    def distance(results: Mapping[str, Summary]) -> float:  # NaN when one is missing
        return sum(abs(utilization_of(results, n) - PAPER["utilization"][n]) for n in ("cb", "scojo-p"))

    d1, d2 = distance(w1), distance(w2)
    ours = (
        f"our W2's (CB {_util(w2, 'cb')}, SCOJO-P {_util(w2, 'scojo-p')}) more than our W1's "
        f"(CB {_util(w1, 'cb')}, SCOJO-P {_util(w1, 'scojo-p')})"
    )
    if not (d2 < d1):  # NaN too
        return "the paper's W1 utilizations (CB 89.7 %, SCOJO-P 78.6 %) are nearer our W1's than our W2's"
    return (
        f"the paper's W1 utilizations (CB 89.7 %, SCOJO-P 78.6 %) are near {ours}: a hint that the paper's W1 "
        "carried more load than ours (the same alpha' 10.23, but neither the generator nor the seeds are "
        "the authors')"
    )


def why_response_vs_traditional(w1: Mapping[str, Summary], w2: Mapping[str, Summary]) -> str:
    def gain(results: Mapping[str, Summary], name: str) -> float:
        return relative(response(results.get(name)), response(results.get("trad")))

    g1, g2 = gain(w1, "scojo-p"), gain(w2, "scojo-p")
    trend = "the gain grows with the load" if g2 < g1 else "the gain does not grow with the load"
    shrunk, expanded = value(w1.get("cb"), "all", "shrunk"), value(w1.get("cb"), "all", "expanded")
    return (
        f"SCOJO-P: {pct(g1)} on W1 and {pct(g2)} on W2 ({trend}); {load_hint(w1, w2)}. Cirne-Berman: "
        f"{pct(gain(w1, 'cb'))} on W1, {pct(gain(w2, 'cb'))} on W2; on W1 it expands {expanded:.0f} jobs and "
        f"shrinks {shrunk:.0f}, and its utilization is {_util(w1, 'cb')} against traditional's "
        f"{_util(w1, 'trad')}: behind the backlog an expansion costs the job no wait and the others its extra "
        "host time (the Cirne-Berman reading below)."
    )


def why_utilization(w1: Mapping[str, Summary], w2: Mapping[str, Summary]) -> str:
    shrunk, expanded = value(w1.get("scojo-p"), "all", "shrunk"), value(w1.get("scojo-p"), "all", "expanded")
    return (
        f"CB {_util(w1, 'cb')}, SCOJO-P {_util(w1, 'scojo-p')}, traditional {_util(w1, 'trad')} (the offered "
        f"load at N_opt). SCOJO-P shrinks {shrunk:.0f} jobs and expands {expanded:.0f}; a shrunk job needs less "
        "host time (efficiency 0.8 at N_min, 0.65 at N_opt), an expanded one more (0.4 at N_max). On the "
        f"levels, {load_hint(w1, w2)}."
    )


def why_w2_long_jobs(w2: Mapping[str, Summary]) -> str:
    c = relative(response(w2.get("cb")), response(w2.get("trad")))
    return (
        f"On W2 our Cirne-Berman's mean response is {pct(c)} against traditional's (the paper: better than "
        "traditional), which moves SCOJO-P's difference to it away from the paper's."
    )


def why_fraction_effect(full: Mapping[str, Summary], partial: Mapping[str, Summary]) -> str:
    s = relative(response(partial.get("scojo-p")), response(full.get("scojo-p")))
    c = relative(response(partial.get("cb")), response(full.get("cb")))
    return (
        f"With 80 % moldable jobs SCOJO-P is {pct(s)} and Cirne-Berman {pct(c)} against 100 %. Fewer moldable "
        "jobs mean fewer adaptations of each scheduler's kind: where shrinking gains (SCOJO-P) that loses some "
        "gain, where expanding costs (our Cirne-Berman, above) that saves some loss. The paper reads its own "
        'SCOJO-P result as shrinking "a little too aggressive".'
    )


def why_downey_variant(downey: Mapping[str, Summary]) -> str:
    sp, cb, npred = response(downey.get("scojo-p")), response(downey.get("cb")), response(downey.get("non-pred"))
    shrunk, expanded = value(downey.get("cb"), "all", "shrunk"), value(downey.get("cb"), "all", "expanded")
    seeds = downey.get("scojo-p", {}).get("seeds", "?")  # type: ignore[union-attr]
    return (
        f"SCOJO-P vs CB {pct(relative(sp, cb))}, non-predictive vs predictive {pct(relative(npred, sp))} "
        f"(means of {seeds} seeds). With Downey's model Cirne-Berman shrinks {shrunk:.0f} jobs and expands "
        f"{expanded:.0f} (on the simple model it mostly expands)."
    )
