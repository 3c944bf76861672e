"""pybatsim entry file of adaptsched's "scojo-trad" scheduler (adaptsched.core.scojo.PriorityEasy),
generated from its declaration (adaptsched/schedulers/__init__.py)."""

from adaptsched.schedulers import SCHEDULERS
from adaptsched.schedulers.adapter import plugin

plugin(SCHEDULERS["scojo-trad"])
