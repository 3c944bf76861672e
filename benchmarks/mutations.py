"""Mutation check: does the fast tier catch a deliberate error in each paper's core rule?

For each of the five papers, five one-line mutations of its core rule (a comparison turned, a
factor ignored, a cap dropped, a limit stretched, a choice inverted). Each one is applied to a
copy of this tree (its tracked files as they are in the working tree, in a temporary folder:
the tree itself is never changed), and the fast-tier tests relevant to its paper run there
(``pytest --tier fast``, derandomized, under ``nice``), the copy first on ``PYTHONPATH`` so that
every process imports its ``adaptsched``. A mutation is caught when a test fails. Each paper's
tests first run on an unmutated copy: they must all pass there, or a failure would mean nothing.

    .venv/bin/python benchmarks/mutations.py [--paper NAME]... [--mutation ID]... [--workers N] \
        [--report docs/results/mutations.md]

The report names every mutation (file, line, the line before and after) and the tests that fail
on it. Exit status 1 if a mutation is not caught, or a paper's tests fail unmutated.
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from baseline import REPO, commit, load  # benchmarks/baseline.py, beside this script


@dataclass(frozen=True)
class Mutation:
    id: str
    paper: str
    path: str  # from the repository root
    before: str  # the text to replace (it occurs once in the file), the changed line with any context
    after: str  # the same text with one line changed
    what: str  # the error it makes, in words


@dataclass
class Outcome:
    mutation: Mutation | None  # None: the unmutated copy
    line: int = 0
    failed: list[str] = field(default_factory=list)
    passed: int = 0
    seconds: float = 0.0
    summary: str = ""


#: paper -> (test files, pytest -k expression): the fast-tier tests of its rules, the property tests
#: of its schedulers and its wrong readings.
TESTS: dict[str, tuple[list[str], str]] = {
    "perkovic-keleher": (
        [
            "tests/test_backfill.py",
            "tests/test_speculation.py",
            "tests/test_adaptation.py",
            "tests/test_core.py",
            "tests/test_properties.py",
            "tests/test_wrong_readings.py",
        ],
        "not (test_properties or test_wrong_readings) or backfill or perkovic",
    ),
    "downey": (
        [
            "tests/test_allocation.py",
            "tests/test_speedup.py",
            "tests/test_moldable.py",
            "tests/test_downey_workload.py",
            "tests/test_properties.py",
            "tests/test_wrong_readings.py",
        ],
        "not (test_properties or test_wrong_readings) or downey",
    ),
    "islam": (
        ["tests/test_qops.py", "tests/test_properties.py", "tests/test_wrong_readings.py"],
        "not (test_properties or test_wrong_readings) or qops or islam",
    ),
    "barsanti-sodan": (
        [
            "tests/test_scojo.py",
            "tests/test_speedup.py",
            "tests/test_properties.py",
            "tests/test_wrong_reading_scojo.py",
        ],
        "not test_properties or scojo or cirne",
    ),
    "klein-perez": (
        [
            "tests/test_evolving.py",
            "tests/test_klein_perez.py",
            "tests/test_properties.py",
            "tests/test_wrong_readings.py",
        ],
        "not (test_properties or test_wrong_readings) or evolving or klein",
    ),
}

MUTATIONS = [
    # -- Perkovic & Keleher: backfilling, its orders, speculation, adaptation -------------------
    Mutation(
        "pk-fit-strict",
        "perkovic-keleher",
        "core/profile.py",
        "            if j >= size or times[j] >= end:\n                return start",
        "            if j >= size or times[j] > end:\n                return start",
        "the backfill condition's end <= next busy step read as <: a job may not end where another starts",
    ),
    Mutation(
        "pk-r-times-l",
        "perkovic-keleher",
        "core/priorities.py",
        "                score = rng.random() / estimate(job)",
        "                score = rng.random() * estimate(job)",
        "R/L scores R x L: long jobs first",
    ),
    Mutation(
        "pk-starvation-sign",
        "perkovic-keleher",
        "core/priorities.py",
        "                score += weight * (now - job.submit_s)",
        "                score -= weight * (now - job.submit_s)",
        "-NG's anti-starvation weight subtracted: waiting lowers a job's score",
    ),
    Mutation(
        "pk-widen-no-speedup",
        "perkovic-keleher",
        "core/adaptation.py",
        "        found = [(2 * width, 0.5)] if 2 * width <= self.nb_hosts else []",
        "        found = [(2 * width, 1.0)] if 2 * width <= self.nb_hosts else []",
        "widening doubles a job's hosts without halving its runtime",
    ),
    Mutation(
        "pk-speculation-backoff",
        "perkovic-keleher",
        "core/speculation.py",
        "            self.speculated[job.id] = ((copy.end_s - copy.start_s) / job.walltime_s + 1) / 2",
        "            self.speculated[job.id] = (copy.end_s - copy.start_s) / job.walltime_s",
        "a failed speculation is tried again at the same length, not halfway to the estimate",
    ),
    # -- Downey: the speedup model and the allocation strategies ---------------------------------
    Mutation(
        "downey-eq1",
        "downey",
        "core/speedup.py",
        "                return A * n / (A + s * (n - 1) / 2)",
        "                return A * n / (A + s * (n - 1))",
        "eq. (1) without its 1/2: low-variance speedups too low",
    ),
    Mutation(
        "downey-sev-cap",
        "downey",
        "core/allocation.py",
        "        fraction = min(1.0, max(0.0, load) * min(sigma, sigma_max) / sigma_max)",
        "        fraction = min(1.0, max(0.0, load) * sigma / sigma_max)",
        "SEV's cap of sigma at sigma_max dropped",
    ),
    Mutation(
        "downey-pws-power",
        "downey",
        "core/allocation.py",
        "        power = model.speedup(n) ** 2 / n",
        "        power = model.speedup(n) / n",
        "PWS maximises efficiency S / n instead of power S^2 / n",
    ),
    Mutation(
        "downey-fifo",
        "downey",
        "core/allocation.py",
        "            if n is None or n > free:\n                break",
        "            if n is None or n > free:\n                continue",
        "the FIFO queue backfilled: jobs behind a waiting head start",
    ),
    Mutation(
        "downey-asp-share",
        "downey",
        "core/allocation.py",
        "            return min(ideal, max(1, free // queued)) if free >= 1 else None",
        "            return min(ideal, max(1, free)) if free >= 1 else None",
        "ASP gives each queued job all free processors, not an even share",
    ),
    # -- Islam et al.: QoPS, VQoPS, DVQoPS -----------------------------------------------------
    Mutation(
        "islam-oc-ignored",
        "islam",
        "core/qops.py",
        "            if gain <= self.oc_factor * job.res * job.walltime_s:",
        "            if gain <= 0.0:",
        "VQoPS ignores the OC-factor: any gain admits a job",
    ),
    Mutation(
        "islam-least-revenue",
        "islam",
        "core/qops.py",
        "            if revenue > total:\n                best, total = f, revenue",
        "            if revenue < total:\n                best, total = f, revenue",
        "VQoPS keeps the candidate schedule of least revenue",
    ),
    Mutation(
        "islam-deadline-grace",
        "islam",
        "core/qops.py",
        "            if end > deadline_s + EPS_S:",
        "            if end > deadline_s + 3600.0:",
        "QoPS's admission allows an hour past the deadline",
    ),
    Mutation(
        "islam-retune-period",
        "islam",
        "core/dvqops.py",
        "            self.oc_factor = self._best_oc_factor(history, now - self.window_s, now, self.oc_factor)\n"
        "            self.next_oc_s = now + self.window_s",
        "            self.oc_factor = self._best_oc_factor(history, now - self.window_s, now, self.oc_factor)\n"
        "            self.next_oc_s = now + self.max_window_s",
        "DVQoPS re-chooses its factor every max window, not every rollback window",
    ),
    Mutation(
        "islam-worst-window",
        "islam",
        "core/dvqops.py",
        "                scores.append((revenue, -w))",
        "                scores.append((-revenue, -w))",
        "DVQoPS keeps the rollback window of least simulated revenue",
    ),
    # -- Barsanti & Sodan: SCOJO-P's frame, Fig. 1, the speedup model ------------------------------
    Mutation(
        "scojo-n-max",
        "barsanti-sodan",
        "core/scojo.py",
        "            return min(max(half_up(s * shape.n_opt), lo), hi)",
        "            return max(half_up(s * shape.n_opt), lo)",
        "Fig. 1's target size stretched beyond N_max",
    ),
    Mutation(
        "scojo-fig1-inverted",
        "barsanti-sodan",
        "core/scojo.py",
        "            s_next = min(max(s * ideal / load, 0.5), 2.0)",
        "            s_next = min(max(s * load / ideal, 0.5), 2.0)",
        "Fig. 1's modifier inverted: jobs grow when the load is high",
    ),
    Mutation(
        "scojo-no-long-class",
        "barsanti-sodan",
        "core/scojo.py",
        "    return 0 if runtime_opt_s < SHORT_S else 1 if runtime_opt_s < LONG_S else 2",
        "    return 0 if runtime_opt_s < SHORT_S else 1",
        "no long class: long jobs share the medium priority level",
    ),
    Mutation(
        "scojo-no-aging",
        "barsanti-sodan",
        "core/scojo.py",
        "    return klass if one_class else 0",
        "    return klass + 1",
        "aging never raises a job's priority",
    ),
    Mutation(
        "scojo-table1-slope",
        "barsanti-sodan",
        "core/speedup.py",
        "            return opt + (s - 1) * (hi - opt)",
        "            return opt + (s - 1) * (opt - lo) / 0.5",
        "Table 1's speedup above N_opt drawn on the line below it (S(2 N_opt) = 1.15 N_opt, not 0.8)",
    ),
    # -- Klein & Perez: Algorithms 2 and 3, stretching and compacting -----------------------------
    Mutation(
        "kp-stretch-limit",
        "klein-perez",
        "core/evolving/fitting.py",
        "            t_eas = t - l * dp  # its earliest allowed start",
        "            t_eas = t - 2 * l * dp  # its earliest allowed start",
        "a fit stretched beyond its limit: a stage may last 2 l times its duration",
    ),
    Mutation(
        "kp-first-stage-stretched",
        "klein-perez",
        "core/evolving/fitting.py",
        "        rest.insert(0, d)  # l. 33: the first stage is moved, not stretched",
        "        rest.insert(0, tail - t)  # l. 33: the first stage is moved, not stretched",
        "the first stage is stretched up to the next one instead of moved",
    ),
    Mutation(
        "kp-compacting-ignored",
        "klein-perez",
        "core/evolving/fitting.py",
        "    return c_start, tuple(m_durations[::-1])",
        "    return start, tuple(durations)",
        "compacting's result thrown away: +c is the base fit",
    ),
    Mutation(
        "kp-cbf-longest-stage",
        "klein-perez",
        "core/evolving/planning.py",
        "    return ((sum(d for d, _ in stages), max((n for _, n in stages), default=0)),)",
        "    return ((max(d for d, _ in stages), max((n for _, n in stages), default=0)),)",
        "CBF sees an application as its longest stage, not the sum of its stages",
    ),
    Mutation(
        "kp-mic-limit",
        "klein-perez",
        "core/evolving/planning.py",
        '    "mic": (2.0, False),',
        '    "mic": (3.0, False),',
        "mic's stretch limit l = 3 instead of 2",
    ),
]

PAPERS = {
    "perkovic-keleher": "Perković & Keleher",
    "downey": "Downey",
    "islam": "Islam et al.",
    "barsanti-sodan": "Barsanti & Sodan",
    "klein-perez": "Klein & Pérez",
}


def copy_tree(where: Path) -> Path:
    """The tracked files of this tree as they are now, in ``where/adaptsched`` (returned)."""
    listed = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z"], capture_output=True, check=True).stdout
    tree = where / "adaptsched"
    for name in listed.decode().split("\0"):
        source = REPO / name
        if name and source.is_file():
            target = tree / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return tree


def apply(tree: Path, mutation: Mutation) -> int:
    """Applies ``mutation`` to the copy; returns the number of the line it changes."""
    path = tree / mutation.path
    text = path.read_text()
    count = text.count(mutation.before)
    if count != 1:
        raise SystemExit(f"mutation {mutation.id}: {mutation.path} holds its text {count} times, not once")
    before, after = mutation.before.split("\n"), mutation.after.split("\n")
    changed = [i for i, (a, b) in enumerate(zip(before, after)) if a != b]
    if len(before) != len(after) or len(changed) != 1:
        raise SystemExit(f"mutation {mutation.id}: changes {len(changed)} lines, not one")
    offset = text.index(mutation.before)
    path.write_text(text.replace(mutation.before, mutation.after))
    return text[:offset].count("\n") + changed[0] + 1


def run_tests(tree: Path, paper: str, workers: int, maxfail: int) -> tuple[list[str], int, str, float]:
    """The paper's fast-tier tests in ``tree``, stopping after ``maxfail`` failures (0: never):
    (failed test ids, passed count, pytest's last line, seconds)."""
    files, keyword = TESTS[paper]
    command = ["nice", "-n", "10", sys.executable, "-m", "pytest", "-q", "--tb=no", "-rf", "-p", "no:cacheprovider"]
    command += ["-p", "no:randomly", "--tier", "fast", "--hypothesis-profile=ci", "-k", keyword, *files]
    if maxfail:
        command += [f"--maxfail={maxfail}"]
    if workers > 1:
        command += ["-n", str(workers)]
    env = {**os.environ, "PYTHONPATH": str(tree.parent), "PYTHONDONTWRITEBYTECODE": "1"}
    started = time.monotonic()
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True)
    seconds = time.monotonic() - started
    failed = sorted({m.group(1) for m in re.finditer(r"^(?:FAILED|ERROR) (\S+)", done.stdout, re.M)})
    last = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr.strip()[-300:]
    passed = int(m.group(1)) if (m := re.search(r"(\d+) passed", last)) else 0
    if done.returncode not in (0, 1) and not failed:
        failed = [f"(pytest exit {done.returncode}: {last})"]
    return failed, passed, last, seconds


def check(mutation: Mutation | None, paper: str, workers: int, maxfail: int = 0) -> Outcome:
    with tempfile.TemporaryDirectory(prefix="adaptsched-mutation-") as folder:
        tree = copy_tree(Path(folder))
        line = apply(tree, mutation) if mutation is not None else 0
        failed, passed, last, seconds = run_tests(tree, paper, workers, maxfail)
    return Outcome(mutation, line, failed, passed, seconds, last)


def short(test_id: str) -> str:
    return test_id.removeprefix("tests/")


def stops(maxfail: int) -> str:
    """How a mutated run ends, in words."""
    if maxfail == 1:
        return "stopping at the first failure: the test named is the first to catch the mutation"
    if maxfail:
        return f"stopping after {maxfail} failures: the tests named are the first to catch it"
    return "every test run: the tests named are all those that catch it"


def report(outcomes: dict[str, list[Outcome]], baselines: dict[str, Outcome], argv: list[str], meta: dict) -> str:
    caught = sum(bool(o.failed) for group in outcomes.values() for o in group)
    total = sum(len(group) for group in outcomes.values())
    lines = [
        "# Mutation check: what the fast tier catches",
        "",
        f"Made by `{' '.join(argv)}` on {meta['date']} at commit {meta['commit']}, load average "
        f"{meta['load_before']} before and {meta['load_after']} after ({meta['cpus']} CPUs), in "
        f"{meta['minutes']:.0f} min.",
        "",
        f"**{caught} of {total} mutations are caught by the fast tier.** Each is one line of a paper's core "
        "rule, changed in a copy of the tree; the paper's fast-tier tests then run there (`pytest --tier fast`, "
        f"derandomized, in the order listed, {stops(meta['maxfail'])}). Each paper's tests also run on the "
        "unmutated copy, where all must pass: its section says how they did.",
        "",
    ]
    for paper, group in outcomes.items():
        files, keyword = TESTS[paper]
        base = baselines[paper]
        lines += [
            f"## {PAPERS[paper]}",
            "",
            f'Tests: {", ".join(f"`{short(f)}`" for f in files)}, `-k "{keyword}"`; on the unmutated copy: '
            f"{base.summary} ({base.seconds:.0f} s).",
            "",
            "| mutation | where | the line, before and after | error | caught by |",
            "|---|---|---|---|---|",
        ]
        for o in group:
            m = o.mutation
            assert m is not None
            old, new = next((a, b) for a, b in zip(m.before.split("\n"), m.after.split("\n")) if a != b)
            catchers = ", ".join(f"`{short(t)}`" for t in o.failed[:6])
            if len(o.failed) > 6:
                catchers += f" and {len(o.failed) - 6} more"
            verdict = f"{len(o.failed)}: {catchers}" if o.failed else "**not caught**"
            lines.append(
                f"| `{m.id}` | `{m.path}:{o.line}` | `{old.strip()}` → `{new.strip()}` | {m.what} | {verdict} |"
            )
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--paper", action="append", choices=sorted(TESTS), help="only this paper (repeatable)")
    parser.add_argument("--mutation", action="append", help="only this mutation id (repeatable)")
    parser.add_argument("--workers", type=int, default=1, help="pytest-xdist workers per run (default 1)")
    parser.add_argument(
        "--maxfail", type=int, default=1, help="stop a mutated run after this many failing tests (0: run them all)"
    )
    parser.add_argument("--no-baseline", action="store_true", help="skip the runs of the unmutated copy")
    parser.add_argument("--report", type=Path, help="write the Markdown report here")
    args = parser.parse_args(argv)
    chosen = [
        m
        for m in MUTATIONS
        if (not args.paper or m.paper in args.paper) and (not args.mutation or m.id in args.mutation)
    ]
    if not chosen:
        parser.error("no mutation selected")
    meta = {"date": datetime.date.today().isoformat(), "commit": commit(), "load_before": load()}
    meta["cpus"] = os.cpu_count()
    meta["maxfail"] = args.maxfail

    started = time.monotonic()
    baselines: dict[str, Outcome] = {}
    outcomes: dict[str, list[Outcome]] = {}
    for mutation in chosen:
        paper = mutation.paper
        if paper not in baselines and args.no_baseline:
            baselines[paper] = Outcome(None, summary="not run (--no-baseline)")
        elif paper not in baselines:
            baselines[paper] = base = check(None, paper, args.workers)
            print(f"{paper}: unmutated, {base.summary} ({base.seconds:.0f} s)", flush=True)
            if base.failed:
                print(f"  failing without a mutation: {', '.join(base.failed)}", flush=True)
        outcome = check(mutation, paper, args.workers, args.maxfail)

        outcomes.setdefault(paper, []).append(outcome)
        said = f"caught by {len(outcome.failed)}" if outcome.failed else "NOT CAUGHT"
        print(f"  {mutation.id} ({mutation.path}:{outcome.line}): {said} ({outcome.seconds:.0f} s)", flush=True)
    meta["load_after"] = load()
    meta["minutes"] = (time.monotonic() - started) / 60
    text = report(outcomes, baselines, ["benchmarks/mutations.py", *(argv or sys.argv[1:])], meta)
    if args.report:
        args.report.parent.mkdir(parents=True, exist_ok=True)
        args.report.write_text(text + "\n")
        print(f"report: {args.report}")
    missed = [o.mutation.id for group in outcomes.values() for o in group if not o.failed and o.mutation]
    broken = [paper for paper, base in baselines.items() if base.failed]
    if missed:
        print(f"not caught: {', '.join(missed)}")
    if broken:
        print(f"tests failing without a mutation: {', '.join(broken)}")
    return 1 if missed or broken else 0


if __name__ == "__main__":
    sys.exit(main())
