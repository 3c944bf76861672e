"""Paths and small utilities shared by the tests."""

import importlib
import importlib.util
import os
import shutil
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parent.parent
EXCERPTS = REPO / "workloads" / "excerpts"
CTC_EXCERPT = EXCERPTS / "CTC-SP2-1996-3.1-cln.first5000.swf.gz"
SDSC_EXCERPT = EXCERPTS / "SDSC-SP2-1998-4.2-cln.first2000.swf.gz"
SHARED_TRACES = REPO.parent / "shared" / "traces"
PLUGINS = Path(__file__).resolve().parent / "plugins"

#: Skip reason of every test that needs real Batsim (conftest.py counts them by its start).
NO_BATSIM = "real Batsim not found"
NO_BATSIM_HELP = (
    "set BATSIM=/path/to/batsim or put batsim on PATH, or run `.ci/tests conformance corpus`, which builds "
    "real Batsim when it finds none; docs/getting-started.md says how to install Batsim 4.2.x"
)


#: Whether the scheduling core runs compiled (``benchmarks/compiled.py --tests`` runs the fast tier
#: against a mypyc build), and the skip reason of the few tests that need its interpreted source.
COMPILED = not str(importlib.import_module("adaptsched.core.base").__file__).endswith(".py")
INTERPRETED_ONLY = "needs the interpreted source: the core is compiled"
INTERPRETED_ONLY_HELP = (
    "doctests read from compiled objects, and monkeypatched module functions (compiled calls are "
    "direct), run against the pure-Python source, as README's test command does"
)


#: Skip reason of the tests that read a whole archive trace of ../shared/traces (conftest.py counts them).
NO_TRACE = "archive trace not found in ../shared/traces"
NO_TRACE_HELP = (
    "put the Parallel Workloads Archive's traces in ../shared/traces, next to the repository "
    "(docs/getting-started.md says where each one comes from)"
)

#: Skip reason of the tests of ``sweep --cluster`` that need dask-jobqueue (conftest.py counts them).
NO_JOBQUEUE = "dask-jobqueue not installed"
NO_JOBQUEUE_HELP = "pip install -e '.[test]' (or '.[cluster]'), as setup.sh does"


def needs_trace(path: Path):
    """A mark that skips a test when the archive trace ``path`` is absent, counted loudly."""
    import pytest

    return pytest.mark.skipif(not path.is_file(), reason=f"{NO_TRACE}: {path.name}")


#: Skip reason of the tests that need Batsim 4.2.1's source tree (its workloads/ and platforms/).
NO_BATSIM_TREE = "Batsim 4.2.1's source tree not found"
NO_BATSIM_TREE_HELP = (
    "set BATSIM_SRC=/path/to/batsim-4.2.1 (the tree the build kit fetches: it has workloads/ and platforms/); "
    "adaptsched commits none of Batsim's files"
)
BATSIM_TREE_DEFAULT = Path("/opt/src/batsim-4.2.1")


def load_benchmark(name: str) -> ModuleType:
    """``benchmarks/NAME.py`` as a module, ``benchmark_NAME``, imported by its path (some names,
    ``engines`` say, are also folders of the package at the repository root) with the scripts'
    folder on ``sys.path``, as when it runs as a script (they import ``baseline.py`` beside them)."""
    folder = str(REPO / "benchmarks")
    if folder not in sys.path:
        sys.path.append(folder)
    spec = importlib.util.spec_from_file_location(f"benchmark_{name}", REPO / "benchmarks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = sys.modules[f"benchmark_{name}"] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def find_batsim_tree():
    """Batsim 4.2.1's source tree (from $BATSIM_SRC, else the build kit's /opt/src/batsim-4.2.1), or None."""
    named = os.environ.get("BATSIM_SRC")
    tree = Path(named) if named else BATSIM_TREE_DEFAULT
    return tree if (tree / "workloads").is_dir() and (tree / "platforms").is_dir() else None


def assert_same_files(real, embedded, suffixes=("_jobs.csv", "_machine_states.csv")):
    """Byte-identical outputs: the first line that differs, in the message."""
    for suffix in suffixes:
        a = Path(f"{real}{suffix}").read_text().splitlines()
        b = Path(f"{embedded}{suffix}").read_text().splitlines()
        for number, (x, y) in enumerate(zip(a, b), start=1):
            assert x == y, f"{suffix} line {number}:\n  real Batsim {x}\n  embedded    {y}"
        assert len(a) == len(b), f"{suffix}: {len(a)} lines on real Batsim, {len(b)} on the embedded engine"


def find_batsim():
    """The real Batsim executable named by $BATSIM or on PATH (None when absent)."""
    named = os.environ.get("BATSIM")
    if named:
        return shutil.which(named) or (named if Path(named).is_file() else None)
    return shutil.which("batsim")


def needs_batsim():
    """A mark that skips a test when real Batsim is absent (conftest.py: the conformance tier)."""
    import pytest

    return pytest.mark.skipif(find_batsim() is None, reason=f"{NO_BATSIM}: {NO_BATSIM_HELP}")


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


def _hosts(text):
    for part in text.split():
        low, _, high = part.partition("-")
        yield from range(int(low), int(high or low) + 1)


def schedule_violations(jobs_csv, workload_json, nb_hosts, eps=1e-5):
    """Every way a run's ``_jobs.csv`` breaks the rules any correct schedule of the (static,
    delay-profile) workload keeps, as sentences (empty: none). Whatever the scheduler:

    * the jobs are exactly the workload's, each once;
    * a job wider than the machine is REJECTED; others are not (no test scheduler rejects
      a job that fits);
    * no job starts before its submission; its allocation has the requested size, on hosts
      of the machine; no host runs two jobs at once;
    * it runs for min(delay, walltime) and ends COMPLETED_SUCCESSFULLY when its delay is
      below its walltime, COMPLETED_WALLTIME_REACHED when above (either at equality).
    """
    import csv
    import json

    with open(workload_json) as handle:
        workload = json.load(handle)
    with open(jobs_csv) as handle:
        rows = list(csv.DictReader(handle))
    wanted = {str(job["id"]): job for job in workload["jobs"]}
    profiles = workload["profiles"]
    problems = []
    seen = {}
    for row in rows:
        job_id = row["job_id"].split("!")[-1]
        if job_id in seen:
            problems.append(f"job {job_id} appears twice")
        seen[job_id] = row
    if set(seen) != set(wanted):
        missing, extra = sorted(set(wanted) - set(seen)), sorted(set(seen) - set(wanted))
        problems.append(f"jobs missing {missing[:5]} ({len(missing)}), unknown {extra[:5]} ({len(extra)})")
    records = []
    for job_id, row in seen.items():
        job = wanted.get(job_id)
        if job is None:
            continue
        state = row["final_state"]
        if job["res"] > nb_hosts:
            if state != "REJECTED":
                problems.append(f"job {job_id}: {job['res']} hosts on {nb_hosts} but {state}")
            continue
        if state == "REJECTED":
            problems.append(f"job {job_id} ({job['res']} hosts) rejected")
            continue
        start, finish = float(row["starting_time"]), float(row["finish_time"])
        if start < float(job["subtime"]) - eps:
            problems.append(f"job {job_id} starts at {start} before its submission {job['subtime']}")
        hosts = list(_hosts(row["allocated_resources"]))
        if len(hosts) != job["res"] or max(hosts) >= nb_hosts or len(set(hosts)) != len(hosts):
            problems.append(f"job {job_id}: allocation {row['allocated_resources']} for {job['res']} hosts")
        records.append((start, finish, hosts, job_id))
        delay, walltime = profiles[job["profile"]]["delay"], job.get("walltime", -1)
        limited = walltime is not None and walltime > 0 and walltime < delay
        expected = walltime if limited else delay
        if abs((finish - start) - expected) > eps + 1e-9 * finish:
            problems.append(f"job {job_id} ran {finish - start} s instead of {expected}")
        if walltime is None or walltime <= 0 or walltime != delay:
            good = "COMPLETED_WALLTIME_REACHED" if limited else "COMPLETED_SUCCESSFULLY"
            if state != good:
                problems.append(f"job {job_id} ended {state} instead of {good}")
    events = []
    for start, finish, hosts, job_id in records:
        events += [(finish, 0, hosts, job_id), (start, 1, hosts, job_id)]
    busy = {}
    for _, kind, hosts, job_id in sorted(events, key=lambda e: (e[0], e[1])):  # ends before starts
        if kind == 0:
            for host in hosts:
                busy.pop(host, None)
        else:
            clash = {busy[h] for h in hosts if h in busy}
            if clash:
                problems.append(f"job {job_id} starts on hosts of running job(s) {sorted(clash)[:3]}")
            busy.update(dict.fromkeys(hosts, job_id))
    return problems
