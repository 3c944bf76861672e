"""Gantt chart PNG of one run, drawn by evalys' ``GanttVisualization``.

The chart shows every executed **attempt** (unfolded rows: a killed attempt did occupy its
hosts), coloured by its kind and outcome (:data:`CATEGORIES`, one colour each, legend
beside the chart): regular runs, resized and molded copies, speculative copies and test
runs (completed, or killed when their speculated time ran out), walltime kills, other
scheduler kills, failures. The kind of an attempt is its metadata's ``kind`` (written by
adaptsched's schedulers for every copy they run). Below, a panel draws evalys' utilisation
curve (busy hosts) and the queued demand (hosts requested by waiting jobs), in black and
grey so that no colour means two things.

Window (so that large traces stay readable and fast): :func:`choose_window`, shared by all
runs of a comparison so that their charts can be compared side by side. Its start is the
start of the busiest period: the job start that begins the ``max_span_s``-long (2 days)
interval holding the most job starts (where schedulers differ; the trace's first
submission would often show an idle machine). Its end is the earliest of that start +
``max_span_s``, the ``max_jobs``-th (500th) attempt started in the window, and the attempt
that brings the rectangles to draw past ``max_boxes`` (3000; a job has one rectangle per
interval of its allocation, and fragmented allocations have hundreds), in any run; never
past the last finish. A run shorter than ``max_span_s`` with fewer attempts than ``max_jobs``
is drawn from its first job start to its last finish. An explicit ``window=(start_s, end_s)``
overrides it (``--window START:END`` on the command line, or ``--window job:ID`` for the
span of one job's attempts: :func:`parse_window`). Jobs overlapping a window edge are
clipped to it.
"""

from __future__ import annotations

import collections
import os
import re

import matplotlib
import matplotlib.patches
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from adaptsched.core.units import DAY_S, HOUR_S, MINUTE_S

from ..errors import UsageError
from ..formats.intervals import interval_counts
from .evalys_bridge import executed_rows, job_labels, load_curve, quiet_evalys, to_jobset
from .fold import root_keys
from .jobs import FAILED, KILLED, SUCCESS, WALLTIME, alloc_columns, with_alloc_columns

MAX_JOBS = 500
MAX_SPAN_S = 2 * DAY_S
MAX_BOXES = 3000  # rectangles (allocation intervals): beyond, drawing gets slow
LABEL_MAX_JOBS = 80  # job ids are written in the boxes up to this many jobs

#: Kind and outcome of an attempt -> (legend, colours). Okabe-Ito colour-blind-safe hues, one
#: per category; a category with two tints alternates them from job to job so that adjacent
#: boxes stay apart (both tints mean the same thing).
CATEGORIES = {
    "regular": ("regular run, completed", ("#56B4E9", "#0072B2")),
    "resized": ("resized copy, completed", ("#009E73", "#66C5AB")),
    "molded": ("molded copy, completed", ("#F0E442",)),
    "speculative": ("speculative copy or test run, completed", ("#CC79A7",)),
    "speculative-killed": ("speculative copy or test run, killed at its speculated end", ("#BBBBBB",)),
    "walltime": ("killed at its walltime", ("#D55E00",)),
    "killed": ("killed by the scheduler (other)", ("#882255",)),
    "failed": ("failed", ("#000000",)),
}
_KIND_RE = re.compile(r"""['"]kind['"]\s*:\s*['"]([A-Za-z_-]+)['"]""")


def attempt_categories(ran: pd.DataFrame) -> np.ndarray:
    """The :data:`CATEGORIES` key of each executed attempt (row) of ``ran``."""
    kinds = ran["metadata"].str.extract(_KIND_RE, expand=False).fillna("regular").to_numpy()
    states = ran["final_state"].to_numpy()
    out = np.empty(len(ran), dtype=object)
    for i, (kind, state) in enumerate(zip(kinds, states)):
        copy = kind in ("speculative", "test")
        if state == SUCCESS:
            out[i] = "speculative" if copy else (kind if kind in ("resized", "molded") else "regular")
        elif state == WALLTIME:
            out[i] = "walltime"
        elif state == KILLED:
            out[i] = "speculative-killed" if copy else "killed"
        else:
            out[i] = "failed" if state == FAILED else "killed"
    return out


_UNITS = {"": 1.0, "s": 1.0, "min": MINUTE_S, "h": HOUR_S, "d": DAY_S}
_TIME_RE = re.compile(r"\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(s|min|h|d)?\s*")


def _seconds(text: str) -> float:
    match = _TIME_RE.fullmatch(text)
    if not match:
        raise UsageError(f"--window: {text!r} is not a time such as 3600, 90min, 12h or 1.5d")
    return float(match.group(1)) * _UNITS[match.group(2) or ""]


def parse_window(spec: str | None, raws=()) -> tuple[float, float] | None:
    """A ``--window`` value as ``(start_s, end_s)`` (None for the default window).

    ``START:END`` in simulation seconds, or with a unit (``12h:36h``, ``1d:2.5d``); ``job:ID``
    covers every attempt of job ``ID`` in the runs ``raws`` (frames of attempts), from its
    submission to its last finish, with 10 % more on each side.
    """
    if spec is None:
        return None
    if spec.startswith("job:"):
        wanted = spec[4:]
        begin, end = np.inf, -np.inf
        for raw in raws:
            roots = root_keys(raw)
            ids = roots.str.split("!", n=1).str[1]
            mine = raw[
                (roots == wanted).to_numpy() | (ids == wanted).to_numpy() | (job_labels(raw) == wanted).to_numpy()
            ]
            if len(mine):
                begin = min(begin, float(mine["submission_time"].min()))
                end = max(end, float(mine["finish_time"].max() if mine["finish_time"].notna().any() else begin))
        if not np.isfinite(begin):
            raise UsageError(f"--window {spec}: no job {wanted!r} in the run(s)")
        margin = max((end - begin) * 0.1, 1.0)
        return max(0.0, begin - margin), end + margin
    start, sep, stop = spec.partition(":")
    if not sep:
        raise UsageError(f"--window {spec}: expected START:END (e.g. 86400:172800 or 1d:2d) or job:ID")
    begin, end = _seconds(start), _seconds(stop)
    if not end > begin:
        raise UsageError(f"--window {spec}: the end must come after the start")
    return begin, end


# Visualization needs an object with .fig and .spec (evalys' private _LayoutSpec).
_LayoutSpec = collections.namedtuple("_LayoutSpec", ("fig", "spec"))


def _gantt_class():
    """evalys' GanttVisualization, minus the empty annotation it adds to every box.

    evalys annotates each rectangle even when the labeler returns ``""``; with fragmented
    allocations (hundreds of intervals per job) those empty texts dominate drawing time.
    """
    with quiet_evalys():
        from evalys.visu.gantt import GanttVisualization

    class Gantt(GanttVisualization):
        @staticmethod
        def _annotate(rect, label):
            if label:
                GanttVisualization._annotate(rect, label)

    return Gantt


def choose_window(
    raws, *, max_jobs: int = MAX_JOBS, max_span_s: float = MAX_SPAN_S, max_boxes: int = MAX_BOXES
) -> tuple[float, float] | None:
    """Common Gantt window of one or several runs (frames of attempts), None if nothing ran.

    Start: the start time, over all runs, that begins the ``max_span_s``-long window
    holding the most job starts (the busiest period, where schedulers differ; the
    trace's first submission would often show an idle machine). End: the earliest of
    start + ``max_span_s`` and, over the runs, the start time of the ``max_jobs``-th
    attempt started in the window or of the attempt that brings the number of
    rectangles (allocation intervals) past ``max_boxes``; at most the last finish.
    """
    ran = [executed_rows(df) for df in raws]
    ran = [df for df in ran if len(df)]
    if not ran:
        return None
    all_starts = np.sort(np.concatenate([df["starting_time"].to_numpy(dtype=float) for df in ran]))
    in_window = np.searchsorted(all_starts, all_starts + max_span_s, side="left") - np.arange(len(all_starts))
    begin = float(all_starts[int(np.argmax(in_window))])
    last = float(max(df["finish_time"].max() for df in ran))
    end = min(begin + max_span_s, last)
    for df in ran:
        order = np.argsort(df["starting_time"].to_numpy(dtype=float), kind="stable")
        starts = df["starting_time"].to_numpy(dtype=float)[order]
        boxes = interval_counts(df["allocated_resources"].to_numpy())[order]
        first = int(np.searchsorted(starts, begin, side="left"))
        starts, boxes = starts[first:], boxes[first:]
        limit = min(max_jobs - 1, int(np.searchsorted(np.cumsum(boxes), max_boxes, side="right")))
        if limit < len(starts):
            end = min(end, float(starts[limit]))
    if end <= begin:  # hundreds of jobs start at once: show at least the first finish
        end = max(begin + 1.0, float(min(df["finish_time"].min() for df in ran)))
    return begin, end


def _time_unit(span_s: float) -> tuple[float, str]:
    if span_s <= 3 * HOUR_S:
        return (1.0, "s") if span_s <= HOUR_S / 2 else (MINUTE_S, "min")
    return HOUR_S, "h"


def _clip(ran: pd.DataFrame, begin: float, end: float) -> pd.DataFrame:
    start = ran["starting_time"]
    finish = ran["finish_time"]
    inside = ((start < end) & (finish > begin)) | ((start == finish) & (start >= begin) & (start <= end))
    part = ran[inside].copy()
    part["starting_time"] = part["starting_time"].clip(lower=begin)
    part["finish_time"] = part["finish_time"].clip(upper=end)
    part["execution_time"] = part["finish_time"] - part["starting_time"]
    part["submission_time"] = part["submission_time"].clip(lower=begin)
    part["waiting_time"] = part["starting_time"] - part["submission_time"]
    return part.sort_values(["starting_time", "finish_time"], kind="stable")


def _step(curve: pd.DataFrame, begin: float, end: float) -> tuple[np.ndarray, np.ndarray]:
    """x, y of an evalys load curve restricted to [begin, end] (post steps)."""
    if not len(curve):
        return np.array([begin, end]), np.array([0.0, 0.0])
    times = curve.index.to_numpy(dtype=float)
    loads = curve["load"].to_numpy(dtype=float)
    before = np.flatnonzero(times <= begin)
    first = loads[before[-1]] if len(before) else 0.0
    keep = (times > begin) & (times < end)
    x = np.concatenate(([begin], times[keep], [end]))
    y = np.concatenate(([first], loads[keep], [loads[keep][-1] if keep.any() else first]))
    return x, y


def plot_gantt(
    raw: pd.DataFrame,
    path,
    *,
    hosts: int | None = None,
    window=None,
    title: str | None = None,
    max_jobs: int = MAX_JOBS,
    max_span_s: float = MAX_SPAN_S,
    max_boxes: int = MAX_BOXES,
) -> dict:
    """Write the Gantt chart PNG of the attempts in ``raw`` (a frame from
    :func:`~adaptsched.analysis.jobs.read_jobs_csv`) to ``path``.

    Returns ``{"path", "window": [start_s, end_s] or None, "jobs_drawn", "whole_run", "legend"}``
    (``legend``: the labels of the kinds of attempts drawn, in :data:`CATEGORIES` order).
    """
    raw = with_alloc_columns(raw)
    ran = executed_rows(raw)
    if window is None:
        window = choose_window([raw], max_jobs=max_jobs, max_span_s=max_span_s, max_boxes=max_boxes)
    else:
        window = (float(window[0]), float(window[1]))
        if not window[1] > window[0]:
            raise ValueError(f"gantt window must be (start_s, end_s) with end > start, got {window!r}")
    if hosts is None:
        hosts = int(alloc_columns(ran)[1].max()) + 1 if len(ran) else 1
    name = title or os.path.basename(os.fspath(path))

    fig = Figure(figsize=(13, 7.5), dpi=110, layout="constrained")
    if window is None:
        _nothing_ran(fig, name)
        fig.savefig(path)
        return {"path": os.fspath(path), "window": None, "jobs_drawn": 0, "whole_run": True, "legend": []}

    begin, end = window
    scale, unit = _time_unit(end - begin)
    part = _clip(ran, begin, end)
    whole = bool(len(ran) == 0 or (begin <= ran["submission_time"].min() and end >= ran["finish_time"].max()))
    grid = fig.add_gridspec(2, 1, height_ratios=(3, 1))
    if len(part):
        ax, handles = _draw_attempts(fig, grid[0], part, hosts, (begin, end), scale)
    else:
        handles = []
        ax = fig.add_subplot(grid[0])
        ax.text(0.5, 0.5, "no job ran in this window", ha="center", va="center", transform=ax.transAxes, fontsize=14)
    _host_axis(ax, hosts, (begin, end), scale)
    digits = 0 if unit == "s" else 1
    span = "whole run" if whole else (f"window {begin / scale:,.{digits}f}-{end / scale:,.{digits}f} {unit} of the run")
    ax.set_title(f"Gantt chart of {name}: {len(part)} job attempts, {span}")
    load = _draw_load(fig, grid[1], ax, raw, hosts, (begin, end), scale, unit)
    # One figure legend (job states, then curves): both panels keep the same width.
    fig.legend(handles=handles + load.get_legend_handles_labels()[0], loc="outside right upper", fontsize="small")
    fig.savefig(path)
    return {
        "path": os.fspath(path),
        "window": [begin, end],
        "jobs_drawn": len(part),
        "whole_run": whole,
        "legend": [h.get_label() for h in handles],
    }


def _nothing_ran(fig: Figure, name: str) -> None:
    ax = fig.add_subplot()
    ax.set_title(f"Gantt chart of {name}")
    ax.text(0.5, 0.5, "no executed job: nothing to draw", ha="center", va="center", transform=ax.transAxes, fontsize=14)
    ax.set_xlabel("simulation time (s)")
    ax.set_ylabel("host id")


def _draw_attempts(fig: Figure, spec, part: pd.DataFrame, hosts: int, window: tuple[float, float], scale: float):
    """evalys' Gantt chart of the attempts in the window, colored by kind; (its axes, the
    legend's handles of the kinds drawn)."""
    begin, end = window
    shown = part.copy()
    for column in ("submission_time", "starting_time", "finish_time", "execution_time", "waiting_time"):
        shown[column] = shown[column] / scale
    jobset = to_jobset(shown, hosts=hosts)
    categories = attempt_categories(part)
    colors = [CATEGORIES[c][1][i % len(CATEGORIES[c][1])] for i, c in enumerate(categories)]
    gantt = _gantt_class()(_LayoutSpec(fig, spec), title="")
    gantt.alpha = 0.75
    gantt.colorer = lambda job, palette: colors[int(job["uniq_num"])]
    if len(part) > LABEL_MAX_JOBS:
        gantt.labeler = lambda job: ""
    else:  # no label in boxes too narrow to hold it
        narrow = (end - begin) / scale / 70
        gantt.labeler = lambda job: str(job["jobID"]) if job["execution_time"] >= narrow else ""
    with quiet_evalys():
        gantt.build(jobset)
    ax = fig.axes[-1]
    if hosts > 64:  # evalys draws 0.5-pt black edges: too dark on big machines
        for patch in ax.patches:
            patch.set_linewidth(0.15)
    present = set(categories)
    handles = [
        matplotlib.patches.Patch(
            facecolor=tints[0],
            edgecolor="black",
            alpha=0.75,
            label=label + (" (two tints alternate)" if len(tints) > 1 else ""),
        )
        for key, (label, tints) in CATEGORIES.items()
        if key in present
    ]
    return ax, handles


def _host_axis(ax, hosts: int, window: tuple[float, float], scale: float) -> None:
    """The Gantt panel's axes: the window, one row per host (numbered up to 32 hosts)."""
    begin, end = window
    ax.set_xlim(begin / scale, end / scale)
    ax.set_ylim(0, hosts)
    ax.grid(False, axis="y")  # evalys turns the grid on; host rows get boundary lines
    if hosts <= 32:
        ax.set_yticks(np.arange(hosts) + 0.5, [str(h) for h in range(hosts)])
        ax.set_yticks(np.arange(hosts + 1), minor=True)
        ax.grid(True, which="minor", axis="y", alpha=0.3)
        ax.tick_params(axis="y", which="minor", length=0)
    ax.set_ylabel("host id")
    ax.tick_params(labelbottom=False)


def _draw_load(
    fig: Figure, spec, ax, raw: pd.DataFrame, hosts: int, window: tuple[float, float], scale: float, unit: str
):
    """The panel below: busy hosts and hosts requested by waiting jobs over the window."""
    begin, end = window
    load = fig.add_subplot(spec, sharex=ax)
    for kind, label, color, style in (
        ("utilisation", "busy hosts", "black", "-"),
        ("queue", "hosts requested by waiting jobs", "#666666", "--"),
    ):
        x, y = _step(load_curve(raw, kind), begin, end)
        load.step(x / scale, y, where="post", label=label, color=color, linestyle=style, linewidth=1.2)
    load.axhline(hosts, color="#999999", linestyle=":", linewidth=1, label=f"machine: {hosts} hosts")
    load.set_xlim(begin / scale, end / scale)
    load.set_ylim(bottom=0)
    load.set_xlabel(f"simulation time ({unit})")
    load.set_ylabel("hosts")
    load.grid(True, alpha=0.4)
    return load
