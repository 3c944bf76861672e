"""``adaptsched check``: hold a scheduler (one's own plugin file, or one of ours) to the checks
adaptsched's schedulers pass (:mod:`adaptsched.checker`)."""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

from adaptsched.errors import NO_ANSWER, UsageError, finite_float

if TYPE_CHECKING:
    from adaptsched.checker import CheckReport

from .common import (
    EXIT_ERROR,
    EXIT_NOTHING_CHECKED,
    EXIT_OK,
    Subparsers,
    add_energy_option,
    add_engine_options,
    add_seed_option,
    checked_platform,
    output_folder,
    say,
)


def register(sub: Subparsers) -> None:
    p = sub.add_parser(
        "check",
        help="check a scheduler's schedules: invariants on small workloads, both engines, fuzzing",
        description="Runs the scheduler on small workloads (built-in cases unless --workload) and checks "
        "every schedule: no host used twice, every job ends, no start before submission, recorded "
        "reservations kept, allocation sizes as requested; with --fuzz, random workloads too. The first "
        "violation is shrunk to the smallest workload showing it, written as a JSON workload to replay. "
        "A workload the scheduler's declared needs refuse is not run: reported as refused, with the reason, "
        "and not checked. Exit status 0: all checks pass on the workloads run; 1: a violation (the report says "
        "which); 3: nothing was checked (every workload refused, or none to run).",
    )
    p.add_argument("scheduler", metavar="PLUGIN.py|NAME", help="a plugin file, or an adaptsched scheduler's name")
    p.add_argument("--workload", help="check on this workload (Batsim JSON or SWF) instead of the built-in cases")
    p.add_argument("--platform", help="SimGrid XML file or number of hosts (default: each case's own)")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="scheduler option")
    p.add_argument(
        "--engine",
        choices=("embedded", "batsim", "both"),
        default="embedded",
        help="embedded (default), batsim (real Batsim), or both: then both must write the same _jobs.csv",
    )
    add_engine_options(p, engine=False)
    p.add_argument(
        "--transport",
        choices=("inprocess", "zmq"),
        default="inprocess",
        help="how the embedded engine runs the plugin: inprocess (default, fastest) or zmq (in its own "
        "process, as real Batsim runs it: a plugin that calls os._exit or crashes the interpreter is then "
        "reported as a crash; in-process it ends check with it)",
    )
    p.add_argument(
        "--scheduler-timeout",
        type=finite_float,
        metavar="SECONDS",
        help="an embedded run stops, as a crash, when the plugin takes longer than this to answer one "
        "message (default 60; 0: wait without a limit, e.g. to debug the plugin). Real Batsim waits for "
        "its scheduler without a limit: with --engine both, a workload that timed out is not run on it",
    )
    p.add_argument("--fuzz", type=float, default=0.0, metavar="SECONDS", help="fuzz with random workloads this long")
    p.add_argument(
        "--shrink-time",
        type=float,
        default=120.0,
        metavar="SECONDS",
        help="time to shrink a failing case (default 120)",
    )
    add_seed_option(p)
    add_energy_option(p)
    p.add_argument("--out", help="folder for the runs and the failing workload (default results/check/NAME)")
    p.set_defaults(func=cmd_check)


def cmd_check(args: argparse.Namespace) -> int:
    from adaptsched.checker import Target, check_scheduler
    from adaptsched.checker.runs import SCHEDULER_TIMEOUT_S
    from adaptsched.engines.run import find_batsim_or_fail
    from adaptsched.engines.run.spec import NO_TIMEOUT_ON_BATSIM, host_count, option_values, resolve_scheduler
    from adaptsched.platforms.simgrid import read_platform

    if args.engine == "batsim" and args.scheduler_timeout:  # (0, wait, is what real Batsim does)
        raise UsageError(NO_TIMEOUT_ON_BATSIM)
    if args.engine == "batsim" and args.transport != "inprocess":
        raise UsageError("--transport chooses how the embedded engine runs the plugin: add --engine embedded or both")
    if args.fuzz < 0 or args.shrink_time < 0 or (args.scheduler_timeout or 0) < 0:
        raise UsageError("--fuzz, --shrink-time and --scheduler-timeout take a number of seconds >= 0")
    resolve_scheduler(args.scheduler)  # a clear error for an unknown scheduler or a missing file
    engines = ("embedded", "batsim") if args.engine == "both" else (args.engine,)
    batsim = find_batsim_or_fail(args.batsim) if "batsim" in engines else None
    timeout_s = SCHEDULER_TIMEOUT_S if args.scheduler_timeout is None else args.scheduler_timeout or None  # 0: wait
    target = Target(
        args.scheduler, option_values(args.option), engines, batsim, args.transport, timeout_s, energy=args.energy
    )
    platform = host_count(checked_platform(args.platform)) if args.platform else None
    nb_hosts = platform if isinstance(platform, int) else read_platform(platform).nb_hosts if platform else None
    stem = Path(args.scheduler).name.split(".")[0]
    out = output_folder(args.out or Path("results") / "check" / stem)
    shown = " ".join(f"{k}={v}" for k, v in target.options.items())
    say(f"adaptsched check {args.scheduler}" + (f" ({shown})" if shown else "") + f", outputs in {out}")
    report = check_scheduler(
        target,
        out,
        workload=args.workload,
        nb_hosts=nb_hosts,
        platform=platform,
        fuzz_s=args.fuzz,
        shrink_s=args.shrink_time,
        seed=args.seed,
        say=say,
    )
    if report.nothing_checked:
        say_nothing_checked(report, args)
        return EXIT_NOTHING_CHECKED
    if report.ok:
        refused = f" on the {report.ran} workloads run ({report.refused} refused up front, not checked)"
        say("all checks passed" + (refused if report.refused else ""))
        return EXIT_OK
    first = report.first
    assert first is not None
    say("")
    say(f"FAILED: {first.rule} ({first.kind}), found in case {report.first_case}:")
    say(f"  {first.message.strip()}")
    if report.smallest is not None:
        exact = "the smallest" if report.minimal else "a smaller one (shrinking ran out of time)"
        size = f"{report.smallest_jobs} job(s) on {report.smallest_hosts} host(s)"
        say(f"workload showing it, {exact}: {size}: {report.smallest}")
        replay = ["adaptsched", "run", "--scheduler", args.scheduler, "--workload", str(report.smallest)]
        replay += ["--platform", str(args.platform or report.smallest_hosts), "--out", str(out / "replay" / "run")]
        replay += [word for option in args.option for word in ("--option", option)]
        if "batsim" in engines and len(engines) == 1:
            replay += ["--engine", "batsim"]
        elif args.transport != "inprocess":
            replay += ["--transport", args.transport]
        if NO_ANSWER in first.message:  # the replay stops as the check's run did, rather than hang
            replay += ["--scheduler-timeout", f"{target.scheduler_timeout_s:g}"]
        say(f"replay it: {shlex.join(replay)}")
    return EXIT_ERROR


def say_nothing_checked(report: CheckReport, args: argparse.Namespace) -> None:
    """Why no workload was run, and what to give ``check`` instead."""
    given = ["the given workload"] if args.workload else [f"{len(report.cases)} built-in case(s)"] * bool(report.cases)
    drawn = [f"{report.fuzz.workloads} random workload(s)"] if report.fuzz else []
    counts = ", ".join(given + drawn) or "no built-in case fits these hosts"
    reasons = [case.refused for case in report.cases if case.refused] or report.refused_inputs
    say("")
    if reasons:
        say(f"nothing was checked: every workload was refused by the scheduler's declared needs ({counts}):")
        say(f"  {reasons[0]}")
        hint = "give a workload it accepts, e.g. one prepared as it says (then --workload OUT.json)"
    else:
        say(f"nothing was checked: no workload was run ({counts})")
        hint = "give a workload it accepts with --workload"
    if args.workload:
        hint += ", or leave out --workload: the built-in cases carry what the scheduler declares it needs"
    elif args.platform and not report.cases:
        hint += ", or a larger --platform"
    say(hint)
