"""pybatsim plugin: Downey's processor allocation strategies (``adaptsched.core.allocation``)."""

from adaptsched.core.allocation import DowneyAllocation
from adaptsched.schedulers.adapter import PlannerScheduler


class Downey(PlannerScheduler):
    core_class = DowneyAllocation
