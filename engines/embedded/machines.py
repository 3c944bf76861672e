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
    """Every compute machine's state, its counts and the long double time spent in each.

    A change's time is not added at once: the changes are logged and added in batches
    (:meth:`_settle`, ``np.add.at``: in log order, so each machine's long double sum adds its
    intervals in the order Batsim does), a few numpy operations per batch rather than per change.
    """

    BATCH = 4096  # changes logged before they are added

    def __init__(self, nb_machines: int) -> None:
        self.n = nb_machines
        self.state = np.zeros(nb_machines, dtype=np.int64)  # all idle, whatever their pstate
        self.since = np.zeros(nb_machines)  # last_state_change_date: a double time (a long double exactly)
        self.time = np.zeros((len(NAMES), nb_machines), dtype=np.longdouble)
        self.counts = [nb_machines, 0, 0, 0, 0]  # by state
        self._log: list[tuple[np.ndarray, np.ndarray, np.ndarray, float]] = []  # (ids, old states, since, date)

    def change(self, sel: Any, new_state: int, now: float, ids: np.ndarray | None = None) -> None:
        """Machines ``sel`` (a slice or an index array; ``ids``: the same as an index array, if
        at hand) take ``new_state`` at ``now``."""
        old = self.state[sel]
        since = self.since[sel]
        if isinstance(sel, slice):  # views: the log keeps copies
            old, since = old.copy(), since.copy()
            if ids is None:
                ids = np.arange(self.n)[sel]
        self._log.append((sel if ids is None else ids, old, since, now))
        counts = self.counts
        for state, count in enumerate(np.bincount(old, minlength=len(NAMES)).tolist()):
            counts[state] -= count
        counts[new_state] += len(old)
        self.state[sel] = new_state
        self.since[sel] = now
        if len(self._log) >= self.BATCH:
            self._settle()

    def _settle(self) -> None:
        """Adds the logged changes' times (``update_machine_state``: ``now - since``, long double)."""
        if not self._log:
            return
        log, self._log = self._log, []
        ids = np.concatenate([entry[0] for entry in log])
        old = np.concatenate([entry[1] for entry in log])
        since = np.concatenate([entry[2] for entry in log]).astype(np.longdouble)
        dates = np.repeat(np.array([entry[3] for entry in log], dtype=np.longdouble), [len(e[0]) for e in log])
        np.add.at(self.time, (old, ids), dates - since)

    def row(self) -> tuple[int, int, int, int, int]:
        """(sleeping, switching on, switching off, idle, computing): a ``_machine_states.csv`` row's counts."""
        c = self.counts
        return c[SLEEPING], c[SWITCHING_ON], c[SWITCHING_OFF], c[IDLE], c[COMPUTING]

    def totals(self) -> dict[str, float]:
        """``time_<state>`` of ``_schedule.csv``: Σ over machines, long double, cast to double."""
        self._settle()
        return {name: float(np.cumsum(self.time[state])[-1]) if self.n else 0.0 for state, name in enumerate(NAMES)}
