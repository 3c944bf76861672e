"""``adaptsched reproduce PAPER``: one sub-command per paper of :data:`adaptsched.reproduce.PAPERS`.

Each paper's ``command.py`` declares its own options (``add_arguments``); the options every
paper shares are added here. The handler checks the output folders, builds the
:class:`~adaptsched.reproduce.runner.Setup` from the shared options and calls the paper's
``main(out, setup=..., **its own options)``: typed values by name, no argparse namespace.
"""

from __future__ import annotations

import argparse
from typing import Any

from .common import (
    Subparsers,
    add_cluster_options,
    add_energy_option,
    add_engine_options,
    cluster_choice,
    output_folder,
    say,
    show_job_script,
)

#: The options every paper shares, and the entries argparse and :func:`~adaptsched.cli.main`
#: put in the namespace: the rest of a ``reproduce PAPER`` namespace is the paper's own.
COMMON = (
    "command",
    "command_line",
    "func",
    "paper",
    "paper_name",
    "out",
    "report_dir",
    "engine",
    "batsim",
    "energy",
    "workers",
    "scheduler_address",
    "scheduler_file",
    "cluster",
    "cluster_jobs",
    "cluster_option",
    "dry_run",
    "first_worker_timeout",
    "tls_ca_file",
    "tls_cert",
    "tls_key",
)


def register(sub: Subparsers, *, papers: bool = True) -> None:
    """``reproduce`` and, with ``papers``, its papers' commands (each paper's options: its
    command module imports the runner, and with it Dask: left out when another command runs)."""
    p = sub.add_parser("reproduce", help="reproduce a paper's experiments and write a report")
    paper_parsers = p.add_subparsers(dest="paper_name", metavar="PAPER")
    paper_parsers.required = True
    if not papers:
        return
    from adaptsched.reproduce import commands

    for command in commands():
        q = paper_parsers.add_parser(command.NAME, help=command.HELP, description=command.HELP)
        command.add_arguments(q)
        q.add_argument(
            "--out", help="results folder (default results/PAPER); an interrupted reproduction resumes there"
        )
        q.add_argument(
            "--report-dir",
            metavar="DIR",
            help="write the report (Markdown, CSV, PNG) into DIR, e.g. docs/results/PAPER (default OUT/report-ENGINE)",
        )
        add_engine_options(q)
        add_energy_option(q)
        add_cluster_options(q, jobs_flag=False)
        q.set_defaults(func=cmd_reproduce, paper=command)


def paper_options(args: argparse.Namespace) -> dict[str, Any]:
    """The paper's own options (what its ``add_arguments`` declared), by name."""
    return {name: value for name, value in vars(args).items() if name not in COMMON}


def cmd_reproduce(args: argparse.Namespace) -> int:
    """Common to every paper: the results folder and the report folder are writable; then the
    paper's own ``command.main`` (``reproduce/<paper>/command.py``)."""
    from adaptsched.reproduce.runner import Setup

    where = cluster_choice(args)
    if args.dry_run:
        show_job_script(where)
        return 0
    out = args.out or f"results/{args.paper.NAME}"
    output_folder(out)
    if args.report_dir:
        output_folder(args.report_dir, "--report-dir")
    setup = Setup(
        engine=args.engine,
        batsim=args.batsim,
        energy=args.energy,
        workers=where.workers,
        scheduler_address=where.scheduler_address,
        scheduler_file=where.scheduler_file,
        jobqueue=where.jobqueue,
        first_worker_timeout_s=where.timeout_s,
        tls=where.tls,
        report_dir=args.report_dir,
        command=args.command_line,
        say=say,
    )
    args.paper.main(out, setup=setup, **paper_options(args))
    return 0
