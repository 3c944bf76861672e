"""Sweep throughput: the same 32 short runs through the old process pool and through Dask.

    .venv/bin/python benchmarks/sweep.py [--jobs 200] [--workers 2] [--only pool|dask|dask-pinned]
                                         [--rounds 1] [--out DIR]
    .venv/bin/python benchmarks/sweep.py --chaos [--rounds 3]

The 32 runs: Perkovic & Keleher's orders D, P, R and 1/L, with and without guarantees, 4 seeds
each, on the first ``--jobs`` jobs of the committed CTC-SP2 excerpt (430 hosts, embedded
engine). Each executor runs them from scratch in its own folder, one after the other, in
this one process, so that both see the same machine.

For each executor: wall time of the whole batch, the sum of the runs' own wall times
(``run()`` from start to end, as each run measures it), the efficiency
``sum of run times / (wall time x workers)`` (target: >= 0.85 with 2 workers) and the
executor's overhead per run ``(wall time x workers - sum of run times) / runs``: what the
executor costs beyond the simulations themselves (start-up of workers, shipping inputs and
outputs, scheduling, idle tail).

Dask runs twice: workers not pinned (the default of ``run_grid``) and each worker pinned to
its own CPU with its scheduler process (``pin_cpus=True``, what the old pool did), to decide
whether pinning still helps. For Dask the script also prints the cluster's start-up, the data
shipped (inputs once per worker, outputs per run, gzip) and the client's time per run.

``--chaos`` runs the sweep under chaos instead (benchmarks/chaos.py: 60 runs on a loopback
cluster of 3 workers, a random worker killed every 5 s and replaced, 5 times, one run that
kills its worker; then the same sweep, clean, on a LocalCluster), ``--rounds`` times, and
prints for each round the runs done, byte-identical and failed, the sweep's summary line and
the wall times of both sweeps.

The old pool is ``benchmarks/old_pool.py``, a verbatim copy of ``reproduce/runner.py``'s
``ProcessPoolExecutor`` pool before Dask replaced it. This machine is shared and
noisy: the load average before and after each executor is printed beside its figures.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))
EXCERPT = REPO / "workloads" / "excerpts" / "CTC-SP2-1996-3.1-cln.first5000.swf.gz"
ORDERS = ("D", "P", "R", "1/L")
SEEDS = (1, 2, 3, 4)


def grid() -> list[tuple[str, dict]]:
    """(name, backfill options) of the 32 runs."""
    out = []
    for order in ORDERS:
        for guarantees in (True, False):
            for seed in SEEDS:
                name = f"{order.replace('/', 'over')}_{'G' if guarantees else 'NG'}_s{seed}"
                out.append((name, {"order": order, "guarantees": guarantees, "seed": seed}))
    return out


def nothing(prefix: str, options: dict, workload: str | None = None) -> dict:
    """The old pool's per-run analysis: none (the benchmark times the runs only)."""
    return {}


def load() -> float:
    return os.getloadavg()[0]


def figures(name: str, wall_s: float, run_times: list[float], workers: int, load_before: float) -> dict:
    total = sum(run_times)
    return {
        "executor": name,
        "runs": len(run_times),
        "workers": workers,
        "wall_s": wall_s,
        "sum_run_s": total,
        "efficiency": total / (wall_s * workers),
        "overhead_per_run_s": (wall_s * workers - total) / len(run_times),
        "load_before": load_before,
        "load_after": load(),
    }


def bench_pool(workload: Path, platform_path: Path, folder: Path, workers: int) -> dict:
    from old_pool import Job, run_batch

    jobs = [Job(name, "backfill", options) for name, options in grid()]
    before = load()
    begin = time.perf_counter()
    results = run_batch(
        jobs,
        str(workload),
        str(platform_path),
        folder,
        engine="embedded",
        analyse=nothing,
        workers=workers,
        say=lambda *a: None,
    )
    wall = time.perf_counter() - begin
    if len(results) != len(jobs):
        sys.exit(f"old pool: {len(jobs) - len(results)} runs failed")
    return figures("old pool (ProcessPoolExecutor)", wall, [r["wall_s"] for r in results.values()], workers, before)


def bench_dask(workload: Path, platform_path: Path, folder: Path, workers: int, pin_cpus: bool) -> dict:
    from adaptsched.engines.run.spec import RunSpec
    from adaptsched.sweep import GridRun, run_grid

    runs = [
        GridRun(name, RunSpec.make("backfill", workload, platform_path, folder / name, options=options))
        for name, options in grid()
    ]
    before = load()
    grid_result = run_grid(runs, folder, workers=workers, pin_cpus=pin_cpus, progress=False, say=lambda *a: None)
    if grid_result.done != len(runs):
        sys.exit(f"dask: {len(runs) - grid_result.done} runs failed")
    run_times = [r["wall_s"] for r in grid_result.results.values()]
    name = "Dask LocalCluster" + (", workers pinned to CPUs" if pin_cpus else ", not pinned")
    out = figures(name, grid_result.wall_s, run_times, grid_result.workers, before)
    out.update(
        {
            "startup_s": grid_result.startup_s,
            "efficiency_with_startup": sum(run_times) / ((grid_result.wall_s + grid_result.startup_s) * workers),
            "input_bytes": grid_result.input_bytes,
            "output_bytes_per_run": grid_result.output_bytes / len(runs),
            "client_s_per_run": grid_result.client_s / len(runs),
            "task_minus_run_s": sum(r["task_s"] - r["wall_s"] for r in grid_result.results.values()) / len(runs),
        }
    )
    return out


def chaos_rounds(out: Path, rounds: int) -> None:
    """benchmarks/chaos.py's sweep under chaos, ``rounds`` times; a line per round, and a table."""
    from chaos import chaos

    stamp = time.strftime("%Y%m%d-%H%M%S")
    lines = [
        "| round | jobs per run | workers killed | runs done | byte-identical | failed | lost / joined / resubmitted "
        "| chaos sweep (s) | clean sweep (s) | load avg before/after |",
        "|---|---:|---:|---:|---:|---|---|---:|---:|---|",
    ]
    for round_ in range(rounds):
        report = chaos(out / f"chaos-{stamp}-{round_}")
        statuses = report["compare"]["chaos"]
        failed = sorted(n for n, s in statuses.items() if s != "done")
        summary = next((line for line in report["under_chaos"]["log"].splitlines() if line.startswith("sweep: ")), "")
        counts = summary.rpartition("; ")[2] if "lost" in summary else "none"
        lines.append(
            f"| {round_ + 1} | {report['jobs']} | {len(report['under_chaos']['killed'])} | "
            f"{sum(1 for s in statuses.values() if s == 'done')} | {report['compare']['identical']} | "
            f"{', '.join(n.split('-')[0] for n in failed) or 'none'} | {counts} | "
            f"{report['under_chaos']['wall_s']:.1f} | {report['clean']['wall_s']:.1f} | "
            f"{report['load_before']:.1f} / {report['load_after']:.1f} |"
        )
        print(lines[-1], flush=True)
    text = "\n".join(lines)
    print(text)
    (out / f"chaos-{stamp}.md").write_text(text + "\n")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=200, help="jobs of the excerpt per run (default 200)")
    parser.add_argument("--workers", type=int, default=2, help="parallel runs (default 2)")
    parser.add_argument("--only", choices=("pool", "dask", "dask-pinned"), help="run one executor only")
    parser.add_argument("--rounds", type=int, default=1, help="rounds of every executor, interleaved (default 1)")
    parser.add_argument("--out", default=str(REPO / "results" / "benchmarks" / "sweep"))
    parser.add_argument("--chaos", action="store_true", help="sweeps under chaos (benchmarks/chaos.py), --rounds")
    args = parser.parse_args(argv)
    if args.chaos:
        return chaos_rounds(Path(args.out).resolve(), args.rounds)

    from adaptsched.platforms.simgrid import write_cluster
    from adaptsched.workloads.convert import convert_swf, write_workload

    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    workload, _ = convert_swf(EXCERPT, hosts=430, first=args.jobs)
    workload_path = write_workload(workload, out / "workload.json")
    platform_path = write_cluster(430, out / "cluster430.xml")
    stamp = time.strftime("%Y%m%d-%H%M%S")
    rows = []
    for round_ in range(args.rounds):
        if args.only in (None, "pool"):
            rows.append(bench_pool(workload_path, platform_path, out / f"pool-{stamp}-{round_}", args.workers))
            print(json.dumps(rows[-1]), flush=True)
        for pinned in (False, True):
            if args.only in (None, "dask-pinned" if pinned else "dask"):
                folder = out / f"dask{'-pinned' if pinned else ''}-{stamp}-{round_}"
                rows.append(bench_dask(workload_path, platform_path, folder, args.workers, pinned))
                print(json.dumps(rows[-1]), flush=True)
    lines = [
        f"{len(grid())} runs of backfill on the first {args.jobs} CTC-SP2 jobs (430 hosts, embedded engine), "
        f"{args.workers} workers, {os.cpu_count()} CPUs, Python {platform.python_version()}.",
        "",
        "| executor | wall (s) | sum of runs (s) | efficiency | overhead per run (s) | load avg before/after |",
        "|---|---:|---:|---:|---:|---|",
    ]
    lines += [
        f"| {r['executor']} | {r['wall_s']:.1f} | {r['sum_run_s']:.1f} | {r['efficiency']:.2f} | "
        f"{r['overhead_per_run_s']:.2f} | {r['load_before']:.1f} / {r['load_after']:.1f} |"
        for r in rows
    ]
    for r in rows:
        if "startup_s" in r:
            lines.append(
                f"\n{r['executor']}: cluster start-up {r['startup_s']:.1f} s "
                f"(efficiency {r['efficiency_with_startup']:.2f} counting it); "
                f"inputs shipped {r['input_bytes'] / 1e3:.1f} kB in all; outputs returned "
                f"{r['output_bytes_per_run'] / 1e3:.1f} kB per run (gzip); client time per run "
                f"{1e3 * r['client_s_per_run']:.1f} ms; worker time per run outside the simulation "
                f"(inputs, packing) {1e3 * r['task_minus_run_s']:.0f} ms"
            )
    text = "\n".join(lines)
    print(text)
    (out / f"benchmark-{stamp}.md").write_text(text + "\n")
    (out / f"benchmark-{stamp}.json").write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
