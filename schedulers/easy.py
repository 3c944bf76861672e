"""pybatsim plugin: EASY backfilling (``adaptsched.core.easy``)."""

from adaptsched.core.easy import EasyBackfilling
from adaptsched.schedulers.adapter import PlannerScheduler


class Easy(PlannerScheduler):
    core_class = EasyBackfilling
