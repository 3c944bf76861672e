"""Synthetic workloads and annotations: ``adaptsched generate``, ``estimates``,
``mold-annotate``, ``scojo-stats`` and ``qos-annotate``."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import Any

from adaptsched.errors import UsageError, at_most, finite_float
from adaptsched.formats.files import refuse_overwriting, write_text
from adaptsched.limits import MAX_DAYS, MAX_GENERATED_JOBS, MAX_TESTS

from .common import Subparsers, add_hosts_option, add_seed_option, add_workload_options, read_workload, say


def register(sub: Subparsers) -> None:
    register_generate(sub)
    register_annotations(sub)


def register_annotations(sub: Subparsers) -> None:
    """The commands that annotate a workload (estimates, molding, SCOJO-P's statistics, QoS)."""
    p = sub.add_parser("estimates", help="give jobs user runtime estimates (walltimes) from a model")
    add_workload_options(p)
    p.add_argument(
        "--model", required=True, choices=("exact", "tsafrir"), help="exact (= runtime) or Tsafrir et al. (2005)"
    )
    p.add_argument(
        "--max-estimate",
        type=finite_float,
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
    add_seed_option(p)
    p.add_argument("--truncate", action="store_true", help="tsafrir: shorten runtimes above M to M (default: error)")
    p.set_defaults(func=cmd_estimates)

    p = sub.add_parser("mold-annotate", help="make jobs of a Batsim JSON workload moldable (speedup model)")
    add_workload_options(p)
    p.add_argument("--model", default="downey", choices=("downey", "linear", "scojo-p"), help="speedup model")
    p.add_argument("--fraction", type=finite_float, default=1.0, help="fraction of moldable jobs (default 1)")
    add_seed_option(p)
    p.add_argument(
        "--a-max",
        default="machine",
        help="downey: A log-uniform up to the machine size (machine, default), the job's request (request) "
        "or this number (e.g. 3000 for SCOJO-P's Fig. 14)",
    )
    for flag, default, where in (("--e-min", 0.8, "N_min"), ("--e-opt", 0.65, "N_opt"), ("--e-max", 0.4, "N_max")):
        p.add_argument(
            flag, type=float, default=default, help=f"scojo-p: efficiency at {where} (default {default:g}, Table 1)"
        )
    p.add_argument(
        "--interpolation",
        default="speedup",
        choices=("speedup", "efficiency"),
        help="scojo-p: draw the speedup (default, sec. 4.6) or the efficiency as straight lines between the sizes",
    )
    p.set_defaults(func=cmd_mold_annotate)

    p = sub.add_parser("scojo-stats", help="SCOJO-P's arrivals per half hour and class means, from workloads")
    p.add_argument("inputs", nargs="+", metavar="W.json", help="Batsim JSON workloads (not the evaluated ones)")
    p.add_argument("output", metavar="OUT.json", help="statistics file to write (scojo-p's option stats)")
    p.set_defaults(func=cmd_scojo_stats)

    p = sub.add_parser("qos-annotate", help="add deadlines, urgency and prices to a Batsim JSON workload")
    add_workload_options(p)
    p.add_argument("--urgent", type=finite_float, default=0.2, help="fraction of urgent jobs (default 0.2)")
    p.add_argument("--urgent-cost", type=finite_float, default=10.0, help="price factor C of urgent jobs (default 10)")
    p.add_argument(
        "--deadline-factor", type=finite_float, default=5.0, help="deadline = submit + F x estimate (default 5)"
    )
    p.add_argument("--unit-price", type=finite_float, default=0.1, help="price per processor-second (default 0.1)")
    p.add_argument("--exact", action="store_true", help="exact estimates: estimate = runtime (walltime runtime + 1 s)")
    p.add_argument(
        "--high-load",
        type=finite_float,
        nargs="?",
        const=0.4,
        default=None,
        metavar="FRACTION",
        help="duplicate this fraction of the jobs (default 0.4 when given)",
    )
    add_seed_option(p)
    p.set_defaults(func=cmd_qos_annotate)


# -- generate ----------------------------------------------------------------------------
def register_generate(sub: Subparsers) -> None:
    """``generate MODEL OUTPUT``: one sub-command per model, with the options every model shares."""
    p = sub.add_parser("generate", help="generate a synthetic workload from a model")
    p.set_defaults(func=cmd_generate)
    models = p.add_subparsers(dest="model", metavar="MODEL")
    models.required = True

    def model(name: str, help: str, build: Callable[[argparse.Namespace], dict[str, Any]] | None, hosts: int):
        g = models.add_parser(name, help=help, description=help)
        g.add_argument("output", help="Batsim JSON workload to write")
        add_hosts_option(g, f"default {hosts}", default=hosts)
        add_seed_option(g)
        g.add_argument("--swf", help="also write the jobs as an SWF trace")
        g.set_defaults(build=build)
        return g

    g = model("downey", "Downey (1996) moldable workload model", _generate_downey, 64)
    g.add_argument("--days", type=at_most(MAX_DAYS), default=10, help="simulated days (default 10)")
    g.add_argument("--load", type=finite_float, default=0.75, help="offered load rho (default 0.75)")

    g = model("lublin", "Lublin & Feitelson (2003) rigid-job workload model", _generate_lublin, 128)
    g.add_argument("--jobs", type=at_most(MAX_GENERATED_JOBS), default=10000, help="number of jobs (default 10000)")
    g.add_argument(
        "--mode", choices=("typeless", "typed"), default="typeless", help="parameter sets (default typeless)"
    )
    g.add_argument("--aarr", type=finite_float, help="typeless AARR (SCOJO-P's alpha': 10.23 for W1, 9.83 for W2)")
    g.add_argument("--start-hour", type=int, default=0, help="hour of day at time 0 (default 0, midnight)")
    g.add_argument(
        "--clock",
        choices=("c", "exact"),
        default="c",
        help="c: truncate the arrival time at each arrival as the C program (default); exact: round on output",
    )

    g = model(
        "evolving",
        "Klein & Pérez (2010) tests of rigid, evolving applications: OUTPUT is a folder of test0001.json...",
        None,
        100,
    )
    g.add_argument("--tests", type=at_most(MAX_TESTS), default=1000, help="tests, one workload each (default 1000)")
    g.set_defaults(func=cmd_generate_evolving)


def cmd_generate(args: argparse.Namespace) -> int:
    """One command for every model: the model's block (:func:`register_generate`) gives ``args.build``."""
    from adaptsched.workloads.convert import write_workload
    from adaptsched.workloads.stats import summary_text
    from adaptsched.workloads.swf import write_swf

    if args.swf:
        refuse_overwriting([("the workload", args.output), ("the SWF trace (--swf)", args.swf)], [])
    workload = args.build(args)
    write_workload(workload, args.output)
    say(f"{args.output}: {summary_text(workload)} ({args.model}, seed {args.seed})")
    if args.swf:
        write_swf(workload, args.swf, requested_procs_from_res=args.model == "downey")
        say(f"{args.swf}: the same jobs as SWF")
    return 0


def _generate_downey(args: argparse.Namespace) -> dict[str, Any]:
    from adaptsched.workloads.downey import generate

    workload: dict[str, Any] = generate(args.days, args.load, hosts=args.hosts, seed=args.seed)
    return workload


def _generate_lublin(args: argparse.Namespace) -> dict[str, Any]:
    from adaptsched.workloads.lublin import generate

    workload: dict[str, Any] = generate(
        args.jobs,
        hosts=args.hosts,
        mode=args.mode,
        aarr=args.aarr,
        start_hour=args.start_hour,
        seed=args.seed,
        clock=args.clock,
    )
    return workload


def cmd_generate_evolving(args: argparse.Namespace) -> int:
    """``generate evolving DIR``: one workload per test (Klein & Pérez sec. 5.1), all at time 0."""
    from adaptsched.workloads.evolving import write_tests

    if args.swf:
        raise UsageError("--swf: evolving applications have no SWF form (their stages would be lost)")
    paths = write_tests(args.output, args.tests, hosts=args.hosts, seed=args.seed)
    say(f"{args.output}: {len(paths)} tests of 15-20 evolving applications on {args.hosts} nodes (seed {args.seed})")
    return 0


# -- annotations -------------------------------------------------------------------------
def annotating(args: argparse.Namespace) -> None:
    """Before an annotation: its output is not its input."""
    refuse_overwriting([("the output", args.output)], [("the input", args.input)])


def cmd_estimates(args: argparse.Namespace) -> int:
    from adaptsched.workloads.convert import write_workload
    from adaptsched.workloads.estimates import annotate, parse_bins

    annotating(args)
    workload = read_workload(args.input)
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
    say(f"{args.output}: {summary['text']}")
    return 0


def cmd_mold_annotate(args: argparse.Namespace) -> int:
    from adaptsched.workloads.convert import write_workload
    from adaptsched.workloads.moldable import annotate

    annotating(args)
    workload = read_workload(args.input)
    out, summary = annotate(
        workload,
        fraction=args.fraction,
        model=args.model,
        seed=args.seed,
        a_max=args.a_max,
        efficiencies=(args.e_min, args.e_opt, args.e_max),
        interpolation=args.interpolation,
    )
    write_workload(out, args.output)
    a_max = f", A_max {summary['a_max']}" if args.model == "downey" else ""
    if args.model == "scojo-p":
        a_max = ", E {:g} / {:g} / {:g}, {} interpolated".format(*summary["efficiencies"], summary["interpolation"])
    what = f"({args.model}, seed {args.seed}{a_max})"
    say(f"{args.output}: {summary['moldable']} of {summary['jobs']} jobs moldable {what}")
    return 0


def cmd_scojo_stats(args: argparse.Namespace) -> int:
    from adaptsched.workloads.scojo_stats import scojo_stats

    refuse_overwriting([("the output", args.output)], [("an input", path) for path in args.inputs])
    stats = scojo_stats([read_workload(path) for path in args.inputs], names=list(args.inputs))
    write_text(args.output, json.dumps(stats, indent=1))
    means = ", ".join(f"{c} {stats['mean_n_opt'][c]:.2f}" for c in ("short", "medium", "long"))
    say(f"{args.output}: {stats['jobs']} jobs over {stats['days']:.1f} days; mean N_opt {means}")
    return 0


def cmd_qos_annotate(args: argparse.Namespace) -> int:
    from adaptsched.workloads.convert import write_workload
    from adaptsched.workloads.qos import annotate, high_load

    annotating(args)
    workload = read_workload(args.input)
    out, summary = annotate(
        workload,
        urgent_fraction=args.urgent,
        urgent_cost=args.urgent_cost,
        deadline_factor=args.deadline_factor,
        unit_price=args.unit_price,
        exact=args.exact,
        seed=args.seed,
    )
    say(f"{summary['urgent']} of {summary['jobs']} jobs urgent; offered load {summary['offered_load']:.3f}")
    if args.high_load:
        out, load = high_load(out, fraction=args.high_load, seed=args.seed)
        say(
            f"high load: {load['jobs_before']} -> {load['jobs_after']} jobs, offered load "
            f"{load['load_before']:.3f} -> {load['load_after']:.3f}"
        )
    write_workload(out, args.output)
    say(f"wrote {args.output}")
    return 0
