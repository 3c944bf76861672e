"""``adaptsched convert`` and ``adaptsched platform``: a real trace and a machine as Batsim's inputs."""

from __future__ import annotations

import argparse
from pathlib import Path

from adaptsched.errors import AdaptschedError, UsageError, finite_float, positive_int
from adaptsched.formats.files import refuse_overwriting

from .common import Subparsers, add_hosts_option, say


def register(sub: Subparsers) -> None:
    p = sub.add_parser("convert", help="convert an SWF trace to a Batsim JSON workload")
    p.add_argument("trace", help="SWF trace (.swf or .swf.gz)")
    p.add_argument("output", help="Batsim JSON workload to write")
    add_hosts_option(p, "default: the header's MaxNodes")
    p.add_argument("--first", type=positive_int, help="keep only the first N jobs")
    p.add_argument("--start", type=finite_float, help="keep jobs submitted at or after this SWF time (s)")
    p.add_argument("--end", type=finite_float, help="keep jobs submitted before this SWF time (s)")
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
    add_hosts_option(p, "at least 1", required=True)
    p.add_argument("--speed", default="1Gf", help="host speed (default 1Gf)")
    p.add_argument(
        "--power",
        action="store_true",
        help="give each host pstates and watts for --energy: Batsim's own energy platforms' numbers "
        "(95 W idle, 190.738 W at full load, 9.75 W asleep, switch-off 6.1 s / 616.08 J, switch-on 151.52 s / "
        "18966.4228 J; docs/energy.md)",
    )
    p.add_argument(
        "--power-model",
        metavar="KEY=VALUE,...",
        help="--power with other numbers: any of idle_w, full_w, sleep_w, off_s, off_w, on_s, on_w",
    )
    p.add_argument("output", help="platform XML to write")
    p.set_defaults(func=cmd_platform)


def cmd_convert(args: argparse.Namespace) -> int:
    from adaptsched.workloads.convert import ConversionOptionError, convert_swf, write_workload

    if args.start is not None and args.end is not None and not args.start < args.end:
        raise UsageError(f"--start {args.start:g} --end {args.end:g}: the window is empty (--start must come first)")
    refuse_overwriting([("the output", args.output)], [("the trace", args.trace)])
    try:
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
    except ConversionOptionError as error:  # a value given on the command line
        raise UsageError(str(error)) from None
    if args.add_flurry:
        from adaptsched.workloads.flurry import add_flurry, parse_flurry

        workload = add_flurry(workload, parse_flurry(args.add_flurry))
    path = write_workload(workload, args.output)
    say(report.summary())
    if args.add_flurry:
        flurry = workload["adaptsched"]["flurry"]
        say(
            f"synthetic flurry (ours, not in the trace): {flurry['inserted']} jobs inserted, "
            f"{flurry['zero_runtime_dropped']} zero-runtime ones dropped (--zero-runtime), "
            f"{flurry['outside_workload']} outside the converted part; {flurry['spec']}"
        )
    say(f"wrote {path} ({len(workload['jobs'])} jobs, nb_res={workload['nb_res']})")
    return 0


def cmd_platform(args: argparse.Namespace) -> int:
    from adaptsched.errors import InputError
    from adaptsched.platforms.simgrid import parse_speed, write_cluster

    try:
        parse_speed(args.speed, path="--speed")
    except InputError as error:
        raise UsageError(error.message) from None
    refuse_overwriting([("the output", args.output)], [])
    if not Path(args.output).parent.is_dir():
        raise AdaptschedError(
            f"cannot write {args.output}: the folder {Path(args.output).parent} does not exist (create it first)"
        )
    from adaptsched.platforms.power import PowerSpec

    power = PowerSpec.parse(args.power_model or "") if args.power or args.power_model else None
    path = write_cluster(args.hosts, args.output, speed=args.speed, power=power)
    say(
        f"wrote {path}: {args.hosts} compute hosts at {args.speed} plus a master, no links "
        "(Batsim's messages take zero simulated time)"
    )
    if power is not None:
        say(f"power (for --energy): {power.describe()}")
    return 0
