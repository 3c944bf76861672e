"""Pure-Python scheduling logic: no ZeroMQ, no simulator (stdlib, sortedcontainers and
mypy_extensions' no-op class decorator only).

Foundations:

- :mod:`.base`: :class:`~.base.OnlineScheduler` (submit, complete, schedule; the hooks
  ``queue_order``, ``launch``, ``mold``, ``wake_up``) and the shared option sets;
- :mod:`.options`: each scheduler's options declared once (name, type, default, help,
  choices), parsed and checked once (:class:`~.options.Options`, :func:`~.options.option`);
- :mod:`.hosts`, :mod:`.queue`, :mod:`.profile`: host pool, queue orders, availability
  profile over time (earliest fit, reservations);
- :mod:`.replay`: drives a scheduler in-process, for tests and what-if simulations.

Algorithms, by paper:

- baselines: :mod:`.fcfs`, :mod:`.easy`, :mod:`.conservative` (whose
  :class:`~.conservative.ReservationPlanner` is the one reservation-pass template that
  conservative backfilling and QoPS share through hooks);
- Perković & Keleher: :mod:`.backfill` (one pass, phases top to bottom), :mod:`.priorities`,
  :mod:`.speculation`, :mod:`.adaptation`;
- Downey: :mod:`.speedup`, :mod:`.allocation`;
- Islam et al.: :mod:`.qos` (a job's QoS terms, declared once), :mod:`.qops` (QoPS, VQoPS),
  :mod:`.dvqops`.

Batsim's formats (interval sets, JSON numbers, output columns) belong to
:mod:`adaptsched.formats`, one layer up.
"""
