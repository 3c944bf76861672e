"""Scale: jobs/s and peak memory of the embedded engine at 10k to 300k jobs, on 1,024 and 100,000 hosts.

For each number of hosts and of jobs it generates a Lublin-Feitelson
trace (``adaptsched generate lublin --hosts H --jobs N --aarr A``: job sizes follow the
machine, UHi = log2 H, so on 100,000 hosts the mean job is about 6,000 hosts wide and the
widest about 99,000), then runs each scheduler on it with the embedded engine (in-process,
the default) as a fresh ``adaptsched run`` process, and records wall time, CPU time
(user + system) and peak resident memory (``ru_maxrss`` of that process, from ``wait4``).

    .venv/bin/python benchmarks/scale.py [--sizes 10000,100000,300000] [--hosts 1024,100000]
        [--schedulers easy,conservative] [--aarr 10.6] [--cases overloaded,high-load] [--merge] [--timeout S]
        [--base COMMIT]

Beside the grid, two deep-queue cases, in the same table (``--cases ''`` skips
them, ``--sizes ''`` skips the grid):

- ``overloaded``: ``generate lublin --jobs 10000 --hosts 1024 --aarr 9.9 --seed 3``, an
  offered load of 1.145: the queue grows all run long (hundreds of waiting jobs at the end);
- ``high-load``: ``generate lublin --jobs 200000 --hosts 8192 --aarr 10.3 --seed 0``, an
  offered load of about 0.98 on 8,192 hosts: a backlog that comes and goes for weeks;
- ``narrow-backlog``: 120,000 jobs of RICC-2010-2's shape on 8,192 hosts (:func:`narrow_trace`):
  mostly one-host jobs whose runtimes are a small share of their walltimes, in bursts, so that
  thousands wait and every early completion moves hundreds of reservations (Lublin's jobs end
  at their walltime less a second: they move few);
- ``ricc``: the archive trace itself, ``convert RICC-2010-2.swf.gz --hosts 8192`` (447,784
  jobs), when it is in ../shared/traces (else skipped, and said).

For these cases each row also gives the throughput over the run (jobs per CPU second in each
tenth of the jobs, read from the growing ``_jobs.csv`` and the process's CPU clock; the first
tenth includes loading) and the schedule's invariant violations
(:func:`adaptsched.analysis.invariants.run_violations`: no host used twice, no start before
submission, no job later than its first reservation...).

Writes ``scale.md`` and ``scale.json`` to ``--report`` (default docs/results/engines/),
rewritten after every case so that what is measured is on disk; run outputs go to ``--out``.
Each row carries the commit it was measured at: with ``--merge`` the rows already in
``scale.json`` are kept (re-read at each write, so two runs can share a report; a case
measured again at the same commit replaces its row), so a grid too long for one sitting can
be measured in parts, and before/after rows of an optimisation sit in one table.

``--base COMMIT`` (no row slower than before): each case is run first with
the code of COMMIT (``git archive`` under ``--out``, first on the child's ``PYTHONPATH``), on the
same trace, then with this tree's, so that each pair meets the same machine; the report then
gives each pair's CPU time, this tree over the base, and calls a row slower only beyond
``NOISE`` (rows measured hours apart, or on another VM, are not compared: a VM's speed here
moves by more than the changes measured).

Arrival rate: the model's own AARR (10.23) offers a load of 1.05 on 1,024 hosts, more than
the machine can do: the queue then grows without bound, and every backfilling scheduler's
cost per job grows with the queue, which says nothing about the engine. ``--aarr 10.6``
(the default here) offers 0.82 on 1,024 hosts and 0.68 on 100,000 (the same arrivals; the
wider machine's jobs are wider but relatively shorter). ``--aarr model`` keeps the model's.

Targets: jobs/s at 300k jobs within 20% of jobs/s at 10k (time linear in jobs);
a job's cost independent of its width (jobs/s on 100,000 hosts close to 1,024 hosts);
conservative on 300k jobs in under 10 minutes; peak memory under 2 GB at 300k jobs. The
report states how each was met on the rows measured. This machine is shared: the load
average at the start of each case is in its row, and CPU time is the fairer measure.
"""

from __future__ import annotations

import argparse
import datetime
import filecmp
import itertools
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

from baseline import code_of, commit, load  # benchmarks/baseline.py, beside this script

from adaptsched.workloads.traces import SHARED_TRACES

REPO = Path(__file__).resolve().parent.parent
SIZES = (10_000, 100_000, 300_000)
HOSTS = (1024, 100_000)
SCHEDULERS = ("easy", "conservative")
DEFAULT_AARR = "10.6"
MAX_RATIO = 0.20  # jobs/s at 300k within 20% of jobs/s at 10k
CONSERVATIVE_300K_S = 600.0
#: Deep-queue cases beside the grid: name -> (hosts, jobs, aarr, seed).
CASES = {
    "overloaded": (1024, 10_000, "9.9", 3),
    "high-load": (8192, 200_000, "10.3", 0),
}
#: Generated cases of another shape than Lublin-Feitelson's (:func:`narrow_trace`): name -> (hosts, jobs, seed).
NARROW_CASES = {"narrow-backlog": (8192, 120_000, 0)}
#: The archive case (run when the trace is in ../shared/traces): name -> (file, hosts).
ARCHIVE_CASES = {"ricc": ("RICC-2010-2.swf.gz", 8192)}
TRACES = SHARED_TRACES
#: RICC-2010-2's 24 most common (hosts, walltime in s) pairs and their shares of its 447,784 jobs (87.6 %).
NARROW_PAIRS = [
    (1, 259200, 0.3909), (1, 7200, 0.1236), (1, 43200, 0.0834), (1, 18000, 0.039), (32, 259200, 0.0341),
    (1, 3600, 0.0261), (1, 28800, 0.0236), (32, 14400, 0.0198), (1, 900, 0.0186), (1, 86400, 0.0162),
    (16, 259200, 0.0158), (1, 14400, 0.0128), (1, 255600, 0.0123), (8, 21600, 0.0119), (8, 259200, 0.0098),
    (8, 36000, 0.0054), (1, 72000, 0.0052), (1, 21600, 0.0048), (8, 43200, 0.0044), (8, 10800, 0.0039),
    (128, 86400, 0.0038), (4, 172800, 0.0036), (32, 3600, 0.0033), (4, 43200, 0.0032),
]  # fmt: skip
#: RICC-2010-2's runtime / walltime: its quantiles (share of jobs, ratio); interpolated in log space.
NARROW_RATIO = [(0.0, 1e-4), (0.1, 0.001), (0.25, 0.004), (0.5, 0.017), (0.75, 0.08), (0.9, 0.42), (1.0, 1.0)]
MEMORY_300K_MB = 2048.0
#: With --base: a row is called slower than its base only when its CPU time exceeds the base's by more
#: than this fraction (two runs of one case, one after the other, differ by up to about that here).
NOISE = 0.10


def cpu_model() -> str:
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "?"


def trace_for(traces: Path, hosts: int, jobs: int, aarr: str, seed: int) -> Path:
    """The generated trace (cached in ``traces``: same options, same bytes)."""
    path = traces / f"lublin_h{hosts}_n{jobs}_a{aarr}_s{seed}.json"
    if not path.is_file():
        command = [sys.executable, "-m", "adaptsched", "generate", "lublin", str(path)]
        command += ["--hosts", str(hosts), "--jobs", str(jobs), "--seed", str(seed)]
        if aarr != "model":
            command += ["--aarr", aarr]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"{' '.join(command)} failed:\n{done.stderr}")
        print(done.stdout.strip() or done.stderr.strip(), flush=True)
    return path


def narrow_trace(path: Path, hosts: int, jobs: int, seed: int) -> Path:
    """A workload of RICC-2010-2's shape, a deep queue of narrow jobs (docs/engines.md, "Where it
    is slow"), written as Batsim JSON: its (hosts, walltime) pairs
    (:data:`NARROW_PAIRS`, the rest of the jobs 2 to 256 hosts wide with walltimes of 1 h to
    3 days), runtimes a small share of walltimes (:data:`NARROW_RATIO`: median 1.7 %), so that
    nearly every completion is early, and arrivals in batches of jobs of one shape (mean 20, as
    the archive's job arrays) whose daily offered load is log-normal around RICC's (median 0.64,
    one day in ten above 1.6): a backlog of thousands of narrow jobs that builds on busy days."""
    import numpy as np

    rng = np.random.default_rng(seed)
    shares = np.array([share for _, _, share in NARROW_PAIRS])
    wide = [(w, t) for w in (2, 16, 64, 128, 256) for t in (3600, 43200, 86400, 259200)]  # mean width 16 in all
    shapes = [(n, t) for n, t, _ in NARROW_PAIRS] + wide
    weights = np.concatenate([shares, np.full(len(wide), (1 - shares.sum()) / len(wide))])
    cuts, ratios = zip(*NARROW_RATIO)
    rows: list[tuple[int, int, int, int]] = []
    day = 0
    while len(rows) < jobs:
        budget = hosts * 86400.0 * rng.lognormal(np.log(0.64), 0.725)  # host-seconds offered that day
        while budget > 0 and len(rows) < jobs:
            n, walltime = shapes[rng.choice(len(shapes), p=weights)]
            at = day * 86400.0 + rng.uniform(0, 86400)
            for k in range(min(int(rng.geometric(1 / 20)), jobs - len(rows))):
                ratio = float(np.exp(np.interp(rng.uniform(), cuts, np.log(ratios))))
                runtime = max(1, round(walltime * ratio))
                rows.append((int(at) + k, n, walltime, runtime))
                budget -= n * runtime
        day += 1
    rows.sort()
    workload = {
        "nb_res": hosts,
        "description": f"benchmarks/scale.py narrow_trace(hosts={hosts}, jobs={jobs}, seed={seed})",
        "profiles": {f"delay_{r}": {"type": "delay", "delay": r} for r in sorted({row[3] for row in rows})},
        "jobs": [
            {"id": i + 1, "subtime": t, "res": n, "walltime": w, "profile": f"delay_{r}"}
            for i, (t, n, w, r) in enumerate(rows)
        ],
    }
    path.write_text(json.dumps(workload))
    return path


def archive_trace(traces: Path, name: str) -> Path | None:
    """The archive case's trace converted to Batsim JSON (cached), or None if the archive is absent."""
    swf, hosts = ARCHIVE_CASES[name]
    if not (TRACES / swf).is_file():
        return None
    path = traces / f"{name}_h{hosts}.json"
    if not path.is_file():
        command = [sys.executable, "-m", "adaptsched", "convert", str(TRACES / swf), str(path), "--hosts", str(hosts)]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"{' '.join(command)} failed:\n{done.stderr}")
    return path


class Progress:
    """Samples a running ``adaptsched run``: rows of its ``_jobs.csv`` (one a job) against the
    process's CPU time (``/proc/PID/stat``: user + system), to give jobs per CPU second in each
    tenth of the jobs."""

    def __init__(self, pid: int, jobs_csv: Path, jobs: int):
        self.pid, self.jobs_csv, self.jobs = pid, jobs_csv, jobs
        self.offset, self.rows, self.samples = 0, -1, [(0, 0.0)]  # -1: the header line
        self.tick = os.sysconf("SC_CLK_TCK")

    def sample(self) -> None:
        try:
            with open(f"/proc/{self.pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            cpu = (int(fields[11]) + int(fields[12])) / self.tick  # utime, stime
            chunk = self.read_on()
        except (OSError, IndexError, ValueError):
            return
        self.offset += len(chunk)
        self.rows += chunk.count(b"\n")
        self.samples.append((max(self.rows, 0), cpu))

    def read_on(self) -> bytes:
        """What the run wrote to its ``_jobs.csv`` since the last sample: the file has its partial
        name (``.partial`` after it) until the run passed its checks, then its own."""
        for name in (f"{self.jobs_csv}.partial", str(self.jobs_csv)):
            try:
                with open(name, "rb") as rows:
                    rows.seek(self.offset)
                    return rows.read()
            except FileNotFoundError:
                continue
        raise FileNotFoundError(self.jobs_csv)

    def tenths(self, total_cpu: float) -> list[float]:
        """Jobs per CPU second in each tenth of the jobs (the last one ends at ``total_cpu``)."""
        samples = [*self.samples, (self.jobs, total_cpu)]
        rates, k, before = [], 1, 0.0
        for (r0, c0), (r1, c1) in itertools.pairwise(samples):
            while k <= 10 and r1 >= k * self.jobs / 10:
                mark = k * self.jobs / 10
                at = c0 + (c1 - c0) * ((mark - r0) / (r1 - r0) if r1 > r0 else 1.0)
                rates.append(self.jobs / 10 / max(at - before, 1e-9))
                before, k = at, k + 1
        return rates


def run_case(
    scheduler: str,
    hosts: int,
    trace: Path,
    prefix: Path,
    timeout: float | None,
    code: Path | None = None,
    jobs: int | None = None,
) -> dict:
    """One ``adaptsched run`` process: wall, CPU and peak RSS of that process alone (``code``: a
    folder whose ``adaptsched`` it runs instead of this tree's, :func:`baseline.code_of`); with
    ``jobs``, its throughput in each tenth of them too (:class:`Progress`)."""
    command = [sys.executable, "-m", "adaptsched", "run", "--scheduler", scheduler, "--workload", str(trace)]
    command += ["--platform", str(hosts), "--out", str(prefix), "--progress", "off", "--no-pin"]
    env = None if code is None else {**os.environ, "PYTHONPATH": str(code)}
    start = time.perf_counter()
    log = prefix.parent / f"{prefix.name}.log"  # a file, not a pipe: a full pipe would stall the run
    with open(log, "w") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, env=env)
    deadline = None if timeout is None else start + timeout
    progress = Progress(process.pid, Path(f"{prefix}_jobs.csv"), jobs) if jobs else None
    status, usage, timed_out = 0, None, False
    while True:  # wait4 gives this child's own rusage (RUSAGE_CHILDREN would be the max over all cases)
        pid, status, usage = os.wait4(process.pid, os.WNOHANG if deadline or progress else 0)
        if pid:
            break
        if progress is not None:
            progress.sample()
        if deadline is not None and time.perf_counter() > deadline:
            process.kill()
            pid, status, usage = os.wait4(process.pid, 0)
            timed_out = True
            break
        time.sleep(0.2)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if timed_out:
        row: dict = {"status": f"stopped after {timeout:.0f} s", "wall_s": wall}
        if progress is not None:
            progress.sample()
            row["jobs_done"] = progress.rows
            row["tenths"] = progress.tenths(progress.samples[-1][1])[: progress.rows * 10 // max(jobs or 1, 1)]
        return row
    if process.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({process.returncode}):\n{log.read_text()[-4000:]}")
    row = {
        "status": "ok",
        "wall_s": wall,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "peak_mb": usage.ru_maxrss / 1024.0,  # Linux: kilobytes
    }
    if progress is not None:
        from adaptsched.analysis.invariants import run_violations

        row["tenths"] = progress.tenths(row["cpu_s"])
        row["violations"] = [v.message for v in run_violations(f"{prefix}_jobs.csv", hosts)][:10]
    return row


def targets(rows: list[dict]) -> list[str]:
    """One line per target and (commit, scheduler, hosts) that the rows allow to check."""
    ok = [r for r in rows if r.get("status") == "ok" and r.get("case", "grid") == "grid"]
    by = {(r["commit"], r["scheduler"], r["hosts"], r["jobs"]): r for r in ok}
    lines = []
    groups = sorted({(r["commit"], r["scheduler"], r["hosts"]) for r in ok}, key=str)
    for c, s, h in groups:
        small, big = by.get((c, s, h, 10_000)), by.get((c, s, h, 300_000)) or by.get((c, s, h, 100_000))
        if small and big:
            ratio = (big["jobs"] / big["cpu_s"]) / (small["jobs"] / small["cpu_s"])
            verdict = "met" if ratio >= 1 - MAX_RATIO else "NOT met"
            lines.append(
                f"- linear in jobs, {s} on {h} hosts at {c}: jobs/s (CPU) at {big['jobs']:,} jobs is "
                f"{ratio:.2f}x that at 10,000 jobs ({verdict}; target at least {1 - MAX_RATIO:.2f}x"
                + (", checked at 100k: 300k not measured)" if big["jobs"] != 300_000 else ")")
            )
    for c, s, n in sorted({(r["commit"], r["scheduler"], r["jobs"]) for r in ok}, key=str):
        narrow, wide = by.get((c, s, 1024, n)), by.get((c, s, 100_000, n))
        if narrow and wide:
            ratio = (narrow["jobs"] / narrow["cpu_s"]) / (wide["jobs"] / wide["cpu_s"])
            lines.append(
                f"- width, {s} at {n:,} jobs at {c}: a job costs {ratio:.2f}x as much CPU on 100,000 hosts as on "
                f"1,024 (mean width {wide.get('mean_width', 0):,.0f} vs {narrow.get('mean_width', 0):,.0f} hosts; "
                f"target about 1x)"
            )
    for r in ok:
        if r["jobs"] == 300_000:
            if r["scheduler"] == "conservative":
                verdict = "met" if r["wall_s"] < CONSERVATIVE_300K_S else "NOT met"
                by_cpu = "met" if r["cpu_s"] < CONSERVATIVE_300K_S else "NOT met"
                lines.append(
                    f"- conservative on 300k jobs, {r['hosts']} hosts at {r['commit']}: {r['wall_s']:.0f} s wall "
                    f"({verdict}; target under {CONSERVATIVE_300K_S:.0f} s), {r['cpu_s']:.0f} s CPU "
                    f"({by_cpu} on an idle core)"
                )
            verdict = "met" if r["peak_mb"] < MEMORY_300K_MB else "NOT met"
            lines.append(
                f"- memory, {r['scheduler']} on 300k jobs, {r['hosts']} hosts at {r['commit']}: peak "
                f"{r['peak_mb']:,.0f} MB ({verdict}; target under {MEMORY_300K_MB:,.0f} MB)"
            )
    return lines + against_base(rows)


def against_base(rows: list[dict]) -> list[str]:
    """Target 5, with --base: each row measured beside its base in one run, this tree's
    CPU time over the base's, and whether any row is slower beyond the noise."""
    heads = {pair_key(r): r for r in rows if "base_of" not in r}
    pairs = [(base, heads[pair_key(base)]) for base in rows if "base_of" in base and pair_key(base) in heads]
    if not pairs:
        return []
    lines, slower, compared = [], 0, 0
    for base, head in pairs:
        what = f"{head['scheduler']} on {head['hosts']:,} hosts, {head['jobs']:,} jobs ({head.get('case', 'grid')})"
        if head.get("status") != "ok" or base.get("status") != "ok":  # stopped by --timeout: the one stopped lost
            verdict = "slower" if head.get("status") != "ok" and base.get("status") == "ok" else "not compared"
            slower += verdict == "slower"
            compared += verdict != "not compared"
            lines.append(f"- against {base['commit']}, {what}: {base['status']} -> {head['status']} ({verdict})")
            continue
        ratio = head["cpu_s"] / base["cpu_s"]
        verdict = "slower" if ratio > 1 + NOISE else ("faster" if ratio < 1 - NOISE else "within the noise")
        slower += verdict == "slower"
        compared += 1
        same = {True: "; the same _jobs.csv", False: "; _jobs.csv DIFFERS", None: ""}[head.get("same_jobs_as_base")]
        lines.append(
            f"- against {base['commit']}, {what}: {base['cpu_s']:.1f} -> {head['cpu_s']:.1f} s CPU "
            f"({ratio:.2f}x, {verdict}); peak {base['peak_mb']:,.0f} -> {head['peak_mb']:,.0f} MB{same}"
        )
    verdict = f"NOT met ({slower} slower)" if slower else ("met" if compared else "not checked: no pair compared")
    return lines + [
        f"- no row slower than its base, each pair in one run (slower: over {100 * NOISE:.0f} % more CPU): {verdict}"
    ]


def pair_key(r: dict) -> tuple:
    """A row's case without its commit, and the commit it was measured at (a base row: the commit
    it was measured beside)."""
    return (r.get("case", "grid"), r["scheduler"], r["hosts"], r["jobs"], r.get("aarr"), r.get("seed")) + (
        (r["base_of"],) if "base_of" in r else (r["commit"],)
    )


def over_the_run(rows: list[dict]) -> list[str]:
    """The throughput in each tenth of the jobs and the invariant violations of the rows that have
    them, and each case's ``conservative`` over ``easy`` at one commit (CPU time)."""
    watched = [r for r in rows if "tenths" in r]
    if not watched:
        return []
    lines = [
        "",
        "Throughput over the run (jobs per CPU second in each tenth of the jobs, the first with the loading):",
        "",
        "| commit | trace | scheduler | " + " | ".join(f"{10 * k}%" for k in range(1, 11)) + " | violations |",
        "|---|---|---|" + "---:|" * 10 + "---|",
    ]
    for r in watched:
        rates = [f"{x:,.0f}" for x in r["tenths"]] + [""] * (10 - len(r["tenths"]))
        bad = "" if "violations" not in r else (str(len(r["violations"])) if r["violations"] else "0")
        lines.append(f"| {r['commit']} | {r['case']} | {r['scheduler']} | " + " | ".join(rates) + f" | {bad} |")
    ok = {(r["commit"], r["case"], r["scheduler"]): r for r in rows if r.get("status") == "ok" and "case" in r}
    for (c, case, s), r in sorted(ok.items()):
        easy = ok.get((c, case, "easy"))
        if s == "conservative" and easy:
            lines.append(
                f"- {case} at {c}: conservative {r['cpu_s']:.1f} s CPU, easy {easy['cpu_s']:.1f} s: "
                f"**{r['cpu_s'] / easy['cpu_s']:.2f}x** (peak memory {r['peak_mb']:,.0f} and {easy['peak_mb']:,.0f} MB)"
            )
    return lines


def merged(report: Path, rows: list[dict]) -> list[dict]:
    """``rows`` over those in ``report``'s scale.json now (another run may have added some)."""
    try:
        old = json.loads((report / "scale.json").read_text())["rows"]
    except (OSError, ValueError, KeyError):
        old = []
    mine = {row_key(r) for r in rows}
    result = [r for r in old if row_key(r) not in mine] + rows
    result.sort(key=row_order)
    return result


def row_key(r: dict) -> tuple:
    """A row's case: commit, scheduler, hosts, jobs and the trace's arrival rate and seed (rows
    written before the deep-queue cases were all of the grid: --aarr 10.6, seed 0)."""
    return (r["commit"], r["scheduler"], r["hosts"], r["jobs"], r.get("aarr", DEFAULT_AARR), r.get("seed", 0))


def row_order(r: dict) -> tuple:
    return (r.get("case", "grid") != "grid", r["scheduler"], r["hosts"], r["jobs"], r.get("aarr", DEFAULT_AARR))


def write_report(report: Path, rows: list[dict], context: dict, *, merge: bool = False) -> str:
    if merge:
        rows = merged(report, rows)
    lines = [
        "# Scale: the embedded engine (in-process) on generated Lublin-Feitelson traces",
        "",
        f"Machine: {context['machine']}. Traces: `adaptsched generate lublin --hosts H --jobs N --aarr "
        f"{context['aarr']} --seed {context['seed']}`; each case a fresh `adaptsched run --progress off "
        "--no-pin` process; peak memory is that process's maximum resident set. The machine is shared "
        "(2 cores, several engineers): the load average at each case's start is in its row, and jobs/s "
        "on CPU time (user + system) is the fairer measure. Generated by `benchmarks/scale.py`.",
        "",
        "| commit | trace | scheduler | hosts | jobs | mean width | wall (s) | jobs/s | CPU (s) | jobs/s (CPU) "
        "| peak memory (MB) | load avg at start | date (UTC) |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for r in rows:
        width = f"{r['mean_width']:,.0f}" if "mean_width" in r else "?"
        trace = f"{r.get('case', 'grid')} (aarr {r.get('aarr', DEFAULT_AARR)}, seed {r.get('seed', 0)})"
        if r.get("status") != "ok":
            lines.append(
                f"| {r['commit']} | {trace} | {r['scheduler']} | {r['hosts']:,} | {r['jobs']:,} | {width} "
                f"| {r['status']} | | | | | {r['load']} | {r['date']} |"
            )
            continue
        lines.append(
            f"| {r['commit']} | {trace} | {r['scheduler']} | {r['hosts']:,} | {r['jobs']:,} | {width} | "
            f"{r['wall_s']:.1f} | {r['jobs'] / r['wall_s']:,.0f} | {r['cpu_s']:.1f} | {r['jobs'] / r['cpu_s']:,.0f} | "
            f"{r['peak_mb']:,.0f} | {r['load']} | {r['date']} |"
        )
    lines += over_the_run(rows)
    lines += ["", "Targets, on the rows above:", ""] + (targets(rows) or ["- none checkable yet"])
    text = "\n".join(lines) + "\n"
    report.mkdir(parents=True, exist_ok=True)
    (report / "scale.md").write_text(text)
    (report / "scale.json").write_text(json.dumps({"context": context, "rows": rows}, indent=2) + "\n")
    return text


def traced_for(traces: Path, case: str, hosts: int, jobs: int, aarr: str, seed: int) -> tuple[Path, int] | None:
    """A case's trace and its number of jobs (None: an archive case whose archive is absent)."""
    if aarr == "narrow":
        path = traces / f"narrow_h{hosts}_n{jobs}_s{seed}.json"
        return (path if path.is_file() else narrow_trace(path, hosts, jobs, seed)), jobs
    if aarr == "archive":
        converted = archive_trace(traces, case)
        return None if converted is None else (converted, len(json.loads(converted.read_text())["jobs"]))
    return trace_for(traces, hosts, jobs, aarr, seed), jobs


def mean_width(trace: Path) -> float:
    jobs = json.loads(trace.read_text())["jobs"]
    return sum(j["res"] for j in jobs) / max(1, len(jobs))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ints = lambda text: [int(x) for x in text.split(",") if x]  # noqa: E731
    parser.add_argument("--sizes", type=ints, default=list(SIZES), help="numbers of jobs (default 10000,100000,300000)")
    parser.add_argument("--hosts", type=ints, default=list(HOSTS), help="numbers of hosts (default 1024,100000)")
    parser.add_argument("--schedulers", default=",".join(SCHEDULERS), help="comma-separated (default %(default)s)")
    parser.add_argument("--aarr", default=DEFAULT_AARR, help="Lublin typeless AARR, or 'model' (default %(default)s)")
    parser.add_argument("--seed", type=int, default=0)
    every = [*CASES, *NARROW_CASES, *ARCHIVE_CASES]
    parser.add_argument(
        "--cases", default=",".join(every), help="deep-queue cases beside the grid (default %(default)s; '' for none)"
    )
    parser.add_argument("--timeout", type=float, help="stop a case after this many seconds (row says so)")
    parser.add_argument("--merge", action="store_true", help="keep the rows already in the report's scale.json")
    parser.add_argument("--report", default=str(REPO / "docs" / "results" / "engines"), help="where scale.md/json go")
    parser.add_argument("--out", default=str(REPO / "results" / "benchmarks" / "scale"), help="traces and run outputs")
    parser.add_argument("--base", help="also run each case with the code of this commit, just before it")
    args = parser.parse_args(argv)

    out, report = Path(args.out), Path(args.report)
    (out / "traces").mkdir(parents=True, exist_ok=True)
    rows: list[dict] = []  # this run's; with --merge, the report's other rows are re-read at each write
    context = {
        "machine": f"{platform.node()}, {cpu_model()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
        "aarr": args.aarr,
        "seed": args.seed,
    }
    here = commit()
    base = code_of(args.base, out / "base") if args.base else None
    plan = [("grid", hosts, jobs, args.aarr, args.seed) for jobs in args.sizes for hosts in args.hosts]
    for name in [c for c in args.cases.split(",") if c]:
        if name not in every:
            parser.error(f"unknown case {name!r}: choose among {', '.join(every)}")
        if name in CASES:
            plan.append((name, *CASES[name]))
        elif name in NARROW_CASES:
            hosts, jobs, seed = NARROW_CASES[name]
            plan.append((name, hosts, jobs, "narrow", seed))
        else:
            plan.append((name, ARCHIVE_CASES[name][1], 0, "archive", 0))
    for case, hosts, jobs, aarr, seed in plan:
        traced = traced_for(out / "traces", case, hosts, jobs, aarr, seed)
        if traced is None:
            print(f"{case}: skipped, {ARCHIVE_CASES[case][0]} is not in {TRACES}", flush=True)
            continue
        trace, jobs = traced
        width = mean_width(trace)
        for scheduler in args.schedulers.split(","):
            tag = "" if case == "grid" else f"_{case}"
            sides = [(here, None, out / f"{scheduler}_h{hosts}_n{jobs}{tag}")]
            if base is not None:  # the base first, then this tree: one pair, one moment of the machine
                sides.insert(0, (base[0][:7], base[1], out / "base" / f"{scheduler}_h{hosts}_n{jobs}{tag}"))
            base_jobs = None  # the _jobs.csv of this pair's base run, once it finished
            for at, code, prefix in sides:
                row = {"commit": at, "case": case, "scheduler": scheduler, "hosts": hosts, "jobs": jobs}
                row.update({"aarr": aarr, "seed": seed, "mean_width": width, "load": load()})
                row["date"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M")
                if code is not None:
                    row["base_of"] = here
                watched = jobs if aarr in ("narrow", "archive") else None  # throughput by tenth, invariants
                row.update(run_case(scheduler, hosts, trace, prefix, args.timeout, code, watched))
                if code is not None:
                    base_jobs = f"{prefix}_jobs.csv" if row["status"] == "ok" else None
                elif base_jobs and row["status"] == "ok":  # the pair's outputs, byte for byte
                    row["same_jobs_as_base"] = filecmp.cmp(base_jobs, f"{prefix}_jobs.csv", shallow=False)
                rows = [r for r in rows if row_key(r) != row_key(row)] + [row]
                rows.sort(key=row_order)
                extra = (
                    f"{row['wall_s']:.1f} s wall, {row['cpu_s']:.1f} s CPU, {row['peak_mb']:,.0f} MB"
                    if row["status"] == "ok"
                    else row["status"]
                )
                print(
                    f"{scheduler} on {hosts} hosts, {jobs} jobs ({case}) at {at}: {extra} (load {row['load']})",
                    flush=True,
                )
                write_report(report, rows, context, merge=args.merge)
    print(write_report(report, rows, context, merge=args.merge))
    print(f"written: {report / 'scale.md'}, {report / 'scale.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
