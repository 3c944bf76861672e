"""The energy study of docs/energy.md: EASY, conservative backfilling and the idle switch-off plugin
(examples/schedulers/my_idle_off.py) on the CTC-SP2 year, 338 hosts with Batsim's energy
platforms' power model (``adaptsched platform --power``), energy and wait side by side.

    .venv/bin/python examples/energy_study.py

runs the three simulations with ``--energy`` (results/energy-study/, a rerun reuses finished
runs: ``--fresh`` runs them again), then rewrites docs/results/energy-study.md and the table
between the ``energy-study`` markers of docs/energy.md from their outputs.
"""

import argparse
import sys
from pathlib import Path

from adaptsched.analysis import compute_metrics
from adaptsched.engines.run import RunSpec, run
from adaptsched.platforms.power import PowerSpec

REPO = Path(__file__).resolve().parent.parent
TRACE = REPO.parent / "shared" / "traces" / "CTC-SP2-1996-3.1-cln.swf.gz"
HOSTS = 338
IDLE_S = 600.0
RUNS = {  # name -> (scheduler, options, label)
    "easy": ("easy", {}, "EASY"),
    "conservative": ("conservative", {}, "conservative"),
    "idle-off": (
        str(REPO / "examples" / "schedulers" / "my_idle_off.py"),
        {"idle_s": IDLE_S},
        "EASY + idle switch-off",
    ),
}
COMMAND = ".venv/bin/python examples/energy_study.py"
BEGIN, END = "<!-- energy-study: begin -->", "<!-- energy-study: end -->"


def simulate(out: Path, trace: Path, first: int | None, fresh: bool) -> dict[str, dict]:
    metrics = {}
    for name, (scheduler, options, _) in RUNS.items():
        prefix = out / name
        if fresh or not Path(f"{prefix}_schedule.csv").is_file():
            print(f"running {name} on {trace.name} ({HOSTS} hosts, --energy)...", flush=True)
            workload = trace
            if first is not None:  # the first N jobs, converted for the cluster as a run converts a trace
                from adaptsched.workloads.convert import convert_swf, write_workload

                workload = write_workload(convert_swf(trace, hosts=HOSTS, first=first)[0], out / "workload.json")
            spec = RunSpec.make(scheduler, workload, HOSTS, prefix, options=options, energy=True, progress=False)
            run(spec, say=lambda *a: None)
        metrics[name] = compute_metrics(f"{prefix}_jobs.csv")["overall"]
    return metrics


def table(metrics: dict[str, dict]) -> str:
    easy = metrics["easy"]["energy_j"]
    lines = [
        "| scheduler | energy (kWh) | vs EASY | mean power (kW) | J per busy host-second "
        "| energy outside jobs (kWh) | mean wait (s) | mean bounded slowdown |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, (_, _, label) in RUNS.items():
        m = metrics[name]
        lines.append(
            f"| {label} | {m['energy_kwh']:,.0f} | {100 * (m['energy_j'] / easy - 1):+.1f} % "
            f"| {m['mean_power_w'] / 1000:,.2f} | {m['energy_per_node_s_j']:.1f} "
            f"| {m['energy_outside_jobs_j'] / 3.6e6:,.0f} | {m['wait_mean_s']:,.0f} | {m['bsld_mean']:.2f} |"
        )
    return "\n".join(lines)


def report(metrics: dict[str, dict], trace: Path, command: str) -> str:
    m = metrics["easy"]
    return "\n".join(
        [
            f"# Energy study: EASY, conservative and idle switch-off on {trace.name.split('-cln')[0]}",
            "",
            f"Written by `{command}` (docs/energy.md). Trace `{trace.name}`, {m['jobs']:,} jobs, "
            f"{HOSTS} hosts; power: {PowerSpec().describe()}; switch-off after {IDLE_S:g} s idle.",
            "",
            table(metrics),
            "",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", type=Path, default=TRACE, help=f"SWF trace (default {TRACE})")
    parser.add_argument("--out", type=Path, default=Path("results/energy-study"), help="runs' folder")
    parser.add_argument("--first", type=int, help="only the trace's first N jobs (default: all)")
    parser.add_argument("--fresh", action="store_true", help="run every simulation again")
    args = parser.parse_args(argv)
    if not args.trace.is_file():
        print(f"energy_study: {args.trace}: no such trace (--trace PATH)", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    metrics = simulate(args.out, args.trace, args.first, args.fresh)
    command = COMMAND + (f" --first {args.first}" if args.first else "")
    text = report(metrics, args.trace, command)
    (REPO / "docs" / "results" / "energy-study.md").write_text(text)
    doc = REPO / "docs" / "energy.md"
    before, _, rest = doc.read_text().partition(BEGIN)
    _, _, after = rest.partition(END)
    doc.write_text(f"{before}{BEGIN}\n{text.split(chr(10), 2)[2]}{END}{after}")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
