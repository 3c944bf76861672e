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
  arrivals of the w hours before) and keeps the w of highest simulated revenue. With
  ``window_choice`` = ``continuous`` (the default) that simulation is one replay from the
  state recorded ``max_window_h`` hours ago, its factor changing every w hours ("what
  rollback window would have yielded the best revenue over the last max rollback window
  hours"); ``piecewise`` (the reading before) replays each w-hour window from the state
  recorded at its start, so that the jobs a factor took in one window never cost it
  anything in the next, which favours short windows and low factors at high load.

What-if simulations are in-process replays (:mod:`adaptsched.core.replay`) of the same
planning code; they never touch the simulator. The paper's rollback "runs the simulation
starting *rollback window* hours in the past" (sec. 4.3): with ``what_if_start`` =
``recorded`` (the default) each replay starts from the machine's state recorded at the
window's start: the jobs then running (each until its actual end if known, else its
estimate; planned until start + estimate) and the accepted queue, in QoPS order, each job
keeping the reservation it held then (so its deadline guarantee); the arrivals of the window
(accepted or rejected in the real schedule) are then offered to VQoPS(candidate factor).
With ``empty`` (our first reading, docs/qops.md) each replay starts from an empty machine, which
underestimates contention at high load. Our interpretation where the paper is silent: a job
runs for its actual runtime if it has completed by now, else for its estimate; the revenue
counts every simulated job of the window, and with ``recorded`` also every inherited waiting
job, at its simulated completion (the running jobs' is the same whatever the factor); in
the choice of the window, each window's simulation counts only its own arrivals, so that
no job counts twice and short windows gain nothing from their number.
Among candidates of equal simulated revenue (factors or windows) the smallest is kept, or
with ``ties`` = ``current`` the one in force if it is among them (the paper is silent).
Before the first choice the OC-factor is ``initial_oc_factor`` (0). Each job's metadata
records the OC-factor and window in force at its arrival (``oc_factor``, ``window_h``), so
the trajectory can be plotted from the output.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from itertools import pairwise
from typing import Any, NamedTuple

from mypy_extensions import mypyc_attr

from adaptsched.core import options as opt
from adaptsched.core.base import Job, Running
from adaptsched.core.intervals import IntervalSet
from adaptsched.core.options import OptionError, fixed, option
from adaptsched.core.qops import Choice, Qops, QopsOptions
from adaptsched.core.qos import QosTerms
from adaptsched.core.replay import replay
from adaptsched.core.units import HOUR_S, INF

#: (job, its runtime: the actual one if it has completed, else its estimate), in arrival order.
History = list[tuple[Job, float]]


@dataclass
class Arrival:
    job: Job  # a copy of the job as it arrived
    runtime_s: float | None = None  # its actual runtime, once it has completed
    start_s: float | None = None  # when it started, if it did
    hosts: IntervalSet | list[int] = field(default_factory=list)  # its allocation (never changed)


@dataclass
class MachineState:
    """What a what-if replay starts from: the jobs running at the window's start, (job, start,
    expected end, hosts, actual end), and the accepted queue in QoPS order, (job, runtime,
    reserved start). Empty: the empty machine."""

    running: list[tuple[Job, float, float, IntervalSet | list[int], float]] = field(default_factory=list)
    waiting: list[tuple[Job, float, float]] = field(default_factory=list)


EMPTY = MachineState()


def same_decisions(tests: list[tuple[float, int, float]], oc_a: float, oc_b: float) -> bool:
    """Whether VQoPS at ``oc_a`` and ``oc_b`` decide every one of a replay's opportunity-cost
    ``tests`` (:attr:`Qops.value_tests`) alike: then, the replay being deterministic, the two
    replays are the same decision for decision."""
    return all((gain <= oc_a * res * est_s) == (gain <= oc_b * res * est_s) for gain, res, est_s in tests)


class WhatIf(NamedTuple):
    """A what-if replay's values: those earned by the window's arrivals and by the inherited
    queue (each done job's value at its simulated completion, in arrival, then queue, order),
    and its opportunity-cost tests. ``beaten_below``: if not None, the replay was given up as
    soon as its revenue could no longer exceed this bound (:class:`WhatIfQops`); its values are
    then empty and its tests those made so far."""

    arrivals: list[float]
    waiting: list[float]
    tests: list[tuple[float, int, float]]
    beaten_below: float | None = None
    script: list[Choice | None] | None = None  # with ``record``: the choice of each admission


def shared_calls(first: WhatIf, oc_first: float, oc: float) -> int:
    """How many admissions a replay at ``oc`` shares with ``first`` (a recorded replay at
    ``oc_first`` of the same window from the same state): those up to and including the one of
    the first opportunity-cost test they decide apart (its choice and gain are the same, only the
    decision differs), all of ``first``'s if none."""
    script = first.script or []
    tests = (
        i
        for i, (gain, res, est_s) in enumerate(first.tests)
        if (gain <= oc_first * res * est_s) != (gain <= oc * res * est_s)
    )
    apart = next(tests, None)
    if apart is None:
        return len(script)
    calls = [c for c, chosen in enumerate(script) if chosen is not None]  # each one with a choice made a test
    return calls[apart] + 1


class ScriptedQops(Qops):
    """VQoPS that records the choice of each admission (``script_out``: :meth:`Qops.choose`,
    the candidate schedule of highest revenue and its gain, or None), or takes those of its first
    ``reuse`` admissions from another replay's record (``script_in``): two replays of the same
    window from the same state, identical until an opportunity-cost test decided apart, have
    the same candidates, and so the same choice, until then (and at that test, whose decision
    is then made with this replay's factor). Their jobs are this replay's own, found by id."""

    def __init__(self, nb_hosts: int, options: opt.Options | None = None, **values: Any):
        super().__init__(nb_hosts, options, **values)
        self.script_in: list[Choice | None] = []
        self.reuse = 0
        self.script_out: list[Choice | None] | None = None
        self.calls = 0

    def choose(self, new: Job, now: float) -> Choice | None:
        call = self.calls
        self.calls = call + 1
        chosen: Choice | None
        if call < self.reuse:
            recorded = self.script_in[call]
            if recorded is None:
                chosen = None
            else:
                (pos, _, seq, starts, revenue), gain = recorded
                waiting = self.waiting
                by_id = {job.id: job for job in waiting[pos:]}
                by_id[new.id] = new
                chosen = ((pos, waiting[:pos], [by_id[j.id] for j in seq], starts, revenue), gain)
        else:
            chosen = super().choose(new, now)
        if self.script_out is not None:
            self.script_out.append(chosen)
        return chosen


class SwitchingQops(ScriptedQops):
    """VQoPS whose OC-factor changes over time: ``changes`` (time, factor), sorted by time; an
    arrival at ``now`` is decided with the factor of the last change at or before ``now``."""

    def __init__(
        self, nb_hosts: int, changes: list[tuple[float, float]], options: opt.Options | None = None, **values: Any
    ):
        super().__init__(nb_hosts, options, **values)
        self.change_times = [t for t, _ in changes]
        self.change_factors = [oc for _, oc in changes]

    def admit(self, job: Job, now: float) -> bool:
        i = bisect_right(self.change_times, now) - 1
        if i >= 0:
            self.oc_factor = self.change_factors[i]
        return super().admit(job, now)


class Beaten(Exception):
    """Raised by :class:`WhatIfQops` when its revenue can no longer exceed its bound."""


#: Relative slack of a what-if bound: a replay is given up only if even its revenue's upper bound
#: plus this share of the revenues compared stays below the bound (the sums' rounding is far smaller).
BOUND_SLACK = 1e-9


class WhatIfQops(SwitchingQops):
    """The VQoPS of a what-if replay that gives up (raises :class:`Beaten`) as soon as the revenue
    of the jobs it counts can no longer exceed ``bound``: then the choice it is a candidate of
    cannot fall on it, whatever the rest of the replay.

    ``counted``: job id -> (price, true runtime) of the jobs whose values make the revenue.
    After each scheduling call the revenue is at most the values of the counted jobs started so
    far (each known at its start: the replay runs it for its true runtime, or kills it at its
    walltime, which earns nothing) plus a cap on the value of each counted job neither started
    nor rejected: its price (a value never exceeds it), or for a waiting job its value if it
    started now (it starts no earlier, whatever arrives later, and a value never grows with the
    completion time: an admitted job is never rejected, and one that reaches its walltime earns
    nothing)."""

    def __init__(
        self,
        nb_hosts: int,
        changes: list[tuple[float, float]],
        bound: float,
        counted: dict[str, tuple[float, float]],
        options: opt.Options | None = None,
        **values: Any,
    ):
        super().__init__(nb_hosts, changes, options, **values)
        self.bound = bound
        self.runtime = {job_id: runtime for job_id, (_, runtime) in counted.items()}
        self.cap = {job_id: price for job_id, (price, _) in counted.items()}
        self.earned = 0.0  # values of the counted jobs started
        self.open = sum(self.cap.values())  # caps of the others not rejected

    def start(self, job: Job, now: float, hosts: IntervalSet | list[int] | None = None) -> Running:
        running = super().start(job, now, hosts)
        cap = self.cap.pop(job.id, None)
        if cap is not None:
            self.open -= cap
            runtime = self.runtime[job.id]
            if runtime < job.walltime_s:
                self.earned += self.value(job, now + runtime)
        return running

    def reject(self, job: Job) -> None:
        super().reject(job)
        cap = self.cap.pop(job.id, None)
        if cap is not None:
            self.open -= cap

    def plan(self, now: float) -> None:
        super().plan(now)
        cap, runtime, value = self.cap, self.runtime, self.value
        for job in self.waiting:  # the waiting ones' caps as of now
            old = cap.get(job.id)
            if old:
                new = value(job, now + runtime[job.id]) if runtime[job.id] < job.walltime_s else 0.0
                if new < old:
                    cap[job.id] = new
                    self.open -= old - new
        most = self.earned + self.open
        if most + BOUND_SLACK * (abs(most) + abs(self.bound)) < self.bound:
            raise Beaten


@cache
def vqops_options(k_factor: int, oc_factor: float) -> QopsOptions:
    """VQoPS's options at ``oc_factor``, parsed once (a what-if builds a scheduler per replay)."""
    return QopsOptions.parse({"k_factor": k_factor, "value_aware": True, "oc_factor": oc_factor})


def what_if_values(
    nb_hosts: int,
    history: History,
    oc_factor: float,
    k_factor: int,
    start_s: float,
    end_s: float,
    state: MachineState = EMPTY,
    submit_times: list[float] | None = None,
    changes: list[tuple[float, float]] | None = None,
    bound: float | None = None,
    count_waiting: bool = True,
    terms_cache: dict[str, QosTerms] | None = None,
    record: bool = False,
    script: tuple[list[Choice | None], int] | None = None,
) -> WhatIf:
    """VQoPS(``oc_factor``) replayed over the arrivals in [start_s, end_s), from ``state`` at
    ``start_s`` (:class:`WhatIf`). ``submit_times``: the history's submission times, if they
    never decrease (the window is then found by bisection). ``changes``: (time, factor), the
    OC-factor changing over the replay (:class:`SwitchingQops`) from ``oc_factor``. ``bound``:
    give the replay up (a beaten :class:`WhatIf`) as soon as the revenue of the window's
    arrivals (and, with ``count_waiting``, of the inherited queue) can no longer exceed it
    (:class:`WhatIfQops`). ``terms_cache``: job id -> QoS terms, read from it and added to
    (:attr:`Qops.terms_cache`). ``record``: the choice of each admission (:meth:`Qops.choose`), in the result's
    ``script``; ``script``: (another replay's script, how many of its admissions to take:
    :func:`shared_calls`)."""
    if submit_times is not None:
        window = history[bisect_left(submit_times, start_s) : bisect_left(submit_times, end_s)]
    else:
        window = [(j, runtime) for j, runtime in history if start_s <= j.submit_s < end_s]
    jobs = [(Job(j.id, j.submit_s, j.res, j.walltime_s, j.fields), runtime) for j, runtime in window]
    if not jobs and not state.waiting:
        return WhatIf([], [], [])
    options = vqops_options(k_factor, oc_factor)
    cache: dict[str, QosTerms] = {} if terms_cache is None else terms_cache
    if bound is not None:
        counted = [(job, runtime) for job, runtime, _ in state.waiting] if count_waiting else []
        prices = {}
        for job, runtime in jobs + counted:
            terms = cache.get(job.id)
            if terms is None:
                terms = cache[job.id] = QosTerms.of(job.fields, job.walltime_s)
            prices[job.id] = (terms.price, runtime)
        scheduler: ScriptedQops = WhatIfQops(nb_hosts, changes or [], bound, prices, options)
    else:
        scheduler = SwitchingQops(nb_hosts, changes or [], options)
    scheduler.value_tests = []
    if record:
        scheduler.script_out = []
    if script is not None:
        scheduler.script_in, scheduler.reuse = script
    scheduler.terms_cache = cache
    try:
        if state is EMPTY:
            out = replay(scheduler, jobs)
        else:
            out = replay(
                scheduler,
                jobs,
                running=[(job, start, end, hosts) for job, start, end, hosts, _ in state.running],
                actual_end_s={job.id: actual for job, _, _, _, actual in state.running},
                waiting=[(job, runtime) for job, runtime, _ in state.waiting],
                reserved={job.id: reserved for job, _, reserved in state.waiting},
                start_s=start_s,
            )
    except Beaten:
        return WhatIf([], [], scheduler.value_tests, beaten_below=bound, script=scheduler.script_out)

    value = scheduler.value  # (each job's terms read when it was submitted or handed over)

    def values(ids: list[str]) -> list[float]:
        return [
            value(o.job, o.end_s)
            for o in (out[i] for i in ids)
            if o.end_s is not None and not o.killed and not o.rejected
        ]

    return WhatIf(
        values([job.id for job, _ in jobs]),
        values([job.id for job, _, _ in state.waiting]),
        scheduler.value_tests,
        script=scheduler.script_out,
    )


@dataclass(frozen=True)
class DvqopsOptions(QopsOptions):
    value_aware: bool = fixed(True)  # DVQoPS is VQoPS
    oc_factor: float = fixed(0.0)  # chosen as it goes, from initial_oc_factor
    deadlines: str = fixed("refuse")  # value-aware: a job without terms pays nothing, and is rejected
    oc_factors: str = option("0,0.05,0.1,0.2,0.4", "candidate OC-factors, comma-separated")
    max_window_h: float = option(64.0, "largest rollback window (h); the window is re-chosen this often", low=1.0)
    initial_oc_factor: float = option(0.0, "OC-factor before the first what-if choice", low=0.0)
    window_h: float = option(0.0, "a fixed rollback window (h) instead of choosing one (0: choose)", low=0.0)
    what_if_start: str = option(
        "recorded",
        "what-if replays start from the machine's recorded state at the window's start (running jobs, "
        "accepted queue with its reservations) or from an empty machine (the reading before issue 15)",
        choices=("recorded", "empty"),
    )

    window_choice: str = option(
        "continuous",
        "how the choice of the window simulates DVQoPS over the last max_window_h hours: one replay from "
        "the state recorded then, its OC-factor changing every window (the paper's 'simulation starting "
        "in the past', sec. 4.3), or one replay per window from the state recorded at its start (the "
        "reading before: the factor of one window never pays for the jobs it took in the next)",
        choices=("continuous", "piecewise"),
    )

    ties: str = option(
        "smallest",
        "among candidates of equal what-if revenue (OC-factors, windows) keep the smallest, or the one in "
        "force if it is among them (the paper is silent; sec. 4.3.2 asks for stable choices)",
        choices=("smallest", "current"),
    )

    def check(self) -> None:
        try:
            factors = [float(x) for x in self.oc_factors.split(",") if x.strip()]
        except ValueError:
            raise OptionError(
                f"option oc_factors={self.oc_factors!r}: expected numbers separated by commas", option="oc_factors"
            ) from None
        if not factors or not all(math.isfinite(factor) and factor >= 0 for factor in factors):
            raise OptionError(
                f"option oc_factors={self.oc_factors!r}: needs at least one factor, each a finite number >= 0",
                option="oc_factors",
            )


@mypyc_attr(allow_interpreted_subclasses=True)  # a researcher's own scheduler may extend it
class Dvqops(Qops):
    name = "dvqops"
    Options = DvqopsOptions

    def __init__(self, nb_hosts: int, options: opt.Options | None = None, **values: Any):
        super().__init__(nb_hosts, options, **values)
        o = opt.narrow(self.options, DvqopsOptions)
        self.oc_factor = o.initial_oc_factor
        self.terms_cache = {}  # every job's QoS terms, read once for the live run and its what-ifs
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
        # What the what-ifs read of the history, kept up to date as jobs arrive and end rather
        # than rebuilt at each retune: (job, runtime) of every arrival (:meth:`_known`), the
        # index of each job's entry, the submission times, and whether they never decrease.
        self.known: History = []
        self.known_at: dict[str, int] = {}
        self.submit_times: list[float] = []
        self.in_order = True
        self.origin_s: float | None = None  # the first arrival
        self.next_oc_s = INF  # when the OC-factor is chosen again
        self.next_window_s = INF  # when the window is chosen again
        self.choices: list[tuple[float, float, float]] = []  # (time, oc_factor, window_s): for plots and tests
        self.recorded = o.what_if_start == "recorded"
        self.continuous = o.window_choice == "continuous"
        self.keep_on_ties = o.ties == "current"
        # The machine after each scheduling call: times, and (running ids, [(waiting id, reserved start)]).
        self.state_times: list[float] = []
        self.states: list[tuple[list[str], list[tuple[str, float]]]] = []
        # Within one retune: its what-if replays (oc_factor, start, end) -> values, and the
        # runtimes of the history it reads.
        self._replays: dict[tuple[float, float], dict[float, WhatIf]] = {}
        self._runtimes: tuple[History, dict[str, float]] | None = None
        self._submits: tuple[History, list[float] | None] | None = None

    # -- history -----------------------------------------------------------------------
    def on_submit(self, job: Job, now: float) -> None:
        if self.origin_s is None:
            self.origin_s = now
            self.next_oc_s = now + self.window_s
            self.next_window_s = now + self.max_window_s
        entry = Arrival(Job(job.id, job.submit_s, job.res, job.walltime_s, job.fields))
        self.history.append(entry)
        self.by_id[job.id] = entry
        self.known_at[job.id] = len(self.known)
        self.known.append((entry.job, entry.job.walltime_s * (1 - 1e-9)))
        if self.submit_times and job.submit_s < self.submit_times[-1]:
            self.in_order = False
        self.submit_times.append(job.submit_s)
        super().on_submit(job, now)

    def on_complete(self, running: Running, now: float, state: str = "COMPLETED_SUCCESSFULLY") -> None:
        entry = self.by_id.get(running.job.id)
        if entry is not None:
            entry.runtime_s = now - running.start_s
            self.known[self.known_at[running.job.id]] = (entry.job, entry.runtime_s)
        super().on_complete(running, now, state)

    def _record_state(self, now: float) -> None:
        """Notes the machine's state after this call (replacing one of the same instant) and
        forgets those no what-if replay can start from any more."""
        state = (list(self.running), [(job.id, self.reservation[job.id]) for job in self.waiting])
        if self.state_times and self.state_times[-1] == now:
            self.states[-1] = state
        else:
            self.state_times.append(now)
            self.states.append(state)
        horizon = now - 2 * max(self.max_window_s, self.window_s)
        if self.state_times[0] < horizon:
            cut = bisect_left(self.state_times, horizon)
            del self.state_times[:cut], self.states[:cut]

    def state_at(self, t: float, history: History) -> MachineState:
        """The machine as it was just before ``t`` (its last scheduling call earlier than ``t``),
        the runtimes taken from ``history``; empty with ``what_if_start`` = ``empty``."""
        i = bisect_left(self.state_times, t) - 1
        if not self.recorded or i < 0:
            return EMPTY
        runtime: Callable[[str], float]
        if history is self.known:
            known, at = self.known, self.known_at
            runtime = lambda job_id: known[at[job_id]][1]  # noqa: E731
        else:
            if self._runtimes is None or self._runtimes[0] is not history:
                self._runtimes = (history, {job.id: r for job, r in history})
            runtime = self._runtimes[1].__getitem__
        running_ids, waiting = self.states[i]
        state = MachineState()
        for job_id in running_ids:
            a = self.by_id.get(job_id)
            if a is None or a.start_s is None:
                continue
            actual = a.start_s + runtime(job_id)
            if actual > t:  # (a job ended at t has been reported before t's arrivals)
                state.running.append((a.job, a.start_s, a.start_s + a.job.walltime_s, a.hosts, actual))
        for job_id, reserved_s in waiting:
            a = self.by_id[job_id]
            state.waiting.append((a.job, runtime(job_id), reserved_s))
        return state

    def _known(self) -> History:
        """(job, runtime) of the history: actual runtime if done, else (just under) the estimate
        (kept up to date as jobs arrive and end: read it, never change it)."""
        return self.known

    # -- the two what-if choices --------------------------------------------------------
    #: Whether a retune takes the shortcuts that leave every choice unchanged. It reuses its
    #: what-if replays: the same replay (factor, window, state) asked again in the same retune
    #: (the revenue of one window in the choice of the window is one of the next window's
    #: OC-factor replays), or one at another factor that would decide every opportunity-cost
    #: test alike (:func:`same_decisions`: at high load the factors 0.1 to 0.4 often turn away
    #: the same jobs). And it gives a candidate's replay up as soon as its revenue can no longer
    #: exceed the best candidate's so far (:class:`WhatIfQops`), the candidate in force being
    #: replayed first (it is often the best). A replay at another factor also takes the chosen
    #: schedule and gain of the admissions it shares with one already made (:func:`shared_calls`)
    #: instead of planning and valuing them again. False only to check that the choices do not depend on them.
    reuse_replays = True

    def _values(
        self, history: History, oc_factor: float, start_s: float, end_s: float, bound: float | None = None
    ) -> WhatIf:
        """:func:`what_if_values` from the state recorded at ``start_s``, each replayed once per
        retune; with ``bound``, beaten if its revenue cannot exceed it (a replay beaten below a
        bound is beaten below any higher one, and so is one at a factor deciding alike every
        test it made before it was given up: the two replays were the same until then)."""
        done = self._replays.setdefault((start_s, end_s), {})
        found = done.get(oc_factor)
        if found is None and self.reuse_replays:
            found = next((w for oc, w in done.items() if same_decisions(w.tests, oc, oc_factor)), None)
        below = None if found is None else found.beaten_below
        if found is None or (below is not None and (bound is None or bound < below)):
            state = self.state_at(start_s, history)
            submits = self._submit_times(history)
            bound = bound if self.reuse_replays else None
            # the admissions it shares with a replay already made (the most of them)
            shared = max(
                ((w.script, shared_calls(w, oc, oc_factor)) for oc, w in done.items() if w.script),
                key=lambda pair: pair[1],
                default=None,
            )
            found = what_if_values(
                self.nb_hosts,
                history,
                oc_factor,
                self.k_factor,
                start_s,
                end_s,
                state,
                submits,
                bound=bound,
                terms_cache=self.terms_cache,
                record=self.reuse_replays,
                script=shared if self.reuse_replays else None,
            )
        if self.reuse_replays:
            done[oc_factor] = found
        return found

    def _submit_times(self, history: History) -> list[float] | None:
        """The submission times of ``history`` if they never decrease (else None), once per history."""
        if history is self.known:
            return self.submit_times if self.in_order else None
        if self._submits is None or self._submits[0] is not history:
            times = [job.submit_s for job, _ in history]
            self._submits = (history, times if all(a <= b for a, b in pairwise(times)) else None)
        return self._submits[1]

    def _best_oc_factor(self, history: History, start_s: float, end_s: float, current: float) -> float:
        """The OC-factor of highest what-if revenue over [start_s, end_s), replayed from the state
        recorded at ``start_s``, the inherited queue's revenue included (ties: ``ties``)."""
        revenues: list[tuple[float, float]] = []
        best = None
        for oc in sorted(self.oc_factors, key=lambda oc: oc != current):  # (the one in force first)
            arrivals, waiting, _, beaten, _ = self._values(history, oc, start_s, end_s, best)
            if beaten is None:
                revenue = sum(arrivals + waiting)
                revenues.append((revenue, -oc))
                best = revenue if best is None else max(best, revenue)
        return self._tie(revenues, current)

    def _tie(self, scores: list[tuple[float, float]], current: float) -> float:
        """The candidate of highest score, ``scores`` being (score, -candidate); among equals the
        current one (``ties`` = ``current``) if it is one of them, else the smallest."""
        best = max(scores)
        if self.keep_on_ties and any(score == best[0] and -c == current for score, c in scores):
            return current
        return -best[1]

    def simulate_dvqops(
        self, history: History, window_s: float, start_s: float, end_s: float, bound: float | None = None
    ) -> float | None:
        """Revenue of the arrivals of [start_s, end_s) under DVQoPS with a fixed window: the
        OC-factor is re-chosen every window from the window before (the first one keeps the
        current). ``window_choice``: one replay over the whole span, the factor changing at
        each window (``continuous``), or one replay per window, each from the state recorded
        at its start (``piecewise``). ``bound`` (``continuous``): None if the revenue cannot
        exceed it (the replay is given up as soon as it is sure)."""
        changes, t, oc = [], start_s, self.oc_factor
        while t < end_s:
            if t - window_s >= (self.origin_s or 0.0):
                oc = self._best_oc_factor(history, t - window_s, t, oc)
            changes.append((t, oc))
            t += window_s
        if self.continuous:
            state = self.state_at(start_s, history)
            submits = self._submit_times(history)
            arrivals, _, _, beaten, _ = what_if_values(
                self.nb_hosts,
                history,
                changes[0][1],
                self.k_factor,
                start_s,
                end_s,
                state,
                submits,
                changes,
                bound=bound if self.reuse_replays else None,
                count_waiting=False,
                terms_cache=self.terms_cache,
            )
            return None if beaten is not None else sum(arrivals)
        total = 0.0
        for t, oc in changes:
            # (the queue inherited at t is counted with the window it arrived in)
            arrivals, _, _, _, _ = self._values(history, oc, t, min(t + window_s, end_s))
            total += sum(arrivals)
        return total

    def _best_window(self, history: History, now: float) -> float:
        """The window of highest simulated revenue over the last ``max_window_h`` hours (ties:
        ``ties``), the one in force simulated first."""
        start = now - self.max_window_s
        scores: list[tuple[float, float]] = []
        best = None
        for w in sorted(self.windows_s, key=lambda w: w != self.window_s):
            revenue = self.simulate_dvqops(history, w, start, now, best)
            if revenue is not None:
                scores.append((revenue, -w))
                best = revenue if best is None else max(best, revenue)
        return self._tie(scores, self.window_s)

    def retune(self, now: float) -> None:
        history = None
        self._replays = {}
        if now >= self.next_window_s and not self.fixed_window:
            history = self._known()
            self.window_s = self._best_window(history, now)
            self.next_window_s = now + self.max_window_s
        if now >= self.next_oc_s:
            history = history or self._known()
            self.oc_factor = self._best_oc_factor(history, now - self.window_s, now, self.oc_factor)
            self.next_oc_s = now + self.window_s
            self.choices.append((now, self.oc_factor, self.window_s))
        self._replays, self._runtimes, self._submits = {}, None, None

    def plan(self, now: float) -> None:
        if self.arrivals and self.origin_s is not None:
            self.retune(now)
        for job in self.arrivals:  # the trajectory, readable from _jobs.csv
            self.record(job, oc_factor=self.oc_factor, window_h=self.window_s / HOUR_S)
        super().plan(now)
        if self.recorded:
            self._record_state(now)

    def start(self, job: Job, now: float, hosts: IntervalSet | list[int] | None = None) -> Running:
        running = super().start(job, now, hosts)
        entry = self.by_id.get(job.id)
        if entry is not None:
            entry.start_s, entry.hosts = now, running.hosts
        return running
