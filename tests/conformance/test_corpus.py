"""A conformance corpus nobody here wrote: every (workload, platform) pair of Batsim 4.2.1's own
source tree (``workloads/*.json`` x ``platforms/*.xml``), under ``easy``, ``conservative`` and
fillerSched (in submission order: pybatsim's own walks a set, so its choices depend on memory
addresses; tests/conformance/test_conformance.py).

- A pair the embedded engine accepts runs on both engines: ``_jobs.csv`` and
  ``_machine_states.csv`` byte-identical, ``_schedule.csv`` identical but for its wall-clock
  columns and ``batsim_version`` (and its sums over hosts, to a relative 1e-10).
- A pair it refuses (SMPI, usage traces, storage profiles; platforms without a master host,
  which real Batsim stops on too) is refused before the first event, with a message that names
  what and points to ``--engine batsim``: never a silent wrong answer.
- A workload whose times reach past 2^33 s (``test_long_workload.json``: a job every decade up to
  1e17 s) is refused by both engines before the first event (the clock cannot hold a microsecond
  there: real Batsim runs its 20.2 s delays for 16 s at 1e17 s); with the limit lifted, both
  engines still write the same bytes, and the physics check finds the rounded runtimes on both.
  One the embedded engine refuses for another reason (``test_smpi_mapping.json``: SMPI, and a job
  at 1e13 s) says that reason; run on real Batsim, it is refused for its times.

docs/conformance.md gives the counts. Batsim's files are read from its source tree
($BATSIM_SRC, else the build kit's /opt/src/batsim-4.2.1), never committed here. Runs only when
real Batsim and that tree are present (skipped loudly otherwise). Every run is slow: ``-m slow``.
"""

import csv
import json
import math
import re
import subprocess
from functools import cache
from pathlib import Path

import pytest
from helpers import NO_BATSIM, NO_BATSIM_HELP, NO_BATSIM_TREE, NO_BATSIM_TREE_HELP, assert_same_files, find_batsim
from helpers import find_batsim_tree as batsim_tree
from test_conformance import FILLER

from adaptsched.engines.checks.fidelity import assess
from adaptsched.engines.run import RunSpec, run
from adaptsched.errors import InputError, SimulationError
from adaptsched.platforms.simgrid import read_platform

BATSIM = find_batsim()
TREE = batsim_tree()
SCHEDULERS = ("easy", "conservative", FILLER)
WALL_CLOCK = ("batsim_version", "scheduling_time", "simulation_time")
#: sums over hosts, which Batsim adds in another order (test_long_workload's idle time is about
#: 1e17 s, where one unit in the last place is 16 s): equal to a relative 1e-10, as in test_conformance.py
HOST_SUMS = ("time_idle", "time_computing", "time_switching_off", "time_switching_on", "time_sleeping")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(BATSIM is None, reason=f"{NO_BATSIM}: {NO_BATSIM_HELP}"),
    pytest.mark.skipif(TREE is None, reason=f"{NO_BATSIM_TREE}: {NO_BATSIM_TREE_HELP}"),
]


def corpus() -> list[object]:
    """Every (platform, workload, scheduler) of Batsim's tree (none without it); those of the
    sample CI runs (``corpus_sample``, tests/conftest.py) hold every platform, every workload and
    every scheduler: for each scheduler, as many pairs as the larger of the two lists, the i-th
    on platform i and workload i + 9 x (the scheduler's rank), each list read round and round."""
    if TREE is None:
        return []
    platforms = sorted(p.name for p in (TREE / "platforms").glob("*.xml"))
    workloads = sorted(w.name for w in (TREE / "workloads").glob("*.json"))
    sample = {
        (platforms[i % len(platforms)], workloads[(i + 9 * rank) % len(workloads)], scheduler)
        for rank, scheduler in enumerate(SCHEDULERS)
        for i in range(max(len(platforms), len(workloads)))
    }
    return [
        pytest.param(p, w, s, marks=[pytest.mark.corpus_sample] if (p, w, s) in sample else [])
        for s in SCHEDULERS
        for p in platforms
        for w in workloads
    ]


@cache
def verdict(platform: str, workload: str) -> str | None:
    """Why the embedded engine refuses the pair (None: it accepts it, as exact)."""
    assert TREE is not None
    from adaptsched.workloads.batsim_json import load_workload

    try:
        machines = read_platform(TREE / "platforms" / platform)
        loaded = load_workload(TREE / "workloads" / workload, every_type=True)
    except InputError as error:
        return str(error)
    fidelity = assess(machines, loaded)
    assert not fidelity.differences, fidelity.warning  # Batsim's own files: exact, or refused
    return fidelity.refusal if fidelity.refusals else None


#: Profile types real Batsim 4.2.1 runs on any platform it accepts (replays of MPI traces and of
#: per-host usage), which the embedded engine refuses, pointing to ``--engine batsim``.
RUN_BY_REAL_BATSIM = ("type 'smpi'", "type 'usage_trace'")


def refused_alike(tmp_path: Path, platform: str, workload: str, refusal: str, spec: dict) -> None:
    """A pair the embedded engine refuses: it refuses it before the first event, naming why and
    ``--engine batsim``; and real Batsim does what the refusal says. On a platform it stops on (no
    master host, a ``<config>`` key SimGrid 3.32 stops on), it stops too; on a workload the engine
    does not model (SMPI, usage traces), it runs every job. (Storage profiles run on real Batsim only
    on a platform with the storage host they name: the refusal alone is checked there.)"""
    with pytest.raises((SimulationError, InputError)) as refused:
        run(spec["embedded"], say=lambda *a: None)
    message = str(refused.value)
    assert message == refusal or "--engine batsim" in message, message
    kinds = re.findall(r"type '\w+'", refusal)
    if "master host" in refusal or "the platform is one real Batsim stops on" in refusal:
        command = [BATSIM, "-p", str(TREE / "platforms" / platform), "-w", str(TREE / "workloads" / workload)]
        done = subprocess.run([*command, "-e", str(tmp_path / "b")], capture_output=True, text=True, timeout=120)
        assert done.returncode != 0, done.stderr[-2000:]  # graphene.xml: also an unknown <config> key
    elif kinds and all(kind in RUN_BY_REAL_BATSIM for kind in kinds) and past_the_clock(TREE / "workloads" / workload):
        with pytest.raises(InputError, match="cannot resolve a microsecond"):  # test_smpi_mapping: 1e13 s
            run(spec["batsim"], say=lambda *a: None)
    elif kinds and all(kind in RUN_BY_REAL_BATSIM for kind in kinds):
        run(spec["batsim"], say=lambda *a: None)
        with open(TREE / "workloads" / workload) as handle:
            jobs = {str(job["id"]) for job in json.load(handle)["jobs"]}
        with open(tmp_path / "batsim_jobs.csv") as handle:
            ran = {row["job_id"].split("!")[-1] for row in csv.DictReader(handle)}
        assert ran == jobs, (sorted(jobs - ran)[:5], sorted(ran - jobs)[:5])
    else:
        assert "type 'parallel_homogeneous_pfs'" in refusal, refusal


def schedule_row(prefix: Path) -> dict[str, str]:

    with open(f"{prefix}_schedule.csv") as handle:
        (row,) = csv.DictReader(handle)
    return {k: v for k, v in row.items() if k not in WALL_CLOCK}


@pytest.mark.parametrize("platform,workload,scheduler", corpus(), ids=lambda v: Path(v).stem)
def test_batsim_corpus(tmp_path, platform, workload, scheduler):

    assert TREE is not None
    refusal = verdict(platform, workload)
    spec = {
        engine: RunSpec.make(
            scheduler,
            TREE / "workloads" / workload,
            TREE / "platforms" / platform,
            tmp_path / engine,
            engine=engine,
            batsim=BATSIM,
            progress=False,
        )
        for engine in ("batsim", "embedded")
    }
    if refusal is not None:
        refused_alike(tmp_path, platform, workload, refusal, spec)
        return
    if past_the_clock(TREE / "workloads" / workload):
        for engine in ("batsim", "embedded"):
            with pytest.raises(InputError, match="cannot resolve a microsecond"):
                run(spec[engine], say=lambda *a: None)
        same_bytes_past_the_clock(spec, tmp_path)
        return
    said: list[object] = []
    run(spec["batsim"], say=lambda *a: None)
    run(spec["embedded"], say=said.append)
    assert not any("warning" in str(s) for s in said), said
    assert_same_files(tmp_path / "batsim", tmp_path / "embedded")
    real, embedded = schedule_row(tmp_path / "batsim"), schedule_row(tmp_path / "embedded")
    assert real.keys() == embedded.keys()
    for key, value in real.items():
        if key in HOST_SUMS:
            assert math.isclose(float(value), float(embedded[key]), rel_tol=1e-10), (key, value, embedded[key])
        else:
            assert value == embedded[key], (key, value, embedded[key])


def past_the_clock(workload: Path) -> bool:
    """Whether a job of the workload is submitted at or past 2^33 s (engines/checks/inputs.py's limit)."""
    from adaptsched.engines.run import MAX_TIME_S
    from adaptsched.workloads.batsim_json import load_workload

    return any(job.subtime >= MAX_TIME_S for job in load_workload(workload, embedded=False).jobs.values())


def same_bytes_past_the_clock(spec: dict[str, RunSpec], tmp_path: Path) -> None:
    """With the limit lifted: both engines run it (each stopped by its physics check, or both
    passing it, on a platform whose network leaves the rounded jobs untimed) to the same bytes."""
    import adaptsched.engines.checks.inputs as input_checks

    saved, input_checks.MAX_TIME_S = input_checks.MAX_TIME_S, math.inf
    outcome = {}
    try:
        for engine in ("batsim", "embedded"):
            try:
                run(spec[engine], say=lambda *a: None)
                outcome[engine] = ""
            except SimulationError as error:
                assert "breaks the run's physics" in str(error), str(error)
                outcome[engine] = ".partial"
    finally:
        input_checks.MAX_TIME_S = saved
    assert outcome["batsim"] == outcome["embedded"], outcome
    suffix = outcome["batsim"]
    for name in ("_jobs.csv", "_machine_states.csv"):
        real, ours = (Path(f"{tmp_path / engine}{name}{suffix}").read_bytes() for engine in ("batsim", "embedded"))
        assert real == ours, name
