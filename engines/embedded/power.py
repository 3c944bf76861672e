"""The power description of a platform, read as Batsim 4.2.1 and SimGrid 3.32 read it with ``-E``.

Reference: batsim-energy.md §2 (``../shared/reference``), from these sources:

- ``wattage_per_state`` (SimGrid ``src/plugins/host_energy.cpp:340-391``): one comma-separated
  entry per pstate, each ``Idle:Epsilon:AllCores`` or ``Idle:AllCores`` (then Epsilon = Idle);
  the number of entries must equal the number of pstates, checked for *every* host when the
  platform loads (the master too). ``slope = AllCores - Epsilon``. Values are read by ``strtod``
  and must be consumed whole (leading blanks are fine, trailing ones are not).
  ``watt_per_state``/``watt_off`` are ignored (SimGrid removed them in 3.28), and so is
  ``wattage_off`` (used only while a host is off, which Batsim never asks).
- ``sleep_pstates`` (Batsim ``src/machines.cpp:89-209``): comma-separated ``sleep:off:on``
  triplets, in that order (the code's, not its assertion text's): ``off`` is the virtual pstate
  of the switch-off, ``on`` that of the switch-on. Every pstate not listed is a computation
  pstate, whose speed must be positive (``machines.cpp:220-245``).

The summed machines are Batsim's ``Machines::_machines``: compute hosts by id, then storage
hosts; the master is left out of every sum (``machines.cpp:413-449``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from adaptsched.errors import InputError
from adaptsched.platforms.simgrid import Host, Platform

COMPUTATION, SLEEP, VIRTUAL = "computation", "sleep", "virtual"

#: What ``strtod`` reads whole from a token that may start with blanks (SimGrid's
#: ``xbt_str_parse_double``); Python's ``float`` would also take trailing blanks and underscores.
_NUMBER = re.compile(r"^\s*[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)$")


@dataclass(frozen=True)
class MachinePower:
    """One summed machine's pstates: speed (flop/s), watts, kind, and its sleep pstates."""

    name: str
    speeds: tuple[float, ...]
    idle: tuple[float, ...]
    epsilon: tuple[float, ...]
    slope: tuple[float, ...]  # AllCores - Epsilon, as SimGrid stores it
    kinds: tuple[str, ...]  # COMPUTATION, SLEEP or VIRTUAL, by pstate
    sleep: dict[int, tuple[int, int]]  # sleep pstate -> (switch-off virtual pstate, switch-on virtual pstate)
    pstate: int  # the initial pstate
    cores: int

    def watts(self, pstate: int, load_flops: float) -> float:
        """SimGrid's power at ``pstate`` under a CPU load of ``load_flops`` (``get_load()``):
        Idle at no load, Epsilon + cpu_load x slope otherwise (``host_energy.cpp:262-330``)."""
        speed = self.speeds[pstate]
        if speed <= 0:
            cpu_load = 1.0
        else:
            cpu_load = load_flops / speed
            cpu_load /= self.cores
            if cpu_load > 1:
                cpu_load = 1.0
        if cpu_load > 0:
            return self.epsilon[pstate] + cpu_load * self.slope[pstate]
        return self.idle[pstate]


@dataclass(frozen=True)
class PowerModel:
    """The power of every machine Batsim sums, in its order (compute hosts, then storage)."""

    machines: tuple[MachinePower, ...]
    nb_compute: int

    def kind(self, machine: int, pstate: int) -> str:
        return self.machines[machine].kinds[pstate]


def read_power(platform: Platform) -> PowerModel:
    """The platform's power model, or an :class:`InputError` where Batsim or SimGrid would stop."""
    path = platform.path
    for host in (platform.master, *platform.compute_hosts, *platform.storage_hosts):
        _wattages(host, path)  # SimGrid checks every host when the platform loads
    machines = tuple(_machine(h, path) for h in (*platform.compute_hosts, *platform.storage_hosts))
    return PowerModel(machines, platform.nb_hosts)


def _machine(host: Host, path: str) -> MachinePower:
    watts = _wattages(host, path)
    if watts is None:
        raise InputError(
            path,
            f"host {host.name!r} has no 'wattage_per_state' property: with --energy, Batsim reads every "
            "machine's energy and SimGrid stops on it ('No power range properties specified for host')",
        )
    speeds = host.pstate_speeds
    kinds, sleep = _sleep_pstates(host, len(speeds), path)
    for pstate, kind in enumerate(kinds):
        if kind == COMPUTATION and speeds[pstate] <= 0:
            raise InputError(path, f"host {host.name!r}: computation pstate {pstate} has a non-positive speed")
    idle = tuple(w[0] for w in watts)
    epsilon = tuple(w[1] for w in watts)
    slope = tuple(w[2] - w[1] for w in watts)
    return MachinePower(host.name, speeds, idle, epsilon, slope, kinds, sleep, host.pstate, host.cores)


def _wattages(host: Host, path: str) -> list[tuple[float, float, float]] | None:
    """(Idle, Epsilon, AllCores) by pstate, or None without the property."""
    text = host.properties.get("wattage_per_state")
    if text is None:
        return None
    entries = text.split(",")
    nb_pstates = len(host.pstate_speeds)
    if len(entries) != nb_pstates:
        raise InputError(
            path,
            f"host {host.name!r}: 'wattage_per_state' has {len(entries)} entries for {nb_pstates} pstates "
            "(SimGrid's energy plugin stops on it: 'Invalid XML file')",
        )
    watts = []
    for pstate, entry in enumerate(entries):
        values = entry.split(":")
        if len(values) not in (2, 3) or not all(_NUMBER.match(v) for v in values):
            raise InputError(
                path,
                f"host {host.name!r}: 'wattage_per_state' entry {entry!r} (pstate {pstate}) is not "
                "'Idle:AllCores' or 'Idle:Epsilon:AllCores' (numbers)",
            )
        numbers = [float(v) for v in values]
        watts.append((numbers[0], numbers[0], numbers[1]) if len(numbers) == 2 else tuple(numbers))
    return watts  # type: ignore[return-value]  # tuples of 3


def _sleep_pstates(host: Host, nb_pstates: int, path: str) -> tuple[tuple[str, ...], dict[int, tuple[int, int]]]:
    """Each pstate's kind and the sleep pstates' (off, on) virtual pstates (``machines.cpp:89-209``)."""
    kinds: dict[int, str] = {}
    sleep: dict[int, tuple[int, int]] = {}
    text = host.properties.get("sleep_pstates")
    if text is not None:
        for triplet in [t for t in text.split(",") if t] or [""]:  # boost::split, token_compress_on
            parts = [p.strip() for p in triplet.split(":") if p != ""]
            if len(parts) != 3 or not all(p.isdigit() for p in parts):
                raise InputError(
                    path,
                    f"host {host.name!r}: 'sleep_pstates' part {triplet!r} is not three colon-separated pstates "
                    "sleep:off:on (Batsim stops on it)",
                )
            sleep_ps, off_ps, on_ps = (int(p) for p in parts)
            if sleep_ps in (off_ps, on_ps):
                raise InputError(
                    path,
                    f"host {host.name!r}: 'sleep_pstates' part {triplet!r} makes pstate {sleep_ps} both a sleep and a "
                    "virtual pstate (Batsim goes on with an inconsistent machine): use --engine batsim",
                )
            for pstate in (sleep_ps, off_ps, on_ps):
                if pstate >= nb_pstates:
                    raise InputError(path, f"host {host.name!r}: 'sleep_pstates' names a pstate it has not: {pstate}")
            if sleep_ps in kinds or kinds.get(off_ps, VIRTUAL) != VIRTUAL or kinds.get(on_ps, VIRTUAL) != VIRTUAL:
                raise InputError(
                    path,
                    f"host {host.name!r}: 'sleep_pstates' gives pstate {sleep_ps}, {off_ps} or {on_ps} two kinds "
                    "(Batsim logs an error and goes on with an inconsistent machine): use --engine batsim",
                )
            sleep[sleep_ps] = (off_ps, on_ps)
            kinds[sleep_ps] = SLEEP
            kinds[off_ps] = kinds[on_ps] = VIRTUAL
    return tuple(kinds.get(p, COMPUTATION) for p in range(nb_pstates)), sleep
