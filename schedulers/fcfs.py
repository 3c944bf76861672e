"""pybatsim entry file of adaptsched's "fcfs" scheduler (adaptsched.core.fcfs.Fcfs),
generated from its declaration (adaptsched/schedulers/__init__.py)."""

from adaptsched.schedulers import SCHEDULERS
from adaptsched.schedulers.adapter import plugin

plugin(SCHEDULERS["fcfs"])
