"""The sweep report, ``DIR/report.html``: every collected metric of ``runs.csv`` as an
interactive chart, one point per run, with the seed spread.

The reader picks the x axis and the grouping (colour) among the grid's own dimensions, the
parameters that vary across the runs (seeds included). For each x value and group, the
chart shows every run as a dot and their mean as a bar with a whisker from the lowest to
the highest run: with the seed as neither x nor group, the whisker is the seed spread.
Every (x, group) choice is laid out here, in Python; the page's callbacks only swap them.

By default every bar is one cell of the grid, so that no bar averages runs of different
workloads or settings: grouped by workload (when it varies), and along x the other
dimensions that vary except seeds, together (:func:`default_axes`; e.g. ``scheduler x
order``, one bar per scheduler and order). The scheduler is one dimension, named by the
scheduler entry's label, else its name (``sweep/report.py`` gives a plugin file's class
name); the ``label`` column folds into it.

Clicking a point opens the run's explorer page (``runs/NAME_explore.html``, the same name
as ``run --report html`` gives it). The pages are written lazily: a page is (re)written
only when it is missing or older than the run's ``_jobs.csv``, and only while the runs
written add up to at most ``max_page_jobs`` jobs; the tooltip of a point without a page
gives the command that writes it.
"""

from __future__ import annotations

import html
import math
from pathlib import Path

import numpy as np
from bokeh.document import Document
from bokeh.layouts import column, row
from bokeh.models import ColumnDataSource, CustomJS, Div, FactorRange, HoverTool, Select, TapTool
from bokeh.palettes import Category10_10
from bokeh.plotting import figure
from bokeh.transform import factor_cmap

from ...errors import AdaptschedError
from . import explore_runs
from .pagefile import write_page

NONE = "(none)"
#: Callback of the x-axis and grouping selectors: swap in the laid-out choice.
SWAP = """
const key = xdim.value + "|" + gdim.value;
for (const chart of charts) {
  const choice = chart.choices[key];
  chart.x_range.factors = choice.factors;
  chart.mapper.factors = choice.groups;
  chart.points.data = choice.points;
  chart.summary.data = choice.summary;
}
"""
#: Tap on a point: open its run's explorer page, when it has one.
OPEN = """
const i = points.selected.indices[0];
if (i !== undefined && points.data.link[i]) window.open(points.data.link[i]);
"""


#: explorer pages a sweep writes at most: each carries Bokeh (about 0.75 MB compressed), so a
#: 10,000-run sweep would otherwise write 7.5 GB; the others are one `adaptsched explore` away
MAX_PAGES = 200


def sweep_report(
    folder,
    title: str,
    params: list[str],
    rows: list[dict],
    collect,
    *,
    max_page_jobs: int = 100_000,
    max_pages: int = MAX_PAGES,
    say=None,
) -> Path:
    """Write ``folder/report.html`` (module doc) from ``runs.csv``'s rows; returns its path.
    ``params``: the parameter columns; ``collect``: the metric columns."""
    folder = Path(folder)
    done = [_one_scheduler_column(r) for r in rows if r.get("status") == "done"]
    links = run_pages(folder, done, max_page_jobs, say, max_pages=max_pages)
    params = [p for p in params if p != "label"]
    dims, x_default, g_default = default_axes(params, done)
    xdim = Select(title="x axis", value=x_default, options=dims, width=200)
    gdim = Select(title="group (colour)", value=g_default, options=[NONE, *dims], width=200)
    charts, figures = [], []
    for metric in collect:
        values = [_number(r.get(metric)) for r in done]
        if not any(v is not None for v in values):
            continue
        choices = {f"{x}|{g}": _choice(done, values, links, x, g) for x in dims for g in [NONE, *dims]}
        fig, chart = _chart(metric, choices[f"{x_default}|{g_default}"])
        chart["choices"] = choices
        charts.append(chart)
        figures.append(fig)
    if not figures:
        raise AdaptschedError(f"{folder}: no run of the sweep has any of the metrics {', '.join(collect)}")
    swap = CustomJS(args={"xdim": xdim, "gdim": gdim, "charts": charts}, code=SWAP)
    xdim.js_on_change("value", swap)
    gdim.js_on_change("value", swap)
    written = sum(bool(link) for link in links.values())
    intro = Div(
        text=f"<h2>{html.escape(title)}</h2><p>{len(done)} runs done of {len(rows)} (runs.csv). Each dot is a run; "
        "the bar is the mean of the runs of its x value and group, the whisker their lowest to highest value "
        "(with the seed as neither x nor group: the seed spread). As first shown, each bar is one cell of the "
        "grid (grouped by workload when it varies); pick another x axis and grouping among the parameters that vary."
        f" Click a dot to open the run's explorer page ({written} of {len(done)} written, "
        "in runs/; the tooltip of the others gives the command that writes them).</p>",
        sizing_mode="stretch_width",
    )
    layout = column(intro, row(xdim, gdim), *figures, sizing_mode="stretch_width")
    path = folder / "report.html"
    doc = Document()
    doc.add_root(layout)
    write_page(doc, path, f"{title}: sweep report")
    return path


def _one_scheduler_column(row: dict) -> dict:
    """The row with its ``label`` (if any) as its ``scheduler``: one dimension, not two."""
    row = dict(row)
    label = row.pop("label", "")
    if label:
        row["scheduler"] = label
    return row


def default_axes(params: list[str], rows: list[dict]) -> tuple[list[str], str, str]:
    """(the dimensions offered, the x axis and the grouping by default): the grid's cells, as
    the module doc says. When more than one dimension goes along x, a dimension of their values
    together is added to the rows (``scheduler x opt.order``: ``easy, opt.order=D``)."""
    varying = [p for p in params if len({str(r.get(p, "")) for r in rows}) > 1]
    cells = [p for p in varying if not p.endswith("seed")]
    group = "workload" if "workload" in cells else (cells[1] if len(cells) > 1 else NONE)
    along = [p for p in cells if p != group]
    if len(along) > 1:
        x = " x ".join(along)
        for r in rows:
            r[x] = ", ".join([_value(r, along[0])] + [f"{d}={_value(r, d)}" for d in along[1:]])
        return [x, *varying], x, group
    dims = varying or params[:1]
    return dims, (along or dims)[0], group


def _number(value) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _value(row: dict, dim: str) -> str:
    """A run's value of a dimension, as the charts write it ("-" where the run has none)."""
    text = str(row.get(dim, ""))
    return text if text != "" else "-"


def _choice(rows: list[dict], values: list, links: dict, xdim: str, gdim: str) -> dict:
    """Points, summary bars and factors of one (x axis, grouping) choice."""
    groups = sorted({_value(r, gdim) for r in rows}, key=_sort_key) if gdim != NONE else ["all runs"]
    xs = sorted({_value(r, xdim) for r in rows}, key=_sort_key)
    factors = [(x, g) for x in xs for g in groups]
    points: dict[str, list] = {"x": [], "y": [], "group": [], "name": [], "link": [], "what": []}
    for r, value in zip(rows, values):
        if value is None:
            continue
        group = _value(r, gdim) if gdim != NONE else "all runs"
        points["x"].append((_value(r, xdim), group))
        points["y"].append(value)
        points["group"].append(group)
        points["name"].append(r["name"])
        points["link"].append(links.get(r["name"], ""))
        points["what"].append(
            links.get(r["name"])
            or f"no page yet: adaptsched explore runs/{r['name']} --out runs/{r['name']}_explore.html"
        )
    summary: dict[str, list] = {"x": [], "mean": [], "low": [], "high": [], "n": []}
    for factor in factors:
        mine = [y for x, y in zip(points["x"], points["y"]) if x == factor]
        if mine:
            summary["x"].append(factor)
            summary["mean"].append(float(np.mean(mine)))
            summary["low"].append(min(mine))
            summary["high"].append(max(mine))
            summary["n"].append(len(mine))
    factors = [f for f in factors if f in set(summary["x"])]
    return {"factors": factors, "groups": groups, "points": points, "summary": summary}


def _sort_key(text: str):
    number = _number(text)
    return (0, number, "") if number is not None else (1, 0.0, text)


def _chart(metric: str, choice: dict):
    """The chart of one metric, drawn for one choice (the callbacks swap the others in)."""
    x_range = FactorRange(factors=choice["factors"])
    fig = figure(
        x_range=x_range,
        height=300,
        sizing_mode="stretch_width",
        title=metric,
        tools="pan,wheel_zoom,box_zoom,reset,save",
    )
    fig.toolbar.logo = None
    summary = ColumnDataSource(choice["summary"])
    points = ColumnDataSource(choice["points"])
    colour = factor_cmap("x", palette=list(Category10_10), factors=choice["groups"], start=1, end=2)
    fig.vbar(x="x", top="mean", width=0.7, source=summary, fill_color=colour, fill_alpha=0.25, line_color=colour)
    fig.segment(x0="x", x1="x", y0="low", y1="high", source=summary, line_color="#444444", line_width=1.5)
    dots = fig.scatter(x="x", y="y", source=points, size=8, fill_color=colour, line_color="black", alpha=0.8)
    fig.add_tools(
        HoverTool(renderers=[dots], tooltips=[("run", "@name"), (metric, "@y{0,0.[0000]}"), ("page", "@what")]),
        TapTool(renderers=[dots], callback=CustomJS(args={"points": points}, code=OPEN)),
    )
    fig.xaxis.major_label_orientation = 0.8
    fig.yaxis.axis_label = metric
    chart = {"x_range": x_range, "mapper": colour.transform, "points": points, "summary": summary}
    return fig, chart


def run_pages(
    folder: Path, rows: list[dict], max_page_jobs: int, say=None, *, max_pages: int = MAX_PAGES
) -> dict[str, str]:
    """{run name: link to its explorer page, relative to ``folder``, or "" if not written}:
    pages missing or older than their run are written, up to ``max_page_jobs`` jobs and
    ``max_pages`` pages (existing pages count)."""
    links, budget, pages = {}, max_page_jobs, max_pages
    skipped = 0
    for r in rows:
        prefix = folder / "runs" / r["name"]
        jobs_csv, page = Path(f"{prefix}_jobs.csv"), Path(f"{prefix}_explore.html")
        link = f"runs/{page.name}"
        if not jobs_csv.is_file():
            links[r["name"]] = ""
            continue
        if page.is_file() and page.stat().st_mtime >= jobs_csv.stat().st_mtime:
            links[r["name"]] = link
            pages -= 1
            continue
        if pages <= 0:
            links[r["name"]] = ""
            skipped += 1
            continue
        with open(jobs_csv, "rb") as handle:
            jobs = sum(1 for _ in handle) - 1
        if jobs > budget:
            links[r["name"]] = ""
            continue
        try:
            explore_runs([prefix], page, labels=[r["name"]])
        except AdaptschedError as error:  # a run with nothing to explore: no page, said once
            if say is not None:
                say(f"no explorer page for {r['name']}: {error}")
            links[r["name"]] = ""
            continue
        budget -= jobs
        pages -= 1
        links[r["name"]] = link
    if skipped and say is not None:
        say(
            f"explorer pages: {max_pages} at most per sweep, {skipped} runs without one "
            f"(`adaptsched explore {folder / 'runs' / 'NAME'} --out NAME.html` writes any of them)"
        )
    return links
