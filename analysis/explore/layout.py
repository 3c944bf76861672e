"""The explorer page's layout (described in :mod:`.page`) and the callbacks that tie its parts."""

from __future__ import annotations

import html

import numpy as np
import pandas as pd
from bokeh.document import Document
from bokeh.events import DocumentReady
from bokeh.layouts import column, row
from bokeh.models import CustomJS, Div, Range1d, Select, TabPanel, Tabs

from . import callbacks, colours, fmt, page
from .charts import GanttCharts, whole_run_overview
from .data import RunData
from .diff import diff_view
from .tables import TABLE_WIDTH, job_table, metrics_div

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


def job_keys_codes(runs: list[RunData]) -> np.ndarray:
    """One integer per job row of all runs, equal for the same job (root key) in every run."""
    every = np.concatenate([run.keys for run in runs])
    codes, _ = pd.factorize(every)
    return codes.astype(np.int32)


def padded(first: float, last: float) -> tuple[float, float]:
    pad = max((last - first) * 0.01, 1.0)
    return first - pad, last + pad


def document(runs: list[RunData], window, *, title=None, aggregated=None, extent=None) -> Document:
    """The page's Bokeh document (module doc of :mod:`.page`)."""
    first, last = min(run.span[0] for run in runs), max(run.span[1] for run in runs)
    begin, end = window if window is not None else padded(first, last)
    x_range = Range1d(begin, end, bounds=(begin, end), name="time-range")
    per_run, jobs = page.sources(runs, job_keys_codes(runs))
    js_args = {"runs": per_run, "keys": jobs.data["key"]}
    limit = detail_limit_s(runs)
    overview = end - begin > limit
    charts = GanttCharts(runs, per_run, jobs, js_args, x_range, (begin, end), overview)
    gantt = charts.layout()
    series, lines, envelopes, pairs = page.series_figures(runs, x_range, begin, end, overview)
    status = Div(text=callbacks.status_text(not overview, limit), name="zoom-status", sizing_mode="stretch_width")
    entries = charts.entries + [(r, 0, "own", "detail") for r in lines] + [(r, 0, "own", "overview") for r in envelopes]
    switch_args = {
        "xr": x_range, "limit": limit if np.isfinite(limit) else 1e300, "status": status, "series": pairs,
        "rs": [e[0] for e in entries], "owner": [e[1] for e in entries], "slot": [e[2] for e in entries],
        "kind": [e[3] for e in entries], "titles": charts.titles, "labels": [run.label for run in runs],
        "pick_a": None, "pick_b": None,
    }  # fmt: skip
    switch = CustomJS(args=switch_args, code=callbacks.SWITCH)
    right = [TabPanel(child=job_table(runs, jobs, {"xr": x_range, **js_args}), title="jobs")]
    ready = [switch]
    if len(runs) > 1:
        view, picks, compute = diff_view(runs, jobs, {"xr": x_range, **js_args}, gantt, [switch])
        switch_args["pick_a"], switch_args["pick_b"] = picks
        switch.args = switch_args
        right.insert(0, TabPanel(child=view, title="difference A, B"))
        ready.append(compute)
    right.append(TabPanel(child=metrics_div(runs), title="metrics"))
    x_range.js_on_change("start", switch)
    x_range.js_on_change("end", switch)
    left = [*(whole_run_overview(runs, extent, window) if aggregated else []), gantt, *series]
    main = row(column(*left, sizing_mode="stretch_width"), Tabs(tabs=right, width=TABLE_WIDTH + 20, name="side-tabs"),
               sizing_mode="stretch_width")  # fmt: skip
    doc = Document()  # three roots: BokehJS 3.9 leaves tabs at zero width in a row inside a column
    for root in (header(runs, window, title, aggregated), controls(runs, per_run, jobs, charts, status), main):
        doc.add_root(root)
    for callback in ready:
        doc.js_on_event(DocumentReady, callback)
    return doc


def controls(runs: list[RunData], per_run: list[dict], jobs, charts: GanttCharts, status: Div):
    """The colour rule's selector, its legend, and the zoom status."""
    users = pd.Series(np.asarray(jobs.data["user"])[np.asarray(jobs.data["run"]) == 0])
    busiest = users[users >= 0].value_counts().head(8)
    legends = colours.legends(runs[0].hosts, runs[0].classes, [(int(u), int(n)) for u, n in busiest.items()])
    legend = Div(text=legends["job"], name="colour-legend", sizing_mode="stretch_width", styles={"font-size": "12px"})
    picker = Select(title="colour by", value="job", options=list(colours.MODES), width=230, name="colour-by")
    picker.js_on_change(
        "value",
        CustomJS(
            args={"picker": picker, "jobs": jobs, "runs": per_run, "mappers": charts.mappers, "legend": legend,
                  "palettes": colours.palettes(runs[0].hosts), "legends": legends},
            code=colours.RECOLOUR,
        ),
    )  # fmt: skip
    return column(row(picker, column(legend, status, sizing_mode="stretch_width"), sizing_mode="stretch_width"),
                  sizing_mode="stretch_width")  # fmt: skip


def header(runs: list[RunData], window, title: str | None, aggregated: dict | None = None) -> Div:
    """What the page shows and how to move around in it."""
    lines = [f"<b style='font-size:16px'>{html.escape(title or 'Run explorer')}</b>"]
    for index, run in enumerate(runs):
        colour = page.RUN_COLOURS[index % len(page.RUN_COLOURS)]
        lines.append(
            f"<br><span style='color:{colour}'>&#9644;</span> <b>{html.escape(run.label)}</b>: "
            f"{run.metrics['overall']['jobs']:,} jobs on {run.hosts} hosts, {len(run.attempts['id']):,} attempts "
            f"drawn as {len(run.rects['low']):,} rectangles <span style='color:#666'>({html.escape(str(run.path))})"
            "</span>"
        )
    if aggregated:
        kept, total = aggregated["attempts_kept"], aggregated["attempts"]
        lines.append(
            '<p id="aggregated" style="background:#fff3cd;padding:4px;margin:2px 0"><b>Aggregated:</b> this run is '
            f"too big for one page ({aggregated['items']:,} items: rectangles, attempts, jobs and load events; a page "
            f"holds {aggregated['items_kept']:,}). The whole run is shown below as an overview, one pixel per "
            "time bin and host row; the details (every rectangle, hover, job table) cover only "
            f"{kept:,} of its {total:,} attempts ({100 * kept / total:.0f} %), those that started between "
            f"{fmt.instant(aggregated['window'][0])} and {fmt.instant(aggregated['window'][1])}. Explore another "
            "period with <code>--window START:END</code>.</p>"
        )
    span = (
        f"from {fmt.instant(window[0])} to {fmt.instant(window[1])} (this window's attempts and jobs; the metrics "
        "cover the whole run)"
        if window is not None
        else "the whole run"
    )
    lines.append(
        f"<br>Shown: {span}. Drag to pan, wheel to zoom in time, draw a box to zoom on hosts; hover over an attempt "
        "for its numbers, click it to highlight its job in every run. Times: days hh:mm:ss of simulation."
    )
    if any(run.energy is not None and len(run.energy["spans"]["left"]) for run in runs):
        lines.append(
            " <span id='power-states-legend'>In the Gantt charts, <span style='background:#9a9a9a'>&nbsp;grey&nbsp;"
            "</span>: hosts asleep; <span style='background:#d4d4d4;outline:1px dashed #555555'>&nbsp;light grey, "
            "outlined&nbsp;</span>: hosts switching off or on (Batsim's energy model).</span>"
        )
    return Div(text="".join(lines), sizing_mode="stretch_width", name="header", styles={"font-size": "12px"})
