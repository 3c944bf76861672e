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

Both are written as the run goes, ``_consumed_energy.csv`` in batches of rows (a run that fails
writes the rows it kept before it stops).
"""

from __future__ import annotations

import numpy as np

from adaptsched.engines.embedded.energy import LongDouble, SumsWork, ld_text, long_double_sums


class EnergyTracer:
    """``PREFIX_consumed_energy.csv``. A row's energy, the long double sum of the machines'
    energies, is summed and printed in batches of rows (:meth:`_write`): the machines' energies
    are kept at each row, and one ``np.cumsum`` along the machines (in id order, as Batsim adds
    them) sums a batch."""

    BATCH = 1024  # rows kept before they are summed and written

    def __init__(self, prefix: str, nb_machines: int, suffix: str = "") -> None:
        self.path = f"{prefix}_consumed_energy.csv{suffix}"
        self._file = open(self.path, "w", buffering=1 << 16)
        self._file.write("time,energy,event_type,wattmin,epower\n")
        self._file.flush()
        self._last_date = np.longdouble(0)
        self._last_energy = np.longdouble(0)
        self._wattmin: LongDouble = None  # the last wattmin printed, and its text
        self._wattmin_text = ""
        self._energies = np.zeros((self.BATCH, nb_machines))  # by row kept: the machines' energies
        self._work = SumsWork(self.BATCH, nb_machines)
        self._rows: list[tuple[float, str, str]] = []  # by row kept: date, event type, wattmin text
        self.last_end: LongDouble = np.longdouble(-1)  # the energy of the last ``e`` row written

    def add(self, date: float, event_type: str, energies: np.ndarray, wattmin: LongDouble) -> None:
        """One row (``add_entry``) at ``date``, of the machines' ``energies`` (doubles, copied)."""
        if wattmin is not self._wattmin:  # the meter keeps one value until a pstate changes
            self._wattmin, self._wattmin_text = wattmin, ld_text(wattmin)
        self._energies[len(self._rows)] = energies
        self._rows.append((date, event_type, self._wattmin_text))
        if len(self._rows) == self.BATCH:
            self._write()

    def _write(self) -> None:
        """The rows kept: their energies, mean powers since the previous row (long double: ``NA``
        when no time passed) and text."""
        rows, self._rows = self._rows, []
        if not rows:
            return
        count = len(rows)
        energies = self._energies[:count]
        totals = long_double_sums(energies, self._work) if energies.shape[1] else np.zeros(count, dtype=np.longdouble)
        dates = np.array([row[0] for row in rows], dtype=np.longdouble)
        time_diff = dates - np.concatenate(([self._last_date], dates[:-1]))
        with np.errstate(divide="ignore", invalid="ignore"):
            epower = (totals - np.concatenate(([self._last_energy], totals[:-1]))) / time_diff
        shown = ((time_diff > 0) & (epower != -1)).tolist()
        epower_w = epower.astype(np.float64).tolist()
        lines = []
        for (date, event_type, wattmin_text), total, with_power, power in zip(rows, totals, shown, epower_w):
            if with_power:
                lines.append("%f,%s,%s,%s,%f\n" % (date, ld_text(total), event_type, wattmin_text, power))
            else:
                lines.append("%f,%s,%s,%s,NA\n" % (date, ld_text(total), event_type, wattmin_text))
            if event_type == "e":
                self.last_end = total
        self._file.write("".join(lines))
        self._last_date, self._last_energy = dates[-1], totals[-1]

    def flush(self) -> None:
        self._write()
        self._file.flush()

    def close(self) -> None:
        if not self._file.closed:
            self._write()
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
