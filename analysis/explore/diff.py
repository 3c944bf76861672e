"""The difference between two runs of a page, job by job: what changed from run A to run B.

The reader picks A and B among the page's runs. Every job that ran in both (the same full
id, ``WORKLOAD!ID``; its attempts folded) gets its change in wait and in bounded slowdown,
B minus A (below 0: B served it better). The view shows:

* a **scatter** of that change, one dot per job, against its submission time or its size
  (hosts requested): where in time and for which jobs B gains or loses;
* a **table** of those jobs, the largest changes first, sortable; selecting one (or clicking
  its dot) zooms the charts to it, highlights its attempts in both runs and shows the tab of
  the Gantt charts where A is drawn above B;
* a **table per class**: Perkovic & Keleher's shape groups (short or long by the median
  estimate, narrow or wide by the median width, sec. 3, Table 2; :mod:`..backfilling`), each
  with its jobs, mean wait and mean bounded slowdown in A and in B, and the change;
* a line saying how many jobs ran in both, how many only in one, and for how many B is
  better, worse or the same.

Everything is computed in the browser (:data:`COMPUTE`) from the page's job table, for any
pair: no pair costs page weight. The numbers are the job table's own: tests check them
against the runs' ``_jobs.csv``.
"""

from __future__ import annotations

from bokeh.layouts import column, row
from bokeh.models import (
    BasicTicker,
    ColumnDataSource,
    CustomJS,
    CustomJSTickFormatter,
    DataTable,
    Div,
    LinearColorMapper,
    Select,
    TableColumn,
    TapTool,
)
from bokeh.plotting import figure

from . import callbacks
from .colours import CLASS_NAMES
from .data import RunData
from .page import BACKEND, time_ticker
from .tables import TABLE_STYLE, TABLE_WIDTH, template

#: Columns of the difference source: the job (id, size, submit), its wait and bounded
#: slowdown in A and B and their changes, its rows in the job table, the scatter's x and y.
COLUMNS = ("id", "size", "submit", "wa", "wb", "dw", "ba", "bb", "db", "ra", "rb", "x", "y", "tone")
#: Dots: B better (blue), the same (grey), worse (vermilion).
TONES = ("#0072B2", "#999999", "#D55E00")

#: Recomputes the view for the pair picked (args: ``jobs``, ``diff``, ``pick_a``, ``pick_b``,
#: ``pick_y``, ``pick_x``, ``summary``, ``classes``, ``class_labels``, ``xaxis``, ``yaxis``, the
#: scatter's ``x_range`` and its renderers ``dots`` and ``zero``).
COMPUTE = (
    callbacks.FMT
    + """
const j = jobs.data, n = j.id.length;
const a = pick_a.options.indexOf(pick_a.value), b = pick_b.options.indexOf(pick_b.value);
const ran = (k) => !fmt.missing(j.start[k]);
let most = 0;
for (let k = 0; k < n; k++) most = Math.max(most, j.key[k]);
const inB = new Int32Array(most + 1).fill(-1), inA = new Int32Array(most + 1).fill(-1);
for (let k = 0; k < n; k++) {
  if (j.run[k] === b && ran(k)) inB[j.key[k]] = k;
  if (j.run[k] === a && ran(k)) inA[j.key[k]] = k;
}
const out = {};
for (const name of %(columns)s) out[name] = [];
const byWait = pick_y.value === "wait", bySize = pick_x.value === "size";
const sums = [0, 1, 2, 3, 4].map(() => ({jobs: 0, wa: 0, wb: 0, ba: 0, bb: 0}));
let onlyA = 0, onlyB = 0, better = 0, worse = 0;
for (let k = 0; k < n; k++) {
  if (j.run[k] === b && ran(k) && inA[j.key[k]] < 0) onlyB++;
  if (j.run[k] !== a || !ran(k)) continue;
  const m = inB[j.key[k]];
  if (m < 0) { onlyA++; continue; }
  const dw = j.wait[m] - j.wait[k], db = j.bsld[m] - j.bsld[k];
  const row = [j.id[k], j.size[k], j.submit[k], j.wait[k], j.wait[m], dw, j.bsld[k], j.bsld[m], db, k, m];
  %(columns)s.slice(0, 11).forEach((name, i) => out[name].push(row[i]));
  const change = byWait ? dw : db;
  out.x.push(bySize ? j.size[k] : j.submit[k]);
  out.y.push(change);
  out.tone.push(change < 0 ? 0 : change > 0 ? 2 : 1);
  if (change < 0) better++;
  if (change > 0) worse++;
  for (const s of [sums[j.cls[k]], sums[4]]) {
    s.jobs++; s.wa += j.wait[k]; s.wb += j.wait[m]; s.ba += j.bsld[k]; s.bb += j.bsld[m];
  }
}
const order = out.dw.map((_, i) => i);
order.sort((p, q) => Math.abs(out.dw[q]) - Math.abs(out.dw[p]) || Math.abs(out.db[q]) - Math.abs(out.db[p]));
const sorted = {};
for (const name of Object.keys(out)) sorted[name] = order.map((i) => out[name][i]);
diff.selected.indices = [];
diff.data = sorted;
table.change.emit();  // a DataTable does not redraw its rows for new data of the same length
const A = pick_a.value, B = pick_b.value, same = out.id.length - better - worse;
const what = byWait ? "wait" : "bounded slowdown";
summary.text = a === b ? "<b>Pick two different runs.</b>" :
  `<b>${fmt.count(out.id.length)}</b> jobs ran in both ${A} (A) and ${B} (B)` +
  (onlyA + onlyB ? ` (${fmt.count(onlyA)} only in A, ${fmt.count(onlyB)} only in B)` : "") +
  `. B's ${what} is shorter for <b style="color:%(better)s">${fmt.count(better)}</b>, longer for ` +
  `<b style="color:%(worse)s">${fmt.count(worse)}</b>, the same for ${fmt.count(same)}. ` +
  "Below 0: B serves the job better. Select a dot or a row to see the job in both Gantt charts.";
const cell = (x, f) => `<td>${f(x)}</td>`, defined = [];
const pct = (x, y) => (x > 0 ? ` (${y >= x ? "+" : ""}${fmt.num((100 * (y - x)) / x)} %%)` : "");
let html = "<table class='metrics' id='diff-classes'><tr><th>class</th><th>jobs</th><th>mean wait A</th>" +
  "<th>mean wait B</th><th>change</th><th>mean bsld A</th><th>mean bsld B</th><th>change</th></tr>";
sums.forEach((s, i) => {
  const name = i < 4 ? %(names)s[i] : "all";
  if (i < 4) defined.push(`<b>${name}</b>: ${class_labels[i]}`);
  const m = (x) => (s.jobs ? x / s.jobs : NaN);
  const wa = m(s.wa), wb = m(s.wb), ba = m(s.ba), bb = m(s.bb);
  const change = (x, y, f) => `<td>${s.jobs ? fmt.signed(y - x, f) + pct(x, y) : "-"}</td>`;
  html += `<tr data-class="${name}"><td>${name}</td>` + cell(s.jobs, fmt.count) + cell(wa, fmt.dur) +
    cell(wb, fmt.dur) + change(wa, wb, fmt.dur) + cell(ba, fmt.num) + cell(bb, fmt.num) + change(ba, bb, fmt.num) +
    "</tr>";
});
classes.text = table_style + "<b>Per class</b>: Perkovic &amp; Keleher's shape groups, by the medians of A's " +
  "jobs (jobs that ran in both; change: B - A)" + html + "</table>" + defined.join("; ");
xaxis.axis_label = bySize ? "hosts requested" : "submission time (days hh:mm)";
yaxis.axis_label = byWait ? "wait, B - A" : "bounded slowdown, B - A";
xaxis.ticker = bySize ? plain_x : time_x;
yaxis.ticker = byWait ? time_y : plain_y;
x_range.renderers = out.id.length ? [dots] : [dots, zero];  // no job in both: the range around 0
"""
    % {"columns": list(COLUMNS), "names": list(CLASS_NAMES), "better": TONES[0], "worse": TONES[2]}
)

#: A job of the difference picked (a row or a dot): zoom to it in both runs, highlight it, and
#: show the tab of the Gantt charts where A is above B.
PICK = (
    callbacks.HELPERS
    + callbacks.FOCUS
    + """
const rows = diff.selected.indices;
if (rows.length) {
  focus([diff.data.ra[rows[0]], diff.data.rb[rows[0]]]);
  if (tabs != null) tabs.active = 0;
}
"""
)

#: Ticks of the scatter's axes: time, size, wait change or slowdown change, as picked.
X_TICK = callbacks.FMT + "return pick_x.value === 'size' ? fmt.count(tick) : fmt.at(tick).replace(/:00$/, '');"
Y_TICK = callbacks.FMT + "return pick_y.value === 'wait' ? fmt.signed(tick, fmt.dur) : fmt.signed(tick, fmt.num);"


def diff_view(runs: list[RunData], jobs: ColumnDataSource, js_args: dict, tabs, on_pair: list) -> tuple:
    """(the difference tab's layout, the pair's Selects). ``on_pair``: callbacks to run too
    when the pair changes (the Gantt charts' A and B)."""
    labels = [run.label for run in runs]
    pick_a = Select(title="run A", value=labels[0], options=labels, width=150, name="pick-a")
    pick_b = Select(title="run B (compared with A)", value=labels[1], options=labels, width=170, name="pick-b")
    pick_y = Select(title="change in", value="wait", options=[("wait", "wait"), ("bsld", "bounded slowdown")],
                    width=150, name="pick-y")  # fmt: skip
    pick_x = Select(title="against", value="submit", options=[("submit", "submission time"), ("size", "size")],
                    width=140, name="pick-x")  # fmt: skip
    diff = ColumnDataSource({name: [] for name in COLUMNS}, name="diff")
    fig = figure(height=270, width=TABLE_WIDTH, tools="pan,wheel_zoom,box_zoom,reset,save", output_backend=BACKEND,
                 name="diff-scatter", title="each dot a job: its change from A to B")  # fmt: skip
    fig.toolbar.logo = None
    tone = {"field": "tone", "transform": LinearColorMapper(palette=list(TONES), low=-0.5, high=2.5)}
    dots = fig.scatter("x", "y", source=diff, size=5, fill_color=tone, line_color=tone, fill_alpha=0.6)
    fig.add_tools(TapTool(renderers=[dots]))
    fig.xaxis.formatter = CustomJSTickFormatter(args={"pick_x": pick_x}, code=X_TICK)
    fig.yaxis.formatter = CustomJSTickFormatter(args={"pick_y": pick_y}, code=Y_TICK)
    zero = fig.line(x=[0, 0], y=[0, 0], line_alpha=0)  # keeps the ranges defined when no job is in both
    fig.x_range.renderers = [dots]  # fits the jobs' submission times (or sizes), not time 0 (COMPUTE)
    fig.y_range.renderers = [dots, zero]  # a change of 0 always in view
    table = DataTable(source=diff, columns=diff_columns(), width=TABLE_WIDTH, height=220, index_position=None,
                      autosize_mode="none", name="diff-table")  # fmt: skip
    summary = Div(text="", width=TABLE_WIDTH, name="diff-summary")
    classes = Div(text="", width=TABLE_WIDTH, name="diff-classes")
    class_labels = [runs[0].classes.get(name, "") for name in CLASS_NAMES]
    fig.xaxis.ticker, fig.yaxis.ticker = time_ticker(), time_ticker()
    compute = CustomJS(
        args={"jobs": jobs, "diff": diff, "pick_a": pick_a, "pick_b": pick_b, "pick_y": pick_y, "pick_x": pick_x,
              "summary": summary, "classes": classes, "class_labels": class_labels, "xaxis": fig.xaxis[0],
              "table_style": TABLE_STYLE, "table": table,
              "yaxis": fig.yaxis[0], "time_x": fig.xaxis[0].ticker, "time_y": fig.yaxis[0].ticker,
              "plain_x": BasicTicker(), "plain_y": BasicTicker(), "x_range": fig.x_range, "dots": dots,
              "zero": zero},
        code=COMPUTE,
    )  # fmt: skip
    for select in (pick_a, pick_b, pick_y, pick_x):
        select.js_on_change("value", compute)
    for select in (pick_a, pick_b):
        for callback in on_pair:
            select.js_on_change("value", callback)
    diff.selected.js_on_change(
        "indices", CustomJS(args={**js_args, "jobs": jobs, "diff": diff, "tabs": tabs}, code=PICK)
    )
    layout = column(row(pick_a, pick_b, pick_y, pick_x), summary, fig, table, classes)
    return layout, (pick_a, pick_b), compute


def diff_columns() -> list[TableColumn]:
    wait, number = template("fmt.dur(value)"), template("fmt.num(value)")
    return [
        TableColumn(field="id", title="job", width=70),
        TableColumn(field="size", title="hosts", formatter=template("fmt.count(value)"), width=50),
        TableColumn(field="submit", title="submit", formatter=template("fmt.at(value)"), width=100),
        TableColumn(field="wa", title="wait A", formatter=wait, width=65),
        TableColumn(field="wb", title="wait B", formatter=wait, width=65),
        TableColumn(field="dw", title="B - A", formatter=template("fmt.signed(value, fmt.dur)"), width=70),
        TableColumn(field="ba", title="bsld A", formatter=number, width=55),
        TableColumn(field="bb", title="bsld B", formatter=number, width=55),
        TableColumn(field="db", title="B - A", formatter=template("fmt.signed(value, fmt.num)"), width=60),
    ]
