"""A minimal discrete-event kernel with SimGrid 3.32's scheduling semantics.

Batsim is a set of SimGrid actors exchanging messages through mailboxes. Which
events reach the scheduler together, and in which order, follows from how SimGrid
interleaves those actors at equal simulated times, so the embedded engine runs
the same actors (``batsim.py``) on a kernel that reproduces that interleaving
(SimGrid sources: ``src/kernel/EngineImpl.cpp``, ``activity/CommImpl.cpp``,
``activity/ActivityImpl.cpp``, ``surf/ptask_L07.cpp``):

- Actors are generators. Each ``yield`` is a *simcall*. A sub-round runs every
  ready actor up to its next simcall, then handles the simcalls in the order the
  actors ran. An answered simcall puts its actor back in the ready list, in
  answer order; an actor created by a simcall is ready before its creator.
- A put or a get matches the oldest opposite request of the mailbox (FIFO),
  which starts the transfer, and blocks until the transfer completes. SimGrid
  does this with two simcalls (isend/irecv, then wait); here it is one (``PUT``,
  ``GET``), which changes nothing observable: the wait only registers the actor
  on its transfer, in the same order relative to the other party, and no other
  actor's simcall or position in the ready list depends on it.
- Time only moves when no actor is ready (``solve``). Transfers take 1e-20 s on
  the platforms we generate (see Transfers below) and complete in a later solve. Every action
  done by the earliest end finishes in that solve: sleeps and wait timeouts
  within SimGrid's timing precision (1e-9 s), executions within 1e-14 of their
  work. They finish in creation order (ptask_L07 keeps one started-action list),
  and the waiters of each are answered in the order they started waiting.

Transfers. On the platforms ``adaptsched platform`` generates (no links; SimGrid's
implicit loopback set to 1e20 B/s, no latency) each of Batsim's 1-byte messages takes
``TRANSFER_S`` = 1 / 1e20 s: the solve that completes them moves SimGrid's clock by that
much, and subtracts it from every running action. From t = 2**-12 s (about 2.4e-4 s) on,
adding 1e-20 to the clock or subtracting it from a remaining duration of 2**-12 s or more
changes no bit, so the kernel steps by ``TRANSFER_S`` only while the step still moves
the clock: this gives the first rows of ``_machine_states.csv`` (a job starting at
t = 9e-20 s) exactly as SimGrid. Later, SimGrid's 1e-20 steps change only actions with
less than 2**-12 s left (a decision timestamped a few microseconds ahead, a 1e-5 s
CALL_ME_LATER), by k x 1e-20 s over k messages; the clock then reaches their end at most
one ulp apart, with a probability of about k x 1e-20 / ulp(now) (1e-10 per message near
t = 1e5 s): unmodelled. On other platforms, whose messages take time, the engine runs
``network.py``'s kernel instead (SimGrid's ptask_L07 model: docs/network.md).
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Generator
from itertools import count
from typing import Any

#: A simcall, as an actor yields it: its opcode first, then its arguments.
Simcall = tuple[Any, ...]
#: An actor's body: a generator of simcalls, each answered by what the kernel sends back.
Body = Generator[Simcall, Any, Any]

# Simcall opcodes (first item of the tuple an actor yields).
PUT, GET, SLEEP, CREATE, KILL, EXEC_START, EXEC_WAIT, EXEC_CANCEL = range(8)
# Simcalls of the energy model (engines/embedded/energy.py): an energy read's update of one host
# (UPDATE), a call answered at once (CALL: SimGrid's simcall_answered, e.g. set_pstate), a sleep
# whose end is reported to hooks (SLEEP_HOOKED: a job's delay, whose end updates its host's energy).
UPDATE, CALL, SLEEP_HOOKED = range(8, 11)

TIMING_PRECISION_S = 1e-9  # SimGrid's precision/timing default (sleeps and timeouts)
RATED_PRECISION = 1e-5 * 1e-9  # maxmin/precision x surf/precision: an L07 action's fraction left
WORK_PRECISION = 1e-14  # precision/work-amount x precision/timing: executions
WINDOW_S = 1e-6  # approximate ends this close to the earliest are checked exactly
TRANSFER_S = 1.0 / 1e20  # one 1-byte message on the generated platforms' 1e20 B/s loopback


class Actor:
    __slots__ = ("action", "answer", "call", "data", "dead", "gen", "name", "send", "waiting_on")

    def __init__(self, name: str, gen: Body, data: Any = None) -> None:
        self.name = name
        self.gen = gen
        self.send = gen.send  # resumes the body: bound once, not at each step
        self.answer: Any = None
        self.call: Simcall = ()
        self.dead = False
        self.action: TimedAction | None = None  # pending timed action (sleep/exec), for kills
        self.waiting_on: Comm | None = None  # comm it waits for, for kills
        self.data = data


class Comm:
    __slots__ = ("done", "is_send", "payload", "waiters")
    precision = TIMING_PRECISION_S  # transfers end at a solve like sleeps

    def __init__(self, is_send: bool, payload: Any = None, waiter: Actor | None = None) -> None:
        self.is_send = is_send
        self.payload = payload
        self.waiters: list[Actor] = [] if waiter is None else [waiter]
        self.done = False


class Mailbox:
    """Pending, unmatched requests of one mailbox, oldest first."""

    __slots__ = ("name", "pending")

    def __init__(self, name: str) -> None:
        self.name = name
        self.pending: deque[Comm] = deque()

    def empty(self) -> bool:
        return not self.pending


class TimedAction:
    """A sleep, a parallel execution or a wait timeout: ends at its date unless cancelled.

    ``rem`` is its remaining duration once the first ``idx`` time steps of the
    kernel's log are subtracted (see :meth:`Kernel.remaining`). ``hooks`` (the energy model's,
    or None) is told when the action starts and when it ends, is cancelled or is dropped
    (:meth:`Kernel.ended`), as SimGrid's energy plugin is (its signals on executions).
    """

    __slots__ = (
        "actor",
        "cancelled",
        "done",
        "duration",
        "hooks",
        "idx",
        "kind",
        "partner",
        "precision",
        "rate",
        "rem",
        "remains",
    )

    def __init__(self, kind: str, actor: Actor | None = None, duration: float = 0.0, idx: int = 0) -> None:
        self.kind = kind  # "sleep", "exec" or "timeout"
        self.actor = actor  # who is answered when it ends (an exec's waiter)
        self.partner: TimedAction | None = None  # an exec's timeout, or a timeout's exec
        self.cancelled = False
        self.done = False
        self.duration = duration
        # how close to its end it counts as done (SimGrid: 1e-9 s, or 1e-14 of the work)
        self.precision = WORK_PRECISION * duration if kind == "exec" else TIMING_PRECISION_S
        self.rem = float(duration)
        self.idx = idx
        self.hooks: Any = None
        # a rated execution (see Kernel.remaining): its rate (fraction per second) and fraction left
        self.rate = 0.0
        self.remains = 1.0


class Kernel:
    def __init__(self) -> None:
        self.now = 0.0
        self._ready: list[Actor] = []
        self._heap: list[tuple[float, int, TimedAction]] = []  # (end, seq, action): timed actions
        self._transfers: list[tuple[int, Comm]] = []  # (seq, comm): zero-time transfers, all done at the next solve
        self._seq = count()
        self._ended: list[TimedAction] = []
        self.sub_rounds = 0
        # Time steps, as SimGrid's full update subtracts them from every action's
        # remaining duration; ``_int_steps``: prefix counts of non-integral steps and
        # prefix sums of the integral ones, for the exact shortcut.
        self._steps: list[float] = []
        self._fractional = [0]
        self._int_sum = [0]
        #: called at each solve, before time moves (the energy model's loads: SimGrid's LMM solve)
        self.on_solve: Any = None

    # -- actors ---------------------------------------------------------------
    def spawn(self, name: str, gen: Body, data: Any = None) -> Actor:
        actor = Actor(name, gen, data)
        self._ready.append(actor)
        return actor

    # -- main loop ------------------------------------------------------------
    def run(self) -> None:
        """Runs until no actor can ever run again.

        The frequent simcalls (put, get, sleep) are handled inline: this loop is the
        engine's hot path, about 8 simcalls per message to the scheduler. So is the
        frequent solve, a round of transfers alone (:meth:`_solve`'s common case), in this
        class only: a subclass's ``_solve`` (``network.py``: messages that take time) is
        always called.
        """
        handle = self._handle
        heap = self._heap
        heappush = heapq.heappush
        seq = self._seq
        transfers = self._transfers
        steps = self._steps  # only ever appended to
        solve = self._solve
        transfers_inline = type(self)._solve is Kernel._solve
        while True:
            ready = self._ready
            while ready:
                self._ready = []
                self.sub_rounds += 1
                ran: list[Actor] = []
                ran_append, updates = ran.append, 0  # (updates: energy reads' simcalls this sub-round)
                for actor in ready:  # every ready actor runs up to its next simcall...
                    if actor.dead:
                        continue
                    try:
                        actor.call = actor.send(actor.answer)
                    except StopIteration:
                        actor.dead = True
                        continue
                    actor.answer = None
                    ran_append(actor)
                for actor in ran:  # ...then the simcalls are handled, in that order
                    if actor.dead:
                        continue
                    call = actor.call
                    op = call[0]
                    if op == PUT or op == GET:
                        pending = call[1].pending
                        is_send = op == PUT
                        if pending and pending[0].is_send != is_send:
                            comm = pending.popleft()
                            if is_send:
                                comm.payload = call[2]
                            transfers.append((next(seq), comm))  # a zero-time transfer
                            comm.waiters.append(actor)
                        else:
                            comm = Comm(is_send, call[2] if is_send else None, actor)
                            pending.append(comm)
                        actor.waiting_on = comm
                    elif op == SLEEP:
                        duration = call[1]
                        actor.action = action = TimedAction("sleep", actor, duration, len(steps))
                        heappush(heap, (self.now + duration, next(seq), action))
                    elif op == CREATE:  # as _handle: the created actor is ready before its creator
                        created = Actor(call[1], call[2], call[3] if len(call) > 3 else None)
                        self._ready += (created, actor)
                        actor.answer = created
                    elif op == UPDATE:  # an energy read's simcall (only with the energy model)
                        updates = self._energy_update(actor, call, ran, updates)
                    else:
                        handle(actor, call)
                if self._ended:  # actions cancelled by simcalls end after them
                    ended, self._ended = self._ended, []
                    for action in ended:
                        self._finish(action, cancelled=True)
                ready = self._ready
            if transfers_inline and transfers and (not heap or heap[0][0] - self.now >= WINDOW_S):
                # _solve's common case inline: every transfer ends, no timed action (_solve's doc)
                if self.on_solve is not None:
                    self.on_solve()
                if self.now + TRANSFER_S != self.now:  # the transfers' duration moves the clock
                    self._step(TRANSFER_S)
                for _, comm in transfers:  # self._finish(comm), inline
                    comm.done = True
                    payload = comm.payload
                    for waiter in comm.waiters:
                        if not waiter.dead:
                            waiter.waiting_on = None
                            waiter.answer = payload
                            ready.append(waiter)
                transfers.clear()  # in place: this loop holds the list
                continue
            if not heap and not transfers:
                return
            solve()

    def remaining(self, action: TimedAction) -> float:
        """The action's remaining duration now, as SimGrid computes it.

        SimGrid's full update (``ptask_L07``) subtracts each time step from the
        remaining duration of every started action, rounding at every step (and
        setting what falls below the precision to 0), and moves the clock by
        adding the step. This kernel keeps the steps in a log and subtracts them
        lazily, in the same order, so that clock and ends are bit-for-bit SimGrid's
        (integral durations and steps, the usual case, are exact in one subtraction).
        """
        steps = self._steps
        i, n = action.idx, len(steps)
        if action.rate:
            return self._rated_remaining(action, steps, i, n)
        if i == n:
            return action.rem
        rem = action.rem
        if rem.is_integer() and self._fractional[n] == self._fractional[i]:
            rem -= self._int_sum[n] - self._int_sum[i]  # integers: exact
        else:
            precision = action.precision
            for step in steps[i:n]:
                rem -= step
                if rem < precision:
                    rem = 0.0
        action.rem, action.idx = rem, n
        return rem

    @staticmethod
    def _rated_remaining(action: TimedAction, steps: list[float], i: int, n: int) -> float:
        """A rated execution's remaining duration, as SimGrid's L07 model computes it: the fraction
        left (``remains``, from 1) loses ``rate x step`` at each step (zeroed below
        ``RATED_PRECISION``, ``double_update``), and the time to its end is ``remains / rate``
        (``Model::next_occurring_event_full``). Its duration alone (``1 / rate``) would round
        otherwise once other events cut it into steps."""
        remains, rate = action.remains, action.rate
        for step in steps[i:n]:
            remains -= rate * step
            if remains < RATED_PRECISION:
                remains = 0.0
        action.remains, action.idx = remains, n
        return remains / rate if remains > 0 else 0.0

    def _step(self, delta: float) -> None:
        """Moves the clock by ``delta`` (SimGrid: ``now_ += time_delta``) and logs it."""
        self.now += delta
        self._steps.append(delta)
        if delta.is_integer():
            self._fractional.append(self._fractional[-1])
            self._int_sum.append(self._int_sum[-1] + int(delta))
        else:
            self._fractional.append(self._fractional[-1] + 1)
            self._int_sum.append(self._int_sum[-1])

    def _solve(self) -> None:
        """Advances to the earliest end and finishes every action done by then.

        As SimGrid: the step is the least remaining duration; a sleep (or wait
        timeout) whose remaining duration falls below the timing precision (1e-9 s)
        ends now, an execution when its remaining work falls below 1e-14 of the
        whole; transfers take ``TRANSFER_S`` (counted only near t = 0, where it moves the
        clock), less than any other action. Everything that ends in the same solve
        ends in creation order. The heap holds approximate ends (start + duration),
        so the exact remaining durations are computed for every action whose
        approximate end is within ``WINDOW_S`` of the earliest. :meth:`run` handles the
        common case inline: transfers alone end, in creation order, and no timed action with
        them (a cancelled action at the heap's top stays there: it is no event, dropped here later).
        """
        heap = self._heap
        transfers = self._transfers
        if self.on_solve is not None:
            self.on_solve()
        while heap and heap[0][2].cancelled:
            heapq.heappop(heap)  # lazily deleted: a cancelled action is no event
        if transfers:
            batch = transfers[:]
            transfers.clear()  # in place: run() holds this list
            # the transfers' duration, when adding it still moves the clock (near t = 0)
            delta = TRANSFER_S if self.now + TRANSFER_S != self.now else 0.0
            if not heap or heap[0][0] - self.now >= WINDOW_S:  # the common case
                if delta:
                    self._step(delta)
                ready = self._ready
                for _, comm in batch:  # self._finish(comm), inline: the engine's most frequent event
                    comm.done = True
                    payload = comm.payload
                    for waiter in comm.waiters:
                        if not waiter.dead:
                            waiter.waiting_on = None
                            waiter.answer = payload
                            ready.append(waiter)
                return
            finished: list[tuple[int, TimedAction | Comm]] = list(batch)
            candidates = self._candidates(heap[0][0])
        elif not heap:
            return
        else:
            finished = []
            candidates = self._candidates(heap[0][0])  # the heap's top at least (not cancelled)
            delta = candidates[0][0] if len(candidates) == 1 else min(rem for rem, _, _ in candidates)
        for rem, seq, action in candidates:
            if action.rate:  # rated: its end is when the step leaves no fraction (update_actions_state)
                ends = action.remains - action.rate * delta < RATED_PRECISION
            else:
                ends = rem - delta < action.precision or rem <= delta  # a precision of 0 (nothing to do) ends too
            if ends:
                finished.append((seq, action))
            else:
                heapq.heappush(heap, (self.now + rem, seq, action))
        if delta > 0:
            self._step(delta)
        if len(finished) > 1:
            finished.sort(key=lambda item: item[0])  # creation order
        for _, done in finished:
            self._finish(done)

    def _candidates(self, first_end: float) -> list[tuple[float, int, TimedAction]]:
        """Pops the actions ending within ``WINDOW_S`` of ``first_end``: (remaining, seq, action)."""
        heap = self._heap
        found = []
        limit = first_end + WINDOW_S
        while heap and heap[0][0] <= limit:
            _, seq, action = heapq.heappop(heap)
            if action.cancelled:
                continue
            found.append((self.remaining(action), seq, action))
        return found

    def _finish(self, action: TimedAction | Comm, cancelled: bool = False) -> None:
        if isinstance(action, Comm):
            action.done = True
            for waiter in action.waiters:
                if not waiter.dead:
                    waiter.waiting_on = None
                    waiter.answer = action.payload
                    self._ready.append(waiter)
            return
        if action.cancelled and not cancelled:
            return  # lazily deleted from the heap
        action.done = True
        if action.hooks is not None:
            self.ended(action)
        if action.kind == "sleep":
            answer = None
        elif action.kind == "exec":
            if action.partner is not None:  # the exec ended first: drop its timeout
                action.partner.cancelled = True
            answer = "cancelled" if cancelled else "done"
        else:  # a timeout: the wait gives up and the exec is abandoned
            assert action.partner is not None  # a timeout always has its exec
            action.partner.cancelled = True
            answer = "timeout"
        actor = action.actor
        if actor is not None and not actor.dead:
            actor.action = None
            actor.answer = answer
            self._ready.append(actor)

    # -- simcalls -------------------------------------------------------------
    def _schedule(self, action: TimedAction) -> None:
        heapq.heappush(self._heap, (self.now + action.duration, next(self._seq), action))

    def ended(self, action: TimedAction) -> None:
        """Tells ``action``'s hooks that it ended, was cancelled or dropped (once)."""
        hooks, action.hooks = action.hooks, None
        if hooks is not None:
            hooks.on_end(action)

    def _energy_update(self, actor: Actor, call: Simcall, ran: list[Actor], updates: int) -> int:
        """(UPDATE, meter, scan): an energy read's simcall for host scan.i of its hosts, the
        sub-round's ``updates + 1``-th; returns that count. An actor alone (no other ran, none is
        ready) would make the read's next simcalls alone too, one sub-round each: they are made at
        once (answer True: read done). When every actor of the sub-round made one, and this is the
        last, the meter makes the next rounds in which they all only read (``lockstep``)."""
        alone = len(ran) == 1 and not self._ready and not self._ended
        meter = call[1]
        actor.answer = meter.update_simcall(call[2], alone)
        self._ready.append(actor)
        updates += 1
        if updates == len(ran) > 1 and actor is ran[-1] and not self._ended:  # actors reading in lockstep
            self.sub_rounds += meter.lockstep([reader.call[2] for reader in ran])
        return updates

    def _handle(self, actor: Actor, call: Simcall) -> None:
        op = call[0]
        if op == EXEC_START:
            # (EXEC_START, duration_s[, ptask[, hooks[, rate]]]): starts a parallel execution, answers
            # its action; with a rate, a rated one (see remaining)
            action = TimedAction("exec", duration=call[1], idx=len(self._steps))
            if len(call) > 4:
                action.rate = call[4]
            self._schedule(action)
            if len(call) > 3 and call[3] is not None:
                action.hooks = call[3]
                call[3].on_start(action)
            actor.answer = action
            self._ready.append(actor)
        elif op == CALL:
            # (CALL, function, *args): SimGrid's simcall_answered: the function runs now, in the
            # kernel; its result is the answer
            actor.answer = call[1](*call[2:])
            self._ready.append(actor)
        elif op == SLEEP_HOOKED:
            # (SLEEP_HOOKED, duration_s, hooks): a sleep whose end (or cancel) the hooks hear of
            action = TimedAction("sleep", actor, call[1], len(self._steps))
            action.hooks = call[2]
            actor.action = action
            self._schedule(action)
        elif op == EXEC_WAIT:
            # (EXEC_WAIT, action, timeout_s or None): answers "done", "timeout" or "cancelled".
            action = call[1]
            if action.done:
                actor.answer = "cancelled" if action.cancelled else "done"
                self._ready.append(actor)
            else:
                action.actor = actor
                actor.action = action
                if call[2] is not None:
                    timeout = TimedAction("timeout", actor, call[2], len(self._steps))
                    timeout.partner = action
                    action.partner = timeout
                    self._schedule(timeout)
        elif op == EXEC_CANCEL:
            # The execution fails now; its waiter is answered after this sub-round's simcalls.
            action = call[1]
            if not action.done and not action.cancelled:
                action.cancelled = True
                if action.partner is not None:
                    action.partner.cancelled = True
                if action.hooks is not None:
                    self.ended(action)
                self._ended.append(action)
            self._ready.append(actor)
        elif op == CREATE:
            name, gen, data = call[1], call[2], call[3] if len(call) > 3 else None
            created = self.spawn(name, gen, data)
            actor.answer = created
            self._ready.append(actor)
        elif op == KILL:
            self._kill(call[1])
            self._ready.append(actor)
        else:  # pragma: no cover - programming error
            raise ValueError(f"unknown simcall {call!r}")

    def _kill(self, victim: Actor) -> None:
        if victim.dead:
            return
        victim.dead = True
        action = victim.action
        if action is not None:
            action.cancelled = True
            if action.partner is not None:
                action.partner.cancelled = True
            if action.hooks is not None:
                self.ended(action)
            victim.action = None
        if victim.waiting_on is not None:
            victim.waiting_on.waiters.remove(victim)
            victim.waiting_on = None
        victim.gen.close()


def put(mailbox: Mailbox, payload: Any) -> Body:
    """Blocking send (``Mailbox::put``: isend then wait, as one simcall)."""
    yield (PUT, mailbox, payload)


def get(mailbox: Mailbox) -> Body:
    """Blocking receive (``Mailbox::get``: irecv then wait, as one simcall); returns the payload."""
    payload = yield (GET, mailbox)
    return payload
