"""pybatsim plugin: Barsanti & Sodan's traditional scheduling, rigid at N_opt (``adaptsched.core.scojo``)."""

from adaptsched.core.scojo import PriorityEasy as Core
from adaptsched.schedulers.adapter import PlannerScheduler


class ScojoTrad(PlannerScheduler):
    core_class = Core
