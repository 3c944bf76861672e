"""Every archive trace of ../shared/traces, and a generated workload, through convert and run.

Each trace is converted on its header's machine size, run under easy and conservative on the
embedded engine, and checked for schedule invariants (analysis.invariants with guarantees,
and helpers.schedule_violations): zero violations. docs/workloads-traces.md's table of kept
and dropped jobs must be what convert reports. Slow (whole traces): not in CI's default run.
"""

import re

import pytest
from helpers import NO_TRACE, REPO, SHARED_TRACES, schedule_violations

from adaptsched.analysis.invariants import check_invariants
from adaptsched.analysis.jobs import read_jobs_csv
from adaptsched.engines.run import RunSpec, run
from adaptsched.workloads.convert import convert_swf, write_workload

TRACES = [
    "CTC-SP2-1996-3.1-cln",
    "KTH-SP2-1996-2.1-cln",
    "NASA-iPSC-1993-3.1-cln",
    "SDSC-SP2-1998-4.2-cln",
    "lublin_256",
]
DOC = REPO / "docs" / "workloads-traces.md"


def documented_counts():
    """trace -> (hosts, read, kept, dropped) from the doc's table."""
    counts = {}
    for line in DOC.read_text().splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 7 and cells[0] in TRACES:
            dropped = sum(int(n.replace(",", "")) for n in re.findall(r"([\d,]+) [a-z]", cells[4]))
            counts[cells[0]] = tuple(int(c.replace(",", "")) for c in cells[1:4]) + (dropped,)
    return counts


def assert_sound(prefix, workload_path, nb_hosts):
    jobs_csv = f"{prefix}_jobs.csv"
    assert check_invariants(read_jobs_csv(jobs_csv), nb_hosts, guarantees=True) == []
    assert schedule_violations(jobs_csv, workload_path, nb_hosts) == []


@pytest.mark.slow
@pytest.mark.parametrize("scheduler", ["easy", "conservative"])
@pytest.mark.parametrize("trace", TRACES)
def test_every_shared_trace_converts_and_runs_soundly(tmp_path, trace, scheduler):
    path = SHARED_TRACES / f"{trace}.swf.gz"
    if not path.is_file():
        pytest.skip(f"{NO_TRACE}: {path.name}")
    workload, report = convert_swf(path)
    assert report.read == report.kept + report.n_dropped + report.n_excluded + report.n_merged
    assert documented_counts()[trace] == (report.hosts, report.read, report.kept, report.n_dropped)
    workload_path = write_workload(workload, tmp_path / "workload.json")
    result = run(
        RunSpec.make(scheduler, workload_path, report.hosts, tmp_path / scheduler, progress=False), say=lambda *a: None
    )
    assert result.nb_jobs == report.kept
    assert_sound(result.prefix, workload_path, report.hosts)


@pytest.mark.slow
@pytest.mark.parametrize(
    "scheduler",
    ["easy", "conservative"],
)
def test_a_generated_workload_runs_soundly(tmp_path, scheduler):
    from adaptsched.workloads.downey import generate

    workload_path = write_workload(generate(10, 0.75, seed=3), tmp_path / "downey.json")
    result = run(RunSpec.make(scheduler, workload_path, 64, tmp_path / scheduler, progress=False), say=lambda *a: None)
    assert_sound(result.prefix, workload_path, 64)
