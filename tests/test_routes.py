"""Routes between hosts as SimGrid 3.32 computes them (platforms/routes.py), worked by hand.

The same routes are checked against SimGrid itself, on every platform of Batsim's tree, by
tests/conformance/test_corpus.py when SimGrid's library and a C++ compiler are present.
"""

from pathlib import Path

import pytest

from adaptsched.errors import InputError
from adaptsched.platforms.routes import parse_bandwidth, parse_time, read_network
from adaptsched.platforms.simgrid import read_platform, write_cluster

FIXTURES = Path(__file__).parent / "fixtures" / "platforms"


def us(value):
    return value * 1e-6  # "10us", as SimGrid reads it: 10 x 1e-6 (not 1e-05)


def names(route):
    return [link.name for link in route.links]


def test_units_as_simgrid_reads_them():
    assert parse_time("50us") == 50 * 1e-6  # the number times the unit, in double
    assert parse_time("1.461517ms") == 1.461517 * 1e-3
    assert parse_time("0") == 0.0 and parse_time("2") == 2.0  # seconds by default
    assert parse_time("1m") == 60.0  # minutes, not metres
    assert parse_bandwidth("1.25GBps") == 1.25e9
    assert parse_bandwidth("56Gbps") == 56e9 / 8
    assert parse_bandwidth("1KiBps") == 1024.0
    assert parse_bandwidth("41.279125MBps") == 41.279125 * 1e6
    with pytest.raises(InputError, match="unknown unit"):
        parse_time("3 parsecs")


def test_cluster_routes_go_through_private_links_and_backbones():
    """cluster_bb.xml: the master's cluster ("front") and the compute cluster, joined by a
    zone route. Private links are split-duplex (SimGrid's default for <cluster>), a link met
    twice on a route counts once."""
    platform = read_platform(FIXTURES / "cluster_bb.xml")
    network = platform.network
    own = network.route("master0", "master0")
    assert names(own) == ["front_link_0_UP", "front_backbone", "front_link_0_DOWN"]
    assert own.latency == (us(10) + us(5)) + us(10)  # no loopback in the cluster: up and down again
    up = network.route("node3", "master0")
    assert names(up) == ["compute_link_3_UP", "compute_backbone", "uplink", "front_backbone", "front_link_0_DOWN"]
    # SimGrid adds the zone route's latency first, then the source side, then the destination side
    assert up.latency == (((us(300) + us(20)) + us(150)) + us(5)) + us(10)
    down = network.route("master0", "node3")
    assert names(down) == ["front_link_0_UP", "front_backbone", "uplink", "compute_backbone", "compute_link_3_DOWN"]
    between = network.route("node3", "node7")
    assert names(between) == ["compute_link_3_UP", "compute_backbone", "compute_link_7_DOWN"]
    assert network.links["compute_backbone"].bandwidth == 10e9 and network.links["uplink"].latency == us(300)


def test_full_zone_routes_their_reverse_and_the_implicit_loopback(tmp_path):
    path = tmp_path / "p.xml"
    path.write_text(
        """<?xml version='1.0'?>
<platform version="4.1"><zone id="z" routing="Full">
  <host id="master_host" speed="1Gf"/><host id="a" speed="1Gf"/><host id="b" speed="1Gf"/>
  <link id="l1" bandwidth="1MBps" latency="1ms"/>
  <link id="sd" bandwidth="2MBps" latency="2ms" sharing_policy="SPLITDUPLEX"/>
  <route src="a" dst="master_host"><link_ctn id="l1"/><link_ctn id="sd" direction="UP"/></route>
  <route src="b" dst="master_host" symmetrical="NO"><link_ctn id="l1"/></route>
</zone></platform>"""
    )
    network = read_platform(path).network
    assert names(network.route("a", "master_host")) == ["l1", "sd_UP"]
    assert names(network.route("master_host", "a")) == ["sd_DOWN", "l1"]  # reversed, other direction
    assert names(network.route("master_host", "b")) == []  # not symmetrical: no route is no link
    own = network.route("master_host", "master_host")
    assert names(own) == ["__loopback__"] and own.links[0].bandwidth == 10e9 and own.latency == 0.0


def test_platforms_adaptsched_generates_need_no_network_model(tmp_path):
    """1e20 B/s loopback, no link: the engine's network-less kernel is exact (platforms/simgrid.py)."""
    assert read_platform(write_cluster(8, tmp_path / "p.xml")).network is None


def test_what_the_model_does_not_cover_is_named(tmp_path):
    path = tmp_path / "p.xml"
    path.write_text(
        """<?xml version='1.0'?>
<platform version="4.1">
<config><prop id="network/model" value="CM02"/><prop id="contexts/stack-size" value="16"/>
        <prop id="network/coordinates" value="yes"/></config>
<zone id="z" routing="Floyd">
  <host id="master_host" speed="1Gf"/><host id="a" speed="1Gf" speed_file="a.trace"/>
</zone></platform>"""
    )
    network = read_platform(path).network
    note = network.unsupported_note()
    assert "Floyd routing" in note and "network/model=CM02" in note and "speed_file" in note
    assert "stack-size" not in note  # changes nothing Batsim simulates
    assert network.invalid == ["unknown <config> key 'network/coordinates' (SimGrid 3.32 stops on it)"]


def test_blank_lines_before_the_xml_declaration_are_accepted(tmp_path):
    """As SimGrid accepts them (several of Batsim's own platforms start with one)."""
    path = tmp_path / "p.xml"
    path.write_text("\n\n" + write_cluster(2, tmp_path / "q.xml").read_text())
    assert read_platform(path).nb_hosts == 2


def test_a_host_computes_at_the_speed_of_its_pstate(tmp_path):
    path = tmp_path / "p.xml"
    path.write_text(
        """<?xml version='1.0'?>
<platform version="4.1"><zone id="z" routing="Full">
  <host id="master_host" speed="1Gf"/><host id="a" speed="100Mf, 50Mf, 20Mf" pstate="1"/>
</zone></platform>"""
    )
    assert read_platform(path).compute_hosts[0].speed_flops == 50e6


def test_a_route_through_an_unknown_link_is_an_input_error(tmp_path):
    import xml.etree.ElementTree as ET

    root = ET.fromstring(
        """<platform version="4.1"><zone id="z" routing="Full"><host id="a" speed="1f"/>
        <route src="a" dst="a"><link_ctn id="nope"/></route></zone></platform>"""
    )
    with pytest.raises(InputError, match="link 'nope', which does not exist"):
        read_network(root, "p.xml")
