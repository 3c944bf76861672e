"""pybatsim plugin: Cirne & Berman's size choice at submission (``adaptsched.core.scojo``)."""

from adaptsched.core.cirne_berman import CirneBerman as Core
from adaptsched.schedulers.adapter import PlannerScheduler


class CirneBerman(PlannerScheduler):
    core_class = Core
