"""README's main job: the first 5,000 CTC-SP2 jobs under fcfs, easy and conservative.

Uses ``../shared/traces/CTC-SP2-1996-3.1-cln.swf.gz`` next to the repository when it
is there, and otherwise the real excerpt committed in ``workloads/excerpts`` (the
same first 5,000 jobs). Writes the runs, then a comparison (Markdown and CSV
tables, PNG charts, one Gantt chart per run) and the run explorer page ``report.html``;
prints the report's folder, then a short table (mean and p90 wait, mean bounded slowdown,
utilization, makespan per scheduler).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

from adaptsched.workloads.traces import shared_trace

REPO = Path(__file__).resolve().parent
SHARED_TRACE = shared_trace("CTC-SP2")
EXCERPT = REPO / "workloads" / "excerpts" / "CTC-SP2-1996-3.1-cln.first5000.swf.gz"
SCHEDULERS = ("fcfs", "easy", "conservative")


def default_trace() -> Path:
    return SHARED_TRACE if SHARED_TRACE.is_file() else EXCERPT


def demo(
    out: str | Path = "results/demo",
    jobs: int = 5000,
    hosts: int = 338,
    engine: str = "embedded",
    trace: str | Path | None = None,
    say: Callable[..., None] = print,
    *,
    batsim: str | None = None,
) -> Path:
    """Runs the three schedulers on the first ``jobs`` jobs of the trace on ``hosts`` hosts and
    compares them; returns the comparison's folder. ``batsim``: real Batsim's executable
    (``engine="batsim"``; default: $BATSIM, then PATH)."""
    from adaptsched.analysis import compare_runs
    from adaptsched.analysis.compare import summary_table
    from adaptsched.engines.run import RunSpec, run
    from adaptsched.platforms.simgrid import write_cluster
    from adaptsched.workloads.convert import convert_swf, write_workload
    from adaptsched.workloads.traces import find_trace

    out = Path(out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    trace = find_trace("CTC-SP2", trace) if trace else default_trace()
    say(f"trace: {trace}" + ("" if trace != EXCERPT else " (committed excerpt: ../shared/traces is absent)"))
    workload, report = convert_swf(trace, hosts=hosts, first=jobs)
    workload_path = write_workload(workload, out / f"ctc_first{jobs}.json")
    say(report.summary())
    platform = write_cluster(hosts, out / f"cluster{hosts}.xml")
    prefixes = []
    for name in SCHEDULERS:
        start = time.perf_counter()
        result = run(RunSpec.make(name, workload_path, platform, out / name, engine=engine, batsim=batsim), say=say)
        say(f"{name}: {result.nb_jobs} jobs on {hosts} hosts in {time.perf_counter() - start:.1f} s ({engine} engine)")
        prefixes.append(str(out / name))
    written = compare_runs(prefixes, out / "comparison")
    from adaptsched.analysis.explore import explore_runs

    explore_runs(
        prefixes,
        out / "comparison" / "report.html",
        title=f"Demo: the first {jobs:,} CTC-SP2 jobs",
        workloads=[workload_path],
    )
    say(f"\nreport: {out / 'comparison'}/")
    say(
        "  comparison.md (every metric), comparison.csv, bar charts, a wait-time CDF, a Gantt chart per run; "
        "report.html, the run explorer (open it in a browser)\n"
    )
    metrics = json.loads(Path(written["json"]).read_text())
    say(summary_table(metrics))
    return out / "comparison"
