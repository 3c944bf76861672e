"""pybatsim plugin: DVQoPS, self-tuning VQoPS (``adaptsched.core.dvqops``)."""

from adaptsched.core.dvqops import Dvqops as DvqopsCore
from adaptsched.schedulers.adapter import PlannerScheduler


class Dvqops(PlannerScheduler):
    core_class = DvqopsCore
