"""pybatsim entry file of adaptsched's "qops" scheduler (adaptsched.core.qops.Qops),
generated from its declaration (adaptsched/schedulers/__init__.py)."""

from adaptsched.schedulers import SCHEDULERS
from adaptsched.schedulers.adapter import plugin

plugin(SCHEDULERS["qops"])
