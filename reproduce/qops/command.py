"""``adaptsched reproduce qops``: its options, and the one place its plan runs."""

from __future__ import annotations

import argparse
from pathlib import Path

from adaptsched.errors import UsageError, positive_int
from adaptsched.reproduce.runner import DEFAULT, Setup, Stopwatch

from .plan import DEFAULT_SEGMENT, TRACES, parse_segment

NAME = "qops"
HELP = (
    "Islam et al., Analyzing and Minimizing the Impact of Opportunity Cost in QoS-aware Job "
    "Scheduling (Tables 1, 2), on SDSC-SP2 and CTC-SP2"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--trace",
        action="append",
        metavar="FILE",
        help="SWF trace to replay instead of ../shared/traces' copy (repeatable; docs/getting-started.md "
        "says where each comes from): SDSC-SP2-1998-4.2-cln.swf.gz and CTC-SP2-1996-3.1-cln.swf.gz, "
        "matched by name, or NAME=FILE",
    )
    parser.add_argument("--jobs", type=positive_int, default=10000, help="jobs per trace (default 10,000)")
    parser.add_argument(
        "--seeds",
        type=positive_int,
        default=3,
        help="draws of the urgent (and, at high load, duplicated) jobs per scenario (default 3)",
    )
    parser.add_argument(
        "--qos-trace", action="append", choices=tuple(TRACES), help="only this trace (repeatable; default both)"
    )
    parser.add_argument(
        "--segment",
        action="append",
        type=segment,
        metavar="load|first|last|START:END",
        help=f"which part of each trace: load, the window of --jobs jobs whose offered load is nearest the "
        f"paper's (89 %% SDSC, 74 %% CTC; windows start every --jobs/10 jobs), its first or last --jobs jobs, "
        f"or the converted jobs START to END (0-based, END excluded); repeatable (default {DEFAULT_SEGMENT})",
    )
    parser.add_argument(
        "--real-estimates",
        action="store_true",
        help="also sec. 5.4's scenarios with the traces' own estimates (C = 10, U = 20/50/80 %%, QoPS and VQoPS)",
    )


def segment(text: str) -> str:
    """argparse type of ``--segment`` (a usage error, exit 2, when malformed)."""
    import argparse

    try:
        return parse_segment(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected load, first, last or START:END (whole numbers, START < END), got {text!r}"
        ) from None


def main(
    out: str | Path,
    *,
    trace: list[str] | None = None,
    jobs: int = 10000,
    seeds: int = 3,
    qos_trace: list[str] | None = None,
    segment: list[str] | None = None,
    real_estimates: bool = False,
    setup: Setup = DEFAULT,
) -> Path:
    """``adaptsched reproduce qops``: its options as :func:`add_arguments` declares them (each
    repeatable: ``trace`` files, ``qos_trace`` names, ``segment`` texts; ``seeds`` a count), checked, then
    :func:`reproduce`."""
    traces = tuple(qos_trace) if qos_trace else tuple(TRACES)
    return reproduce(
        out,
        jobs=jobs,
        traces=traces,
        trace_files=trace_files(traces, trace),
        segments=tuple(dict.fromkeys(segment or [DEFAULT_SEGMENT])),
        seeds=seeds,
        real=real_estimates,
        setup=setup,
    )


def trace_files(traces: tuple[str, ...], files: list[str] | None) -> dict[str, str]:
    """``--trace``: which file replaces which trace. A file is ``NAME=FILE`` or named after its
    trace (``SDSC-SP2-1998-4.2-cln.swf.gz``, or an excerpt ``SDSC-SP2-...``); with a single
    ``--qos-trace`` a single file replaces that trace whatever its name."""
    from adaptsched.workloads.traces import trace_of_file

    mapping: dict[str, str] = {}
    files = files or []
    for text in files:
        given, sep, path = text.partition("=")
        name: str | None = given
        if not (sep and given in traces):
            name, path = trace_of_file(text), text
            if name is None and len(traces) == 1 and len(files) == 1:
                name = traces[0]
        if name is None or name not in traces:
            raise UsageError(
                f"--trace {text}: say which trace it replaces, as NAME=FILE with NAME among {', '.join(traces)} "
                "(or keep the archive's file name, e.g. SDSC-SP2-1998-4.2-cln.swf.gz)"
            )
        if name in mapping:
            raise UsageError(f"--trace: two files for {name}: {mapping[name]} and {path}")
        mapping[name] = path
    return mapping


def reproduce(
    out: str | Path = "results/qops",
    *,
    jobs: int = 10000,
    traces: tuple[str, ...] = tuple(TRACES),
    trace_files: dict[str, str] | None = None,
    segments: tuple[str, ...] = (DEFAULT_SEGMENT,),
    seeds: int = 3,
    setup: Setup = DEFAULT,
    variants: dict[str, str] | None = None,
    only=None,
    real: bool = False,
) -> Path:
    """Runs every scenario (resuming in ``out``) and writes the report
    (:meth:`Setup.report_folder`). ``trace_files`` maps a trace name to its SWF file
    (default: as :mod:`adaptsched.workloads.traces` finds them). ``variants`` maps one of our
    schedulers (``qops``, ``dvqops``) to a scheduler file run in its place with the same options
    (another reading of the paper, run through the same pipeline and checked by the same claims:
    tests/test_wrong_reading_qops.py). ``only``: just these (C, U, load, estimates) scenarios,
    without Table 2 (:func:`.plan.runs`)."""
    from adaptsched.platforms.simgrid import write_cluster
    from adaptsched.workloads.traces import find_trace

    from .plan import analyse_run, runs, trace_windows
    from .report import write_report

    clock = Stopwatch()
    for trace in traces:  # every trace is there before anything runs
        find_trace(trace, (trace_files or {}).get(trace))
    out, inputs, setup = setup.prepare(out)
    scenarios, plan, batch = runs(
        inputs, traces, jobs=jobs, trace_files=trace_files, segments=segments, seeds=seeds, only=only, real=real
    )
    setup.say(f"{len(scenarios)} scenarios, {len(batch)} runs ({setup.engine} engine)")
    platforms = {}
    for trace in traces:
        hosts = TRACES[trace][1]
        platforms[trace] = str(write_cluster(hosts, inputs / f"cluster{hosts}.xml"))
    folder = out / setup.engine
    variants = variants or {}
    grid = [  # one grid over both traces, each run on its trace's machine
        setup.grid_run(
            folder, name, variants.get(scheduler, scheduler), options, workload=path, platform=platforms[trace]
        )
        for trace, name, scheduler, options, path in batch
    ]
    results = setup.run_batch(grid, folder, analyse_run)
    windows = {t: trace_windows(t, jobs=jobs, trace_files=trace_files) for t in traces} if "load" in segments else {}
    report = write_report(
        setup.report_folder(out),
        scenarios,
        plan,
        results,
        traces=traces,
        jobs=jobs,
        engine=setup.engine,
        wall_s=clock.wall_s,
        inputs=inputs,
        segments=segments,
        seeds=seeds,
        command=setup.command,
        when=clock.when(),
        windows=windows,
    )
    setup.say(f"report: {report}")
    return report
