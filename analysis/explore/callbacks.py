"""The run explorer's JavaScript: small Bokeh ``CustomJS`` callbacks, nothing that draws.

Bokeh draws every chart and table; these only format a tick or a tooltip, select the
rectangles of one job, zoom to a job and filter the job table. Each is a string run by
BokehJS with the named ``args`` in scope.
"""

from __future__ import annotations

#: Simulation seconds as "D d HH:MM[:SS]" (ticks of every time axis). Plain, no args.
TICK = """
const s = Math.round(tick);
const d = Math.floor(s / 86400), r = s - d * 86400;
const two = (v) => String(v).padStart(2, "0");
if (r === 0) return `${d} d`;
const hm = `${two(Math.floor(r / 3600))}:${two(Math.floor((r % 3600) / 60))}`;
return `${d} d ${hm}` + (r % 60 ? `:${two(r % 60)}` : "");
"""

#: Shared helpers, prepended to the callbacks below: ``secs`` formats a time, ``highlight``
#: selects the rectangles of the job of key ``key`` in every run (``runs``: one
#: ``{rects, attempts}`` pair of data sources per run) and returns how many it selected.
HELPERS = """
const secs = (x) => {
  if (x == null || Number.isNaN(x)) return "-";
  const s = Math.round(x * 1000) / 1000, whole = Math.floor(s);
  const d = Math.floor(whole / 86400), r = whole - d * 86400;
  const two = (v) => String(v).padStart(2, "0");
  return `${s} s (${d} d ${two(Math.floor(r / 3600))}:${two(Math.floor((r % 3600) / 60))}:${two(r % 60)})`;
};
const highlight = (key) => {
  let found = 0;
  for (const run of runs) {
    const att = run.attempts.data.job, rect = run.rects.data.attempt, picked = [];
    for (let i = 0; i < rect.length; i++) {
      if (keys[att[rect[i]]] === key) picked.push(i);
    }
    run.rects.selected.indices = picked;
    found += picked.length;
  }
  return found;
};
"""

#: Tooltip of a rectangle (CustomJSHover of its ``attempt`` column): the attempt, its job
#: (``j.attempts > 1``: the bounded slowdown is the folded job's, as the metrics count it).
HOVER = (
    HELPERS
    + """
const a = attempts.data, j = jobs.data, i = value, k = a.job[i];
const r = special_vars.index, start = rects.data.left[r], end = rects.data.right[r];
const bsld = j.bsld[k], folded = j.attempts[k] > 1;
const of = a.id[i] !== j.id[k] ? `, attempt of job ${j.id[k]}` : "";
const lines = [
  `job ${a.id[i]}` + (a.parent[i] ? `, parent ${a.parent[i]}` : "") + of,
  `kind: ${kinds[a.code[i]]}`,
  `size: ${a.hosts[i]} hosts (requested ${j.size[k]})`,
  `submit: ${secs(a.submit[i])}`,
  `start: ${secs(start)}`,
  `end: ${secs(end)}`,
  `wait: ${secs(start - a.submit[i])}`,
  `bounded slowdown: ${bsld == null || Number.isNaN(bsld) ? "-" : bsld.toFixed(2)}` + (folded ? " (job)" : ""),
];
return lines.join("\\n");
"""
)

#: TapTool: the job of the tapped rectangle is highlighted in every run (all its attempts).
TAP = (
    HELPERS
    + """
const src = cb_data.source, hit = src.selected.indices;
if (!hit.length) return;
const run = runs.find((r) => r.rects === src);
const key = keys[run.attempts.data.job[src.data.attempt[hit[0]]]];
highlight(key);
"""
)

#: Job table selection: zoom every chart to the job (submission to end, 10 % more each side)
#: and highlight its attempts.
ZOOM = (
    HELPERS
    + """
const rows = jobs.selected.indices;
if (!rows.length) return;
const j = jobs.data, k = rows[0];
const begin = j.submit[k], end = Number.isNaN(j.end[k]) ? begin : j.end[k];
const pad = Math.max((end - begin) * 0.1, 60);
xr.setv({start: begin - pad, end: end + pad});
highlight(keys[k]);
"""
)

#: Job table filters: id (exact, or a prefix ending in *), run, size, wait and bounded
#: slowdown ranges; empty inputs do not filter. Updates the table's BooleanFilter.
FILTER = """
const j = jobs.data, n = j.id.length, keep = new Array(n);
const text = id.value.trim();
const prefix = text.endsWith("*") ? text.slice(0, -1) : null;
const lo = (w) => (w.value == null ? -Infinity : w.value), hi = (w) => (w.value == null ? Infinity : w.value);
const runIx = run == null || run.value === "all runs" ? -1 : run.options.indexOf(run.value) - 1;
let shown = 0;
for (let i = 0; i < n; i++) {
  const ok = (text === "" || (prefix !== null ? j.id[i].startsWith(prefix) : j.id[i] === text))
    && (runIx < 0 || j.run[i] === runIx)
    && j.size[i] >= lo(size_min) && j.size[i] <= hi(size_max)
    && (wait_min.value == null || j.wait[i] >= wait_min.value)
    && (bsld_min.value == null || j.bsld[i] >= bsld_min.value);
  keep[i] = ok;
  if (ok) shown++;
}
filter.booleans = keep;
count.text = `${shown.toLocaleString("en")} of ${n.toLocaleString("en")} jobs shown`;
"""


def status_text(detailed: bool, limit_s: float) -> str:
    """The zoom status line (the same text as :data:`SWITCH` writes)."""
    return STATUS_DETAIL if detailed else STATUS_OVERVIEW.replace("${days}", f"{limit_s / 86400:.3g}")


STATUS_DETAIL = "<i>Every attempt is drawn (hover over one for its numbers, click it to highlight its job).</i>"
STATUS_OVERVIEW = (
    "<i>Zoomed out: the Gantt charts show an overview, each pixel coloured by the kind of attempt that kept "
    "its hosts busy most of its time (blank: idle most of it), and the load panels each pixel's lowest to "
    "highest value. Zoom in to ${days} days or less to see every attempt.</i>"
)

#: Detailed renderers when at most ``limit`` seconds are in view, else the overview ones; in
#: detail, each load line gets the part of its series in view (``series``: {full, shown}).
SWITCH = (
    "const detail_text = "
    + repr(STATUS_DETAIL)
    + ", overview_text = "
    + repr(STATUS_OVERVIEW).replace("${days}", "' + (limit / 86400).toPrecision(3) + '")
    + """;
const detailed = xr.end - xr.start <= limit;
if (detailed) {  // each load line gets the part of its series in view, and one event each side
  const after = (t, x) => {  // the first index whose time is after x
    let lo = 0, hi = t.length;
    while (lo < hi) {
      const m = (lo + hi) >> 1;
      if (t[m] <= x) lo = m + 1;
      else hi = m;
    }
    return lo;
  };
  for (const {full, shown} of series) {
    const t = full.data.time, v = full.data.value;
    const lo = Math.max(0, after(t, xr.start) - 1), hi = Math.min(t.length, after(t, xr.end) + 1);
    shown.data = {time: t.slice(lo, hi), value: v.slice(lo, hi)};
  }
}
if (detail.length && detail[0].visible === detailed) return;
for (const r of detail) r.visible = detailed;
for (const r of overview) r.visible = !detailed;
status.text = detailed ? detail_text : overview_text;
"""
)
