"""``PREFIX_consumed_energy.csv`` and ``PREFIX_pstate_changes.csv``, as Batsim 4.2.1 writes them
with ``-E`` (``src/export.cpp``; batsim-energy.md §1.1-1.2, ``../shared/reference``).

``_consumed_energy.csv`` (``EnergyConsumptionTracer``, ``export.cpp:765-868``): header
``time,energy,event_type,wattmin,epower`` (the code's order; Batsim's docs list another); one row
per job start (``s``), job end (``e``) and pstate request or completion (``p``), printed
``"%lf,%Lf,%c,%Lf,%lf"``: the time, the platform's energy so far (long double), the sum of the
machines' Epsilon watts at their current pstate, and the mean power since the previous row
(``NA`` when no time passed; the first row's previous one is (0 s, 0 J)).

``_pstate_changes.csv`` (``PStateChangeTracer``, ``export.cpp:696-762``): header
``time,machine_id,new_pstate``, rows ``"%g,%s,%d"``: one per distinct initial pstate at t=0, one
per request (-1 towards a computation pstate, -2 towards a sleep pstate, -42 otherwise, judged on
the request's first machine), one when a request completes (its target pstate).

Both are flushed as the run goes (a crash keeps the rows written).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from adaptsched.engines.embedded.energy import LongDouble, ld_text


class EnergyTracer:
    """``PREFIX_consumed_energy.csv``."""

    def __init__(self, prefix: str, suffix: str = "") -> None:
        self.path = f"{prefix}_consumed_energy.csv{suffix}"
        self._file = open(self.path, "w", buffering=1 << 16)
        self._file.write("time,energy,event_type,wattmin,epower\n")
        self._file.flush()
        self._last_date = np.longdouble(0)
        self._last_energy = np.longdouble(0)
        self._wattmin: LongDouble = None  # the last wattmin printed, and its text
        self._wattmin_text = ""

    def add(self, date: float, event_type: str, energy: LongDouble, wattmin: LongDouble) -> LongDouble:
        """One row (``add_entry``); returns ``energy``."""
        time_diff = np.longdouble(date) - self._last_date
        epower: Any = -1
        if time_diff > 0:
            epower = (energy - self._last_energy) / time_diff
        if wattmin is not self._wattmin:  # the meter keeps one value until a pstate changes
            self._wattmin, self._wattmin_text = wattmin, ld_text(wattmin)
        if epower != -1:
            row = "%f,%s,%s,%s,%f\n" % (date, ld_text(energy), event_type, self._wattmin_text, float(epower))
        else:
            row = "%f,%s,%s,%s,NA\n" % (date, ld_text(energy), event_type, self._wattmin_text)
        self._file.write(row)
        self._last_date = np.longdouble(date)
        self._last_energy = energy
        return energy

    def flush(self) -> None:
        self._file.flush()

    def close(self) -> None:
        if not self._file.closed:
            self._file.close()


class PStateTracer:
    """``PREFIX_pstate_changes.csv``."""

    def __init__(self, prefix: str, suffix: str = "") -> None:
        self.path = f"{prefix}_pstate_changes.csv{suffix}"
        self._file = open(self.path, "w", buffering=1 << 16)
        self._file.write("time,machine_id,new_pstate\n")

    def add(self, date: float, machines_text: str, pstate: int) -> None:
        self._file.write("%g,%s,%d\n" % (date, machines_text, pstate))

    def flush(self) -> None:
        self._file.flush()

    def close(self) -> None:
        if not self._file.closed:
            self._file.close()
