"""What the commands share: printing, output folders, and the option groups declared once.

An option that several commands take is declared here, once (name, type, default, help),
and each command adds the group it needs:

* :func:`add_engine_options`: ``--engine`` and ``--batsim`` (``run``, ``reproduce``, ``demo``;
  ``sweep`` takes ``--batsim`` only, its engines being in its spec);
* :func:`add_cluster_options`: ``--workers``, ``--scheduler-address``, ``--scheduler-file`` or
  ``--cluster slurm|pbs|sge --jobs N --cluster-option KEY=VALUE``, and ``--dry-run``
  (``reproduce``, ``sweep``); :func:`cluster_choice` makes them a ``Where``;
* :func:`add_metric_options`: ``--bound``, and ``--hosts`` and ``--window`` where they apply
  (``run``, ``metrics``, ``compare``);
* :func:`add_workload_options`: a workload in and a workload out (``estimates``,
  ``mold-annotate``, ``qos-annotate``);
* :func:`add_hosts_option`, :func:`add_seed_option`, :func:`add_progress_option`: single
  options, for the commands whose groups differ.
"""

from __future__ import annotations

import argparse
import errno
import re
import tempfile
from pathlib import Path
from typing import Any

from adaptsched.errors import AdaptschedError, UsageError, hosts_arg, hosts_in_range, positive_float, positive_int
from adaptsched.limits import MAX_HOSTS

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
#: ``adaptsched check`` only: no workload was run, so nothing was checked (docs/errors.md).
EXIT_NOTHING_CHECKED = 3

#: What ``add_subparsers`` returns (argparse has no public name for it).
Subparsers = Any


def say(*args: Any) -> None:
    """Prints a line of a command's output at once (progress goes with it)."""
    print(*args, flush=True)


def output_folder(folder: str | Path, option: str = "--out", value: str | Path | None = None) -> Path:
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


def read_workload(path: str | Path) -> dict[str, Any]:
    """A Batsim JSON workload as a dict, after Batsim's checks (errors name file, job, field)."""
    from adaptsched.workloads.batsim_json import load_workload, read_json

    load_workload(path)
    workload: dict[str, Any] = read_json(str(path), "workload")
    return workload


def progress_choice(value: str) -> bool | None:
    """``--progress auto|on|off`` as the library takes it (None: a bar on a terminal only)."""
    return None if value == "auto" else value == "on"


# -- option groups ---------------------------------------------------------------------
def add_engine_options(parser: argparse.ArgumentParser, *, engine: bool = True, auto: bool = False) -> None:
    """``--engine embedded|batsim`` (and ``auto`` if asked) and ``--batsim PATH`` (only
    ``--batsim`` when ``engine`` is false)."""
    if engine:
        parser.add_argument(
            "--engine",
            choices=("embedded", "batsim", "auto") if auto else ("embedded", "batsim"),
            default="embedded",
            help="embedded (default, pure Python) or batsim (real Batsim 4.2.x)"
            + (
                ", or auto: the embedded engine when it models the run exactly, else real Batsim when installed "
                "(docs/network.md)"
                if auto
                else ""
            ),
        )
    parser.add_argument("--batsim", help="real Batsim executable (default: $BATSIM, then 'batsim' on PATH)")


def add_energy_option(parser: argparse.ArgumentParser) -> None:
    """``--energy``: Batsim's energy model (real Batsim's ``-E``), on either engine (docs/energy.md)."""
    parser.add_argument(
        "--energy",
        action="store_true",
        help="Batsim's energy model (real Batsim's -E): the platform's wattage_per_state and sleep_pstates give "
        "OUT_consumed_energy.csv, OUT_pstate_changes.csv and each job's consumed_energy (docs/energy.md)",
    )


def add_cluster_options(parser: argparse.ArgumentParser, *, jobs_flag: bool = True) -> None:
    """Where the runs go: a local Dask cluster of ``--workers`` processes (on 127.0.0.1), a
    running one (``--scheduler-address``, ``--scheduler-file``), or a dask-jobqueue cluster
    started for the runs (``--cluster``, ``--jobs``, ``--cluster-option``; ``--dry-run``); TLS
    to the last three (``--tls-ca-file``, ``--tls-cert``, ``--tls-key``).
    ``jobs_flag`` false: ``--cluster-jobs`` only (the reproductions' ``--jobs`` counts jobs of
    a workload)."""
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--workers", type=positive_int, help="local Dask cluster: worker processes, one run each (default: one per CPU)"
    )
    where.add_argument(
        "--scheduler-address",
        metavar="tcp://HOST:PORT",
        help="a running Dask scheduler (dask scheduler / dask worker; docs/sweeps.md) instead of a local cluster",
    )
    where.add_argument(
        "--scheduler-file",
        metavar="FILE",
        help="a running Dask scheduler, by the file 'dask scheduler --scheduler-file FILE' writes (waits for it)",
    )
    where.add_argument(
        "--cluster",
        choices=("slurm", "pbs", "sge"),
        help="start a dask-jobqueue cluster on this batch system for the runs, closed at the end (docs/sweeps.md)",
    )
    flags = ("--jobs", "--cluster-jobs") if jobs_flag else ("--cluster-jobs",)
    parser.add_argument(
        *flags,
        dest="cluster_jobs",
        metavar="N",
        type=positive_int,
        help="--cluster: batch jobs of workers to submit (default 1)",
    )
    parser.add_argument(
        "--cluster-option",
        action="append",
        metavar="KEY=VALUE",
        help="--cluster: a dask-jobqueue parameter (cores=32, memory=64GB, walltime=04:00:00, queue=..., "
        "account=..., interface=ib0 (required)...); repeat it",
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="--cluster: print the job script that would be submitted, run nothing"
    )
    parser.add_argument(
        "--first-worker-timeout",
        type=float,
        metavar="SECONDS",
        help="how long to wait for a first worker (and a scheduler file) before giving up "
        "(default: 120; with --cluster 1800, the batch queue's wait)",
    )
    tls = (
        ("--tls-ca-file", "the certificate authority's certificate: TLS to a tls:// scheduler, or --cluster's"),
        ("--tls-cert", "TLS: this command's certificate, signed by --tls-ca-file (with --cluster, its workers' too)"),
        ("--tls-key", "TLS: the private key of --tls-cert (docs/sweeps.md, section TLS)"),
    )
    for flag, text in tls:
        parser.add_argument(flag, metavar="PEM", help=text)


def cluster_choice(args: argparse.Namespace) -> Any:
    """The ``Where`` of the cluster options (``--jobs``, ``--cluster-option`` and ``--dry-run``
    only with ``--cluster``), checked: addresses, options."""
    from adaptsched.sweep.cluster import Tls, Where
    from adaptsched.sweep.jobqueue import JobQueue, parse_cluster_options

    jobqueue = None
    if args.cluster:
        jobqueue = JobQueue(args.cluster, args.cluster_jobs or 1, parse_cluster_options(args.cluster_option))
    else:
        given = {"--jobs": args.cluster_jobs, "--cluster-option": args.cluster_option, "--dry-run": args.dry_run}
        for flag, value in given.items():
            if value:
                raise UsageError(f"{flag} goes with --cluster slurm|pbs|sge")
    tls = None
    files = (args.tls_ca_file, args.tls_cert, args.tls_key)
    if any(files):
        if not all(files):
            raise UsageError("--tls-ca-file, --tls-cert and --tls-key go together: give all three")
        tls = Tls(*files)
    where = Where(args.workers, args.scheduler_address, args.scheduler_file, jobqueue, args.first_worker_timeout, tls)
    return where.check()


def show_job_script(where: Any) -> None:
    """``--dry-run``: the job script dask-jobqueue would submit, and nothing started."""
    from adaptsched.sweep.jobqueue import job_script

    jobs = where.jobqueue.jobs
    security = where.tls.security() if where.tls is not None else None
    say(f"# --dry-run: {jobs} job{'s' if jobs > 1 else ''} like this one would be submitted to {where.jobqueue.system}")
    say(
        "# (the scheduler runs in this command; its address replaces the placeholder)\n"
        + job_script(where.jobqueue, security)
    )


def add_metric_options(parser: argparse.ArgumentParser, *, hosts: bool = True, window: bool = True) -> None:
    """``--bound``, and the machine size (``--hosts``) and Gantt window (``--window``) if asked."""
    parser.add_argument(
        "--bound", type=positive_float, default=10.0, help="bounded-slowdown bound in seconds (default 10)"
    )
    if hosts:
        add_hosts_option(parser, "default: from _schedule.csv")
    if window:
        parser.add_argument(
            "--window",
            type=window_arg,
            metavar="START:END|job:ID",
            help="time window of the Gantt charts: START:END in simulation seconds or with a unit "
            "(12h:36h, 1d:2d), or job:ID for the span of one job's attempts "
            "(default: the busiest period, at most 2 days and 500 jobs)",
        )


def window_arg(text: str) -> str:
    """argparse type: a ``--window`` checked as it is read (``job:ID`` needs the runs: later)."""
    if text.startswith("job:"):
        return text
    from adaptsched.analysis.gantt import parse_window

    try:
        parse_window(text)
    except UsageError as error:
        raise argparse.ArgumentTypeError(str(error).removeprefix("--window").lstrip(": ")) from None
    return text


_HOSTS = re.compile(r"\s*[-+]?(\d+|\d*\.?\d+[eE][-+]?\d+)\s*")


def checked_platform(platform: str) -> str:
    """``--platform``: a number of hosts within the limits, or a file's path, as given."""
    if not _HOSTS.fullmatch(platform):
        return platform
    try:
        return str(hosts_in_range(platform))
    except UsageError as error:
        if platform.strip().lstrip("+-").isdigit() and int(platform) < 1:
            raise UsageError(f"--platform {platform}: a platform needs at least one host") from None
        raise UsageError(f"--platform: {error}") from None


def add_workload_options(parser: argparse.ArgumentParser) -> None:
    """A Batsim JSON workload in and the workload to write (a command that annotates one)."""
    parser.add_argument("input", help="Batsim JSON workload (from 'convert', 'generate'...)")
    parser.add_argument("output", help="Batsim JSON workload to write")


def add_hosts_option(
    parser: argparse.ArgumentParser, note: str, *, default: int | None = None, required: bool = False
) -> None:
    """``--hosts N``, the machine size (at least 1); ``note`` gives its default (or "at least 1")."""
    parser.add_argument(
        "--hosts",
        type=hosts_arg,
        default=default,
        required=required,
        help=f"machine size in hosts ({note}; at most {MAX_HOSTS:,})",
    )


def add_seed_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")


def add_progress_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--progress", choices=("auto", "on", "off"), default="auto", help="progress bar (auto: only on a terminal)"
    )
