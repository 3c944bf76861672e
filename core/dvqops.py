"""DVQoPS: VQoPS with its OC-factor and rollback window chosen by what-if simulations.

Islam, Balaji, Sabin & Sadayappan (2007), sec. 4.3 and Figure 4. The live scheduler is
VQoPS (:class:`adaptsched.core.qops.Qops` with ``value_aware``). DVQoPS keeps the history of
every arrival (accepted or rejected) and:

* **OC-factor** (Figure 4c): every ``window`` hours, for each candidate OC-factor
  (``oc_factors``, default 0, 0.05, 0.1, 0.2, 0.4), simulates VQoPS over the arrivals of the
  last ``window`` hours and keeps the factor of highest simulated revenue (ties: the
  smaller factor). It is used until the next choice.
* **Rollback window** (Figure 4b; or fixed: ``window_h``): every ``max_window_h`` hours (64), for each candidate
  window w in 1, 2, 4, ..., ``max_window_h`` hours, simulates DVQoPS itself over the last
  ``max_window_h`` hours with window w (the OC-factor re-chosen every w hours from the
  arrivals of the w hours before) and keeps the w of highest simulated revenue.

What-if simulations are in-process replays (:mod:`adaptsched.core.replay`) of the same
planning code; they never touch the simulator. Our interpretation where the paper is
silent: each starts from an empty machine at the window's start; a job runs for its actual
runtime if it has completed by now, else for its estimate; the revenue counts every
simulated job at its simulated completion. Before the first choice the OC-factor is
``initial_oc_factor`` (0). Each job's metadata records the OC-factor and window in force at
its arrival (``oc_factor``, ``window_h``), so the trajectory can be plotted from the output.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from adaptsched.core.base import INF, Job, Running
from adaptsched.core.options import OptionError, fixed, option
from adaptsched.core.qops import Qops, QopsOptions, job_value
from adaptsched.core.replay import replay

HOUR_S = 3600.0


#: (job, its runtime: the actual one if it has completed, else its estimate), in arrival order.
History = list[tuple[Job, float]]


@dataclass
class Arrival:
    job: Job  # a copy of the job as it arrived
    runtime_s: float | None = None  # its actual runtime, once it has completed


def what_if_revenue(
    nb_hosts: int, history: History, oc_factor: float, k_factor: int, start_s: float, end_s: float
) -> float:
    """Revenue of VQoPS(``oc_factor``) replayed over the arrivals in [start_s, end_s)."""
    jobs = [
        (Job(j.id, j.submit_s, j.res, j.walltime_s, j.fields), runtime)
        for j, runtime in history
        if start_s <= j.submit_s < end_s
    ]
    if not jobs:
        return 0.0
    out = replay(Qops(nb_hosts, k_factor=k_factor, value_aware=True, oc_factor=oc_factor), jobs)
    return sum(job_value(o.job, o.end_s) for o in out.values() if o.end_s is not None and not o.killed)


def best_oc_factor(
    nb_hosts: int, history: History, oc_factors: list[float], k_factor: int, start_s: float, end_s: float
) -> float:
    """The OC-factor of highest what-if revenue over [start_s, end_s) (ties: the smallest)."""
    revenues = [(what_if_revenue(nb_hosts, history, oc, k_factor, start_s, end_s), -oc) for oc in oc_factors]
    return -max(revenues)[1]


@dataclass(frozen=True)
class DvqopsOptions(QopsOptions):
    value_aware: bool = fixed(True)  # DVQoPS is VQoPS
    oc_factor: float = fixed(0.0)  # chosen as it goes, from initial_oc_factor
    oc_factors: str = option("0,0.05,0.1,0.2,0.4", "candidate OC-factors, comma-separated")
    max_window_h: float = option(64.0, "largest rollback window (h); the window is re-chosen this often", low=1.0)
    initial_oc_factor: float = option(0.0, "OC-factor before the first what-if choice", low=0.0)
    window_h: float = option(0.0, "a fixed rollback window (h) instead of choosing one (0: choose)", low=0.0)

    def check(self) -> None:
        try:
            factors = [float(x) for x in self.oc_factors.split(",") if x.strip()]
        except ValueError:
            raise OptionError(f"option oc_factors={self.oc_factors!r}: expected numbers separated by commas") from None
        if not factors or min(factors) < 0:
            raise OptionError(f"option oc_factors={self.oc_factors!r}: needs at least one factor, none negative")


class Dvqops(Qops):
    name = "dvqops"
    Options = DvqopsOptions
    options: DvqopsOptions

    def __init__(self, nb_hosts: int, **options: Any):
        super().__init__(nb_hosts, **options)
        o = self.options
        self.oc_factor = o.initial_oc_factor
        self.oc_factors = [float(x) for x in o.oc_factors.split(",") if x.strip()]
        max_window_h, window_h = o.max_window_h, o.window_h
        self.max_window_s = max_window_h * HOUR_S
        self.windows_s: list[float] = []
        w = 1.0
        while w <= max_window_h:
            self.windows_s.append(w * HOUR_S)
            w *= 2
        self.window_s = self.windows_s[-1]
        self.fixed_window = window_h > 0
        if self.fixed_window:
            self.window_s = window_h * HOUR_S
        self.history: list[Arrival] = []  # every arrival, accepted or not
        self.by_id: dict[str, Arrival] = {}
        self.origin_s: float | None = None  # the first arrival
        self.next_oc_s = INF  # when the OC-factor is chosen again
        self.next_window_s = INF  # when the window is chosen again
        self.choices: list[tuple[float, float, float]] = []  # (time, oc_factor, window_s): for plots and tests

    # -- history -----------------------------------------------------------------------
    def on_submit(self, job: Job, now: float) -> None:
        if self.origin_s is None:
            self.origin_s = now
            self.next_oc_s = now + self.window_s
            self.next_window_s = now + self.max_window_s
        entry = Arrival(Job(job.id, job.submit_s, job.res, job.walltime_s, job.fields))
        self.history.append(entry)
        self.by_id[job.id] = entry
        super().on_submit(job, now)

    def on_complete(self, running: Running, now: float, state: str = "COMPLETED_SUCCESSFULLY") -> None:
        entry = self.by_id.get(running.job.id)
        if entry is not None:
            entry.runtime_s = now - running.start_s
        super().on_complete(running, now, state)

    def _known(self) -> History:
        """(job, runtime) of the history: actual runtime if done, else (just under) the estimate."""
        return [
            (a.job, a.runtime_s if a.runtime_s is not None else a.job.walltime_s * (1 - 1e-9)) for a in self.history
        ]

    # -- the two what-if choices --------------------------------------------------------
    def simulate_dvqops(self, history: History, window_s: float, start_s: float, end_s: float) -> float:
        """Revenue of DVQoPS with a fixed window over [start_s, end_s): the OC-factor is
        re-chosen every window from the window before (the first one keeps the current)."""
        total, t, oc = 0.0, start_s, self.oc_factor
        while t < end_s:
            if t - window_s >= (self.origin_s or 0.0):
                oc = best_oc_factor(self.nb_hosts, history, self.oc_factors, self.k_factor, t - window_s, t)
            total += what_if_revenue(self.nb_hosts, history, oc, self.k_factor, t, min(t + window_s, end_s))
            t += window_s
        return total

    def retune(self, now: float) -> None:
        history = None
        if now >= self.next_window_s and not self.fixed_window:
            history = self._known()
            start = now - self.max_window_s
            scores = [(self.simulate_dvqops(history, w, start, now), -w) for w in self.windows_s]
            self.window_s = -max(scores)[1]
            self.next_window_s = now + self.max_window_s
        if now >= self.next_oc_s:
            history = history or self._known()
            self.oc_factor = best_oc_factor(
                self.nb_hosts, history, self.oc_factors, self.k_factor, now - self.window_s, now
            )
            self.next_oc_s = now + self.window_s
            self.choices.append((now, self.oc_factor, self.window_s))

    def plan(self, now: float) -> None:
        if self.arrivals and self.origin_s is not None:
            self.retune(now)
        for job in self.arrivals:  # the trajectory, readable from _jobs.csv
            self.record(job, oc_factor=self.oc_factor, window_h=self.window_s / HOUR_S)
        super().plan(now)
