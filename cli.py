"""The ``adaptsched`` command line.

Exit status, the same for every command (docs/errors.md):

* ``0``: success;
* ``1``: error: bad input (the message names file, line and field), a failed run, an output
  that cannot be written, the outputs of a run that did not finish, runs that cannot be
  compared; and "internal error" for a bug (please report it);
* ``2``: usage error: unknown command or option, missing argument, argument value out of
  range or arguments that contradict each other (argparse's convention, which
  :class:`~adaptsched.errors.UsageError` follows);
* ``130``: interrupted (Ctrl-C: 128 + SIGINT, as shells report it).

Errors print one paragraph on stderr, ``adaptsched COMMAND: error: ...``, never a
traceback; set ADAPTSCHED_DEBUG=1 to see one.
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import shlex
import sys
import tempfile
import textwrap
from pathlib import Path

from adaptsched import __version__
from adaptsched.errors import AdaptschedError, UsageError, file_problem, positive_int

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


def _say(*args):
    print(*args, flush=True)


def output_folder(folder, option: str = "--out", value=None) -> Path:
    """Creates ``folder`` (and its parents) and checks that files can be written in it, before
    any long computation; a clear error otherwise. ``value``: the option's value, if not ``folder``."""
    folder = Path(folder)
    shown = f"{option} {value if value is not None else folder}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        reason = error.strerror or str(error)
        if error.errno in (errno.EEXIST, errno.ENOTDIR):
            reason = "a file is in the way (a folder is needed there)"
        raise AdaptschedError(f"{shown}: cannot create the folder {folder}: {reason}") from None
    try:
        tempfile.TemporaryFile(dir=folder).close()
    except OSError as error:
        raise AdaptschedError(f"{shown}: cannot write files in {folder}: {error.strerror or error}") from None
    return folder


# -- run ----------------------------------------------------------------------------
def cmd_run(args):
    from adaptsched.engines.run import run

    if args.platform.strip().lstrip("+-").isdigit() and int(args.platform) < 1:
        raise UsageError(f"--platform {args.platform}: a platform needs at least one host")
    output_folder(Path(args.out).parent, "--out", args.out)
    result = run(
        args.scheduler,
        args.workload,
        args.platform,
        args.out,
        engine=args.engine,
        transport=args.transport,
        scheduler_timeout_s=args.scheduler_timeout,
        options=args.option,
        batsim=args.batsim,
        dynamic_jobs=args.dynamic_jobs,
        ack_dynamic_jobs=args.ack_dynamic_jobs,
        profile_reuse=args.profile_reuse,
        progress=None if args.progress == "auto" else args.progress == "on",
        pin_cpu=not args.no_pin,
        schedule_trace=args.schedule_trace,
        say=_say,
    )
    rate = result.nb_jobs / result.wall_s if result.wall_s > 0 else float("inf")
    _say(
        f"{result.scheduler} on {result.nb_hosts} hosts ({result.engine} engine, {result.transport}): "
        f"{result.nb_jobs} jobs "
        f"in {result.wall_s:.1f} s ({rate:.0f} jobs/s)"
    )
    _say(f"outputs: {result.jobs_csv}, {result.schedule_csv}, {result.prefix}_machine_states.csv")
    for note in result.notes:
        _say(f"note: {note}")
    if args.report:
        from adaptsched.analysis import report_run

        report = report_run(result.prefix, bound_s=args.bound, gantt_window=args.window)
        _say(report["text"])
        _say(f"report: {report['markdown']}, {report['gantt']}")
    return 0


# -- schedulers ---------------------------------------------------------------------
def cmd_schedulers(args):
    from adaptsched import schedulers as registry

    for name, (_, description, _) in registry.SCHEDULERS.items():
        core = registry.core_class(name)
        _say(f"{name}: {description}")
        _say(f"    plugin: {registry.plugin_path(name)}")
        for spec in core.Options.specs():
            allowed = f"; allowed: {spec.allowed}" if spec.allowed else ""
            _say(f"    --option {spec.name}=... (default {spec.default}{allowed}): {spec.help}")
    _say(
        "pybatsim's own schedulers (e.g. easyBackfill, fillerSched) and any .py pybatsim plugin path "
        "are accepted by 'adaptsched run --scheduler' too."
    )
    return 0


# -- convert / platform ---------------------------------------------------------------
def cmd_convert(args):
    from adaptsched.workloads.convert import convert_swf, write_workload

    workload, report = convert_swf(
        args.trace,
        hosts=args.hosts,
        first=args.first,
        start_s=args.start,
        end_s=args.end,
        missing_estimate=args.missing_estimate,
        over_estimate=args.over_estimate,
        zero_runtime=args.zero_runtime,
    )
    if args.add_flurry:
        from adaptsched.workloads.flurry import add_flurry, parse_flurry

        workload = add_flurry(workload, parse_flurry(args.add_flurry))
    path = write_workload(workload, args.output)
    _say(report.summary())
    if args.add_flurry:
        flurry = workload["adaptsched"]["flurry"]
        _say(
            f"synthetic flurry (ours, not in the trace): {flurry['inserted']} jobs inserted, "
            f"{flurry['zero_runtime_dropped']} zero-runtime ones dropped (--zero-runtime), "
            f"{flurry['outside_workload']} outside the converted part; {flurry['spec']}"
        )
    _say(f"wrote {path} ({len(workload['jobs'])} jobs, nb_res={workload['nb_res']})")
    return 0


def cmd_platform(args):
    from adaptsched.platforms.simgrid import write_cluster

    if not Path(args.output).parent.is_dir():
        raise AdaptschedError(
            f"cannot write {args.output}: the folder {Path(args.output).parent} does not exist (create it first)"
        )
    path = write_cluster(args.hosts, args.output, speed=args.speed)
    _say(
        f"wrote {path}: {args.hosts} compute hosts at {args.speed} plus a master, no links "
        "(Batsim's messages take zero simulated time)"
    )
    return 0


# -- analysis -----------------------------------------------------------------------
def cmd_metrics(args):
    from adaptsched.analysis import compute_metrics, format_metrics
    from adaptsched.analysis.metrics import nothing_ran

    metrics = compute_metrics(
        args.jobs_csv, bound_s=args.bound, hosts=args.hosts, short_s=args.short, long_s=args.long, wide_hosts=args.wide
    )
    unfinished = nothing_ran(metrics)
    if unfinished:
        raise AdaptschedError(f"{metrics['source']}: {unfinished}")
    if metrics["hosts_source"].startswith("highest"):  # Batsim writes _schedule.csv at the very end
        print(
            f"adaptsched metrics: note: no _schedule.csv beside {metrics['source']}: if its run stopped early, "
            "these metrics cover only the jobs it finished",
            file=sys.stderr,
        )
    if args.json:
        print(json.dumps(metrics, indent=2))
    else:
        _say(format_metrics(metrics))
    return 0


def cmd_compare(args):
    from adaptsched.analysis import compare_runs

    output_folder(args.out)
    written = compare_runs(
        args.runs,
        args.out,
        bound_s=args.bound,
        hosts=args.hosts,
        allow_mixed=args.allow_mixed,
        gantt_window=args.window,
        say=lambda text: print(f"adaptsched compare: {text}", file=sys.stderr),
    )
    _say(Path(written["markdown"]).read_text())
    _say(
        f"comparison written to {Path(args.out).resolve()}: "
        + ", ".join(Path(p).name for key, p in written.items() if key != "json")
    )
    return 0


def _read_workload(path) -> dict:
    """A Batsim JSON workload as a dict, after Batsim's checks (errors name file, job, field)."""
    from adaptsched.workloads.batsim_json import load_workload

    load_workload(path)
    return json.loads(Path(path).read_text())


# -- mold-annotate -----------------------------------------------------------------------
def cmd_mold_annotate(args):
    from adaptsched.workloads.convert import write_workload
    from adaptsched.workloads.moldable import annotate

    workload = _read_workload(args.input)
    out, summary = annotate(workload, fraction=args.fraction, model=args.model, seed=args.seed, a_max=args.a_max)
    write_workload(out, args.output)
    a_max = f", A_max {summary['a_max']}" if args.model == "downey" else ""
    what = f"({args.model}, seed {args.seed}{a_max})"
    _say(f"{args.output}: {summary['moldable']} of {summary['jobs']} jobs moldable {what}")
    return 0


# -- scojo-stats ---------------------------------------------------------------------------
def cmd_scojo_stats(args):
    import json

    from adaptsched.workloads.scojo_stats import scojo_stats

    stats = scojo_stats([_read_workload(path) for path in args.inputs], names=list(args.inputs))
    with open(args.output, "w") as handle:
        json.dump(stats, handle, indent=1)
    means = ", ".join(f"{c} {stats['mean_n_opt'][c]:.2f}" for c in ("short", "medium", "long"))
    _say(f"{args.output}: {stats['jobs']} jobs over {stats['days']:.1f} days; mean N_opt {means}")
    return 0


# -- generate ----------------------------------------------------------------------------
def cmd_generate(args):
    """One command for every model: the model's block (in build_parser) gives ``args.build``."""
    from adaptsched.workloads.convert import write_workload
    from adaptsched.workloads.stats import summary_text
    from adaptsched.workloads.swf import write_swf

    workload = args.build(args)
    write_workload(workload, args.output)
    _say(f"{args.output}: {summary_text(workload)} ({args.model}, seed {args.seed})")
    if args.swf:
        write_swf(workload, args.swf, requested_procs_from_res=args.model == "downey")
        _say(f"{args.swf}: the same jobs as SWF")
    return 0


def _generate_downey(args):
    from adaptsched.workloads.downey import generate

    return generate(args.days, args.load, hosts=args.hosts, seed=args.seed)


def _generate_lublin(args):
    from adaptsched.workloads.lublin import generate

    return generate(
        args.jobs,
        hosts=args.hosts,
        mode=args.mode,
        aarr=args.aarr,
        start_hour=args.start_hour,
        seed=args.seed,
        clock=args.clock,
    )


def cmd_generate_evolving(args):
    """``generate evolving DIR``: one workload per test (Klein & Pérez sec. 5.1), all at time 0."""
    from adaptsched.workloads.evolving import write_tests

    if args.swf:
        raise UsageError("--swf: evolving applications have no SWF form (their stages would be lost)")
    paths = write_tests(args.output, args.tests, hosts=args.hosts, seed=args.seed)
    _say(f"{args.output}: {len(paths)} tests of 15-20 evolving applications on {args.hosts} nodes (seed {args.seed})")
    return 0


# -- estimates ---------------------------------------------------------------------------
def cmd_estimates(args):
    from adaptsched.workloads.convert import write_workload
    from adaptsched.workloads.estimates import annotate, parse_bins

    workload = _read_workload(args.input)
    out, summary = annotate(
        workload,
        model=args.model,
        max_estimate_s=args.max_estimate,
        bins=parse_bins(args.bin),
        seed=args.seed,
        truncate=args.truncate,
        source=args.input,
    )
    write_workload(out, args.output)
    _say(f"{args.output}: {summary['text']}")
    return 0


# -- qos-annotate --------------------------------------------------------------------------
def cmd_qos_annotate(args):
    from adaptsched.workloads.convert import write_workload
    from adaptsched.workloads.qos import annotate, high_load

    workload = _read_workload(args.input)
    out, summary = annotate(
        workload,
        urgent_fraction=args.urgent,
        urgent_cost=args.urgent_cost,
        deadline_factor=args.deadline_factor,
        unit_price=args.unit_price,
        exact=args.exact,
        seed=args.seed,
    )
    _say(f"{summary['urgent']} of {summary['jobs']} jobs urgent; offered load {summary['offered_load']:.3f}")
    if args.high_load:
        out, load = high_load(out, fraction=args.high_load, seed=args.seed)
        _say(
            f"high load: {load['jobs_before']} -> {load['jobs_after']} jobs, offered load "
            f"{load['load_before']:.3f} -> {load['load_after']:.3f}"
        )
    write_workload(out, args.output)
    _say(f"wrote {args.output}")
    return 0


# -- reproduce -------------------------------------------------------------------------
def cmd_reproduce(args):
    """Common to every paper: the results folder and the report folder are writable; then the
    paper's own ``command.run`` (``reproduce/<paper>/command.py``)."""
    args.out = args.out or f"results/{args.paper.NAME}"
    output_folder(args.out)
    if args.report_dir:
        output_folder(args.report_dir, "--report-dir")
    args.say = _say
    return args.paper.run(args)


def add_reproduce_parsers(sub) -> None:
    """``reproduce PAPER``: one sub-command per paper of :data:`adaptsched.reproduce.PAPERS`,
    with the paper's own options and the common ones."""
    from adaptsched.reproduce import commands

    p = sub.add_parser("reproduce", help="reproduce a paper's experiments and write a report")
    papers = p.add_subparsers(dest="paper_name", metavar="PAPER")
    papers.required = True
    for command in commands():
        q = papers.add_parser(command.NAME, help=command.HELP, description=command.HELP)
        command.add_arguments(q)
        q.add_argument(
            "--out", help="results folder (default results/PAPER); an interrupted reproduction resumes there"
        )
        q.add_argument(
            "--report-dir",
            metavar="DIR",
            help="write the report (Markdown, CSV, PNG) into DIR, e.g. docs/results/PAPER (default OUT/report-ENGINE)",
        )
        q.add_argument("--engine", choices=("embedded", "batsim"), default="embedded")
        q.add_argument("--batsim", help="real Batsim executable (default: $BATSIM, then 'batsim' on PATH)")
        where = q.add_mutually_exclusive_group()
        where.add_argument(
            "--workers", type=positive_int, help="local Dask cluster: parallel runs (default: one per CPU)"
        )
        where.add_argument(
            "--scheduler-address",
            metavar="tcp://HOST:PORT",
            help="run on a running Dask cluster (docs/sweeps.md) instead of a local one",
        )
        q.set_defaults(func=cmd_reproduce, paper=command)


# -- sweep -------------------------------------------------------------------------------
def cmd_sweep(args):
    from adaptsched.sweep import run_sweep

    output_folder(args.out)
    grid, written = run_sweep(
        args.spec,
        args.out,
        scheduler_address=args.scheduler_address,
        workers=args.workers,
        shared_fs=args.shared_fs,
        batsim=args.batsim,
        progress=None if args.progress == "auto" else args.progress == "on",
        say=_say,
    )
    _say(f"table: {written['table']}; charts: " + (", ".join(p.name for p in written["charts"]) or "none"))
    _say(f"sweep: {grid.summary()}")
    if grid.failed:
        raise AdaptschedError(
            f"{len(grid.failed)} of {len(grid.results) + len(grid.failed)} runs failed twice (their last log lines "
            f"are above, their logs in {grid.folder}); the others are in {written['table']}. Run again to retry them."
        )
    return 0


# -- demo -----------------------------------------------------------------------------
def cmd_demo(args):
    from adaptsched.demo import demo

    output_folder(args.out)
    demo(out=args.out, jobs=args.jobs, hosts=args.hosts, engine=args.engine, trace=args.trace, say=_say)
    return 0


# -- parser -----------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="adaptsched",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Adaptive batch scheduling on Batsim: run schedulers on workloads, convert traces, "
        "analyse and compare schedules.",
        epilog=textwrap.dedent("""\
            examples:
              adaptsched demo
              adaptsched run --scheduler easy --workload trace.swf.gz --platform 338 --out results/easy --report
              adaptsched compare results/fcfs results/easy --out results/cmp
              adaptsched sweep examples/orders.toml --out results/sweep"""),
    )
    parser.add_argument("--version", action="version", version=f"adaptsched {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("run", help="simulate one scheduler on one workload")
    p.add_argument(
        "--scheduler",
        required=True,
        help="adaptsched name (see 'schedulers'), pybatsim built-in "
        "(easyBackfill, fillerSched...) or path of a .py pybatsim plugin",
    )
    p.add_argument("--workload", required=True, help="Batsim JSON, or SWF trace (.swf, .swf.gz) converted on the fly")
    p.add_argument("--platform", required=True, help="SimGrid platform XML, or a number of hosts")
    p.add_argument("--out", required=True, help="output prefix: writes OUT_jobs.csv and OUT_schedule.csv")
    p.add_argument(
        "--engine",
        choices=("embedded", "batsim"),
        default="embedded",
        help="embedded (default, pure Python) or batsim (real Batsim 4.2.x)",
    )
    p.add_argument(
        "--transport",
        choices=("inprocess", "zmq"),
        help="how the engine talks to the pybatsim plugin: inprocess (the embedded engine's default: "
        "the plugin runs in the engine's process) or zmq (a second process over ZeroMQ, as Batsim runs "
        "plugins; real Batsim's only way); docs/engines.md",
    )
    p.add_argument(
        "--scheduler-timeout",
        type=float,
        metavar="SECONDS",
        help="stop the run when the scheduler takes longer than this to answer one message (default: wait)",
    )
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="scheduler option")
    p.add_argument("--report", action="store_true", help="print metrics and draw a Gantt chart after the run")
    p.add_argument(
        "--window",
        metavar="START:END|job:ID",
        help="time window of the Gantt chart (with --report): START:END in simulation seconds or with a unit "
        "(12h:36h, 1d:2d), or job:ID for the span of one job's attempts "
        "(default: the busiest period, at most 2 days and 500 jobs)",
    )
    p.add_argument("--bound", type=float, default=10.0, help="bounded-slowdown bound in seconds (default 10)")
    p.add_argument("--batsim", help="real Batsim executable (default: $BATSIM, then 'batsim' on PATH)")
    p.add_argument(
        "--dynamic-jobs", action="store_true", help="allow dynamic job registration (Batsim's --enable-dynamic-jobs)"
    )
    p.add_argument("--ack-dynamic-jobs", action="store_true", help="acknowledge registered jobs")
    p.add_argument("--profile-reuse", action="store_true", help="keep profiles after their jobs end")
    p.add_argument(
        "--progress", choices=("auto", "on", "off"), default="auto", help="progress bar (auto: only on a terminal)"
    )
    p.add_argument("--no-pin", action="store_true", help="do not bind the engine and the scheduler to one CPU")
    p.add_argument(
        "--schedule-trace",
        "--paje",
        action="store_true",
        help="real Batsim only: also write its Pajé trace OUT_schedule.trace (off by default: large)",
    )
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("schedulers", help="list the schedulers, their options and plugin paths")
    p.set_defaults(func=cmd_schedulers)

    p = sub.add_parser("convert", help="convert an SWF trace to a Batsim JSON workload")
    p.add_argument("trace", help="SWF trace (.swf or .swf.gz)")
    p.add_argument("output", help="Batsim JSON workload to write")
    p.add_argument("--hosts", type=positive_int, help="machine size (default: the header's MaxNodes)")
    p.add_argument("--first", type=positive_int, help="keep only the first N jobs")
    p.add_argument("--start", type=float, help="keep jobs submitted at or after this SWF time (s)")
    p.add_argument("--end", type=float, help="keep jobs submitted before this SWF time (s)")
    p.add_argument(
        "--missing-estimate",
        default="runtime+1",
        help="walltime of jobs without an estimate: runtime+S (default runtime+1), runtime, factor:K or drop",
    )
    p.add_argument(
        "--over-estimate",
        default="keep",
        choices=("keep", "extend", "drop"),
        help="jobs running past their estimate: keep (killed at the walltime, default), extend, drop",
    )
    p.add_argument("--zero-runtime", default="drop", help="jobs with runtime 0: drop (default) or min:S")
    p.add_argument(
        "--add-flurry",
        metavar="SPEC",
        help="insert a synthetic flurry, marked in the workload's metadata: 'ctc' (our reconstruction "
        "of the CTC-SP2 flurry the cleaned log removed; docs/perkovic-keleher.md) and/or key=value pairs "
        "count, user, width, runtime (exp:MEAN, const:S), zeros, estimate, window=START:END, "
        "arrivals (even, uniform, gaps:FIRST:LAST), seed (workloads/flurry.py)",
    )
    p.set_defaults(func=cmd_convert)

    p = sub.add_parser("platform", help="write a homogeneous cluster platform for Batsim")
    p.add_argument("--hosts", type=positive_int, required=True, help="number of compute hosts (at least 1)")
    p.add_argument("--speed", default="1Gf", help="host speed (default 1Gf)")
    p.add_argument("output", help="platform XML to write")
    p.set_defaults(func=cmd_platform)

    p = sub.add_parser("metrics", help="metrics of a run (PREFIX_jobs.csv)")
    p.add_argument("jobs_csv", help="a Batsim _jobs.csv (or its prefix)")
    p.add_argument("--bound", type=float, default=10.0, help="bounded-slowdown bound in seconds (default 10)")
    p.add_argument("--hosts", type=positive_int, help="machine size (default: from _schedule.csv)")
    p.add_argument("--short", type=float, default=3600.0, help="short jobs run less than this (s, default 3600)")
    p.add_argument("--long", type=float, default=36000.0, help="long jobs run at least this (s, default 36000)")
    p.add_argument("--wide", type=positive_int, default=16, help="wide jobs use more hosts than this (default 16)")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(func=cmd_metrics)

    p = sub.add_parser("compare", help="compare runs: tables, charts and Gantt charts")
    p.add_argument("runs", nargs="+", help="run prefixes (or _jobs.csv files)")
    p.add_argument("--out", required=True, help="directory for the comparison")
    p.add_argument("--bound", type=float, default=10.0, help="bounded-slowdown bound in seconds (default 10)")
    p.add_argument("--hosts", type=positive_int, help="machine size (default: from _schedule.csv)")
    p.add_argument(
        "--window",
        metavar="START:END|job:ID",
        help="time window of the Gantt charts: START:END in simulation seconds or with a unit "
        "(12h:36h, 1d:2d), or job:ID for the span of one job's attempts "
        "(default: the busiest period, at most 2 days and 500 jobs)",
    )
    p.add_argument(
        "--allow-mixed",
        action="store_true",
        help="compare runs of different workloads or machine sizes anyway (refused by default)",
    )
    p.set_defaults(func=cmd_compare)

    p = sub.add_parser("generate", help="generate a synthetic workload from a model")
    p.set_defaults(func=cmd_generate)
    models = p.add_subparsers(dest="model", metavar="MODEL")
    models.required = True

    def generate_model(name: str, help: str, build, hosts: int) -> argparse.ArgumentParser:
        """A model's subcommand with the options every model shares; the caller adds its own."""
        g = models.add_parser(name, help=help, description=help)
        g.add_argument("output", help="Batsim JSON workload to write")
        g.add_argument("--hosts", type=positive_int, default=hosts, help=f"machine size (default {hosts})")
        g.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
        g.add_argument("--swf", help="also write the jobs as an SWF trace")
        g.set_defaults(build=build)
        return g

    g = generate_model("downey", "Downey (1996) moldable workload model", _generate_downey, 64)
    g.add_argument("--days", type=positive_int, default=10, help="simulated days (default 10)")
    g.add_argument("--load", type=float, default=0.75, help="offered load rho (default 0.75)")

    g = generate_model("lublin", "Lublin & Feitelson (2003) rigid-job workload model", _generate_lublin, 128)
    g.add_argument("--jobs", type=positive_int, default=10000, help="number of jobs (default 10000)")
    g.add_argument(
        "--mode", choices=("typeless", "typed"), default="typeless", help="parameter sets (default typeless)"
    )
    g.add_argument("--aarr", type=float, help="typeless AARR (SCOJO-P's alpha': 10.23 for W1, 9.83 for W2)")
    g.add_argument("--start-hour", type=int, default=0, help="hour of day at time 0 (default 0, midnight)")
    g.add_argument(
        "--clock",
        choices=("c", "exact"),
        default="c",
        help="c: truncate the arrival time at each arrival as the C program (default); exact: round on output",
    )

    g = generate_model(
        "evolving",
        "Klein & Pérez (2010) tests of rigid, evolving applications: OUTPUT is a folder of test0001.json...",
        None,
        100,
    )
    g.add_argument("--tests", type=positive_int, default=1000, help="tests, one workload each (default 1000)")
    g.set_defaults(func=cmd_generate_evolving)

    p = sub.add_parser("estimates", help="give jobs user runtime estimates (walltimes) from a model")
    p.add_argument("input", help="Batsim JSON workload (from 'generate', 'convert'...)")
    p.add_argument("output", help="Batsim JSON workload to write")
    p.add_argument(
        "--model", required=True, choices=("exact", "tsafrir"), help="exact (= runtime) or Tsafrir et al. (2005)"
    )
    p.add_argument(
        "--max-estimate",
        type=float,
        metavar="M",
        help="tsafrir: the largest estimate (s; default: the longest runtime)",
    )
    p.add_argument(
        "--bin",
        action="append",
        default=[],
        metavar="SEC=PCT",
        help="tsafrir: a user bin, PCT %% of the jobs estimate SEC seconds (SEC may be M); repeatable",
    )
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--truncate", action="store_true", help="tsafrir: shorten runtimes above M to M (default: error)")
    p.set_defaults(func=cmd_estimates)

    p = sub.add_parser("mold-annotate", help="make jobs of a Batsim JSON workload moldable (speedup model)")
    p.add_argument("input", help="Batsim JSON workload (e.g. from 'convert')")
    p.add_argument("output", help="annotated Batsim JSON workload to write")
    p.add_argument("--model", default="downey", choices=("downey", "linear", "scojo-p"), help="speedup model")
    p.add_argument("--fraction", type=float, default=1.0, help="fraction of moldable jobs (default 1)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument(
        "--a-max",
        default="machine",
        help="downey: A log-uniform up to the machine size (machine, default), the job's request (request) "
        "or this number (e.g. 3000 for SCOJO-P's Fig. 14)",
    )
    p.set_defaults(func=cmd_mold_annotate)

    p = sub.add_parser("scojo-stats", help="SCOJO-P's arrivals per half hour and class means, from workloads")
    p.add_argument("inputs", nargs="+", metavar="W.json", help="Batsim JSON workloads (not the evaluated ones)")
    p.add_argument("output", metavar="OUT.json", help="statistics file to write (scojo-p's option stats)")
    p.set_defaults(func=cmd_scojo_stats)

    p = sub.add_parser("qos-annotate", help="add deadlines, urgency and prices to a Batsim JSON workload")
    p.add_argument("input", help="Batsim JSON workload (e.g. from 'convert')")
    p.add_argument("output", help="annotated Batsim JSON workload to write")
    p.add_argument("--urgent", type=float, default=0.2, help="fraction of urgent jobs (default 0.2)")
    p.add_argument("--urgent-cost", type=float, default=10.0, help="price factor C of urgent jobs (default 10)")
    p.add_argument("--deadline-factor", type=float, default=5.0, help="deadline = submit + F x estimate (default 5)")
    p.add_argument("--unit-price", type=float, default=0.1, help="price per processor-second (default 0.1)")
    p.add_argument("--exact", action="store_true", help="exact estimates: estimate = runtime (walltime runtime + 1 s)")
    p.add_argument(
        "--high-load",
        type=float,
        nargs="?",
        const=0.4,
        default=None,
        metavar="FRACTION",
        help="duplicate this fraction of the jobs (default 0.4 when given)",
    )
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.set_defaults(func=cmd_qos_annotate)

    add_reproduce_parsers(sub)

    p = sub.add_parser("sweep", help="run a grid of experiments declared in a TOML file, on Dask")
    p.add_argument("spec", help="sweep spec (TOML): schedulers and option grids, workloads, platforms, metrics")
    p.add_argument("--out", required=True, help="results folder: runs.csv, charts, runs/ (a rerun skips done runs)")
    where = p.add_mutually_exclusive_group()
    where.add_argument(
        "--scheduler-address",
        metavar="tcp://HOST:PORT",
        help="a running Dask scheduler (dask scheduler / dask worker, dask-jobqueue); default: a local cluster",
    )
    where.add_argument(
        "--workers", type=positive_int, help="local cluster: worker processes, one run each (default: one per CPU)"
    )
    p.add_argument(
        "--shared-fs",
        action="store_true",
        help="workers see --out and the inputs under the same paths: nothing is shipped (default: shipped)",
    )
    p.add_argument("--batsim", help="real Batsim executable, for engine = 'batsim' (default: $BATSIM, then PATH)")
    p.add_argument("--progress", choices=("auto", "on", "off"), default="auto", help="progress bar (auto: terminal)")
    p.set_defaults(func=cmd_sweep)

    p = sub.add_parser("demo", help="replay the first 5,000 CTC-SP2 jobs under fcfs, easy and conservative")
    p.add_argument("--out", default="results/demo", help="results folder (default results/demo)")
    p.add_argument("--jobs", type=positive_int, default=5000, help="number of jobs (default 5000)")
    p.add_argument("--hosts", type=positive_int, default=338, help="machine size (default 338, CTC's batch partition)")
    p.add_argument("--engine", choices=("embedded", "batsim"), default="embedded")
    p.add_argument(
        "--trace",
        metavar="FILE",
        help="SWF trace (default: ../shared/traces/CTC-SP2-1996-3.1-cln.swf.gz, else the committed excerpt of its "
        "first 5,000 jobs)",
    )
    p.set_defaults(func=cmd_demo)
    return parser


def main(argv=None) -> int:
    """Runs one command; returns its exit status (module doc). argparse's own usage errors
    exit 2 from ``parse_args``."""
    parser = build_parser()
    args = parser.parse_args(argv)
    args.command_line = shlex.join(["adaptsched", *(sys.argv[1:] if argv is None else map(str, argv))])
    name = f"adaptsched {args.command}"
    try:
        return args.func(args)
    except UsageError as error:
        print(f"{name}: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except AdaptschedError as error:
        print(f"{name}: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print(f"{name}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader went away (``adaptsched schedulers | head``): a normal end
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nothing more to flush at exit
        return EXIT_OK
    except OSError as error:  # a file the user named or a full disk: not a bug
        if os.environ.get("ADAPTSCHED_DEBUG"):
            raise
        print(f"{name}: error: {file_problem(error)}", file=sys.stderr)
        return EXIT_ERROR
    except Exception as error:  # a bug: say so in one paragraph, traceback on demand
        if os.environ.get("ADAPTSCHED_DEBUG"):
            raise
        print(
            f"{name}: internal error: {type(error).__name__}: {error} "
            "(set ADAPTSCHED_DEBUG=1 for the traceback, and please report it)",
            file=sys.stderr,
        )
        return EXIT_ERROR
