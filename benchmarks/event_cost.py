"""The cost of one scheduling pass against the depth of the queue: conservative backfilling's
scheduler alone (no engine), pass by pass, on one or more workloads, with this tree's code and
optionally a base commit's.

Each side replays the workload through the pure scheduler (``core/replay.py``: jobs run their
profile's time, or until their walltime) in a fresh process, timing every pass in process CPU
time, and records per pass the waiting jobs, the profile's steps and the reservations moved; it
stops after ``--cap-s`` CPU seconds (the row then says how far it got). The plot shows, per
workload and side, the median and 90th percentile of a pass's CPU time in bins of queue depth,
and the reservations moved per pass beside it; the JSON beside the PNG holds the binned figures
and the throughput per tenth of the workload's jobs (jobs started per CPU second).

    .venv/bin/python benchmarks/event_cost.py --workload ricc=r.json --workload narrow=n.json \\
        [--hosts 8192] [--base 06af375] [--cap-s 900] [--out docs/results/engines/event-cost.png]
"""

from __future__ import annotations

import argparse
import datetime
import gc
import heapq
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BINS = [0, 10, 30, 100, 300, 1000, 3000, 10000, 30000, 100000]


def side(workload: str, hosts: int, cap_s: float) -> dict:
    """One replay in this process (``PYTHONPATH`` picks the code): every pass's cost."""
    from adaptsched.core.conservative import ConservativeBackfilling
    from adaptsched.core.job import Job
    from adaptsched.core.replay import _Replay

    data = json.loads(Path(workload).read_text())
    delays = {name: p["delay"] for name, p in data["profiles"].items()}
    jobs = [
        (Job(f"w0!{j['id']}", float(j["subtime"]), j["res"], float(j["walltime"])), float(delays[j["profile"]]))
        for j in data["jobs"]
    ]
    del data
    scheduler = ConservativeBackfilling(hosts)
    scheduler.audit = []  # (job, old, new) at each move
    run = _Replay(scheduler, [], jobs, None)
    run.take_over([], {}, {})
    heapq.heapify(run.events)
    gc.collect()
    gc.freeze()
    gc.set_threshold(100_000, 10, 10)  # as in a run (engines/embedded/batsim.py)
    passes: list[tuple[int, int, int, float]] = []  # (waiting jobs, profile steps, moves, CPU s)
    tenths: list[float] = []
    started, total, clock = 0, len(jobs), time.process_time
    begin = clock()
    while run.events and clock() - begin < cap_s:
        now = run.events[0][0]
        run.deliver(now)
        depth, steps = len(scheduler.queue), len(scheduler.profile.times)
        t0 = clock()
        decisions = scheduler.schedule(now)
        cost = clock() - t0
        passes.append((depth, steps, len(scheduler.audit), cost))
        scheduler.audit.clear()
        run.start(decisions, now)
        run.finish(decisions, now)
        started += len(decisions.starts)
        while started * 10 >= (len(tenths) + 1) * total:
            tenths.append(clock() - begin)
    return {"passes": passes, "tenths_cpu_s": tenths, "started": started, "jobs": total, "cpu_s": clock() - begin}


def binned(passes: list, column: int) -> list[dict]:
    """Per bin of queue depth: passes, median and 90th percentile of ``column``."""
    rows = []
    for lo, hi in itertools.pairwise(BINS):
        values = sorted(p[column] for p in passes if lo <= p[0] < hi)
        if values:
            rows.append(
                {
                    "depth": [lo, hi],
                    "passes": len(values),
                    "median": values[len(values) // 2],
                    "p90": values[int(len(values) * 0.9)],
                    "mean": sum(values) / len(values),
                }
            )
    return rows


def run_side(workload: str, hosts: int, cap_s: float, code: Path | None, where: Path) -> dict:
    out = where / f"side{len(list(where.glob('side*')))}.json"
    env = os.environ if code is None else {**os.environ, "PYTHONPATH": str(code)}
    argv = [sys.executable, __file__, "_side", workload, str(hosts), str(cap_s), str(out)]
    subprocess.run(argv, check=True, env=env)
    return json.loads(out.read_text())


def summary(result: dict) -> dict:
    passes = result["passes"]
    tenths = result["tenths_cpu_s"]
    per_tenth = [result["jobs"] / 10 / (b - a) for a, b in zip([0.0] + tenths, tenths)]
    return {
        "started": result["started"],
        "jobs": result["jobs"],
        "cpu_s": result["cpu_s"],
        "finished": result["started"] >= result["jobs"],
        "jobs_per_cpu_s_by_tenth": per_tenth,
        "cost_s": binned(passes, 3),
        "moves": binned(passes, 2),
        "steps": binned(passes, 1),
        "deepest": max((p[0] for p in passes), default=0),
    }


def plot(results: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (cost, moves) = plt.subplots(1, 2, figsize=(12, 4.8))
    for label, s in results.items():
        style = "--" if label.endswith("(base)") else "-"
        mids = [(r["depth"][0] + r["depth"][1]) / 2 for r in s["cost_s"]]
        cost.plot(mids, [r["median"] * 1e6 for r in s["cost_s"]], style, marker="o", label=f"{label}: median")
        cost.plot(mids, [r["p90"] * 1e6 for r in s["cost_s"]], style, marker="x", alpha=0.5, label=f"{label}: p90")
        moves.plot(mids, [r["mean"] for r in s["moves"]], style, marker="o", label=label)
    for axis in (cost, moves):
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.set_xlabel("waiting jobs at the pass")
        axis.grid(True, which="both", alpha=0.3)
    cost.set_ylabel("CPU time of a pass (us)")
    moves.set_ylabel("reservations moved per pass (mean)")
    cost.legend(fontsize=7)
    moves.legend(fontsize=7)
    fig.suptitle("conservative: the cost of a pass against the queue's depth (scheduler alone)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv: list[str] | None = None) -> int:
    if argv is None and sys.argv[1:2] == ["_side"]:
        workload, hosts, cap_s, out = sys.argv[2:6]
        Path(out).write_text(json.dumps(side(workload, int(hosts), float(cap_s))))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workload", action="append", required=True, help="LABEL=PATH (Batsim JSON), repeatable")
    parser.add_argument("--hosts", type=int, default=8192)
    parser.add_argument("--base", help="also replay with the code of this commit (a git archive)")
    parser.add_argument("--cap-s", type=float, default=900.0, help="CPU seconds per replay at most")
    parser.add_argument("--out", default=str(REPO / "docs" / "results" / "engines" / "event-cost.png"))
    args = parser.parse_args(argv)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from baseline import code_of, commit  # benchmarks/baseline.py

    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="event_cost_") as tmp:
        where = Path(tmp)
        base = code_of(args.base, where / "base") if args.base else None
        for spec in args.workload:
            label, _, path = spec.partition("=")
            sides = [(f"{label} ({commit()})", None)]
            if base is not None:
                sides.insert(0, (f"{label} ({base[0][:7]}, base)", base[1]))
            for name, code in sides:
                result = summary(run_side(path, args.hosts, args.cap_s, code, where))
                result["load_after"] = round(os.getloadavg()[0], 1)
                results[name] = result
                rates = ", ".join(f"{r:,.0f}" for r in result["jobs_per_cpu_s_by_tenth"])
                print(
                    f"{name}: {result['started']:,} of {result['jobs']:,} jobs started in {result['cpu_s']:.1f} s CPU; "
                    f"jobs/s by tenth: {rates}; load {result['load_after']}",
                    flush=True,
                )
    png = Path(args.out)
    png.parent.mkdir(parents=True, exist_ok=True)
    plot(results, png)
    meta = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "argv": sys.argv[1:]}
    png.with_suffix(".json").write_text(json.dumps({**meta, "results": results}, indent=1) + "\n")
    print(f"written: {png}, {png.with_suffix('.json')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
