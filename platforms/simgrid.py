"""SimGrid platform files: reading the hosts Batsim uses, and generating clusters.

Reading follows Batsim 4.2.1 (``src/machines.cpp``) on SimGrid 3.32:

- every ``<host>`` and every host of a ``<cluster>`` (``prefix`` + number +
  ``suffix`` for each number of ``radical``) is a machine, whatever its zone;
- the master host is the one whose ``role`` property is ``master`` (``<prop>``
  children of a ``<cluster>`` apply to each of its hosts), or else the host named
  ``master_host`` (Batsim's default ``-m``); hosts whose ``role`` is ``storage`` are storage
  machines (ids after the compute hosts', in file order); every other host computes;
- compute hosts get resource ids 0..N-1 in the byte order of their names
  (``Engine::get_all_hosts()`` sorts by name), so ``host10`` comes before ``host2``.
  Generated platforms zero-pad their names so that this order is the numeric one;
- a host's speed is that of its ``pstate`` (0 by default) among its comma-separated speeds
  (``speed="100Mf, 50Mf"`` is 100 Mflop/s); ``<cabinet>`` hosts are machines too;
- blank lines before the XML declaration are accepted, as SimGrid accepts them.

:func:`read_platform` also reads the network (:mod:`adaptsched.platforms.routes`: links,
zones, routes) into :attr:`Platform.network`, which is None when Batsim's messages take no
time worth modelling: on the platforms ``adaptsched platform`` generates.

Generated platforms have **no network links**: a single ``routing="Full"`` zone
with no routes. SimGrid gives such a zone an implicit loopback link (10 GB/s by
default, so each 1-byte message between Batsim's processes on the master host
would take 1e-10 s; these offsets add up along a trace and reorder simultaneous
events); the generated files set it to 1e20 B/s. Every message between Batsim's
processes, and so every job start, then takes zero simulated time (equivalent to
zero-latency, infinite-bandwidth links) and times stay exact. On platforms with link
latencies, real Batsim starts each job after the message latency (3 ms on Batsim's
``cluster512.xml``: docs/network.md).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from adaptsched.errors import AdaptschedError, InputError
from adaptsched.formats.files import read_text, write_text
from adaptsched.limits import MAX_HOSTS, shown
from adaptsched.platforms.power import SLEEP_PSTATES, PowerSpec
from adaptsched.platforms.routes import Network, read_network

#: Host sizes used by the seed papers; ``platforms/cluster<N>.xml`` ships for each.
SHIPPED_SIZES = (64, 100, 128, 338, 430)

_SPEED_UNITS = {
    "f": 1.0,
    "kf": 1e3,
    "Mf": 1e6,
    "Gf": 1e9,
    "Tf": 1e12,
    "Pf": 1e15,
    "Ef": 1e18,
    "Zf": 1e21,
    "Yf": 1e24,
}
_SPEED_RE = re.compile(r"^\s*([0-9.eE+-]+)\s*([kMGTPEZY]?f)?(?:lops)?\s*$")


@dataclass(frozen=True)
class Host:
    name: str
    speed_flops: float  # at its initial pstate
    properties: dict = field(default_factory=dict)
    #: flop/s of each of its pstates (``speed="100Mf, 50Mf"``); empty: one, ``speed_flops``
    speeds: tuple = ()
    pstate: int = 0  # its initial pstate
    cores: int = 1

    @property
    def pstate_speeds(self) -> tuple:
        """Flop/s of each pstate (the energy model's DVFS and sleep states)."""
        return self.speeds or (self.speed_flops,)


@dataclass(frozen=True)
class Platform:
    """The machines of a platform file, as Batsim numbers them."""

    path: str
    master: Host
    compute_hosts: tuple  # of Host, index = Batsim resource id
    #: storage machines (role=storage): resource ids nb_hosts, nb_hosts + 1..., in file order
    storage_hosts: tuple = ()
    #: its links and routes (platforms/routes.py), or None when Batsim's messages take no time
    #: worth modelling (the platforms ``adaptsched platform`` writes: see the module docstring)
    network: Network | None = None

    @property
    def nb_hosts(self) -> int:
        return len(self.compute_hosts)


def parse_speed(text: str, *, path="<platform>", what="speed") -> float:
    """Flop/s of a SimGrid speed string; only the first power state counts.

    >>> parse_speed("1Gf"), parse_speed("98.095Mf"), parse_speed("100.0Mf, 88Mf")
    (1000000000.0, 98095000.0, 100000000.0)
    """
    first = text.split(",")[0]
    match = _SPEED_RE.match(first)
    if not match:
        raise InputError(path, f"{what} {text!r} is not a SimGrid speed such as '1Gf'")
    value = float(match.group(1)) * _SPEED_UNITS[match.group(2) or "f"]
    if value <= 0:
        raise InputError(path, f"{what} {text!r} must be positive")
    return value


def _radical_numbers(radical: str, path) -> list[int]:
    """The host numbers of a cluster's ``radical`` (``0-127``, ``0-3,8``), at most
    :data:`~adaptsched.limits.MAX_HOSTS` of them."""
    numbers: list[int] = []
    for part in radical.split(","):
        bounds = part.strip().split("-")
        try:
            if len(bounds) == 1:
                numbers.append(int(bounds[0]))
            elif len(bounds) == 2:
                first, last = int(bounds[0]), int(bounds[1])
                if last - first + len(numbers) >= MAX_HOSTS:
                    raise InputError(
                        path,
                        f"cluster radical {shown(radical)} makes more than {MAX_HOSTS:,} hosts, the most "
                        "adaptsched simulates (docs/errors.md, limits)",
                    )
                numbers.extend(range(first, last + 1))
            else:
                raise ValueError
        except ValueError:
            raise InputError(path, f"cluster radical {shown(radical)} is not like '0-127' or '0-3,8'") from None
    return numbers


def _props(element) -> dict:
    return {p.get("id"): p.get("value", "") for p in element.findall("prop")}


def read_platform(path) -> Platform:
    """Reads the machines of a SimGrid platform XML file the way Batsim does."""
    path = str(path)
    text = read_text(path, "platform")  # (no such file, binary data, too large: named)
    stripped = text.lstrip()  # SimGrid accepts blank lines before the XML declaration
    skipped = text[: len(text) - len(stripped)].count("\n")
    try:
        root = ET.fromstring(stripped)
    except ET.ParseError as error:
        line = error.position[0] + skipped if error.position else None
        raise InputError(path, f"not valid XML ({error.msg if hasattr(error, 'msg') else error})", line=line) from None
    if root.tag != "platform":
        raise InputError(path, f"root element is <{root.tag}>, expected <platform>")

    hosts = []
    for element in root.iter():
        if element.tag == "host":
            name = element.get("id")
            if not name:
                raise InputError(path, "a <host> has no 'id'")
            speeds, pstate = _pstate_speeds(element, path, f"host {name!r} speed")
            cores = _cores(element, path, f"host {name!r}")
            hosts.append(Host(name, speeds[pstate], _props(element), speeds, pstate, cores))
        elif element.tag in ("cluster", "cabinet"):
            cid = element.get("id", "?")
            what = f"{element.tag} {cid!r} speed"
            speeds = tuple(parse_speed(s, path=path, what=what) for s in element.get("speed", "").split(","))
            cores = _cores(element, path, f"{element.tag} {cid!r}")
            props = _props(element)
            prefix, suffix = element.get("prefix", ""), element.get("suffix", "")
            for number in _radical_numbers(element.get("radical", ""), path):
                hosts.append(Host(f"{prefix}{number}{suffix}", speeds[0], dict(props), speeds, 0, cores))
        if len(hosts) > MAX_HOSTS + 1:  # (and a master)
            raise InputError(
                path, f"more than {MAX_HOSTS:,} hosts, the most adaptsched simulates (docs/errors.md, limits)"
            )

    masters = [h for h in hosts if h.properties.get("role") == "master"]
    if not masters:
        masters = [h for h in hosts if h.name == "master_host"]
    if len(masters) != 1:
        found = ", ".join(h.name for h in masters) or "none"
        raise InputError(
            path,
            f"needs exactly one master host (property role=master, or a host named master_host), found {found} "
            '(real Batsim 4.2.1 stops on it too: Cannot find the "master" role in the platform file)',
        )
    master = masters[0]
    storage = tuple(h for h in hosts if h is not master and h.properties.get("role") == "storage")
    compute = sorted((h for h in hosts if h is not master and h not in storage), key=lambda h: h.name.encode())
    if not compute:
        raise InputError(path, "has no compute host (every host but the master computes)")
    names = [h.name for h in compute]
    if len(set(names)) != len(names):
        raise InputError(path, "host names must be unique")
    network = read_network(root, path)
    network_or_none = None if _instantaneous(network, master.name, names) else network
    return Platform(path, master, tuple(compute), storage, network_or_none)


def _instantaneous(network: Network, master: str, hosts: list) -> bool:
    """Whether the engine can ignore the network (:meth:`Network.instantaneous`)."""
    if network.invalid:
        return False
    try:
        return network.instantaneous(master, hosts)
    except InputError as error:  # no route between Batsim's processes: real Batsim stops too
        network.invalid.append(str(error).split(": ", 1)[-1])
        return False


def _pstate_speeds(element, path, what: str) -> tuple[tuple[float, ...], int]:
    """A host's comma-separated speeds, one per pstate, and its ``pstate`` (default 0)."""
    texts = element.get("speed", "").split(",")
    try:
        pstate = int(float(element.get("pstate", "0")))
    except ValueError:
        raise InputError(path, f"{what}: pstate {element.get('pstate')!r} is not an integer") from None
    if not 0 <= pstate < len(texts):
        raise InputError(path, f"{what}: pstate {pstate} but only {len(texts)} speeds")
    return tuple(parse_speed(text, path=path, what=what) for text in texts), pstate


def _cores(element, path, what: str) -> int:
    """A host's (or a cluster's hosts') ``core`` count, default 1."""
    text = element.get("core", "1")
    try:
        cores = int(text)
    except ValueError:
        raise InputError(path, f"{what}: core {text!r} is not an integer") from None
    if cores < 1:
        raise InputError(path, f"{what}: core {text!r} must be at least 1")
    return cores


def cluster_xml(nb_hosts: int, *, speed: str = "1Gf", power: PowerSpec | None = None) -> str:
    """XML of a homogeneous cluster: a master plus ``nb_hosts`` compute hosts, no links; with
    ``power``, each compute host has its pstates and watts (:mod:`adaptsched.platforms.power`)."""
    if nb_hosts < 1:
        raise ValueError("a cluster needs at least one compute host")
    parse_speed(speed)
    width = len(str(nb_hosts - 1))
    lines = [
        "<?xml version='1.0'?>",
        '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">',
        '<platform version="4.1">',
        f"  <!-- adaptsched: {nb_hosts} compute hosts at {speed}, plus a master. No links and an",
        "       instantaneous loopback: Batsim's messages and job starts take zero simulated time. -->",
        '  <config><prop id="network/loopback-bw" value="1e20"/></config>',
        '  <zone id="cluster" routing="Full">',
        f'    <host id="master" speed="{speed}"><prop id="role" value="master"/></host>',
    ]
    if power is None:
        lines += [f'    <host id="host{i:0{width}d}" speed="{speed}"/>' for i in range(nb_hosts)]
    else:
        lines.insert(5, f"  <!-- power (adaptsched.platforms.power): {power.describe()} -->")
        props = (
            f'<prop id="wattage_per_state" value="{power.wattage_per_state()}"/>'
            f'<prop id="sleep_pstates" value="{SLEEP_PSTATES}"/>'
        )
        speeds = power.speeds(speed)
        lines += [f'    <host id="host{i:0{width}d}" speed="{speeds}">{props}</host>' for i in range(nb_hosts)]
    lines += ["  </zone>", "</platform>", ""]
    return "\n".join(lines)


def cluster_platform(nb_hosts: int, path, *, speed: str = "1Gf", power: PowerSpec | None = None) -> Platform:
    """What :func:`read_platform` reads from :func:`cluster_xml`'s file at ``path``, built
    without parsing it (100,000 hosts: about a second of XML and properties less per run)."""
    if nb_hosts < 1:
        raise ValueError("a cluster needs at least one compute host")
    flops = parse_speed(speed)
    width = len(str(nb_hosts - 1))
    if power is None:
        speeds: tuple[float, ...] = (flops,)
        props: dict[str, str] = {}
    else:
        speeds = tuple(parse_speed(text) for text in power.speeds(speed).split(","))
        props = {"wattage_per_state": power.wattage_per_state(), "sleep_pstates": SLEEP_PSTATES}
    hosts = tuple(  # names sort as ids
        Host(f"host{i:0{width}d}", speeds[0], dict(props), speeds) for i in range(nb_hosts)
    )
    return Platform(str(path), Host("master", flops, {"role": "master"}, (flops,)), hosts)


def write_cluster(nb_hosts: int, path, *, speed: str = "1Gf", power: PowerSpec | None = None) -> Path:
    """Writes :func:`cluster_xml` to ``path`` (whole or not at all: a full disk names the file)."""
    return write_text(path, cluster_xml(nb_hosts, speed=speed, power=power))


def given_platform(platform: str | int, generated: str | Path, *, power: PowerSpec | None = None) -> Platform:
    """A command's platform, given as a SimGrid file (read, :func:`read_platform`) or as a number of
    hosts: the cluster :func:`cluster_xml` makes (with ``power``, its pstates and watts), written
    to ``generated`` and built as read, without parsing it back (:func:`cluster_platform`)."""
    if isinstance(platform, int):
        if platform < 1:
            raise AdaptschedError("a platform needs at least one host")
        machines = cluster_platform(platform, generated, power=power)
        write_cluster(platform, generated, power=power)
        return machines
    path = Path(platform)
    if not path.is_file():
        raise InputError(platform, "no such platform file")
    return read_platform(path)


def shipped_platform(nb_hosts: int) -> Path | None:
    """Path of the shipped ``cluster<N>.xml``, or None."""
    candidate = Path(__file__).with_name(f"cluster{nb_hosts}.xml")
    return candidate if candidate.exists() else None
