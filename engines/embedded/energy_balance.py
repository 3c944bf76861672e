"""Energy conservation of a run with Batsim's energy model, checked on its outputs (either engine).

The platform's energy at the last row of ``PREFIX_consumed_energy.csv`` must equal the sum of
the jobs' ``consumed_energy`` (``_jobs.csv``: what their hosts drew while they ran) plus what the
hosts drew outside jobs, counted independently of the energy meter: over ``[0, t_last]``, from
``_machine_states.csv``, each idle host at its computation pstate's Idle watts, each sleeping one
at its sleep pstate's, each switching one at its virtual pstate's (a 1-flop execution:
:meth:`MachinePower.watts` at full load). A host is idle from 0 until the first row says otherwise.

Tolerance: Batsim prints ``_machine_states.csv``'s times with ``%g`` (6 significant digits), so
each row's time is known within half a unit of its 6th digit: the bound adds, per row, that
error times the change of outside power at that row; plus the 6 decimals of every printed
energy, and a relative 1e-11 for the meter's double additions (SimGrid rounds at every update;
Batsim adds hosts in 80-bit long double). On Batsim's small energy runs the bound is under a
joule, below one host-second of idle power; on long traces it grows with the times' last printed
digit: 0.04 % of the total on the first 5,000 CTC-SP2 jobs (times to 1 s), 0.6 % on the whole
year (times to 100 s), where it still catches a wrong sleep or idle power, not a few host-hours.

Checked when the outside power is a function of the counts: no storage hosts, every compute
host with the same power, no computation pstate but the initial one ever set (DVFS), at most
one sleep pstate used, and no host asleep on a platform with a network (there a switch's
machine-state row is written when its SWITCHED message reaches the server, after the switch:
on ``cluster_energy_128.xml`` 0.2 s after 128 switch-offs). Otherwise :func:`energy_balance`
says why it did not check.
"""

from __future__ import annotations

import csv
import math
import os
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from adaptsched.engines.embedded.power import COMPUTATION, MachinePower, read_power
from adaptsched.engines.run.partial import RunOutputs
from adaptsched.platforms.simgrid import Platform

#: Relative rounding of the energy meter's sums (module doc).
METER_ROUNDING = 1e-11
#: A host's watts outside jobs: idle, sleeping, switching off, switching on.
Watts = tuple[float, float, float, float]


@dataclass
class Balance:
    """The check's numbers (joules), or why it was not made (``skipped``)."""

    total_j: float = 0.0
    jobs_j: float = 0.0
    outside_j: float = 0.0
    bound_j: float = 0.0
    skipped: str = ""

    @property
    def error_j(self) -> float:
        return self.total_j - self.jobs_j - self.outside_j

    @property
    def holds(self) -> bool:
        return bool(self.skipped) or abs(self.error_j) <= self.bound_j

    def message(self, prefix: str) -> str:
        return (
            f"{prefix}_consumed_energy.csv: energy is not conserved: the platform drew {self.total_j:.6f} J, "
            f"its jobs {self.jobs_j:.6f} J and its hosts outside jobs {self.outside_j:.6f} J "
            f"(idle, sleeping, switching, from _machine_states.csv): {self.error_j:+.6f} J unaccounted for, "
            f"beyond the printing and rounding bound of {self.bound_j:.6f} J"
        )


def _g_error(t: float) -> float:
    """Half a unit of the 6th significant digit of ``t``, printed with ``%g``."""
    return 0.0 if t == 0 else 0.5 * 10 ** (math.floor(math.log10(abs(t))) - 5)


def _outside_watts(named: Callable[[str], str], power: MachinePower) -> Watts | str:
    """Watts of an idle, sleeping, switching-off and switching-on host, or why they are not one number."""
    sleep_used: set[int] = set()
    with open(named("_pstate_changes.csv"), newline="") as handle:
        for row in csv.DictReader(handle):
            target = int(row["new_pstate"])
            if target < 0 or target == power.pstate:
                continue
            if power.kinds[target] == COMPUTATION:
                return f"hosts changed computation pstate (DVFS, pstate {target})"
            sleep_used.add(target)
    if len(sleep_used) > 1:
        return f"several sleep pstates used ({sorted(sleep_used)})"
    sleep = next(iter(sleep_used), None)
    idle_w = power.idle[power.pstate]
    if sleep is None:
        return idle_w, 0.0, 0.0, 0.0
    off, on = power.sleep[sleep]
    return idle_w, power.idle[sleep], power.watts(off, power.speeds[off]), power.watts(on, power.speeds[on])


def _power_of(m: MachinePower) -> tuple[object, ...]:
    return (m.idle, m.epsilon, m.slope, m.speeds, tuple(sorted(m.sleep.items())), m.pstate, m.cores)


def energy_balance(prefix: str, platform: Platform) -> Balance:
    """The energy balance of the run whose outputs are ``PREFIX_*`` (module doc), read under their
    partial names before the run's outputs are renamed (:mod:`adaptsched.engines.run.partial`)."""
    return _balance(_Named(prefix), platform)


class _Named:
    """An output's file: its partial name while it has one, else its final name."""

    def __init__(self, prefix: str) -> None:
        self.outputs = RunOutputs(prefix)

    def __call__(self, suffix: str) -> str:
        partial = self.outputs.partial(suffix)
        return partial if os.path.isfile(partial) else self.outputs.final(suffix)


def _balance(named: _Named, platform: Platform) -> Balance:
    model = read_power(platform)
    if len(model.machines) != model.nb_compute:
        return Balance(skipped="storage hosts are summed too")
    first = model.machines[0]
    if len({_power_of(m) for m in model.machines}) > 1:
        return Balance(skipped="hosts of different power")
    watts = _outside_watts(named, first)
    if isinstance(watts, str):
        return Balance(skipped=watts)
    if platform.network is not None and watts[1:] != (0.0, 0.0, 0.0):
        # the row of a switch's end is written when its message reaches the server
        return Balance(skipped="hosts slept on a platform with a network: machine-state rows lag the switches")
    with open(named("_consumed_energy.csv"), newline="") as handle:
        rows = csv.reader(handle)
        header = next(rows, [])
        last = deque(rows, maxlen=1)  # the last row alone
    if not last:
        return Balance(skipped="no energy row")
    end, total = float(last[0][header.index("time")]), float(last[0][header.index("energy")])
    balance = Balance(total_j=total, bound_j=0.5e-6 + METER_ROUNDING * abs(total))
    with open(named("_jobs.csv"), newline="") as handle:
        rows = csv.reader(handle)
        column = next(rows).index("consumed_energy")
        for job in rows:
            if job[column] not in ("", "-1.000000"):
                balance.jobs_j += float(job[column])
                balance.bound_j += 0.5e-6
    balance.outside_j, time_bound = _outside(named, model.nb_compute, watts, end)
    balance.bound_j += time_bound
    return balance


def _outside(
    named: Callable[[str], str], nb_hosts: int, watts: tuple[float, float, float, float], end: float
) -> tuple[float, float]:
    """The energy drawn outside jobs over ``[0, end]`` and its bound from the ``%g`` times (numpy's
    reader on the columns that draw power: one row per job start and end)."""
    names = ("nb_idle", "nb_sleeping", "nb_switching_off", "nb_switching_on")
    drawing = [(name, w) for name, w in zip(names, watts) if w != 0.0]
    with open(named("_machine_states.csv"), newline="") as handle:
        header = handle.readline().strip().split(",")
        columns = [header.index("time")] + [header.index(name) for name, _ in drawing]
        first = handle.readline()
        rows = np.loadtxt([first], delimiter=",", usecols=columns, ndmin=2) if first.strip() else np.zeros((0, 1))
        if len(rows):
            rows = np.concatenate((rows, np.loadtxt(handle, delimiter=",", usecols=columns, ndmin=2)))
    time = rows[:, 0]
    after = np.flatnonzero(time > end)
    if len(after):
        rows, time = rows[: after[0]], time[: after[0]]
    new = np.zeros(len(rows))
    for k, (_, w) in enumerate(drawing):
        new += rows[:, k + 1] * w
    power = np.concatenate(([nb_hosts * watts[0]], new))  # from 0, then after each row
    dates = np.concatenate(([0.0], time, [end]))
    energy = float(np.dot(power, np.diff(dates)))
    with np.errstate(divide="ignore"):
        g_error = np.where(time == 0, 0.0, 0.5 * 10 ** (np.floor(np.log10(np.abs(time))) - 5))
    bound = float(np.dot(g_error, np.abs(np.diff(power))))
    return energy, bound
