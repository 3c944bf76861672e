"""The Markdown report, CSV and PNG charts of ``adaptsched reproduce downey``."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from adaptsched.reproduce.common import findings_section, headline, write_findings_csv

from . import findings as claims
from .findings import PAPER_TABLE1
from .plan import COLUMNS, FRACTIONS, LOADS, STRATEGIES, fig11_run, fig13_run, table1_run


def _mean(results, names, key):
    values = [results[n][key] for n in names if n in results]
    return float(np.mean(values)) if values else float("nan")


def _line_chart(path, title, xlabel, ylabel, series):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.4, 4.2), dpi=110)
    ax = fig.add_subplot()
    for label, xs, ys, style in series:
        ax.plot(xs, ys, style, label=label)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    return path.name


def write_report(folder: Path, plan, results, *, days, seeds, hosts, engine, wall_s, command="") -> Path:
    """Writes ``folder/report.md``, ``runs.csv`` and the PNG charts; returns the report's path."""
    folder.mkdir(parents=True, exist_ok=True)
    write_csv(folder / "runs.csv", plan, results)
    lines = header(results, days=days, seeds=seeds, hosts=hosts, engine=engine, wall_s=wall_s, command=command)
    found = findings(results, seeds)
    write_findings_csv(folder / "findings.csv", found)
    lines += [headline(found), ""]
    lines += table1_section(results, seeds)[0]
    lines += figures_section(folder, results, seeds)
    lines += findings_section("The paper's findings, checked", found)
    lines += invariants_section(results)
    lines += ["", DIFFERENCES]
    path = folder / "report.md"
    path.write_text("\n".join(lines) + "\n")
    return path


def write_csv(path: Path, plan, results) -> None:
    """One row per run: its place in the plan and its metrics."""
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["run", "study", "strategy", "mode", "load", "min_fraction", "seed", *COLUMNS])
        for name, options, load, seed, study in plan:
            if name in results:
                r = results[name]
                writer.writerow(
                    [
                        name,
                        study,
                        options["strategy"],
                        options.get("mode", "greedy"),
                        load,
                        options.get("min_fraction", ""),
                        seed,
                        *[r[c] for c in COLUMNS],
                    ]
                )


def header(results, *, days, seeds, hosts, engine, wall_s, command) -> list[str]:
    return [
        "# Downey (1996): processor allocation strategies, reproduced",
        "",
        f"{hosts} processors, {days} simulated days per workload"
        + ("" if days == 120 else " (a shortened run: the paper's days are 120)")
        + f", {seeds} workload{'s' if seeds > 1 else ''} (seeds) per offered load, every run on each, {engine} "
        "engine, FIFO queue. "
        f"This invocation: {wall_s / 60:.1f} min; the {len(results)} runs took "
        f"{sum(r['wall_s'] for r in results.values()) / 60:.1f} min in all (one per CPU at a time). "
        f"Data: `runs.csv`.",
        "",
        *([f"Made by `{command}`.", ""] if command else []),
    ]


def table1_section(results, seeds):
    """Table 1 beside the paper's; returns its lines and {strategy: [mean per column]}."""
    lines = [
        f"## Table 1: greedy strategies at offered load 0.75 (mean of {seeds} workloads; paper in parentheses)",
        "",
        "| strategy | load | utilization | turnaround (s) | queue (s) | cluster size (CV) | p90 slowdown |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    table = {}
    for s in STRATEGIES:
        names = [table1_run(s, k) for k in range(1, seeds + 1)]
        table[s] = [_mean(results, names, c) for c in COLUMNS]
        v, p = table[s], PAPER_TABLE1[s]
        lines.append(
            f"| {s} | {v[0]:.2f} ({p[0]:.2f}) | {v[1]:.2f} ({p[1]:.2f}) | {v[2]:,.0f} ({p[2]:,}) | "
            f"{v[3]:,.0f} ({p[3]:,}) | {v[4]:.1f} ({v[5]:.2f}) (paper {p[4]} ({p[5]})) | "
            f"{v[6]:.1f} ({p[6]}) |"
        )
    return lines, table


def _over_seeds(results, seeds, name, key):
    return _mean(results, [name(k) for k in range(1, seeds + 1)], key)


def figures_section(folder: Path, results, seeds: int = 1) -> list[str]:
    """Figures 11, 12 and 13 as PNG (means over the seeds), and Figure 11's utilizations as a table."""
    charts = []

    def fig11(mode, s, load, key):
        return _over_seeds(results, seeds, lambda k: fig11_run(mode, s, load, k), key)

    def fig13(s, c, key):
        return _over_seeds(results, seeds, lambda k: fig13_run(s, c, k), key)

    for mode, style in (("stubborn", "o--"), ("greedy", "s-")):
        series = []
        for s in STRATEGIES:
            ys = [fig11(mode, s, load, "utilization") for load in LOADS]
            if not all(np.isnan(ys)):
                series.append((s, LOADS, ys, style))
        charts.append(
            _line_chart(
                folder / f"fig11_{mode}.png", f"Figure 11: utilization, {mode}", "offered load", "utilization", series
            )
        )
    series = [
        (f"{s} {mode}", LOADS, [fig11(mode, s, load, "cluster_size") for load in LOADS], style)
        for mode, style in (("greedy", "s-"), ("stubborn", "o--"))
        for s in STRATEGIES
        if not (s == "ASP" and mode == "stubborn")
    ]
    charts.append(
        _line_chart(folder / "fig12.png", "Figure 12: mean cluster size", "offered load", "mean cluster size", series)
    )
    for key, label in (("utilization", "utilization"), ("turnaround_s", "mean turnaround (s)")):
        series = [(s, FRACTIONS, [fig13(s, c, key) for c in FRACTIONS], "o-") for s in STRATEGIES[:4]]
        charts.append(
            _line_chart(
                folder / f"fig13_{key}.png",
                f"Figure 13: hybrid, {label} at load 0.75",
                "minimum fraction c of the ideal size",
                label,
                series,
            )
        )
    lines = ["", "## Figures 11, 12 and 13", "", f"Means over {seeds} seeds.", ""] + [f"![{c}]({c})" for c in charts]
    lines += [
        "",
        "| load | " + " | ".join(f"{s} greedy | {s} stubborn" for s in STRATEGIES[:4]) + " | ASP |",
        "|---:|" + "---:|" * 9,
    ]
    for load in LOADS:
        cells = []
        for s in STRATEGIES[:4]:
            cells += [
                f"{fig11('greedy', s, load, 'utilization'):.3f}",
                f"{fig11('stubborn', s, load, 'utilization'):.3f}",
            ]
        cells.append(f"{fig11('greedy', 'ASP', load, 'utilization'):.3f}")
        lines.append(f"| {load:g} | " + " | ".join(cells) + " |")
    return lines + ["", "(utilization; cluster sizes and the other metrics are in `runs.csv`)"]


def _by_seed(results, seeds: int, name) -> dict:
    """{seed: metrics} of the runs ``name(seed)`` names that are done."""
    return {k: results[name(k)] for k in range(1, seeds + 1) if name(k) in results}


def findings(results, seeds: int) -> list:
    """The paper's claims (:mod:`.findings`) on our runs, paired seed by seed."""
    table1 = {s: _by_seed(results, seeds, lambda k, s=s: table1_run(s, k)) for s in STRATEGIES}
    fig11 = {
        (s, load, mode): _by_seed(results, seeds, lambda k, s=s, load=load, mode=mode: fig11_run(mode, s, load, k))
        for load in LOADS
        for s in STRATEGIES
        for mode in ("greedy", "stubborn")
    }
    fig13 = {
        (s, c): _by_seed(results, seeds, lambda k, s=s, c=c: fig13_run(s, c, k))
        for s in STRATEGIES[:4]
        for c in FRACTIONS
    }
    found = [
        claims.greedy_beats_stubborn(fig11, STRATEGIES[:4], LOADS),
        claims.greedy_beats_asp(fig11, STRATEGIES[:4], LOADS),
        claims.sev_smallest_clusters_shortest_queues(table1),
        claims.sev_lowest_p90_slowdown(table1),
        claims.max_worst_of_the_three(table1),
        claims.avg_beats_pws(table1),
        claims.asp_highest_cluster_cv(table1),
        claims.large_minimum_degrades(fig13, STRATEGIES[:4]),
    ]
    return [f for f in found if f is not None]


def invariants_section(results) -> list[str]:
    bad = [(n, v) for n, r in results.items() for v in r.get("violations", [])]
    return [
        "",
        "## Invariants",
        "",
        f"Checked on all {len(results)} runs: "
        + (
            "**all hold**." if not bad else f"**{len(bad)} violations**: " + "; ".join(f"{n}: {v}" for n, v in bad[:10])
        ),
    ]


DIFFERENCES = """## Why our numbers differ from the paper's

* **Measured time.** Downey averages day-long runs "until all queued jobs have been
  scheduled"; we chain the days in one run and measure each day from its start to the end
  of its arrival phase or its last job start, whichever is later (`analysis/downey.py`).
  Load and utilization depend on that window; turnaround, queue, cluster sizes and
  slowdowns do not.
* **SEV's formula** is our reading of Figures 7, 9 and 10 (the seed has none): A - (A - 1)
  rho sigma / 2, so sizes fall linearly with load from A toward 1 for the most variable jobs.
* **Random draws.** Lifetimes span five orders of magnitude (e^2 to e^12 s): a few very long
  jobs weigh heavily on turnaround, so means move by several percent between seeds.
* **ASP** gives each queued job at least one processor when there are fewer free processors
  than queued jobs (the paper does not say).
"""
