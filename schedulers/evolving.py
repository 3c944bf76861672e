"""pybatsim plugin: Klein & Pérez's evolving applications (``adaptsched.core.evolving``)."""

from adaptsched.core.evolving import EvolvingScheduler
from adaptsched.schedulers.adapter import PlannerScheduler


class Evolving(PlannerScheduler):
    core_class = EvolvingScheduler
