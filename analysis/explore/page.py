"""The run explorer's page: its data sources, time axes and load panels.

Layout (:func:`~adaptsched.analysis.explore.layout`), for a 1600x1000 screen: a header (the
runs, how to move around), a row of controls (the colour rule and its legend, the zoom
status); then, on the left, the Gantt charts (:mod:`.charts`: in tabs, one per run and one of
two runs one above the other) with busy hosts, queued demand and waiting jobs (and, for a run
made with Batsim's energy model, its power and its hosts asleep and switching) right below
them on the same time axis; on the right, in tabs, the job table (:mod:`.tables`), the
difference between two runs (:mod:`.diff`) and the metrics tables. Whatever is picked on the
right (a job, a job that gained or lost) zooms the charts on the left, which stay in view.

Bokeh (BSD, the library of Dask's dashboard) draws everything; the JavaScript of
:mod:`.callbacks` only formats, selects, zooms and filters.
"""

from __future__ import annotations

import numpy as np
from bokeh.models import (
    AdaptiveTicker,
    ColumnDataSource,
    CompositeTicker,
    CustomJSTickFormatter,
    DataRange1d,
)
from bokeh.plotting import figure

from . import callbacks
from .data import RunData, envelope

#: Line colours of the runs in the load series (Okabe-Ito's black first).
RUN_COLOURS = ("#000000", "#E69F00", "#0072B2", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#F0E442")
SERIES_HEIGHT = 122
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


def time_axis(fig, label: bool = True) -> None:
    fig.xaxis.ticker = time_ticker()
    fig.xaxis.formatter = CustomJSTickFormatter(code=callbacks.TICK)
    if label:
        fig.xaxis.axis_label = "simulation time (days hh:mm)"


def new_figure(x_range, height: int, y_label: str, **kwargs):
    """A figure on the shared time axis (pan and wheel zoom in time)."""
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
    fig.title.text_font_size = "11pt"
    time_axis(fig)
    fig.toolbar.logo = None
    return fig


def compact(values: np.ndarray) -> np.ndarray:
    """Times as int32 when they are all whole seconds (archive traces' are): half the bytes of
    float64, and exact; float64 otherwise (fractions, or NaN for a job that never ran)."""
    values = np.asarray(values)
    if values.dtype.kind in "iu":
        return values
    if len(values) and np.isfinite(values).all() and (values == np.round(values)).all():
        if np.abs(values).max() < 2**31:
            return values.astype(np.int32)
    return values.astype(float)


def sources(runs: list[RunData], keys: np.ndarray) -> tuple[list[dict], ColumnDataSource]:
    """Per run ``{"rects", "attempts", "label"}`` data sources, and one source of every run's
    jobs (``run``: the run's position; ``key``: the job's code, the same in every run)."""
    per_run, offset, job_columns = [], 0, []
    for index, run in enumerate(runs):
        r, a = run.rects, run.attempts
        low_dtype = np.uint16 if run.hosts < 65535 else np.int32
        rects = ColumnDataSource(
            {
                "left": compact(a["start"][r["attempt"]]),
                "right": compact(a["end"][r["attempt"]]),
                "bottom": r["low"].astype(low_dtype),
                "top": (r["high"] + 1).astype(low_dtype),
                "attempt": r["attempt"],
                "c": run.jobs["hue"][a["job"][r["attempt"]]],
            },
            name=f"rects-{index}",
        )
        shown = {name: a[name] for name in ("id", "parent", "hosts", "code")}
        shown["submit"] = compact(a["submit"])
        attempts = ColumnDataSource({**shown, "job": (a["job"] + offset).astype(np.int32)}, name=f"attempts-{index}")
        per_run.append({"rects": rects, "attempts": attempts, "label": run.label})
        job_columns.append({**run.jobs, "run": np.full(len(run.jobs["id"]), index, dtype=np.uint8)})
        offset += len(run.jobs["id"])
    jobs = {name: np.concatenate([c[name] for c in job_columns]) for name in job_columns[0]}
    for name in ("submit", "start", "end", "wait"):
        jobs[name] = compact(jobs[name])
    jobs["bsld"] = jobs["bsld"].astype(np.float32)
    jobs["key"] = keys
    return per_run, ColumnDataSource(jobs, name="jobs")


#: The panels below the Gantt charts: (series of the run, its column, y-axis label, title); a run's
#: series are ``RunData.series`` (``load``) and, when Batsim's energy model ran, ``power`` and
#: ``states`` of ``RunData.energy`` (:mod:`.energy`).
SERIES = (
    ("load", "busy", "hosts", "utilisation: busy hosts"),
    ("load", "queued", "hosts", "queued demand: hosts requested by waiting jobs"),
    ("load", "waiting", "jobs", "waiting jobs"),
)
ENERGY_SERIES = (
    ("power", "watts", "W", "power: the platform's watts (energy difference over time, _consumed_energy.csv)"),
    ("states", "sleeping", "hosts", "hosts asleep (solid) and switching on or off (dashed)"),
)


def run_series(run: RunData) -> dict[str, dict]:
    """The series a run has (:data:`SERIES`): ``load``, and ``power``, ``states`` with energy."""
    out = {"load": run.series}
    if run.energy is not None:
        out.update({name: run.energy[name] for name in ("power", "states") if len(run.energy[name]["time"])})
    return out


def panels(runs: list[RunData]) -> list[tuple]:
    """:data:`SERIES`, and :data:`ENERGY_SERIES` when a run of the page has them."""
    held = set().union(*(run_series(run) for run in runs))
    return list(SERIES) + [panel for panel in ENERGY_SERIES if panel[0] in held]


def series_figures(runs: list[RunData], x_range, begin: float, end: float, overview: bool):
    """Busy hosts, queued demand, waiting jobs and, with energy, power and sleeping and switching
    hosts (step lines, one per run): (figures, detailed renderers, overview renderers, series).
    ``series``: a ``{"full", "shown"}`` pair of sources per run and series: its lines draw the
    part of its series in view (``shown``, cut from ``full`` by :data:`~.callbacks.SWITCH` at each
    zoom and when the page opens), as a canvas strokes every point of a line, in view or not.
    ``overview``: also draw each pixel's lowest to highest value (:func:`~.data.envelope`), shown
    when zoomed out too far for the lines."""
    series, sources = [], []
    for index, run in enumerate(runs):
        mine = {}
        for kind, values in run_series(run).items():
            columns = {"time": compact(values["time"]), **{n: v for n, v in values.items() if n != "time"}}
            full = ColumnDataSource(columns, name=f"{kind}-{index}")
            mine[kind] = {"full": full, "shown": ColumnDataSource({name: [] for name in full.data})}
            series.append(mine[kind])
        sources.append(mine)
    shown_panels = panels(runs)
    figures, detail, envelopes = [], [], []
    for number, (kind, name, unit, title) in enumerate(shown_panels):
        if name == "busy":
            title += f" (dotted: the machine's {runs[0].hosts} hosts)"
        # y from 0 to the highest value drawn: the lines hold the part in view, so it fits the view
        y_range = DataRange1d(start=0, only_visible=True)
        last = number == len(shown_panels) - 1
        height = SERIES_HEIGHT + (40 if last else 0)  # the last one holds the time axis
        fig = new_figure(x_range, height, unit, title=title, name=f"series-{name}", y_range=y_range)
        fig.yaxis.ticker.desired_num_ticks = 3
        if not last:
            fig.xaxis.visible = False
        if name == "busy":
            fig.line([begin, end], [runs[0].hosts] * 2, color="#999999", line_dash="dotted")
        for index, run in enumerate(runs):
            if kind not in sources[index]:
                continue
            colour = RUN_COLOURS[index % len(RUN_COLOURS)]
            names = [name, "switching"] if kind == "states" else [name]
            for column, dash in zip(names, ("solid", "dashed")):
                detail.append(
                    fig.step("time", column, source=sources[index][kind]["shown"], mode="after", color=colour,
                             line_width=1.3, line_dash=dash, name=f"{kind}-{column}-{index}")
                )  # fmt: skip
                if overview:
                    edges, low, high = envelope(run_series(run)[kind], column, begin, end)
                    envelopes.append(
                        fig.quad(left=edges[:-1], right=edges[1:], bottom=low, top=high, fill_color=colour,
                                 line_color=colour)
                    )  # fmt: skip
        figures.append(fig)
    return figures, detail, envelopes, series
