"""Barsanti & Sodan's claims (sec. 5.2-5.3, 6), each a small pure function, on intervals.

Each claim is a :class:`~adaptsched.reproduce.common.Claim` decided on our per-seed numbers,
paired on one workload: ``results`` maps a variant (``trad``, ``scojo-p``, ``non-pred``,
``cb``, ``cb-idle``) to {seed: the summary :func:`adaptsched.analysis.scojo.scojo_metrics`
gives for that seed's run}. A ratio claim takes the ratio seed by seed, then its mean and
95 % interval (:func:`~adaptsched.reproduce.common.per_seed`).

**Tolerances come from the paper's own precision** (it gives no spread for any number, means
of 4 seeds): a figure it calls approximate and rounds to tens ("approximately 70%", "about
30%") is read ±5 points; one printed to a whole percent (59 %, 67 %, 48 %, 4 %, 5 %) ±0.5
points; 89.69 % ±0.005 points and 78.6 % ±0.05 points; "about 1/3" (1/2, 1/4) the values
nearer that unit fraction than the next ones (:func:`unit_fraction_band`). **Words carry one
threshold each** (:data:`WORDS`): "a little", "slightly", "a bit" mean in the stated direction
by less than 10 %.

Classes: SCOJO-P against Cirne-Berman (-59 %) is, seed by seed, an arithmetic identity of
SCOJO-P and Cirne-Berman against traditional ((1 + a) / (1 + b) - 1); the per-class ratios and W2's long jobs against
Cirne-Berman *depend on* Cirne-Berman against traditional: ours is worse than traditional, the
paper's 30 % better, so their agreement says nothing on its own. Fig. 14's mean N_opt depends
on A_max, calibrated on it. The mean N_opt of the simple model is a fact of the workload
(class *workload*). ``cb`` names the Cirne-Berman variant: the same claims are put to
``cb-idle`` (ours) in a table of their own, not counted.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from adaptsched.reproduce.common import (
    INDEPENDENT,
    WORKLOAD,
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
)

Summary = Mapping[str, object]
Results = Mapping[str, Mapping[int, Summary]]  # variant -> seed -> summary

#: The paper's figures (W1, 100 % moldable, mean of 4 seeds; sec. 5.3 and 6).
PAPER: dict[str, Any] = {
    "scojo_vs_trad": -0.70,
    "cb_vs_trad": -0.30,
    "scojo_vs_cb": -0.59,
    "response_ratio": {"short": 3, "medium": 3, "long": 2},  # about 1/k
    "wait_ratio": {"short": 3, "medium": 3, "long": 4},
    "utilization": {"cb": 0.8969, "scojo-p": 0.786},
    "w2_long_vs_cb": {"wait": -0.67, "response": -0.48},
    "n_opt_simple": {"all": 12, "short": 8, "medium": 9, "long": 20},
    "n_opt_downey": {"all": 69, "short": 61, "medium": 89, "long": 65},
}
ROUNDED_TENS = 0.05  # "approximately 70%", "about 30%": figures rounded to tens
WHOLE_PERCENT = 0.005
PRECISION = {
    ROUNDED_TENS: 'paper: "approximately"/"about", a figure rounded to tens (±5 points); no spread given',
    WHOLE_PERCENT: "paper: printed to a whole percent (±0.5 points); no spread given",
}
#: One threshold per word (module doc).
WORDS = {"a little": 0.10, "slightly": 0.10, "a bit": 0.10}
WORD_SOURCE = "ours: the paper's words carry no figure; one threshold (10 %) for every such word in this report"
NEEDS_CB = depends_on("Cirne-Berman vs traditional (ours is worse than traditional, the paper's better)")
IDENTITY = depends_on(
    "an arithmetic identity of SCOJO-P vs traditional and Cirne-Berman vs traditional: (1 + a) / (1 + b) - 1, "
    "seed by seed"
)
NEEDS_CB_W2 = depends_on("Cirne-Berman vs traditional on W2")
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


def _points(x: float) -> str:
    return f"±{100 * x:g} points"


def unit_fraction_band(k: int) -> tuple[float, float]:
    """The values nearer 1/k than 1/(k - 1) and 1/(k + 1): "about 1/k" read to the paper's
    precision (its choice among unit fractions)."""
    above = 1.0 / (k - 1) if k > 1 else 2.0
    return ((1 / k + 1 / (k + 1)) / 2, (1 / k + above) / 2)


# -- W1, 100 % moldable (Figs 5-8) -----------------------------------------------------------
def versus_traditional(results: Results, variant: str, paper: float, klass: str, points: float = ROUNDED_TENS) -> Claim:
    """Mean response of ``variant`` against traditional's, seed by seed, within the paper's
    precision."""
    sample = _relative(metric(results, variant), metric(results, "trad"))
    name = {"scojo-p": "SCOJO-P", "cb": "Cirne-Berman", "cb-idle": "Cirne-Berman, expand=idle"}.get(variant, variant)
    return _one(
        f"mean response, {name} vs traditional",
        f"{100 * paper:+.0f} %",
        sample,
        in_band(sample, paper - points, paper + points),
        _points(points),
        PRECISION[points],
        klass,
        pct1,
    )


def scojo_vs_traditional(results: Results) -> Claim:
    """Sec. 6: SCOJO-P improves response times by (approximately) 70 % vs traditional scheduling."""
    return versus_traditional(results, "scojo-p", PAPER["scojo_vs_trad"], INDEPENDENT)


def cb_vs_traditional(results: Results, cb: str = "cb") -> Claim:
    """Sec. 6: Cirne-Berman improves traditional scheduling by about 30 %."""
    return versus_traditional(results, cb, PAPER["cb_vs_trad"], INDEPENDENT if cb == "cb" else IDLE)


def scojo_vs_cirne_berman(results: Results, cb: str = "cb") -> Claim:
    """Sec. 6: SCOJO-P 59 % better than Cirne-Berman (a whole percent): per seed, SCOJO-P and
    Cirne-Berman against traditional combined."""
    sample = _relative(metric(results, "scojo-p"), metric(results, cb))
    target = PAPER["scojo_vs_cb"]
    return _one(
        "mean response, SCOJO-P vs Cirne-Berman" + ("" if cb == "cb" else ", expand=idle"),
        "-59 %",
        sample,
        in_band(sample, target - WHOLE_PERCENT, target + WHOLE_PERCENT),
        _points(WHOLE_PERCENT),
        PRECISION[WHOLE_PERCENT],
        IDENTITY if cb == "cb" else IDLE,
        pct1,
    )


def _class_ratios(results: Results, key: str, paper: Mapping[str, int], claim: str, cb: str) -> Claim:
    parts = []
    for klass, k in paper.items():
        sample = _ratio(metric(results, "scojo-p", key, klass), metric(results, cb, key, klass))
        parts.append(Part(klass, sample, in_band(sample, *unit_fraction_band(k))))
    paper_text = ", ".join(f"{c} 1/{k}" for c, k in paper.items())
    return _parts(
        claim,
        paper_text,
        parts,
        "nearer 1/k than 1/(k±1)",
        'paper: "about 1/3", "about 1/2": a unit fraction',
        NEEDS_CB if cb == "cb" else IDLE,
        num(3),
    )


def class_response_ratios(results: Results, cb: str = "cb") -> Claim:
    """Fig. 5: response SCOJO-P / CB about 1/3 for short and medium jobs, 1/2 for long ones."""
    return _class_ratios(results, "response_mean_s", PAPER["response_ratio"], "response SCOJO-P / CB per class", cb)


def class_wait_ratios(results: Results, cb: str = "cb") -> Claim:
    """Fig. 6: wait SCOJO-P / CB about 1/3 for short and medium jobs, 1/4 for long ones."""
    return _class_ratios(results, "wait_mean_s", PAPER["wait_ratio"], "wait SCOJO-P / CB per class", cb)


def utilization(results: Results, cb: str = "cb") -> Claim:
    """Sec. 5.3: CB's utilization (89.69 %) above SCOJO-P's (78.6 %), each level within the
    paper's printed precision."""
    u_cb, u_sp = series(results, cb, utilization_of), series(results, "scojo-p", utilization_of)
    above = per_seed(difference, u_cb, u_sp)
    parts = [Part("CB above SCOJO-P (difference)", above, beyond(above, 0.0, below=False))]
    for label, s, target, precision in (
        ("CB", u_cb, PAPER["utilization"]["cb"], 0.00005),
        ("SCOJO-P", u_sp, PAPER["utilization"]["scojo-p"], 0.0005),
    ):
        sample = per_seed(lambda x: x, s)
        parts.append(Part(label, sample, in_band(sample, target - precision, target + precision)))
    return _parts(
        "utilization: CB above SCOJO-P, and their levels",
        "CB 89.69 % > SCOJO-P 78.6 %",
        parts,
        "order; levels ±0.005 and ±0.05 points",
        "paper: printed to 0.01 and 0.1 points; no spread given",
        INDEPENDENT if cb == "cb" else IDLE,
        num(3),
    )


def non_predictive_a_little_worse(results: Results) -> Claim:
    """Sec. 5.3: non-predictive SCOJO-P "only a little worse": mean response above predictive's,
    by less than "a little"'s threshold."""
    sample = _relative(metric(results, "non-pred"), metric(results, "scojo-p"))
    limit = WORDS["a little"]
    return _one(
        "non-predictive SCOJO-P only a little worse than predictive (mean response)",
        '"only a little worse"',
        sample,
        in_band(sample, 0.0, limit),
        f"0 to {pct(limit)}",
        WORD_SOURCE,
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


def w2_long_jobs(w2: Results, cb: str = "cb") -> Claim:
    """Sec. 5.3, W2: long jobs under SCOJO-P vs CB, wait -67 % and response -48 % (whole percents)."""
    parts = []
    for label, key in (("wait", "wait_mean_s"), ("response", "response_mean_s")):
        sample = _relative(metric(w2, "scojo-p", key, "long"), metric(w2, cb, key, "long"))
        target = PAPER["w2_long_vs_cb"][label]
        parts.append(Part(label, sample, in_band(sample, target - WHOLE_PERCENT, target + WHOLE_PERCENT)))
    return _parts(
        "W2 long jobs, SCOJO-P vs Cirne-Berman" + ("" if cb == "cb" else ", expand=idle"),
        "wait -67 %, response -48 %",
        parts,
        _points(WHOLE_PERCENT),
        PRECISION[WHOLE_PERCENT],
        NEEDS_CB_W2 if cb == "cb" else IDLE,
        pct1,
    )


def fraction_effect(full: Results, partial: Results) -> Claim:
    """Sec. 5.3: with 80 % moldable jobs SCOJO-P "performed slightly better (4%)" and CB "a bit
    worse (-5%)" than with 100 % (whole percents; seed by seed on the same workloads)."""
    parts = []
    for label, variant, target in (("SCOJO-P", "scojo-p", -0.04), ("CB", "cb", 0.05)):
        sample = _relative(metric(partial, variant), metric(full, variant))
        parts.append(Part(label, sample, in_band(sample, target - WHOLE_PERCENT, target + WHOLE_PERCENT)))
    return _parts(
        "80 % vs 100 % moldable: SCOJO-P better, Cirne-Berman worse (mean response)",
        "SCOJO-P -4 %, CB +5 %",
        parts,
        _points(WHOLE_PERCENT),
        PRECISION[WHOLE_PERCENT],
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
    """Fig. 14: with the Cirne-Berman-Downey model SCOJO-P is still better than CB, "though only
    slightly" (below, by less than "slightly"'s threshold)."""
    sample = _relative(metric(downey, "scojo-p"), metric(downey, "cb"))
    limit = WORDS["slightly"]
    return _one(
        "Fig. 14 (Downey's model): SCOJO-P slightly better than Cirne-Berman (mean response)",
        '"only slightly" better',
        sample,
        in_band(sample, -limit, 0.0),
        f"{pct(-limit)} to 0",
        WORD_SOURCE,
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
    """Sec. 5.3: mean N_opt 69 with Downey's model (61, 89, 65 by class; whole numbers); A_max
    was chosen to reach it."""
    parts = []
    for klass, target in PAPER["n_opt_downey"].items():
        sample = per_seed(lambda x: x, metric(downey, "scojo-p", "n_opt_mean", klass))
        parts.append(Part(klass, sample, in_band(sample, target - 0.5, target + 0.5)))
    return _parts(
        "Fig. 14: mean N_opt with Downey's model (all; short, medium, long)",
        "69; 61, 89, 65",
        parts,
        "±0.5",
        "paper: printed to whole processors",
        depends_on(f"A_max {a_max}, calibrated on the mean N_opt"),
        num(3),
    )


def n_opt_of_the_workload(results: Results) -> Claim:
    """Sec. 5.3: with the simple model "the average N_opt is 12 (8 for short, 9 for medium, and
    20 for long jobs)": a fact of the workload (the Lublin-Feitelson sizes), whole numbers."""
    parts = []
    for klass, target in PAPER["n_opt_simple"].items():
        sample = per_seed(lambda x: x, metric(results, "trad", "n_opt_mean", klass))
        parts.append(Part(klass, sample, in_band(sample, target - 0.5, target + 0.5)))
    return _parts(
        "W1: mean N_opt (all; short, medium, long)",
        "12; 8, 9, 20",
        parts,
        "±0.5",
        "paper: sec. 5.3, printed to whole processors",
        WORKLOAD,
        num(3),
    )


def offered_load_of_the_workload(offered: Mapping[int, float]) -> Claim:
    """Sec. 5.3, read on the workload: the paper states no offered load, but the utilizations its
    schedulers reach on W1 are 78.6 % (SCOJO-P) and 89.69 % (Cirne-Berman). A machine that keeps
    up with its queue carries what is offered to it (molding only changes a job's host time by
    its efficiency), so W1's offered load at N_opt (what traditional scheduling carries: every
    job rigid at N_opt) is read against that range, each end at the paper's printed precision. A
    fact of the workload (class *workload*), set beside the claims, never counted."""
    low = PAPER["utilization"]["scojo-p"] - 0.0005
    high = PAPER["utilization"]["cb"] + 0.00005
    sample = per_seed(lambda x: x, dict(offered) or None)
    return _parts(
        "W1: offered load at N_opt within the utilizations the paper's schedulers reach",
        f"{100 * PAPER['utilization']['scojo-p']:g} % to {100 * PAPER['utilization']['cb']:g} %",
        [Part("offered load", sample, in_band(sample, low, high))],
        "the range, each end at its printed precision",
        "paper: sec. 5.3's utilizations (no offered load stated)",
        WORKLOAD,
        num(3),
    )


def why_offered_load(offered: Mapping[int, float], w1: Results, w2_offered: Mapping[int, float]) -> str:
    """W1's offered load and traditional's utilization on it (means over the seeds), and W2's
    offered load, the heavier workload the paper also ran."""
    text = f"W1 offers {_mean_of(per_seed(lambda x: x, dict(offered) or None), lambda x: f'{100 * x:.1f} %')}"
    text += f", traditional carries {_util(w1, 'trad')}"
    if w2_offered:
        text += f"; W2 offers {_mean_of(per_seed(lambda x: x, dict(w2_offered)), lambda x: f'{100 * x:.1f} %')}"
    return text + (
        "; not rescaled: the arrivals keep Table 1's alpha' (rescaling them toward the paper's "
        "utilizations would tune the workload to its results), W2's claims are the heavier load's"
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


# -- what our runs show where a claim does not hold: table cells made from the runs ------------
def _mean_of(sample: Sample, fmt=pct1) -> str:
    return fmt(sample.mean) if sample.values else "-"


def _util(results: Results, variant: str) -> str:
    s = per_seed(lambda x: x, series(results, variant, utilization_of))
    return _mean_of(s, lambda x: f"{100 * x:.1f} %")


def _moves(results: Results, variant: str) -> str:
    shrunk = per_seed(lambda x: x, metric(results, variant, "shrunk"))
    expanded = per_seed(lambda x: x, metric(results, variant, "expanded"))
    return (
        f"shrinks {_mean_of(shrunk, lambda x: f'{x:,.0f}')}, expands {_mean_of(expanded, lambda x: f'{x:,.0f}')} jobs"
    )


def why_versus_traditional(w1: Results, w2: Results, variant: str) -> str:
    """The variant against traditional on W1 and W2, its utilization and its moves (means over
    the seeds)."""
    on = []
    for name, results in (("W1", w1), ("W2", w2)):
        gain = _relative(metric(results, variant), metric(results, "trad"))
        if gain.values:
            on.append(
                f"{name}: {_mean_of(gain)} vs traditional, utilization {_util(results, variant)} against "
                f"traditional's {_util(results, 'trad')}; it {_moves(results, variant)}"
            )
    return "; ".join(on) or "-"


def why_utilization(w1: Results, w2: Results) -> str:
    text = f"W1: CB {_util(w1, 'cb')}, SCOJO-P {_util(w1, 'scojo-p')}, traditional {_util(w1, 'trad')}"
    if w2.get("cb"):
        text += f"; W2: CB {_util(w2, 'cb')}, SCOJO-P {_util(w2, 'scojo-p')}, traditional {_util(w2, 'trad')}"
    return text


def why_w2_long_jobs(w2: Results) -> str:
    return "W2: Cirne-Berman " + why_versus_traditional({}, w2, "cb")


def why_fraction_effect(full: Results, partial: Results) -> str:
    return "; ".join(
        f"{name}: it {_moves(partial, v)} at 80 % against {_moves(full, v).replace('shrinks ', '')} at 100 %"
        for name, v in (("SCOJO-P", "scojo-p"), ("CB", "cb"))
    )


def why_downey_variant(downey: Results) -> str:
    sp_cb = _relative(metric(downey, "scojo-p"), metric(downey, "cb"))
    np_sp = _relative(metric(downey, "non-pred"), metric(downey, "scojo-p"))
    return f"SCOJO-P vs CB {_mean_of(sp_cb)}, non-predictive vs predictive {_mean_of(np_sp)}; CB {_moves(downey, 'cb')}"
