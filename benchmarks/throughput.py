"""Every scheduler's throughput in one table, each on the trace of its paper.

Each case is one in-process run of the embedded engine (in this process, one after the other),
timed in CPU time (``time.process_time``: what this process computed, the fairer measure on a
busy machine). For each: jobs, messages to the scheduler, CPU seconds, jobs per CPU second,
microseconds per message (the whole run's CPU divided by its messages: engine, pybatsim and
scheduler), and the scheduler's decision time per message (CPU time of each exchange, pybatsim
and the plugin: its median, 99th percentile and maximum, and how many took over 5 ms; the first
exchange loads the plugin).
The slowest case is named, with the share of its time spent deciding.

=====================  ==========================================================  =========
case                   trace (the paper's)                                          hosts
=====================  ==========================================================  =========
fcfs, easy,            CTC-SP2, first ``--jobs`` jobs (Perkovic & Keleher's)        338
conservative, backfill
qops, vqops, dvqops    SDSC-SP2, last ``--jobs`` jobs, QoS-annotated (C=10,         128
                       U=0.8), high load (Islam et al.'s Table 1, last row)
scojo-trad, scojo-p,   Lublin-Feitelson W1, ``--jobs`` jobs, moldable (SCOJO-P      128
cirne-berman           model), seed 1 (Barsanti & Sodan's)
downey                 Downey's model, ``--days`` days at rho 0.75, seed 1           64
evolving               Klein & Perez's tests (``generate evolving``), the first      100
                       ``--tests``, variant mic+c
=====================  ==========================================================  =========

    .venv/bin/python benchmarks/throughput.py [--jobs 10000] [--days 120] [--tests 200]
        [--cases easy,dvqops,...] [--base COMMIT] [--out DIR] [--report docs/results/engines]

Writes ``throughput.md`` and ``throughput.json`` to ``--report`` (with the date, machine,
commit and load average before and after), rewritten after each case. ``--report`` defaults to
``--out``: the committed report (docs/results/engines) is rewritten only when named, since a
run replaces the whole file (a subset of ``--cases`` included, and the sections appended by hand).
``--base COMMIT``: before each case, the same case measured the same way with the code of COMMIT
(a detached git worktree under ``--out``, imported through ``PYTHONPATH`` by a child process
running this script), in a row of its own: before and after in one run, each row with the load
average at its end.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from bisect import bisect_right
from pathlib import Path
from typing import Any

from baseline import build, code_of, commit, load  # benchmarks/baseline.py, beside this script

import adaptsched.engines.transports.inprocess as inprocess
from adaptsched.engines.run import RunSpec, run
from adaptsched.workloads.traces import shared_trace

REPO = Path(__file__).resolve().parent.parent

#: case -> (scheduler, options, workload kind)
CASES: dict[str, tuple[str, dict[str, Any], str]] = {
    "fcfs": ("fcfs", {}, "ctc"),
    "easy": ("easy", {}, "ctc"),
    "conservative": ("conservative", {}, "ctc"),
    "backfill D": ("backfill", {"order": "D"}, "ctc"),
    "backfill R/L-NG": ("backfill", {"order": "R/L", "guarantees": False}, "ctc"),
    "backfill P/L-NG": ("backfill", {"order": "P/L", "guarantees": False}, "ctc"),
    "backfill D speculation 50%": ("backfill", {"order": "D", "speculation": 50.0}, "ctc"),
    "qops": ("qops", {}, "sdsc-qos"),
    "vqops": ("qops", {"value_aware": True, "oc_factor": 0.1}, "sdsc-qos"),
    "dvqops": ("dvqops", {}, "sdsc-qos"),
    "scojo-trad": ("scojo-trad", {}, "w1"),
    "scojo-p": ("scojo-p", {"stats": None}, "w1"),
    "cirne-berman": ("cirne-berman", {}, "w1"),
    "downey": ("downey", {"strategy": "AVG", "mode": "greedy", "load": 0.75}, "downey"),
    "evolving": ("evolving", {"variant": "mic+c"}, "evolving"),
}
HOSTS = {"ctc": 338, "sdsc-qos": 128, "w1": 128, "downey": 64, "evolving": 100}
TRACE_TEXT = {
    "ctc": "CTC-SP2, first {jobs:,} jobs",
    "sdsc-qos": "SDSC-SP2, last {jobs:,} jobs, QoS C=10 U=0.8, high load",
    "w1": "Lublin W1, {jobs:,} jobs, moldable, seed 1",
    "downey": "Downey, {days} days, rho 0.75, seed 1",
    "evolving": "Klein-Perez, {tests} tests",
}


def workloads(kind: str, inputs: Path, args) -> list[str]:
    """The workload file(s) of a kind of case, written once into ``inputs``."""
    inputs.mkdir(parents=True, exist_ok=True)
    if kind == "ctc":
        from adaptsched.workloads.convert import convert_swf, write_workload

        path = inputs / f"ctc_first{args.jobs}.json"
        if not path.is_file():
            converted, _ = convert_swf(shared_trace("CTC-SP2"), hosts=338, first=args.jobs)
            write_workload(converted, path)
        return [str(path)]
    if kind == "sdsc-qos":
        from adaptsched.reproduce.qops.plan import scenario_workload

        return [str(scenario_workload(inputs, "SDSC-SP2", 10, 0.8, "high", "orig", jobs=args.jobs, segment="last"))]
    if kind == "w1":
        from adaptsched.reproduce.scojo_p.plan import Kind, workload

        return [str(workload(Kind("W1"), 1, inputs, jobs=args.jobs, a_max="3000"))]
    if kind == "downey":
        from adaptsched.reproduce.downey.plan import workloads as downey_workloads

        return [downey_workloads([(None, None, 0.75, 1, None)], inputs, days=args.days, hosts=64)[(0.75, 1)]]
    from adaptsched.workloads.evolving import write_tests

    return [str(p) for p in write_tests(inputs / "evolving_seed0_n100", args.tests, hosts=100, seed=0)]


def scheduler_options(name: str, options: dict, inputs: Path, args) -> dict:
    if "stats" in options:  # SCOJO-P's arrival statistics of its kind of workload
        from adaptsched.reproduce.scojo_p.plan import Kind, stats_file

        options = {**options, "stats": str(stats_file(Kind("W1"), inputs, jobs=args.jobs, a_max="3000"))}
    return options


def measure(scheduler: str, options: dict, paths: list[str], hosts: int, out: Path) -> dict:
    """In-process runs of ``scheduler`` on ``paths`` (one after the other): CPU time, jobs,
    messages and each exchange's CPU time."""
    exchange = inprocess.InProcessConnection.exchange
    decisions: list[float] = []

    def timed(self, message):
        start = time.process_time()
        try:
            return exchange(self, message)
        finally:
            decisions.append(time.process_time() - start)

    inprocess.InProcessConnection.exchange = timed  # type: ignore[method-assign]
    jobs, cpu = 0, 0.0
    try:
        for i, path in enumerate(paths):
            start = time.process_time()
            spec = RunSpec.make(
                scheduler, path, str(hosts), str(out / f"run{i:04d}"), options=options, progress=False, pin_cpu=False
            )
            result = run(spec, say=lambda *a: None)
            cpu += time.process_time() - start
            jobs += result.nb_jobs
    finally:
        inprocess.InProcessConnection.exchange = exchange  # type: ignore[method-assign]
    decisions.sort()
    n = len(decisions)
    return {
        "jobs": jobs,
        "messages": n,
        "cpu_s": cpu,
        "jobs_per_cpu_s": jobs / cpu,
        "us_per_message": 1e6 * cpu / n,
        "deciding_s": sum(decisions),
        "decision_p50_ms": 1e3 * statistics.median(decisions),
        "decision_p99_ms": 1e3 * decisions[min(n - 1, int(0.99 * n))],
        "decision_max_ms": 1e3 * decisions[-1],
        "decisions_over_5ms": n - bisect_right(decisions, 0.005),
    }


def measure_at(rev: str, name: str, args, out: Path, inputs: Path) -> dict:
    """One case measured by this script in a child process with the code of commit ``rev``, on
    the workloads already in ``inputs``."""
    sha, path = code_of(rev, out / "base")
    report = out / "base" / f"report-{sha[:10]}"
    argv = [sys.executable, __file__, "--cases", name, "--jobs", str(args.jobs), "--days", str(args.days)]
    argv += ["--tests", str(args.tests), "--out", str(out / "base" / sha[:10]), "--report", str(report)]
    argv += ["--inputs", str(inputs)]  # the same workloads, written by this side
    done = subprocess.run(argv, env={**os.environ, "PYTHONPATH": str(path)}, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"throughput.py: {name} at {rev}: {done.stderr.strip()[-600:]}")
    row = json.loads((report / "throughput.json").read_text())["rows"][name]
    row["base"] = sha[:7]
    return row


def write(report: Path, rows: dict, context: dict) -> str:
    lines = [
        "# Every scheduler's throughput, each on its paper's trace",
        "",
        f"Measured {context['started']} to {datetime.datetime.now(datetime.timezone.utc):%H:%M} UTC on "
        f"{context['machine']} at commit {context['commit']}, {context['build']}; "
        f"load average {context['load_before']} before, "
        f"{load()} after. Each case in-process, in one process, one after the other; CPU time. "
        f"Generated by `{context['command']}`.",
        "",
        "| case | trace | hosts | jobs | messages | CPU (s) | jobs/s (CPU) | us per message | "
        "deciding (share) | decision p50 / p99 / max (ms) |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for name, r in rows.items():
        lines.append(
            f"| {name} | {r['trace']} | {r['hosts']} | {r['jobs']:,} | {r['messages']:,} | {r['cpu_s']:.1f} | "
            f"{r['jobs_per_cpu_s']:,.0f} | {r['us_per_message']:.0f} | {100 * r['deciding_s'] / r['cpu_s']:.0f} % | "
            f"{r['decision_p50_ms']:.2f} / {r['decision_p99_ms']:.2f} / {r['decision_max_ms']:.1f} |"
        )
    ours = {name: r for name, r in rows.items() if "base" not in r}
    pairs = [(r, ours[r["case"]]) for r in rows.values() if "base" in r and r["case"] in ours]
    if pairs:
        lines += ["", "Before and after, in this run (a row named with a commit ran that commit's code):", ""]
        for before, after in pairs:
            lines.append(
                f"- {after['case']}: {before['jobs_per_cpu_s']:,.0f} -> {after['jobs_per_cpu_s']:,.0f} jobs per CPU "
                f"second ({after['jobs_per_cpu_s'] / before['jobs_per_cpu_s']:.1f}x), p99 decision "
                f"{before['decision_p99_ms']:.2f} -> {after['decision_p99_ms']:.2f} ms, decisions over 5 ms "
                f"{before.get('decisions_over_5ms', '?')} -> {after.get('decisions_over_5ms', '?')}, max "
                f"{before['decision_max_ms']:.0f} -> {after['decision_max_ms']:.0f} ms."
            )
    if ours:
        slowest = min(ours, key=lambda k: ours[k]["jobs_per_cpu_s"])
        r = ours[slowest]
        lines += [
            "",
            f"Slowest: **{slowest}**, {r['jobs_per_cpu_s']:,.0f} jobs per CPU second; "
            f"{100 * r['deciding_s'] / r['cpu_s']:.0f} % of its time is the scheduler deciding "
            f"(p99 decision {r['decision_p99_ms']:.2f} ms).",
        ]
        if "dvqops" in ours:
            p99 = ours["dvqops"]["decision_p99_ms"]
            lines.append(f"DVQoPS p99 decision: {p99:.2f} ms ({'met' if p99 < 5 else 'NOT met'}: target under 5 ms).")
    text = "\n".join(lines) + "\n"
    report.mkdir(parents=True, exist_ok=True)
    (report / "throughput.md").write_text(text)
    (report / "throughput.json").write_text(json.dumps({"context": context, "rows": rows}, indent=2) + "\n")
    return text


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=10_000, help="jobs of each trace case (default %(default)s)")
    parser.add_argument("--days", type=int, default=120, help="Downey: simulated days (default %(default)s)")
    parser.add_argument("--tests", type=int, default=200, help="Klein-Perez: tests (default %(default)s)")
    parser.add_argument("--cases", default=",".join(CASES), help="comma-separated (default: all)")
    parser.add_argument("--out", default=str(REPO / "results" / "benchmarks" / "throughput"))
    parser.add_argument(
        "--report", help="where throughput.md/.json go (default: OUT); docs/results/engines rewrites the committed one"
    )
    parser.add_argument("--base", help="also measure each case with the code of this commit, just before it")
    parser.add_argument("--inputs", help="where the workloads are written (default: OUT/inputs)")
    args = parser.parse_args(argv)
    out = Path(args.out)
    report = Path(args.report) if args.report else out
    chosen = [c for c in args.cases.split(",") if c]
    for name in chosen:
        if name not in CASES:
            parser.error(f"unknown case {name!r}: choose among {', '.join(CASES)}")
    context = {
        "started": f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M}",
        "machine": f"{platform.node()} ({os.cpu_count()} CPUs, Python {platform.python_version()})",
        "commit": commit(),
        "build": build(),
        "load_before": load(),
        "command": "benchmarks/throughput.py " + " ".join(argv if argv is not None else sys.argv[1:]),
    }
    rows: dict = {}
    inputs = Path(args.inputs) if args.inputs else out / "inputs"
    for name in chosen:
        scheduler, options, kind = CASES[name]
        paths = workloads(kind, inputs, args)
        options = scheduler_options(name, options, inputs, args)
        if args.base:
            row = measure_at(args.base, name, args, out, inputs)
            row.update(case=name, load_at_end=load())
            rows[f"{name} @ {row['base']}"] = row
            print(
                f"{name} at {args.base}: {row['cpu_s']:.1f} s CPU, p99 decision {row['decision_p99_ms']:.2f} ms, "
                f"{row.get('decisions_over_5ms', '?')} decisions over 5 ms",
                flush=True,
            )
        case_out = out / name.replace(" ", "_").replace("/", "").replace(",", "").replace("%", "")
        case_out.mkdir(parents=True, exist_ok=True)
        row = measure(scheduler, options, paths, HOSTS[kind], case_out)
        row.update(trace=TRACE_TEXT[kind].format(jobs=args.jobs, days=args.days, tests=args.tests), hosts=HOSTS[kind])
        row.update(case=name, load_at_end=load())
        rows[name] = row
        print(
            f"{name}: {row['jobs']:,} jobs, {row['cpu_s']:.1f} s CPU, {row['jobs_per_cpu_s']:,.0f} jobs/s, "
            f"{row['us_per_message']:.0f} us/message, p99 decision {row['decision_p99_ms']:.2f} ms, "
            f"{row['decisions_over_5ms']} decisions over 5 ms (load {load()})",
            flush=True,
        )
        write(report, rows, context)
    print(write(report, rows, context))
    return 0


if __name__ == "__main__":
    sys.exit(main())
