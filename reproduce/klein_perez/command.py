"""``adaptsched reproduce klein-perez``: its options, and the one place its plan runs."""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from adaptsched.errors import positive_int
from adaptsched.reproduce.runner import DEFAULT, Setup, Stopwatch

if TYPE_CHECKING:
    from adaptsched.workloads.evolving import Case

NAME = "klein-perez"
HELP = (
    "Klein & Pérez, Scheduling rigid, evolving applications on homogeneous resources (RR-7205, "
    "Tables 1-2): every test through the engine, cross-checked in-process"
)


def _count(text: str) -> int:
    """A whole number >= 0 (0: no engine run)."""
    return 0 if text.strip() == "0" else positive_int(text)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tests", type=positive_int, default=1000, help="random tests (default 1000, the paper's)")
    parser.add_argument(
        "--hosts",
        type=positive_int,
        default=None,
        help="n_max, the machine's nodes (default: calibrated on the paper's CBF utilisation and nos makespan, "
        "over 100 to 105; >= 75)",
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the tests (default 1)")
    parser.add_argument(
        "--engine-tests",
        type=_count,
        default=None,
        help="tests run through the engine under the six variants (default: all of them; fewer: the tables "
        "come from the in-process plans, said so in the report)",
    )


def reproduce(
    out: str | Path = "results/klein-perez",
    *,
    tests: int = 1000,
    hosts: int | None = None,
    seed: int = 1,
    engine_tests: int | None = None,
    setup: Setup = DEFAULT,
) -> Path:
    """The n_max calibration, every test in-process and (``engine_tests``, default all) through
    the engine, Tables 1-2 and the findings from the engine's outputs; writes the report
    (:meth:`Setup.report_folder`); returns its path."""
    from adaptsched.core.evolving import schedule
    from adaptsched.workloads.evolving import check_hosts, generate_tests

    from .plan import VARIANTS, calibration, choose_n_max, in_process
    from .report import Evidence, write_report

    clock = Stopwatch()
    cases = generate_tests(tests, seed)
    setup.say(f"{tests} tests (seed {seed}): n_max calibration over 100 to 105 nodes, in-process")
    calib = calibration(cases)
    chosen = hosts or choose_n_max(calib)
    check_hosts(chosen)
    setup.say(f"n_max = {chosen} ({'--hosts' if hosts else 'calibrated'}); 6 variants in-process")
    in_proc, rows, stats = in_process(cases, chosen)
    count = tests if engine_tests is None else min(engine_tests, tests)
    engine = engine_check(cases[:count], chosen, seed, out=out, setup=setup) if count else None
    evidence = Evidence(in_proc, engine, rows, calib, stats, chosen, calibrated=not hosts)
    gantt = {v: schedule(cases[0], chosen, v) for v in VARIANTS}
    report = write_report(
        setup.report_folder(Path(out).resolve()),
        evidence,
        gantt_plans=gantt,
        tests=tests,
        seed=seed,
        wall_s=clock.wall_s,
        when=clock.when(),
        command=setup.command,
        cases=cases,
    )
    setup.say(f"report: {report}")
    return report


def engine_check(cases: Sequence[Case], hosts: int, seed: int, *, out: str | Path, setup: Setup) -> dict[str, Any]:
    """Every test of ``cases`` under the six variants through the ``evolving`` plugin: the
    per-test metrics from the runs' ``_jobs.csv`` (:func:`.plan.engine_metrics`) and the checks
    of each run against its plan (:func:`.plan.analyse_run`)."""
    from adaptsched.platforms.simgrid import write_cluster
    from adaptsched.workloads.evolving import write_tests

    from .plan import analyse_run, engine_metrics, engine_runs, engine_summary

    out, inputs, setup = setup.prepare(out)
    platform = write_cluster(hosts, inputs / f"cluster{hosts}.xml")
    paths = write_tests(inputs / f"tests_seed{seed}_n{hosts}", len(cases), hosts=hosts, seed=seed)
    plan = engine_runs(len(cases))
    folder = out / setup.engine
    batch = [
        setup.grid_run(folder, name, "evolving", {"variant": v}, workload=paths[t - 1], platform=platform)
        for name, t, v in plan
    ]
    setup.say(f"engine: {len(batch)} runs ({len(cases)} tests x 6 variants, {setup.engine} engine)")
    begin = time.perf_counter()
    results = setup.run_batch(batch, folder, analyse_run)
    per_test, missing = engine_metrics(results, cases, hosts)
    summary = engine_summary(plan, results)
    summary.update(
        {"engine": setup.engine, "per_test": per_test, "missing": missing, "batch_s": time.perf_counter() - begin}
    )
    return summary


#: ``adaptsched reproduce klein-perez``: its options (:func:`add_arguments`) are reproduce's own.
main = reproduce
