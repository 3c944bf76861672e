"""Where the real traces come from, and finding them on disk.

The logs are the cleaned versions of the Parallel Workloads Archive (PWA, Hebrew University
of Jerusalem, https://www.cs.huji.ac.il/labs/parallel/workload/), in the Standard Workload
Format, gzip-compressed exactly as the archive distributes them. adaptsched looks for them in
``../shared/traces`` next to the repository (the project's own machines), unless a command is
given ``--trace FILE``; outside users download them (docs/getting-started.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from adaptsched.errors import InputError

PWA = "https://www.cs.huji.ac.il/labs/parallel/workload/"
SHARED_TRACES = Path(__file__).resolve().parent.parent.parent / "shared" / "traces"


@dataclass(frozen=True)
class Trace:
    name: str  # the name the papers and commands use
    file: str  # the archive's file name
    page: str  # the archive's folder of this log ("" for the synthetic log)
    machine: str
    hosts: int  # the header's MaxNodes

    @property
    def url(self) -> str:
        return f"{PWA}{self.page}/{self.file}" if self.page else ""


TRACES = {
    t.name: t
    for t in (
        Trace("CTC-SP2", "CTC-SP2-1996-3.1-cln.swf.gz", "l_ctc_sp2", "IBM SP2, Cornell Theory Center", 338),
        Trace("SDSC-SP2", "SDSC-SP2-1998-4.2-cln.swf.gz", "l_sdsc_sp2", "IBM SP2, San Diego Supercomputer Center", 128),
        Trace("KTH-SP2", "KTH-SP2-1996-2.1-cln.swf.gz", "l_kth_sp2", "IBM SP2, KTH Stockholm", 100),
        Trace("NASA-iPSC", "NASA-iPSC-1993-3.1-cln.swf.gz", "l_nasa_ipsc", "Intel iPSC/860, NASA Ames", 128),
        Trace("lublin_256", "lublin_256.swf.gz", "", "synthetic, Lublin-Feitelson model", 256),
    )
}


def where_to_get(name: str) -> str:
    """One sentence: the archive's file name and where it is published."""
    trace = TRACES[name]
    if not trace.url:
        return f"{trace.file} is a synthetic log of the Lublin-Feitelson model (docs/getting-started.md)"
    return (
        f"{name} is the Parallel Workloads Archive's file {trace.file}: download it from {trace.url} "
        "(docs/getting-started.md lists every trace)"
    )


def shared_trace(name: str) -> Path:
    """Where trace ``name``'s file is on the project's machines (``../shared/traces``), whether
    or not it is there: the one place that knows the path."""
    return SHARED_TRACES / TRACES[name].file


def find_trace(name: str, explicit=None) -> Path:
    """The file of trace ``name``: ``explicit`` (a ``--trace FILE``) if given, else the shared
    copy. A missing file is an :class:`InputError` that says where to get the trace."""
    if explicit is not None:
        path = Path(explicit)
        if not path.is_file():
            raise InputError(path, f"no such trace (--trace); {where_to_get(name)}")
        return path
    path = shared_trace(name)
    if not path.is_file():
        raise InputError(path, f"no such trace; {where_to_get(name)}, then pass it with --trace FILE")
    return path


def trace_of_file(path) -> str | None:
    """The trace a file is a copy or an excerpt of, by its name (``SDSC-SP2-...``), or None."""
    stem = Path(path).name.lower()
    for name in TRACES:
        if stem.startswith(name.lower()):
            return name
    return None
