"""pybatsim entry file of adaptsched's "backfill" scheduler (adaptsched.core.backfill.Backfill),
generated from its declaration (adaptsched/schedulers/__init__.py)."""

from adaptsched.schedulers import SCHEDULERS
from adaptsched.schedulers.adapter import plugin

plugin(SCHEDULERS["backfill"])
