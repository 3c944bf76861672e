"""``adaptsched demo``: README's main job (:mod:`adaptsched.demo`)."""

from __future__ import annotations

import argparse

from adaptsched.errors import positive_int

from .common import Subparsers, add_engine_options, add_hosts_option, output_folder, say


def register(sub: Subparsers) -> None:
    p = sub.add_parser("demo", help="replay the first 5,000 CTC-SP2 jobs under fcfs, easy and conservative")
    p.add_argument("--out", default="results/demo", help="results folder (default results/demo)")
    p.add_argument("--jobs", type=positive_int, default=5000, help="number of jobs (default 5000)")
    add_hosts_option(p, "default 338, CTC's batch partition", default=338)
    add_engine_options(p)
    p.add_argument(
        "--trace",
        metavar="FILE",
        help="SWF trace (default: ../shared/traces/CTC-SP2-1996-3.1-cln.swf.gz, else the committed excerpt of its "
        "first 5,000 jobs)",
    )
    p.set_defaults(func=cmd_demo)


def cmd_demo(args: argparse.Namespace) -> int:
    from adaptsched.demo import demo

    output_folder(args.out)
    demo(
        out=args.out,
        jobs=args.jobs,
        hosts=args.hosts,
        engine=args.engine,
        batsim=args.batsim,
        trace=args.trace,
        say=say,
    )
    return 0
