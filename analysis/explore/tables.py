"""The explorer's tables: the job table with its filters, and the metrics tables.

Numbers are written for reading (:mod:`.fmt`: durations as h:mm:ss or days, 3 significant
digits); the job table sorts on the numbers themselves, and each metrics cell carries the
exact value of ``adaptsched metrics --json`` (``data-json``, shown on hover).
"""

from __future__ import annotations

import html
import json

import numpy as np
from bokeh.layouts import column, row
from bokeh.models import (
    BooleanFilter,
    CDSView,
    ColumnDataSource,
    CustomJS,
    DataTable,
    Div,
    HTMLTemplateFormatter,
    NumericInput,
    Select,
    StringFormatter,
    TableColumn,
    TextInput,
)

from ..metrics import CLASSES, OVERALL_ROWS, class_label
from . import callbacks, fmt
from .data import STATE_WORDS, RunData

TABLE_WIDTH = 640


def template(expression: str) -> HTMLTemplateFormatter:
    """A cell formatter that writes ``expression`` (JavaScript, of the cell's ``value``, with
    :data:`~.fmt.JS`'s ``fmt`` in scope)."""
    code = fmt.JS.replace("\n", " ")
    return HTMLTemplateFormatter(template=f"<%= (() => {{ {code} return {expression}; }})() %>")


def words(names) -> HTMLTemplateFormatter:
    """A cell formatter that writes ``names[value]``."""
    return HTMLTemplateFormatter(template=f"<%= {json.dumps(list(names))}[value] %>")


def job_columns(runs: list[RunData], users: bool) -> list[TableColumn]:
    """The job table's columns (the wait and the slowdown first: what schedulers change)."""
    columns = [
        TableColumn(field="id", title="job", formatter=StringFormatter(), width=70),
        TableColumn(field="size", title="hosts", formatter=template("fmt.count(value)"), width=50),
        TableColumn(field="wait", title="wait", formatter=template("fmt.dur(value)"), width=70),
        TableColumn(field="bsld", title="bounded slowdown", formatter=template("fmt.num(value)"), width=110),
        TableColumn(field="submit", title="submit", formatter=template("fmt.at(value)"), width=100),
        TableColumn(field="start", title="start", formatter=template("fmt.at(value)"), width=100),
        TableColumn(field="end", title="end", formatter=template("fmt.at(value)"), width=100),
        TableColumn(field="state", title="state", formatter=words(STATE_WORDS), width=110),
        TableColumn(field="attempts", title="attempts", formatter=template("fmt.count(value)"), width=60),
    ]
    if users:
        columns.insert(
            2, TableColumn(field="user", title="user", formatter=template("value < 0 ? '-' : value"), width=50)
        )
    if len(runs) > 1:
        columns.insert(0, TableColumn(field="run", title="run", formatter=words([r.label for r in runs]), width=90))
    return columns


def job_table(runs: list[RunData], jobs: ColumnDataSource, zoom_args: dict):
    """The job table (sortable by any column), its filters and the callbacks that filter it
    and zoom the charts to the selected job."""
    count = len(jobs.data["id"])
    view_filter = BooleanFilter(booleans=[True] * count)
    users = bool((np.asarray(jobs.data["user"]) >= 0).any())
    table = DataTable(
        source=jobs,
        view=CDSView(filter=view_filter),
        columns=job_columns(runs, users),
        width=TABLE_WIDTH,
        height=560,
        index_position=None,
        autosize_mode="none",
        name="job-table",
    )
    shown = Div(text=f"{count:,} of {count:,} jobs shown", name="job-count")
    inputs = {
        "id": TextInput(title="job id (exact, or prefix*)", width=150),
        "size_min": NumericInput(title="hosts, min", mode="int", width=90),
        "size_max": NumericInput(title="hosts, max", mode="int", width=90),
        "wait_min": NumericInput(title="wait at least (s)", mode="float", width=120),
        "bsld_min": NumericInput(title="bounded slowdown at least", mode="float", width=170),
    }
    run_select = None
    if len(runs) > 1:
        run_select = Select(title="run", value="all runs", options=["all runs", *[r.label for r in runs]], width=130)
    refilter = CustomJS(
        args={"jobs": jobs, "filter": view_filter, "count": shown, "run": run_select, **inputs}, code=callbacks.FILTER
    )
    widgets = list(inputs.values()) + ([run_select] if run_select is not None else [])
    for widget in widgets:
        widget.js_on_change("value", refilter)
    jobs.selected.js_on_change("indices", CustomJS(args={"jobs": jobs, **zoom_args}, code=callbacks.ZOOM))
    help_text = Div(
        text="One row per job (its attempts folded: the final attempt's start and end). Click a column "
        "title to sort; select a row to zoom the charts to the job and highlight its attempts in every run.",
        width=TABLE_WIDTH,
    )
    return column(help_text, row(*widgets[:3]), row(*widgets[3:]), shown, table)


TABLE_STYLE = (
    "<style>table.metrics{border-collapse:collapse;font-size:12px;margin:6px 0}"
    "table.metrics td,table.metrics th{border:1px solid #ccc;padding:2px 6px;text-align:right;white-space:nowrap}"
    "table.metrics th{white-space:normal}table.metrics td:first-child{white-space:normal;min-width:120px}"
    "table.metrics td:first-child,table.metrics th:first-child{text-align:left}</style>"
)


def cell(key: str, name: str, value) -> str:
    """A metric's cell: its value for reading; the exact ``--json`` value in ``data-json``."""
    exact = html.escape(json.dumps(value))
    return f'<td data-key="{html.escape(key)}" data-json="{exact}" title="{exact}">{fmt.metric(name, value)}</td>'


#: Labels of the metrics the metrics table does not print.
EXTRA_LABELS = {"window_start_s": "first submission", "window_end_s": "last finish", "executed": "executed"}


def _label(key: str) -> str:
    known = next((label for name, label, _ in OVERALL_ROWS if name == key), None)
    return known or EXTRA_LABELS.get(key) or key.replace("_", " ")


def metrics_div(runs: list[RunData]) -> Div:
    """Every number of ``adaptsched metrics --json`` of each run: the overall table (one
    column per run), then each run's per-class table."""
    head = "".join(f"<th>{html.escape(run.label)}</th>" for run in runs)
    lines = [TABLE_STYLE, "<b>Metrics of the whole run</b>, as <code>adaptsched metrics --json</code> (hover "
             "over a value for its exact figure)."]  # fmt: skip
    for run in runs:
        params = run.metrics["parameters"]
        lines.append(
            f"<br><b>{html.escape(run.label)}</b>: {run.hosts} hosts ({html.escape(run.metrics['hosts_source'])}); "
            f"bounded slowdown bound {params['bound_s']:g} s; attempts folded"
        )
    lines.append(f'<table class="metrics" id="metrics-overall"><tr><th>metric</th>{head}</tr>')
    for key in runs[0].metrics["overall"]:
        cells = "".join(cell(f"{i}.overall.{key}", key, run.metrics["overall"].get(key)) for i, run in enumerate(runs))
        lines.append(f"<tr><td>{html.escape(_label(key))}</td>{cells}</tr>")
    lines.append("</table>")
    for i, run in enumerate(runs):
        classes, params = run.metrics["classes"], run.metrics["parameters"]
        lines.append(f"<b>{html.escape(run.label)}: per class</b> (executed jobs)")
        head = "".join(f"<th>{html.escape(class_label(name, params))}</th>" for name in CLASSES)
        lines.append(f'<table class="metrics" id="metrics-classes-{i}"><tr><th>metric</th>{head}</tr>')
        for key in classes[CLASSES[0]]:
            cells = "".join(cell(f"{i}.classes.{name}.{key}", key, classes[name].get(key)) for name in CLASSES)
            lines.append(f"<tr><td>{html.escape(_label(key))}</td>{cells}</tr>")
        lines.append("</table>")
    return Div(text="\n".join(lines), width=TABLE_WIDTH, name="metrics")
