"""Pure-Python scheduling logic: no ZeroMQ, no simulator (stdlib, sortedcontainers and
mypy_extensions' no-op class decorator only).

Foundations:

- :mod:`.base`: :class:`~.base.OnlineScheduler` (submit, complete, schedule; the hooks
  ``queue_order``, ``launch``, ``mold``, ``wake_up``) and the shared option sets;
- :mod:`.options`: each scheduler's options declared once (name, type, default, help,
  choices), parsed and checked once (:class:`~.options.Options`, :func:`~.options.option`);
- :mod:`.job`, :mod:`.units`, :mod:`.intervals`: a job's request, time units and tolerances,
  host sets as sorted runs;
- :mod:`.hosts`, :mod:`.queue`, :mod:`.profile`: host pool, queue orders, availability
  profile over time (earliest fit, reservations, a sequence of jobs planned);
- :mod:`.needs`: what a scheduler's input must carry, declared by its options, checked once;
- :mod:`.replay`: drives a scheduler in-process, for tests and what-if simulations.

Algorithms, by paper:

- baselines: :mod:`.fcfs`, :mod:`.easy`, :mod:`.conservative` (whose
  :class:`~.conservative.ReservationPlanner` is the one reservation-pass template that
  conservative backfilling and QoPS share through hooks), :mod:`.compression` (which waiting
  jobs a compression must re-place, Mu'alem & Feitelson);
- Perković & Keleher: :mod:`.backfill` (one pass, phases top to bottom), :mod:`.priorities`,
  :mod:`.speculation`, :mod:`.adaptation`;
- Downey: :mod:`.speedup`, :mod:`.allocation`;
- Islam et al.: :mod:`.qos` (a job's QoS terms, declared once), :mod:`.qops` (QoPS, VQoPS),
  :mod:`.dvqops`;
- Barsanti & Sodan: :mod:`.scojo` (the traditional scheduler and SCOJO-P),
  :mod:`.cirne_berman` (Cirne & Berman's what-if size choice);
- Klein & Pérez: :mod:`.evolving` (evolving applications, one module per algorithm).

Batsim's formats (interval sets, JSON numbers, output columns) belong to
:mod:`adaptsched.formats`, one layer up.
"""
