"""Reproductions of the papers' experiments (``adaptsched reproduce PAPER``).

One package per paper, all of the same shape:

* ``plan.py``: the grid (which runs, on which workloads) and what each run measures;
* ``findings.py``: the paper's numbers and each of its claims as a small pure function
  (unit-tested on synthetic results);
* ``report.py``: the Markdown report, its CSV and PNG charts, with the findings checked;
* ``command.py``: the paper's own command-line options (``NAME``, ``HELP``,
  ``add_arguments(parser)``), ``reproduce(out, *, its options, setup)``, the one place that
  runs the plan and writes the report, and ``main(out, *, setup, **options)``, which takes
  the options as ``add_arguments`` declares them (typed values, by their names), checks
  them and calls ``reproduce``; ``setup`` (:class:`.runner.Setup`) carries what every paper
  shares: engine, Batsim, Dask cluster, report folder, the command line quoted and where
  progress goes. Each run of the plan is a :class:`~adaptsched.engines.run.spec.RunSpec`
  (:meth:`.runner.Setup.grid_run`).

The command line (``cli/reproduce.py``) builds ``adaptsched reproduce NAME`` from
:data:`PAPERS` and adds the options common to every paper (``--out``, ``--report-dir``,
``--engine``, ``--batsim``, ``--workers``, ``--scheduler-address``). A new paper is one
package and one line in :data:`PAPERS`.
"""

from __future__ import annotations

import importlib
from types import ModuleType

#: The paper packages, in the order ``adaptsched reproduce --help`` lists them.
PAPERS = (
    "perkovic_keleher",
    "downey",
    "qops",
    "scojo_p",
    "klein_perez",
)


def commands() -> list[ModuleType]:
    """The ``command`` module of every paper in :data:`PAPERS`."""
    return [importlib.import_module(f"{__name__}.{paper}.command") for paper in PAPERS]
