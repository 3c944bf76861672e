"""Paths and small utilities shared by the tests."""

import os
import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EXCERPTS = REPO / "workloads" / "excerpts"
CTC_EXCERPT = EXCERPTS / "CTC-SP2-1996-3.1-cln.first5000.swf.gz"
SDSC_EXCERPT = EXCERPTS / "SDSC-SP2-1998-4.2-cln.first2000.swf.gz"
SHARED_TRACES = REPO.parent / "shared" / "traces"
PLUGINS = Path(__file__).resolve().parent / "plugins"

#: Skip reason of every test that needs real Batsim (conftest.py counts them by its start).
NO_BATSIM = "real Batsim not found"
NO_BATSIM_HELP = (
    "set BATSIM=/path/to/batsim or put batsim on PATH; docs/getting-started.md says how to install "
    "Batsim 4.2.x (Nix, from source, or the build kit ../shared/tools/batsim-build)"
)


def find_batsim():
    """The real Batsim executable named by $BATSIM or on PATH (None when absent)."""
    named = os.environ.get("BATSIM")
    if named:
        return shutil.which(named) or (named if Path(named).is_file() else None)
    return shutil.which("batsim")


def assert_no_host_runs_two_jobs(records):
    """``records``: (start, finish, host ids) of every executed job."""
    events = []
    for start, finish, hosts in records:
        events += [(finish, 0, hosts), (start, 1, hosts)]
    busy = set()
    for _, kind, hosts in sorted(events, key=lambda e: (e[0], e[1])):  # ends before starts
        if kind == 0:
            busy.difference_update(hosts)
        else:
            assert busy.isdisjoint(hosts), "a host runs two jobs at once"
            busy.update(hosts)
