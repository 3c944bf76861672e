"""pybatsim entry file of adaptsched's "cirne-berman" scheduler (adaptsched.core.cirne_berman.CirneBerman),
generated from its declaration (adaptsched/schedulers/__init__.py)."""

from adaptsched.schedulers import SCHEDULERS
from adaptsched.schedulers.adapter import plugin

plugin(SCHEDULERS["cirne-berman"])
