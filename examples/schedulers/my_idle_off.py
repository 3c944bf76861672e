"""EASY backfilling that puts idle hosts to sleep (docs/writing-a-scheduler.md, "Saving energy").

A host idle for ``idle_s`` seconds is switched to its sleep pstate; when the waiting jobs need
more hosts than the awake free ones, sleeping hosts are switched back on. It talks to Batsim
through pybatsim's low-level energy calls: ``set_resource_state`` (SET_RESOURCE_STATE),
``onMachinePStateChanged`` (RESOURCE_STATE_CHANGED), and, with ``log_energy``,
``request_consumed_energy`` (QUERY) and ``onReportEnergyConsumed`` (its ANSWER).

A host leaves EASY's pool when its switch-off is asked and comes back when Batsim reports it
awake, so EASY never starts a job on a sleeping or switching host. Run it with ``--energy`` on a
platform whose hosts have ``sleep_pstates`` (``adaptsched platform --power``)::

    adaptsched run --scheduler examples/schedulers/my_idle_off.py --option idle_s=600 --energy ...
"""

import logging
from dataclasses import dataclass

from procset import ProcSet

from adaptsched.api import EasyBackfilling, IntervalSet, ReservingOptions, option, plugin

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class IdleOffOptions(ReservingOptions):
    idle_s: float = option(1800.0, "seconds a host stays idle before it is switched off", low=0.0)
    log_energy: bool = option(False, "ask Batsim for the energy so far at each switch-off, and log it")


class IdleOffEasy(EasyBackfilling):
    """EASY itself: the plugin below takes sleeping hosts out of its pool."""

    name = "idle-off-easy"
    Options = IdleOffOptions


class My_idle_off(plugin(IdleOffEasy)):  # type: ignore[misc]  # a class plugin() makes at run time
    """The pybatsim plugin ``plugin()`` makes for EASY, with pybatsim's energy callbacks added."""

    def onSimulationBegins(self):
        super().onSimulationBegins()
        n = self.bs.nb_compute_resources
        self.sleep_pstate = [sleep_pstate_of(self.bs.compute_resources[i]) for i in range(n)]
        self.idle_since = [0.0] * n  # when each awake free host became free
        self.asleep = set()  # hosts in a sleep pstate
        self.dozing = set()  # hosts being switched off
        self.waking = set()  # hosts being switched on
        self.wake_at = None  # the CALL_ME_LATER asked for, if any

    def onJobCompletion(self, job):
        super().onJobCompletion(job)
        for host in job.allocation:
            self.idle_since[host] = self.bs.time()

    def onMachinePStateChanged(self, nodeInterval, state):
        low, high = nodeInterval  # pybatsim: once per run of hosts, the pstate as text
        hosts = range(low, high + 1)
        if state == "0":  # awake: back in EASY's pool
            self.waking.difference_update(hosts)
            self.core.pool.release(IntervalSet([(low, high)]))
            for host in hosts:
                self.idle_since[host] = self.bs.time()
        else:
            self.dozing.difference_update(hosts)
            self.asleep.update(hosts)

    def onReportEnergyConsumed(self, consumed_energy):
        logger.info("t=%f: %f J consumed so far", self.bs.time(), consumed_energy)

    def onRequestedCall(self):
        self.wake_at = None

    def onNoMoreEvents(self):
        super().onNoMoreEvents()  # EASY's decisions first: its starts take hosts from the pool
        if self.core is None:  # the SIMULATION_BEGINS message
            return
        now = self.bs.time()
        demand = sum(job.res for job in self.core.queue.jobs)
        free = list(self.core.pool.free())
        self.wake(min(len(self.asleep), max(0, demand - len(free) - len(self.waking))))
        self.switch_off(free, max(0, len(free) - demand), now)

    def wake(self, count):
        """Switches ``count`` sleeping hosts back on (pstate 0), lowest ids first."""
        if count <= 0:
            return
        hosts = sorted(self.asleep)[:count]
        self.asleep.difference_update(hosts)
        self.waking.update(hosts)
        self.bs.set_resource_state(ProcSet(*hosts), 0)

    def switch_off(self, free, spare, now):
        """Switches off up to ``spare`` free hosts idle for ``idle_s`` or more; asks to be called
        when the next one will have been idle that long."""
        idle_s = self.core_options.idle_s
        tired = [h for h in free if self.sleep_pstate[h] is not None and now - self.idle_since[h] >= idle_s]
        chosen = sorted(tired, key=lambda h: (self.idle_since[h], h))[:spare]
        by_pstate = {}
        for host in chosen:
            by_pstate.setdefault(self.sleep_pstate[host], []).append(host)
        for pstate, hosts in sorted(by_pstate.items()):
            self.core.pool.take(IntervalSet.from_ids(sorted(hosts)))
            self.dozing.update(hosts)
            self.bs.set_resource_state(ProcSet(*hosts), pstate)
        if chosen and self.core_options.log_energy:
            self.bs.request_consumed_energy()
        waiting = [self.idle_since[h] + idle_s for h in free if h not in chosen and self.sleep_pstate[h] is not None]
        later = min((t for t in waiting if t > now), default=None)
        if later is not None and (self.wake_at is None or later < self.wake_at):
            self.bs.wake_me_up_at(later)
            self.wake_at = later


def sleep_pstate_of(resource):
    """A host's first sleep pstate (its ``sleep_pstates`` property, ``sleep:off:on,...``), or None."""
    text = resource.get("properties", {}).get("sleep_pstates", "")
    first = text.split(",")[0].split(":")[0].strip()
    return int(first) if first.isdigit() else None
