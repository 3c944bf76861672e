"""pybatsim plugin: Perković & Keleher's backfilling family (``adaptsched.core.backfill``)."""

from adaptsched.core.backfill import Backfill as BackfillCore
from adaptsched.schedulers.adapter import PlannerScheduler


class Backfill(PlannerScheduler):
    core_class = BackfillCore
