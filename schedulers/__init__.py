"""adaptsched's schedulers, each declared once: by its pure scheduler class (``adaptsched.core``).

A class says its ``name``, its ``summary``, its ``Options`` (and what they need of a workload,
``Options.needs()``) and the kinds of job copies it launches (``copy_kinds``); the registry below
lists the classes, nothing more. Each has a pybatsim entry file beside this one, named after
the scheduler (``scojo-p`` -> ``scojoP.py``, whose class ``ScojoP`` stock pybatsim takes), so
that stock pybatsim loads it by path against real Batsim::

    pybatsim /path/to/adaptsched/schedulers/easy.py -s ipc:///tmp/sched.sock

The entry files are generated from the registry (:func:`entry_text`; tests/test_schedulers.py
holds them to it). docs/architecture.md says how to add a scheduler.
"""

from __future__ import annotations

from pathlib import Path

from adaptsched.core.allocation import DowneyAllocation
from adaptsched.core.backfill import Backfill
from adaptsched.core.base import OnlineScheduler
from adaptsched.core.cirne_berman import CirneBerman
from adaptsched.core.conservative import ConservativeBackfilling
from adaptsched.core.dvqops import Dvqops
from adaptsched.core.easy import EasyBackfilling
from adaptsched.core.evolving import EvolvingScheduler
from adaptsched.core.fcfs import Fcfs
from adaptsched.core.qops import Qops
from adaptsched.core.scojo import PriorityEasy, ScojoP

_HERE = Path(__file__).resolve().parent

#: The built-in schedulers by name, in the order ``adaptsched schedulers`` lists them.
SCHEDULERS: dict[str, type[OnlineScheduler]] = {
    cls.name: cls
    for cls in (
        Fcfs,
        EasyBackfilling,
        ConservativeBackfilling,
        Backfill,
        DowneyAllocation,
        Qops,
        Dvqops,
        PriorityEasy,
        ScojoP,
        CirneBerman,
        EvolvingScheduler,
    )
}


def entry_stem(name: str) -> str:
    """The stem of a scheduler's pybatsim entry file: its name in camel case (``scojo-trad`` ->
    ``scojoTrad``), a Python module name whose capitalised form is the class pybatsim takes."""
    first, *rest = name.split("-")
    return first + "".join(part[:1].upper() + part[1:] for part in rest)


def plugin_path(name: str) -> Path:
    """The pybatsim entry file of the built-in scheduler ``name``."""
    if name not in SCHEDULERS:
        raise KeyError(name)
    return _HERE / f"{entry_stem(name)}.py"


def core_class(name: str) -> type[OnlineScheduler]:
    """The pure scheduler class behind an adaptsched scheduler's name."""
    return SCHEDULERS[name]


def entry_text(name: str) -> str:
    """The text of the pybatsim entry file of the built-in scheduler ``name``."""
    cls = SCHEDULERS[name]
    return (
        f'"""pybatsim entry file of adaptsched\'s "{name}" scheduler ({cls.__module__}.{cls.__qualname__}),\n'
        'generated from its declaration (adaptsched/schedulers/__init__.py)."""\n'
        "\n"
        "from adaptsched.schedulers import SCHEDULERS\n"
        "from adaptsched.schedulers.adapter import plugin\n"
        "\n"
        f'plugin(SCHEDULERS["{name}"])\n'
    )


def copy_kinds(scheduler: type[OnlineScheduler] | None = None) -> dict[str, str]:
    """What each kind of job copy runs, as the built-in schedulers declare it (and ``scheduler``,
    a researcher's own, if given): the end-of-run physics check times copies by it."""
    declared: dict[str, str] = {}
    for cls in (*SCHEDULERS.values(), *((scheduler,) if scheduler is not None else ())):
        for kind, runs in cls.copy_kinds.items():
            if declared.setdefault(kind, runs) != runs:
                raise TypeError(
                    f"{cls.__name__} declares copies of kind {kind!r} that run {runs}, not {declared[kind]}"
                )
    return declared
