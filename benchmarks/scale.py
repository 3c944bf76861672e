"""Scale: jobs/s and peak memory of the embedded engine at 10k to 300k jobs, on 1,024 and 100,000 hosts.

Issue 14, section 2. For each number of hosts and of jobs it generates a Lublin-Feitelson
trace (``adaptsched generate lublin --hosts H --jobs N --aarr A``: job sizes follow the
machine, UHi = log2 H, so on 100,000 hosts the mean job is about 6,000 hosts wide and the
widest about 99,000), then runs each scheduler on it with the embedded engine (in-process,
the default) as a fresh ``adaptsched run`` process, and records wall time, CPU time
(user + system) and peak resident memory (``ru_maxrss`` of that process, from ``wait4``).

    .venv/bin/python benchmarks/scale.py [--sizes 10000,100000,300000] [--hosts 1024,100000]
        [--schedulers easy,conservative] [--aarr 10.6] [--cases overloaded,high-load] [--merge] [--timeout S]
        [--base COMMIT]

Beside the grid, two deep-queue cases (issue 26), in the same table (``--cases ''`` skips
them, ``--sizes ''`` skips the grid):

- ``overloaded``: ``generate lublin --jobs 10000 --hosts 1024 --aarr 9.9 --seed 3``, an
  offered load of 1.145: the queue grows all run long (hundreds of waiting jobs at the end);
- ``high-load``: ``generate lublin --jobs 200000 --hosts 8192 --aarr 10.3 --seed 0``, an
  offered load of about 0.98 on 8,192 hosts: a backlog that comes and goes for weeks.

Writes ``scale.md`` and ``scale.json`` to ``--report`` (default docs/results/engines/),
rewritten after every case so that what is measured is on disk; run outputs go to ``--out``.
Each row carries the commit it was measured at: with ``--merge`` the rows already in
``scale.json`` are kept (re-read at each write, so two runs can share a report; a case
measured again at the same commit replaces its row), so a grid too long for one sitting can
be measured in parts, and before/after rows of an optimisation sit in one table.

``--base COMMIT`` (issue 26, target 5: no row slower than before): each case is run first with
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

Targets (issue 14): jobs/s at 300k jobs within 20% of jobs/s at 10k (time linear in jobs);
a job's cost independent of its width (jobs/s on 100,000 hosts close to 1,024 hosts);
conservative on 300k jobs in under 10 minutes; peak memory under 2 GB at 300k jobs. The
report states how each was met on the rows measured. This machine is shared: the load
average at the start of each case is in its row, and CPU time is the fairer measure.
"""

from __future__ import annotations

import argparse
import datetime
import filecmp
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

from baseline import code_of, commit, load  # benchmarks/baseline.py, beside this script

REPO = Path(__file__).resolve().parent.parent
SIZES = (10_000, 100_000, 300_000)
HOSTS = (1024, 100_000)
SCHEDULERS = ("easy", "conservative")
DEFAULT_AARR = "10.6"
MAX_RATIO = 0.20  # jobs/s at 300k within 20% of jobs/s at 10k
CONSERVATIVE_300K_S = 600.0
#: Deep-queue cases beside the grid (issue 26): name -> (hosts, jobs, aarr, seed).
CASES = {
    "overloaded": (1024, 10_000, "9.9", 3),
    "high-load": (8192, 200_000, "10.3", 0),
}
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


def run_case(
    scheduler: str, hosts: int, trace: Path, prefix: Path, timeout: float | None, code: Path | None = None
) -> dict:
    """One ``adaptsched run`` process: wall, CPU and peak RSS of that process alone (``code``: a
    folder whose ``adaptsched`` it runs instead of this tree's, :func:`baseline.code_of`)."""
    command = [sys.executable, "-m", "adaptsched", "run", "--scheduler", scheduler, "--workload", str(trace)]
    command += ["--platform", str(hosts), "--out", str(prefix), "--progress", "off", "--no-pin"]
    env = None if code is None else {**os.environ, "PYTHONPATH": str(code)}
    start = time.perf_counter()
    log = prefix.parent / f"{prefix.name}.log"  # a file, not a pipe: a full pipe would stall the run
    with open(log, "w") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, env=env)
    deadline = None if timeout is None else start + timeout
    status, usage, timed_out = 0, None, False
    while True:  # wait4 gives this child's own rusage (RUSAGE_CHILDREN would be the max over all cases)
        pid, status, usage = os.wait4(process.pid, os.WNOHANG if deadline else 0)
        if pid:
            break
        if deadline is not None and time.perf_counter() > deadline:
            process.kill()
            pid, status, usage = os.wait4(process.pid, 0)
            timed_out = True
            break
        time.sleep(0.2)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if timed_out:
        return {"status": f"stopped after {timeout:.0f} s", "wall_s": wall}
    if process.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({process.returncode}):\n{log.read_text()[-4000:]}")
    return {
        "status": "ok",
        "wall_s": wall,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "peak_mb": usage.ru_maxrss / 1024.0,  # Linux: kilobytes
    }


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
    """Target 5 (issue 26), with --base: each row measured beside its base in one run, this tree's
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
        f"- no row slower than its base, each pair in one run (issue 26, target 5; slower: over "
        f"{100 * NOISE:.0f} % more CPU): {verdict}"
    ]


def pair_key(r: dict) -> tuple:
    """A row's case without its commit, and the commit it was measured at (a base row: the commit
    it was measured beside)."""
    return (r.get("case", "grid"), r["scheduler"], r["hosts"], r["jobs"], r.get("aarr"), r.get("seed")) + (
        (r["base_of"],) if "base_of" in r else (r["commit"],)
    )


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
    lines += ["", "Targets (issue 14), on the rows above:", ""] + (targets(rows) or ["- none checkable yet"])
    text = "\n".join(lines) + "\n"
    report.mkdir(parents=True, exist_ok=True)
    (report / "scale.md").write_text(text)
    (report / "scale.json").write_text(json.dumps({"context": context, "rows": rows}, indent=2) + "\n")
    return text


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
    parser.add_argument(
        "--cases", default=",".join(CASES), help="deep-queue cases beside the grid (default %(default)s; '' for none)"
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
        if name not in CASES:
            parser.error(f"unknown case {name!r}: choose among {', '.join(CASES)}")
        plan.append((name, *CASES[name]))
    for case, hosts, jobs, aarr, seed in plan:
        trace = trace_for(out / "traces", hosts, jobs, aarr, seed)
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
                row.update(run_case(scheduler, hosts, trace, prefix, args.timeout, code))
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
