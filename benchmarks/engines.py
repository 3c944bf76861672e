"""Engine throughput: the full CTC-SP2 trace on the embedded engine's two transports and on real Batsim.

Runs, in one go and on the same converted workload and platform (338 hosts), adaptsched's
``easy`` and ``conservative`` and pybatsim's ``easyBackfill`` on three engines:

- ``inprocess``: the embedded engine with the plugin in its own process (the default);
- ``zmq``: the embedded engine with the plugin in a second process over ZeroMQ;
- ``batsim``: real Batsim 4.2.1 (``$BATSIM``, PATH, or ``--batsim``) with the plugin over ZeroMQ
  (skipped, and said so, when it is not installed).

Prints wall time and jobs/s for each run, the ratios the targets are about, and whether the
engines' ``_jobs.csv`` agree; writes ``benchmark.md`` and ``benchmark.json`` (with the date,
the machine and its load) to ``--out``. Exits with 1 when the in-process engine is not at
least ``TARGET`` times as fast as real Batsim with ``easy``, when two engines' ``_jobs.csv``
differ, or when in-process ``conservative`` takes more than ``CONSERVATIVE_TARGET`` times
``easy``'s time in any round.

    .venv/bin/python benchmarks/engines.py [--trace T] [--hosts 338] [--out DIR] [--repeat 3]
        [--pin on|off|both] [--readme] [--energy]

``--energy`` adds ``easy+energy``: ``easy`` with Batsim's energy model (``--energy``, on the same
cluster with the power model of ``adaptsched platform --power``), and the target that it costs at
most ``ENERGY_TARGET`` times ``easy`` in-process, judged round by round on CPU time (the two runs
of a round follow each other; on a busy machine CPU time is the fair measure, see below)
(``--schedulers easy --engines inprocess --energy --no-batsim`` measures only that pair; its report
is docs/results/engines/energy/).

``--pin both`` runs every configuration pinned and unpinned, in the same rounds; ``--readme``
then rewrites README.md's speed section (between its ``speed-table`` markers) from the
measurements: machine, date, load, one row per measured ratio, quoting the lower of the
pinned and unpinned round-by-round medians: what was measured, with no verdict (the verdicts,
met only when every round meets a bound, are in benchmark.md and the exit status).
``--readme-only`` rewrites it from the last ``benchmark.json`` without measuring again.

Each run is a fresh ``adaptsched run`` process, timed from start to exit, as a user runs it.
This machine is noisy, so each configuration runs ``--repeat`` times (3 by default: one round
alone has moved by 15 % to 40 % between runs here), interleaved (noise hits every
configuration alike), and the best time is kept. Each ratio is also given round by round (the
two runs of a pair follow each other in one round), with its median and range: on this
machine the best of each side can come from rounds minutes apart, and a target is called
met only when every round meets it. The engine and the
scheduler process are pinned to one CPU (``--no-pin`` disables it) on every engine.

Each run's CPU time (user + system, of every process of the run: ``adaptsched``, pybatsim's,
Batsim's) is recorded too. On an idle machine an in-process run's wall time is its CPU time,
and a two-process run's wall time is at least its CPU time (the protocol is request-reply:
the processes take turns), so the CPU-time ratio is a lower bound of the idle-machine
wall-time ratio; on a busy machine it is the fair measure, wall times there mostly measure
how the kernel shares the CPUs (a process that sleeps at every hand-over is woken promptly,
a process that computes without a break waits for its share).
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import datetime
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from baseline import commit, load  # benchmarks/baseline.py, beside this script

from adaptsched.analysis.invariants import SAME_COLUMNS
from adaptsched.engines.real import batsim_version, find_batsim
from adaptsched.platforms.power import PowerSpec
from adaptsched.platforms.simgrid import write_cluster
from adaptsched.workloads.convert import convert_swf, write_workload
from adaptsched.workloads.traces import shared_trace

REPO = Path(__file__).resolve().parent.parent
DEFAULT_TRACE = shared_trace("CTC-SP2")
SCHEDULERS = ("easy", "easyBackfill", "conservative")
ENGINES = ("inprocess", "zmq", "batsim")
TARGET = 5.0  # in-process at least this many times faster than real Batsim, with easy (docs/engines.md)
ENERGY_TARGET = 1.3  # easy with the energy model at most this many times easy's time, in-process (docs/energy.md)
ENERGY = "+energy"  # a scheduler name's suffix: the run with --energy on the powered cluster
CONSERVATIVE_TARGET = 1.5  # conservative in-process at most this many times easy's time
REPEAT = 3  # interleaved rounds by default (module doc)
README = REPO / "README.md"
BEGIN, END = "<!-- speed-table: begin (benchmarks/engines.py --readme) -->", "<!-- speed-table: end -->"


def same_jobs(a: str | Path, b: str | Path) -> tuple[int, int]:
    """(rows, rows that differ) between two _jobs.csv on the conformance columns."""
    rows = lambda p: {r["job_id"]: tuple(r[k] for k in SAME_COLUMNS) for r in csv.DictReader(open(p))}  # noqa: E731
    first, second = rows(a), rows(b)
    differ = sum(1 for j in first.keys() | second.keys() if first.get(j) != second.get(j))
    return len(first), differ


def machine() -> dict:
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "host": platform.node(),
        "cpu": cpu,
        "cpus": os.cpu_count(),
        "system": f"{platform.system()} {platform.release()} {platform.machine()}",
        "python": platform.python_version(),
    }


def command_for(scheduler, engine, workload_path, platform_path, prefix, batsim, pinned):
    energy = scheduler.endswith(ENERGY)
    if energy:  # the powered cluster beside the plain one (main)
        scheduler = scheduler.removesuffix(ENERGY)
        platform_path = Path(platform_path).with_name(Path(platform_path).stem + "-power.xml")
    command = [
        sys.executable,
        "-m",
        "adaptsched",
        "run",
        "--scheduler",
        scheduler,
        "--workload",
        str(workload_path),
        "--platform",
        str(platform_path),
        "--out",
        str(prefix),
        "--progress",
        "off",
    ]
    if energy:
        command.append("--energy")
    if engine == "batsim":
        command += ["--engine", "batsim", "--batsim", batsim]
    else:
        command += ["--engine", "embedded", "--transport", engine]
    return command + ([] if pinned else ["--no-pin"])


#: the schedulers whose rows against real Batsim README's speed table shows (adaptsched's own)
OWN = ("easy", "conservative")


def shown(path: Path) -> str:
    """``path`` as a committed report names it: from the repository (``../shared/traces/...``) when it
    lies beside it, so that the report holds no machine's absolute path; else as given."""
    absolute = Path(os.path.abspath(path))  # (symbolic links kept: ../shared may be one)
    if absolute.is_relative_to(REPO.parent):
        return os.path.relpath(absolute, REPO)
    return str(path)


def per_round(run: dict, base: dict) -> list[float]:
    """``run``'s wall time over ``base``'s, round by round: the runs of one round follow each other,
    so each pair shares the machine's mood of that moment, which the best of each does not."""
    return [t / b for t, b in zip(run["times_s"], base["times_s"])]


def per_round_cpu(run: dict, base: dict) -> list[float]:
    """:func:`per_round` on CPU time."""
    return [t / b for t, b in zip(run["cpu_times_s"], base["cpu_times_s"])]


def spread(ratios: list[float]) -> str:
    """The per-round ratios as a reader checks them: their median, and their range when there are several."""
    if len(ratios) == 1:
        return f"{ratios[0]:.2f}x in its one round"
    median = statistics.median(ratios)
    return f"{median:.2f}x at the median of {len(ratios)} rounds, {min(ratios):.2f}x to {max(ratios):.2f}x"


def judged(ratios: list[float], meets) -> str:
    """Whether round-by-round ratios meet a target (``meets``: a ratio's test): in every round, or
    only at the median (then the noise decides: not shown), or not at all."""
    if all(meets(r) for r in ratios):
        return "met in every round"
    return "not shown: met at the median, not in every round" if meets(statistics.median(ratios)) else "NOT met"


def at_most(ratios: list[float], bound: float) -> str:
    """:func:`judged` for a target that bounds the ratios from above (conservative over easy)."""
    return judged(ratios, lambda r: r <= bound)


def at_least(ratios: list[float], bound: float) -> str:
    """:func:`judged` for a target that bounds the ratios from below (real Batsim over in-process)."""
    return judged(ratios, lambda r: r >= bound)


def conservative_over_easy(by: dict) -> str:
    """`conservative`'s in-process wall time over `easy`'s, each pinning measured:
    the best of each, and the rounds' own ratios."""
    ratios = []
    for pinned in (True, False):
        cons, easy = by.get(("conservative", "inprocess", pinned)), by.get(("easy", "inprocess", pinned))
        if cons and easy:
            ratios.append(
                f"{cons['wall_s'] / easy['wall_s']:.2f}x {label(pinned)} "
                f"(round by round: {spread(per_round(cons, easy))})"
            )
    if not ratios:
        return ""
    return f" In-process, `conservative` takes {' and '.join(ratios)} the time of `easy`."


def regenerate_command(document: dict) -> str:
    """The `engines.py` command that measures what ``document`` holds (its schedulers, engines,
    pinnings and rounds), for README to quote."""
    runs = document["runs"].values()
    context = document["context"]
    schedulers = ",".join(dict.fromkeys(r["scheduler"] for r in runs if not r["scheduler"].endswith(ENERGY)))
    engines = ",".join(dict.fromkeys(r["engine"] for r in runs))
    pinned = context["pinned"]
    command = "benchmarks/engines.py"
    if schedulers != ",".join(SCHEDULERS):
        command += f" --schedulers {schedulers}"
    if engines != ",".join(ENGINES):
        command += f" --engines {engines}"
    if any(r["scheduler"].endswith(ENERGY) for r in runs):
        command += " --energy"
    if context.get("first"):
        command += f" --first {context['first']}"
    if context.get("no_batsim"):
        command += " --no-batsim"
    command += " --pin both" if len(pinned) > 1 else ("" if pinned[0] else " --pin off")
    repeat = document["context"].get("repeat", 1)
    return command + (f" --repeat {repeat}" if repeat != REPEAT else "") + " --readme"


#: where the committed report goes (README links to it)
REPORTS = "docs/results/engines"


def regenerated_by(document: dict, out: Path) -> str:
    """The report's last line: the command that rewrites it."""
    command = regenerate_command(document).removesuffix(" --readme")
    return f"Regenerate with `{command} --out {shown(out)}`."


def readme_section(document: dict) -> str:
    """README's speed table: what was measured, where and when, one row per ratio of adaptsched's
    schedulers against real Batsim (pybatsim's `easyBackfill` and the ZeroMQ transport's ratios are
    in benchmark.md, to keep README short), and `conservative` over `easy` in-process."""
    context, runs = document["context"], document["runs"]
    info = context["machine"]
    by = {(r["scheduler"], r["engine"], r["pinned"]): r for r in runs.values()}
    lines = [
        f"Measured {context['started'][:16].replace('T', ' ')} UTC on {info['host']} ({info['cpu']}, "
        f"{info['cpus']} CPUs, Python {info['python']}) at commit {context.get('commit', '?')}, load average "
        f"{context['load_before']} before and {context['load_after']} after; {Path(context['trace']).name}, "
        f"{context['jobs']:,} jobs, {context['hosts']} hosts; best of {context['repeat']} round(s), each run a "
        f"fresh `adaptsched run` process; real Batsim {context.get('batsim_version') or 'not installed'}. "
        f"Regenerate with `{regenerate_command(document).removesuffix(' --readme')} --out {REPORTS} --readme` "
        "(details: "
        f"[{REPORTS}/benchmark.md]({REPORTS}/benchmark.md)).",
        "",
        "| scheduler | compared with in-process | pinning | wall (s): in-process / other | ratio (wall, best of each) "
        "| ratio (wall, round by round) | ratio (CPU) | jobs differing |",
        "|---|---|---|---|---:|---|---:|---:|",
    ]
    lowest, rounds_of = None, {}
    for (scheduler, engine, pinned), other in sorted(by.items(), key=lambda kv: (kv[0][0], kv[0][1], not kv[0][2])):
        base = by.get((scheduler, "inprocess", pinned))
        if engine != "batsim" or scheduler not in OWN or base is None:
            continue  # README: adaptsched's schedulers against real Batsim; the rest in benchmark.md
        ratio = other["wall_s"] / base["wall_s"]
        tag = f" ({'pinned' if pinned else 'unpinned'})" if len(context["pinned"]) > 1 else ""
        differ = next(
            (
                v
                for k, v in document["ratios"].items()
                if k.startswith(f"{scheduler}: jobs differing, {engine} ") and k.endswith(f"){tag}")
            ),
            "?",
        )
        rounds = per_round(other, base)
        lines.append(
            f"| `{scheduler}` | {'real Batsim' if engine == 'batsim' else 'ZeroMQ transport'} | "
            f"{'pinned' if pinned else 'unpinned'} | {base['wall_s']:.1f} / {other['wall_s']:.1f} | "
            f"{ratio:.2f}x | **{spread(rounds)}** | {other['cpu_s'] / base['cpu_s']:.2f}x | {differ} |"
        )
        if scheduler == "easy" and engine == "batsim":
            rounds_of[pinned] = rounds
            lowest = ratio if lowest is None else min(lowest, ratio)
    lines.append("")
    if rounds_of:
        median = min(statistics.median(rounds) for rounds in rounds_of.values())
        which = "the lower of the pinned and unpinned medians" if len(rounds_of) > 1 else "the median"
        lines.append(
            f"With `easy`, the in-process engine runs this trace **{median:.2f}x** as fast as real Batsim with the "
            f"same plugin: {which} of the rounds' own ratios (each round's two runs follow each other); the best "
            f"of each side gives {lowest:.2f}x." + conservative_over_easy(by)
        )
    try:
        busy = float(context["load_before"].split(",")[0]) > float(info["cpus"] or 1)
    except (ValueError, AttributeError):
        busy = False
    if busy:
        lines.append(
            f"The machine was busy (load average {context['load_before']} on {info['cpus']} CPUs): wall times "
            "then measure how the kernel shares the CPUs (a process that computes without a break waits for its "
            "share, two processes that hand over and sleep are woken promptly), and the CPU-time ratio is the "
            "fairer measure. Re-run on an idle machine for the wall-time ratio."
        )
    lines.append(
        "**The ratio depends on the machine.** Real Batsim's cost is mostly its cross-process hand-offs with "
        "the scheduler, which vary from one VM to another: the same run of real Batsim took 29 s on one of "
        "our VMs and 63 s on another. Measure it on yours with the command above."
    )
    return "\n".join(lines)


def readme(document: dict, path: Path = README) -> None:
    """Rewrites the speed section of README.md (between its markers) from a benchmark.json."""
    text = path.read_text()
    if BEGIN not in text or END not in text:
        sys.exit(f"benchmarks/engines.py: no speed-table markers in {path}")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    path.write_text(head + BEGIN + "\n" + readme_section(document) + "\n" + END + tail)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trace", default=str(DEFAULT_TRACE))
    parser.add_argument("--hosts", type=int, default=338)
    parser.add_argument("--first", type=int, help="only the first N jobs (quick check)")
    parser.add_argument("--out", default=str(REPO / "results" / "benchmarks" / "engines"))
    parser.add_argument("--batsim", help="real Batsim executable (default: $BATSIM, then PATH)")
    parser.add_argument("--no-batsim", action="store_true", help="skip real Batsim even if installed")
    parser.add_argument("--schedulers", default=",".join(SCHEDULERS), help="comma-separated (default: %(default)s)")
    parser.add_argument("--engines", default=",".join(ENGINES), help="comma-separated (default: %(default)s)")
    parser.add_argument("--no-pin", action="store_true", help="same as --pin off")
    parser.add_argument(
        "--pin", choices=("on", "off", "both"), default="on", help="bind engine and scheduler to one CPU (default on)"
    )
    parser.add_argument("--readme", action="store_true", help="rewrite README.md's speed section from this run")
    parser.add_argument("--energy", action="store_true", help="also easy with the energy model (module doc)")
    parser.add_argument("--readme-only", action="store_true", help="rewrite it from the last benchmark.json")
    parser.add_argument(
        "--repeat", type=int, default=REPEAT, help=f"interleaved rounds; each run's best time is kept ({REPEAT})"
    )
    args = parser.parse_args(argv)

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.readme_only:
        readme(json.loads((out / "benchmark.json").read_text()))
        print(f"rewritten: {README}")
        return 0
    pinnings = {"on": [True], "off": [False], "both": [True, False]}["off" if args.no_pin else args.pin]
    trace = Path(args.trace)
    if not trace.is_file():
        sys.exit(f"benchmarks/engines.py: no trace {trace} (pass --trace)")
    started = datetime.datetime.now(datetime.timezone.utc)
    load_before = load()
    workload, report = convert_swf(trace, hosts=args.hosts, first=args.first)
    workload_path = write_workload(workload, out / "workload.json")
    platform_path = write_cluster(args.hosts, out / f"cluster{args.hosts}.xml")
    write_cluster(args.hosts, out / f"cluster{args.hosts}-power.xml", power=PowerSpec())  # for easy+energy
    nb_jobs = len(workload["jobs"])
    batsim = None if args.no_batsim else find_batsim(args.batsim)
    engines = [e for e in args.engines.split(",") if e != "batsim" or batsim]
    schedulers = args.schedulers.split(",") + (["easy" + ENERGY] if args.energy else [])
    print(report.summary().splitlines()[0])
    missing = "skipped (--no-batsim)" if args.no_batsim else "not installed"
    batsim_text = f"{batsim} ({batsim_version(batsim)})" if batsim else f"{missing}: embedded transports only"
    print(f"real Batsim: {batsim_text}")

    bench = Bench(
        args=args,
        out=out,
        started=started,
        load_before=load_before,
        trace=trace,
        nb_jobs=nb_jobs,
        batsim=batsim,
        batsim_text=batsim_text,
        pinnings=pinnings,
        schedulers=schedulers,
    )
    plan = [(s, e, p) for s in schedulers for e in engines for p in pinnings]
    for round_ in range(1, args.repeat + 1):
        for scheduler, engine, pinned in plan:
            measure(bench, scheduler, engine, pinned, workload_path, platform_path, round_)
            write_report(bench, final=False)  # what is measured so far is on disk

    failures = write_report(bench, final=True)
    print(f"written: {out / 'benchmark.md'}")
    if failures:
        print("FAILED: " + "; ".join(failures), file=sys.stderr)
        return 1
    return 0


def label(pinned: bool) -> str:
    return "pinned" if pinned else "unpinned"


@dataclasses.dataclass
class Bench:
    """One benchmark: what it measures, and its results so far ((scheduler, engine, pinned) -> run)."""

    args: argparse.Namespace
    out: Path
    started: datetime.datetime
    load_before: str
    trace: Path
    nb_jobs: int
    batsim: str | None
    batsim_text: str
    pinnings: list[bool]
    schedulers: list[str]
    results: dict[tuple[str, str, bool], dict[str, Any]] = dataclasses.field(default_factory=dict)


def measure(bench: Bench, scheduler, engine, pinned, workload_path, platform_path, round_: int) -> None:
    """One fresh `adaptsched run` process: its wall and CPU time (every child waited for)."""
    out, pinnings = bench.out, bench.pinnings
    prefix = out / f"{scheduler}_{engine}" if len(pinnings) == 1 else out / f"{scheduler}_{engine}_{label(pinned)}"
    command = command_for(scheduler, engine, workload_path, platform_path, prefix, bench.batsim, pinned)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # every process of the run, waited for
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{done.stderr}")
    # "prefix": the outputs' prefix beside benchmark.json (no scratch path in a committed report)
    entry = bench.results.setdefault(
        (scheduler, engine, pinned), {"jobs": bench.nb_jobs, "prefix": prefix.name, "times_s": []}
    )
    entry["times_s"].append(wall)
    entry.setdefault("cpu_times_s", []).append(cpu)
    entry["wall_s"] = min(entry["times_s"])
    entry["cpu_s"] = min(entry["cpu_times_s"])
    entry["jobs_per_s"] = bench.nb_jobs / entry["wall_s"]
    print(
        f"round {round_}: {scheduler:>13} on {engine:>9} ({label(pinned)}): {wall:7.1f} s wall, "
        f"{cpu:7.1f} s CPU (load {load()})",
        flush=True,
    )


def ratios_of(bench: Bench) -> tuple[dict[str, Any], list[str]]:
    """Every engine against in-process, per scheduler and pinning, and the target; the failures."""
    results, pinnings = bench.results, bench.pinnings
    ratios: dict[str, Any] = {}
    failures: list[str] = []
    for pinned in pinnings:
        tag = f" ({label(pinned)})" if len(pinnings) > 1 else ""
        for scheduler in bench.schedulers:
            base = results.get((scheduler, "inprocess", pinned))
            for engine in ("zmq", "batsim"):
                other = results.get((scheduler, engine, pinned))
                if base is None or other is None:
                    continue
                ratios[f"{scheduler}: {engine} / inprocess (wall time){tag}"] = other["wall_s"] / base["wall_s"]
                ratios[f"{scheduler}: {engine} / inprocess (CPU time){tag}"] = other["cpu_s"] / base["cpu_s"]
                rows, differ = same_jobs(
                    bench.out / f"{other['prefix']}_jobs.csv", bench.out / f"{base['prefix']}_jobs.csv"
                )
                ratios[f"{scheduler}: jobs differing, {engine} vs inprocess (of {rows}){tag}"] = differ
                if differ and scheduler != "fillerSched":
                    failures.append(f"{scheduler}: {differ} jobs differ between {engine} and inprocess{tag}")
        if ("easy", "batsim", pinned) in results and ("easy", "inprocess", pinned) in results:
            real, ours = results[("easy", "batsim", pinned)], results[("easy", "inprocess", pinned)]
            speedup, rounds = real["wall_s"] / ours["wall_s"], per_round(real, ours)
            verdict = at_least(rounds, TARGET)
            ratios[f"target: in-process >= {TARGET:g}x real Batsim with easy{tag}"] = (
                f"{speedup:.2f}x (best of each); round by round {spread(rounds)}; {verdict}"
            )
            by_cpu = real["cpu_s"] / ours["cpu_s"]
            ratios[f"same target on CPU time (a busy machine's fair measure){tag}"] = (
                f"{by_cpu:.2f}x, {'met' if by_cpu >= TARGET else 'NOT met'}"
            )
            if verdict != "met in every round":
                failures.append(
                    f"in-process against real Batsim with easy{tag}: {verdict} ({spread(rounds)}; target {TARGET:g}x)"
                )
        elif not bench.batsim:
            ratios["target"] = "not checked: real Batsim " + ("skipped" if bench.args.no_batsim else "is not installed")
        if ("easy" + ENERGY, "inprocess", pinned) in results and ("easy", "inprocess", pinned) in results:
            powered, easy = results[("easy" + ENERGY, "inprocess", pinned)], results[("easy", "inprocess", pinned)]
            rounds = per_round_cpu(powered, easy)
            verdict = at_most(rounds, ENERGY_TARGET)
            cpu = powered["cpu_s"] / easy["cpu_s"]
            ratios[f"target: in-process easy --energy <= {ENERGY_TARGET:g}x easy, on CPU time{tag}"] = (
                f"{cpu:.2f}x (best of each); round by round {spread(rounds)}; {verdict}; on wall time "
                f"{powered['wall_s'] / easy['wall_s']:.2f}x (best of each), round by round "
                f"{spread(per_round(powered, easy))}"
            )
            if verdict != "met in every round":
                failures.append(f"easy --energy over easy in-process on CPU time{tag}: {verdict} ({spread(rounds)})")
        if ("conservative", "inprocess", pinned) in results and ("easy", "inprocess", pinned) in results:
            cons, easy = results[("conservative", "inprocess", pinned)], results[("easy", "inprocess", pinned)]
            rounds = per_round(cons, easy)
            verdict = at_most(rounds, CONSERVATIVE_TARGET)
            ratios[f"in-process conservative at most {CONSERVATIVE_TARGET:g}x easy{tag}"] = (
                f"{cons['wall_s'] / easy['wall_s']:.2f}x (best of each); round by round {spread(rounds)}; {verdict}"
            )
            if verdict != "met in every round":
                failures.append(f"conservative over easy in-process{tag}: {verdict} ({spread(rounds)})")
    return ratios, failures


def write_report(bench: Bench, final: bool) -> list[str]:
    """benchmark.md and benchmark.json from the results so far (README's section too when final)."""
    args, results = bench.args, bench.results
    pinning = ", ".join(label(p) for p in bench.pinnings)
    finished = datetime.datetime.now(datetime.timezone.utc)
    info = machine()
    lines = [
        f"Measured {bench.started:%Y-%m-%d %H:%M}-{finished:%H:%M} UTC on {info['host']} ({info['cpu']}, "
        f"{info['cpus']} CPUs, {info['system']}, Python {info['python']}); load average {bench.load_before} "
        f"before, {load()} after.",
        f"{bench.trace.name}, {bench.nb_jobs} jobs, {args.hosts} hosts; real Batsim: {bench.batsim_text}; "
        f"{pinning} (pinned: engine and scheduler on one CPU); "
        f"best of {args.repeat} interleaved round(s), each run a fresh `adaptsched run` process.",
        "",
        "| scheduler | engine | pinning | best wall (s) | jobs/s | CPU (s) | all runs, wall (s) | all runs, CPU (s) |",
        "|---|---|---|---:|---:|---:|---|---|",
    ]
    lines += [
        f"| {s} | {e} | {label(p)} | {r['wall_s']:.1f} | {r['jobs_per_s']:.0f} | {r['cpu_s']:.1f} | "
        + ", ".join(f"{t:.1f}" for t in r["times_s"])
        + " | "
        + ", ".join(f"{t:.1f}" for t in r["cpu_times_s"])
        + " |"
        for (s, e, p), r in results.items()
    ]
    ratios, failures = ratios_of(bench)
    lines += [""] + [f"- {k}: {v:.2f}" if isinstance(v, float) else f"- {k}: {v}" for k, v in ratios.items()]
    text = "\n".join(lines)
    if final:
        print(text)
    context = {
        "started": bench.started.isoformat(timespec="seconds"),
        "finished": finished.isoformat(timespec="seconds"),
        "machine": info,
        "load_before": bench.load_before,
        "load_after": load(),
        "trace": shown(bench.trace),
        "jobs": bench.nb_jobs,
        "hosts": args.hosts,
        "batsim": bench.batsim,
        "batsim_version": batsim_version(bench.batsim) if bench.batsim else None,
        "pinned": bench.pinnings,
        "repeat": args.repeat,
        "first": args.first,
        "no_batsim": args.no_batsim,
        "commit": commit(),
    }
    runs = {f"{s}/{e}/{label(p)}": {**r, "scheduler": s, "engine": e, "pinned": p} for (s, e, p), r in results.items()}
    document = {"context": context, "ratios": ratios, "runs": runs}
    (bench.out / "benchmark.md").write_text(text + "\n\n" + regenerated_by(document, bench.out) + "\n")
    (bench.out / "benchmark.json").write_text(json.dumps(document, indent=2))
    if final and args.readme:
        readme(document)
        print(f"rewritten: {README}")
    return failures


if __name__ == "__main__":
    sys.exit(main())
