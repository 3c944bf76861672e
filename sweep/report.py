"""A sweep's results: ``runs.csv`` (one row per run, tidy) and one PNG chart per metric.

``runs.csv`` columns: ``name``, ``status`` (done or failed), the run's parameters
(``scheduler``, ``label``, ``opt.NAME`` for each option, ``workload``, ``workload.NAME``,
``platform``, ``hosts``, ``engine``), the collected metrics, then ``wall_s`` (the run's own
wall time), ``host`` (where it ran), ``adaptsched_version`` and ``key``.

Charts (``chart_METRIC.png``): one horizontal bar per cell of the grid, a cell being the
values of the parameters that vary across the sweep except seeds (columns whose name ends in
``seed``): the bar is the mean over seeds, the whiskers their minimum and maximum. A scheduler
is named by its label, else (a plugin file) by the class it runs, else by its name
(:func:`scheduler_names`).
"""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from adaptsched.errors import AdaptschedError

from .grid import GridResult, GridRun

TAIL = ("wall_s", "host", "adaptsched_version", "key")


def rows_of(runs: list[GridRun], grid: GridResult, collect: Sequence[str]) -> tuple[list[str], list[dict[str, Any]]]:
    params = parameters_of(runs)
    columns = ["name", "status"] + params + list(collect) + list(TAIL)
    rows = []
    for run in runs:
        result = grid.results.get(run.name)
        row = {"name": run.name, "status": "done" if result else "failed" if run.name in grid.failed else "not run"}
        row.update({k: _cell(v) for k, v in run.params.items()})
        if result:
            metrics = result.get("metrics", {})
            row.update({m: _cell(metrics.get(m)) for m in collect})
            row.update({k: _cell(result.get(k)) for k in TAIL})
        rows.append(row)
    return columns, rows


def _cell(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    return value


def write_table(path: str | Path, columns: list[str], rows: list[dict[str, Any]]) -> Path:
    path = Path(path)
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return path


def parameters_of(runs: list[GridRun]) -> list[str]:
    """The parameter columns of the runs, in order of first appearance."""
    params: list[str] = []
    for run in runs:
        for name in run.params:
            if name not in params:
                params.append(name)
    return params


def scheduler_names(runs: list[GridRun]) -> dict[str, str]:
    """{run name: its scheduler as the report names it}: the scheduler entry's label, else for a
    plugin file the class it runs (the pure scheduler's, else pybatsim's class), else its name."""
    from adaptsched.schedulers.loader import load_plugin, pybatsim_class_name

    names, classes = {}, {}
    for run in runs:
        label, scheduler = run.params.get("label", ""), str(run.spec.scheduler)
        if label:
            names[run.name] = str(label)
        elif scheduler.endswith(".py"):
            if scheduler not in classes:
                try:
                    loaded = load_plugin(scheduler)
                    found = loaded.core_class or loaded.scheduler_class
                    classes[scheduler] = found.__name__ if found is not None else loaded.class_name
                except AdaptschedError:  # not loadable here: pybatsim's rule names its class
                    classes[scheduler] = pybatsim_class_name(scheduler)
            names[run.name] = classes[scheduler]
        else:
            names[run.name] = scheduler
    return names


def named(rows: list[dict[str, Any]], names: dict[str, str] | None) -> list[dict[str, Any]]:
    """The rows with ``scheduler`` as the report names it (``names``, else the label) and no
    ``label`` column: one column for the scheduler."""
    out = []
    for row in rows:
        row = dict(row)
        label = row.pop("label", "")
        row["scheduler"] = (names or {}).get(row.get("name", ""), "") or label or row.get("scheduler", "")
        out.append(row)
    return out


def configurations(
    params: list[str], rows: list[dict[str, Any]], names: dict[str, str] | None = None
) -> dict[str, list[dict[str, Any]]]:
    """{cell label: [row, ...]}: rows grouped by the parameters that vary, except seeds (the
    scheduler named as :func:`named` does)."""
    rows = named(rows, names)
    params = [c for c in params if c != "label"]
    varying = [c for c in params if len({str(r.get(c, "")) for r in rows}) > 1 and not c.endswith("seed")]
    groups: dict = {}
    for row in rows:
        label = ", ".join(f"{_short(c)}={row.get(c, '')}" for c in varying if row.get(c, "") != "") or "all runs"
        groups.setdefault(label, []).append(row)
    return groups


def _short(column: str) -> str:
    return column.removeprefix("opt.").removeprefix("workload.")


def write_charts(
    folder: str | Path,
    title: str,
    params: list[str],
    rows: list[dict[str, Any]],
    collect: Sequence[str],
    names: dict[str, str] | None = None,
) -> list[Path]:
    from matplotlib.figure import Figure

    groups = configurations(params, rows, names)
    written = []
    for metric in collect:
        labels, means, lows, highs = [], [], [], []
        for label, members in groups.items():
            values = [float(r[metric]) for r in members if r.get(metric, "") not in ("", None)]
            values = [v for v in values if not math.isnan(v)]
            if not values:
                continue
            labels.append(f"{label} (n={len(values)})" if len(values) > 1 else label)
            mean = sum(values) / len(values)
            means.append(mean)
            lows.append(mean - min(values))
            highs.append(max(values) - mean)
        if not labels:
            continue
        height = max(2.5, 0.35 * len(labels) + 1.2)
        fig = Figure(figsize=(10, height), dpi=100, layout="constrained")
        ax = fig.subplots()
        y = list(range(len(labels)))
        ax.barh(y, means, xerr=[lows, highs], color="#0072B2", ecolor="#444444", capsize=3)
        ax.set_yticks(y, labels, fontsize=8)
        ax.invert_yaxis()
        ax.set_xlabel(metric + (" (mean over seeds; whiskers: min to max)" if any(lows + highs) else ""))
        ax.set_title(f"{title}: {metric}")
        ax.grid(axis="x", alpha=0.3)
        path = Path(folder) / f"chart_{re.sub(r'[^A-Za-z0-9_.-]', '_', metric)}.png"
        fig.savefig(path)
        written.append(path)
    return written


#: jobs whose explorer pages a sweep writes at its end (on the client, one page after the other)
PAGE_JOBS = 100_000


def write_report(
    folder: str | Path,
    title: str,
    runs: list[GridRun],
    grid: GridResult,
    collect: Sequence[str],
    say: Callable[..., None] | None = None,
) -> dict[str, Any]:
    """Writes ``runs.csv``, the charts and ``report.html`` (the interactive report, with links to
    the runs' explorer pages: :mod:`adaptsched.analysis.explore.sweep`) in ``folder``; returns
    their paths. ``say``: told before the pages are written (minutes for thousands of runs)."""
    from adaptsched.analysis.explore.sweep import sweep_report

    columns, rows = rows_of(runs, grid, collect)
    table = write_table(Path(folder) / "runs.csv", columns, rows)
    names = scheduler_names(runs)
    charts = write_charts(folder, title, parameters_of(runs), rows, collect, names)
    pages = 0 if grid.interrupted else PAGE_JOBS  # jobs whose explorer pages may be written now
    if say is not None and grid.results:
        say(
            f"writing {Path(folder) / 'report.html'}"
            + (f" and the explorer pages runs have not got yet (up to {pages:,} jobs' worth)" if pages else "")
        )
    html = (
        sweep_report(folder, title, parameters_of(runs), named(rows, names), collect, max_page_jobs=pages, say=say)
        if grid.results
        else None
    )
    return {"table": table, "charts": charts, "html": html}
