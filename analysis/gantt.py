"""Gantt chart PNG of one run, drawn by evalys' ``GanttVisualization``.

The chart shows every executed **attempt** (unfolded rows: a killed attempt did occupy its
hosts), coloured by final state, above a panel with evalys' utilisation (busy hosts) and
queue (hosts requested by waiting jobs) curves.

Windowing (so that large traces stay readable and fast): by default the window starts at the
first submission and ends ``max_span_s`` (2 days) later, or earlier, just before the
``max_jobs``-th (500th) job start or before the job start that brings the rectangles to draw
past ``max_boxes`` (3000; a job has one rectangle per interval of its allocation, and
fragmented allocations have hundreds), whichever comes first (never past the last finish). The
start of the trace was chosen over "the busiest period" because it is deterministic and
identical for all runs of a comparison (the same workload starts at the same time whatever
the scheduler), so the charts can be compared side by side. An explicit
``window=(start_s, end_s)`` overrides it. Jobs overlapping a window edge are clipped to it.
"""

from __future__ import annotations

import collections
import os

import matplotlib
import matplotlib.patches
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from .evalys_bridge import executed_rows, load_curve, quiet_evalys, to_jobset
from .jobs import FAILED, KILLED, SUCCESS, WALLTIME, alloc_columns, with_alloc_columns

MAX_JOBS = 500
MAX_SPAN_S = 2 * 86400.0
MAX_BOXES = 3000  # rectangles (allocation intervals): beyond, drawing gets slow
LABEL_MAX_JOBS = 80  # job ids are written in the boxes up to this many jobs

_SUCCESS_COLORS = ("#56B4E9", "#009E73", "#0072B2", "#A6D96A", "#CC79A7", "#AAAAAA")
_STATE_COLORS = {WALLTIME: "#D55E00", KILLED: "#E69F00", FAILED: "#333333"}
_STATE_NAMES = {
    SUCCESS: "completed (colours alternate per job)",
    WALLTIME: "walltime reached",
    KILLED: "killed by the scheduler",
    FAILED: "failed",
}

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
        boxes = (df["allocated_resources"].str.count(" ").to_numpy() + 1)[order]
        first = int(np.searchsorted(starts, begin, side="left"))
        starts, boxes = starts[first:], boxes[first:]
        limit = min(max_jobs - 1, int(np.searchsorted(np.cumsum(boxes), max_boxes, side="right")))
        if limit < len(starts):
            end = min(end, float(starts[limit]))
    if end <= begin:  # hundreds of jobs start at once: show at least the first finish
        end = max(begin + 1.0, float(min(df["finish_time"].min() for df in ran)))
    return begin, end


def _time_unit(span_s: float) -> tuple[float, str]:
    if span_s <= 3 * 3600:
        return (1.0, "s") if span_s <= 1800 else (60.0, "min")
    return 3600.0, "h"


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

    Returns ``{"path", "window": [start_s, end_s] or None, "jobs_drawn", "whole_run"}``.
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
        ax = fig.add_subplot()
        ax.set_title(f"Gantt chart of {name}")
        ax.text(
            0.5, 0.5, "no executed job: nothing to draw", ha="center", va="center", transform=ax.transAxes, fontsize=14
        )
        ax.set_xlabel("simulation time (s)")
        ax.set_ylabel("host id")
        fig.savefig(path)
        return {"path": os.fspath(path), "window": None, "jobs_drawn": 0, "whole_run": True}

    begin, end = window
    scale, unit = _time_unit(end - begin)
    part = _clip(ran, begin, end)
    whole = bool(len(ran) == 0 or (begin <= ran["submission_time"].min() and end >= ran["finish_time"].max()))
    grid = fig.add_gridspec(2, 1, height_ratios=(3, 1))

    if len(part):
        shown = part.copy()
        for column in ("submission_time", "starting_time", "finish_time", "execution_time", "waiting_time"):
            shown[column] = shown[column] / scale
        jobset = to_jobset(shown, hosts=hosts)
        states = part["final_state"].to_numpy()
        colors = [_STATE_COLORS.get(state, _SUCCESS_COLORS[i % len(_SUCCESS_COLORS)]) for i, state in enumerate(states)]
        gantt = _gantt_class()(_LayoutSpec(fig, grid[0]), title="")
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
        present = [s for s in (SUCCESS, WALLTIME, KILLED, FAILED) if s in set(states)]
        handles = [
            matplotlib.patches.Patch(
                facecolor=_STATE_COLORS.get(s, _SUCCESS_COLORS[0]), edgecolor="black", alpha=0.75, label=_STATE_NAMES[s]
            )
            for s in present
        ]
    else:
        handles = []
        ax = fig.add_subplot(grid[0])
        ax.text(0.5, 0.5, "no job ran in this window", ha="center", va="center", transform=ax.transAxes, fontsize=14)
    ax.set_xlim(begin / scale, end / scale)
    ax.set_ylim(0, hosts)
    ax.grid(False, axis="y")  # evalys turns the grid on; host rows get boundary lines
    if hosts <= 32:
        ax.set_yticks(np.arange(hosts) + 0.5, [str(h) for h in range(hosts)])
        ax.set_yticks(np.arange(hosts + 1), minor=True)
        ax.grid(True, which="minor", axis="y", alpha=0.3)
        ax.tick_params(axis="y", which="minor", length=0)
    ax.set_ylabel("host id")
    digits = 0 if unit == "s" else 1
    span = "whole run" if whole else (f"window {begin / scale:,.{digits}f}-{end / scale:,.{digits}f} {unit} of the run")
    ax.set_title(f"Gantt chart of {name}: {len(part)} job attempts, {span}")
    ax.tick_params(labelbottom=False)

    load = fig.add_subplot(grid[1], sharex=ax)
    for kind, label, color in (
        ("utilisation", "busy hosts", "#0072B2"),
        ("queue", "hosts requested by waiting jobs", "#D55E00"),
    ):
        x, y = _step(load_curve(raw, kind), begin, end)
        load.step(x / scale, y, where="post", label=label, color=color, linewidth=1.2)
    load.axhline(hosts, color="grey", linestyle=":", linewidth=1, label=f"{hosts} hosts")
    load.set_xlim(begin / scale, end / scale)
    load.set_ylim(bottom=0)
    load.set_xlabel(f"simulation time ({unit})")
    load.set_ylabel("hosts")
    load.grid(True, alpha=0.4)
    # One figure legend (job states, then curves): both panels keep the same width.
    fig.legend(handles=handles + load.get_legend_handles_labels()[0], loc="outside right upper", fontsize="small")
    fig.savefig(path)
    return {"path": os.fspath(path), "window": [begin, end], "jobs_drawn": len(part), "whole_run": whole}
