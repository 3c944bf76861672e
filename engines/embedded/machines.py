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

    A change only sets the machines' state and is logged; its time (``now - since``, added to the
    old state's) is added later, in batches (:meth:`_settle`): the old state and its date are the
    machine's previous change in the log, and ``np.add.at`` adds each machine's intervals in
    the order Batsim does. A few numpy operations per batch rather than per change.
    """

    BATCH = 4096  # changes logged before their times are added

    def __init__(self, nb_machines: int) -> None:
        self.n = nb_machines
        self.state = np.zeros(nb_machines, dtype=np.int64)  # all idle, whatever their pstate
        self.time = np.zeros((len(NAMES), nb_machines), dtype=np.longdouble)
        self._machines = np.arange(nb_machines)
        self._state = np.zeros(nb_machines, dtype=np.int64)  # each machine's state at the last settle...
        self._since = np.zeros(nb_machines)  # ...and its last_state_change_date (a double time)
        self._log: list[tuple[Any, int, float]] = []  # (machines: a slice or ids, new state, date)
        self._counts = [0] * len(NAMES)  # machines in each state (a row's counts)
        self._counts[IDLE] = nb_machines

    def change(self, sel: Any, new_state: int, now: float) -> None:
        """Machines ``sel`` (a slice or an index array) take ``new_state`` at ``now``."""
        counts, old = self._counts, self.state[sel]
        if new_state <= COMPUTING and counts[IDLE] + counts[COMPUTING] == self.n:
            # every machine idle or computing: the computing ones of ``sel`` say its old counts
            computing = int(np.count_nonzero(old))
            counts[COMPUTING] += len(old) - computing if new_state == COMPUTING else -computing
            counts[IDLE] = self.n - counts[COMPUTING]
        else:
            for state, count in enumerate(np.bincount(old, minlength=len(NAMES)).tolist()):
                counts[state] -= count
            counts[new_state] += len(old)
        self.state[sel] = new_state
        self._log.append((sel, new_state, now))
        if len(self._log) >= self.BATCH:
            self._settle()

    def _settle(self) -> None:
        """Adds the logged changes' times (``update_machine_state``, ``machines.cpp:694-706``:
        ``now - since`` to the old state's time, long double)."""
        if not self._log:
            return
        log, self._log = self._log, []
        pieces = [self._machines[sel] for sel, _, _ in log]
        lengths = [len(piece) for piece in pieces]
        order = np.argsort(np.concatenate(pieces), kind="stable")  # by machine, in log order
        machine = np.concatenate(pieces)[order]
        new = np.repeat(np.array([entry[1] for entry in log], dtype=np.int64), lengths)[order]
        date = np.repeat(np.array([entry[2] for entry in log]), lengths)[order]
        follows = np.zeros(len(machine), dtype=bool)  # the machine's previous change is in this batch
        follows[1:] = machine[1:] == machine[:-1]
        old = np.where(follows, np.roll(new, 1), self._state[machine])
        since = np.where(follows, np.roll(date, 1), self._since[machine])
        np.add.at(self.time, (old, machine), date.astype(np.longdouble) - since.astype(np.longdouble))
        last = np.ones(len(machine), dtype=bool)  # the machine's last change in this batch
        last[:-1] = machine[:-1] != machine[1:]
        self._state[machine[last]] = new[last]
        self._since[machine[last]] = date[last]

    def row(self) -> tuple[int, int, int, int, int]:
        """(sleeping, switching on, switching off, idle, computing): a ``_machine_states.csv`` row's counts."""
        c = self._counts
        return c[SLEEPING], c[SWITCHING_ON], c[SWITCHING_OFF], c[IDLE], c[COMPUTING]

    def totals(self) -> dict[str, float]:
        """``time_<state>`` of ``_schedule.csv``: Σ over machines, long double, cast to double."""
        self._settle()
        return {name: float(np.cumsum(self.time[state])[-1]) if self.n else 0.0 for state, name in enumerate(NAMES)}
