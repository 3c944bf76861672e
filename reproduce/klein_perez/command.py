"""``adaptsched reproduce klein-perez``: its options, and the one place its plan runs."""

from __future__ import annotations

import time
from pathlib import Path

from adaptsched.errors import positive_int

NAME = "klein-perez"
HELP = (
    "Klein & Pérez, Scheduling rigid, evolving applications on homogeneous resources (RR-7205, "
    "Tables 1-2), in-process, with an engine check of the first tests"
)


def _count(text: str) -> int:
    """A whole number >= 0 (0: no engine check)."""
    return 0 if text.strip() == "0" else positive_int(text)


def add_arguments(parser) -> None:
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


def run(args) -> int:
    reproduce(
        out=args.out,
        tests=args.tests,
        hosts=args.hosts,
        seed=args.seed,
        engine_tests=args.engine_tests,
        engine=args.engine,
        batsim=args.batsim,
        workers=args.workers,
        scheduler_address=args.scheduler_address,
        report_dir=args.report_dir,
        command=args.command_line,
        say=args.say,
    )
    return 0


def engine_check(
    tests: int, hosts: int, seed: int, *, out, engine, batsim, workers, scheduler_address=None, say
) -> dict:
    """The first ``tests`` tests under the six variants through the ``evolving`` plugin."""
    from adaptsched.platforms.simgrid import write_cluster
    from adaptsched.reproduce.runner import Job, prepare, run_batch
    from adaptsched.workloads.evolving import write_tests

    from .plan import analyse_run, engine_runs

    out, inputs, batsim = prepare(out, engine, batsim)
    platform = write_cluster(hosts, inputs / f"cluster{hosts}.xml")
    paths = write_tests(inputs / f"tests_seed{seed}_n{hosts}", tests, hosts=hosts, seed=seed)
    plan = engine_runs(tests)
    batch = [Job(name, "evolving", {"variant": v}, str(paths[t - 1])) for name, t, v in plan]
    say(f"engine check: {len(batch)} runs ({tests} tests x 6 variants, {engine} engine)")
    results = run_batch(
        batch,
        None,
        platform,
        out / engine,
        engine=engine,
        batsim=batsim,
        analyse=analyse_run,
        workers=workers,
        scheduler_address=scheduler_address,
        say=say,
    )
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
        "engine": engine,
        "runs": len(plan),
        "copies": copies,
        "as_planned": as_planned,
        "sound": sound,
        "equal": equal,
        "failures": failures,
    }


def reproduce(
    out="results/klein-perez",
    *,
    tests: int = 1000,
    hosts: int = 100,
    seed: int = 1,
    engine_tests: int = 10,
    engine: str = "embedded",
    batsim=None,
    workers=None,
    scheduler_address: str | None = None,
    report_dir=None,
    command: str = "",
    say=print,
) -> Path:
    """In-process Tables 1-2, the calibration, the engine check; writes the report into
    ``report_dir`` (default ``out/report-ENGINE``); returns its path."""
    from adaptsched.analysis.evolving import summarise
    from adaptsched.core.evolving import schedule
    from adaptsched.workloads.evolving import check_hosts, generate_tests

    from .plan import VARIANTS, calibration, in_process
    from .report import write_report

    begin = time.perf_counter()
    check_hosts(hosts)
    cases = generate_tests(tests, seed)
    say(f"{tests} tests (seed {seed}) on {hosts} nodes: 6 variants in-process")
    results, rows, stats = in_process(cases, hosts)
    summary = {v: summarise(results[v]) for v in VARIANTS}
    say(f"in-process done in {time.perf_counter() - begin:.0f} s; n_max calibration")
    calib = calibration(cases)
    checked = None
    if engine_tests:
        checked = engine_check(
            min(engine_tests, tests),
            hosts,
            seed,
            out=out,
            engine=engine,
            batsim=batsim,
            workers=workers,
            scheduler_address=scheduler_address,
            say=say,
        )
    gantt = {v: schedule(cases[0], hosts, v) for v in VARIANTS}
    report = write_report(
        Path(report_dir) if report_dir else Path(out) / f"report-{engine}",
        summary=summary,
        rows=rows,
        calibration=calib,
        stats=stats,
        engine=checked,
        gantt_plans=gantt,
        tests=tests,
        hosts=hosts,
        seed=seed,
        wall_s=time.perf_counter() - begin,
        command=command,
    )
    say(f"report: {report}")
    return report
