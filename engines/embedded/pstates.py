"""The energy side of the embedded Batsim (``--energy``): reads, pstate requests, switches, queries.

Batsim 4.2.1's code it follows (batsim-energy.md §1, §3.3 and §4, ``../shared/reference``):

- a job's start and end (``src/jobs_execution.cpp:503-509, 562-571``; a kill by actor kill,
  ``:703-714``): the energy of its machines (its ``consumed_energy`` is the difference), then the
  platform's for the ``s``/``e`` row of ``_consumed_energy.csv``;
- the first static job submission (``src/job_submitter.cpp:141-148``): the energy from which
  ``_schedule.csv``'s ``consumed_joules`` counts, to the last ``e`` row;
- SET_RESOURCE_STATE (``src/server.cpp:424-528``): a ``p`` row, a pstate row (-1, -2 or -42),
  then per machine: a computation pstate to another is set at once (DVFS); to a sleep pstate, a
  switch-off actor on the machine; from a sleep pstate to a computation one, a switch-on actor.
  A request completes when its last machine is done (``src/pstate.cpp:86-150``; a machine is
  credited to the oldest pending request to the same pstate that holds it): a ``p`` row, a pstate
  row, RESOURCE_STATE_CHANGED with the whole set;
- the switch actors (``src/pstate.cpp:17-84``): the virtual pstate, 1 flop at its speed, the
  target pstate, the machine's new state, SWITCHED_ON/OFF to the server;
- QUERY consumed_energy (``src/server.cpp:562-572``): ANSWER with the platform's energy.

What Batsim does not finish (a request for a machine in the middle of a switch, or towards a
virtual pstate, which never completes and never ends the simulation), stops the run here with a
message; so does what the engine does not model (a DVFS change under a running parallel task,
whose remaining work SimGrid rescales): ``--engine batsim`` runs them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from adaptsched.core.intervals import IntervalSet
from adaptsched.engines.embedded.energy import (
    DelayEnd,
    EnergyMeter,
    Execution,
    HostSet,
    LongDouble,
    ld_text,
    read,
)
from adaptsched.engines.embedded.energy_outputs import EnergyTracer, PStateTracer
from adaptsched.engines.embedded.kernel import CALL, CREATE, EXEC_START, EXEC_WAIT, PUT, Body
from adaptsched.engines.embedded.machines import (
    COMPUTING,
    IDLE,
    NAMES,
    SLEEPING,
    SWITCHING_OFF,
    SWITCHING_ON,
    MachineStates,
)
from adaptsched.engines.embedded.network import ptask
from adaptsched.engines.embedded.power import COMPUTATION, SLEEP, read_power
from adaptsched.formats.intervals import hosts_text

if TYPE_CHECKING:
    from adaptsched.engines.embedded.jobs import JobRecord

#: The engine the energy model serves (an ``EmbeddedBatsim``, which imports this module: its
#: kernel, platform, jobs, mailbox, machine-state tracer and ``fail``).
PoweredEngine = Any


class OnMachine:
    """What a switch actor runs on (the network model's ``host_of`` reads ``allocation``)."""

    __slots__ = ("actor", "allocation")

    def __init__(self, machine: int) -> None:
        self.allocation = IntervalSet([(machine, machine)])
        self.actor: Any = None


class Switch:
    """One SET_RESOURCE_STATE request (``pstate.hpp``'s ``Switch``)."""

    __slots__ = ("machines", "switching", "target")

    def __init__(self, machines: IntervalSet, target: int) -> None:
        self.machines = machines
        self.switching = set(machines)
        self.target = target


def ids_of(hosts: IntervalSet, nb_machines: int) -> HostSet:
    """Machine ids of ``hosts``, ascending (Batsim's ``elements_begin`` order)."""
    return HostSet(hosts.runs, nb_machines)


class PowerSide:
    """The engine's energy model and Batsim's code around it, for one run."""

    def __init__(self, engine: PoweredEngine, prefix: str, suffix: str = "") -> None:
        """``suffix`` follows each output's name (``.partial``: :mod:`adaptsched.engines.run.partial`)."""
        self.engine = engine
        self.kernel = engine.kernel
        self.model = read_power(engine.platform)
        self.meter = EnergyMeter(self.model, engine.kernel)
        self.meter.network = engine.platform.network is not None
        if self.meter.network:  # (else the meter asks for the solves after an execution starts)
            self.meter.watch_solves()
        self.states = MachineStates(engine.nb_hosts)
        self.energy_csv = EnergyTracer(prefix, self.meter.n, suffix)
        self.pstate_csv = PStateTracer(prefix, suffix)
        initial: dict[int, list[int]] = {}
        for machine, power in enumerate(self.model.machines):
            initial.setdefault(power.pstate, []).append(machine)
        for pstate in sorted(initial):  # a std::map: ascending pstates (export.cpp:52-75)
            self.pstate_csv.add(0.0, hosts_text(IntervalSet.from_ids(initial[pstate])), pstate)
        self.switches: dict[int, list[Switch]] = {}  # target pstate -> pending requests, oldest first
        self.first_submission = np.longdouble(-1)
        self.nb_grouped_switches = self.nb_machine_switches = 0
        self.nb_switching = 0  # machines being switched: the simulation cannot end before they are
        width = max((len(m.kinds) for m in self.model.machines), default=0)
        #: by machine and pstate: a computation pstate (check_execute's vectorised check)
        self.computation = np.array(
            [[k == COMPUTATION for k in m.kinds] + [False] * (width - len(m.kinds)) for m in self.model.machines],
            dtype=bool,
        ).reshape(len(self.model.machines), width)
        #: every machine starts in a computation pstate: until a SET_RESOURCE_STATE, all may compute
        self.all_computing = bool(self.computation[np.arange(self.meter.n), self.meter.pstate].all())

    # -- jobs ---------------------------------------------------------------------------------
    def job_start(self, job: JobRecord) -> Body:
        """``execute_job_process`` before the job computes: its machines' energy, then the ``s`` row.
        (Here and below, a read that needs no simcall is made without a generator: the hot path.)"""
        assert job.allocation is not None
        meter = self.meter
        hosts = job.energy_ids = ids_of(job.allocation, meter.n)
        first = meter.read_at_once(hosts)
        if first >= 0:
            yield from read(meter, hosts, False, first)
        job.energy_before = meter.total(hosts)
        first = meter.read_at_once(meter.all)
        if first >= 0:
            yield from read(meter, meter.all, False, first)
        self.add_row("s")

    def job_end(self, job: JobRecord) -> Body:
        """After the job's machines are released: its energy (the difference), then the ``e`` row."""
        meter, hosts = self.meter, job.energy_ids
        first = meter.read_at_once(hosts)
        if first >= 0:
            yield from read(meter, hosts, False, first)
        job.consumed_energy = ld_text(meter.total(hosts) - job.energy_before)
        first = meter.read_at_once(meter.all)
        if first >= 0:
            yield from read(meter, meter.all, False, first)
        self.add_row("e")

    def first_submitted(self) -> Body:
        """The first static job's submission: the energy ``consumed_joules`` counts from."""
        if self.first_submission < 0:
            self.first_submission = yield from read(self.meter, self.meter.all)

    def row(self, event_type: str) -> Body:
        """A ``_consumed_energy.csv`` row (``add_entry``): the platform's energy, read now (its
        hosts updated now; the tracer sums them)."""
        yield from read(self.meter, self.meter.all, total=False)
        self.add_row(event_type)

    def add_row(self, event_type: str) -> None:
        """:meth:`row` once its read is made."""
        self.energy_csv.add(self.kernel.now, event_type, self.meter.energy, self.meter.wattmin())

    def delay_hooks(self, hosts: IntervalSet) -> DelayEnd:
        """A job's delay: its end updates the actor's host, the job's first machine (U3)."""
        return DelayEnd(self.meter, hosts.runs[0][0])

    def exec_hooks(self, hosts: list[int], flops: list[float]) -> Execution:
        return Execution(self.meter, hosts, flops)

    def check_execute(self, job: JobRecord, hosts: IntervalSet, alloc_text: str) -> None:
        """Batsim's checks on EXECUTE_JOB with ``-E`` (``server.cpp:982-1006``)."""
        if self.all_computing and self.nb_grouped_switches == 0:
            return  # every machine idle or computing, in its initial computation pstate
        states, pstates = self.states.state, self.meter.pstate
        ids = ids_of(hosts, self.meter.n).ids
        if (states[ids] <= COMPUTING).all() and self.computation[ids, pstates[ids]].all():
            return
        for machine in ids.tolist():
            state = int(states[machine])
            if state not in (IDLE, COMPUTING):
                self.engine.fail(
                    f"job '{job.id}': invalid job allocation ('{alloc_text}'): machine {machine} "
                    f"(hostname='{self.model.machines[machine].name}') cannot compute jobs now (the machine is "
                    f"not computing nor idle, its state is '{NAMES[state]}')"
                )
            pstate = int(pstates[machine])
            if self.model.kind(machine, pstate) != COMPUTATION:
                self.engine.fail(
                    f"job '{job.id}': invalid job allocation ('{alloc_text}'): machine {machine} "
                    f"(hostname='{self.model.machines[machine].name}') is not in a computation pstate (ps={pstate})"
                )

    # -- pstates ------------------------------------------------------------------------------
    def set_pstate(self, machine: int, pstate: int) -> None:
        """``Host::set_pstate`` (the kernel runs it in a CALL simcall): energy, speed, network."""
        self.meter.set_pstate(machine, pstate)
        speed = self.model.machines[machine].speeds[pstate]
        self.engine.speeds[machine] = speed
        set_speed = getattr(self.kernel, "set_speed", None)
        if set_speed is not None:  # the network model's CPU constraint
            set_speed(self.engine.platform.compute_hosts[machine].name, speed)

    def on_set_resource_state(self, message: Any) -> Body:
        """``server_on_pstate_modification`` (``server.cpp:424-528``), in the server actor."""
        machines, target = message[1], message[2]
        engine = self.engine
        self.switches.setdefault(target, []).append(Switch(machines, target))
        yield from self.row("p")
        first = machines.runs[0][0]
        kind = self._kind(first, target)
        transition = -1 if kind == COMPUTATION else -2 if kind == SLEEP else -42
        self.pstate_csv.add(self.kernel.now, hosts_text(machines), transition)
        self.nb_grouped_switches += 1
        self.nb_machine_switches += len(machines)
        for machine in machines:
            current = self._kind(machine, int(self.meter.pstate[machine]))
            wanted = self._kind(machine, target)
            if current == COMPUTATION and wanted == COMPUTATION:
                self._check_dvfs(machine)
                yield (CALL, self.set_pstate, machine, target)
                machines_done = yield from self.mark_done(machine, target)
                if machines_done is not None:
                    self.state_changed(machines_done, target)
            elif current == COMPUTATION and wanted == SLEEP:
                self.states.change(slice(machine, machine + 1), SWITCHING_OFF, self.kernel.now)
                yield (CREATE, f"switch ON {machine}", self.switch_off(machine, target), OnMachine(machine))
                self.nb_switching += 1
            elif current == SLEEP:
                if wanted != COMPUTATION:
                    engine.fail(
                        f"SET_RESOURCE_STATE: switching machine {machine} from a sleep pstate to a non-computation "
                        f"pstate ({self.meter.pstate[machine]} -> {target}), which is forbidden"
                    )
                self.states.change(slice(machine, machine + 1), SWITCHING_ON, self.kernel.now)
                yield (CREATE, f"switch OFF {machine}", self.switch_on(machine, target), OnMachine(machine))
                self.nb_switching += 1
            else:
                why = "it is being switched" if current != COMPUTATION else "not a sleep or computation pstate"
                engine.fail(
                    f"SET_RESOURCE_STATE: machine {machine} cannot go from pstate {self.meter.pstate[machine]} "
                    f"to pstate {target} ({why}): real Batsim logs an error and never completes the request, "
                    "so the simulation never ends"
                )
        engine.machine_states.write(self.kernel.now, 0)

    def _kind(self, machine: int, pstate: int) -> str:
        power = self.model.machines[machine]
        if not 0 <= pstate < len(power.kinds):
            self.engine.fail(
                f"SET_RESOURCE_STATE: machine {machine} has no pstate {pstate} (it has {len(power.kinds)}: "
                f"0-{len(power.kinds) - 1}); real Batsim stops on it too"
            )
        return power.kinds[pstate]

    def _check_dvfs(self, machine: int) -> None:
        """A computation pstate change under a running parallel task: not modelled."""
        from adaptsched.engines.embedded.profiles import running_execution

        job_id = self.engine.host_job.pieces(machine, machine).__next__()[2][0]
        job = self.engine.jobs.get(job_id) if job_id is not None else None
        if job is not None and running_execution(job.task) is not None:
            self.engine.fail(
                f"SET_RESOURCE_STATE: machine {machine} changes its computation pstate (DVFS) while job '{job_id}' "
                "computes on it; SimGrid then rescales the job's remaining work, which the embedded engine does "
                "not model: use --engine batsim"
            )

    def mark_done(self, machine: int, target: int) -> Body:
        """``mark_switch_as_done`` (``pstate.cpp:113-150``): ``machine`` reached ``target``; the
        oldest pending request to ``target`` that holds it may complete (its pstate row and ``p``
        row are written then). Returns the request's machines if it completed, else None."""
        pending = self.switches.get(target, [])
        for index, switch in enumerate(pending):
            if machine in switch.switching:
                switch.switching.discard(machine)
                if switch.switching:
                    return None
                del pending[index]
                if not pending:
                    del self.switches[target]
                self.pstate_csv.add(self.kernel.now, hosts_text(switch.machines), target)
                yield from self.row("p")
                return switch.machines
        raise AssertionError(f"machine {machine} was not switching to pstate {target}")  # pragma: no cover

    def state_changed(self, machines: IntervalSet, target: int) -> None:
        """RESOURCE_STATE_CHANGED: the whole request's machines, the pstate as text."""
        self.engine.events.append(
            self.kernel.now, "RESOURCE_STATE_CHANGED", {"resources": hosts_text(machines), "state": str(target)}
        )

    def on_switched(self, message: Any) -> Body:
        """``server_on_switched`` (``server.cpp:588-614``), in the server actor."""
        machine, target = message[1], message[2]
        machines = yield from self.mark_done(machine, target)
        if machines is not None:
            self.engine.machine_states.write(self.kernel.now, 0)
            self.state_changed(machines, target)
        self.nb_switching -= 1

    def switch_off(self, machine: int, target: int) -> Body:
        """``switch_off_machine_process`` (``pstate.cpp:52-84``), on the machine."""
        off_ps = self.model.machines[machine].sleep[target][0]
        yield from self._transition(machine, off_ps, target)
        self.states.change(slice(machine, machine + 1), SLEEPING, self.kernel.now)
        yield (PUT, self.engine.mbox, ("SWITCHED_OFF", machine, target))

    def switch_on(self, machine: int, target: int) -> Body:
        """``switch_on_machine_process`` (``pstate.cpp:17-50``), on the machine."""
        sleep_ps = int(self.meter.pstate[machine])
        on_ps = self.model.machines[machine].sleep[sleep_ps][1]
        yield from self._transition(machine, on_ps, target)
        self.states.change(slice(machine, machine + 1), IDLE, self.kernel.now)
        yield (PUT, self.engine.mbox, ("SWITCHED_ON", machine, target))

    def _transition(self, machine: int, virtual: int, target: int) -> Body:
        """The virtual pstate, 1 flop at its speed (``this_actor::execute(1)``), the target pstate."""
        yield (CALL, self.set_pstate, machine, virtual)
        hooks = Execution(self.meter, [machine], [1.0])
        speed = self.model.machines[machine].speeds[virtual]
        name = self.engine.platform.compute_hosts[machine].name
        # 1 flop: an L07 action of rate speed / 1 (rated: its end as SimGrid computes it)
        action = yield (EXEC_START, 1.0 / speed, ptask([name], [1.0], None), hooks, speed)
        hooks.started()
        yield (EXEC_WAIT, action, None)
        yield (CALL, self.set_pstate, machine, target)

    def on_query(self, message: Any) -> Body:
        """``server_on_sched_tell_me_energy``: ANSWER with the platform's energy, no row."""
        energy: LongDouble = yield from read(self.meter, self.meter.all)
        self.engine.events.append(self.kernel.now, "ANSWER", {"consumed_energy": float(energy)})

    # -- the summary --------------------------------------------------------------------------
    def summary(self) -> dict[str, str]:
        """``_schedule.csv``'s energy and machine-state columns (``export.cpp:1071-1101``)."""
        values = {
            "consumed_joules": "%f" % float(self.energy_csv.last_end - self.first_submission),
            "nb_grouped_switches": str(self.nb_grouped_switches),
            "nb_machine_switches": str(self.nb_machine_switches),
        }
        for name, total in self.states.totals().items():
            values[f"time_{name}"] = "%f" % total
        return values

    def close(self) -> None:
        self.energy_csv.close()
        self.pstate_csv.close()

    def detach(self) -> None:
        """Drops the engine, at the end of its run (as ``DecisionParser.detach``): the engine and
        this side refer to each other, a cycle that would leave the run (its workload and job
        records) as garbage only a full collection frees."""
        self.engine = None
