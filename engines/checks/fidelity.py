"""Whether the embedded engine runs a platform and a workload exactly as real Batsim 4.2.1 does.

A wrong answer with exit code 0 is the worst bug: before the first event, every run on the
embedded engine is assessed (:func:`assess`), and one it does not model exactly

- says so, names what differs and by about how much, and points to ``--engine batsim``
  (:attr:`Fidelity.warning`), or
- is refused, when the engine cannot run it at all (SMPI, usage traces, storage profiles:
  :attr:`Fidelity.refusal`).

``--engine auto`` (:func:`choose_engine`, :func:`engine_for`) picks the embedded engine when it is exact, and real
Batsim when it is not and Batsim is installed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from adaptsched.errors import SimulationError
from adaptsched.workloads.batsim_json import EMBEDDED_PROFILE_TYPES, Profile, Workload

#: Profile types it refuses, and why (Batsim 4.2.1's ``src/profiles.cpp``).
REFUSED_PROFILES = {
    "smpi": "an SMPI profile replays MPI traces through SimGrid's SMPI",
    "usage_trace": "a usage_trace profile replays per-host usage traces",
    "parallel_homogeneous_pfs": "a parallel_homogeneous_pfs profile reads and writes on a storage host",
    "data_staging": "a data_staging profile moves data between storage hosts",
    "send": "a send profile sends messages to the scheduler while it runs",
    "recv": "a recv profile waits for messages from the scheduler while it runs",
}


@dataclass
class Fidelity:
    """What the embedded engine would do differently from real Batsim on one run."""

    differences: list[str] = field(default_factory=list)  # runs, but not exactly: what and by how much
    refusals: list[str] = field(default_factory=list)  # cannot run at all

    @property
    def exact(self) -> bool:
        return not self.differences and not self.refusals

    @property
    def warning(self) -> str:
        return (
            "warning: the embedded engine does not model this run exactly as real Batsim 4.2.1 does: "
            + "; ".join(self.differences)
            + "; use --engine batsim (real Batsim) for exact results, or --engine auto to choose"
        )

    @property
    def refusal(self) -> str:
        return (
            "the embedded engine cannot run this workload as real Batsim 4.2.1 does: "
            + "; ".join(self.refusals)
            + "; use --engine batsim (real Batsim 4.2.x; docs/getting-started.md says how to install it)"
        )


def profile_refusals(profiles: Mapping[str, Profile], shown: int = 4) -> list[str]:
    """One sentence per profile type the engine cannot run, naming its profiles."""
    by_type: dict[str, list[str]] = {}
    for name, profile in profiles.items():
        if profile.type not in EMBEDDED_PROFILE_TYPES:
            by_type.setdefault(profile.type, []).append(name)
    refusals = []
    for kind, names in by_type.items():
        why = REFUSED_PROFILES.get(kind, f"profile type '{kind}' is not modelled")
        listed = ", ".join(f"'{n}'" for n in names[:shown]) + (
            f" and {len(names) - shown} more" if len(names) > shown else ""
        )
        what = f"profile {listed} has" if len(names) == 1 else f"profiles {listed} have"
        refusals.append(f"{what} type '{kind}' ({why})")
    return refusals


def _time(seconds: float) -> str:
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.3g} ms"
    if seconds >= 1e-6:
        return f"{seconds * 1e6:.3g} µs"
    return f"{seconds:.3g} s"


def message_time(network, src: str, dst: str) -> float:
    """How long one of Batsim's 1-byte messages takes from ``src`` to ``dst``, alone on its route."""
    route = network.route(src, dst)
    rate = min((link.bandwidth for link in route.links), default=float("inf"))
    if route.latency > 0:
        rate = min(rate, network.tcp_gamma / (2.0 * route.latency))
    return route.latency + (1.0 / rate if rate < float("inf") else 0.0)


def platform_differences(machines) -> list[str]:
    """What of the platform the embedded engine does not model (docs/network.md says what it does)."""
    network = machines.network
    if network is None or not network.unsupported:
        return []
    bound = network.latency_bound()
    return [
        f"this platform's {network.unsupported_note()} are not modelled: Batsim's messages may take other times "
        f"on real Batsim (up to {_time(bound)} each, the latencies of all its links), and job starts differ by up "
        f"to about {_time(5 * bound)}"
    ]


def platform_refusals(machines) -> list[str]:
    """What makes real Batsim stop on this platform (the engine refuses it too)."""
    network = machines.network
    return [] if network is None else [f"the platform is one real Batsim stops on: {what}" for what in network.invalid]


def self_communication_refusals(machines, profiles: Mapping[str, Profile]) -> list[str]:
    """``parallel`` profiles that send bytes from a host to itself, on a platform adaptsched
    generates: their bytes cross the 1e20 B/s FATPIPE loopback with Batsim's messages, where
    SimGrid 3.32's max-min solver never ends (real Batsim hangs: docs/network.md). On other
    platforms the engine's network model detects it when it happens."""
    if machines.network is not None:
        return []
    found = []
    for name, profile in profiles.items():
        n = len(profile.cpus)
        if profile.type == "parallel" and n > 1 and any(profile.coms[i * n + i] > 0 for i in range(n)):
            found.append(name)
    if not found:
        return []
    listed = ", ".join(repr(n) for n in found[:4]) + (f" and {len(found) - 4} more" if len(found) > 4 else "")
    return [
        f"the parallel profiles {listed} send bytes from a host to itself (com[i][i] > 0) over this platform's "
        "1e20 B/s loopback, where SimGrid 3.32's max-min solver never ends: real Batsim 4.2.1 hangs on this "
        "workload too (give com[i][i] zero bytes)"
    ]


def assess(machines, loaded: Workload) -> Fidelity:
    """The embedded engine's :class:`Fidelity` on this platform (a read ``Platform``) and
    workload (loaded with every profile type, :func:`~adaptsched.workloads.batsim_json.load_workload`)."""
    fidelity = Fidelity()
    fidelity.differences += platform_differences(machines)
    fidelity.refusals += platform_refusals(machines)
    fidelity.refusals += profile_refusals(loaded.declared)
    fidelity.refusals += self_communication_refusals(machines, loaded.declared)
    return fidelity


def choose_engine(engine: str, fidelity: Fidelity, batsim_found: bool, say=print) -> str:
    """The engine to run: ``auto`` resolved; the embedded engine's warning printed, or its
    refusal raised, before the first event."""
    if engine == "batsim":
        return engine
    if engine == "auto":
        if fidelity.exact:
            return "embedded"
        if batsim_found:
            say("--engine auto: real Batsim, since " + (fidelity.refusals + fidelity.differences)[0])
            return "batsim"
    if fidelity.refusals:
        raise SimulationError(fidelity.refusal)
    if fidelity.differences:
        say(fidelity.warning)
    return "embedded"


def engine_for(engine: str, machines, loaded: Workload, batsim: str | None, say=print) -> str:
    """:func:`choose_engine` for this platform and workload (:func:`assess`), with real Batsim
    looked for where ``batsim`` (``--batsim``), $BATSIM and PATH say."""
    return choose_engine(engine, assess(machines, loaded), batsim_found(batsim), say)


def batsim_found(batsim: str | None) -> bool:
    """Whether real Batsim is installed (:func:`adaptsched.engines.real.find_batsim`)."""
    from adaptsched.engines.real import find_batsim

    try:
        return find_batsim(batsim) is not None
    except SimulationError:
        return False
