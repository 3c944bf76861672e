"""DVQoPS's slow decisions by kind: which choices take over 5 ms, and what it would take to bring
the 99th percentile under 5 ms.

The throughput case of ``benchmarks/throughput.py`` (SDSC-SP2's last ``--jobs`` jobs,
QoS-annotated, C = 10, U = 0.8, high load, 128 hosts), replayed in-process
(:mod:`adaptsched.core.replay`: no engine; about as many scheduling calls as the engine's
messages). Each scheduling call is timed in CPU time and classed by what DVQoPS chose in it:
the window (``W``: a DVQoPS simulation of the last ``max_window_h`` hours per candidate window),
the OC-factor over the window in force (``O<w>``), both, or neither. Prints, per kind, the calls,
how many take over 5 ms and their CPU time; the what-if replays by kind (OC-factor replays of
a window, or the window's continuous simulations; given up below their bound or run whole);
and how many calls would still take over 5 ms if the OC-factor choices alone were 1.1 to 4
times cheaper (the window choices, 0.1 to a few seconds each, stay over 5 ms). The 99th
percentile is under 5 ms when at most 1 % of the calls take longer.

    .venv/bin/python benchmarks/dvqops_decisions.py [--jobs 10000] [--out decisions.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO.parent))  # the repository root is the adaptsched package

import adaptsched.core.dvqops as dvqops  # noqa: E402
from adaptsched.core.base import Job  # noqa: E402
from adaptsched.core.replay import replay  # noqa: E402
from adaptsched.reproduce.qops.plan import scenario_workload  # noqa: E402

SLOW_S = 0.005


class Timed(dvqops.Dvqops):
    """DVQoPS noting each scheduling call's kind and CPU time."""

    calls: list[tuple[str, float]]

    def plan(self, now: float) -> None:
        kind = ""
        if self.arrivals and self.origin_s is not None:
            if now >= self.next_window_s and not self.fixed_window:
                kind += "W"
            if now >= self.next_oc_s:
                kind += f"O{self.window_s / 3600:g}"
        begin = time.process_time()
        super().plan(now)
        self.calls.append((kind or "-", time.process_time() - begin))


def measure(jobs: list[tuple[Job, float]]) -> dict[str, Any]:
    replays: Counter[str] = Counter()
    replay_cpu: dict[str, float] = {}
    what_if = dvqops.what_if_values

    def counted(*args: Any, **kwargs: Any) -> dvqops.WhatIf:
        begin = time.process_time()
        out = what_if(*args, **kwargs)
        kind = "window simulation" if kwargs.get("changes") or (len(args) > 8 and args[8]) else "OC-factor replay"
        kind += ", given up" if out.beaten_below is not None else ", whole"
        replays[kind] += 1
        replay_cpu[kind] = replay_cpu.get(kind, 0.0) + time.process_time() - begin
        return out

    scheduler = Timed(128)
    scheduler.calls = []
    dvqops.what_if_values = counted  # type: ignore[assignment]
    try:
        begin = time.process_time()
        replay(scheduler, jobs)
        cpu = time.process_time() - begin
    finally:
        dvqops.what_if_values = what_if  # type: ignore[assignment]
    calls = scheduler.calls
    kinds: dict[str, dict[str, float]] = {}
    for kind, dt in calls:
        row = kinds.setdefault(kind, {"calls": 0.0, "over_5ms": 0.0, "cpu_s": 0.0})
        row["calls"] += 1
        row["over_5ms"] += 1 if dt > SLOW_S else 0
        row["cpu_s"] += dt
    # the calls over 5 ms if the OC-factor choices (no window choice in the call) were s times cheaper
    cheaper = {
        s: sum(1 for kind, dt in calls if dt > SLOW_S and ("W" in kind or dt / s > SLOW_S))
        for s in (1.0, 1.1, 1.2, 1.3, 1.5, 2.0, 3.0, 4.0)
    }
    return {
        "calls": len(calls),
        "cpu_s": cpu,
        "over_5ms": sum(1 for _, dt in calls if dt > SLOW_S),
        "allowed_over_5ms": len(calls) // 100,
        "kinds": kinds,
        "replays": {k: {"replays": replays[k], "cpu_s": replay_cpu[k]} for k in sorted(replays)},
        "over_5ms_if_oc_choices_cheaper": cheaper,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=10_000)
    parser.add_argument("--out", type=Path, help="also write the numbers as JSON here")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        path = scenario_workload(Path(tmp), "SDSC-SP2", 10, 0.8, "high", "orig", jobs=args.jobs, segment="last")
        workload = json.loads(path.read_text())
    profiles = workload["profiles"]
    jobs = [
        (Job(str(j["id"]), j["subtime"], j["res"], j["walltime"], j), profiles[j["profile"]]["delay"])
        for j in workload["jobs"]
    ]
    result = measure(jobs)
    print(
        f"SDSC-SP2, last {args.jobs:,} jobs, high load: {result['calls']:,} scheduling calls, {result['cpu_s']:.1f} s "
        f"CPU; {result['over_5ms']} over 5 ms (the p99 is under 5 ms at {result['allowed_over_5ms']} or fewer)"
    )
    print(f"{'kind':8s} {'calls':>7s} {'over 5 ms':>9s} {'CPU (s)':>8s}")
    for kind, row in sorted(result["kinds"].items(), key=lambda kv: -kv[1]["over_5ms"]):
        print(f"{kind:8s} {row['calls']:7,.0f} {row['over_5ms']:9.0f} {row['cpu_s']:8.2f}")
    print("what-if replays:")
    for kind, row in result["replays"].items():
        print(f"  {kind:30s} {row['replays']:7,d} {row['cpu_s']:8.2f} s")
    print("calls over 5 ms if the OC-factor choices alone were s times cheaper:")
    print("  " + ", ".join(f"{s:g}x: {n}" for s, n in result["over_5ms_if_oc_choices_cheaper"].items()))
    if args.out:
        args.out.write_text(json.dumps({"jobs": args.jobs, **result}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
