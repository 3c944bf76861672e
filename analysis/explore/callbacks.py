"""The run explorer's JavaScript: small Bokeh ``CustomJS`` callbacks, nothing that draws.

Bokeh draws every chart and table; these only format a tick or a tooltip, select the
rectangles of one job, zoom to a job, filter the job table, show the Gantt charts' detail or
overview and cut the load lines to the view. Each is a string run by BokehJS with the named
``args`` in scope. The difference view's own callbacks are in :mod:`.diff`, the colour
rules' in :mod:`.colours`.
"""

from __future__ import annotations

import json

from .fmt import JS as FMT

#: Simulation seconds as "D d HH:MM[:SS]" (ticks of every time axis). Plain, no args.
TICK = """
const s = Math.round(tick);
const d = Math.floor(s / 86400), r = s - d * 86400;
const two = (v) => String(v).padStart(2, "0");
if (r === 0) return `${d} d`;
const hm = `${two(Math.floor(r / 3600))}:${two(Math.floor((r % 3600) / 60))}`;
return `${d} d ${hm}` + (r % 60 ? `:${two(r % 60)}` : "");
"""

#: Shared helpers, prepended to the callbacks below: :data:`~.fmt.JS`'s ``fmt``, and
#: ``highlight``, which selects the rectangles of the job of key ``key`` in every run (``runs``:
#: one ``{rects, attempts}`` pair of data sources per run) and returns how many it selected.
HELPERS = (
    FMT
    + """
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
const timeAndSeconds = (t) => `${fmt.at(t)} (${fmt.exact(t)} s)`;
const durationAndSeconds = (s) => (Math.abs(s) < 60 ? fmt.dur(s) : `${fmt.dur(s)} (${fmt.exact(s)} s)`);
"""
)

#: Tooltip of a rectangle (CustomJSHover of its ``attempt`` column): the attempt, its job
#: (``j.attempts > 1``: the bounded slowdown is the folded job's, as the metrics count it).
HOVER = (
    HELPERS
    + """
const a = attempts.data, j = jobs.data, i = value, k = a.job[i];
const r = special_vars.index, start = rects.data.left[r], end = rects.data.right[r];
const folded = j.attempts[k] > 1;
const of = a.id[i] !== j.id[k] ? `, attempt of job ${j.id[k]}` : "";
const lines = [
  `job ${a.id[i]}` + (a.parent[i] ? `, parent ${a.parent[i]}` : "") + of + ` (${label})`,
  `kind: ${kinds[a.code[i]]}`,
  `size: ${a.hosts[i]} hosts (requested ${j.size[k]})` + (j.user[k] >= 0 ? `, user ${j.user[k]}` : ""),
  `submit: ${timeAndSeconds(a.submit[i])}`,
  `start: ${timeAndSeconds(start)}`,
  `end: ${timeAndSeconds(end)}`,
  `wait: ${durationAndSeconds(start - a.submit[i])}`,
  `bounded slowdown: ${fmt.num(j.bsld[k])}` + (folded ? " (job)" : ""),
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

#: Zoom every chart to rows ``rows`` of the jobs (their submissions to their ends, 10 % more
#: each side) and highlight the job's attempts. Prepended to the callbacks that pick a job.
FOCUS = """
const focus = (rows) => {
  const j = jobs.data;
  let begin = Infinity, end = -Infinity;
  for (const k of rows) {
    begin = Math.min(begin, j.submit[k]);
    end = Math.max(end, Number.isNaN(j.end[k]) ? j.submit[k] : j.end[k]);
  }
  const pad = Math.max((end - begin) * 0.1, 60);
  xr.setv({start: begin - pad, end: end + pad});
  highlight(keys[rows[0]]);
};
"""

#: Job table selection: zoom to the job and highlight its attempts.
ZOOM = (
    HELPERS
    + FOCUS
    + """
const rows = jobs.selected.indices;
if (rows.length) focus([rows[0]]);
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


STATUS_DETAIL = "<i>Every attempt is drawn: hover over one for its numbers, click it to highlight its job.</i>"
STATUS_OVERVIEW = (
    "<i>Zoomed out: each pixel of the Gantt charts is the kind of attempt that kept its hosts busiest "
    "(blue: completed, grey: killed; blank: idle most of the time), the load panels each pixel's lowest to "
    "highest value. Zoom in to ${days} days or less to see every attempt in its colour.</i>"
)

#: Which Gantt renderers show, and the load lines in view: detailed renderers when at most
#: ``limit`` seconds are in view, else the overview ones; in the pair tab, those of the runs
#: picked as A and B (``pick_a``, ``pick_b``: Selects, or null with one run). ``rs``: the
#: renderers, ``owner``: the run of each, ``slot``: "own" (a run's own chart) or "A"/"B",
#: ``kind``: "detail", "overview" or "always" (hosts asleep or switching). Each load line gets
#: the part of its series in view (``series``: {full, shown} sources of every column).
SWITCH = (
    "const detail_text = "
    + json.dumps(STATUS_DETAIL)
    + ", overview_text = "
    + json.dumps(STATUS_OVERVIEW)
    + """.replace("${days}", (limit / 86400).toPrecision(3));
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
    const t = full.data.time;
    const lo = Math.max(0, after(t, xr.start) - 1), hi = Math.min(t.length, after(t, xr.end) + 1);
    if (shown.data.time.length && shown.data.time[0] === t[lo] && shown.data.time.length === hi - lo) continue;
    const cut = {};
    for (const name of Object.keys(full.data)) cut[name] = full.data[name].slice(lo, hi);
    shown.data = cut;
  }
}
const pair = {A: pick_a == null ? 0 : pick_a.options.indexOf(pick_a.value),
              B: pick_b == null ? 0 : pick_b.options.indexOf(pick_b.value)};
for (let i = 0; i < rs.length; i++) {
  const mine = slot[i] === "own" || pair[slot[i]] === owner[i];
  const visible = mine && (kind[i] === "always" || (kind[i] === "overview" ? !detailed : detailed));
  if (rs[i].visible !== visible) rs[i].visible = visible;
}
for (const [fig, which] of titles) fig.title.text = `${which}: ${labels[pair[which]]}`;
const text = detailed ? detail_text : overview_text;
if (status.text !== text) status.text = text;
"""
)
