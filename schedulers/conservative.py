"""pybatsim plugin: conservative backfilling (``adaptsched.core.conservative``)."""

from adaptsched.core.conservative import ConservativeBackfilling
from adaptsched.schedulers.adapter import PlannerScheduler


class Conservative(PlannerScheduler):
    core_class = ConservativeBackfilling
