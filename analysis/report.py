"""One-run report, meant to be called right after a simulation (``report_run``)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from .gantt import parse_window, plot_gantt
from .jobs import read_jobs_csv, resolve_jobs_path, run_label, with_alloc_columns
from .metrics import analyse, format_metrics


def report_run(prefix, out_dir=None, *, gantt_window=None, **metric_options) -> dict:
    """Metrics table (Markdown + JSON) and a Gantt chart of one Batsim run.

    ``prefix``: the Batsim ``-e`` prefix (``/x/out/easy``) or its ``_jobs.csv``.
    ``out_dir``: where to write (default: the folder of the jobs file). Writes
    ``<label>_metrics.md``, ``<label>_metrics.json`` and ``<label>_gantt.png`` (label = prefix
    basename). ``gantt_window=(start_s, end_s)`` (or a ``--window`` text, :func:`~.gantt.parse_window`)
    overrides the default Gantt window;
    ``metric_options`` go to :func:`~adaptsched.analysis.metrics.compute_metrics`
    (``bound_s``, ``hosts``, ``short_s``, ``long_s``, ``wide_hosts``, ``fold``).

    Returns ``{"metrics": dict, "text": Markdown str, "markdown": path, "json": path,
    "gantt": path}``.
    """
    path = resolve_jobs_path(os.fspath(prefix))
    raw = with_alloc_columns(read_jobs_csv(path))
    metrics, _ = analyse(raw, source=str(path), **metric_options)
    out = Path(out_dir) if out_dir is not None else path.parent
    out.mkdir(parents=True, exist_ok=True)
    label = run_label(path)
    text = format_metrics(metrics)
    md_path = out / f"{label}_metrics.md"
    md_path.write_text(text)
    json_path = out / f"{label}_metrics.json"
    json_path.write_text(json.dumps(metrics, indent=2))
    gantt_path = out / f"{label}_gantt.png"
    if isinstance(gantt_window, str):
        gantt_window = parse_window(gantt_window, [raw])
    plot_gantt(raw, gantt_path, hosts=metrics["hosts"] or None, window=gantt_window, title=label)
    return {
        "metrics": metrics,
        "text": text,
        "markdown": str(md_path),
        "json": str(json_path),
        "gantt": str(gantt_path),
    }
