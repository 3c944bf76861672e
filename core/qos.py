"""A job's QoS terms: the one declaration of the fields ``qos-annotate`` writes and QoPS reads.

Islam, Balaji, Sabin & Sadayappan, "Analyzing and Minimizing the Impact of Opportunity Cost in
QoS-aware Job Scheduling" (2007), sec. 3 and 5.1. A job's terms are four fields of its Batsim
JSON description (times in seconds from the workload's start, prices in units):

=============== ==========================================================================
``deadline``    the time by which the job must complete if accepted
``price``       what the job pays if it completes by submission + estimate (its most)
``urgent``      whether it belongs to the urgent class (C times dearer)
``estimate_s``  the user's estimate of its runtime (s), as everywhere in adaptsched
                (``convert`` keeps SWF field 9 there, -1 when the trace has none); the
                value decays after submission + estimate. Without one (absent or <= 0) the
                job's walltime is its estimate.
=============== ==========================================================================

:func:`linear_value` is the value function; :class:`QosTerms` reads the fields once, with
one rule for what is missing (no deadline: none; no price: 0; not urgent), for the
scheduler (:mod:`adaptsched.core.qops`) and for the analysis (``adaptsched.analysis.qos``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from adaptsched.core.units import INF

DEADLINE, PRICE, URGENT, ESTIMATE = "deadline", "price", "urgent", "estimate_s"


def estimate_of(fields: Mapping[str, Any], walltime_s: float) -> float:
    """The user's runtime estimate (``estimate_s``), or the walltime when there is none."""
    estimate = fields.get(ESTIMATE)
    if isinstance(estimate, (int, float)) and not isinstance(estimate, bool) and estimate > 0:
        return float(estimate)
    return float(walltime_s)


def linear_value(finish_s: float, *, price: float, full_until_s: float, deadline_s: float) -> float:
    """Islam et al.'s value function: the full ``price`` if the job completes by
    ``full_until_s`` (submission + estimate), linearly less to zero at ``deadline_s``."""
    if finish_s <= full_until_s + 1e-9:
        return price
    if finish_s >= deadline_s or deadline_s <= full_until_s:
        return 0.0
    return price * (deadline_s - finish_s) / (deadline_s - full_until_s)


@dataclass(frozen=True)
class QosTerms:
    deadline_s: float
    price: float
    urgent: bool
    estimate_s: float

    @classmethod
    def of(cls, fields: Mapping[str, Any], walltime_s: float) -> QosTerms:
        """The terms in a job's fields (a job without them has no deadline and pays nothing)."""
        return cls(
            deadline_s=float(fields.get(DEADLINE, INF)),
            price=float(fields.get(PRICE, 0.0)),
            urgent=bool(fields.get(URGENT, False)),
            estimate_s=estimate_of(fields, walltime_s),
        )

    @staticmethod
    def annotated(fields: Mapping[str, Any]) -> bool:
        """Whether the fields hold QoS terms (a deadline)."""
        return DEADLINE in fields

    def fields(self) -> dict[str, Any]:
        """The JSON fields of these terms."""
        return {ESTIMATE: self.estimate_s, DEADLINE: self.deadline_s, URGENT: self.urgent, PRICE: self.price}

    def value(self, submit_s: float, finish_s: float) -> float:
        """What the job pays when it completes at ``finish_s``."""
        return linear_value(
            finish_s, price=self.price, full_until_s=submit_s + self.estimate_s, deadline_s=self.deadline_s
        )
