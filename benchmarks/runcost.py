"""What an ``adaptsched run`` costs outside the simulation, this tree against a baseline tree.

The engines benchmark (an in-process ``easy`` run against real Batsim) counts whole
``adaptsched run`` processes, so what they do besides simulating counts too: start-up (imports),
loading and checking the workload (``load_workload``), checking the outputs' physics at the end
(``check_run``). This script runs, round after round, the same ``adaptsched run`` with this tree
and with the baseline (interleaved, so both see the same machine), each side's whole process
and then each part alone in a fresh process, all in CPU time (user + sys, what the process and
its children computed: less sensitive than wall time to the other processes of a busy machine),
checks both sides' outputs are the same, and prints the medians:

    git archive 32c4a51 | (mkdir -p /tmp/base/adaptsched && tar -x -C /tmp/base/adaptsched)
    .venv/bin/python benchmarks/runcost.py --baseline /tmp/base [--trace T] [--hosts 338]
        [--scheduler easy] [--engine embedded|batsim] [--rounds 3] [--out DIR]

``--baseline DIR``: a folder holding a checkout of adaptsched as ``DIR/adaptsched`` (run with
``PYTHONPATH=DIR``); this tree runs as installed (``setup.sh``'s editable install). Start-up is
a whole run of the trace's first 10 jobs.
"""

from __future__ import annotations

import argparse
import csv
import filecmp
import json
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

from adaptsched.workloads.traces import shared_trace

REPO = Path(__file__).resolve().parent.parent
DEFAULT_TRACE = shared_trace("CTC-SP2")
PARTS = """
import json, sys, time
clock = time.process_time
import adaptsched.engines.checks.physics  # imported by then in a run (check_run imports it itself)
from adaptsched.engines.run import check_run
from adaptsched.platforms.simgrid import read_platform
from adaptsched.workloads.batsim_json import load_workload
workload, platform, prefix = sys.argv[1:4]
machines = read_platform(platform)
t = clock(); loaded = load_workload(workload); embedded = clock() - t
t = clock(); load_workload(workload, embedded=False); batsim = clock() - t
t = clock(); check_run(prefix, loaded, machines); check = clock() - t
print(json.dumps({"load (embedded)": embedded, "load (batsim)": batsim, "check_run": check}))
"""


def cpu_of(command: list[str], env: dict[str, str]) -> tuple[float, str]:
    """CPU seconds (user + sys, its children's included) of one process, and its stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.stdout


def schedule_rows(prefix: Path) -> list[list[str]]:
    """``_schedule.csv`` without its two wall-clock columns."""
    with open(f"{prefix}_schedule.csv", newline="") as handle:
        rows = list(csv.reader(handle))
    drop = {i for i, name in enumerate(rows[0]) if name in ("simulation_time", "scheduling_time")}
    return [[cell for i, cell in enumerate(row) if i not in drop] for row in rows]


def same_outputs(a: Path, b: Path) -> bool:
    files = ("_jobs.csv", "_machine_states.csv")
    same = all(filecmp.cmp(f"{a}{name}", f"{b}{name}", shallow=False) for name in files)
    return same and schedule_rows(a) == schedule_rows(b)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", required=True, help="a folder holding the baseline as DIR/adaptsched")
    parser.add_argument("--trace", default=str(DEFAULT_TRACE))
    parser.add_argument("--hosts", type=int, default=338)
    parser.add_argument("--scheduler", default="easy")
    parser.add_argument("--engine", default="embedded", choices=("embedded", "batsim"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", default="results/runcost")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    workload, platform, tiny = out / "workload.json", out / "platform.xml", out / "first10.json"
    adaptsched = [sys.executable, "-m", "adaptsched"]
    if not workload.exists():
        subprocess.run([*adaptsched, "convert", args.trace, str(workload), "--hosts", str(args.hosts)], check=True)
    subprocess.run([*adaptsched, "platform", "--hosts", str(args.hosts), str(platform)], check=True)
    doc = json.loads(workload.read_text())
    doc["jobs"] = doc["jobs"][:10]
    tiny.write_text(json.dumps(doc))
    sides = {"baseline": str(Path(args.baseline).resolve()), "this tree": ""}  # this tree: as installed
    times: dict[tuple[str, str], list[float]] = {}
    for round_ in range(1, args.rounds + 1):
        for side, path in sides.items():
            env = (
                {**os.environ, "PYTHONPATH": path}
                if path
                else {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
            )
            prefix = out / side.replace(" ", "_") / "run"
            run = [*adaptsched, "run", "--scheduler", args.scheduler, "--engine", args.engine, "--platform"]
            run += [str(platform), "--progress", "off", "--no-pin"]
            whole, _ = cpu_of([*run, "--workload", str(workload), "--out", str(prefix)], env)
            start, _ = cpu_of([*run, "--workload", str(tiny), "--out", str(prefix) + "_first10"], env)
            _, text = cpu_of([sys.executable, "-c", PARTS, str(workload), str(platform), str(prefix)], env)
            parts = {"whole run": whole, "start-up (10-job run)": start, **json.loads(text)}
            for name, value in parts.items():
                times.setdefault((name, side), []).append(value)
            said = ", ".join(f"{k} {v:.2f} s" for k, v in parts.items())
            print(f"round {round_} {side}: {said}; load average {os.getloadavg()[0]:.1f}", flush=True)
    same = same_outputs(out / "baseline" / "run", out / "this_tree" / "run")
    print(f"\noutputs of the last round: {'the same' if same else 'DIFFERENT'} (schedule's wall-clock columns aside)")
    print("\n| CPU s (median) | baseline | this tree | difference |\n|---|---:|---:|---:|")
    for name in dict.fromkeys(name for name, _ in times):
        a, b = (statistics.median(times[name, side]) for side in sides)
        print(f"| {name} | {a:.2f} | {b:.2f} | {b - a:+.2f} |")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
