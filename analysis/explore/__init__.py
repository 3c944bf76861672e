"""The run explorer: one self-contained HTML page to look at whole runs in a browser.

``explore_runs(prefixes, out)`` writes the page of one run, or of several runs on one time
axis: a Gantt chart of every attempt of each run (zoom, pan, hover for a job's numbers,
click to highlight all attempts of a job), busy hosts, queued demand and waiting jobs
below on the same axis, a sortable and filterable job table whose selected row zooms the
charts to its job, and the metrics tables (``adaptsched metrics --json``'s numbers, as it
prints them). The page holds its JavaScript (BokehJS) and its data: it opens offline, from
a disk or an e-mail, without a server.

* data: :mod:`.data` (numpy columns, testable without a browser);
* layout: :mod:`.page` (Bokeh), its few callbacks: :mod:`.callbacks`;
* the sweep report (``DIR/report.html``): :mod:`.sweep`.

Runs that cannot be explored raise :class:`~adaptsched.errors.InputError` with one
paragraph saying why: runs of different machine sizes, a ``_jobs.csv`` without its
``_schedule.csv``, no executed job, a window outside the run.
"""

from __future__ import annotations

import html
import os
from pathlib import Path

import numpy as np
import pandas as pd
from bokeh.embed import file_html
from bokeh.layouts import column
from bokeh.models import Div, Range1d
from bokeh.resources import INLINE

from ...errors import InputError, UsageError
from ..compare import _labels
from ..gantt import parse_window
from . import page
from .data import MAX_ITEMS, RunData, build_run, detail_window, load_run, mixed_hosts, window_problem

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
) -> dict:
    """Write the explorer page of the runs ``prefixes`` (Batsim ``-e`` prefixes or their
    ``_jobs.csv``) to ``out``.

    ``window``: ``(start_s, end_s)`` or a ``--window`` text (``"1d:2d"``, ``"job:42"``:
    :func:`~adaptsched.analysis.gantt.parse_window`): the page then holds only the attempts
    and jobs of that window (default: the whole run). ``bound_s``: bounded-slowdown bound.
    ``max_items``: runs bigger than that (:func:`~.data.detail_window`) are aggregated: the
    page shows the whole run as an overview and the details of its first part only, and says so.

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
    extent = _padded(min(s[0] for s in spans), max(s[1] for s in spans))
    runs = [
        build_run(raw, metrics, jobs, label, detail, whole_run_extent=extent if aggregated else None)
        for (raw, metrics, jobs), label in zip(loaded, labels)
    ]
    document = layout(runs, detail, title=title, aggregated=aggregated, extent=extent)
    text = file_html(document, INLINE, title=title or "adaptsched explorer: " + ", ".join(labels))
    out = Path(out)
    out.write_text(text, encoding="utf-8")
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


def job_keys_codes(runs: list[RunData]) -> np.ndarray:
    """One integer per job row of all runs, equal for the same job (root key) in every run."""
    every = np.concatenate([run.keys for run in runs])
    codes, _ = pd.factorize(every)
    return codes.astype(np.int32)


def _padded(first: float, last: float) -> tuple[float, float]:
    pad = max((last - first) * 0.01, 1.0)
    return first - pad, last + pad


def layout(runs: list[RunData], window, *, title=None, aggregated=None, extent=None):
    """The page's Bokeh layout (module doc of :mod:`.page`)."""
    first = min(run.span[0] for run in runs)
    last = max(run.span[1] for run in runs)
    begin, end = window if window is not None else _padded(first, last)
    x_range = Range1d(begin, end, bounds=(begin, end), name="time-range")
    keys = job_keys_codes(runs)
    per_run, jobs = page.sources(runs, keys)
    js_args = {"runs": per_run, "keys": jobs.data["key"]}
    gantts, detail, overview = [], [], []
    for i, run in enumerate(runs):
        fig, quads = page.gantt_figure(run, i, x_range, per_run[i], jobs, js_args)
        gantts.append(fig)
        detail.append(quads)
        overview.append(page.gantt_overview(fig, run, begin, end))
    limit = detail_limit_s(runs)
    series, series_detail, series_overview, cut = page.series_figures(runs, x_range, begin, end, end - begin <= limit)
    table = page.job_table(runs, jobs, {**js_args, "xr": x_range})
    status = page.zoom_switch(x_range, detail + series_detail, overview + series_overview, cut, limit)
    whole = page.whole_run_overview(runs, extent, window) if aggregated else []
    return column(
        header(runs, window, title, aggregated),
        page.legend_div(runs),
        *whole,
        status,
        *gantts,
        *series,
        table,
        page.metrics_div(runs),
        sizing_mode="stretch_width",
    )


#: At most this many rectangles (or load-series events) in view, on average over the run,
#: are drawn one by one; zoomed out further, the charts draw their overview (module doc).
DETAIL_LIMIT = 40_000


def detail_limit_s(runs: list[RunData]) -> float:
    """The widest time span drawn in detail: about :data:`DETAIL_LIMIT` rectangles or
    series events in view in the densest run."""
    densest = max(
        max(len(run.rects["low"]), len(run.series["time"])) / max(run.span[1] - run.span[0], 1.0) for run in runs
    )
    return DETAIL_LIMIT / densest if densest > 0 else float("inf")


def header(runs: list[RunData], window, title: str | None, aggregated: dict | None = None) -> Div:
    """What the page shows and how to move around in it."""
    lines = [f"<h2>{html.escape(title or 'Run explorer')}</h2>", "<ul>"]
    for run in runs:
        lines.append(
            f"<li><b>{html.escape(run.label)}</b> ({html.escape(str(run.path))}): "
            f"{run.metrics['overall']['jobs']:,} jobs on {run.hosts} hosts; "
            f"{len(run.attempts['id']):,} attempts drawn as "
            f"{len(run.rects['low']):,} rectangles (one per interval of their allocation)</li>"
        )
    lines.append("</ul>")
    if aggregated:
        kept, total = aggregated["attempts_kept"], aggregated["attempts"]
        lines.append(
            '<p id="aggregated" style="background:#fff3cd;padding:4px"><b>Aggregated:</b> this run is too big '
            f"for one page ({aggregated['items']:,} items: rectangles, attempts, jobs and load events; a page "
            f"holds {aggregated['items_kept']:,}). The whole run is shown below as an overview, one pixel per "
            "time bin and host row; the details (every rectangle, hover, job table) cover only "
            f"{kept:,} of its {total:,} attempts ({100 * kept / total:.0f} %), those that started between "
            f"{aggregated['window'][0]:,.0f} s and {aggregated['window'][1]:,.0f} s. Explore another period "
            "with <code>--window START:END</code>.</p>"
        )
    span = (
        f"window {window[0]:,.0f} s to {window[1]:,.0f} s (the attempts and jobs of this window only; "
        "the metrics cover the whole run)"
        if window is not None
        else "the whole run"
    )
    lines.append(
        f"<p>Shown: {span}. Drag to pan, turn the mouse wheel to zoom in time, draw a box to zoom on hosts; "
        "hover over an attempt for its numbers; click it to highlight every attempt and copy of its job in "
        "every run. Times are simulation seconds, written days hh:mm on the axes.</p>"
    )
    return Div(text="\n".join(lines), sizing_mode="stretch_width", name="header")
