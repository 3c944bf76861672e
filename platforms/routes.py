"""SimGrid 3.32's network of a platform file: links, zones and the route between two hosts.

Batsim 4.2.1 sends every internal message as a 1-byte SimGrid communication between the
hosts of two of its actors (docs/network.md), so the time a message takes follows from the
route between those hosts. This module reads the network part of a platform file and
computes routes exactly as SimGrid 3.32 does (``src/kernel/routing/``): the same links, in
the same order, and the route latency summed in the same order (floating-point sums depend
on it). The engine's network model (``engines/embedded/network.py``) turns routes into
transfer times.

Modelled, with SimGrid's rules (file references into SimGrid 3.32's sources):

- ``<link>`` with ``bandwidth``, ``latency`` and ``sharing_policy`` ``SHARED``,
  ``FATPIPE`` or ``SPLITDUPLEX`` (two links ``ID_UP`` and ``ID_DOWN``; ``FULLDUPLEX`` is its
  deprecated name); units as ``xbt_parse_units.cpp`` reads them;
- ``routing="Full"`` zones (``FullZone.cpp``) with ``<route>`` (symmetrical unless
  ``symmetrical="NO"``: the way back lists the links in reverse order, each split-duplex link
  in its other direction) and, in a zone without sub-zones, the network model's implicit
  loopback (``network/loopback-bw``, default 10 GB/s; ``network/loopback-lat``, default 0) for
  a host talking to itself when no route says otherwise;
- ``<cluster>`` (flat topology: ``sg_platf.cpp``, ``sg_platf_new_cluster_flat``): a star zone
  whose hosts each have a private link (``bw``, ``lat``, split-duplex by default), an optional
  limiter, an optional backbone (``bb_bw``, ``bb_lat``) and an optional loopback, plus a router
  ``PREFIX ID _router SUFFIX`` (or ``router_id``) as gateway;
- ``routing="Cluster"`` zones with ``<cabinet>``, ``<backbone>`` and ``<host_link>``
  (``sg_platf_build_cabinet``); ``routing="Vivaldi"`` zones (a star zone plus the distance
  between host coordinates, in ms); ``routing="None"`` zones (no routes at all);
- ``<zoneRoute>`` (and its older name ``<ASroute>``) between sub-zones, through their
  gateways, and the recursive route search of ``NetZoneImpl::get_global_route``;
- ``<config>``: ``network/TCP-gamma``, ``network/loopback-bw``, ``network/loopback-lat``,
  ``maxmin/precision``, ``surf/precision`` (used by the network model); keys that change
  nothing Batsim simulates (``contexts/...``, ``path``...) are ignored.

Not modelled (:attr:`Network.unsupported` names each one met, and the engine warns before
the first event): ``Floyd``/``Dijkstra``/``DijkstraCache``/``Wifi`` routing, torus, fat-tree
and dragonfly clusters, ``<bypassRoute>``/``<bypassZoneRoute>``, ``<peer>``, bandwidth,
latency and state traces (``*_file``), WIFI links, and other ``<config>`` keys.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import NoReturn

from adaptsched.errors import InputError

#: SimGrid 3.32's defaults (``src/simgrid/sg_config.cpp``, ``src/kernel/lmm/System.cpp``,
#: ``src/kernel/resource/NetworkModel.cpp``).
DEFAULT_CONFIG = {
    "network/TCP-gamma": 4194304.0,
    "network/loopback-bw": 10e9,
    "network/loopback-lat": 0.0,
    "maxmin/precision": 1e-5,
    "surf/precision": 1e-9,
}
#: Every configuration key SimGrid 3.32 knows (as it lists them when it stops on an unknown
#: one): real Batsim 4.2.1 stops on any other key in a platform's ``<config>``.
SIMGRID_CONFIG_KEYS = frozenset(
    """bmf/max-iterations bmf/precision cmonkey/host cmonkey/link cmonkey/tell cmonkey/time contexts/factory
    contexts/guard-size contexts/nthreads contexts/stack-size contexts/synchro cpu/maxmin-selective-update cpu/model
    cpu/optim cpu/solver debug/breakpoint debug/clean-atexit debug/verbose-exit disk/model disk/solver
    exception/cutpath help-nostop host/model host/solver maxmin/concurrency-limit maxmin/precision
    model-check/replay model-check/timeout network/TCP-gamma network/bandwidth-factor network/crosstraffic
    network/latency-factor network/loopback-bw network/loopback-lat network/maxmin-selective-update network/model
    network/optim network/solver network/weight-S ns3/TcpModel ns3/seed path plugin plugin/dvfs/governor
    plugin/dvfs/max-pstate plugin/dvfs/min-pstate plugin/dvfs/sampling-rate smpi/IB-penalty-factors
    smpi/async-small-thresh smpi/auto-shared-malloc-thresh smpi/bw-factor smpi/comp-adjustment-file
    smpi/cpu-threshold smpi/display-allocs smpi/errors-are-fatal smpi/grow-injected-times smpi/host-speed
    smpi/hostfile smpi/init smpi/iprobe smpi/iprobe-cpu-usage smpi/lat-factor smpi/list-leaks smpi/map smpi/np
    smpi/pedantic smpi/replay smpi/send-is-detached-thresh smpi/shared-malloc smpi/simulate-computation smpi/test
    smpi/trace-call-location smpi/trace-call-use-absolute-path smpi/wtime surf/precision tracing tracing/actor
    tracing/basic tracing/categorized tracing/comment tracing/comment-file tracing/disable-destroy
    tracing/disable_link tracing/disable_power tracing/filename tracing/platform tracing/platform/topology
    tracing/precision tracing/smpi tracing/smpi/computing tracing/smpi/display-sizes tracing/smpi/format
    tracing/smpi/format/ti-one-file tracing/smpi/group tracing/smpi/internals tracing/smpi/sleeping
    tracing/uncategorized tracing/vm""".split()
)
#: Keys that change nothing Batsim simulates with the ptask_L07 model it sets (stacks, logs, traces,
#: CM02's factors, SMPI without SMPI jobs, solvers of other models...).
INERT_CONFIG = (
    "bmf/",
    "contexts/",
    "cpu/maxmin-selective-update",
    "debug/",
    "disk/",
    "exception/",
    "help-nostop",
    "model-check/",
    "network/bandwidth-factor",
    "network/crosstraffic",
    "network/latency-factor",
    "network/maxmin-selective-update",
    "network/weight-S",
    "ns3/",
    "path",
    "smpi/",
    "tracing",
)


def _scale(base: float, mult: float, prefixes) -> dict[str, float]:
    out, value = {}, base
    for prefix in prefixes:
        value *= mult
        out[prefix] = value
    return out


def _units(unit: str, base: float) -> dict[str, float]:
    """SimGrid's unit table (``xbt_parse_units.cpp``, ``unit_scale``): each prefix multiplies
    the previous value by 1000 (or 1024), in this order, as SimGrid computes it."""
    table = {unit: base}
    for prefix, value in _scale(base, 1000.0, ("k", "M", "G", "T", "P", "E", "Z", "Y")).items():
        table[prefix + unit] = value
    for prefix, value in _scale(base, 1024.0, ("Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "Zi", "Yi")).items():
        table[prefix + unit] = value
    return table


_TIME_UNITS = {
    "w": 7 * 24 * 60 * 60.0,
    "d": 24 * 60 * 60.0,
    "h": 60 * 60.0,
    "m": 60.0,
    "s": 1.0,
    "ms": 1e-3,
    "us": 1e-6,
    "ns": 1e-9,
    "ps": 1e-12,
}
_BANDWIDTH_UNITS = {**_units("bps", 0.125), **_units("Bps", 1.0)}


def _number_prefix(text: str) -> tuple[float, str] | None:
    """``strtod``: the longest leading number of ``text`` and what follows it."""
    text = text.strip()
    for end in range(len(text), 0, -1):
        try:
            return float(text[:end]), text[end:]
        except ValueError:
            continue
    return None


def parse_with_unit(text: str, units: dict, default: str, *, path, what: str) -> float:
    """A SimGrid value with its unit (``xbt_parse_get_value_with_unit``): number x unit."""
    parsed = _number_prefix(text or "")
    if parsed is None:
        raise InputError(path, f"{what} {text!r} is not a number with a unit")
    value, unit = parsed
    unit = unit or default
    if unit not in units:
        raise InputError(path, f"{what} {text!r}: unknown unit {unit!r}")
    return value * units[unit]


def parse_time(text: str, *, path="<platform>", what="latency") -> float:
    return parse_with_unit(text, _TIME_UNITS, "s", path=path, what=what)


def parse_bandwidth(text: str, *, path="<platform>", what="bandwidth") -> float:
    return parse_with_unit(text, _BANDWIDTH_UNITS, "Bps", path=path, what=what)


@dataclass(eq=False)
class Link:
    """One SimGrid link (a split-duplex link is two of them, ``ID_UP`` and ``ID_DOWN``)."""

    name: str
    bandwidth: float  # bytes/s
    latency: float  # s
    fatpipe: bool = False

    def __repr__(self) -> str:
        return f"Link({self.name!r}, bw={self.bandwidth!r}, lat={self.latency!r}{', FATPIPE' if self.fatpipe else ''})"


@dataclass(frozen=True)
class Route:
    """The links between two hosts, in SimGrid's order, and their summed latency."""

    links: tuple
    latency: float


@dataclass(eq=False)
class _Point:
    """A netpoint: a host, a router or a zone (as a member of its parent zone)."""

    name: str
    kind: str  # "host", "router" or "zone"
    zone: _Zone | None  # the englobing zone
    id: int = 0  # its rank in the englobing zone (SimGrid's NetPoint::id)
    coords: tuple | None = None


@dataclass(eq=False)
class _StarRoute:
    up: list = field(default_factory=list)
    down: list = field(default_factory=list)
    loopback: list | None = None
    gateway: _Point | None = None


@dataclass(eq=False)
class _Zone:
    name: str
    routing: str  # "full", "star", "vivaldi", "empty" or an unsupported name
    parent: _Zone | None
    point: _Point | None = None  # the zone as a netpoint of its parent
    children: list = field(default_factory=list)
    members: list = field(default_factory=list)  # netpoints, in creation order
    full: dict = field(default_factory=dict)  # (src id, dst id) -> (links, gw_src, gw_dst)
    star: dict = field(default_factory=dict)  # point id -> _StarRoute

    def add(self, point: _Point) -> _Point:
        point.id = len(self.members)
        self.members.append(point)
        return point

    @property
    def recursive(self) -> bool:
        return bool(self.children)


class Network:
    """Links, zones and routes of one platform; :meth:`route` is SimGrid's ``Host::route_to``."""

    def __init__(self, path: str):
        self.path = path
        self.config = dict(DEFAULT_CONFIG)
        self.links: dict[str, Link] = {}
        self.split: dict[str, tuple[Link, Link]] = {}  # split-duplex links: name -> (UP, DOWN)
        self.points: dict[str, _Point] = {}
        self.root: _Zone | None = None
        self.unsupported: list[str] = []  # features modelled approximately or not at all
        self.invalid: list[str] = []  # what makes real Batsim stop on this platform
        self._loopback: Link | None = None
        self._routes: dict[tuple[str, str], Route] = {}

    # -- what the engine asks ---------------------------------------------------
    @property
    def loopback(self) -> Link:
        """The network model's implicit loopback link (``__loopback__``, FATPIPE)."""
        if self._loopback is None:
            self._loopback = Link(
                "__loopback__", self.config["network/loopback-bw"], self.config["network/loopback-lat"], True
            )
        return self._loopback

    @property
    def tcp_gamma(self) -> float:
        return self.config["network/TCP-gamma"]

    def route(self, src: str, dst: str) -> Route:
        """The route from host ``src`` to host ``dst`` (names), as ``Host::route_to`` gives it."""
        key = (src, dst)
        found = self._routes.get(key)
        if found is None:
            links: list[Link] = []
            latency = [0.0]
            self._global_route(self.points[src], self.points[dst], links, latency)
            found = self._routes[key] = Route(tuple(links), latency[0])
        return found

    def instantaneous(self, master: str, hosts) -> bool:
        """Whether every Batsim message takes the time the fast kernel assumes: 1e-20 s between
        actors of the master host (SimGrid's implicit loopback at 1e20 B/s, no latency, as
        ``adaptsched platform`` writes it) and no time at all from a compute host to the master
        (an empty route). Then the embedded engine needs no network model."""
        own = self.route(master, master)
        if own.links != (self.loopback,) or own.latency != 0.0 or self.loopback.bandwidth != 1e20:
            return False
        root = self.root
        if root is not None and not root.recursive and root.routing == "full" and not root.full:
            return all(self.points[name].zone is root for name in hosts)  # one zone, no routes: all empty
        for name in hosts:
            route = self.route(name, master)
            if route.links or route.latency != 0.0:
                return False
        return True

    def latency_bound(self) -> float:
        """The latencies of all links added up: more than any route without loops can take."""
        return math.fsum(link.latency for link in self.links.values()) + self.loopback.latency

    def unsupported_note(self) -> str | None:
        if not self.unsupported:
            return None
        return "; ".join(dict.fromkeys(self.unsupported))

    # -- SimGrid's route search (NetZoneImpl.cpp) -------------------------------
    def _global_route(self, src: _Point, dst: _Point, links: list, latency: list):
        common, src_anc, dst_anc = _common_ancestors(src, dst)
        if src_anc is dst_anc:
            self._local_route(common, src, dst, links, latency)
            return
        route: list = []
        gw_src, gw_dst = self._local_route(common, src_anc.point, dst_anc.point, route, latency)
        if gw_src is None or gw_dst is None:
            raise InputError(self.path, f"no gateways between {src.name!r} and {dst.name!r} (bad zoneRoute?)")
        if src is not gw_src:
            self._global_route(src, gw_src, links, latency)
        links.extend(route)
        if gw_dst is not dst:
            self._global_route(gw_dst, dst, links, latency)

    def _local_route(self, zone: _Zone, src: _Point, dst: _Point, links: list, latency: list):
        """Appends the zone's own route from ``src`` to ``dst``; returns its gateways."""
        if zone.routing == "full":
            entry = zone.full.get((src.id, dst.id))
            if entry is None:  # FullZone::get_local_route: no route is an empty route
                entry = ([self.loopback] if src is dst and not zone.recursive else [], None, None)  # do_seal
            route_links, gw_src, gw_dst = entry
            for link in route_links:
                links.append(link)
                latency[0] += link.latency
            return gw_src, gw_dst
        if zone.routing in ("star", "vivaldi"):
            return self._star_route(zone, src, dst, links, latency)
        if zone.routing != "empty":  # an unsupported routing (already reported): no links
            return None, None
        raise InputError(self.path, f"no route from {src.name!r} to {dst.name!r}: zone {zone.name!r} has no routes")

    def _star_route(self, zone: _Zone, src: _Point, dst: _Point, links: list, latency: list):
        """``StarZone::get_local_route`` (and ``VivaldiZone``'s distance in ms)."""
        src_route = zone.star.get(src.id) or _StarRoute()
        dst_route = zone.star.get(dst.id) or _StarRoute()
        added: set[int] = set()
        gateways: tuple = (None, None)
        if src is dst and src_route.loopback is not None:
            _add_unique(src_route.loopback, links, latency, added)
        else:
            _add_unique(src_route.up, links, latency, added)
            _add_unique(dst_route.down, links, latency, added)
            gateways = (src_route.gateway, dst_route.gateway)
        if zone.routing == "vivaldi":
            a, b = _coords(src, self.path), _coords(dst, self.path)
            distance = math.sqrt((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2) + abs(a[2]) + abs(b[2])
            latency[0] += distance / 1000.0
        return gateways


def _add_unique(route_links, links: list, latency: list, added: set):
    for link in route_links:
        if id(link) in added:
            continue
        added.add(id(link))
        links.append(link)
        latency[0] += link.latency


def _coords(point: _Point, path) -> tuple:
    if point.coords is None:
        raise InputError(path, f"{point.kind} {point.name!r} in a Vivaldi zone has no coordinates")
    return point.coords


def _common_ancestors(src: _Point, dst: _Point):
    """``find_common_ancestors`` (NetZoneImpl.cpp): (common, src's ancestor, dst's ancestor)."""
    if src.zone is dst.zone:
        return src.zone, src.zone, src.zone
    path_src, path_dst = [], []
    zone = src.zone
    while zone is not None:
        path_src.append(zone)
        zone = zone.parent
    zone = dst.zone
    while zone is not None:
        path_dst.append(zone)
        zone = zone.parent
    parent = None
    while len(path_src) > 1 and len(path_dst) > 1 and path_src[-1] is path_dst[-1]:
        parent = path_src.pop()
        path_dst.pop()
    src_anc, dst_anc = path_src[-1], path_dst[-1]
    if src_anc is dst_anc:
        return src_anc, src_anc, dst_anc
    return parent, src_anc, dst_anc


# -- reading a platform file --------------------------------------------------------------
_ROUTINGS = {"full": "full", "cluster": "star", "vivaldi": "vivaldi", "none": "empty"}
#: Routings read approximately: their declared routes as a Full zone's (no shortest paths).
_AS_FULL = {"floyd", "dijkstra", "dijkstracache"}
_UNSUPPORTED_TAGS = {
    "bypassRoute": "bypass routes (<bypassRoute>)",
    "bypassZoneRoute": "bypass routes (<bypassZoneRoute>)",
    "bypassASroute": "bypass routes (<bypassASroute>)",
    "peer": "<peer> hosts",
    "trace": "availability traces (<trace>)",
    "trace_connect": "availability traces (<trace_connect>)",
}


def _radicals(radical: str, path) -> list[int]:
    numbers: list[int] = []
    for part in radical.split(","):
        bounds = part.strip().split("-")
        try:
            numbers.extend([int(bounds[0])] if len(bounds) == 1 else range(int(bounds[0]), int(bounds[1]) + 1))
        except (ValueError, IndexError):
            raise InputError(path, f"radical {radical!r} is not like '0-127' or '0-3,8'") from None
    return numbers


class _Reader:
    """Builds a :class:`Network` from the parsed XML, element by element in document order
    (SimGrid's SAX callbacks, ``surfxml_sax_cb.cpp`` and ``sg_platf.cpp``)."""

    def __init__(self, network: Network):
        self.net = network
        self.path = network.path

    def fail(self, message: str) -> NoReturn:
        raise InputError(self.path, message)

    def unsupported(self, what: str):
        self.net.unsupported.append(what)

    # -- elements -------------------------------------------------------------
    def platform(self, root):
        for child in root:
            if child.tag == "config":
                self.config(child)
            elif child.tag in ("zone", "AS"):
                self.zone(child, None)
            elif child.tag in _UNSUPPORTED_TAGS:
                self.unsupported(_UNSUPPORTED_TAGS[child.tag])

    def config(self, element):
        for prop in element.findall("prop"):
            key, value = prop.get("id", ""), prop.get("value", "")
            if key in DEFAULT_CONFIG:
                try:
                    self.net.config[key] = float(value)
                except ValueError:
                    self.fail(f"<config> {key} = {value!r} is not a number")
            elif key not in SIMGRID_CONFIG_KEYS:
                self.net.invalid.append(f"unknown <config> key {key!r} (SimGrid 3.32 stops on it)")
            elif not key.startswith(INERT_CONFIG):
                self.unsupported(f"the <config> setting {key}={value}")

    def zone(self, element, parent: _Zone | None):
        routing_name = element.get("routing", "")
        routing = _ROUTINGS.get(routing_name.lower(), routing_name)
        if routing not in _ROUTINGS.values():
            self.unsupported(f"{routing_name} routing (zone {element.get('id')!r})")
            if routing.lower() in _AS_FULL:
                routing = "full"  # its declared routes only
        zone = self._new_zone(element.get("id", ""), routing, parent)
        cabinets, host_links, backbone = [], [], None
        for child in element:
            tag = child.tag
            if tag == "host":
                self.host(child, zone)
            elif tag == "router":
                self._point(child.get("id", ""), "router", zone, child.get("coordinates"))
            elif tag == "link":
                self.link(child)
            elif tag in ("zone", "AS"):
                self.zone(child, zone)
            elif tag == "cluster":
                self.cluster(child, zone)
            elif tag == "route":
                self.route(child, zone, gateways=False)
            elif tag in ("zoneRoute", "ASroute"):
                self.route(child, zone, gateways=True)
            elif tag == "cabinet":
                cabinets.append(child)
            elif tag == "host_link":
                host_links.append(child)
            elif tag == "backbone":
                backbone = child
            elif tag in _UNSUPPORTED_TAGS:
                self.unsupported(_UNSUPPORTED_TAGS[tag])
        if routing == "star" and (cabinets or host_links or backbone is not None):
            self.populate_cluster_zone(zone, cabinets, host_links, backbone)

    def _new_zone(self, name: str, routing: str, parent: _Zone | None) -> _Zone:
        zone = _Zone(name, routing, parent)
        if parent is None:
            if self.net.root is not None:
                self.fail("has two root zones")
            self.net.root = zone
        else:
            parent.children.append(zone)
            zone.point = self._point(name, "zone", parent, None)
        return zone

    def _point(self, name: str, kind: str, zone: _Zone, coordinates) -> _Point:
        if name in self.net.points:
            self.fail(f"two netpoints are named {name!r}")
        coords = None
        if coordinates:
            try:
                parsed = tuple(float(x) for x in coordinates.split())
            except ValueError:
                parsed = ()
            if len(parsed) != 3:
                self.fail(f"{kind} {name!r}: coordinates {coordinates!r} are not three numbers")
            coords = parsed
        point = self.net.points[name] = zone.add(_Point(name, kind, zone, coords=coords))
        return point

    def host(self, element, zone: _Zone):
        self._point(element.get("id", ""), "host", zone, element.get("coordinates"))
        for attribute in ("speed_file", "availability_file", "state_file"):
            if element.get(attribute):
                self.unsupported(f"host {attribute} traces")

    def _make_link(self, name: str, bandwidth: float, latency: float, policy: str):
        """Creates a link (two for a split-duplex one) and returns it (or the pair)."""
        if name in self.net.links or name in self.net.split:
            self.fail(f"two links are named {name!r}")
        if policy in ("SPLITDUPLEX", "FULLDUPLEX"):
            pair = (Link(name + "_UP", bandwidth, latency), Link(name + "_DOWN", bandwidth, latency))
            self.net.split[name] = pair
            for half in pair:
                self.net.links[half.name] = half
            return pair
        if policy == "WIFI":
            self.unsupported(f"WIFI link {name!r}")
        link = self.net.links[name] = Link(name, bandwidth, latency, policy == "FATPIPE")
        return link

    def link(self, element):
        name = element.get("id", "")
        bandwidths = element.get("bandwidth", "").replace(";", ",").split(",")
        bandwidth = parse_bandwidth(bandwidths[0], path=self.path, what=f"bandwidth of link {name!r}")
        latency = parse_time(element.get("latency", "0"), path=self.path, what=f"latency of link {name!r}")
        for attribute in ("bandwidth_file", "latency_file", "state_file"):
            if element.get(attribute):
                self.unsupported(f"link {attribute} traces")
        self._make_link(name, bandwidth, latency, element.get("sharing_policy", "SHARED"))

    def _link_list(self, element, backroute: bool) -> list:
        """``get_link_list_impl``: each ``<link_ctn>``'s link, split-duplex ones in their direction."""
        links = []
        for ctn in element.findall("link_ctn"):
            name, direction = ctn.get("id", ""), ctn.get("direction", "NONE")
            if name in self.net.split:
                up, down = self.net.split[name]
                if direction == "UP":
                    links.append(down if backroute else up)
                elif direction == "DOWN":
                    links.append(up if backroute else down)
                else:
                    self.fail(f"split-duplex link {name!r} is used in a route without a direction (UP or DOWN)")
            elif name in self.net.links:
                links.append(self.net.links[name])
            else:
                self.fail(f"a route uses link {name!r}, which does not exist")
        return links

    def route(self, element, zone: _Zone, *, gateways: bool):
        if zone.routing != "full":
            if zone.routing in ("star", "vivaldi", "empty"):
                self.fail(f"zone {zone.name!r} ({element.tag}): routes are only allowed in Full zones here")
            return  # an unsupported routing: already reported
        src, dst = self._named(element.get("src", "")), self._named(element.get("dst", ""))
        gw_src = gw_dst = None
        if gateways:
            gw_src, gw_dst = self._named(element.get("gw_src", "")), self._named(element.get("gw_dst", ""))
        if src.zone is not zone or dst.zone is not zone:
            self.fail(f"route from {src.name!r} to {dst.name!r} declared outside their zone {zone.name!r}")
        if (src.id, dst.id) in zone.full:
            self.fail(f"the route between {src.name!r} and {dst.name!r} is declared twice")
        recursive = zone.recursive
        zone.full[(src.id, dst.id)] = (
            self._link_list(element, False),
            gw_src if recursive else None,
            gw_dst if recursive else None,
        )
        if element.get("symmetrical", "YES").upper() == "YES" and src is not dst:
            if (dst.id, src.id) in zone.full:
                self.fail(f"the route between {dst.name!r} and {src.name!r} is declared twice (symmetrical)")
            back = list(reversed(self._link_list(element, True)))
            zone.full[(dst.id, src.id)] = (back, gw_dst if recursive else None, gw_src if recursive else None)

    def _named(self, name: str) -> _Point:
        point = self.net.points.get(name)
        if point is None:
            self.fail(f"a route names {name!r}, which is no host, router or zone declared before it")
        return point

    def cluster(self, element, parent: _Zone):
        """``sg_platf_new_cluster_flat`` (sg_platf.cpp)."""
        path, cid = self.path, element.get("id", "")
        if element.get("topology", "FLAT") != "FLAT":
            self.unsupported(f"{element.get('topology')} cluster topology (cluster {cid!r})")
        zone = self._new_zone(cid, "star", parent)

        def bandwidth(attribute: str) -> float:
            text = element.get(attribute, "")
            return parse_bandwidth(text, path=path, what=f"{attribute} of cluster {cid!r}") if text else 0.0

        def time(attribute: str, default: str) -> float:
            text = element.get(attribute, default)
            return parse_time(text, path=path, what=f"{attribute} of cluster {cid!r}") if text else 0.0

        bw, lat = bandwidth("bw"), time("lat", "")
        bb_bw, bb_lat = bandwidth("bb_bw"), time("bb_lat", "0s")
        limiter_bw, loopback_bw, loopback_lat = (
            bandwidth("limiter_link"),
            bandwidth("loopback_bw"),
            time("loopback_lat", ""),
        )
        policy = element.get("sharing_policy", "SPLITDUPLEX")
        backbone = None
        if bb_bw > 0 or bb_lat > 0:
            backbone = self._make_link(f"{cid}_backbone", bb_bw, bb_lat, element.get("bb_sharing_policy", "SHARED"))
        prefix, suffix = element.get("prefix", ""), element.get("suffix", "")
        for number in _radicals(element.get("radical", ""), path):
            host = self._point(f"{prefix}{number}{suffix}", "host", zone, None)
            link_id = f"{cid}_link_{number}"
            star = zone.star[host.id] = _StarRoute()
            if loopback_bw > 0 or loopback_lat > 0:
                star.loopback = [self._make_link(link_id + "_loopback", loopback_bw, loopback_lat, "FATPIPE")]
            limiter = self._make_link(link_id + "_limiter", limiter_bw, 0.0, "SHARED") if limiter_bw > 0 else None
            # the private link: split-duplex, or else a plain shared link (SimGrid sets no other policy)
            link = self._make_link(
                link_id, bw, lat, "SPLITDUPLEX" if policy in ("SPLITDUPLEX", "FULLDUPLEX") else "SHARED"
            )
            up_link, down_link = link if isinstance(link, tuple) else (link, link)
            star.up = [x for x in (limiter, up_link, backbone) if x is not None]
            star.down = [x for x in (backbone, down_link, limiter) if x is not None]
        router = element.get("router_id") or f"{prefix}{cid}_router{suffix}"
        point = self._point(router, "router", zone, None)
        zone.star[point.id] = _StarRoute()

    def populate_cluster_zone(self, zone: _Zone, cabinets, host_links, backbone_element):
        """``sg_platf_zone_cluster_populate``: backbone, host links, then cabinets."""
        backbone = None
        if backbone_element is not None:
            name = backbone_element.get("id", "")
            backbone = self._make_link(
                name,
                parse_bandwidth(backbone_element.get("bandwidth", ""), path=self.path, what=f"bandwidth of {name!r}"),
                parse_time(backbone_element.get("latency", ""), path=self.path, what=f"latency of {name!r}"),
                "SHARED",
            )

        def attach(host: _Point, up: Link, down: Link):
            zone.star[host.id] = _StarRoute(
                up=[up, backbone] if backbone else [up], down=[backbone, down] if backbone else [down]
            )

        for element in host_links:
            host = self._named(element.get("id", ""))
            up, down = self.net.links.get(element.get("up", "")), self.net.links.get(element.get("down", ""))
            if up is None or down is None:
                self.fail(f"host_link of {host.name!r} names a link that does not exist")
            attach(host, up, down)
        for element in cabinets:
            path, cid = self.path, element.get("id", "")
            bw = parse_bandwidth(element.get("bw", ""), path=path, what=f"bw of cabinet {cid!r}")
            lat = parse_time(element.get("lat", ""), path=path, what=f"lat of cabinet {cid!r}")
            prefix, suffix = element.get("prefix", ""), element.get("suffix", "")
            for number in _radicals(element.get("radical", ""), path):
                name = f"{prefix}{number}{suffix}"
                host = self._point(name, "host", zone, None)
                up = self._make_link(f"link_{name}_UP", bw, lat, "SHARED")
                down = self._make_link(f"link_{name}_DOWN", bw, lat, "SHARED")
                attach(host, up, down)


def read_network(root, path) -> Network:
    """The network of a parsed platform file (``root``: its ``<platform>`` element)."""
    network = Network(str(path))
    _Reader(network).platform(root)
    if network.root is None:
        raise InputError(str(path), "has no zone")
    return network
