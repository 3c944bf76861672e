"""Loopback only, during a conformance run: real Batsim and the embedded engine on the same
workload (as test_conformance.py compares them), with pybatsim schedulers as separate
processes over ZeroMQ, while the OS's socket table is sampled (tests/listening.py): no process
of the run's tree listens on 0.0.0.0, ``::`` or any other non-loopback address (their
sockets are ``ipc://``: none at all on TCP is expected). Runs only with real Batsim.
"""

from __future__ import annotations

import pytest
from helpers import CTC_EXCERPT, NO_BATSIM, NO_BATSIM_HELP, find_batsim
from listening import Watch, exposed

from adaptsched.engines.run import RunSpec, run
from adaptsched.platforms.simgrid import write_cluster
from adaptsched.workloads.convert import convert_swf, write_workload

BATSIM = find_batsim()
pytestmark = pytest.mark.skipif(BATSIM is None, reason=f"{NO_BATSIM}: {NO_BATSIM_HELP}")


def test_nothing_listens_beyond_loopback_during_a_conformance_run(tmp_path):
    workload = write_workload(convert_swf(CTC_EXCERPT, hosts=64, first=300)[0], tmp_path / "w.json")
    platform = write_cluster(64, tmp_path / "p.xml")
    with Watch(period_s=0.02) as watch:
        for engine, transport in (("batsim", "zmq"), ("embedded", "zmq"), ("embedded", "inprocess")):
            spec = RunSpec.make(
                "easy",
                workload,
                platform,
                tmp_path / f"{engine}-{transport}",
                engine=engine,
                batsim=BATSIM,
                transport=transport,
                progress=False,
            )
            run(spec, say=lambda *a: None)
    assert any("batsim" in command and " -p " in f" {command} " for command in watch.commands), watch.commands
    assert any("batsim.cmds.launcher" in command for command in watch.commands), watch.commands
    assert watch.looks > 5
    assert not exposed(watch.seen), exposed(watch.seen)
