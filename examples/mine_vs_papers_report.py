"""The table and chart of the ``examples/mine-vs-papers.toml`` sweep (docs/writing-a-scheduler.md,
step 6): one row per scheduler and trace, seeds averaged (min to max beside), and the mean
bounded slowdown as bars, one panel per trace.

    adaptsched sweep examples/mine-vs-papers.toml --out results/mine-vs-papers
    .venv/bin/python examples/mine_vs_papers_report.py results/mine-vs-papers docs/results/mine-vs-papers
"""

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd

COLUMNS = {  # runs.csv column -> the table's heading
    "bsld_mean": "mean bounded slowdown",
    "wait_mean_s": "mean wait (s)",
    "utilization": "utilization",
    "short.bsld_mean": "short jobs' bsld",
    "long.bsld_mean": "long jobs' bsld",
}


def configuration(row: pd.Series) -> str:
    """A run's scheduler, as the table names it: its label (else name) and options, but its seed."""
    name = row.get("label") if isinstance(row.get("label"), str) and row.get("label") else row["scheduler"]
    options = [f"{c[4:]}={row[c]}" for c in row.index if c.startswith("opt.") and c != "opt.seed" and pd.notna(row[c])]
    shown = [o for o in options if not o.startswith(("order=", "guarantees=", "depth="))]  # in the label already
    return f"{name} ({', '.join(shown)})" if shown else str(name)


def summary(runs: pd.DataFrame) -> pd.DataFrame:
    runs = runs[runs["status"] == "done"].copy()
    runs["configuration"] = runs.apply(configuration, axis=1)
    groups = runs.groupby(["workload", "configuration"], sort=False)
    table = groups[list(COLUMNS)].mean()
    table["seeds"] = groups.size()
    table["bsld_min"], table["bsld_max"] = groups["bsld_mean"].min(), groups["bsld_mean"].max()
    return table.reset_index()


def markdown(table: pd.DataFrame) -> str:
    lines = []
    for workload, rows in table.groupby("workload", sort=False):
        lines += [f"**{workload}**", "", "| scheduler | " + " | ".join(COLUMNS.values()) + " |"]
        lines.append("|---|" + "---:|" * len(COLUMNS))
        for _, row in rows.iterrows():
            cells = []
            for column in COLUMNS:
                value = row[column]
                text = f"{value:,.0f}" if column == "wait_mean_s" else f"{value:.2f}"
                if column == "bsld_mean" and row["seeds"] > 1:
                    text += f" ({row['bsld_min']:.2f} to {row['bsld_max']:.2f}, {row['seeds']} seeds)"
                cells.append(text)
            lines.append(f"| {row['configuration']} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def chart(table: pd.DataFrame, path: Path) -> None:
    workloads = list(dict.fromkeys(table["workload"]))
    fig, axes = plt.subplots(1, len(workloads), figsize=(4.2 * len(workloads), 3.2), sharey=True)
    for ax, workload in zip(axes, workloads):
        rows = table[table["workload"] == workload].iloc[::-1]
        low, high = rows["bsld_mean"] - rows["bsld_min"], rows["bsld_max"] - rows["bsld_mean"]
        ax.barh(rows["configuration"], rows["bsld_mean"], xerr=[low, high], color="#4477aa", capsize=3)
        ax.set_title(workload, fontsize=10)
        ax.set_xlabel("mean bounded slowdown (10 s)", fontsize=9)
        ax.tick_params(labelsize=8)
        ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(results: str, out: str) -> None:
    table = summary(pd.read_csv(Path(results) / "runs.csv"))
    Path(out).mkdir(parents=True, exist_ok=True)
    (Path(out) / "table.md").write_text(markdown(table))
    chart(table, Path(out) / "bsld.png")
    print(f"wrote {out}/table.md and {out}/bsld.png")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: mine_vs_papers_report.py SWEEP_FOLDER OUT_FOLDER")
    main(sys.argv[1], sys.argv[2])
