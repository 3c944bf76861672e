"""The run explorer's page: Bokeh figures, tables and widgets of :class:`~.data.RunData` runs.

Layout, top to bottom: a header (what is shown, how to move around), the legend of the
attempt categories, one Gantt chart per run (all sharing one time axis), busy hosts, queued
demand and waiting jobs on the same axis, the job table with its filters, the metrics tables.
Bokeh (BSD, the library of Dask's dashboard) draws everything on WebGL where the browser has
it; the JavaScript of :mod:`.callbacks` only formats, selects, zooms and filters.
"""

from __future__ import annotations

import html
import json

import numpy as np
from bokeh.layouts import column, row
from bokeh.models import (
    AdaptiveTicker,
    BooleanFilter,
    BoxAnnotation,
    CDSView,
    ColumnDataSource,
    CompositeTicker,
    CustomJS,
    CustomJSHover,
    CustomJSTickFormatter,
    DataRange1d,
    DataTable,
    Div,
    HoverTool,
    LinearColorMapper,
    NumberFormatter,
    NumericInput,
    Quad,
    Range1d,
    Select,
    StringFormatter,
    TableColumn,
    TapTool,
    TextInput,
)
from bokeh.plotting import figure

from ..gantt import CATEGORIES
from ..metrics import CLASSES, OVERALL_ROWS, class_label, fmt_number, fmt_seconds
from . import callbacks
from .data import PALETTE, PALETTE_KEYS, RunData, envelope, raster

#: Line colours of the runs in the load series (Okabe-Ito's black first: one run is black,
#: as in the Gantt PNG's panel).
RUN_COLOURS = ("#000000", "#E69F00", "#0072B2", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#F0E442")
GANTT_HEIGHT = 420
SERIES_HEIGHT = 150
#: Bokeh's canvas backend: in headless Chromium without a GPU (CI, benchmarks/explore.py) its
#: WebGL backend draws the whole CTC-SP2 year 2x slower and lines 8x slower (docs/analysis.md).
BACKEND = "canvas"
TOOLS = "xpan,xwheel_zoom,box_zoom,reset,save"


def time_ticker() -> CompositeTicker:
    """Ticks at round times of simulation seconds: 1-30 s, 1-30 min, 1-12 h, 1, 2, 5, 10... days
    (Bokeh's DatetimeTicker, in seconds instead of milliseconds since 1970)."""
    return CompositeTicker(
        tickers=[
            AdaptiveTicker(mantissas=[1, 2, 5], base=10, min_interval=0, max_interval=0.5),
            AdaptiveTicker(mantissas=[1, 2, 5, 10, 15, 20, 30], base=60, min_interval=1, max_interval=1800),
            AdaptiveTicker(mantissas=[1, 2, 4, 6, 8, 12], base=24, min_interval=3600, max_interval=43200),
            AdaptiveTicker(mantissas=[1, 2, 5], base=10, min_interval=86400, max_interval=float("inf")),
        ]
    )


def time_axis(fig) -> None:
    fig.xaxis.ticker = time_ticker()
    fig.xaxis.formatter = CustomJSTickFormatter(code=callbacks.TICK)
    fig.xaxis.axis_label = "simulation time (days hh:mm)"


def _figure(x_range, height: int, y_label: str, **kwargs):
    fig = figure(
        x_range=x_range,
        height=height,
        sizing_mode="stretch_width",
        tools=TOOLS,
        active_drag="xpan",
        active_scroll="xwheel_zoom",
        output_backend=BACKEND,
        **kwargs,
    )
    fig.yaxis.axis_label = y_label
    time_axis(fig)
    fig.toolbar.logo = None
    return fig


def sources(runs: list[RunData], keys: np.ndarray) -> tuple[list[dict], ColumnDataSource]:
    """Per run ``{"rects", "attempts"}`` data sources, and one source of every run's jobs
    (``run``: the run's position; ``key``: the job's code, the same in every run)."""
    per_run, offset, job_columns = [], 0, []
    for index, run in enumerate(runs):
        r, a = run.rects, run.attempts
        low_dtype = np.uint16 if run.hosts < 65535 else np.int32
        rects = ColumnDataSource(
            {
                "left": a["start"][r["attempt"]],
                "right": a["end"][r["attempt"]],
                "bottom": r["low"].astype(low_dtype),
                "top": (r["high"] + 1).astype(low_dtype),
                "code": a["code"][r["attempt"]],
                "attempt": r["attempt"],
            },
            name=f"rects-{index}",
        )
        shown = {name: a[name] for name in ("id", "parent", "submit", "hosts", "code")}
        attempts = ColumnDataSource({**shown, "job": (a["job"] + offset).astype(np.int32)}, name=f"attempts-{index}")
        per_run.append({"rects": rects, "attempts": attempts})
        job_columns.append({**run.jobs, "run": np.full(len(run.jobs["id"]), index, dtype=np.uint8)})
        offset += len(run.jobs["id"])
    jobs = {name: np.concatenate([c[name] for c in job_columns]) for name in job_columns[0]}
    jobs["key"] = keys
    return per_run, ColumnDataSource(jobs, name="jobs")


def gantt_figure(run: RunData, index: int, x_range, source: dict, jobs: ColumnDataSource, js_args: dict):
    """The Gantt chart of one run: one quad per rectangle, coloured by category code."""
    y_range = Range1d(0, run.hosts, bounds=(0, run.hosts))
    height = GANTT_HEIGHT if run.hosts > 32 else max(160, 12 * run.hosts + 80)
    fig = _figure(x_range, height, "host id", y_range=y_range, title=f"{run.label}: Gantt chart", name=f"gantt-{index}")
    colour = {"field": "code", "transform": LinearColorMapper(palette=list(PALETTE), low=-0.5, high=len(PALETTE) - 0.5)}
    renderer = fig.quad(
        left="left",
        right="right",
        bottom="bottom",
        top="top",
        source=source["rects"],
        fill_color=colour,
        fill_alpha=0.85,
        line_color="#333333" if run.hosts <= 64 else None,
        line_width=0.3,
        name=f"gantt-quads-{index}",
    )
    renderer.selection_glyph = Quad(fill_color=colour, fill_alpha=1.0, line_color="black", line_width=1.5)
    renderer.nonselection_glyph = Quad(fill_color=colour, fill_alpha=0.15, line_color=None)
    kinds = [CATEGORIES[key][0] for key, _ in PALETTE_KEYS]
    hover_args = {"rects": source["rects"], "attempts": source["attempts"], "jobs": jobs, "kinds": kinds, **js_args}
    fig.add_tools(
        HoverTool(
            renderers=[renderer],
            tooltips='<div style="white-space: pre; font: 12px monospace">@attempt{custom}</div>',
            formatters={"@attempt": CustomJSHover(args=hover_args, code=callbacks.HOVER)},
        ),
        TapTool(renderers=[renderer], callback=CustomJS(args=js_args, code=callbacks.TAP)),
    )
    fig.xgrid.visible = False
    fig.ygrid.visible = False
    return fig, renderer


def gantt_overview(fig, run: RunData, begin: float, end: float):
    """The overview raster of a run's Gantt chart (:func:`~.data.raster`), drawn when zoomed out."""
    image, per_row = raster(run, begin, end)
    mapper = LinearColorMapper(palette=list(PALETTE), low=-0.5, high=len(PALETTE) - 0.5, high_color="rgba(0, 0, 0, 0)")
    return fig.image(
        image=[image], x=begin, y=0, dw=end - begin, dh=image.shape[0] * per_row, color_mapper=mapper, level="image"
    )


def series_overview(fig, run: RunData, name: str, begin: float, end: float, colour: str):
    """Each time bin's lowest to highest value of a load series (:func:`~.data.envelope`)."""
    edges, low, high = envelope(run.series, name, begin, end)
    return fig.quad(
        left=edges[:-1], right=edges[1:], bottom=low, top=high, fill_color=colour, line_color=colour, line_width=1
    )


#: (column of the series, y-axis label, title) of the panels below the Gantt charts.
SERIES = (
    ("busy", "hosts", "utilisation: busy hosts"),
    ("queued", "hosts", "queued demand: hosts requested by waiting jobs"),
    ("waiting", "jobs", "waiting jobs"),
)


def series_figures(runs: list[RunData], x_range, begin: float, end: float, detailed: bool):
    """Busy hosts, queued demand and waiting jobs (step lines, one per run): (figures,
    detailed renderers, overview renderers, series). ``series``: a ``{"full", "shown"}`` pair of
    sources per line: a line draws the part of its series in view (``shown``, cut from
    ``full`` by :data:`~.callbacks.SWITCH` at each zoom; all of it if ``detailed`` at first),
    as a canvas strokes every point of a line, in view or not."""
    figures, detail, overview, series = [], [], [], []
    for name, unit, title in SERIES:
        if name == "busy":
            title += f" (dotted: the machine's {runs[0].hosts} hosts)"
        # y from 0 to the highest value drawn: the lines hold the part in view, so it fits the view
        y_range = DataRange1d(start=0, only_visible=True)
        fig = _figure(x_range, SERIES_HEIGHT, unit, title=title, name=f"series-{name}", y_range=y_range)
        if name == "busy":
            fig.line([begin, end], [runs[0].hosts] * 2, color="#999999", line_dash="dotted")
        for index, run in enumerate(runs):
            full = ColumnDataSource({"time": run.series["time"], "value": run.series[name]})
            source = ColumnDataSource(dict(full.data) if detailed else {"time": [], "value": []})
            series.append({"full": full, "shown": source})
            colour = RUN_COLOURS[index % len(RUN_COLOURS)]
            legend = {"legend_label": run.label} if len(runs) > 1 else {}
            detail.append(
                fig.step("time", "value", source=source, mode="after", color=colour, line_width=1.3, **legend)
            )
            overview.append(series_overview(fig, run, name, begin, end, colour))
        if fig.legend:
            fig.legend.location = "top_left"
            fig.legend.orientation = "horizontal"  # one row: the panels are short
            fig.legend.background_fill_alpha = 0.6
            fig.legend.label_text_font_size = "8pt"
        figures.append(fig)
    return figures, detail, overview, series


def job_table(runs: list[RunData], jobs: ColumnDataSource, zoom_args: dict):
    """The job table (sortable by any column), its filters and the callbacks that filter it
    and zoom the charts to the selected job."""
    count = len(jobs.data["id"])
    view_filter = BooleanFilter(booleans=[True] * count)
    seconds = NumberFormatter(format="0,0.[000]", nan_format="-")
    columns = [
        TableColumn(field="id", title="job", formatter=StringFormatter()),
        TableColumn(field="size", title="hosts requested", formatter=NumberFormatter(format="0,0")),
        TableColumn(field="submit", title="submit (s)", formatter=seconds),
        TableColumn(field="start", title="start (s)", formatter=seconds),
        TableColumn(field="end", title="end (s)", formatter=seconds),
        TableColumn(field="wait", title="wait (s)", formatter=seconds),
        TableColumn(field="bsld", title="bounded slowdown", formatter=NumberFormatter(format="0,0.00", nan_format="-")),
        TableColumn(field="attempts", title="attempts", formatter=NumberFormatter(format="0")),
        TableColumn(field="state", title="state", formatter=StringFormatter()),
    ]
    run_select = None
    if len(runs) > 1:
        labels = [run.label for run in runs]
        jobs.data["run_label"] = np.array(labels, dtype=object)[jobs.data["run"]]
        columns.insert(0, TableColumn(field="run_label", title="run"))
        run_select = Select(title="run", value="all runs", options=["all runs", *labels], width=140)
    table = DataTable(
        source=jobs,
        view=CDSView(filter=view_filter),
        columns=columns,
        sizing_mode="stretch_width",
        height=320,
        index_position=None,
        name="job-table",
    )
    shown = Div(text=f"{count:,} of {count:,} jobs shown", name="job-count")
    inputs = {
        "id": TextInput(title="job id (exact, or prefix*)", width=170),
        "size_min": NumericInput(title="hosts requested, min", mode="int", width=130),
        "size_max": NumericInput(title="hosts requested, max", mode="int", width=130),
        "wait_min": NumericInput(title="wait at least (s)", mode="float", width=130),
        "bsld_min": NumericInput(title="bounded slowdown at least", mode="float", width=160),
    }
    refilter = CustomJS(
        args={"jobs": jobs, "filter": view_filter, "count": shown, "run": run_select, **inputs}, code=callbacks.FILTER
    )
    widgets = list(inputs.values()) + ([run_select] if run_select is not None else [])
    for widget in widgets:
        widget.js_on_change("value", refilter)
    jobs.selected.js_on_change("indices", CustomJS(args={"jobs": jobs, **zoom_args}, code=callbacks.ZOOM))
    help_text = Div(
        text="<b>Jobs</b> (folded: one row per job, its final attempt's start and end). Click a column to sort; "
        "select a row to zoom the charts to that job and highlight its attempts."
    )
    return column(help_text, row(*widgets), shown, table, sizing_mode="stretch_width")


def _cell(key: str, value, fmt) -> str:
    """Two cells of a metric: its value as ``adaptsched metrics`` prints it, and as ``--json`` does."""
    exact = json.dumps(value)
    return (
        f'<td class="metric" data-key="{html.escape(key)}">{html.escape(fmt(value))}</td>'
        f'<td class="json" data-key="{html.escape(key)}">{html.escape(exact)}</td>'
    )


def _formatter(key: str):
    for known, _, fmt in OVERALL_ROWS:
        if known == key:
            return fmt
    return fmt_seconds if key.endswith("_s") else fmt_number


def _label(key: str) -> str:
    return next((label for known, label, _ in OVERALL_ROWS if known == key), key)


TABLE_STYLE = (
    "<style>table.metrics{border-collapse:collapse;font-size:12px;margin:6px 0}"
    "table.metrics td,table.metrics th{border:1px solid #ccc;padding:2px 6px;text-align:right;vertical-align:top}"
    "table.metrics td:first-child,table.metrics th:first-child{text-align:left}"
    "table.metrics td.json{color:#777;font-family:monospace;font-size:11px;text-align:left}</style>"
)


def metrics_div(runs: list[RunData]) -> Div:
    """Every number of ``adaptsched metrics --json`` of each run, as it prints them: the
    overall table (one column per run), then each run's per-class table."""
    head = "".join(f'<th colspan="2">{html.escape(run.label)}: value, --json</th>' for run in runs)
    lines = [TABLE_STYLE, "<h3>Metrics (the whole run, as <code>adaptsched metrics --json</code>)</h3>"]
    lines.append(
        "<p>"
        + "<br>".join(
            f"<b>{html.escape(run.label)}</b>: {html.escape(str(run.path))}, {run.hosts} hosts "
            f"({html.escape(run.metrics['hosts_source'])}); bounded slowdown bound "
            f"{run.metrics['parameters']['bound_s']:g} s; attempts folded"
            for run in runs
        )
        + "</p>"
    )
    lines.append(f'<table class="metrics" id="metrics-overall"><tr><th>metric</th>{head}</tr>')
    for key in runs[0].metrics["overall"]:
        cells = "".join(
            _cell(f"{i}.overall.{key}", run.metrics["overall"].get(key), _formatter(key)) for i, run in enumerate(runs)
        )
        lines.append(f"<tr><td>{html.escape(_label(key))}</td>{cells}</tr>")
    lines.append("</table>")
    for i, run in enumerate(runs):
        classes = run.metrics["classes"]
        params = run.metrics["parameters"]
        head = "".join(f'<th colspan="2">{html.escape(class_label(name, params))}</th>' for name in CLASSES)
        lines.append(f"<h4>{html.escape(run.label)}: per class (executed jobs)</h4>")
        lines.append(f'<table class="metrics" id="metrics-classes-{i}"><tr><th>metric</th>{head}</tr>')
        for key in classes[CLASSES[0]]:
            cells = "".join(
                _cell(f"{i}.classes.{name}.{key}", classes[name].get(key), _formatter(key)) for name in CLASSES
            )
            lines.append(f"<tr><td>{html.escape(_label(key))}</td>{cells}</tr>")
        lines.append("</table>")
    return Div(text="\n".join(lines), sizing_mode="stretch_width", name="metrics")


def legend_div(runs: list[RunData]) -> Div:
    """The attempt categories drawn, with their colours and counts."""
    counts = np.zeros(len(PALETTE_KEYS), dtype=np.int64)
    for run in runs:
        counts += np.bincount(run.attempts["code"], minlength=len(PALETTE_KEYS))
    items = []
    for key, (label, tints) in CATEGORIES.items():
        codes = [n for n, (k, _) in enumerate(PALETTE_KEYS) if k == key]
        total = int(counts[codes].sum())
        if not total:
            continue
        swatches = "".join(
            f'<span style="display:inline-block;width:14px;height:12px;background:{tint};'
            'border:1px solid #333;margin-right:1px"></span>'
            for tint in tints
        )
        items.append(
            f'<span style="margin-right:16px;white-space:nowrap">{swatches} {html.escape(label)} ({total:,})</span>'
        )
    return Div(
        text="<div style='font-size:12px'>" + " ".join(items) + "</div>", sizing_mode="stretch_width", name="legend"
    )


def zoom_switch(x_range, detail: list, overview: list, series: list, limit_s: float) -> Div:
    """Shows the detailed renderers when at most ``limit_s`` seconds are in view, else the
    overview ones, and cuts the load series to the view; the returned Div says which."""
    status = Div(text="", sizing_mode="stretch_width", name="zoom-status")
    limit = limit_s if np.isfinite(limit_s) else 1e300
    switch = CustomJS(
        args={
            "xr": x_range,
            "detail": detail,
            "overview": overview,
            "series": series,
            "limit": limit,
            "status": status,
        },
        code=callbacks.SWITCH,
    )
    x_range.js_on_change("start", switch)
    x_range.js_on_change("end", switch)
    span = x_range.end - x_range.start
    for renderer in detail:
        renderer.visible = span <= limit
    for renderer in overview:
        renderer.visible = span > limit
    status.text = callbacks.status_text(span <= limit, limit)
    return status


def whole_run_overview(runs: list[RunData], extent, window) -> list:
    """Aggregated pages: each run's whole Gantt chart as a raster and its busy hosts as an
    envelope, on their own time axis, the window of the details shaded."""
    x_range = Range1d(*extent, bounds=extent)
    figures = []
    for index, run in enumerate(runs):
        fig = _figure(x_range, 220, "host id", title=f"{run.label}: the whole run (overview)", name=f"whole-{index}")
        assert run.overview is not None and run.overview_series is not None  # load_run made them for this page
        image, per_row = run.overview
        mapper = LinearColorMapper(palette=list(PALETTE), low=-0.5, high=len(PALETTE) - 0.5, high_color="rgba(0,0,0,0)")
        fig.image(
            image=[image], x=extent[0], y=0, dw=extent[1] - extent[0], dh=image.shape[0] * per_row, color_mapper=mapper
        )
        fig.add_layout(BoxAnnotation(left=window[0], right=window[1], fill_color="#333333", fill_alpha=0.12))
        figures.append(fig)
    busy = _figure(x_range, 120, "hosts", title="the whole run: busy hosts (overview)", name="whole-busy")
    for index, run in enumerate(runs):
        assert run.overview_series is not None
        edges, low, high = run.overview_series["busy"]
        colour = RUN_COLOURS[index % len(RUN_COLOURS)]
        busy.quad(left=edges[:-1], right=edges[1:], bottom=low, top=high, fill_color=colour, line_color=colour)
    busy.add_layout(BoxAnnotation(left=window[0], right=window[1], fill_color="#333333", fill_alpha=0.12))
    return figures + [busy]
