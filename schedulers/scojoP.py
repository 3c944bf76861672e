"""pybatsim plugin: SCOJO-P (Barsanti & Sodan) (``adaptsched.core.scojo``)."""

from adaptsched.core.scojo import ScojoP as Core
from adaptsched.schedulers.adapter import PlannerScheduler


class ScojoP(PlannerScheduler):
    core_class = Core
