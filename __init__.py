"""adaptsched: adaptive batch-scheduling algorithms for HPC clusters.

The repository root is this package (see ``package_dir`` in setup.cfg):

- ``adaptsched.core``: pure-Python scheduling logic (availability profiles, queue
  orders, planners); needs neither ZeroMQ nor a simulator.
- ``adaptsched.schedulers``: pybatsim plugins, thin adapters over ``core``.
- ``adaptsched.engines``: the embedded Batsim-protocol engine and the real-Batsim
  launcher.
- ``adaptsched.platforms``, ``adaptsched.workloads``: inputs (SimGrid platforms,
  SWF traces, Batsim JSON workloads).
- ``adaptsched.formats``: Batsim's formats (interval-set text, JSON numbers, output
  columns), one owner for each.
- ``adaptsched.analysis``: evalys-based metrics, comparisons and Gantt charts.
- ``adaptsched.reproduce``: one package per paper (the grid, the report, the paper's
  findings), behind ``adaptsched reproduce PAPER``.
- ``adaptsched.cli``: the ``adaptsched`` command.
"""

__version__ = "0.1.0"
