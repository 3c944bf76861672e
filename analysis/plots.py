"""Comparison charts of several runs (matplotlib ``Figure`` objects, Agg; no pyplot state)."""

from __future__ import annotations

import os

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from adaptsched.core.units import DAY_S, HOUR_S, MINUTE_S

from .metrics import CLASSES, class_label

# Okabe-Ito colour-blind friendly palette, one colour per run.
RUN_COLORS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000")

_OVERALL_PANELS = (
    ("wait_mean_s", "Mean wait", "wait (s)"),
    ("bsld_mean", "Mean bounded slowdown", "bounded slowdown (ratio, >= 1)"),
    ("utilization", "Utilization", "busy share of host-time (%)"),
    ("wait_p90_s", "90th percentile of wait", "wait (s)"),
)


def _color(i: int) -> str:
    return RUN_COLORS[i % len(RUN_COLORS)]


def _value_label(value, percent: bool) -> str:
    if value is None:
        return "n/a"
    if percent:
        return f"{value:.1f}%"
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.3g}"


def _duration(seconds) -> str:
    if seconds is None or np.isnan(seconds):
        return "n/a"
    if seconds >= 3600:
        return f"{seconds / 3600:,.3g} h"
    if seconds >= 60:
        return f"{seconds / 60:.3g} min"
    return f"{seconds:.3g} s"


def plot_overall_bars(metrics: list[dict], labels: list[str], path) -> str:
    """2 x 2 bar charts, one bar per run: mean wait, mean bsld, utilization, p90 wait."""
    fig = Figure(figsize=(12, 8), dpi=110, layout="constrained")
    axes = fig.subplots(2, 2)
    x = np.arange(len(labels))
    for ax, (key, title, ylabel) in zip(axes.flat, _OVERALL_PANELS):
        percent = key == "utilization"
        raw = [m["overall"].get(key) for m in metrics]
        values = [(v * 100 if percent else v) if v is not None else np.nan for v in raw]
        texts = [_value_label(None if np.isnan(v) else v, percent) for v in values]
        if key.endswith("_s"):
            texts = [_duration(v) for v in values]
            if np.nanmax(values + [0.0]) > 7200:  # long waits: axis in hours
                values = [v / 3600 for v in values]
                ylabel = ylabel.replace("(s)", "(h)")
        bars = ax.bar(
            x,
            np.nan_to_num(values),
            color=[_color(i) for i in range(len(labels))],
            edgecolor="black",
            linewidth=0.6,
            label=labels if len(labels) > 1 else None,
        )
        ax.bar_label(bars, texts, padding=2, fontsize="small")
        ax.set_title(title)
        ax.set_ylabel(ylabel)
        ax.set_xticks(x, labels, rotation=20 if len(labels) > 4 else 0, ha="right" if len(labels) > 4 else "center")
        ax.set_xlabel("run")
        top = np.nanmax(values) if not np.all(np.isnan(values)) else 0
        ax.set_ylim(0, (top * 1.15) if top > 0 else 1)
        if percent:
            ax.set_ylim(0, max(100, top * 1.1))
        ax.grid(True, axis="y", alpha=0.4)
    handles = [axes.flat[0].patches[i] for i in range(len(labels))]
    fig.legend(handles, labels, loc="outside lower center", ncols=min(len(labels), 6), title="run")
    fig.suptitle("Overall metrics per run")
    fig.savefig(path)
    return os.fspath(path)


def plot_class_bsld(metrics: list[dict], labels: list[str], path) -> str:
    """Grouped bars: mean bounded slowdown per job class (groups) and run (bars)."""
    fig = Figure(figsize=(12, 6), dpi=110, layout="constrained")
    ax = fig.add_subplot()
    n = len(labels)
    width = 0.8 / max(n, 1)
    x = np.arange(len(CLASSES))
    every = [m["classes"][c].get("bsld_mean") for m in metrics for c in CLASSES]
    every = [v for v in every if v is not None]
    top = max(every, default=1.0)
    log = top / max(min(every, default=1.0), 1.0) > 50  # e.g. 1.1 next to 1,600
    for i, (m, label) in enumerate(zip(metrics, labels)):
        values = [m["classes"][c].get("bsld_mean") for c in CLASSES]
        heights = [v if v is not None else 0.0 for v in values]
        bars = ax.bar(
            x - 0.4 + width * (i + 0.5), heights, width, color=_color(i), edgecolor="black", linewidth=0.6, label=label
        )
        ax.bar_label(
            bars,
            [_value_label(v, False) if v is not None else "no job" for v in values],
            padding=2,
            fontsize="x-small",
            rotation=90 if n > 3 else 0,
        )
    params = metrics[0]["parameters"] if metrics else None
    names = [class_label(c, params) if params else c for c in CLASSES]
    ax.set_xticks(x, names)
    ax.set_xlabel("job class (runtime of the final attempt; requested hosts)")
    ax.set_ylabel("mean bounded slowdown (ratio, >= 1)")
    bound = params["bound_s"] if params else 10
    ax.set_title(f"Mean bounded slowdown per job class (bound {bound:g} s)")
    if log:
        ax.set_yscale("log")
        ax.set_ylim(0.9, top * 3)
        ax.set_ylabel("mean bounded slowdown (ratio, >= 1; log scale)")
    else:
        ax.set_ylim(0, top * 1.25)
        ax.axhline(1.0, color="grey", linestyle=":", linewidth=1)
    ax.grid(True, axis="y", alpha=0.4)
    ax.legend(title="run")
    fig.savefig(path)
    return os.fspath(path)


def plot_wait_cdf(waits: list[np.ndarray], labels: list[str], path) -> str:
    """Empirical CDF of the wait of executed jobs, one line per run (symlog time axis)."""
    fig = Figure(figsize=(10, 6), dpi=110, layout="constrained")
    ax = fig.add_subplot()
    largest = 0.0
    for i, (wait, label) in enumerate(zip(waits, labels)):
        wait = np.sort(np.asarray(wait, dtype=float))
        if len(wait) == 0:
            ax.plot([], [], color=_color(i), label=f"{label} (no executed job)")
            continue
        largest = max(largest, float(wait[-1]))
        y = np.arange(1, len(wait) + 1) / len(wait)
        x = np.concatenate(([0.0], wait))
        y = np.concatenate(([0.0], y))
        ax.step(x, y, where="post", color=_color(i), linewidth=1.6, label=f"{label} ({len(wait):,} jobs)")
    right = max(largest * 1.5, 10.0)
    for line in ax.get_lines():  # every curve reaches 1 and stays there up to the edge
        xs, ys = (np.asarray(v) for v in line.get_data())
        if len(xs):
            line.set_data(np.append(xs, right), np.append(ys, ys[-1]))
    ax.set_xscale("symlog", linthresh=1.0)
    ax.set_xlim(0, right)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}" if v >= 1 else f"{v:g}"))
    for seconds, name in ((MINUTE_S, "1 min"), (HOUR_S, "1 h"), (DAY_S, "1 day"), (7 * DAY_S, "1 week")):
        if seconds < right:
            ax.axvline(seconds, color="grey", linestyle=":", linewidth=1)
            ax.text(
                seconds,
                1.01,
                name,
                rotation=90,
                va="bottom",
                ha="center",
                fontsize="x-small",
                color="dimgrey",
                transform=ax.get_xaxis_transform(),
            )
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("wait time (s; linear below 1 s, logarithmic above)")
    ax.set_ylabel("fraction of executed jobs waiting at most x")
    ax.set_title("Wait-time CDF", pad=28)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(title="run", loc="lower right")
    fig.savefig(path)
    return os.fspath(path)
