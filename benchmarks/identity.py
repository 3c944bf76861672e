"""Byte-identity of outputs between two commits: a refactoring must not change one byte.

For each case (a reproduction's short form, as CI's tests run it, and one full-size run per
paper), runs the same command line with the code of two commits — each from a detached git
worktree, imported through ``PYTHONPATH`` by this checkout's interpreter, so both use the same
dependencies — then compares every output file the runs wrote (``_jobs.csv``,
``_schedule.csv``, ``_machine_states.csv`` and the generated workloads) by SHA-256.
Reports (Markdown, PNG) and run records (``_result.json``) are not compared: they carry run
times and may change with the report code on purpose; nor are the wall-clock columns of
``_schedule.csv`` (``scheduling_time``, ``simulation_time``) and ``per_test.csv`` (``time_ms``).

    .venv/bin/python benchmarks/identity.py --base c85c628 [--head HEAD] [--cases short,full] \
        [--out results/identity] [--report docs/results/identity.md]

Exit status 1 when any compared file differs, or when a case fails on one side only.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path

from adaptsched.workloads.traces import shared_trace

REPO = Path(__file__).resolve().parent.parent
CTC = shared_trace("CTC-SP2")
SDSC = shared_trace("SDSC-SP2")
EXCERPTS = REPO / "workloads" / "excerpts"
COMPARED = ("_jobs.csv", "_schedule.csv", "_machine_states.csv", ".json")

#: name -> (kind, steps): each step an ``adaptsched`` command line, ``{out}`` its case folder.
CASES: dict[str, tuple[str, list[list[str]]]] = {
    "perkovic-keleher short": (
        "short",
        [["reproduce", "perkovic-keleher", "--trace", str(CTC), "--jobs", "2000", "--seeds", "1", "--out", "{out}"]],
    ),
    "downey short": ("short", [["reproduce", "downey", "--days", "2", "--seeds", "1", "--out", "{out}"]]),
    "qops short": (
        "short",
        [["reproduce", "qops", "--jobs", "300", "--qos-trace", "SDSC-SP2", "--trace", str(SDSC), "--out", "{out}"]],
    ),
    "scojo-p short": (
        "short",
        [["reproduce", "scojo-p", "--jobs", "300", "--seeds", "1", "--study", "main", "--out", "{out}"]],
    ),
    "klein-perez short": (
        "short",
        [["reproduce", "klein-perez", "--tests", "20", "--hosts", "100", "--engine-tests", "5", "--out", "{out}"]],
    ),
    # one full-size run per paper: the paper's trace or model at its size, one of its schedulers
    "perkovic-keleher full (R/L-NG, CTC-SP2 year, 430 hosts)": (
        "full",
        [
            ["convert", str(CTC), "{out}/ctc.json", "--hosts", "430"],
            [
                "run",
                "--scheduler",
                "backfill",
                "--option",
                "order=R/L",
                "--option",
                "guarantees=false",
                "--workload",
                "{out}/ctc.json",
                "--platform",
                "430",
                "--out",
                "{out}/rl_ng",
            ],
        ],
    ),
    "downey full (120 days, 64 processors, greedy AVG)": (
        "full",
        [
            ["generate", "downey", "{out}/downey.json", "--days", "120", "--seed", "1"],
            [
                "run",
                "--scheduler",
                "downey",
                "--workload",
                "{out}/downey.json",
                "--platform",
                "64",
                "--out",
                "{out}/downey",
            ],
        ],
    ),
    "qops full (DVQoPS, SDSC-SP2 first 10,000 jobs)": (
        "full",
        [
            ["convert", str(SDSC), "{out}/sdsc.json", "--first", "10000"],
            ["estimates", "{out}/sdsc.json", "{out}/sdsc_est.json", "--model", "exact"],
            [
                "qos-annotate",
                "{out}/sdsc_est.json",
                "{out}/sdsc_qos.json",
                "--urgent",
                "0.2",
                "--urgent-cost",
                "10",
                "--exact",
                "--high-load",
            ],
            [
                "run",
                "--scheduler",
                "dvqops",
                "--workload",
                "{out}/sdsc_qos.json",
                "--platform",
                "128",
                "--out",
                "{out}/dvqops",
            ],
        ],
    ),
    "scojo-p full (10,000 Lublin jobs, 128 hosts)": (
        "full",
        [
            ["generate", "lublin", "{out}/w1.json", "--jobs", "10000", "--hosts", "128", "--seed", "1"],
            ["estimates", "{out}/w1.json", "{out}/w1_est.json", "--model", "exact"],
            [
                "mold-annotate",
                "{out}/w1_est.json",
                "{out}/w1_mold.json",
                "--model",
                "scojo-p",
                "--fraction",
                "1",
                "--seed",
                "1",
            ],
            [
                "run",
                "--scheduler",
                "scojo-p",
                "--workload",
                "{out}/w1_mold.json",
                "--platform",
                "128",
                "--out",
                "{out}/scojo",
            ],
            [
                "run",
                "--scheduler",
                "cirne-berman",
                "--workload",
                "{out}/w1_mold.json",
                "--platform",
                "128",
                "--out",
                "{out}/cb",
            ],
        ],
    ),
    "klein-perez full (1,000 tests in-process, the first 20 through the engine)": (
        "full",
        [["reproduce", "klein-perez", "--tests", "1000", "--hosts", "100", "--engine-tests", "20", "--out", "{out}"]],
    ),
    "baselines full (easy, conservative, CTC-SP2 year)": (
        "full",
        [
            ["convert", str(CTC), "{out}/ctc.json"],
            ["run", "--scheduler", "easy", "--workload", "{out}/ctc.json", "--platform", "338", "--out", "{out}/easy"],
            [
                "run",
                "--scheduler",
                "conservative",
                "--workload",
                "{out}/ctc.json",
                "--platform",
                "338",
                "--out",
                "{out}/conservative",
            ],
        ],
    ),
}


def checkout(rev: str, where: Path) -> tuple[str, Path]:
    """A detached worktree of ``rev`` and a folder whose ``adaptsched`` points at it."""
    sha = subprocess.run(["git", "-C", str(REPO), "rev-parse", rev], capture_output=True, text=True, check=True)
    sha_text = sha.stdout.strip()
    tree = where / f"tree-{sha_text[:10]}"
    if not tree.exists():
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "-q", "--detach", str(tree), sha_text], check=True)
    path = where / f"path-{sha_text[:10]}"
    path.mkdir(parents=True, exist_ok=True)
    link = path / "adaptsched"
    if not link.exists():
        link.symlink_to(tree)
    return sha_text, path


def run_case(steps: list[list[str]], pythonpath: Path, out: Path) -> tuple[bool, str, float]:
    """Runs a case's steps in order; (ok, the failing step's stderr tail, seconds)."""
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(pythonpath)}
    begin = time.perf_counter()
    for step in steps:
        argv = [sys.executable, "-m", "adaptsched", *[a.replace("{out}", str(out)) for a in step]]
        done = subprocess.run(argv, capture_output=True, text=True, env=env)
        if done.returncode != 0:
            return False, f"`adaptsched {' '.join(step[:2])}`: " + done.stderr.strip()[-400:], 0.0
    return True, "", time.perf_counter() - begin


#: CSV columns that time the run itself (wall clock), never equal twice: ``_schedule.csv``'s,
#: and Klein & Pérez's per-test planning time.
WALL_CLOCK = ("scheduling_time", "simulation_time", "time_ms")


def content(path: Path) -> bytes:
    """The file's bytes; a CSV with its wall-clock columns blanked."""
    data = path.read_bytes()
    if not path.name.endswith(("_schedule.csv", "per_test.csv")):
        return data
    header, *rows = data.decode().splitlines()
    names = header.split(",")
    masked = [i for i, n in enumerate(names) if n in WALL_CLOCK]
    out = [header]
    for row in rows:
        cells = row.split(",")
        out.append(",".join("-" if i in masked else c for i, c in enumerate(cells)))
    return "\n".join(out).encode()


def compared(path: Path) -> bool:
    """Simulator outputs, and the workloads (JSON) a case generates; not run records or reports."""
    if path.name == "per_test.csv":  # Klein & Pérez's per-test metrics, in-process
        return True
    if path.name.endswith(".json"):
        return not path.name.endswith(("_result.json", "report.json")) and "report" not in path.parts
    return path.name.endswith(COMPARED)


def digests(folder: Path) -> dict[str, str]:
    """relative path -> SHA-256 of every compared output under ``folder``."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(content(p)).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and compared(p)
    }


def compare(a: dict[str, str], b: dict[str, str]) -> list[str]:
    only = sorted(set(a) ^ set(b))
    return [f"{p}: on one side only" for p in only] + [p for p in sorted(set(a) & set(b)) if a[p] != b[p]]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="the commit before the refactoring")
    parser.add_argument("--head", default="HEAD", help="the commit after (default HEAD)")
    parser.add_argument("--cases", default="short,full", help="kinds of case to run (default: short,full)")
    parser.add_argument("--only", help="cases whose name contains this text")
    parser.add_argument("--out", default=str(REPO / "results" / "identity"))
    parser.add_argument("--report", help="write the table (Markdown) here too")
    args = parser.parse_args(argv)
    out = Path(args.out).resolve()
    kinds = set(args.cases.split(","))
    base_sha, base_path = checkout(args.base, out)
    head_sha, head_path = checkout(args.head, out)
    started = datetime.datetime.now(datetime.timezone.utc)
    rows, failed = [], False
    for name, (kind, steps) in CASES.items():
        if kind not in kinds or (args.only and args.only not in name):
            continue
        slug = name.split(" (")[0].replace(" ", "-")
        sides = {}
        for label, sha, path in (("base", base_sha, base_path), ("head", head_sha, head_path)):
            ok, error, seconds = run_case(steps, path, out / slug / label)
            sides[label] = (ok, error, seconds)
            print(f"{name}, {label} ({sha[:7]}): {'ok' if ok else 'FAILED'} in {seconds:.0f} s {error}", flush=True)
        if not (sides["base"][0] and sides["head"][0]):
            failed = True
            rows.append(f"| {name} | failed | | {sides['base'][1] or sides['head'][1]} |")
            continue
        a, b = digests(out / slug / "base"), digests(out / slug / "head")
        differ = compare(a, b)
        failed |= bool(differ)
        verdict = "**identical**" if not differ else f"**{len(differ)} differ**"
        rows.append(f"| {name} | {len(a)} | {verdict} | {', '.join(differ[:5])} |")
        print(f"  {len(a)} files compared: {verdict}", flush=True)
    load = os.getloadavg()
    text = "\n".join(
        [
            f"# Byte-identity: {base_sha[:7]} against {head_sha[:7]}",
            "",
            f"Measured {started:%Y-%m-%d %H:%M} UTC by `benchmarks/identity.py --base {args.base} --head {args.head}` "
            f"(load average at the end {load[0]:.1f}). Every output file of each case (`_jobs.csv`, "
            "`_schedule.csv`, `_machine_states.csv`, generated workloads), compared by SHA-256.",
            "",
            "| case | files | verdict | differing |",
            "|---|---:|---|---|",
            *rows,
            "",
        ]
    )
    print(text)
    if args.report:
        Path(args.report).write_text(text)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
