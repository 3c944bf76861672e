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

    def u(name: str) -> float:
        try:
            return float(results[name]["utilization"])  # type: ignore[arg-type]
        except (KeyError, TypeError, ValueError):
            return math.nan

    cb, sp = u("cb"), u("scojo-p")
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
