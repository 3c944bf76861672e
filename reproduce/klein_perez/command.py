"""``adaptsched reproduce klein-perez``: its options, and the one place its plan runs."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from adaptsched.errors import positive_int
from adaptsched.reproduce.runner import DEFAULT, Setup, Stopwatch

NAME = "klein-perez"
HELP = (
    "Klein & Pérez, Scheduling rigid, evolving applications on homogeneous resources (RR-7205, "
    "Tables 1-2), in-process, with an engine check of the first tests"
)


def _count(text: str) -> int:
    """A whole number >= 0 (0: no engine check)."""
    return 0 if text.strip() == "0" else positive_int(text)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tests", type=positive_int, default=1000, help="random tests (default 1000, the paper's)")
    parser.add_argument(
        "--hosts", type=positive_int, default=100, help="n_max, the machine's nodes (default 100: our choice, >= 75)"
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the tests (default 1)")
    parser.add_argument(
        "--engine-tests",
        type=_count,
        default=10,
        help="tests run through the engine under the six variants and checked against their plans (default 10)",
    )


def engine_check(tests: int, hosts: int, seed: int, *, out: str | Path, setup: Setup) -> dict[str, Any]:
    """The first ``tests`` tests under the six variants through the ``evolving`` plugin."""
    from adaptsched.platforms.simgrid import write_cluster
    from adaptsched.workloads.evolving import write_tests

    from .plan import analyse_run, engine_runs

    out, inputs, setup = setup.prepare(out)
    platform = write_cluster(hosts, inputs / f"cluster{hosts}.xml")
    paths = write_tests(inputs / f"tests_seed{seed}_n{hosts}", tests, hosts=hosts, seed=seed)
    plan = engine_runs(tests)
    folder = out / setup.engine
    batch = [
        setup.grid_run(folder, name, "evolving", {"variant": v}, workload=paths[t - 1], platform=platform)
        for name, t, v in plan
    ]
    setup.say(f"engine check: {len(batch)} runs ({tests} tests x 6 variants, {setup.engine} engine)")
    results = setup.run_batch(batch, folder, analyse_run)
    failures, copies = [], 0
    as_planned = sound = equal = 0
    for name, _, _ in plan:
        r = results.get(name)
        if r is None or "error" in r:
            failures.append(f"{name}: {(r or {}).get('error', 'not run')}")
            continue
        copies += r["copies"]
        as_planned += not r["problems"]
        sound += not r["violations"]
        equal += not r["metrics_differ"]
        for key in ("problems", "violations", "metrics_differ"):
            failures += [f"{name}: {p}" for p in r[key][:3]]
    return {
        "tests": tests,
        "engine": setup.engine,
        "runs": len(plan),
        "copies": copies,
        "as_planned": as_planned,
        "sound": sound,
        "equal": equal,
        "failures": failures,
    }


def reproduce(
    out: str | Path = "results/klein-perez",
    *,
    tests: int = 1000,
    hosts: int = 100,
    seed: int = 1,
    engine_tests: int = 10,
    setup: Setup = DEFAULT,
) -> Path:
    """In-process Tables 1-2, the calibration, the engine check; writes the report
    (:meth:`Setup.report_folder`); returns its path."""
    from adaptsched.analysis.evolving import summarise
    from adaptsched.core.evolving import schedule
    from adaptsched.workloads.evolving import check_hosts, generate_tests

    from .plan import VARIANTS, calibration, in_process
    from .report import write_report

    clock = Stopwatch()
    check_hosts(hosts)
    cases = generate_tests(tests, seed)
    setup.say(f"{tests} tests (seed {seed}) on {hosts} nodes: 6 variants in-process")
    results, rows, stats = in_process(cases, hosts)
    summary = {v: summarise(results[v]) for v in VARIANTS}
    setup.say(f"in-process done in {clock.wall_s:.0f} s; n_max calibration")
    calib = calibration(cases)
    checked = None
    if engine_tests:
        checked = engine_check(min(engine_tests, tests), hosts, seed, out=out, setup=setup)
    gantt = {v: schedule(cases[0], hosts, v) for v in VARIANTS}
    report = write_report(
        setup.report_folder(Path(out).resolve()),
        summary=summary,
        rows=rows,
        calibration=calib,
        stats=stats,
        engine=checked,
        gantt_plans=gantt,
        tests=tests,
        hosts=hosts,
        seed=seed,
        wall_s=clock.wall_s,
        command=setup.command,
    )
    setup.say(f"report: {report}")
    return report


#: ``adaptsched reproduce klein-perez``: its options (:func:`add_arguments`) are reproduce's own.
main = reproduce
