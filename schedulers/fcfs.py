"""pybatsim plugin: first come, first served, no backfilling (``adaptsched.core.fcfs``)."""

from adaptsched.core.fcfs import Fcfs as FcfsCore
from adaptsched.schedulers.adapter import PlannerScheduler


class Fcfs(PlannerScheduler):
    core_class = FcfsCore
