"""pybatsim entry file of adaptsched's "easy" scheduler (adaptsched.core.easy.EasyBackfilling),
generated from its declaration (adaptsched/schedulers/__init__.py)."""

from adaptsched.schedulers import SCHEDULERS
from adaptsched.schedulers.adapter import plugin

plugin(SCHEDULERS["easy"])
