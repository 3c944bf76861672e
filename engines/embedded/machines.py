"""The machines' states with ``--energy``, as Batsim 4.2.1 keeps them (``src/machines.cpp``).

Each compute machine is idle, computing, switching off, sleeping or switching on
(``MachineState``; ``unavailable`` comes only from external events, which the engine does not
model). Batsim counts the machines in each state for ``_machine_states.csv`` and, per machine, the
time spent in each state in ``long double``, which grows only when the machine changes state
(``Machine::update_machine_state``, ``machines.cpp:694-706``): the state a machine is in at the
end is never closed. ``_schedule.csv``'s ``time_*`` columns are their sums over machines in id
order (``export.cpp:1077-1101``). Without ``--energy`` the engine keeps the cheaper account of
``outputs.py`` (idle and computing only), which prints the same values.
"""

from __future__ import annotations

from typing import Any

import numpy as np

IDLE, COMPUTING, SLEEPING, SWITCHING_ON, SWITCHING_OFF = range(5)
#: ``machine_state_to_string`` (``machines.cpp:562-589``), by state.
NAMES = ("idle", "computing", "sleeping", "switching_on", "switching_off")


class MachineStates:
    """Every compute machine's state, its counts and the long double time spent in each."""

    def __init__(self, nb_machines: int) -> None:
        self.n = nb_machines
        self.state = np.zeros(nb_machines, dtype=np.int64)  # all idle, whatever their pstate
        self.since = np.zeros(nb_machines, dtype=np.longdouble)  # last_state_change_date
        self.time = np.zeros((len(NAMES), nb_machines), dtype=np.longdouble)
        self.counts = [nb_machines, 0, 0, 0, 0]  # by state

    def change(self, ids: Any, new_state: int, now: float) -> None:
        """Machines ``ids`` (an index array or slice) take ``new_state`` at ``now``."""
        current = np.longdouble(now)
        old = self.state[ids]
        self.time[old, np.arange(self.n)[ids]] += current - self.since[ids]
        for state, count in enumerate(np.bincount(old, minlength=len(NAMES))):
            self.counts[state] -= int(count)
        self.counts[new_state] += len(old)
        self.state[ids] = new_state
        self.since[ids] = current

    def row(self) -> tuple[int, int, int, int, int]:
        """(sleeping, switching on, switching off, idle, computing): a ``_machine_states.csv`` row's counts."""
        c = self.counts
        return c[SLEEPING], c[SWITCHING_ON], c[SWITCHING_OFF], c[IDLE], c[COMPUTING]

    def totals(self) -> dict[str, float]:
        """``time_<state>`` of ``_schedule.csv``: Σ over machines, long double, cast to double."""
        return {name: float(np.cumsum(self.time[state])[-1]) if self.n else 0.0 for state, name in enumerate(NAMES)}
