"""The explorer's Gantt charts: one per run, and two runs one above the other, in tabs.

Every executed attempt is a rectangle per interval of its allocation, coloured by its job
under the rule picked (:mod:`.colours`); killed ones are outlined and struck through over that
colour. With several runs the first tab holds two charts, runs A (above) and B (below), the
pair the difference view compares; the other tabs one run each, full height. All share one
time axis with the load panels. Zoomed out past the detail limit, each chart draws its
overview raster instead (:func:`~.data.raster`). A run made with Batsim's energy model also
shows, under its attempts, its hosts asleep (grey) and switching on or off (light grey, outlined).
"""

from __future__ import annotations

import numpy as np
from bokeh.layouts import column
from bokeh.models import (
    CDSView,
    ColumnDataSource,
    CustomJS,
    CustomJSHover,
    HoverTool,
    IndexFilter,
    LinearColorMapper,
    Quad,
    Range1d,
    TabPanel,
    Tabs,
    TapTool,
)
from bokeh.transform import factor_cmap

from ..gantt import CATEGORIES
from . import callbacks
from .colours import GREY, JOB_PALETTE, KILLED, OVERVIEW_PALETTE
from .data import CATEGORY_KEYS, RunData, raster
from .energy import SPAN_STATES
from .page import new_figure

GANTT_HEIGHT = 400
PAIR_HEIGHT = 205
KINDS = [CATEGORIES[key][0] for key in CATEGORY_KEYS]
KILLED_CODES = [CATEGORY_KEYS.index(key) for key in KILLED]
#: Hosts switching off, asleep, switching on (:data:`~.energy.SPAN_STATES`): greys, the switches
#: lighter and outlined (dashed). A hatch pattern over spans as wide as the run took the first
#: render of 5,000 CTC-SP2 jobs under the idle switch-off plugin from 2 s to 12 s.
SPAN_COLOURS = ("#d4d4d4", "#9a9a9a", "#d4d4d4")


def gantt_figure(x_range, hosts: int, title: str, name: str, height: int):
    y_range = Range1d(0, hosts, bounds=(0, hosts))
    fig = new_figure(x_range, height, "host id", y_range=y_range, title=title, name=name)
    fig.xgrid.visible = False
    fig.ygrid.visible = False
    return fig


class GanttCharts:
    """The charts of the runs and what the page's callbacks need of them: ``entries``
    (renderer, run, slot "own"/"A"/"B", kind "detail"/"overview"), the colour ``mappers``, the
    pair charts' ``titles``."""

    def __init__(self, runs: list[RunData], per_run: list[dict], jobs, js_args: dict, x_range, view, overview):
        self.runs, self.per_run, self.jobs, self.js_args = runs, per_run, jobs, js_args
        self.x_range, self.view, self.overview = x_range, view, overview
        self.entries: list[tuple] = []
        self.mappers: list = []
        self.titles: list = []
        self.rasters = [raster(run, *view) for run in runs] if overview else None

    def layout(self):
        """One chart for one run; else tabs: A over B, then each run."""
        runs = self.runs
        if len(runs) == 1:
            fig = gantt_figure(self.x_range, runs[0].hosts, f"{runs[0].label}: Gantt chart", "gantt-0", GANTT_HEIGHT)
            self.draw(fig, [0], "own")
            return fig
        pair = []
        for slot, shown in (("A", 0), ("B", 1)):
            fig = gantt_figure(self.x_range, runs[0].hosts, f"{slot}: {runs[shown].label}", f"pair-{slot}", PAIR_HEIGHT)
            self.draw(fig, range(len(runs)), slot, shown)
            self.titles.append((fig, slot))
            pair.append(fig)
        pair[0].xaxis.axis_label = None
        panels = [TabPanel(child=column(*pair, sizing_mode="stretch_width"), title="A over B")]
        for index, run in enumerate(runs):
            fig = gantt_figure(self.x_range, run.hosts, f"{run.label}: Gantt chart", f"gantt-{index}", GANTT_HEIGHT)
            self.draw(fig, [index], "own")
            panels.append(TabPanel(child=fig, title=run.label))
        return Tabs(tabs=panels, name="gantt-tabs", sizing_mode="stretch_width")

    def draw(self, fig, indices, slot: str, shown: int | None = None) -> None:
        """The runs ``indices`` on ``fig`` (only run ``shown`` visible, if given)."""
        quads = []
        detailed = not self.overview
        for index in indices:
            mine = shown is None or index == shown
            for renderer, kind in self._run(fig, index, slot):
                renderer.visible = mine and (kind == "always" or (kind == "overview") != detailed)
                self.entries.append((renderer, index, slot, kind))
                if renderer.name == f"quads-{slot}-{index}":
                    quads.append(renderer)
        fig.add_tools(TapTool(renderers=quads, callback=CustomJS(args=self.js_args, code=callbacks.TAP)))

    def _run(self, fig, index: int, slot: str) -> list[tuple]:
        """Renderers of run ``index`` on ``fig`` (named ``quads-SLOT-INDEX``...): its rectangles,
        the marks of its killed attempts and, if the page needs it, its overview raster."""
        run, source = self.runs[index], self.per_run[index]["rects"]
        if not self.mappers:  # one for every chart: a new rule swaps one palette
            self.mappers.append(
                LinearColorMapper(palette=list(JOB_PALETTE), low=-0.5, high=len(JOB_PALETTE) - 0.5, high_color=GREY)
            )
        colour = {"field": "c", "transform": self.mappers[0]}
        outline = {"line_color": "#333333", "line_width": 0.3} if run.hosts <= 64 else {"line_color": None}
        quads = fig.quad(
            left="left", right="right", bottom="bottom", top="top", source=source, fill_color=colour,
            fill_alpha=0.9, name=f"quads-{slot}-{index}", **outline,
        )  # fmt: skip
        quads.selection_glyph = Quad(fill_color=colour, fill_alpha=1.0, line_color="#e00000", line_width=3)
        quads.nonselection_glyph = Quad(fill_color=colour, fill_alpha=0.15, line_color=None)
        hover_args = {**self.per_run[index], "jobs": self.jobs, "kinds": KINDS, **self.js_args}
        formatter = CustomJSHover(args=hover_args, code=callbacks.HOVER)
        fig.add_tools(
            HoverTool(
                renderers=[quads],
                tooltips='<div style="white-space: pre; font: 12px monospace">@attempt{custom}</div>',
                formatters={"@attempt": formatter},
                point_policy="follow_mouse",  # a job wider than the view: its centre may be out of it
            )
        )
        out = [*self._power_states(fig, index, slot), (quads, "detail")]
        out += [(mark, "detail") for mark in self._killed(fig, index, slot)]
        if self.rasters is not None:
            image, per_row = self.rasters[index]
            palette = LinearColorMapper(
                palette=list(OVERVIEW_PALETTE), low=-0.5, high=len(OVERVIEW_PALETTE) - 0.5, high_color="rgba(0,0,0,0)"
            )
            begin, end = self.view
            overview = fig.image(
                image=[image], x=begin, y=0, dw=end - begin, dh=image.shape[0] * per_row, color_mapper=palette
            )
            out.append((overview, "overview"))
        return out

    def _power_states(self, fig, index: int, slot: str) -> list[tuple]:
        """Hosts asleep (grey) and switching on or off (light grey, outlined), under the attempts,
        zoomed in or out (kind "always"), when the run has them (:func:`~.energy.host_spans`);
        the page's header says so (a legend would stay on the pair charts for a run not shown)."""
        energy = self.runs[index].energy
        if energy is None or not len(energy["spans"]["left"]):
            return []
        states = energy["spans"]["state"]
        source = ColumnDataSource(
            {**energy["spans"], "label": [SPAN_STATES[s] for s in states],
             "edge": ["rgba(0,0,0,0)" if s == 1 else "#555555" for s in states]},
            name=f"power-states-{index}",
        )  # fmt: skip
        tone = factor_cmap("label", palette=list(SPAN_COLOURS), factors=list(SPAN_STATES))
        spans = fig.quad(
            left="left", right="right", bottom="bottom", top="top", source=source, fill_color=tone,
            line_color="edge", line_dash="dashed", line_width=0.8, name=f"power-{slot}-{index}",
        )  # fmt: skip
        return [(spans, "always")]

    def _killed(self, fig, index: int, slot: str) -> list:
        """The marks of the killed attempts' rectangles (the same source, filtered): an outline
        and one diagonal stroke, corner to corner. A hatch pattern said the same at 20 % more CPU
        per one-day zoom of the CTC-SP2 year (median of 4 rounds, A/B in one run: 0.87 s without
        marks, 1.07 s with these, 1.26 s hatched; benchmarks/explore.py's zoom, load 50)."""
        run, source = self.runs[index], self.per_run[index]["rects"]
        killed = IndexFilter(np.flatnonzero(np.isin(run.attempts["code"][run.rects["attempt"]], KILLED_CODES)))
        outline = fig.quad(
            left="left", right="right", bottom="bottom", top="top", source=source, view=CDSView(filter=killed),
            fill_color=None, line_color="black", line_width=0.8, name=f"killed-{slot}-{index}",
        )  # fmt: skip
        stroke = fig.segment(
            x0="left", y0="bottom", x1="right", y1="top", source=source, view=CDSView(filter=killed),
            line_color="black", line_width=0.8, name=f"stroke-{slot}-{index}",
        )  # fmt: skip
        for mark in (outline, stroke):
            mark.nonselection_glyph = mark.glyph.clone(line_alpha=0.15)
            mark.selection_glyph = mark.glyph.clone(line_width=1.5)
        return [outline, stroke]


def whole_run_overview(runs: list[RunData], extent, window) -> list:
    """Aggregated pages: each run's whole Gantt chart as a raster and its busy hosts as an
    envelope, on their own time axis, the window of the details shaded."""
    from bokeh.models import BoxAnnotation

    from .page import RUN_COLOURS

    x_range = Range1d(*extent, bounds=extent)
    figures = []
    for index, run in enumerate(runs):
        fig = new_figure(x_range, 150, "host id", title=f"{run.label}: the whole run (overview)", name=f"whole-{index}")
        assert run.overview is not None and run.overview_series is not None  # build_run made them for this page
        image, per_row = run.overview
        mapper = LinearColorMapper(
            palette=list(OVERVIEW_PALETTE), low=-0.5, high=len(OVERVIEW_PALETTE) - 0.5, high_color="rgba(0,0,0,0)"
        )
        fig.image(
            image=[image], x=extent[0], y=0, dw=extent[1] - extent[0], dh=image.shape[0] * per_row, color_mapper=mapper
        )
        fig.add_layout(BoxAnnotation(left=window[0], right=window[1], fill_color="#333333", fill_alpha=0.12))
        figures.append(fig)
    busy = new_figure(x_range, 110, "hosts", title="the whole run: busy hosts (overview)", name="whole-busy")
    for index, run in enumerate(runs):
        assert run.overview_series is not None
        edges, low, high = run.overview_series["busy"]
        colour = RUN_COLOURS[index % len(RUN_COLOURS)]
        busy.quad(left=edges[:-1], right=edges[1:], bottom=low, top=high, fill_color=colour, line_color=colour)
    busy.add_layout(BoxAnnotation(left=window[0], right=window[1], fill_color="#333333", fill_alpha=0.12))
    return figures + [busy]
