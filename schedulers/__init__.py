"""adaptsched's pybatsim plugins and their registry.

Each plugin is a file whose class is its capitalised file name, as pybatsim
requires, so that stock pybatsim loads it by path against real Batsim::

    pybatsim /path/to/adaptsched/schedulers/easy.py -s ipc:///tmp/sched.sock
"""

from __future__ import annotations

from pathlib import Path

from adaptsched.core.base import OnlineScheduler

_HERE = Path(__file__).resolve().parent

# name -> (plugin file, one-line description, "module:class" of the pure scheduler)
SCHEDULERS = {
    "fcfs": ("fcfs.py", "first come, first served, no backfilling", "adaptsched.core.fcfs:Fcfs"),
    "easy": (
        "easy.py",
        "EASY backfilling: only the head job holds a reservation, which is never delayed",
        "adaptsched.core.easy:EasyBackfilling",
    ),
    "conservative": (
        "conservative.py",
        "conservative backfilling: every job holds a reservation that is never delayed",
        "adaptsched.core.conservative:ConservativeBackfilling",
    ),
    "backfill": (
        "backfill.py",
        "Perkovic & Keleher's backfilling family: sorting criteria D/P/R/1/L/P/L/R/L, with or without guarantees (-NG)",
        "adaptsched.core.backfill:Backfill",
    ),
    "downey": (
        "downey.py",
        "Downey's allocation strategies for moldable jobs (PWS, AVG, MAX, SEV, ASP), FIFO, stubborn/greedy/hybrid",
        "adaptsched.core.allocation:DowneyAllocation",
    ),
    "qops": (
        "qops.py",
        "QoPS deadline-guaranteeing admission control; value_aware=true: VQoPS with an opportunity-cost factor",
        "adaptsched.core.qops:Qops",
    ),
    "dvqops": (
        "dvqops.py",
        "DVQoPS: VQoPS with its OC-factor and rollback window chosen by what-if simulations",
        "adaptsched.core.dvqops:Dvqops",
    ),
    "scojo-trad": (
        "scojoTrad.py",
        "Barsanti & Sodan's traditional scheduler: short/medium/long priorities, aging, EASY, rigid at N_opt",
        "adaptsched.core.scojo:PriorityEasy",
    ),
    "scojo-p": (
        "scojoP.py",
        "SCOJO-P: moldable sizes from the predicted load over each job's runtime (Barsanti & Sodan)",
        "adaptsched.core.scojo:ScojoP",
    ),
    "cirne-berman": (
        "cirneBerman.py",
        "Cirne & Berman: each moldable job's size chosen at submission by what-if simulations",
        "adaptsched.core.cirne_berman:CirneBerman",
    ),
    "evolving": (
        "evolving.py",
        "Klein & Pérez's offline scheduling of rigid, evolving applications: cbf, nos, mic(+c), inf(+c) fits",
        "adaptsched.core.evolving:EvolvingScheduler",
    ),
}


def plugin_path(name: str) -> Path:
    return _HERE / SCHEDULERS[name][0]


def core_class(name: str) -> type[OnlineScheduler]:
    """The pure scheduler class behind an adaptsched scheduler's name."""
    module, _, cls = SCHEDULERS[name][2].partition(":")
    from importlib import import_module

    found: type[OnlineScheduler] = getattr(import_module(module), cls)
    return found
