"""What every paper's reproduction shares: a checked claim (:class:`Finding`), relative
changes that tolerate missing numbers, and the findings table of a report."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

NAN = float("nan")


@dataclass(frozen=True)
class Finding:
    """One claim of a paper checked on our numbers: ``numbers`` shows what decided it."""

    claim: str
    holds: bool
    numbers: str

    @property
    def verdict(self) -> str:
        return "holds" if self.holds else "**does not hold**"


def relative(a: float | None, b: float | None) -> float:
    """a / b - 1, or NaN when either is missing (None or NaN) or b is 0."""
    if a is None or b is None or not math.isfinite(a) or not math.isfinite(b) or not b:
        return NAN
    return a / b - 1


def pct(x: float | None) -> str:
    """A relative change as a signed percentage ("+12 %"), "-" when missing."""
    return "-" if x is None or not math.isfinite(x) else f"{100 * x:+.0f} %"


def share(x: float | None) -> str:
    """A ratio as a percentage ("27 %"), "-" when missing."""
    return "-" if x is None or not math.isfinite(x) else f"{100 * x:.0f} %"


def findings_table(findings: Iterable[Finding]) -> list[str]:
    """The Markdown table of checked findings (header included)."""
    lines = ["| finding | here | numbers |", "|---|---|---|"]
    lines += [f"| {f.claim} | {f.verdict} | {f.numbers} |" for f in findings]
    return lines
