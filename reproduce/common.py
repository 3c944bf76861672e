"""What every paper's reproduction shares: the evidence behind a claim and its findings table.

A paper's claim is checked on a :class:`Sample` of our numbers: one value per seed (or per
random test, per run), each *paired* on one workload when the claim compares two runs (the
ratio or the difference is taken seed by seed, then summarised). A sample gives its mean,
its spread (min to max) and a 95 % confidence interval of the mean (Student's t); an *exact*
sample (a deterministic run on a fixed trace, an observed extreme) has no sampling noise and
its interval is the value itself. The interval decides:

* a *value* claim (the paper's value within a tolerance, :func:`in_band`) holds when the
  whole interval lies within the tolerance band, does not hold when the whole interval lies
  outside it, and otherwise needs more seeds;
* a *direction* claim (:func:`beyond`: ours below, or above, a threshold, 0 for "A beats
  B") holds when the whole interval lies beyond the threshold, does not hold when it lies on
  the other side (or on it), and otherwise needs more seeds.

So the paper's value, or its stated direction, is always inside (or beyond) the interval of
a claim that holds; one seed of a random run decides nothing ("needs more seeds").

Every claim (:class:`Claim`) is one row of a findings table (:func:`findings_table`) with
one *class*: :data:`INDEPENDENT`; ``depends on`` another result (:func:`depends_on`, naming
it: a claim that passes only because of another result, or a cell a parameter was
calibrated on, a reconstruction, an arithmetic identity of another claim);
:data:`BY_CONSTRUCTION` (true of any implementation); :data:`NOT_CHECKABLE` (the paper's figure
is missing); :data:`WORKLOAD` (a fact about the workload, not about a scheduler). Headlines
count the independent claims that hold (:func:`headline`: "x of y independent claims hold"),
the other classes beside them.

:class:`Finding`, :func:`findings_table_v1`: the older shape (claim, holds, numbers) still
used by SCOJO-P's report until it moves to :class:`Claim`.
"""

from __future__ import annotations

import csv
import math
import statistics
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

NAN = float("nan")

# -- classes and verdicts ------------------------------------------------------------------
INDEPENDENT = "independent"
BY_CONSTRUCTION = "by construction"
NOT_CHECKABLE = "not checkable"
DEPENDS = "depends on"
#: A finding about the workload (its offered load, mean width, runtimes) beside the paper's, checked
#: before any scheduler claim and counted apart from them: it says whether the schedulers ran on the
#: paper's kind of workload, not whether they behave as the paper says.
WORKLOAD = "workload"

HOLDS = "holds"
FAILS = "does not hold"
MORE = "needs more"  # + " seeds" / " tests": see Sample.unit
NOT_MEASURED = "not measured"
NOT_CHECKED = "not checked"  # a not-checkable claim's verdict


def depends_on(what: str) -> str:
    """The class of a claim that stands or falls with another result, named."""
    return f"{DEPENDS} {what}"


# -- samples ---------------------------------------------------------------------------------
#: Two-sided 95 % quantiles of Student's t, 1 to 30 degrees of freedom.
_T95 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


def t95(df: int) -> float:
    """The two-sided 95 % quantile of Student's t with ``df`` degrees of freedom (a table to
    30, then the Cornish-Fisher expansion around the normal's 1.96: within 1e-3)."""
    if df < 1:
        raise ValueError(f"t95: {df} degrees of freedom")
    if df <= len(_T95):
        return _T95[df - 1]
    z = 1.959964
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)


def _finite(values: Iterable[float | None]) -> tuple[float, ...]:
    return tuple(float(v) for v in values if v is not None and math.isfinite(v))


@dataclass(frozen=True)
class Sample:
    """Our numbers behind a claim: one value per ``unit`` (``seed``, ``test``...). ``exact``:
    no sampling noise (a deterministic run, an observed extreme), the interval is the value.
    ``interval``: a 95 % interval computed elsewhere (clustered, bootstrap), else Student's t;
    ``count``: what the interval rests on when not the values (e.g. tests, for values per
    application); ``note``: what the values are, for the table."""

    values: tuple[float, ...]
    unit: str = "seed"
    exact: bool = False
    interval: tuple[float, float] | None = None
    count: int | None = None
    note: str = ""

    @classmethod
    def of(cls, values: Iterable[float | None], unit: str = "seed", **kw) -> Sample:
        """The finite ones of ``values`` (None and NaN: runs missing, left out)."""
        return cls(_finite(values), unit, **kw)

    @classmethod
    def exact_value(cls, value: float | None, unit: str = "run", note: str = "") -> Sample:
        """One number without sampling noise (a deterministic run on a fixed input)."""
        return cls(_finite([value]), unit, exact=True, note=note)

    @property
    def n(self) -> int:
        return self.count if self.count is not None else len(self.values)

    @property
    def mean(self) -> float:
        return statistics.fmean(self.values) if self.values else NAN

    @property
    def low(self) -> float:
        return min(self.values) if self.values else NAN

    @property
    def high(self) -> float:
        return max(self.values) if self.values else NAN

    @property
    def ci(self) -> tuple[float, float] | None:
        """The 95 % interval of the mean; None when it cannot be had (no value, or one value
        of a random quantity)."""
        if not self.values:
            return None
        if self.interval is not None:
            return self.interval
        if self.exact:
            return (self.mean, self.mean)
        if len(self.values) < 2:
            return None
        half = t95(len(self.values) - 1) * statistics.stdev(self.values) / math.sqrt(len(self.values))
        return (self.mean - half, self.mean + half)


def pooled(groups: Sequence[Sequence[float]], unit: str = "test", note: str = "") -> Sample:
    """The mean of values pooled over groups (e.g. applications of each test), with the 95 %
    interval of a ratio estimator clustered by group (values of one group are not independent):
    R = sum S_g / sum N_g, var = sum (S_g - R N_g)^2 / (G (G - 1) Nbar^2)."""
    groups = [_finite(g) for g in groups]
    groups = [g for g in groups if g]
    values = tuple(x for g in groups for x in g)
    if len(groups) < 2:
        return Sample(values, unit, count=len(groups), note=note)
    sums, sizes = [sum(g) for g in groups], [len(g) for g in groups]
    ratio, count = sum(sums) / sum(sizes), len(groups)
    nbar = sum(sizes) / count
    var = sum((s - ratio * k) ** 2 for s, k in zip(sums, sizes)) / (count * (count - 1) * nbar**2)
    half = t95(count - 1) * math.sqrt(var)
    return Sample(values, unit, interval=(ratio - half, ratio + half), count=count, note=note)


def bootstrap(
    statistic: Callable[[Any], float],
    size: int,
    unit: str = "test",
    *,
    resamples: int = 1000,
    seed: int = 0,
    note: str = "",
) -> Sample:
    """A statistic of ``size`` units (``statistic(indices)`` on any resample of unit indices),
    with its 95 % percentile bootstrap interval over ``resamples`` resamples (seeded)."""
    import numpy as np

    full = statistic(list(range(size)))
    rng = np.random.default_rng(seed)
    draws = sorted(statistic(rng.integers(0, size, size)) for _ in range(resamples))
    lo, hi = draws[int(0.025 * resamples)], draws[int(0.975 * resamples) - 1]
    return Sample((full,), unit, interval=(min(lo, full), max(hi, full)), count=size, note=note)


Series = Mapping[int, float] | float | None


def per_seed(fn: Callable[..., float], *series: Series, unit: str = "seed", note: str = "") -> Sample:
    """``fn`` of the series seed by seed (paired: the same seed's runs, the same workload):
    each series maps a seed to a value, or is one number (a deterministic run, the same for
    every seed). Only seeds every mapping has count; exact when every series is one number."""
    maps = [s for s in series if isinstance(s, Mapping)]
    if any(s is None for s in series):
        return Sample((), unit, note=note)
    if not maps:
        return Sample.exact_value(_call(fn, series), note=note)
    seeds = sorted(set.intersection(*(set(m) for m in maps)))
    values = [_call(fn, [s[k] if isinstance(s, Mapping) else s for s in series]) for k in seeds]
    return Sample.of(values, unit, note=note)


def _call(fn: Callable[..., float], args: Sequence) -> float:
    try:
        return float(fn(*args))
    except (ZeroDivisionError, TypeError, ValueError):
        return NAN


def ratio_minus_one(a: float, b: float) -> float:
    """a / b - 1 (a relative change), NaN when b is 0."""
    return a / b - 1 if b else NAN


def difference(a: float, b: float) -> float:
    return a - b


# -- verdicts ---------------------------------------------------------------------------------
def _more(sample: Sample) -> str:
    return f"{MORE} {sample.unit}s"


def in_band(sample: Sample, low: float, high: float) -> str:
    """A value claim: holds when the whole interval lies in [low, high], does not hold when it
    lies wholly outside, needs more seeds otherwise (module doc)."""
    if not sample.values:
        return NOT_MEASURED
    ci = sample.ci
    if ci is None:
        return _more(sample)
    lo, hi = ci
    if low <= lo and hi <= high:
        return HOLDS
    if hi < low or lo > high:
        return FAILS
    return _more(sample)


def beyond(sample: Sample, threshold: float, *, below: bool) -> str:
    """A direction claim: ours below ``threshold`` (``below``) or above it; holds when the whole
    interval is strictly beyond it, does not hold when the whole interval is on the other side
    or on it, needs more seeds otherwise."""
    if not sample.values:
        return NOT_MEASURED
    ci = sample.ci
    if ci is None:
        return _more(sample)
    lo, hi = ci
    if below:
        return HOLDS if hi < threshold else FAILS if lo >= threshold else _more(sample)
    return HOLDS if lo > threshold else FAILS if hi <= threshold else _more(sample)


def combine(verdicts: Iterable[str]) -> str:
    """The verdict of a claim made of parts: does not hold if one part does not, else needs more
    seeds (or is not measured) if one part does, else holds."""
    verdicts = list(verdicts)
    for bad in (FAILS, NOT_MEASURED):
        if bad in verdicts:
            return bad
    more = [v for v in verdicts if v.startswith(MORE)]
    if more:
        return more[0]
    return HOLDS if verdicts else NOT_MEASURED


@dataclass(frozen=True)
class Part:
    """One part of a claim made of parts (e.g. one variant of "every variant ..."): its label,
    sample and verdict."""

    label: str
    sample: Sample
    verdict: str


def decide(parts: Sequence[Part], fmt: Callable[[float], str] | None = None) -> tuple[str, Sample | None, str]:
    """(verdict, the deciding part's sample, details) of a claim made of ``parts``: the verdict
    is :func:`combine`'s; the deciding part is the first that does not hold (or was not
    measured), else the first that needs more seeds, else the first part; its label goes into
    the sample's note. The details name the parts that do not hold, and how many do (none for
    a claim of one part: its row says it all)."""
    fmt = fmt or num(3)
    if not parts:
        return NOT_MEASURED, None, ""
    verdict = combine(p.verdict for p in parts)
    bad = [p for p in parts if p.verdict != HOLDS]
    deciding = next((p for p in parts if p.verdict in (FAILS, NOT_MEASURED)), None) or (bad[0] if bad else parts[0])
    sample = replace(deciding.sample, note=deciding.label)
    if len(parts) == 1:
        return verdict, sample, ""
    shown = bad[:8]
    details = "; ".join(f"{p.label} {_part_text(p, fmt)}: {p.verdict}" for p in shown)
    if len(bad) > len(shown):
        details += f"; and {len(bad) - len(shown)} more"
    held = len(parts) - len(bad)
    if held:
        details += ("; " if details else "") + f"{held} of {len(parts)} parts hold"
    return verdict, sample, details


def _part_text(part: Part, fmt: Callable[[float], str]) -> str:
    s = part.sample
    if not s.values:
        return "-"
    ci = s.ci
    if s.exact or ci is None:
        return fmt(s.mean)
    return f"{fmt(s.mean)} [{fmt(ci[0])}, {fmt(ci[1])}]"


# -- claims and the findings table --------------------------------------------------------------
def num(digits: int = 3) -> Callable[[float], str]:
    """A formatter: ``digits`` significant digits, thousands separated."""

    def fmt(x: float) -> str:
        if not math.isfinite(x):
            return "-"
        if abs(x) >= 10**digits:
            return f"{x:,.0f}"
        return f"{x:.{digits}g}"

    return fmt


def pct(x: float | None) -> str:
    """A relative change as a signed percentage ("+12 %"), "-" when missing."""
    return "-" if x is None or not math.isfinite(x) else f"{100 * x:+.0f} %"


def pct1(x: float | None) -> str:
    """A relative change as a signed percentage with one decimal ("+1.2 %")."""
    return "-" if x is None or not math.isfinite(x) else f"{100 * x:+.1f} %"


def share(x: float | None) -> str:
    """A ratio as a percentage ("27 %"), "-" when missing."""
    return "-" if x is None or not math.isfinite(x) else f"{100 * x:.0f} %"


@dataclass(frozen=True)
class Claim:
    """One row of a findings table: a claim of the paper, the paper's value (or direction), ours
    (a :class:`Sample`, printed with ``fmt``), the tolerance and its source (the paper's own
    wording, or ours with the reason), the claim's class and the verdict (module doc);
    ``details``: what else decided it (the parts of a compound claim...)."""

    claim: str
    paper: str
    ours: Sample | None
    tolerance: str
    source: str
    klass: str
    verdict: str
    fmt: Callable[[float], str] = field(default=num(3), compare=False)
    details: str = ""

    @property
    def counted(self) -> bool:
        """Whether it counts in the headline's "x of y": an independent claim."""
        return self.klass == INDEPENDENT

    @property
    def holds(self) -> bool:
        return self.verdict == HOLDS

    def with_class(self, klass: str) -> Claim:
        return replace(self, klass=klass)

    def cells(self) -> tuple[str, str, str]:
        """(mean, 95 % interval, min to max and count) as printed."""
        s = self.ours
        if s is None or not s.values:
            return "-", "-", "-"
        ci = s.ci
        if s.exact:
            interval = "exact" + (f" ({s.note})" if s.note else "")
        elif ci is None:
            interval = f"- (one {s.unit})"
        else:
            interval = f"[{self.fmt(ci[0])}, {self.fmt(ci[1])}]"
        spread = f"{self.fmt(s.low)} to {self.fmt(s.high)}" if len(s.values) > 1 else self.fmt(s.low)
        count = f"{s.n:,} {s.unit}{'s' if s.n != 1 else ''}"
        if not s.exact:
            spread += f" ({count}" + (f"; {s.note}" if s.note else "") + ")"
        return self.fmt(s.mean), interval, spread


def _verdict_text(claim: Claim) -> str:
    v = claim.verdict
    return v if v in (HOLDS, NOT_CHECKED) else f"**{v}**"


def _escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def findings_table(claims: Iterable[Claim]) -> list[str]:
    """The Markdown findings table (header included): one numbered row per claim, then the
    numbered details of the claims that have some."""
    claims = list(claims)
    lines = [
        "| # | claim | paper | ours: mean | 95 % interval | min to max | tolerance | its source | class | verdict |",
        "|---:|---|---|---:|---|---|---|---|---|---|",
    ]
    notes = []
    for i, c in enumerate(claims, start=1):
        mean, interval, spread = c.cells()
        lines.append(
            f"| {i} | {_escape(c.claim)} | {_escape(c.paper)} | {mean} | {interval} | {spread} | "
            f"{_escape(c.tolerance)} | {_escape(c.source)} | {c.klass} | {_verdict_text(c)} |"
        )
        if c.details:
            notes.append(f"{i}. {c.details}")
    if notes:
        lines += ["", "What decided each claim made of parts:", "", *notes]
    return lines


def counts(claims: Iterable[Claim]) -> dict[str, int]:
    """The headline's numbers: independent claims (``independent``) and those of them that hold,
    do not hold, need more seeds (or were not measured); the other classes (``depends``, with
    ``depends_hold``, ``by_construction``, ``not_checkable``)."""
    claims = list(claims)
    independent = [c for c in claims if c.klass == INDEPENDENT]
    depends = [c for c in claims if c.klass.startswith(DEPENDS)]
    return {
        "independent": len(independent),
        "hold": sum(c.verdict == HOLDS for c in independent),
        "fail": sum(c.verdict == FAILS for c in independent),
        "more": sum(c.verdict.startswith(MORE) or c.verdict == NOT_MEASURED for c in independent),
        "depends": len(depends),
        "depends_hold": sum(c.verdict == HOLDS for c in depends),
        "by_construction": sum(c.klass == BY_CONSTRUCTION for c in claims),
        "not_checkable": sum(c.klass == NOT_CHECKABLE for c in claims),
        "workload": sum(c.klass == WORKLOAD and c.verdict != NOT_CHECKED for c in claims),
        "workload_hold": sum(c.klass == WORKLOAD and c.verdict == HOLDS for c in claims),
        "workload_unstated": sum(c.klass == WORKLOAD and c.verdict == NOT_CHECKED for c in claims),
    }


def headline(claims: Iterable[Claim]) -> str:
    """ "x of y independent claims hold" and the rest beside it, in one sentence."""
    k = counts(claims)
    text = f"**{k['hold']} of {k['independent']} independent claims hold**"
    parts = [f"{k['fail']} do not"] if k["fail"] else []
    if k["more"]:
        parts.append(f"{k['more']} need more seeds")
    text += f" ({', '.join(parts)})" if parts else ""
    beside = []
    if k["depends"]:
        beside.append(f"{k['depends']} depend on another result ({k['depends_hold']} of them hold)")
    if k["by_construction"]:
        beside.append(f"{k['by_construction']} hold by construction")
    if k["not_checkable"]:
        beside.append(f"{k['not_checkable']} are not checkable")
    if k["workload"]:
        beside.append(f"{k['workload_hold']} of {k['workload']} workload facts match the paper's")
    if k.get("workload_unstated"):
        beside.append(f"{k['workload_unstated']} more workload facts are shown, the paper not stating them")
    return text + ("; beside them, " + ", ".join(beside) if beside else "") + "."


CLASSES_TEXT = (
    "Each claim's interval is the 95 % confidence interval of our mean (Student's t over the seeds or the "
    "tests, or as its row says); a comparison is paired seed by seed (test by test) on the same workload. "
    "A value claim holds when the whole interval lies within the paper's value ± the tolerance, does not "
    "hold when it lies wholly outside, and otherwise needs more seeds; a direction claim likewise against "
    "its threshold. *exact*: a deterministic run or an observed extreme, without sampling noise. Classes: "
    "*independent* (counted in the headline), *depends on* another result (named: a reconstruction, a "
    "calibration, an arithmetic identity of another claim), *by construction* (true of any implementation), "
    "*not checkable* (the paper's figure is missing), *workload* (a fact about the workload, not a "
    "scheduler). docs/findings.md says more."
)


def findings_section(title: str, claims: Sequence[Claim]) -> list[str]:
    """A report's findings section: title, headline, how to read it, the table."""
    return ["", f"## {title}", "", headline(claims), "", CLASSES_TEXT, "", *findings_table(claims)]


def workload_fact(
    text: str,
    paper: str,
    ours: Sample,
    band: tuple[float, float] | None,
    tolerance: str,
    source: str,
    fmt: Callable[[float], str] | None = None,
) -> Claim:
    """A fact about the workload (class :data:`WORKLOAD`) beside the paper's: its verdict that of a
    value claim within ``band`` (:func:`in_band`); with ``band`` None the paper does not state it:
    shown, not checked."""
    verdict = NOT_CHECKED if band is None else in_band(ours, *band)
    return Claim(text, paper, ours, tolerance, source, WORKLOAD, verdict, fmt=fmt or num(3))


def write_findings_csv(path: Path, claims: Iterable[Claim]) -> None:
    """Every claim as one CSV row, numbers unformatted (for tables elsewhere and tests)."""
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(
            [
                "claim",
                "paper",
                "mean",
                "ci_low",
                "ci_high",
                "min",
                "max",
                "n",
                "unit",
                "exact",
                "tolerance",
                "source",
                "class",
                "verdict",
                "details",
            ]
        )
        for c in claims:
            s = c.ours
            ci = s.ci if s is not None else None
            writer.writerow(
                [
                    c.claim,
                    c.paper,
                    *(
                        (f"{s.mean:.6g}", *(f"{x:.6g}" for x in (ci or (NAN, NAN))), f"{s.low:.6g}", f"{s.high:.6g}")
                        if s is not None and s.values
                        else ("",) * 5
                    ),
                    s.n if s is not None else 0,
                    s.unit if s is not None else "",
                    bool(s is not None and s.exact),
                    c.tolerance,
                    c.source,
                    c.klass,
                    c.verdict,
                    c.details,
                ]
            )


# -- relative changes, and the older findings shape ---------------------------------------------
def relative(a: float | None, b: float | None) -> float:
    """a / b - 1, or NaN when either is missing (None or NaN) or b is 0."""
    if a is None or b is None or not math.isfinite(a) or not math.isfinite(b) or not b:
        return NAN
    return a / b - 1


@dataclass(frozen=True)
class Finding:
    """One claim checked on means only (the older shape, without intervals): ``numbers`` shows
    what decided it."""

    claim: str
    holds: bool
    numbers: str

    @property
    def verdict(self) -> str:
        return "holds" if self.holds else "**does not hold**"


def findings_table_v1(findings: Iterable[Finding]) -> list[str]:
    """The Markdown table of :class:`Finding` (header included)."""
    lines = ["| finding | here | numbers |", "|---|---|---|"]
    lines += [f"| {f.claim} | {f.verdict} | {f.numbers} |" for f in findings]
    return lines
