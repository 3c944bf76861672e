"""pybatsim entry file of adaptsched's "scojo-p" scheduler (adaptsched.core.scojo.ScojoP),
generated from its declaration (adaptsched/schedulers/__init__.py)."""

from adaptsched.schedulers import SCHEDULERS
from adaptsched.schedulers.adapter import plugin

plugin(SCHEDULERS["scojo-p"])
