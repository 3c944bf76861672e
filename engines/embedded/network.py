"""SimGrid 3.32's ptask_L07 model for Batsim's messages and parallel tasks: the embedded
engine's kernel on platforms whose messages take time (docs/network.md).

Batsim 4.2.1 configures SimGrid's ``host/model:ptask_L07`` (``src/batsim.cpp``), so every
communication and every computation is an L07 action (``src/surf/ptask_L07.cpp``):

- a message of Batsim's (1 byte, ``src/ipp.cpp``) from host ``a`` to host ``b`` is a parallel
  task with ``bytes[a][b] = 1``: it first waits the latency of the route from ``a`` to ``b``
  (the sum of its links' latencies, :mod:`adaptsched.platforms.routes`), then transfers at the
  rate the max-min sharing gives it, bounded by ``TCP-gamma / (2 x latency)``; no latency or
  bandwidth factor applies (those belong to the CM02 models, not to L07);
- a job's parallel task (``parallel_homogeneous`` and friends) is one action over all its
  hosts: ``flops[i]`` on host ``i`` and ``bytes[i][j]`` between hosts; it waits the largest
  route latency among the pairs that communicate, then progresses at one rate for all, the
  least of ``speed_i / flops_i`` and of what each link gives it;
- a sleep is an action that only ends at its date (``max_duration``).

Every step (``EngineImpl::solve``), the clock moves to the earliest event, the smallest of:
each remaining latency, each ``remains / rate``, each sleep's remaining duration; then every
started action is updated in creation order (``HostL07Model::update_actions_state``): latency
minus the step (zeroed below ``surf/precision``, 1e-9), remains minus ``rate x step``
(zeroed below 1e-14, ``maxmin/precision x surf/precision``), sleeps minus the step. Rates
come from SimGrid's ``fairbottleneck`` solver (``src/kernel/lmm/fair_bottleneck.cpp``),
re-solved whenever an action starts, finishes or ends its latency. This module replays
those operations in the same order, so that the clock is bit for bit SimGrid's.

The kernel (:class:`NetworkKernel`) is the base kernel (``kernel.py``) with another
``_solve``: actors, simcalls and mailboxes are unchanged. The base kernel's list of
pending transfers holds, here, every running communication and parallel task (so that its
main loop keeps running while they do); sleeps and timeouts stay in its heap, with their
remaining durations computed from the step log exactly as before.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from typing import Any

from adaptsched.engines.embedded.kernel import EXEC_START, Actor, Comm, Kernel, Simcall, TimedAction
from adaptsched.errors import SimulationError

DBL_MAX = 1.7976931348623157e308
#: A parallel task: its hosts' names, flops on each (or None), bytes from i to j at i * n + j (or None).
Ptask = tuple[list[str], list[float] | None, list[float] | None]
MAX_ROUNDS = 200_000  # SimGrid's solver loop, beyond which the engine gives up (see HANG)
HANG = (
    "SimGrid 3.32's max-min solver (fairbottleneck) {what}: a FATPIPE link shared by a parallel task "
    "and another flow keeps subtracting the task's last share from a remaining bandwidth it cannot change "
    "(real Batsim 4.2.1 then hangs, or spins that many rounds, at this point; docs/network.md); the embedded "
    "engine does not model this run: give the parallel task's self-communications (com[i][i]) zero bytes"
)


class Constraint:
    """A resource of the linear system: a link (bandwidth) or a host's CPU (speed)."""

    __slots__ = ("bound", "enabled", "fatpipe", "name", "remaining", "usage")

    def __init__(self, name: str, bound: float, fatpipe: bool = False) -> None:
        self.name = name
        self.bound = bound
        self.fatpipe = fatpipe
        self.enabled: list[Element] = []  # the enabled elements, most recently enabled first (push_front)
        self.remaining = 0.0
        self.usage = 0.0


class Element:
    __slots__ = ("constraint", "variable", "weight")

    def __init__(self, constraint: Constraint, variable: L07Action, weight: float) -> None:
        self.constraint = constraint
        self.variable = variable
        self.weight = weight


class L07Action(TimedAction):
    """A communication or a parallel task (``L07Action``): its variable in the linear system
    is the action itself (``value`` is its rate)."""

    __slots__ = (
        "bound",
        "comm",
        "elements",
        "latency",
        "mu",
        "pairs",
        "penalty",
        "registered",
        "remains",
        "saturated",
        "task",
        "value",
    )

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.comm: Comm | None = None  # the kernel's comm, for a message
        self.latency = 0.0
        self.remains = 1.0  # L07 actions cost 1: the fraction left
        self.value = 0.0  # rate (fraction per second), as the last solve left it
        self.bound = -1.0  # none
        self.penalty = 1.0
        self.mu = 0.0
        self.saturated = False
        self.elements: list[Element] = []
        self.task: Ptask = ([], None, None)  # (hosts, flops, bytes)
        self.pairs: list[tuple[int, Any]] = []  # (k, route) of each pair of hosts that communicates
        self.registered = False  # in the linear system yet


class NetworkKernel(Kernel):
    """The kernel with SimGrid's L07 model of messages and parallel tasks.

    ``network``: the platform's :class:`~adaptsched.platforms.routes.Network`;
    ``host_of(actor)``: the name of the host an actor runs on; ``speed_of(host)``: its speed.
    """

    def __init__(self, network: Any, host_of: Callable[[Actor | None], str], speed_of: Callable[[str], float]) -> None:
        super().__init__()
        self.network = network
        self.host_of = host_of
        self.speed_of = speed_of
        self.host_speeds: dict[str, float] = {}  # speed_of's values, when it reads them (kernel_for)
        self.gamma = network.tcp_gamma
        self.surf_precision = network.config["surf/precision"]
        self.maxmin_precision = network.config["maxmin/precision"]
        self.remains_precision = self.maxmin_precision * self.surf_precision
        self._links: dict[Any, Constraint] = {}  # Link -> Constraint
        self._cpus: dict[str, Constraint] = {}  # host name -> Constraint
        self._variables: list[L07Action] = []  # SimGrid's variable_set order: enabled first
        self._modified = True
        self.nb_messages = 0
        # here, the running messages (Comm until they start) and parallel tasks, in creation order
        self._transfers: list[tuple[int, Any]] = []

    def set_speed(self, host: str, speed: float) -> None:
        """A pstate change (``CpuL07::on_speed_change``): the host's CPU constraint takes its new
        speed. The energy model switches pstates on hosts that compute nothing (it refuses the
        rest), so no running action's bound changes."""
        self.host_speeds[host] = speed
        constraint = self._cpus.get(host)
        if constraint is not None:
            constraint.bound = speed
            self._modified = True

    # -- creating actions -----------------------------------------------------
    def _link(self, link: Any) -> Constraint:
        found = self._links.get(link)
        if found is None:
            found = self._links[link] = Constraint(link.name, link.bandwidth, link.fatpipe)
        return found

    def _cpu(self, host: str) -> Constraint:
        found = self._cpus.get(host)
        if found is None:
            found = self._cpus[host] = Constraint(host, self.speed_of(host))
        return found

    def _new_action(
        self, kind: str, hosts: list[str], flops: list[float] | None, nbytes: list[float] | None
    ) -> L07Action:
        """An action not yet in the linear system (:meth:`_register` puts it there, in creation
        order, at the next step)."""
        action = L07Action(kind)
        action.task = (hosts, flops, nbytes)
        n = len(hosts)
        latency = 0.0
        if nbytes is not None:
            for k in range(n * n):
                if nbytes[k] > 0:
                    route = self.network.route(hosts[k // n], hosts[k % n])
                    latency = max(latency, route.latency)
                    action.pairs.append((k, route))
        action.latency = latency
        return action

    def _register(self, action: L07Action) -> None:
        """The rest of ``L07Action::L07Action``: its variable, its elements (CPUs first, then
        each link of each communicating pair), its bound."""
        hosts, flops, nbytes = action.task
        action.registered = True
        self._variables.insert(0, action)  # variable_new with penalty 1: push_front
        if action.latency > 0:
            self._disable(action)
        for i, host in enumerate(hosts):  # force_creation: one element per host, even a repeated one
            self._expand(action, self._cpu(host), 0.0 if flops is None else flops[i], force=True)
        affected = set()
        for k, route in action.pairs:
            assert nbytes is not None  # pairs communicate
            for link in route.links:
                affected.add(link.name)
                self._expand(action, self._link(link), nbytes[k])
        used_hosts = 0 if flops is None else sum(1 for x in flops if x > 0)
        if not affected and used_hosts == 0:
            action.remains = 0.0
        self._update_bound(action)
        self._modified = True

    def _expand(self, action: L07Action, constraint: Constraint, weight: float, force: bool = False) -> None:
        if not force:
            for element in action.elements:
                if element.constraint is constraint:
                    if constraint.fatpipe:
                        element.weight = max(element.weight, weight)
                    else:
                        element.weight += weight
                    return
        element = Element(constraint, action, weight)
        action.elements.append(element)
        if action.penalty != 0.0:
            constraint.enabled.insert(0, element)

    def _disable(self, action: L07Action) -> None:
        """``System::disable_var``: penalty 0, the variable at the end of the set."""
        self._variables.remove(action)
        self._variables.append(action)
        for element in action.elements:
            element.constraint.enabled.remove(element)
        action.penalty = 0.0
        action.value = 0.0

    def _enable(self, action: L07Action) -> None:
        """``System::enable_var``: penalty 1, the variable and its elements first."""
        action.penalty = 1.0
        self._variables.remove(action)
        self._variables.insert(0, action)
        for element in action.elements:
            element.constraint.enabled.insert(0, element)
        self._modified = True

    def _free(self, action: L07Action) -> None:
        """``System::var_free``: the action is gone from the linear system."""
        if action.penalty > 0:
            for element in action.elements:
                element.constraint.enabled.remove(element)
        self._variables.remove(action)
        self._modified = True

    def _update_bound(self, action: L07Action) -> None:
        """``L07Action::update_bound``: set once the latency is paid."""
        hosts, flops, nbytes = action.task
        network_bound = DBL_MAX
        if nbytes is not None:
            current = 0.0
            for k, route in action.pairs:
                current = max(current, route.latency * nbytes[k])
            if current > 0:
                network_bound = self.gamma / (2.0 * current)
        cpu_bound = DBL_MAX
        if flops is not None:
            for host, amount in zip(hosts, flops):
                if amount > 0:
                    cpu_bound = min(cpu_bound, self.speed_of(host) * 1.0 / amount)
        bound = min(network_bound, cpu_bound)
        if bound < DBL_MAX and action.latency <= 0.0:
            action.bound = bound
            self._modified = True

    # -- the kernel's hooks ---------------------------------------------------
    def _handle(self, actor: Actor, call: Simcall) -> None:
        if call[0] != EXEC_START or len(call) < 3:
            super()._handle(actor, call)
            return
        # (EXEC_START, duration_s, (hosts, flops, bytes)[, hooks]): a parallel task, answers its action
        hosts, flops, nbytes = call[2]
        action = self._new_action("exec", hosts, flops, nbytes)
        self._transfers.append((next(self._seq), action))
        if len(call) > 3 and call[3] is not None:
            action.hooks = call[3]
            call[3].on_start(action)
        actor.answer = action
        self._ready.append(actor)

    def _finish(self, action: TimedAction | Comm, cancelled: bool = False) -> None:
        """As the base kernel's, but a parallel task whose wait times out (a job's walltime) runs on,
        unwatched, as SimGrid's does: it shares its hosts and links until it ends or its job is
        deleted (Batsim's server deletes a job once its completion is sent to the scheduler)."""
        if (
            not cancelled
            and isinstance(action, TimedAction)
            and action.kind == "timeout"
            and isinstance(action.partner, L07Action)
        ):
            if action.cancelled:
                return
            execution = action.partner
            execution.actor = execution.partner = action.partner = None
            action.done = True
            actor = action.actor
            if actor is not None and not actor.dead:
                actor.action = None
                actor.answer = "timeout"
                self._ready.append(actor)
            return
        super()._finish(action, cancelled)

    def _start_comm(self, comm: Comm) -> L07Action:
        """``NetworkL07Model::communicate``: 1 byte from the sender's host to the receiver's."""
        waiters = comm.waiters
        first, second = ([*waiters, None, None])[:2]
        sender, receiver = (first, second) if comm.is_send else (second, first)
        src, dst = self.host_of(sender), self.host_of(receiver)
        action = self._new_action("comm", [src, dst], [0.0, 0.0], [0.0, 1.0, 0.0, 0.0])
        action.comm = comm
        self.nb_messages += 1
        return action

    # -- the linear system (fair_bottleneck.cpp) --------------------------------
    def _share(self) -> None:
        """``FairBottleneck::do_solve``: every enabled action's rate."""
        precision = self.maxmin_precision
        saturated: list[L07Action] = []
        for var in self._variables:
            var.value = 0.0
            var.saturated = False
            if var.penalty > 0.0 and any(e.weight != 0.0 for e in var.elements):
                var.saturated = True
                saturated.append(var)
            elif var.penalty > 0.0:
                var.value = 1.0
        constraints: list[Constraint] = []
        seen = set()
        for var in saturated:  # the constraints in use (their order changes no result)
            for element in var.elements:
                constraint = element.constraint
                if id(constraint) not in seen:
                    seen.add(id(constraint))
                    constraint.remaining = constraint.bound
                    constraint.usage = 0.0
                    constraints.append(constraint)
        rounds = 0
        while saturated:
            before = (len(saturated), len(constraints), [c.remaining for c in constraints])
            saturated, constraints = self._share_round(saturated, constraints, precision)
            rounds += 1
            if before == (len(saturated), len(constraints), [c.remaining for c in constraints]):
                raise SimulationError(HANG.format(what="loops forever on this run: a round changed nothing"))
            if rounds > MAX_ROUNDS:
                raise SimulationError(HANG.format(what=f"needs more than {MAX_ROUNDS:,} rounds on this run"))
        self._modified = False

    @staticmethod
    def _share_round(
        saturated: list[L07Action], constraints: list[Constraint], precision: float
    ) -> tuple[list[L07Action], list[Constraint]]:
        """One round of ``FairBottleneck::do_solve``'s loop: (variables left, constraints left)."""
        kept: list[Constraint] = []
        for constraint in constraints:
            nb = sum(1 for e in constraint.enabled if e.weight > 0 and e.variable.saturated)
            if nb > 0 and constraint.fatpipe:
                nb = 1
            if nb == 0:
                constraint.remaining = constraint.usage = 0.0
            else:
                constraint.usage = constraint.remaining / nb
                kept.append(constraint)
        still: list[L07Action] = []
        for var in saturated:
            min_inc = DBL_MAX
            for element in var.elements:
                if element.weight > 0:
                    min_inc = min(min_inc, element.constraint.usage / element.weight)
            if var.bound > 0:
                min_inc = min(min_inc, var.bound - var.value)
            var.mu = min_inc
            var.value += min_inc
            if var.value == var.bound:
                var.saturated = False
            else:
                still.append(var)
        left: list[Constraint] = []
        for constraint in kept:
            if not constraint.fatpipe:
                for element in constraint.enabled:  # every enabled variable: a removed one with its last mu
                    constraint.remaining -= element.weight * element.variable.mu
                    if constraint.remaining < precision:
                        constraint.remaining = 0.0
            else:
                for element in constraint.enabled:
                    constraint.usage = min(constraint.usage, element.weight * element.variable.mu)
                constraint.remaining -= constraint.usage
                if constraint.remaining < precision:
                    constraint.remaining = 0.0
            if constraint.remaining <= 0.0:
                for element in constraint.enabled:
                    if element.variable.penalty <= 0:
                        break
                    if element.weight > 0:
                        element.variable.saturated = False
            else:
                left.append(constraint)
        return [var for var in still if var.saturated], left

    # -- time -----------------------------------------------------------------
    def _solve(self) -> None:
        """One SimGrid step: to the earliest event, then every action updated in creation order."""
        heap = self._heap
        running = self._transfers  # (seq, action): messages and parallel tasks, in creation order
        while heap and heap[0][2].cancelled:
            heapq.heappop(heap)
        self._admit(running)
        if self._modified:
            self._share()
        if self.on_solve is not None:  # the energy model reads the rates (CPU loads) just solved
            self.on_solve()
        delta = -1.0
        for _, action in running:
            if action.latency > 0:
                value = action.latency
            elif action.value > 0:
                value = action.remains / action.value if action.remains > 0 else 0.0
            else:
                continue
            if delta < 0 or value < delta:
                delta = value
        candidates = self._candidates(heap[0][0]) if heap else []
        for rem, _, _ in candidates:
            if delta < 0 or rem < delta:
                delta = rem
        if delta < 0:
            raise RuntimeError("the network model has running actions but no next event")
        finished: list[tuple[int, Any]] = []
        for rem, seq, action in candidates:
            if rem - delta < action.precision:
                finished.append((seq, action))
            else:
                heapq.heappush(heap, (self.now + rem, seq, action))
        if delta > 0:
            self._step(delta)
        finished.extend(self._update(running, delta))
        if len(finished) > 1:
            finished.sort(key=lambda item: item[0])  # creation order
        for _, ended in finished:
            if ended.kind == "comm":
                self._finish(ended.comm)
            else:
                self._finish(ended)

    def _admit(self, running: list[tuple[int, Any]]) -> None:
        """New messages become actions; cancelled parallel tasks leave."""
        if not running:
            return
        cancelled = False
        for index, (seq, item) in enumerate(running):
            if isinstance(item, Comm):
                item = self._start_comm(item)
                running[index] = (seq, item)
            if not item.registered:
                self._register(item)
            cancelled = cancelled or item.cancelled
        if cancelled:
            for _, item in running:
                if item.cancelled:
                    self._free(item)
            running[:] = [entry for entry in running if not entry[1].cancelled]

    def _update(self, running: list[tuple[int, Any]], delta: float) -> list[tuple[int, Any]]:
        """``HostL07Model::update_actions_state`` for messages and parallel tasks."""
        done = []
        kept = []
        for seq, action in running:
            if action.latency > 0:
                if action.latency > delta:
                    action.latency -= delta
                    if action.latency < self.surf_precision:
                        action.latency = 0.0
                else:
                    action.latency = 0.0
                if action.latency <= 0.0:
                    self._update_bound(action)
                    self._enable(action)
            action.remains -= action.value * delta
            if action.remains < self.remains_precision:
                action.remains = 0.0
            if action.remains <= 0 and action.penalty > 0:
                done.append((seq, action))
                self._free(action)
            else:
                kept.append((seq, action))
        running[:] = kept
        return done


def ptask(hosts: Any, flops: Any, nbytes: Any) -> Ptask:
    """The third item of an ``EXEC_START`` simcall for a parallel task on ``hosts`` (names)."""
    return (list(hosts), None if flops is None else list(flops), None if nbytes is None else list(nbytes))


def kernel_for(engine: Any) -> Kernel:
    """The kernel an :class:`~adaptsched.engines.embedded.batsim.EmbeddedBatsim` needs: the base
    kernel when its platform's messages take no time worth modelling, else a network kernel
    whose actors run on the master host, but for job executors (on their first host)."""
    platform = engine.platform
    if platform.network is None:
        return Kernel()
    master: str = platform.master.name
    names: list[str] = [h.name for h in platform.compute_hosts]
    speeds: dict[str, float] = {h.name: h.speed_flops for h in platform.compute_hosts}
    speeds[master] = platform.master.speed_flops

    def host_of(actor: Actor | None) -> str:
        job = None if actor is None else actor.data
        if job is None or job.allocation is None:
            return master
        return names[int(job.allocation.runs[0][0])]

    kernel = NetworkKernel(platform.network, host_of, speeds.__getitem__)
    kernel.host_speeds = speeds
    return kernel
