"""pybatsim plugin: QoPS and VQoPS admission control (``adaptsched.core.qops``)."""

from adaptsched.core.qops import Qops as QopsCore
from adaptsched.schedulers.adapter import PlannerScheduler


class Qops(PlannerScheduler):
    core_class = QopsCore
