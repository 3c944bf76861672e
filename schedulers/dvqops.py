"""pybatsim entry file of adaptsched's "dvqops" scheduler (adaptsched.core.dvqops.Dvqops),
generated from its declaration (adaptsched/schedulers/__init__.py)."""

from adaptsched.schedulers import SCHEDULERS
from adaptsched.schedulers.adapter import plugin

plugin(SCHEDULERS["dvqops"])
