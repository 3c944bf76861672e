"""The scheduler alone, A/B: replays the recorded calls of one in-process run against the
scheduler code of two commits, with every pass's decisions checked.

``record`` runs ``adaptsched run`` in this process (the embedded engine, in-process) and
writes every call the pybatsim adapter makes to the pure scheduler (submissions,
completions, scheduling passes, with their simulated times) and each pass's decisions to a
file. ``ab`` replays that file against the code of two commits (each from a ``git archive``
of it, imported through ``PYTHONPATH`` by this checkout's interpreter, as
``benchmarks/identity.py`` does), alternating sides round after round, each replay in a
fresh process. A replay times only the calls (process CPU time: no engine, no pybatsim, no
loading), then compares every pass's decisions (starts with their hosts, launches, kills,
rejects, metadata, wake-ups) with the recorded ones and fails on the first difference.

    .venv/bin/python benchmarks/scheduler_replay.py record --scheduler conservative \\
        --workload ctc.json --platform 338 --calls ctc_conservative.calls
    .venv/bin/python benchmarks/scheduler_replay.py ab --calls ctc_conservative.calls \\
        --base 32c4a51 [--head HEAD] [--rounds 3] [--first 30000]

The calls are replayed as the engine made them, so a side whose decisions differ is
reported (and stops there) rather than timed on a different schedule.
"""

from __future__ import annotations

import argparse
import gc
import gzip
import importlib
import json
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SUBMIT, COMPLETE, PASS = 0, 1, 2


def normal(decisions: Any) -> tuple:
    """A pass's decisions as plain values (comparable across checkouts)."""
    return (
        [(job_id, tuple(hosts)) for job_id, hosts in decisions.starts],
        [
            (x.copy_id, x.parent_id, x.res, x.walltime_s, tuple(x.hosts), x.kind, x.scale, x.runtime_s, x.metadata)
            for x in decisions.launches
        ],
        list(decisions.kills),
        list(decisions.rejects),
        sorted((job_id, sorted(values.items())) for job_id, values in decisions.metadata.items()),
        list(decisions.wake_ups),
    )


class Recorder:
    """Stands for the pure scheduler in the adapter: forwards every call, logs it."""

    def __init__(self, core: Any, log: list):
        self._core, self._log = core, log

    def __getattr__(self, name: str) -> Any:
        return getattr(self._core, name)

    def submit(self, job: Any, now: float) -> None:
        self._log.append((SUBMIT, now, (job.id, job.submit_s, job.res, job.walltime_s, job.fields)))
        self._core.submit(job, now)

    def complete(self, job_id: str, now: float, state: str = "COMPLETED_SUCCESSFULLY") -> None:
        self._log.append((COMPLETE, now, (job_id, state)))
        self._core.complete(job_id, now, state)

    def schedule(self, now: float) -> Any:
        decisions = self._core.schedule(now)
        self._log.append((PASS, now, normal(decisions)))
        return decisions


def record(args: argparse.Namespace) -> int:
    from adaptsched.cli import main as cli
    from adaptsched.schedulers.adapter import PlannerScheduler

    log: list = []
    header: dict[str, Any] = {}
    begins = PlannerScheduler.onSimulationBegins

    def recording(self: Any) -> None:
        begins(self)
        core = self.core
        header.update(
            module=type(core).__module__,
            cls=type(core).__qualname__,
            nb_hosts=core.nb_hosts,
            options=core.options.values(),
        )
        self.core = Recorder(core, log)

    PlannerScheduler.onSimulationBegins = recording  # type: ignore[method-assign]
    with tempfile.TemporaryDirectory() as out:
        argv = ["run", "--scheduler", args.scheduler, "--workload", args.workload, "--platform", args.platform]
        argv += ["--out", f"{out}/run", "--no-pin", *[x for o in args.option for x in ("--option", o)]]
        status = cli(argv)
    if status:
        return status
    with gzip.open(args.calls, "wb") as handle:
        pickle.dump((header, log), handle, protocol=pickle.HIGHEST_PROTOCOL)
    passes = sum(1 for kind, _, _ in log if kind == PASS)
    print(f"wrote {args.calls}: {len(log)} calls, {passes} passes ({header['module']}.{header['cls']})")
    return 0


def side(args: argparse.Namespace) -> int:
    """One replay, in this process (``PYTHONPATH`` picks the checkout): prints a JSON line."""
    from adaptsched.core.job import Job

    # The garbage collector as in a run: the workload frozen, the youngest generation collected every
    # 100,000 allocations (engines/embedded/batsim.py). With Python's defaults, collections that walk
    # the calls took 2.3 s of conservative's 7.7 s on CTC's year (0.3 s in a real run). Done with gc
    # itself, not adaptsched's helpers: the side replayed may be a commit older than them.
    gc.disable()
    with gzip.open(args.calls, "rb") as handle:
        header, log = pickle.load(handle)
    if args.first:
        log = log[: args.first]

    cls = getattr(importlib.import_module(header["module"]), header["cls"])
    scheduler = cls(header["nb_hosts"], options=cls.Options.parse(header["options"]))
    calls = replayed(log, Job)
    gc.freeze()
    gc.enable()
    submit, complete, schedule = scheduler.submit, scheduler.complete, scheduler.schedule
    made = []
    threshold = gc.get_threshold()
    gc.set_threshold(max(threshold[0], 100_000), *threshold[1:])
    begin = time.process_time()
    for kind, now, what in calls:
        if kind == SUBMIT:
            submit(what, now)
        elif kind == COMPLETE:
            complete(what[0], now, what[1])
        else:
            made.append(schedule(now))
    cpu = time.process_time() - begin
    gc.set_threshold(*threshold)
    expected = [(now, what) for kind, now, what in log if kind == PASS]
    differ = None
    for k, ((now, want), got) in enumerate(zip(expected, made)):
        if normal(got) != want:
            differ = f"pass {k} at t={now}: {normal(got)} != {want}"
            break
    print(json.dumps({"cpu_s": cpu, "passes": len(made), "differ": differ}))
    return 0


def replayed(log: list, Job: Any) -> list[tuple[int, float, Any]]:
    """The recorded calls with their jobs made again (as the adapter makes them)."""
    calls: list[tuple[int, float, Any]] = []
    for kind, now, what in log:
        if kind == SUBMIT:
            job_id, submit_s, res, walltime_s, fields = what
            calls.append((kind, now, Job(job_id, submit_s, res, walltime_s, fields)))
        elif kind == COMPLETE:
            calls.append((kind, now, what))
        else:
            calls.append((kind, now, None))
    return calls


def tree(rev: str, where: Path) -> tuple[str, Path]:
    """A folder whose ``adaptsched`` is a ``git archive`` of ``rev``, or links to the checkout
    ``rev`` when it is a folder (uncommitted work, while iterating)."""
    if Path(rev).is_dir():
        path = where / f"work{sum(1 for _ in where.glob('work*'))}"  # one each: both sides may be folders
        path.mkdir()
        (path / "adaptsched").symlink_to(Path(rev).resolve())
        return "worktree", path
    sha = subprocess.run(["git", "-C", str(REPO), "rev-parse", rev], capture_output=True, text=True, check=True)
    sha_text = sha.stdout.strip()
    path = where / sha_text[:10]
    if not (path / "adaptsched").exists():
        (path / "adaptsched").mkdir(parents=True)
        archive = subprocess.run(["git", "-C", str(REPO), "archive", sha_text], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(path / "adaptsched")], input=archive.stdout, check=True)
    return sha_text, path


def ab(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="scheduler_replay_") as where:  # the archives, removed after
        return alternate(args, Path(where))


def alternate(args: argparse.Namespace, where: Path) -> int:
    sides = [("base", *tree(args.base, where)), ("head", *tree(args.head, where))]
    cpu: dict[str, list[float]] = {"base": [], "head": []}
    failed = False
    for round_ in range(args.rounds):
        for label, sha, path in sides if round_ % 2 == 0 else sides[::-1]:
            argv = [sys.executable, __file__, "_side", "--calls", args.calls, "--first", str(args.first or 0)]
            done = subprocess.run(argv, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(path)})
            if done.returncode:
                print(f"{label} ({sha[:7]}) failed: {done.stderr.strip()[-600:]}")
                return 1
            result = json.loads(done.stdout.strip().splitlines()[-1])
            cpu[label].append(result["cpu_s"])
            load = os.getloadavg()[0]
            verdict = "same decisions" if result["differ"] is None else f"DIFFERENT: {result['differ'][:400]}"
            failed |= result["differ"] is not None
            print(
                f"round {round_ + 1} {label} ({sha[:7]}): {result['cpu_s']:.2f} s CPU, "
                f"{result['passes']} passes, {verdict}, load {load:.1f}",
                flush=True,
            )
    base, head = statistics.median(cpu["base"]), statistics.median(cpu["head"])
    print(f"median CPU: base {base:.2f} s, head {head:.2f} s, head/base {head / base:.3f} ({head / base - 1:+.1%})")
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    rec = commands.add_parser("record", help="run once in-process and write the scheduler's calls")
    rec.add_argument("--scheduler", default="conservative")
    rec.add_argument("--workload", required=True)
    rec.add_argument("--platform", required=True)
    rec.add_argument("--option", action="append", default=[], help="NAME=VALUE, as `adaptsched run`")
    rec.add_argument("--calls", required=True, help="the file to write (pickle, gzip)")
    rep = commands.add_parser("ab", help="replay the calls against two commits, alternating")
    rep.add_argument("--calls", required=True)
    rep.add_argument("--base", required=True)
    rep.add_argument("--head", default="HEAD", help="a commit, or a checkout's folder")
    rep.add_argument("--rounds", type=int, default=2)
    rep.add_argument("--first", type=int, default=0, help="only the first N calls")
    one = commands.add_parser("_side")  # one replay, in a fresh process
    one.add_argument("--calls", required=True)
    one.add_argument("--first", type=int, default=0)
    args = parser.parse_args(argv)
    return {"record": record, "ab": ab, "_side": side}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
