"""pybatsim entry file of adaptsched's "evolving" scheduler (adaptsched.core.evolving.online.EvolvingScheduler),
generated from its declaration (adaptsched/schedulers/__init__.py)."""

from adaptsched.schedulers import SCHEDULERS
from adaptsched.schedulers.adapter import plugin

plugin(SCHEDULERS["evolving"])
