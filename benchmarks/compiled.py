"""What a compiled build would buy: the embedded engine and ``core/`` compiled with mypyc, beside
this tree's pure Python, in the same run.

A compiled extension is acceptable only if it ships as registry wheels for CPython 3.10 to
3.13 on Linux and macOS, with the pure-Python path kept as the fallback. mypyc (shipped with
mypy, already a lint dependency) compiles this very source, type annotations and all, into C
extensions; the ``.py`` files stay beside them, so an install without the wheel runs the same
code in pure Python. This script measures what that build would give before anyone publishes it:

1. **Build.** It copies this tree's tracked files to ``--build`` (default ``OUT/build``, kept
   and reused: ``--rebuild`` builds again) as ``adaptsched/`` and compiles :data:`MODULES`
   (but :data:`INTERPRETED`) with ``python -m mypyc`` (about 3 minutes on 2 CPUs).
2. **Runs.** Each round runs every scheduler twice on the full CTC-SP2 year, as a user runs it
   (a fresh ``adaptsched run``, pinned to one CPU): once with this tree (pure), once with the
   compiled copy first on ``PYTHONPATH`` (an extension module is found before its ``.py``); the
   order alternates round by round. ``--batsim`` adds real Batsim with ``easy`` to each round.
3. **Checks.** Each compiled run's ``_jobs.csv`` and ``_machine_states.csv`` must be
   byte-identical to the pure run's; the script exits 1 otherwise (a compiled build that
   schedules differently is a wrong answer, whatever its speed).
4. **Report.** Per scheduler: both sides' wall and CPU time, compiled over pure round by round;
   the aim that ``conservative`` take at most 1.5x ``easy``'s time, on each side; with
   ``--batsim``, in-process ``easy`` against real Batsim (aim: 5x) on each side with ``--batsim``. Targets are
   judged as ``engines.py`` judges them (every round must meet them). ``compiled.md`` and
   ``compiled.json`` go to ``--out``.

The build stays in ``OUT/build`` (a ``shared`` link beside it finds the traces as from the
repository): ``PYTHONPATH=OUT/build .venv/bin/python benchmarks/breakdown.py`` (or ``throughput.py``)
measures the compiled build with any in-process benchmark.

The source compiles as it is. Where mypyc and pure Python part ways, the source was written
so that both work (docs/engines.md, "a compiled build"): a scheduler reads its own options
through ``opt.narrow`` (mypyc gives an attribute one type in a class and all its subclasses);
options classes stay Python classes (their metaclass, ``OptionsClass``, in the interpreted
``core/options.py``); constructors pass ``options`` on by position (mypyc mis-forwards
``**kwargs`` to a function with a defaulted parameter, mypyc/mypyc#1162).

``--tests`` runs the fast test tier against the build instead of timing it.

    .venv/bin/python benchmarks/compiled.py [--schedulers easy,conservative] [--repeat 3]
        [--first N] [--batsim [PATH]] [--out DIR] [--rebuild] [--tests]
"""

from __future__ import annotations

import argparse
import datetime
import filecmp
import importlib.util
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from baseline import commit, load  # benchmarks/baseline.py, beside this script

from adaptsched.engines.real import batsim_version, find_batsim
from adaptsched.platforms.simgrid import write_cluster
from adaptsched.workloads.convert import convert_swf, write_workload
from adaptsched.workloads.traces import SHARED_TRACES, shared_trace

REPO = Path(__file__).resolve().parent.parent
# benchmarks/engines.py's verdicts, loaded by path: as a module, "engines" is adaptsched's engines/
_spec = importlib.util.spec_from_file_location("engines_benchmark", Path(__file__).with_name("engines.py"))
assert _spec is not None and _spec.loader is not None
_engines: Any = sys.modules.setdefault("engines_benchmark", importlib.util.module_from_spec(_spec))
_spec.loader.exec_module(_engines)
CONSERVATIVE_TARGET, TARGET = _engines.CONSERVATIVE_TARGET, _engines.TARGET
machine, shown, per_round, spread = _engines.machine, _engines.shown, _engines.per_round, _engines.spread
at_least, at_most = _engines.at_least, _engines.at_most
DEFAULT_TRACE = shared_trace("CTC-SP2")
# what is compiled, and what stays interpreted: setup.py's lists (its compiled build), loaded
# by path (it builds only when run as a script)
_setup_spec = importlib.util.spec_from_file_location("adaptsched_setup", REPO / "setup.py")
assert _setup_spec is not None and _setup_spec.loader is not None
_setup: Any = importlib.util.module_from_spec(_setup_spec)
_setup_spec.loader.exec_module(_setup)
MODULES, INTERPRETED = _setup.COMPILED, _setup.INTERPRETED
OUTPUTS = ("_jobs.csv", "_machine_states.csv")  # compared byte for byte (no wall-clock column)


def build(where: Path, rebuild: bool) -> float:
    """Compiles the copy under ``where`` (module doc, step 1); returns the seconds it took (0: reused)."""
    tree = where / "adaptsched"
    stamp = where / "built-from"
    code = commit()  # "+": uncommitted changes, which a stamp cannot tell apart: built again
    if not rebuild and not code.endswith("+") and stamp.is_file() and stamp.read_text() == code:
        return 0.0
    start = time.perf_counter()
    if where.exists() and any(where.iterdir()) and not (stamp.exists() or tree.exists()):
        sys.exit(f"benchmarks/compiled.py: --build {where} holds other files: name an empty or new folder")
    shutil.rmtree(where, ignore_errors=True)
    tree.mkdir(parents=True)
    files = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z"], capture_output=True, check=True).stdout
    packed = subprocess.run(["tar", "--null", "-T", "-", "-c"], input=files, cwd=REPO, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(tree)], input=packed.stdout, check=True)
    if SHARED_TRACES.parent.is_dir():  # the traces, where the package looks for them (../shared)
        (where / "shared").symlink_to(os.path.abspath(SHARED_TRACES.parent))
    (where / "mypy.ini").write_text("[mypy]\nignore_missing_imports = True\n")
    sources = [str(path.relative_to(where)) for path in _setup.compiled_modules(tree)]
    done = subprocess.run(
        [sys.executable, "-m", "mypyc", "--config-file", "mypy.ini", *sources],
        cwd=where,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        sys.exit(f"benchmarks/compiled.py: mypyc failed in {where}:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
    stamp.write_text(code)
    return time.perf_counter() - start


def run_once(
    side: str, scheduler: str, compiled: Path, workload: Path, platform: Path, out: Path, batsim: str = ""
) -> dict:
    """One fresh ``adaptsched run``: its wall and CPU time (``side``: pure, compiled or batsim)."""
    command = [sys.executable, "-m", "adaptsched", "run", "--scheduler", scheduler, "--workload", str(workload)]
    command += ["--platform", str(platform), "--out", str(out / f"{scheduler}_{side}"), "--progress", "off"]
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if side == "compiled":
        env["PYTHONPATH"] = str(compiled)
    elif side == "batsim":
        command += ["--engine", "batsim", "--batsim", batsim]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{done.stderr}")
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return {"wall_s": wall, "cpu_s": cpu}


def report(doc: dict) -> str:
    """compiled.md: the runs, the round-by-round ratios and the targets on each side."""
    runs = doc["runs"]
    lines = [
        "# A compiled build (mypyc) beside pure Python (benchmarks/compiled.py)",
        "",
        f"{doc['started']} to {doc['finished']}, commit {doc['commit']}, {doc['machine']['cpu']} "
        f"({doc['machine']['cpus']} CPUs), load average {doc['load_before']} before; "
        f"{doc['jobs']} jobs of `{doc['trace']}` on {doc['hosts']} hosts, {doc['rounds']} rounds; "
        f"compiled: {', '.join(MODULES)} (build {doc['build_s']:.0f} s, 0: reused).",
        "",
        "| scheduler | side | wall (s), round by round | CPU (s), best | compiled / pure, round by round | outputs |",
        "|---|---|---|---:|---|---|",
    ]
    for scheduler, sides in runs.items():
        for side, entries in sides.items():
            walls = [e["wall_s"] for e in entries]
            ratio = ""
            if side == "compiled":
                ratio = spread(per_round({"times_s": walls}, {"times_s": [e["wall_s"] for e in sides["pure"]]}))
            same = doc["identical"].get(scheduler, "") if side == "compiled" else ""
            cpu = min(e["cpu_s"] for e in entries)
            lines.append(
                f"| `{scheduler}` | {side} | {', '.join(f'{w:.1f}' for w in walls)} | {cpu:.1f} | {ratio} | {same} |"
            )
    lines += ["", "The aims on each side (judged round by round, as `engines.py` does):", ""]
    lines += [f"- {name}: {verdict}" for name, verdict in doc["targets"].items()]
    return "\n".join(lines) + "\n"


def run_tests(where: Path, log: Path) -> int:
    """The fast tier (README's test command without the slow tests) run in the build, the
    compiled modules first on the path: what a wheel's CI would run. The log goes to ``log``."""
    env = dict(os.environ, PYTHONPATH=str(where))
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "auto"]
    command += ["--hypothesis-profile=ci", "-m", "not slow", "tests"]
    print(f"running the fast tier against the build ({' '.join(command[2:])}), log in {log}...", flush=True)
    with log.open("w") as handle:
        done = subprocess.run(command, cwd=where / "adaptsched", env=env, stdout=handle, stderr=subprocess.STDOUT)
    print(log.read_text().rstrip().splitlines()[-1])
    return done.returncode


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trace", default=str(DEFAULT_TRACE))
    parser.add_argument("--hosts", type=int, default=338)
    parser.add_argument("--first", type=int, help="only the first N jobs (quick check)")
    parser.add_argument("--schedulers", default="easy,conservative")
    parser.add_argument("--repeat", type=int, default=3, help="rounds (%(default)s)")
    parser.add_argument("--batsim", nargs="?", const="", help="add real Batsim with easy to each round")
    parser.add_argument("--out", default=str(REPO / "results" / "benchmarks" / "compiled"))
    parser.add_argument("--build", help="where the compiled copy is built and kept (default: OUT/build)")
    parser.add_argument("--rebuild", action="store_true", help="build again even if OUT/build is this commit's")
    parser.add_argument(
        "--tests",
        action="store_true",
        help="instead of timing: run the fast test tier against the build (OUT/tests.txt); exit as pytest does",
    )
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    trace = Path(args.trace)
    if not trace.is_file():
        sys.exit(f"benchmarks/compiled.py: no trace {trace} (pass --trace)")
    batsim = None
    if args.batsim is not None:
        batsim = find_batsim(args.batsim or None)
        if not batsim:
            sys.exit("benchmarks/compiled.py: --batsim: real Batsim is not installed ($BATSIM, PATH or --batsim PATH)")
    started = datetime.datetime.now(datetime.timezone.utc)
    load_before = load()
    where = Path(args.build) if args.build else out / "build"
    print(f"building the compiled copy in {where} (mypyc: {', '.join(MODULES)})...", flush=True)
    build_s = build(where, args.rebuild)
    if args.tests:
        return run_tests(where, out / "tests.txt")
    workload, _ = convert_swf(trace, hosts=args.hosts, first=args.first)
    inputs = (
        write_workload(workload, out / "workload.json"),
        write_cluster(args.hosts, out / f"cluster{args.hosts}.xml"),
    )
    runs, identical = run_rounds(args, where, inputs, out, batsim)
    doc = {
        "started": started.strftime("%Y-%m-%d %H:%M UTC"),
        "finished": datetime.datetime.now(datetime.timezone.utc).strftime("%H:%M UTC"),
        "commit": commit(),
        "machine": machine(),
        "load_before": load_before,
        "trace": shown(trace),
        "jobs": len(workload["jobs"]),
        "hosts": args.hosts,
        "rounds": args.repeat,
        "build_s": build_s,
        "batsim": f"{batsim} ({batsim_version(batsim)})" if batsim else None,
        "runs": runs,
        "identical": identical,
        "targets": verdicts(runs, batsim is not None),
    }
    (out / "compiled.json").write_text(json.dumps(doc, indent=1) + "\n")
    text = report(doc)
    (out / "compiled.md").write_text(text)
    print(text)
    print(f"written: {out / 'compiled.md'}")
    wrong = [s for s, verdict in identical.items() if verdict != "byte-identical"]
    if wrong:
        print(f"FAILED: the compiled build's outputs differ from pure Python's: {', '.join(wrong)}", file=sys.stderr)
        return 1
    return 0


def run_rounds(
    args: argparse.Namespace, where: Path, inputs: tuple[Path, Path], out: Path, batsim: str | None
) -> tuple[dict[str, dict[str, list[dict]]], dict[str, str]]:
    """Every round's runs, each scheduler pure and compiled in alternating order (and real Batsim
    with ``easy``), and per scheduler whether the compiled outputs are the pure ones' bytes."""
    workload_path, platform_path = inputs
    schedulers = args.schedulers.split(",")
    runs: dict[str, dict[str, list[dict]]] = {s: {"pure": [], "compiled": []} for s in schedulers}
    if batsim:
        runs.setdefault("easy", {"pure": [], "compiled": []})["batsim"] = []
    identical: dict[str, str] = {}
    for round_ in range(1, args.repeat + 1):
        for scheduler in schedulers:
            sides = ["pure", "compiled"] if round_ % 2 else ["compiled", "pure"]
            for side in sides:
                timing = run_once(side, scheduler, where, workload_path, platform_path, out)
                runs[scheduler][side].append(timing)
                print(
                    f"round {round_}: {scheduler:>12} {side:>8}: {timing['wall_s']:6.1f} s wall, "
                    f"{timing['cpu_s']:6.1f} s CPU (load {load()})",
                    flush=True,
                )
            differ = [
                o
                for o in OUTPUTS
                if not filecmp.cmp(out / f"{scheduler}_pure{o}", out / f"{scheduler}_compiled{o}", shallow=False)
            ]
            if differ or scheduler not in identical:
                identical[scheduler] = f"differ: {', '.join(differ)}" if differ else "byte-identical"
        if batsim:
            timing = run_once("batsim", "easy", where, workload_path, platform_path, out, batsim)
            runs["easy"]["batsim"].append(timing)
            print(
                f"round {round_}: {'easy':>12} {'batsim':>8}: {timing['wall_s']:6.1f} s wall (load {load()})",
                flush=True,
            )
    return runs, identical


def verdicts(runs: dict[str, dict[str, list[dict]]], batsim: bool) -> dict[str, str]:
    """The targets on each side, judged round by round as ``engines.py`` judges them."""
    times = {
        s: {side: {"times_s": [e["wall_s"] for e in entries]} for side, entries in sides.items()}
        for s, sides in runs.items()
    }
    targets: dict[str, str] = {}
    for side in ("pure", "compiled"):
        if "conservative" in times and "easy" in times:
            rounds = per_round(times["conservative"][side], times["easy"][side])
            targets[f"target 3, {side}: conservative <= {CONSERVATIVE_TARGET:g}x easy"] = (
                f"{spread(rounds)}: {at_most(rounds, CONSERVATIVE_TARGET)}"
            )
        if batsim:
            rounds = per_round(times["easy"]["batsim"], times["easy"][side])
            targets[f"target 2, {side}: in-process easy >= {TARGET:g}x real Batsim"] = (
                f"{spread(rounds)}: {at_least(rounds, TARGET)}"
            )
    return targets


if __name__ == "__main__":
    sys.exit(main())
