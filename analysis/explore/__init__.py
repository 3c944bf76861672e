"""The run explorer: one self-contained HTML page to look at whole runs in a browser, and to
see why one scheduler beats another.

``explore_runs(prefixes, out)`` writes the page of one run, or of several runs of the same
workload on one time axis: a Gantt chart of every attempt of each run (zoom, pan, hover for a
job's numbers, click to highlight all attempts of a job), coloured by a rule the reader picks
that gives a job the same colour in every run (:mod:`.colours`); busy hosts, queued demand and
waiting jobs below, on the same axis; beside them, the difference between any two runs, job by
job and per class (:mod:`.diff`), a sortable and filterable job table whose selected row zooms
the charts to its job, and the metrics tables (``adaptsched metrics --json``'s numbers). A run
made with Batsim's energy model also gets its power curve and its hosts asleep and switching
(:mod:`.energy`). The page holds its JavaScript (BokehJS) and its data, compressed
(:mod:`.pagefile`): it opens offline, from a disk or an e-mail, without a server.

* data: :mod:`.data` (numpy columns, testable without a browser);
* layout: :mod:`.layout` and :mod:`.page`, the Gantt charts :mod:`.charts`, the tables
  :mod:`.tables`, numbers for reading :mod:`.fmt`, the callbacks :mod:`.callbacks`;
* the sweep report (``DIR/report.html``): :mod:`.sweep`.

Runs that cannot be explored raise :class:`~adaptsched.errors.InputError` with one
paragraph saying why: runs of different machine sizes, a ``_jobs.csv`` without its
``_schedule.csv``, no executed job, a window outside the run, a workload that is not the run's.
"""

from __future__ import annotations

import os
from pathlib import Path

from ...errors import InputError, UsageError
from ..compare import _labels
from ..gantt import parse_window
from .data import (
    MAX_ITEMS,
    build_run,
    detail_window,
    load_run,
    mixed_hosts,
    window_keys,
    window_problem,
    workload_jobs,
    workload_users,
)
from .layout import document, padded
from .pagefile import write_page

__all__ = ["explore_runs"]


def explore_runs(
    prefixes,
    out,
    *,
    labels=None,
    window=None,
    bound_s: float = 10.0,
    title: str | None = None,
    max_items: int = MAX_ITEMS,
    workloads=None,
) -> dict:
    """Write the explorer page of the runs ``prefixes`` (Batsim ``-e`` prefixes or their
    ``_jobs.csv``) to ``out``.

    ``window``: ``(start_s, end_s)`` or a ``--window`` text (``"1d:2d"``, ``"job:42"``:
    :func:`~adaptsched.analysis.gantt.parse_window`): the page then holds only the attempts
    and jobs of that window (default: the whole run). ``bound_s``: bounded-slowdown bound.
    ``max_items``: runs bigger than that (:func:`~.data.detail_window`) are aggregated: the
    page shows the whole run as an overview and the details of its first part only, and says so.
    ``workloads``: the runs' Batsim JSON workload (one for all, or one per run), for the jobs'
    users (colour by user); default: ``PREFIX_workload.json`` beside a run, if there.

    Returns ``{"path", "runs": [label...], "rectangles": [per run], "attempts": [per run],
    "jobs": [per run], "window": [start_s, end_s] of the details or None, "aggregated": None or
    :func:`~.data.detail_window`'s account, "bytes"}``.
    """
    if isinstance(prefixes, (str, os.PathLike)):
        prefixes = [prefixes]
    prefixes = list(prefixes)
    if not prefixes:
        raise UsageError("explore needs at least one run")
    if labels is not None and len(labels) != len(prefixes):
        raise UsageError(f"{len(labels)} labels for {len(prefixes)} runs: give one label per run, in order")
    labels = _labels(prefixes, labels)
    loaded = [load_run(prefix, bound_s=bound_s) for prefix in prefixes]
    raws = [raw for raw, _, _ in loaded]
    where = ", ".join(m["source"] for _, m, _ in loaded)
    problem = mixed_hosts(labels, [m for _, m, _ in loaded])
    if problem:
        raise InputError(where, problem)
    if isinstance(window, str):
        window = parse_window(window, raws)
    elif window is not None:
        window = (float(window[0]), float(window[1]))
    spans = [(m["overall"]["window_start_s"], m["overall"]["window_end_s"]) for _, m, _ in loaded]
    if window is not None:
        problem = window_problem(window, spans)
        if problem:
            raise InputError(where, problem)
    detail, aggregated = detail_window(raws, window, max_items)
    extent = padded(min(s[0] for s in spans), max(s[1] for s in spans))
    users = _users(_workloads(prefixes, workloads), [jobs for _, _, jobs in loaded])
    # with a window, a job the window holds in one run is kept in every run: the difference compares it
    shared = set().union(*(window_keys(jobs, detail) for _, _, jobs in loaded)) if detail and len(loaded) > 1 else None
    runs = [
        build_run(
            raw, metrics, jobs, label, detail,
            whole_run_extent=extent if aggregated else None, users=user, also_keys=shared,
        )
        for (raw, metrics, jobs), label, user in zip(loaded, labels, users)
    ]  # fmt: skip
    page = document(runs, detail, title=title, aggregated=aggregated, extent=extent)
    out = Path(out)
    write_page(page, out, title or "adaptsched explorer: " + ", ".join(labels))
    return {
        "path": str(out),
        "runs": labels,
        "rectangles": [len(run.rects["low"]) for run in runs],
        "attempts": [len(run.attempts["id"]) for run in runs],
        "jobs": [len(run.jobs["id"]) for run in runs],
        "window": list(detail) if detail is not None else None,
        "aggregated": aggregated,
        "bytes": out.stat().st_size,
    }


def _users(paths: list, jobs: list) -> list:
    """Each run's {job id: user} from its workload (None without one), a workload read once."""
    read: dict[str, dict] = {}
    users: list[dict[str, int] | None] = []
    for path, frame in zip(paths, jobs):
        if path is None:
            users.append(None)
            continue
        if str(path) not in read:
            read[str(path)] = workload_jobs(path)
        users.append(workload_users(path, frame, read[str(path)]))
    return users


def _workloads(prefixes: list, workloads) -> list:
    """The workload of each run (a path, or None): ``workloads`` given (one for all, or one per
    run), else ``PREFIX_workload.json`` beside the run when there."""
    if workloads is None:
        found = []
        for prefix in prefixes:
            text = str(prefix)
            base = text[: -len("_jobs.csv")] if text.endswith("_jobs.csv") else text
            beside = Path(f"{base}_workload.json")
            found.append(beside if beside.is_file() else None)
        return found
    if isinstance(workloads, (str, os.PathLike)):
        workloads = [workloads]
    workloads = list(workloads)
    if len(workloads) == 1:
        return workloads * len(prefixes)
    if len(workloads) != len(prefixes):
        raise UsageError(f"{len(workloads)} workloads for {len(prefixes)} runs: give one for all, or one per run")
    return workloads
