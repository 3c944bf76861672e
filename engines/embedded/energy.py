"""Batsim 4.2.1's energy accounting (``-E``) on the embedded engine's kernel.

Reference: batsim-energy.md (``../shared/reference``) §3, from SimGrid 3.32's host energy plugin
(``src/plugins/host_energy.cpp``) and Batsim's readers (``src/machines.cpp:413-449, 818-835``).

**Per host** (:class:`EnergyMeter`), SimGrid keeps the energy so far (a double), the time of its
last update and the pstate saved then. An update charges the whole interval since the last one at
the power that holds *at update time* (§3.1): ``Idle`` at no CPU load, ``Epsilon + cpu_load x
slope`` otherwise (:meth:`~adaptsched.engines.embedded.power.MachinePower.watts`), then saves the
pstate. Updates happen only at these triggers (§3.2), which the engine reproduces where SimGrid
fires them:

- U1, a read by Batsim (:func:`read`): every row of ``_consumed_energy.csv``, each QUERY, the first
  job submission, and a job's start and end (over its hosts). Each host not yet updated at this
  time costs the reading actor one simcall, which changes how actors interleave at that time:
  :data:`~adaptsched.engines.embedded.kernel.UPDATE` is that simcall.
- U2, a pstate change of the host (:meth:`EnergyMeter.set_pstate`, a simcall).
- U3, the end, cancel or drop of a CPU action on the host (:meth:`Execution.on_end`): a parallel
  task's end updates all its hosts, a job's delay its first host only; the load is still the
  ending action's.
- U4, the start of an execution on exactly one host (:meth:`Execution.started`, in the actor).

An execution's load (``flops x rate`` on each host, §3.1) counts from the next LMM solve (the
kernel's ``on_solve``): on network-less platforms the rate is ``min speed / flops`` over its hosts;
on others it is what the network model solved, zero while the latency is being paid. So, as in
SimGrid, a load change with no trigger on a host is charged back to that host's last update (the
right-endpoint rule, §3.2: a composed profile's delay charged at its parallel task's power).

**Sums** (§3.4): a host's energy is a double; totals over hosts are ``long double`` (x87 80-bit:
``numpy.longdouble`` on x86-64 Linux), added in machine-id order, printed with ``%Lf``
(:func:`long_double_sums`: on int64 when no partial sum can round, which gives the same bits;
:func:`ld_text`).

**Cost**: the model's work at a job's start or end is a few numpy operations on the hosts'
arrays (an update has no stale mask; a single host is updated on scalars), the
``_consumed_energy.csv`` rows are summed and printed in batches (``energy_outputs.py``), the
machine-state times added in batches (``machines.py``), reads in lockstep are made by the
meter (:meth:`EnergyMeter.lockstep`) rather than by resuming their actors round after round, and
a read by an actor known to run alone skips the kernel's round trip
(:meth:`EnergyMeter.runs_alone`).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import numpy as np

from adaptsched.engines.embedded.kernel import UPDATE, Kernel
from adaptsched.engines.embedded.power import PowerModel

LongDouble = Any  # numpy.longdouble (mypy knows it as floating[Any])


#: Bits of a long double's significand (64 on x86-64 Linux, x87's format).
LONG_DOUBLE_BITS = np.finfo(np.longdouble).nmant + 1


def long_double_sums(rows: np.ndarray, work: SumsWork | None = None) -> np.ndarray:
    """Σ of each row of doubles, added in order in long double (``np.cumsum``: sequential).

    When every value is a multiple of 2^-k such that 2^k x Σ|values| < 2^(bits - 1), every partial
    sum is exact, so the long double sums are the exact sums: taken on integers (int64, any order),
    several times faster than 80-bit additions (energies in whole joules: idle hosts, whole seconds).
    ``work``: buffers at least as large as ``rows`` for the scaled values (no temporary arrays of
    its size, whose pages the system would map and clear at each call: 10x the arithmetic).
    """
    if not rows.size:
        return np.zeros(len(rows), dtype=np.longdouble)
    bound = max(float(rows.max()), -float(rows.min())) * rows.shape[1]
    k = min(LONG_DOUBLE_BITS, 62) - 1 - int(np.ceil(np.log2(bound))) if 0 < bound < np.inf else -1
    if k >= 0:  # a scale up by 2^k: exact (no value can underflow or overflow), cheaper than ldexp
        if work is None:
            work = SumsWork(*rows.shape)
        scaled, whole, equal = work.views(*rows.shape)
        np.multiply(rows, float(2**k), out=scaled)
        np.copyto(whole, scaled, casting="unsafe")
        if np.equal(whole, scaled, out=equal).all():
            sums: np.ndarray = np.ldexp(whole.sum(axis=1).astype(np.longdouble), -k)
            return sums
    return np.cumsum(rows, axis=1, dtype=np.longdouble)[:, -1]


class SumsWork:
    """:func:`long_double_sums`'s buffers for up to ``nb_rows`` rows of ``width`` values."""

    def __init__(self, nb_rows: int, width: int) -> None:
        self.scaled = np.empty((nb_rows, width))
        self.whole = np.empty((nb_rows, width), dtype=np.int64)
        self.equal = np.empty((nb_rows, width), dtype=bool)

    def views(self, nb_rows: int, width: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self.scaled[:nb_rows, :width], self.whole[:nb_rows, :width], self.equal[:nb_rows, :width]


class HostSet:
    """Machine ids a read covers, ascending: ``sel`` (a slice when they are one run, else an
    index array: numpy's cheaper selection), ``ids`` (an array, for scans: made when first
    asked for, which most reads never do); ``all``: every machine."""

    __slots__ = ("_ids", "all", "first", "n", "sel")

    def __init__(self, runs: list[tuple[int, int]], nb_machines: int) -> None:
        self._ids: np.ndarray | None
        if len(runs) == 1:
            low, high = runs[0]
            self._ids = None
            self.sel: Any = slice(low, high + 1)
            self.n = high + 1 - low
        else:
            pieces = [np.arange(low, high + 1) for low, high in runs]
            self._ids = self.sel = np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.int64)
            self.n = len(self._ids)
        self.first = runs[0][0] if runs else -1
        self.all = self.n == nb_machines

    @property
    def ids(self) -> np.ndarray:
        if self._ids is None:
            self._ids = np.arange(self.sel.start, self.sel.stop)
        return self._ids


def ld_text(value: LongDouble) -> str:
    """``%Lf`` of a long double (six decimals, rounded exactly, as glibc prints them). A value that
    is a double too (an energy in whole joules, often) is printed as one: Python's ``%f`` rounds
    exactly as well, and 10x faster than numpy's formatting of a long double."""
    as_double = float(value)
    if value == as_double:
        return "%f" % as_double
    return np.format_float_positional(value, precision=6, unique=False, fractional=True)


class EnergyMeter:
    """SimGrid's per-host energy (``HostEnergy``) of every summed machine, as numpy arrays."""

    def __init__(self, model: PowerModel, kernel: Kernel) -> None:
        machines = model.machines
        n = len(machines)
        self.model = model
        self.kernel = kernel
        self.n = n
        self.all = HostSet([(0, n - 1)] if n else [], n)
        self.energy = np.zeros(n)  # total_energy_ (J, double)
        self.last = np.zeros(n)  # last_updated_
        self.pstate = np.array([m.pstate for m in machines], dtype=np.int64)
        self.load = np.zeros(n)  # get_load(): flop/s on the host's CPU, as the last solve left it
        width = max(len(m.speeds) for m in machines)

        def pad(values: list[tuple[float, ...]]) -> np.ndarray:
            """One row per machine, one column per pstate (0 beyond a machine's pstates)."""
            return np.array([list(v) + [0.0] * (width - len(v)) for v in values])

        self.latest = -1.0  # the latest time a host was updated at (a read's scan starts with it)
        self.version = 0  # counts the updates (the cached total of every host goes stale)
        self._total: LongDouble = np.longdouble(0)
        self._total_version = -1
        self._speed = pad([m.speeds for m in machines])
        self._idle = pad([m.idle for m in machines])
        self._epsilon = pad([m.epsilon for m in machines])
        self._slope = pad([m.slope for m in machines])
        self._cores = np.array([float(m.cores) for m in machines])
        self.watts = np.zeros(n)  # the power the next update charges
        self._refresh_watts(self.all.ids)
        self._wattmin: LongDouble | None = None
        self.executions: dict[int, Execution] = {}  # running CPU actions with a load, by id()
        self._pending: list[Execution] = []  # started since the last solve: loaded from the next one
        self.fresh_at = -1.0  # a time at which every host was updated (reads skip their scan)
        self.solo_round = -2  # the kernel's sub-round in which a read was last answered alone
        self.network = False  # rates come from the network model's solve (NetworkKernel)

    # -- power --------------------------------------------------------------------------------
    def _refresh_watts(self, ids: Any) -> None:
        """``watts[ids]`` from their pstates and loads (``host_energy.cpp:262-330``, vectorized)."""
        ps = self.pstate[ids]
        speed = self._speed[ids, ps]
        with np.errstate(divide="ignore", invalid="ignore"):
            cpu = self.load[ids] / speed
            cpu /= self._cores[ids]
        cpu = np.where(speed <= 0, 1.0, np.minimum(cpu, 1.0))
        self.watts[ids] = np.where(cpu > 0, self._epsilon[ids, ps] + cpu * self._slope[ids, ps], self._idle[ids, ps])

    def wattmin(self) -> LongDouble:
        """Σ Epsilon of each machine's current pstate (``total_wattmin``), long double."""
        if self._wattmin is None:
            values = self._epsilon[self.all.ids, self.pstate].astype(np.longdouble)
            self._wattmin = np.cumsum(values)[-1] if self.n else np.longdouble(0)
        return self._wattmin

    # -- updates ------------------------------------------------------------------------------
    def update(self, sel: Any) -> None:
        """``HostEnergy::update()`` of hosts ``sel`` (a slice or an index array), now. A host
        already updated now gains ``watts x 0`` = 0 J exactly (watts are finite): no stale mask."""
        now = self.kernel.now
        self.energy[sel] += self.watts[sel] * (now - self.last[sel])
        self.last[sel] = now
        self.latest = now
        self.version += 1

    def update_one(self, machine: int) -> None:
        """:meth:`update` of one host, on scalars (the same double arithmetic)."""
        now = self.kernel.now
        last = self.last[machine]
        if last < now:
            self.energy[machine] += self.watts[machine] * (now - last)
            self.last[machine] = now
            self.latest = now
            self.version += 1

    def update_simcall(self, scan: Scan, alone: bool) -> bool:
        """The kernel's handling of an :data:`UPDATE` simcall of :func:`read` for host ``scan.i``
        of ``scan.hosts``; ``alone``: no other actor runs at this time, so the read's remaining
        simcalls are made at once (the hosts before ``scan.i`` were updated now: all of them are).
        Returns whether the read is done."""
        hosts = scan.hosts
        if alone:
            self.update_alone(hosts)
            self.solo_round = self.kernel.sub_rounds
            return True
        self.update_one(int(hosts.ids[scan.i]))
        return False

    def update_alone(self, hosts: HostSet) -> None:
        """A read's simcalls made at once by an actor alone (the hosts updated now gain 0 J)."""
        self.update(hosts.sel)
        if hosts.all:
            self.fresh_at = self.kernel.now

    def read_at_once(self, hosts: HostSet) -> int:
        """:func:`read`'s first step, which the hot paths take without a generator: -1 when the read
        needs no simcall (every host was updated now, or the actor runs alone: then it is made
        now), else the index in ``hosts`` of the first host not updated now."""
        i = self.first_stale(hosts, 0)
        if i >= 0 and self.runs_alone():
            self.update_alone(hosts)
            return -1
        return i

    def runs_alone(self) -> bool:
        """Whether the running actor is alone in this sub-round: the kernel answered its read
        alone in the previous one, so it is the only one the kernel resumed (no other was ready,
        none ended) and it has not yielded since (else the sub-round would be a later one). Its
        next read's simcall would be handled alone: :func:`read` makes it without the round trip,
        which no other actor could see."""
        return self.solo_round == self.kernel.sub_rounds - 1

    def lockstep(self, scans: list[Scan]) -> int:
        """Sub-rounds in which the actors of ``scans`` (in the kernel's order) only read, each
        making one :data:`UPDATE` simcall, made here without resuming them: each round, every
        actor takes its next host not updated before the round (they all run before the kernel
        handles their simcalls), then each updates its own. Stops before a round in which an
        actor's read ends; returns the rounds made. Their actors then resume from ``scan.i`` as
        if they had made them. The hosts are updated at the end, at once: nothing else happens
        in between, and a host's update does not depend on another's."""
        now = self.kernel.now
        queues = []  # by scan: (index, host) of its hosts after scan.i not updated now, in order
        for scan in scans:
            start = scan.i + 1
            indices = (self.last[scan.hosts.ids[start:]] < now).nonzero()[0] + start
            queues.append(list(zip(indices.tolist(), scan.hosts.ids[indices].tolist())))
        rounds = self._lockstep_at_once(scans, queues)
        if rounds is not None:
            return rounds
        positions = [0] * len(scans)
        updated: set[int] = set()
        rounds = 0
        while True:
            picks = []
            for queue, position in zip(queues, positions):
                while position < len(queue) and queue[position][1] in updated:
                    position += 1
                if position == len(queue):  # this actor's read ends in this round
                    if updated:
                        self.update(np.fromiter(updated, dtype=np.int64, count=len(updated)))
                    return rounds
                picks.append(position)
            for k, (scan, queue, position) in enumerate(zip(scans, queues, picks)):
                scan.i, host = queue[position]
                updated.add(host)
                positions[k] = position + 1
            rounds += 1

    def _lockstep_at_once(self, scans: list[Scan], queues: list[list[tuple[int, int]]]) -> int | None:
        """:meth:`lockstep`'s rounds without playing them, in its two common cases (else None):
        every actor has the same queue (then each round they all take its next host: as many
        rounds as it has hosts), or no host is in two queues (each takes its own next host until
        the shortest queue is done)."""
        first = queues[0]
        if all(queue == first for queue in queues):
            rounds = len(first)
        elif len({host for queue in queues for _, host in queue}) == sum(len(queue) for queue in queues):
            rounds = min(len(queue) for queue in queues)
        else:
            return None
        if rounds:
            for scan, queue in zip(scans, queues):
                scan.i = queue[rounds - 1][0]
            taken = {host for queue in queues for _, host in queue[:rounds]}
            self.update(np.fromiter(taken, dtype=np.int64, count=len(taken)))
        return rounds

    def first_stale(self, hosts: HostSet, start: int) -> int:
        """Index in ``hosts`` of the first host from ``start`` not updated now, or -1."""
        now = self.kernel.now
        if start >= hosts.n:
            return -1
        if self.latest < now:  # no host was updated now
            return start
        if self.fresh_at == now and hosts.all:
            return -1
        stale = self.last[hosts.sel] < now
        if start:
            stale = stale[start:]
        first = int(stale.argmax())  # (the first True, or 0 when there is none)
        if not stale[first]:
            if start == 0 and hosts.all:
                self.fresh_at = now
            return -1
        return start + first

    def total(self, hosts: HostSet) -> LongDouble:
        """Σ (long double) energy over ``hosts``, in id order (``consumed_energy_on_machines``);
        ``np.cumsum`` adds in order (``np.sum`` is pairwise)."""
        if hosts.all:
            if self._total_version != self.version:
                self._total = long_double_sums(self.energy[None, :])[0] if self.n else np.longdouble(0)
                self._total_version = self.version
            return self._total
        if hosts.n == 1:
            return np.longdouble(self.energy[hosts.first])
        return self.energy[hosts.sel].astype(np.longdouble).cumsum()[-1]  # (cheaper than cumsum(dtype=))

    def set_pstate(self, machine: int, pstate: int) -> None:
        """``Host::set_pstate`` (a simcall): U2 update at the old pstate, then the new one."""
        self.update_one(machine)
        self.pstate[machine] = pstate
        self._refresh_watts(slice(machine, machine + 1))
        self._wattmin = None

    # -- loads (solves) -----------------------------------------------------------------------
    def on_solve(self) -> None:
        """At each solve: the executions started since become loads (network-less platforms: at
        the rate ``min speed / flops``); with a network model, every running one's rate is read.
        The kernel calls it at every solve with a network model, else only at the next solve
        after an execution started (:meth:`watch_solves`; delays, most of a trace's jobs, have
        no load)."""
        if self.network:
            for execution in self.executions.values():
                execution.load_from_rate()
        else:
            self.kernel.on_solve = None
            pending, self._pending = self._pending, []
            for execution in pending:
                if execution.running:
                    execution.load_from_rate()

    def watch_solves(self) -> None:
        """The kernel calls :meth:`on_solve` at its next solve (at every one with a network)."""
        self.kernel.on_solve = self.on_solve


class Execution:
    """The energy model's hooks on one CPU action on ``hosts`` (machine ids, in the action's
    order) with ``flops`` on each: a job's parallel task, a switch's 1-flop execution, or a job's
    delay (``flops`` None: no load; its hosts, the actor's host only)."""

    __slots__ = ("action", "flops", "hosts", "ids", "meter", "running")

    def __init__(self, meter: EnergyMeter, hosts: list[int], flops: list[float] | None) -> None:
        self.meter = meter
        self.hosts = hosts
        self.ids = np.array(hosts, dtype=np.int64)
        self.flops = flops
        self.running = False
        self.action: Any = None

    def on_start(self, action: Any) -> None:
        """The kernel started the action: its load counts from the next solve."""
        meter = self.meter
        if self.flops is not None and any(f > 0 for f in self.flops):
            self.running = True
            self.action = action
            meter.executions[id(self)] = self
            if not meter.network:
                meter._pending.append(self)
                meter.watch_solves()

    def started(self) -> None:
        """U4, in the actor once its start simcall is answered (``Exec::on_start``, fired in the
        actor, ``s4u_Exec.cpp:44-58``): an execution on one host updates it, at no load yet."""
        if len(self.hosts) == 1:
            self.meter.update_one(self.hosts[0])

    def load_from_rate(self) -> None:
        """``get_load()`` of its hosts: flops x rate, the rate as SimGrid's solve gives it."""
        meter, flops = self.meter, self.flops
        assert flops is not None
        action = self.action
        if meter.network:
            rate = action.value if action.penalty > 0 else 0.0
        else:
            rate = min(meter._speed[h, meter.pstate[h]] / f for h, f in zip(self.hosts, flops) if f > 0)
        loads = np.array([f * rate for f in flops])
        if not np.array_equal(meter.load[self.ids], loads):
            meter.load[self.ids] = loads
            meter._refresh_watts(self.ids)

    def on_end(self, action: Any) -> None:
        """U3: the hosts are charged at the load they still bear, which then drops."""
        meter = self.meter
        meter.update(self.ids)
        if self.running:
            self.running = False
            meter.executions.pop(id(self), None)
            if meter.load[self.ids].any():
                meter.load[self.ids] = 0.0
                meter._refresh_watts(self.ids)


class DelayEnd:
    """The energy model's hook on a job's delay: its end updates the actor's host (U3), the job's
    first machine; a delay puts no load."""

    __slots__ = ("machine", "meter")

    def __init__(self, meter: EnergyMeter, machine: int) -> None:
        self.meter = meter
        self.machine = machine

    def on_end(self, action: Any) -> None:
        self.meter.update_one(self.machine)


class Scan:
    """A read in progress: its hosts and the index of the host its pending simcall updates."""

    __slots__ = ("hosts", "i")

    def __init__(self, hosts: HostSet, i: int) -> None:
        self.hosts = hosts
        self.i = i


def read(
    meter: EnergyMeter, hosts: HostSet, total: bool = True, first: int | None = None
) -> Generator[Any, Any, LongDouble]:
    """Batsim's read of the energy of ``hosts`` (``sg_host_get_consumed_energy`` on each, in
    order): one :data:`UPDATE` simcall per host not yet updated now, checked when the reading actor
    runs and made when the kernel handles it (which may advance ``scan.i``:
    :meth:`EnergyMeter.lockstep`), or at once by an actor alone in its sub-round
    (:meth:`EnergyMeter.runs_alone`). Returns their long double sum (``total``: else None).
    ``first``: what :meth:`EnergyMeter.read_at_once` returned, when the caller already asked."""
    i = meter.read_at_once(hosts) if first is None else first
    if i >= 0:
        scan = Scan(hosts, i)
        while not (yield (UPDATE, meter, scan)):
            i = meter.first_stale(hosts, scan.i + 1)
            if i < 0:
                break
            scan.i = i
    return meter.total(hosts) if total else None
