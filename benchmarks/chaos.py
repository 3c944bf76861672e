"""A sweep under chaos: workers killed and replaced while it runs, one run that kills its worker.

    .venv/bin/python benchmarks/chaos.py [--runs 60] [--workers 3] [--kills 5] [--period 5]
                                         [--jobs N] [--seed N] [--out DIR]

The grid: ``--runs - 1`` runs of the ``backfill`` family (random order, one seed each) on the
first ``--jobs`` jobs of the committed CTC-SP2 excerpt (32 hosts), and one run of
``tests/plugins/killerSched.py`` with ``kill_worker = true``, which kills the Dask worker
running it. It runs twice:

1. **under chaos**, through ``adaptsched sweep --scheduler-file`` on a loopback cluster of
   separate processes (``dask scheduler`` and ``--workers`` ``dask worker`` processes, all on
   127.0.0.1, the scheduler with docs/sweeps.md's settings): once runs are coming back,
   every ``--period`` seconds a random worker (its nanny and process, all of it) is killed
   with SIGKILL and a new one started, ``--kills`` times;
2. **clean**, through ``adaptsched sweep --workers N`` (a LocalCluster).

The sweep must last long enough for every kill to fall in it: by default the number of jobs
per run is calibrated first (:func:`calibrate_jobs`: one run timed here, as loaded as the
machine is), for runs of about :data:`TARGET_RUN_S` seconds each, about 40 s of sweep on 3
workers, on an idle 2-core machine as on a loaded one.

Expected: every run but the killer done, each ``_jobs.csv`` byte-identical to the clean
sweep's, and exactly the killer failed, with its log. :func:`chaos` returns what happened
(tests/test_sweep_chaos.py asserts it); the command prints it and writes it as JSON. The
listening sockets of every process started here are sampled all along (``sockets``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
EXCERPT = REPO / "workloads" / "excerpts" / "CTC-SP2-1996-3.1-cln.first5000.swf.gz"
KILLER = REPO / "tests" / "plugins" / "killerSched.py"
#: docs/sweeps.md's scheduler settings (as adaptsched's own clusters have them)
#: a run's wall time, alone in this process, that calibrated runs take (about 2 s each in the sweep)
TARGET_RUN_S = 1.0
#: a hang guard only, per sweep: a sweep ends in minutes; on this shared 2-core machine at load
#: average 28 the clean sweep alone (its runs, then report.html and every run's explorer page)
#: took over 15 minutes
HANG_S = 2400
SCHEDULER_ENV = {
    "DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "1",
    "DASK_DISTRIBUTED__SCHEDULER__WORKER_SATURATION": "1.0",
}


def spec_text(runs: int, jobs: int) -> str:
    """The grid: the killer first (so that it runs, and dies, early), then runs - 1 seeds."""
    seeds = ", ".join(str(s) for s in range(1, runs))
    return f"""title = "chaos"
platforms = [32]

[[schedulers]]
name = "{KILLER}"
label = "killer"
options = {{ kill_worker = true }}

[[schedulers]]
name = "backfill"
options = {{ order = "R", seed = [{seeds}] }}

[[workloads]]
trace = "{EXCERPT}"
label = "ctc"
first = {jobs}
"""


def calibrate_jobs(folder: Path, target_s: float = TARGET_RUN_S) -> int:
    """The number of jobs for which one run of the grid takes about ``target_s`` here and now
    (a 400-job run timed after a warm-up run), between 300 and 4,000."""
    from adaptsched.engines.run import run
    from adaptsched.engines.run.spec import RunSpec
    from adaptsched.platforms.simgrid import write_cluster
    from adaptsched.workloads.convert import convert_swf, write_workload

    folder.mkdir(parents=True, exist_ok=True)
    platform = write_cluster(32, folder / "cluster32.xml")
    wall = 0.0
    for jobs in (50, 400):
        workload = write_workload(convert_swf(EXCERPT, hosts=32, first=jobs)[0], folder / f"w{jobs}.json")
        spec = RunSpec.make("backfill", workload, platform, folder / f"r{jobs}", options={"order": "R", "seed": 1})
        begin = time.perf_counter()
        run(spec, say=lambda *a: None)
        wall = time.perf_counter() - begin
    return max(300, min(4000, round(400 * target_s / wall)))


def _start(command: list[str], folder: Path, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    folder.mkdir(parents=True, exist_ok=True)
    log = open(folder / "log.txt", "ab")
    return subprocess.Popen(
        command,
        cwd=folder,
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,  # its own process group: killed whole, nanny and worker
        env=dict(os.environ, **(env or {})),
    )


def stop(process: subprocess.Popen[bytes]) -> None:
    """Kills a process started here and everything it started (its own session)."""
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    process.wait(timeout=60)


class Loopback:
    """A Dask cluster of separate processes on 127.0.0.1: ``dask scheduler`` and ``dask worker``s
    (one single-threaded worker each, with its nanny), each in its own folder under ``folder``."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.scheduler_file = folder / "scheduler" / "scheduler.json"
        self.processes: list[subprocess.Popen[bytes]] = []
        self.workers: list[subprocess.Popen[bytes]] = []
        self.folders: dict[int, Path] = {}  # worker pid -> its folder (its log)
        self.started = 0

    def start_scheduler(self) -> str:
        self.scheduler_file.unlink(missing_ok=True)  # docs/sweeps.md: remove it, then wait for it
        scheduler = _start(
            [str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", "0"]
            + ["--dashboard-address", "127.0.0.1:0", "--scheduler-file", str(self.scheduler_file)],
            self.folder / "scheduler",
            SCHEDULER_ENV,
        )
        self.processes.append(scheduler)
        for _ in range(1200):  # hang guard only: the file appears when the scheduler listens
            if self.scheduler_file.is_file() and self.scheduler_file.stat().st_size:
                break
            if scheduler.poll() is not None:
                raise RuntimeError((self.folder / "scheduler" / "log.txt").read_text())
            time.sleep(0.1)
        return str(json.loads(self.scheduler_file.read_text())["address"])

    def start_worker(self) -> subprocess.Popen[bytes]:
        self.started += 1
        folder = self.folder / f"worker{self.started}"
        worker = _start(
            [str(BIN / "dask"), "worker", "--scheduler-file", str(self.scheduler_file), "--host", "127.0.0.1"]
            + ["--nthreads", "1", "--nworkers", "1", "--dashboard-address", "127.0.0.1:0"]
            + ["--local-directory", str(folder / "dask"), "--name", f"w{self.started}"],
            folder,
        )
        self.workers.append(worker)
        self.processes.append(worker)
        self.folders[worker.pid] = folder
        return worker

    def registered(self, worker: subprocess.Popen[bytes]) -> bool:
        """Whether the worker's current process has registered with the scheduler (its log
        says so once per process its nanny started): a worker still starting, which the
        scheduler never saw, cannot be lost, so the chaos kills only registered ones."""
        log = self.folders[worker.pid] / "log.txt"
        text = log.read_text(errors="replace") if log.is_file() else ""
        return text.count("Registered to:") > text.count("was killed by signal")

    def kill_random_worker(self, rng: random.Random) -> int | None:
        """Kills a random registered worker (nanny and worker); None if none is registered yet."""
        alive = [w for w in self.workers if w.poll() is None and self.registered(w)]
        if not alive:
            return None
        victim = rng.choice(alive)
        stop(victim)
        self.workers.remove(victim)
        return victim.pid

    def close(self) -> None:
        for process in reversed(self.processes):
            stop(process)


def _done_runs(out: Path) -> int:
    runs = out / "runs"
    return len(list(runs.glob("*_result.json"))) if runs.is_dir() else 0


def chaos_sweep(
    spec: Path, out: Path, folder: Path, *, workers: int, kills: int, period_s: float, seed: int, watch: Any = None
) -> dict[str, Any]:
    """The sweep under chaos (module doc); ``watch(pids)``: called with the started processes'
    pids whenever they change (the socket sampler)."""
    rng = random.Random(seed)
    cluster = Loopback(folder)
    killed: list[dict[str, Any]] = []
    try:
        cluster.start_scheduler()
        for _ in range(workers):
            cluster.start_worker()
        command = [str(BIN / "adaptsched"), "sweep", str(spec), "--out", str(out)]
        command += ["--scheduler-file", str(cluster.scheduler_file), "--progress", "off"]
        begin = time.monotonic()
        sweep = _start(command, folder / "client")
        cluster.processes.append(sweep)
        if watch:
            watch([p.pid for p in cluster.processes])
        next_kill = None
        while sweep.poll() is None and time.monotonic() - begin < HANG_S:
            now = time.monotonic()
            if next_kill is None and _done_runs(out) >= 1:
                next_kill = now + period_s
            if next_kill is not None and now >= next_kill and len(killed) < kills:
                pid = cluster.kill_random_worker(rng)
                if pid is None:  # every worker is still starting (a loaded machine): next tick
                    time.sleep(0.1)
                    continue
                cluster.start_worker()
                if watch:
                    watch([p.pid for p in cluster.processes])
                killed.append({"pid": pid, "at_s": round(now - begin, 1), "runs_done": _done_runs(out)})
                next_kill = now + period_s
            time.sleep(0.1)
        if sweep.poll() is None:
            stop(sweep)
        log = (folder / "client" / "log.txt").read_text()
        return {"exit": sweep.returncode, "wall_s": time.monotonic() - begin, "killed": killed, "log": log}
    finally:
        cluster.close()


def clean_sweep(spec: Path, out: Path, workers: int) -> dict[str, Any]:
    begin = time.monotonic()
    command = [str(BIN / "adaptsched"), "sweep", str(spec), "--out", str(out), "--workers", str(workers)]
    done = subprocess.run(command + ["--progress", "off"], capture_output=True, text=True, timeout=HANG_S)
    return {"exit": done.returncode, "wall_s": time.monotonic() - begin, "log": done.stdout + done.stderr}


def compare(chaos_out: Path, clean_out: Path) -> dict[str, Any]:
    """Runs done in each, those whose ``_jobs.csv`` differ, and each sweep's ``runs.csv`` statuses."""

    def statuses(out: Path) -> dict[str, str]:
        rows = (out / "runs.csv").read_text().splitlines()[1:] if (out / "runs.csv").is_file() else []
        return {row.split(",")[0]: row.split(",")[1] for row in rows}

    chaos, clean = statuses(chaos_out), statuses(clean_out)
    same: list[str] = []
    differ: list[str] = []
    for name, status in chaos.items():
        if status != "done":
            continue
        a, b = chaos_out / "runs" / f"{name}_jobs.csv", clean_out / "runs" / f"{name}_jobs.csv"
        (same if b.is_file() and a.read_bytes() == b.read_bytes() else differ).append(name)
    return {"chaos": chaos, "clean": clean, "identical": len(same), "differ": differ}


def chaos(
    folder: Path,
    *,
    runs: int = 60,
    workers: int = 3,
    kills: int = 5,
    period_s: float = 5.0,
    jobs: int | None = None,
    seed: int | None = None,
    watch: Any = None,
) -> dict[str, Any]:
    """Both sweeps (module doc), in ``folder``; what happened."""
    folder.mkdir(parents=True, exist_ok=True)
    jobs = jobs or calibrate_jobs(folder / "calibration")
    spec = folder / "chaos.toml"
    spec.write_text(spec_text(runs, jobs))
    seed = seed if seed is not None else random.randrange(1 << 30)
    load_before = os.getloadavg()[0]
    under = chaos_sweep(
        spec,
        folder / "chaos",
        folder / "cluster",
        workers=workers,
        kills=kills,
        period_s=period_s,
        seed=seed,
        watch=watch,
    )
    clean = clean_sweep(spec, folder / "clean", workers)
    return {
        "seed": seed,
        "runs": runs,
        "jobs": jobs,
        "workers": workers,
        "load_before": load_before,
        "load_after": os.getloadavg()[0],
        "under_chaos": under,
        "clean": clean,
        "compare": compare(folder / "chaos", folder / "clean"),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--kills", type=int, default=5)
    parser.add_argument("--period", type=float, default=5.0, help="seconds between kills (default 5)")
    parser.add_argument("--jobs", type=int, help="jobs of the excerpt per run (default: calibrated)")
    parser.add_argument("--seed", type=int, help="which workers are killed (default: random)")
    parser.add_argument("--out", default=str(REPO / "results" / "benchmarks" / "chaos"))
    args = parser.parse_args(argv)
    folder = Path(args.out).resolve() / time.strftime("%Y%m%d-%H%M%S")
    report = chaos(
        folder,
        runs=args.runs,
        workers=args.workers,
        kills=args.kills,
        period_s=args.period,
        jobs=args.jobs,
        seed=args.seed,
    )
    statuses = report["compare"]["chaos"]
    failed = sorted(n for n, s in statuses.items() if s != "done")
    summary = [line for line in report["under_chaos"]["log"].splitlines() if line.startswith("sweep:")]
    print(
        f"under chaos: exit {report['under_chaos']['exit']}, {report['under_chaos']['wall_s']:.1f} s, "
        f"{len(report['under_chaos']['killed'])} workers killed; clean: {report['clean']['wall_s']:.1f} s"
    )
    print(
        f"{report['compare']['identical']} runs byte-identical to the clean sweep, differing: "
        f"{report['compare']['differ']}; not done: {failed}"
    )
    print("\n".join(summary))
    print(
        f"{report['jobs']} jobs per run; load average {report['load_before']:.1f} before, "
        f"{report['load_after']:.1f} after; seed {report['seed']}"
    )
    (folder / "report.json").write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
