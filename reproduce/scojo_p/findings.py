"""Barsanti & Sodan's claims (sec. 5.2-5.3, 6), each a small pure function, on intervals.

Each claim is a :class:`~adaptsched.reproduce.common.Claim` decided on our per-seed numbers,
paired on one workload: ``results`` maps a variant (``trad``, ``scojo-p``, ``non-pred``,
``cb``, ``cb-idle``) to {seed: the summary :func:`adaptsched.analysis.scojo.scojo_metrics`
gives for that seed's run}. A ratio claim takes the ratio seed by seed, then its mean and
95 % interval (:func:`~adaptsched.reproduce.common.per_seed`).

Classes: the claims on SCOJO-P against Cirne-Berman (the -59 %, the
per-class ratios, W2's long jobs) *depend on* Cirne-Berman against traditional: ours is
worse than traditional, the paper's 30 % better, so their agreement says nothing on its
own. Fig. 14's mean N_opt depends on A_max, calibrated on it. ``cb`` names the Cirne-Berman
variant: the same claims are put to ``cb-idle`` (ours) in a table of their own, not counted.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from adaptsched.reproduce.common import (
    INDEPENDENT,
    Claim,
    Part,
    Sample,
    beyond,
    decide,
    depends_on,
    difference,
    in_band,
    num,
    pct,
    pct1,
    per_seed,
    ratio_minus_one,
    relative,
)

Summary = Mapping[str, object]
Results = Mapping[str, Mapping[int, Summary]]  # variant -> seed -> summary

#: The paper's figures (W1, 100 % moldable, mean of 4 seeds; sec. 5.3 and 6).
PAPER: dict[str, Any] = {
    "scojo_vs_trad": -0.70,
    "cb_vs_trad": -0.30,
    "scojo_vs_cb": -0.59,
    "response_ratio": {"short": 1 / 3, "medium": 1 / 3, "long": 1 / 2},
    "wait_ratio": {"short": 1 / 3, "medium": 1 / 3, "long": 1 / 4},
    "utilization": {"cb": 0.8969, "scojo-p": 0.786},
    "w2_long_vs_cb": {"wait": -0.67, "response": -0.48},
    "n_opt_mean": {"scojo-p": 12.0, "downey": 69.0},
}
OURS = "ours: the paper gives one mean of 4 seeds, no spread, and its workloads are not ours"
NEEDS_CB = depends_on("claim 2, Cirne-Berman vs traditional (SCOJO-P vs CB is claims 1 and 2 combined)")
NEEDS_CB_W2 = depends_on("Cirne-Berman vs traditional on W2 (claim 2's, on W2)")
IDLE = depends_on("expand=idle: ours, not the paper's Cirne-Berman")
CLASSES = ("short", "medium", "long")


def value(summary: Summary | None, klass: str, key: str) -> float:
    """summary["classes"][klass][key], NaN when missing."""
    try:
        return float(summary["classes"][klass][key])  # type: ignore[index]
    except (KeyError, TypeError, ValueError):
        return math.nan


def utilization_of(summary: Summary | None) -> float:
    try:
        return float(summary["utilization"])  # type: ignore[index,arg-type]
    except (KeyError, TypeError, ValueError):
        return math.nan


def series(results: Results, variant: str, fn: Callable[[Summary], float]) -> dict[int, float] | None:
    """{seed: fn(summary)} of a variant, None when it has no run."""
    runs = results.get(variant)
    if not runs:
        return None
    return {seed: fn(s) for seed, s in runs.items()}


def metric(results: Results, variant: str, key: str = "response_mean_s", klass: str = "all") -> dict[int, float] | None:
    return series(results, variant, lambda s: value(s, klass, key))


def _band(sample: Sample, target: float, points: float) -> Part:
    return Part("", sample, in_band(sample, target - points, target + points))


def _relative(a: dict[int, float] | None, b: dict[int, float] | None, note: str = "") -> Sample:
    return per_seed(ratio_minus_one, a, b, note=note)


def _ratio(a: dict[int, float] | None, b: dict[int, float] | None, note: str = "") -> Sample:
    return per_seed(lambda x, y: x / y if y else math.nan, a, b, note=note)


def _one(claim: str, paper: str, sample: Sample, verdict: str, tolerance: str, source: str, klass: str, fmt) -> Claim:
    return Claim(claim, paper, sample, tolerance, source, klass, verdict, fmt=fmt)


def _parts(claim: str, paper: str, parts: Sequence[Part], tolerance: str, source: str, klass: str, fmt) -> Claim:
    verdict, sample, details = decide(parts, fmt)
    return Claim(claim, paper, sample, tolerance, source, klass, verdict, fmt=fmt, details=details)


# -- W1, 100 % moldable (Figs 5-8) -----------------------------------------------------------
def versus_traditional(results: Results, variant: str, paper: float, klass: str, points: float = 0.15) -> Claim:
    """Mean response of ``variant`` against traditional's, seed by seed, within ±15 points."""
    sample = _relative(metric(results, variant), metric(results, "trad"))
    name = {"scojo-p": "SCOJO-P", "cb": "Cirne-Berman", "cb-idle": "Cirne-Berman, expand=idle"}.get(variant, variant)
    return _one(
        f"mean response, {name} vs traditional",
        f"{100 * paper:+.0f} %",
        sample,
        in_band(sample, paper - points, paper + points),
        f"±{100 * points:.0f} points",
        OURS,
        klass,
        pct1,
    )


def scojo_vs_traditional(results: Results) -> Claim:
    """Sec. 6: SCOJO-P improves response times by 70 % vs traditional scheduling."""
    return versus_traditional(results, "scojo-p", PAPER["scojo_vs_trad"], INDEPENDENT)


def cb_vs_traditional(results: Results, cb: str = "cb") -> Claim:
    """Sec. 6: Cirne-Berman improves traditional scheduling by about 30 %."""
    return versus_traditional(results, cb, PAPER["cb_vs_trad"], INDEPENDENT if cb == "cb" else IDLE)


def scojo_vs_cirne_berman(results: Results, cb: str = "cb") -> Claim:
    """Sec. 6: SCOJO-P about 59 % better than Cirne-Berman (pass if -40 to -75 %)."""
    sample = _relative(metric(results, "scojo-p"), metric(results, cb))
    return _one(
        "mean response, SCOJO-P vs Cirne-Berman" + ("" if cb == "cb" else ", expand=idle"),
        "-59 %",
        sample,
        in_band(sample, -0.75, -0.40),
        "-40 to -75 %",
        OURS,
        NEEDS_CB if cb == "cb" else IDLE,
        pct1,
    )


def _class_ratios(results: Results, key: str, paper: Mapping[str, float], claim: str, cb: str) -> Claim:
    parts = []
    for klass, target in paper.items():
        sample = _ratio(metric(results, "scojo-p", key, klass), metric(results, cb, key, klass))
        parts.append(Part(klass, sample, in_band(sample, target / 1.5, target * 1.5)))
    paper_text = ", ".join(f"{k} {v:.2f}" for k, v in paper.items())
    return _parts(claim, paper_text, parts, "×/÷ 1.5", OURS, NEEDS_CB if cb == "cb" else IDLE, num(3))


def class_response_ratios(results: Results, cb: str = "cb") -> Claim:
    """Fig. 5: response SCOJO-P / CB about 1/3 for short and medium jobs, 1/2 for long ones."""
    return _class_ratios(results, "response_mean_s", PAPER["response_ratio"], "response SCOJO-P / CB per class", cb)


def class_wait_ratios(results: Results, cb: str = "cb") -> Claim:
    """Fig. 6: wait SCOJO-P / CB about 1/3 for short and medium jobs, 1/4 for long ones."""
    return _class_ratios(results, "wait_mean_s", PAPER["wait_ratio"], "wait SCOJO-P / CB per class", cb)


def utilization(results: Results, cb: str = "cb", points: float = 0.08) -> Claim:
    """Sec. 5.3: CB's utilization (89.69 %) above SCOJO-P's (78.6 %), each within ±8 points."""
    u_cb, u_sp = series(results, cb, utilization_of), series(results, "scojo-p", utilization_of)
    above = per_seed(difference, u_cb, u_sp)
    parts = [Part("CB above SCOJO-P (difference)", above, beyond(above, 0.0, below=False))]
    for label, s, target in (
        ("CB", u_cb, PAPER["utilization"]["cb"]),
        ("SCOJO-P", u_sp, PAPER["utilization"]["scojo-p"]),
    ):
        sample = per_seed(lambda x: x, s)
        parts.append(Part(label, sample, in_band(sample, target - points, target + points)))
    return _parts(
        "utilization: CB above SCOJO-P, and their levels",
        "CB 89.69 % > SCOJO-P 78.6 %",
        parts,
        "order; levels ±8 points",
        OURS,
        INDEPENDENT if cb == "cb" else IDLE,
        num(3),
    )


def non_predictive_a_little_worse(results: Results, limit: float = 0.15) -> Claim:
    """Sec. 5.3: non-predictive SCOJO-P "only a little worse": mean response 0 to +15 %."""
    sample = _relative(metric(results, "non-pred"), metric(results, "scojo-p"))
    return _one(
        "non-predictive SCOJO-P only a little worse than predictive (mean response)",
        '"only a little worse"',
        sample,
        in_band(sample, 0.0, limit),
        "0 to +15 %",
        'ours: the paper\'s "a little"',
        INDEPENDENT,
        pct1,
    )


def adaptations(results: Results, workload: str = "W1") -> Claim:
    """Figs 8, 13: SCOJO-P shrinks more jobs than it expands, Cirne-Berman expands more."""
    sp = series(results, "scojo-p", lambda s: value(s, "all", "shrunk") - value(s, "all", "expanded"))
    cb = series(results, "cb", lambda s: value(s, "all", "expanded") - value(s, "all", "shrunk"))
    parts = []
    for label, s in (("SCOJO-P shrunk - expanded", sp), ("CB expanded - shrunk", cb)):
        sample = per_seed(lambda x: x, s)
        parts.append(Part(label, sample, beyond(sample, 0.0, below=False)))
    return _parts(
        f"{workload}: SCOJO-P mostly shrinks, Cirne-Berman mostly expands (jobs)",
        "Fig. 8" if workload == "W1" else "Fig. 13",
        parts,
        "direction",
        "paper: sec. 5.3, 'tends to shrink' / 'tends to expand'",
        INDEPENDENT,
        num(4),
    )


def w2_long_jobs(w2: Results, cb: str = "cb", points: float = 0.20) -> Claim:
    """Sec. 5.3, W2: long jobs under SCOJO-P vs CB, wait -67 % and response -48 % (±20 points)."""
    parts = []
    for label, key in (("wait", "wait_mean_s"), ("response", "response_mean_s")):
        sample = _relative(metric(w2, "scojo-p", key, "long"), metric(w2, cb, key, "long"))
        target = PAPER["w2_long_vs_cb"][label]
        parts.append(Part(label, sample, in_band(sample, target - points, target + points)))
    return _parts(
        "W2 long jobs, SCOJO-P vs Cirne-Berman" + ("" if cb == "cb" else ", expand=idle"),
        "wait -67 %, response -48 %",
        parts,
        "±20 points",
        OURS,
        NEEDS_CB_W2 if cb == "cb" else IDLE,
        pct1,
    )


def fraction_effect(full: Results, partial: Results) -> Claim:
    """Sec. 5.3: with 80 % moldable jobs SCOJO-P does 4 % better and CB 5 % worse than with 100 %
    (the signs, seed by seed on the same workloads)."""
    parts = []
    for label, variant, below in (("SCOJO-P", "scojo-p", True), ("CB", "cb", False)):
        sample = _relative(metric(partial, variant), metric(full, variant))
        parts.append(Part(label, sample, beyond(sample, 0.0, below=below)))
    return _parts(
        "80 % vs 100 % moldable: SCOJO-P better, Cirne-Berman worse (mean response)",
        "SCOJO-P -4 %, CB +5 %",
        parts,
        "signs",
        "paper: sec. 5.3 (signs only: 4 % and 5 % are within our seed noise)",
        INDEPENDENT,
        pct1,
    )


def best_ideal_load(responses: Mapping[float, Mapping[int, float]], paper_best: float = 0.9) -> Claim:
    """Sec. 5.2: the ideal load 0.9 "performed best": its mean response below every other
    setting's, seed by seed, by more than the seed noise (each paired interval below 0)."""
    best = responses.get(paper_best)
    parts = []
    for load, other in sorted(responses.items()):
        if load != paper_best:
            sample = _relative(dict(best) if best else None, dict(other), note=f"0.9 vs {load:g}")
            parts.append(Part(f"0.9 vs {load:g}", sample, beyond(sample, 0.0, below=True)))
    return _parts(
        "SCOJO-P's ideal load 0.9 performs best (mean response vs each other setting)",
        "0.9 best of those tried",
        parts,
        "paired interval below 0",
        "paper: sec. 5.2, 'the one that performed best'",
        INDEPENDENT,
        pct1,
    )


def downey_scojo_beats_cb(downey: Results) -> Claim:
    """Fig. 14: with the Cirne-Berman-Downey model SCOJO-P is still better than CB, slightly."""
    sample = _relative(metric(downey, "scojo-p"), metric(downey, "cb"))
    return _one(
        "Fig. 14 (Downey's model): SCOJO-P better than Cirne-Berman (mean response)",
        '"only slightly" better',
        sample,
        beyond(sample, 0.0, below=True),
        "direction",
        "paper: sec. 5.3",
        INDEPENDENT,
        pct1,
    )


def downey_non_predictive_better(downey: Results) -> Claim:
    """Fig. 14: with Downey's model non-predictive SCOJO-P beats predictive."""
    sample = _relative(metric(downey, "non-pred"), metric(downey, "scojo-p"))
    return _one(
        "Fig. 14 (Downey's model): non-predictive better than predictive (mean response)",
        "non-predictive better",
        sample,
        beyond(sample, 0.0, below=True),
        "direction",
        "paper: sec. 5.3",
        INDEPENDENT,
        pct1,
    )


def downey_n_opt(downey: Results, a_max: str = "3000") -> Claim:
    """Sec. 5.3: mean N_opt 69 with Downey's model; A_max was chosen to reach it."""
    sample = per_seed(lambda x: x, metric(downey, "scojo-p", "n_opt_mean"))
    return _one(
        "Fig. 14: mean N_opt with Downey's model",
        "69",
        sample,
        in_band(sample, 69 * 0.85, 69 * 1.15),
        "±15 %",
        "ours",
        depends_on(f"A_max {a_max}, calibrated on this mean"),
        num(3),
    )


def main_claims(w1: Results) -> list[Claim]:
    """The W1 claims, in the paper's order."""
    return [
        scojo_vs_traditional(w1),
        cb_vs_traditional(w1),
        scojo_vs_cirne_berman(w1),
        class_response_ratios(w1),
        class_wait_ratios(w1),
        utilization(w1),
        non_predictive_a_little_worse(w1),
        adaptations(w1, "W1"),
    ]


def idle_claims(w1: Results, w2: Results) -> list[Claim]:
    """The paper's Cirne-Berman claims put to expand=idle (ours): its own table, not counted."""
    claims = [
        cb_vs_traditional(w1, "cb-idle"),
        scojo_vs_cirne_berman(w1, "cb-idle"),
        class_response_ratios(w1, "cb-idle"),
        utilization(w1, "cb-idle"),
    ]
    if w2.get("cb-idle"):
        claims.append(w2_long_jobs(w2, "cb-idle"))
    return claims


# -- why a claim does not hold: one sentence or two from the seeds' mean summaries ------------
def mean_utilization(results: Mapping[str, Summary] | None, name: str) -> float:
    """results[name]["utilization"], NaN when missing."""
    return utilization_of(results.get(name) if results else None)


def response(summary: Summary | None, klass: str = "all") -> float:
    return value(summary, klass, "response_mean_s")


def _ok(x: float) -> bool:
    return math.isfinite(x)


def _util(results: Mapping[str, Summary] | None, name: str) -> str:
    u = mean_utilization(results, name)
    return f"{100 * u:.1f} %" if _ok(u) else "-"


def load_hint(w1: Mapping[str, Summary], w2: Mapping[str, Summary]) -> str:
    """Whether the paper's W1 utilizations are nearer our W1's or our heavier W2's."""

    def distance(results: Mapping[str, Summary]) -> float:  # NaN when one is missing
        return sum(abs(mean_utilization(results, n) - PAPER["utilization"][n]) for n in ("cb", "scojo-p"))

    d1, d2 = distance(w1), distance(w2)
    ours = (
        f"our W2's (CB {_util(w2, 'cb')}, SCOJO-P {_util(w2, 'scojo-p')}) more than our W1's "
        f"(CB {_util(w1, 'cb')}, SCOJO-P {_util(w1, 'scojo-p')})"
    )
    if math.isnan(d2):
        return "the paper's W1 utilizations are CB 89.7 %, SCOJO-P 78.6 % (W2, to compare, not run)"
    if not (d2 < d1):  # NaN too
        return "the paper's W1 utilizations (CB 89.7 %, SCOJO-P 78.6 %) are nearer our W1's than our W2's"
    return (
        f"the paper's W1 utilizations (CB 89.7 %, SCOJO-P 78.6 %) are near {ours}: a hint that the paper's W1 "
        "carried more load than ours (the same alpha' 10.23, but neither the generator nor the seeds are "
        "the authors')"
    )


def _gain(results: Mapping[str, Summary], name: str) -> float:
    return relative(response(results.get(name)), response(results.get("trad")))


def why_scojo_vs_traditional(w1: Mapping[str, Summary], w2: Mapping[str, Summary]) -> str:
    g1, g2 = _gain(w1, "scojo-p"), _gain(w2, "scojo-p")
    if not _ok(g2):
        return f"SCOJO-P: {pct(g1)} on W1 (of the seeds' mean responses; W2 not run); {load_hint(w1, w2)}."
    trend = "the gain grows with the load" if g2 < g1 else "the gain does not grow with the load"
    return f"SCOJO-P: {pct(g1)} on W1 and {pct(g2)} on W2 ({trend}); {load_hint(w1, w2)}."


def why_cb_vs_traditional(w1: Mapping[str, Summary], w2: Mapping[str, Summary]) -> str:
    shrunk, expanded = value(w1.get("cb"), "all", "shrunk"), value(w1.get("cb"), "all", "expanded")
    on_w2 = f", {pct(_gain(w2, 'cb'))} on W2" if _ok(_gain(w2, "cb")) else ""
    return (
        f"Cirne-Berman: {pct(_gain(w1, 'cb'))} on W1{on_w2}; on W1 it expands {expanded:.0f} jobs and "
        f"shrinks {shrunk:.0f} (means per seed), and its utilization is {_util(w1, 'cb')} against traditional's "
        f"{_util(w1, 'trad')}: behind the backlog an expansion costs the job no wait and the others its extra "
        "host time (the Cirne-Berman reading below; expand=idle, ours, is its own section)."
    )


def why_response_vs_traditional(w1: Mapping[str, Summary], w2: Mapping[str, Summary]) -> str:
    return why_scojo_vs_traditional(w1, w2) + " " + why_cb_vs_traditional(w1, w2)


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
