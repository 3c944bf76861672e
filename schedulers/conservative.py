"""pybatsim entry file of adaptsched's "conservative" scheduler (adaptsched.core.conservative.ConservativeBackfilling),
generated from its declaration (adaptsched/schedulers/__init__.py)."""

from adaptsched.schedulers import SCHEDULERS
from adaptsched.schedulers.adapter import plugin

plugin(SCHEDULERS["conservative"])
