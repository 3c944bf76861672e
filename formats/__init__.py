"""Batsim 4.2.1's text formats, each owned by one module.

- :mod:`.intervals`: interval sets of host ids (``"0-3 7"``), as Batsim writes and reads
  them in the protocol and in ``_jobs.csv``; pybatsim's ``ProcSet`` allocations.
- :mod:`.jsontext`: JSON text with every double printed ``%f`` (six decimals), as
  Batsim's protocol writer prints it.
- :mod:`.outputs`: the columns of ``_jobs.csv`` and ``_schedule.csv`` (and the energy metrics read from them).
- :mod:`.rapidjson`: numbers read as Batsim's RapidJSON reads them.
- :mod:`.files`: text and gzip files read with stated limits; :mod:`.bulk`: the cyclic
  garbage collector paused while many long-lived objects are built.

Everything that writes or parses one of these formats (the embedded engine, the pybatsim
adapter, workload writers, the analysis) imports it from here. This package sits just above
:mod:`adaptsched.core` in the layers: it imports only ``core`` (:mod:`.intervals` builds on
``core.intervals``), :mod:`adaptsched.errors` and :mod:`adaptsched.limits`.
"""
