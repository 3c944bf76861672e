"""Batsim 4.2.1's text formats, each owned by one module.

- :mod:`.intervals`: interval sets of host ids (``"0-3 7"``), as Batsim writes and reads
  them in the protocol and in ``_jobs.csv``; pybatsim's ``ProcSet`` allocations.
- :mod:`.jsontext`: JSON text with every double printed ``%f`` (six decimals), as
  Batsim's protocol writer prints it.
- :mod:`.outputs`: the columns of ``_jobs.csv`` and ``_schedule.csv``.

Everything that writes or parses one of these formats (the embedded engine, the pybatsim
adapter, workload writers, the analysis) imports it from here. This package sits one layer
above :mod:`adaptsched.core`: it imports only core (the interval sets themselves,
:mod:`adaptsched.core.intervals`), :mod:`adaptsched.errors` and :mod:`adaptsched.limits`.
"""
