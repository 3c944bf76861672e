"""adaptsched's public API for writing a scheduler: everything a scheduler file imports.

The names below are public and stable: a later version may add names, never remove or rename
one without a deprecation (``tests/test_api.py`` fails if one disappears). Each has a docstring
with a short example, run by the tests. Everything else in adaptsched is internal.

A scheduler is a class with ``plan(now)``; a file becomes a pybatsim plugin by calling
:func:`plugin` at its end, and then runs, unchanged, with stock ``pybatsim FILE.py`` against
real Batsim, with ``adaptsched run --scheduler FILE.py``, ``adaptsched check FILE.py`` and in
sweeps (docs/writing-a-scheduler.md)::

    from adaptsched.api import OnlineScheduler, plugin

    class Fifo(OnlineScheduler):
        name = "fifo"

        def plan(self, now):
            ...

    plugin(Fifo)

Scheduler bases
    :class:`OnlineScheduler` (queue, host pool, running jobs; ``submit``, ``complete``,
    ``schedule``, and ``plan`` to write), :class:`ReservingScheduler` (promises start times),
    :class:`ReservationPlanner` (conservative backfilling's pass, with hooks),
    :class:`EasyBackfilling` (EASY, with its ``shadow`` hook).
What a scheduler sees and decides
    :class:`Job`, :class:`Running`, :class:`Decisions`.
Hosts, time and queues
    :class:`HostPool`, :class:`IntervalSet` (host sets as runs), :class:`AvailabilityProfile`
    (free hosts over time: ``earliest_fit``, ``reserve``, ``release``), :class:`WaitingQueue`
    (queue orders by name: fcfs, sjf, ljf, small, large, saf; ``order_key`` gives a name's key
    function, and a scheduler's ``queue_order`` may return a key function of its own).
Options
    :class:`Options`, :func:`option`, :class:`OptionError`; :class:`QueueOptions`,
    :class:`ReservingOptions` (ready-made bases).
Moldable jobs
    :class:`SpeedupModel`, :class:`Linear`, :class:`Downey`, :class:`ScojoP` (speedup
    models), :func:`model_of` (a job's model from its ``moldable`` annotation); a scheduler
    starts a job on another size with :meth:`OnlineScheduler.start_sized`.
What-if simulations
    :func:`replay`, :class:`Outcome`.
Plugins
    :func:`plugin`.
"""

from __future__ import annotations

from adaptsched.core.base import (
    Decisions,
    Job,
    OnlineScheduler,
    QueueOptions,
    ReservingOptions,
    ReservingScheduler,
    Running,
)
from adaptsched.core.conservative import ReservationPlanner
from adaptsched.core.easy import EasyBackfilling
from adaptsched.core.hosts import HostPool
from adaptsched.core.intervals import IntervalSet
from adaptsched.core.options import OptionError, Options, option
from adaptsched.core.profile import AvailabilityProfile
from adaptsched.core.queue import WaitingQueue
from adaptsched.core.replay import Outcome, replay
from adaptsched.core.speedup import Downey, Linear, ScojoP, SpeedupModel
from adaptsched.schedulers.adapter import plugin
from adaptsched.workloads.moldable import model_of

__all__ = [
    "AvailabilityProfile",
    "Decisions",
    "Downey",
    "EasyBackfilling",
    "HostPool",
    "IntervalSet",
    "Job",
    "Linear",
    "OnlineScheduler",
    "OptionError",
    "Options",
    "Outcome",
    "QueueOptions",
    "ReservationPlanner",
    "ReservingOptions",
    "ReservingScheduler",
    "Running",
    "ScojoP",
    "SpeedupModel",
    "WaitingQueue",
    "model_of",
    "option",
    "plugin",
    "replay",
]
