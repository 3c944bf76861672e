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


def find_batsim():
    """The real Batsim executable named by $BATSIM or on PATH (None when absent)."""
    named = os.environ.get("BATSIM")
    if named:
        return shutil.which(named) or (named if Path(named).is_file() else None)
    return shutil.which("batsim")
