"""The Markdown report, CSV and PNG charts of ``adaptsched reproduce downey``.

Every number in the report comes from the runs (or from the paper's tables in
:mod:`.findings`): the prose around the tables is written from the same values.
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np

from adaptsched.reproduce.common import (
    CLASSES_TEXT,
    Sample,
    findings_table,
    headline,
    num,
    per_seed,
    write_findings_csv,
)

from . import findings as claims
from .findings import PAPER_DAYS, PAPER_RATIOS, PAPER_TABLE1
from .plan import (
    APART,
    CHAINED,
    COLUMNS,
    FRACTIONS,
    INSENSITIVE,
    LOADS,
    STRATEGIES,
    fig11_run,
    fig13_run,
    fig15_run,
    table1_run,
    workload_path,
)


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
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    return path.name


def write_report(
    folder: Path,
    plan,
    results,
    *,
    days,
    seeds,
    fig11_seeds=None,
    hosts,
    engine,
    wall_s,
    inputs: Path | None = None,
    command="",
    when="",
) -> Path:
    """Writes ``folder/report.md``, ``runs.csv``, ``findings.csv`` and the PNG charts; returns the
    report's path."""
    folder.mkdir(parents=True, exist_ok=True)
    fig11_seeds = fig11_seeds or seeds
    write_csv(folder / "runs.csv", plan, results)
    data = Data(results, seeds, fig11_seeds)
    facts = claims.workload_facts(model_values(hosts), realized_values(plan, inputs, days)) if inputs else []
    found = findings(data)
    write_findings_csv(folder / "findings.csv", facts + found)
    lines = header(
        results,
        plan,
        days=days,
        seeds=seeds,
        fig11_seeds=fig11_seeds,
        hosts=hosts,
        engine=engine,
        wall_s=wall_s,
        command=command,
        when=when,
    )
    lines += [headline(facts + found), ""]
    lines += workload_section(facts, plan, inputs, days)
    lines += table1_section(data)
    lines += ratios_section(data)
    lines += figures_section(folder, data)
    lines += ["", "## The paper's findings, checked", "", headline(found), "", CLASSES_TEXT, "", *findings_table(found)]
    lines += invariants_section(results)
    lines += ["", DIFFERENCES]
    path = folder / "report.md"
    path.write_text("\n".join(lines) + "\n")
    return path


class Data:
    """The runs' metrics by study, {seed: metrics} each (the shapes :mod:`.findings` takes)."""

    def __init__(self, results, seeds: int, fig11_seeds: int):
        self.results, self.seeds, self.fig11_seeds = results, seeds, fig11_seeds

        def by_seed(name, count):
            return {k: results[name(k)] for k in range(1, count + 1) if name(k) in results}

        self.table1 = {
            how: {s: by_seed(lambda k, s=s, how=how: table1_run(s, k, how), seeds) for s in STRATEGIES}
            for how in (APART, CHAINED)
        }
        self.fig11 = {
            how: {
                (s, load, mode): by_seed(
                    lambda k, s=s, load=load, mode=mode, how=how: fig11_run(mode, s, load, k, how), n
                )
                for load in LOADS
                for s in STRATEGIES
                for mode in ("greedy", "stubborn")
            }
            for how, n in ((APART, fig11_seeds), (CHAINED, seeds))
        }
        self.fig13 = {
            (s, c): by_seed(lambda k, s=s, c=c: fig13_run(s, c, k), seeds) for s in STRATEGIES[:4] for c in FRACTIONS
        }
        self.fig15 = {
            (s, load): by_seed(lambda k, s=s, load=load: fig15_run(s, load, k), seeds)
            for s in INSENSITIVE.values()
            for load in LOADS
        }


def write_csv(path: Path, plan, results) -> None:
    """One row per run: its place in the plan and its metrics."""
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["run", "study", "days", "strategy", "mode", "offered_load", "min_fraction", "seed", *COLUMNS])
        for name, options, load, seed, study, how in plan:
            if name in results:
                r = results[name]
                writer.writerow(
                    [
                        name,
                        study,
                        how,
                        options["strategy"],
                        options.get("mode", "greedy"),
                        load,
                        options.get("min_fraction", ""),
                        seed,
                        *[r[c] for c in COLUMNS],
                    ]
                )


def header(results, plan, *, days, seeds, fig11_seeds, hosts, engine, wall_s, command, when) -> list[str]:
    """The first paragraph: the scale against the paper's, the set-up, the run time and load."""
    done = [r for r in results.values()]
    cpu = sum(r.get("cpu_s", math.nan) for r in done)
    run_s = sum(r["wall_s"] for r in done)
    scale = (
        f"{hosts} processors, {days} simulated days per workload, each day run apart on an empty machine "
        f'(the paper\'s "day-long simulated runs", sec. 4). Figure 11 on {fig11_seeds} workloads per offered load, '
        f"{fig11_seeds * days:,} days a point (the paper: {PAPER_DAYS['fig11']:,}); Table 1 and Figures 12, 13 and 15 "
        f"on {seeds} workloads, {seeds * days:,} days a point (the paper: {PAPER_DAYS['table1']})."
    )
    if days * fig11_seeds < PAPER_DAYS["fig11"] or days * seeds < PAPER_DAYS["table1"]:
        scale += " A shortened run: fewer days than the paper's."
    chained = sum(1 for p in plan if p[5] == CHAINED)
    lines = [
        "# Downey (1996): processor allocation strategies, reproduced",
        "",
        scale + f" The same jobs also ran with the days chained (a day's backlog still queued the next morning): "
        f"{chained} runs (Table 1, and sec. 6.1's stubborn strategies and ASP), reported beside and not counted. "
        f"{engine.capitalize()} engine, FIFO queue. This invocation: {wall_s / 60:.1f} min"
        + (f" ({when})" if when else "")
        + f"; the {len(done):,} runs took {run_s / 60:.1f} min"
        + (f" and {cpu / 60:.1f} min of CPU" if math.isfinite(cpu) else "")
        + " in all. Data: `runs.csv`, `findings.csv`.",
        "",
    ]
    return lines + ([f"Made by `{command}`.", ""] if command else [])


def model_values(hosts: int) -> dict:
    """The generator's distributions (:mod:`adaptsched.workloads.downey`): the values the paper
    states of its model, exact."""
    from adaptsched.workloads.downey import ARRIVAL_PHASE_S, L_MAX_S, L_MIN_S, MEAN_L_S, arrival_rate

    return {
        "mean_min": MEAN_L_S / 60,
        "median_min": math.sqrt(L_MIN_S * L_MAX_S) / 60,
        "jobs_day_0.5": arrival_rate(0.5, hosts) * ARRIVAL_PHASE_S,
        "jobs_day_1": arrival_rate(1.0, hosts) * ARRIVAL_PHASE_S,
        "sequential": math.log(1.5) / math.log(hosts),  # A < 1.5: round(A) = 1
    }


def realized_values(plan, inputs: Path | None, days: int) -> dict:
    """Per generated workload (apart, the one every claim counts on): offered load over the
    nominal rho, mean A; and per offered load, the means (for the workload table)."""
    out: dict = {"load_ratio": [], "mean_A": [], "by_load": {}}
    if inputs is None:
        return out
    seen = set()
    for _, _, load, seed, _, how in plan:
        path = workload_path(inputs, load, seed, days, how)
        if how != APART or path in seen or not path.is_file():
            continue
        seen.add(path)
        w = json.loads(path.read_text())
        meta = w["adaptsched"]
        lifetimes = [j["moldable"]["t1_s"] for j in w["jobs"]]
        realized = sum(lifetimes) / (meta["hosts"] * 43200.0 * meta["days"])
        mean_a = float(np.mean([j["moldable"]["A"] for j in w["jobs"]]))
        out["load_ratio"].append(realized / load)
        out["mean_A"].append(mean_a)
        row = out["by_load"].setdefault(load, [])
        row.append((len(w["jobs"]) / meta["days"], realized, float(np.mean(lifetimes)) / 60, mean_a))
    return out


def workload_section(facts, plan, inputs, days) -> list[str]:
    """The workload, checked before the schedulers: its facts beside the paper's, and what the
    generated workloads hold, per offered load."""
    if not facts:
        return []
    lines = [
        "## The workload, beside the paper's",
        "",
        "Checked before any scheduler: the model's values the paper states, and the generated "
        "workloads' offered load (class *workload*: not counted among the scheduler claims).",
        "",
        *findings_table(facts),
        "",
        "The generated workloads (days apart), means over the workloads of each offered load:",
        "",
        "| offered load | workloads | jobs per day | realized offered load | mean L (min) | mean A |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for load, rows in sorted(realized_values(plan, inputs, days)["by_load"].items()):
        m = np.mean(rows, axis=0)
        lines.append(f"| {load:g} | {len(rows)} | {m[0]:.1f} | {m[1]:.3f} | {m[2]:.1f} | {m[3]:.2f} |")
    return lines + [""]


def table1_section(data: Data) -> list[str]:
    """Table 1 beside the paper's, days apart (the paper's) then chained."""
    lines = []
    for how in (APART, CHAINED):
        lines += [
            f"## Table 1: greedy strategies at offered load 0.75, days {how} (mean of {data.seeds} workloads; "
            "paper in parentheses)",
            "",
            "| strategy | load | utilization | turnaround (s) | queue (s) | cluster size | its CV | p90 slowdown |",
            "|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for s in STRATEGIES:
            runs = data.table1[how][s]
            v = [float(np.mean([r[c] for r in runs.values()])) if runs else math.nan for c in COLUMNS]
            p = PAPER_TABLE1[s]
            lines.append(
                f"| {s} | {v[0]:.2f} ({p[0]:.2f}) | {v[1]:.2f} ({p[1]:.2f}) | {v[2]:,.0f} ({p[2]:,}) | "
                f"{v[3]:,.0f} ({p[3]:,}) | {v[4]:.1f} ({p[4]}) | {v[5]:.2f} ({p[5]}) | {v[6]:.1f} ({p[6]}) |"
            )
        lines.append("")
    return lines


def ratio_sample(fig11, strategy: str, load: float) -> Sample:
    """Stubborn ``strategy``'s mean turnaround over ASP's at ``load``, seed by seed."""
    a, b = fig11.get((strategy, load, "stubborn")), fig11.get(("ASP", load, "greedy"))
    if not a or not b:
        return Sample(())
    x = {k: m["turnaround_s"] for k, m in a.items()}
    y = {k: m["turnaround_s"] for k, m in b.items()}
    return per_seed(lambda u, v: u / v, x, y)


def _cell(s: Sample) -> str:
    if not s.values:
        return "-"
    ci = s.ci
    fmt = num(3)
    return fmt(s.mean) + (f" [{fmt(ci[0])}, {fmt(ci[1])}]" if ci and not s.exact else "")


def ratios_section(data: Data) -> list[str]:
    """Sec. 6.1: stubborn turnaround over ASP's at every load, days apart and chained, and what
    chaining multiplies them by."""
    lines = [
        "## Sec. 6.1: stubborn turnaround over ASP's",
        "",
        "Mean of the per-workload ratios [95 % interval]; days apart (the paper's set-up, the counted claims) "
        "and chained (the same jobs, each day's backlog carried into the next).",
        "",
        "| days | strategy | paper | " + " | ".join(f"rho {load:g}" for load in LOADS) + " |",
        "|---|---|---|" + "---|" * len(LOADS),
    ]
    for how in (APART, CHAINED):
        for s in STRATEGIES[:4]:
            low, high = PAPER_RATIOS[s]
            paper = f"{low}" if low == high else f"{low}-{high}"
            cells = [_cell(ratio_sample(data.fig11[how], s, load)) for load in LOADS]
            lines.append(f"| {how} | {s} | {paper} | " + " | ".join(cells) + " |")
    lines.append("")
    growth: dict[str, list[float]] = {}
    for s in STRATEGIES[:4]:
        for load in LOADS:
            a, c = ratio_sample(data.fig11[APART], s, load), ratio_sample(data.fig11[CHAINED], s, load)
            if a.values and c.values:
                growth.setdefault(s, []).append(c.mean / a.mean)
    if growth:
        text = "; ".join(f"{s} {min(g):.2f} to {max(g):.2f}" for s, g in growth.items())
        lines += [
            f"Chaining the days multiplies these mean ratios, over the offered loads, by: {text}. With the days "
            "chained, the jobs still queued when a day ends are still queued when the next day's arrive.",
            "",
        ]
    return lines


def figures_section(folder: Path, data: Data) -> list[str]:
    """Figures 11, 12, 13 and 15 as PNG (means over the seeds), and Figure 11's utilizations as a table."""
    charts = []

    def mean(runs, key):
        return float(np.mean([m[key] for m in runs.values()])) if runs else math.nan

    fig11 = data.fig11[APART]
    for mode, style in (("stubborn", "o--"), ("greedy", "s-")):
        series = []
        for s in STRATEGIES:
            ys = [mean(fig11.get((s, load, mode)), "utilization") for load in LOADS]
            if not all(np.isnan(ys)):
                series.append((s, LOADS, ys, style))
        charts.append(
            _line_chart(
                folder / f"fig11_{mode}.png", f"Figure 11: utilization, {mode}", "offered load", "utilization", series
            )
        )
    series = [
        (f"{s} {mode}", LOADS, [mean(fig11.get((s, load, mode)), "cluster_size") for load in LOADS], style)
        for mode, style in (("greedy", "s-"), ("stubborn", "o--"))
        for s in STRATEGIES
        if not (s == "ASP" and mode == "stubborn")
    ]
    charts.append(
        _line_chart(folder / "fig12.png", "Figure 12: mean cluster size", "offered load", "mean cluster size", series)
    )
    for key, label in (("utilization", "utilization"), ("turnaround_s", "mean turnaround (s)")):
        series = [(s, FRACTIONS, [mean(data.fig13.get((s, c)), key) for c in FRACTIONS], "o-") for s in STRATEGIES[:4]]
        charts.append(
            _line_chart(
                folder / f"fig13_{key}.png",
                f"Figure 13: hybrid, {label} at load 0.75",
                "minimum fraction c of the ideal size",
                label,
                series,
            )
        )
    series = []
    for sensitive, insensitive in INSENSITIVE.items():
        series.append(
            (sensitive, LOADS, [mean(fig11.get((sensitive, load, "greedy")), "turnaround_s") for load in LOADS], "s-")
        )
        series.append(
            (insensitive, LOADS, [mean(data.fig15.get((insensitive, load)), "turnaround_s") for load in LOADS], "o--")
        )
    charts.append(
        _line_chart(
            folder / "fig15.png",
            "Figure 15(b): variance-insensitive strategies",
            "offered load",
            "mean turnaround (s)",
            series,
        )
    )
    lines = ["", "## Figures 11, 12, 13 and 15", "", "Means over the workloads, days apart.", ""]
    lines += [f"![{c}]({c})" for c in charts]
    lines += [
        "",
        "| load | " + " | ".join(f"{s} greedy | {s} stubborn" for s in STRATEGIES[:4]) + " | ASP |",
        "|---:|" + "---:|" * 9,
    ]
    for load in LOADS:
        cells = []
        for s in STRATEGIES[:4]:
            cells += [f"{mean(fig11.get((s, load, m)), 'utilization'):.3f}" for m in ("greedy", "stubborn")]
        cells.append(f"{mean(fig11.get(('ASP', load, 'greedy')), 'utilization'):.3f}")
        lines.append(f"| {load:g} | " + " | ".join(cells) + " |")
    return lines + ["", "(utilization; cluster sizes and the other metrics are in `runs.csv`)"]


def findings(data: Data) -> list:
    """The paper's claims (:mod:`.findings`) on our runs, days apart, paired seed by seed."""
    fig11 = data.fig11[APART]
    found = [
        *(claims.stubborn_over_asp(fig11, s, LOADS) for s in STRATEGIES[:4]),
        *claims.asp_range(fig11),
        claims.greedy_beats_stubborn(fig11, STRATEGIES[:4], LOADS),
        claims.greedy_beats_asp(fig11, STRATEGIES[:4], LOADS),
        claims.sev_smallest_clusters_shortest_queues(data.table1[APART]),
        claims.sev_lowest_p90_slowdown(data.table1[APART]),
        claims.max_worst_of_the_three(data.table1[APART]),
        claims.avg_beats_pws(data.table1[APART]),
        claims.asp_highest_cluster_cv(data.table1[APART]),
        claims.large_minimum_degrades(data.fig13, STRATEGIES[:4]),
        claims.ssev_like_sev(fig11, data.fig15, LOADS),
        claims.threehalves_avg_worse_than_pws(fig11, data.fig15, LOADS),
        claims.insensitive_sizes(fig11, data.fig15, LOADS),
    ]
    return [f for f in found if f is not None]


def invariants_section(results) -> list[str]:
    bad = [(n, v) for n, r in results.items() for v in r.get("violations", [])]
    return [
        "",
        "## Invariants",
        "",
        f"Checked on all {len(results):,} runs: "
        + (
            "**all hold**." if not bad else f"**{len(bad)} violations**: " + "; ".join(f"{n}: {v}" for n, v in bad[:10])
        ),
    ]


DIFFERENCES = """## Why our numbers differ from the paper's

* **Days apart or chained.** The paper's points are averages of "day-long simulated runs" in
  which, after the 12-hour arrival phase, "existing jobs continue to run until all queued jobs
  have been scheduled" (sec. 4, Figure 11): each day on its own. Our counted runs do the same
  (each day starts on an empty machine, `workloads/downey.py`); the chained runs beside them
  show what a day's backlog carried into the next does, above all to the stubborn strategies.
  A day's measured time runs from its start to the end of its arrival phase or its last job
  start, whichever is later (`analysis/downey.py`).
* **SEV's formula** is our reading of Figures 7, 9 and 10 (the seed has none): A - (A - 1)
  rho sigma / sigma_max, so sizes fall linearly with load from A toward 1 for the most
  variable jobs.
* **Sequential jobs.** AVG gives a job round(A) processors, so a job runs on one processor
  when its A is below 1.5; the paper's share of sequential jobs (the workload table above)
  is the share of the jobs whose A is below two (log 2 / log N of them, A uniform-log on
  [1, N]). What that difference does to the strategies' results is not measured here.
* **Random draws.** Lifetimes are uniform-log over five orders of magnitude: a few very long
  jobs weigh heavily on turnaround, so means move by several percent between workloads.
* **ASP** gives each queued job at least one processor when there are fewer free processors
  than queued jobs (the paper does not say).
"""
