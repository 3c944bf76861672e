"""Pure-Python scheduling logic: no ZeroMQ, no simulator.

- :mod:`.base`: the :class:`OnlineScheduler` interface (submit, complete, schedule);
- :mod:`.hosts`, :mod:`.queue`, :mod:`.profile`: host pool, queue orders,
  availability profile over time (earliest fit, reservations);
- :mod:`.fcfs`, :mod:`.easy`, :mod:`.conservative`: the baseline algorithms;
- :mod:`.replay`: drives a scheduler in-process, for tests and what-if simulations.
"""
