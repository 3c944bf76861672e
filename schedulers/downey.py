"""pybatsim entry file of adaptsched's "downey" scheduler (adaptsched.core.allocation.DowneyAllocation),
generated from its declaration (adaptsched/schedulers/__init__.py)."""

from adaptsched.schedulers import SCHEDULERS
from adaptsched.schedulers.adapter import plugin

plugin(SCHEDULERS["downey"])
