"""Side-by-side comparison of several Batsim runs (``compare_runs``).

Files written into ``out_dir``:

* ``comparison.md``: Markdown table, one column per run (overall metrics, then mean wait and
  mean bounded slowdown per job class), and the images below;
* ``comparison.csv``: the same numbers unformatted (column ``metric``, then one column per run);
* ``comparison.json``: the full :func:`~adaptsched.analysis.metrics.compute_metrics` dict of
  every run, keyed by label;
* ``overall_bars.png``: mean wait, mean bounded slowdown, utilization and p90 wait per run;
* ``class_bsld.png``: mean bounded slowdown per job class, grouped bars (one per run);
* ``wait_cdf.png``: wait-time CDF of all runs;
* ``gantt_<label>.png``: one evalys Gantt chart per run, all over the same time window.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import InputError
from .gantt import choose_window, parse_window, plot_gantt
from .jobs import read_jobs_csv, resolve_jobs_path, run_label, with_alloc_columns
from .metrics import CLASSES, ENERGY_ROWS, analyse, class_label, fmt_number, fmt_seconds, nothing_ran
from .metrics import OVERALL_ROWS as METRICS_ROWS
from .plots import plot_class_bsld, plot_overall_bars, plot_wait_cdf

#: The comparison's overall rows: the machine size, then the metrics table's rows, then the
#: energy rows (shown when a run has energy: ``--energy``).
OVERALL_ROWS = (("hosts", "hosts", fmt_number),) + METRICS_ROWS + ENERGY_ROWS
ENERGY_KEYS = tuple(key for key, _, _ in ENERGY_ROWS)


def _labels(runs, labels) -> list[str]:
    if labels is not None:
        labels = [str(label) for label in labels]
        if len(labels) != len(runs):
            raise ValueError(f"{len(labels)} labels for {len(runs)} runs")
        if len(set(labels)) != len(labels):
            raise ValueError(f"labels must be distinct, got {labels}")
        return labels
    out = [run_label(run) for run in runs]
    for i, label in enumerate(out):  # same basename in two folders: add the folder
        if out.count(label) > 1:
            parent = resolve_jobs_path(runs[i]).parent.name
            out[i] = f"{parent}/{label}" if parent else label
    seen: dict[str, int] = {}
    for i, label in enumerate(out):
        if label in seen:
            seen[label] += 1
            out[i] = f"{label}#{seen[label]}"
        else:
            seen[label] = 1
    return out


def _safe(label: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", label).strip("_") or "run"


def comparison_rows(metrics: list[dict]) -> list[tuple[str, str, list]]:
    """(key, label, values per run) for the comparison table."""
    rows = []
    for key, label, _ in OVERALL_ROWS:
        values = [m["hosts"] if key == "hosts" else m["overall"].get(key) for m in metrics]
        if key in ENERGY_KEYS and all(v is None for v in values):
            continue  # no run has energy
        rows.append((key, label, values))
    params = metrics[0]["parameters"]
    for cls in CLASSES:
        for key, what in (("jobs", "jobs"), ("wait_mean_s", "mean wait"), ("bsld_mean", "mean bounded slowdown")):
            rows.append(
                (f"{cls}.{key}", f"{class_label(cls, params)}: {what}", [m["classes"][cls].get(key) for m in metrics])
            )
    return rows


def _format(key: str, value) -> str:
    name = key.split(".")[-1]
    for k, _, fmt in OVERALL_ROWS:
        if k == name:
            return fmt(value)
    return fmt_seconds(value) if name.endswith("_s") else fmt_number(value)


#: The rows of :func:`summary_table`: what tells schedulers apart at a glance.
SUMMARY_ROWS = ("wait_mean_s", "wait_p90_s", "bsld_mean", "utilization", "makespan_s")


def summary_table(metrics_by_label: dict, keys=SUMMARY_ROWS) -> str:
    """A few overall metrics of several runs as an aligned Markdown table (a terminal summary;
    ``comparison.md`` has them all). ``metrics_by_label``: ``comparison.json``'s content."""
    labels = list(metrics_by_label)
    if any(m["overall"].get("energy_j") is not None for m in metrics_by_label.values()):
        keys = (*keys, "energy_j", "mean_power_w")  # beside wait and slowdown
    rows = [["metric", *labels]]
    for key in keys:
        label, fmt = next((lbl, f) for k, lbl, f in OVERALL_ROWS if k == key)
        rows.append([label, *(fmt(metrics_by_label[run]["overall"].get(key)) for run in labels)])
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for n, cells in enumerate(rows):
        padded = [c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))]
        lines.append("| " + " | ".join(padded) + " |")
        if n == 0:
            lines.append("|" + "|".join("-" * (w + 1) + (":" if i else "-") for i, w in enumerate(widths)) + "|")
    return "\n".join(lines)


def differences(labels: list[str], metrics: list[dict], jobs: list[pd.DataFrame]) -> list[str]:
    """What makes runs not comparable, one sentence each: different machine sizes, different
    workloads (the original jobs: id, submission time and requested hosts, after folding)."""
    found = []
    sizes = [m["hosts"] for m in metrics]
    if len(set(sizes)) > 1:
        found.append(
            "machine sizes differ: " + ", ".join(f"{label} {n or '?'} hosts" for label, n in zip(labels, sizes))
        )
    prints = []
    for frame in jobs:
        keys = frame["workload_name"] + "!" + frame["job_id"]
        prints.append(
            set(zip(keys, frame["submission_time"].round(6), frame["requested_number_of_resources"].astype(int)))
        )
    if any(p != prints[0] for p in prints[1:]):
        counts = [len(p) for p in prints]
        if len(set(counts)) > 1:
            detail = ", ".join(f"{label} {n:,} jobs" for label, n in zip(labels, counts))
        else:
            other = next(i for i, p in enumerate(prints) if p != prints[0])
            differ = len(prints[0] ^ prints[other]) // 2
            detail = f"{labels[0]} and {labels[other]} have {counts[0]:,} jobs each, {differ:,} of them different"
        found.append(f"workloads differ: {detail} (job ids, submission times or requested hosts)")
    return found


def compare_runs(
    runs,
    out_dir,
    *,
    labels=None,
    bound_s: float = 10.0,
    hosts=None,
    gantt_window=None,
    allow_mixed: bool = False,
    say=None,
) -> dict:
    """Compare Batsim runs and write tables and charts into ``out_dir`` (see module doc).

    ``runs``: prefixes (``/x/out/easy`` for ``/x/out/easy_jobs.csv``) or jobs.csv paths.
    ``labels``: run names (default: the prefix basenames). ``hosts``: machine size, one int
    for all runs or one per run (default: each run's schedule.csv, else inferred).
    ``gantt_window``: ``(start_s, end_s)`` of the Gantt charts, or a ``--window`` text
    (``"1d:2d"``, ``"job:42"``: :func:`~.gantt.parse_window`); default: see :mod:`.gantt`.
    Returns ``{role: path}`` with roles ``markdown``, ``csv``, ``json``, ``overall_bars``,
    ``class_bsld``, ``wait_cdf`` and ``gantt:<label>``.

    Runs of different workloads or machine sizes (:func:`differences`) raise
    :class:`~adaptsched.errors.InputError` naming what differs, unless ``allow_mixed``: then
    ``say`` (if given) prints a warning, which ``comparison.md`` repeats.
    """
    if isinstance(runs, (str, os.PathLike)):
        runs = [runs]
    runs = list(runs)
    if not runs:
        raise ValueError("compare_runs needs at least one run")
    labels = _labels(runs, labels)
    hosts_list = _hosts_per_run(hosts, len(runs))
    paths = [resolve_jobs_path(run) for run in runs]
    raws = [with_alloc_columns(read_jobs_csv(path)) for path in paths]
    results = [
        analyse(raw, source=str(path), bound_s=bound_s, hosts=h) for raw, path, h in zip(raws, paths, hosts_list)
    ]
    metrics = [m for m, _ in results]
    mixed = _check_alike(labels, paths, results, allow_mixed, say)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    rows = comparison_rows(metrics)
    written = _write_tables(out, labels, metrics, rows)
    written["overall_bars"] = plot_overall_bars(metrics, labels, out / "overall_bars.png")
    written["class_bsld"] = plot_class_bsld(metrics, labels, out / "class_bsld.png")
    waits = [jobs["waiting_time"].dropna().to_numpy(dtype=float) for _, jobs in results]
    written["wait_cdf"] = plot_wait_cdf(waits, labels, out / "wait_cdf.png")
    if isinstance(gantt_window, str):
        window = parse_window(gantt_window, raws)
    else:
        window = tuple(gantt_window) if gantt_window is not None else choose_window(raws)
    gantts = {}
    for raw, label, m in zip(raws, labels, metrics):
        target = out / f"gantt_{_safe(label)}.png"
        gantts[label] = plot_gantt(raw, target, hosts=m["hosts"] or None, window=window, title=label)
        written[f"gantt:{label}"] = str(target)
    # Markdown last: it links the images.
    (out / "comparison.md").write_text(_markdown(labels, paths, metrics, rows, mixed, window, gantts))
    written["markdown"] = str(out / "comparison.md")
    return written


def _hosts_per_run(hosts, count: int) -> list:
    """``hosts`` (None, one int, or one per run) as one value per run."""
    if hosts is None or isinstance(hosts, (int, np.integer)):
        return [hosts] * count
    hosts_list = list(hosts)
    if len(hosts_list) != count:
        raise ValueError(f"{len(hosts_list)} host counts for {count} runs")
    return hosts_list


def _check_alike(labels: list[str], paths: list, results: list, allow_mixed: bool, say) -> list[str]:
    """What makes the runs unlike (:func:`differences`): refused unless ``allow_mixed``, then
    said. A run where nothing ran is refused."""
    metrics = [m for m, _ in results]
    for m in metrics:
        empty = nothing_ran(m)
        if empty:
            raise InputError(m["source"], empty)
    mixed = differences(labels, metrics, [jobs for _, jobs in results])
    if mixed and not allow_mixed:
        raise InputError(
            ", ".join(str(p) for p in paths),
            "these runs are not comparable: " + "; ".join(mixed) + ". Compare runs of the same workload on the "
            "same machine, or pass --allow-mixed (allow_mixed=True) to compare them anyway",
        )
    if mixed and say is not None:
        say("warning: comparing unlike runs: " + "; ".join(mixed))
    return mixed


def _write_tables(out: Path, labels: list[str], metrics: list[dict], rows: list) -> dict[str, str]:
    """comparison.csv (one column per run) and comparison.json (every run's metrics)."""
    table = pd.DataFrame({"metric": [key for key, _, _ in rows]})
    for i, label in enumerate(labels):
        table[label] = pd.Series([values[i] for _, _, values in rows], dtype=object)
    table.to_csv(out / "comparison.csv", index=False)
    with open(out / "comparison.json", "w") as handle:
        json.dump({label: m for label, m in zip(labels, metrics)}, handle, indent=2)
    return {"csv": str(out / "comparison.csv"), "json": str(out / "comparison.json")}


def _markdown(
    labels: list[str], paths: list, metrics: list[dict], rows: list, mixed: list[str], window, gantts: dict
) -> str:
    """comparison.md: the runs, the table, the charts and the Gantt charts."""
    params = metrics[0]["parameters"]
    lines = ["# Comparison of runs", ""]
    for label, path, m in zip(labels, paths, metrics):
        lines.append(f"- **{label}**: `{path}`, {m['hosts']} hosts (source: {m['hosts_source']})")
    if mixed:
        lines += ["", "**Warning: these runs are not alike** (compared with --allow-mixed): " + "; ".join(mixed) + "."]
    lines += [
        "",
        f"Bounded slowdown bound {params['bound_s']:g} s; attempts of resubmitted "
        "or copied jobs folded into one job; classes over executed jobs.",
        "",
        "| metric | " + " | ".join(labels) + " |",
        "|---|" + "---:|" * len(labels),
    ]
    for key, label, values in rows:
        lines.append(f"| {label} | " + " | ".join(_format(key, v) for v in values) + " |")
    lines += [
        "",
        "## Charts",
        "",
        "![overall metrics](overall_bars.png)",
        "",
        "![bounded slowdown per class](class_bsld.png)",
        "",
        "![wait-time CDF](wait_cdf.png)",
        "",
        "## Gantt charts",
        "",
    ]
    if window is not None:
        lines += [f"Window: {window[0]:,.0f}-{window[1]:,.0f} s of simulation time (same for every run).", ""]
    for label in labels:
        info = gantts[label]
        lines += [
            f"### {label} ({info['jobs_drawn']} job attempts drawn)",
            "",
            f"![Gantt chart of {label}]({Path(info['path']).name})",
            "",
        ]
    return "\n".join(lines)
