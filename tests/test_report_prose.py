"""The committed reports of Downey and Islam et al. say in their prose what their tables and
data say: every figure of a sentence is recomputed here from the report's CSV files (not by
the report's code) and must be the one printed. A sentence typed by hand, or left behind by
an older run, fails."""

from __future__ import annotations

import csv
import math
import statistics
from collections import defaultdict
from pathlib import Path

import pytest

from adaptsched.reproduce.common import Claim, Sample, headline, t95

ROOT = Path(__file__).resolve().parents[1]
DOWNEY = ROOT / "docs" / "results" / "downey"
QOPS = ROOT / "docs" / "results" / "qops"


def rows(path: Path) -> list[dict]:
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def claims_of(folder: Path) -> list[Claim]:
    """The findings as :func:`headline` counts them: class and verdict only."""
    return [
        Claim(r["claim"], r["paper"], Sample(()), r["tolerance"], r["source"], r["class"], r["verdict"])
        for r in rows(folder / "findings.csv")
    ]


def prose(text: str) -> str:
    """The report without its tables."""
    return "\n".join(line for line in text.splitlines() if not line.startswith("|"))


def check_headlines(folder: Path) -> str:
    text = (folder / "report.md").read_text()
    found = claims_of(folder)
    assert headline(found) in prose(text)  # the top line: workload facts and claims
    assert headline([c for c in found if c.klass != "workload"]) in prose(text)  # the findings section's
    return text


def interval(values: list[float]) -> tuple[float, float, float]:
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, math.nan, math.nan
    half = t95(len(values) - 1) * statistics.stdev(values) / math.sqrt(len(values))
    return mean, mean - half, mean + half


def g3(x: float) -> str:
    return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.3g}"


# -- Downey -------------------------------------------------------------------------------------
def downey_ratios(data: list[dict]) -> dict:
    """{(days, strategy, load): [stubborn turnaround / ASP's, per seed]}."""
    turnaround = {
        (r["days"], r["strategy"], r["mode"], float(r["offered_load"]), r["seed"]): float(r["turnaround_s"])
        for r in data
        if r["study"].startswith("fig11")
    }
    out = defaultdict(list)
    for (days, strategy, mode, load, seed), value in sorted(turnaround.items()):
        asp = turnaround.get((days, "ASP", "greedy", load, seed))
        if mode == "stubborn" and asp:
            out[(days, strategy, load)].append(value / asp)
    return out


@pytest.mark.skipif(not (DOWNEY / "runs.csv").is_file(), reason="no committed Downey report")
def test_downey_report_prose_agrees_with_its_data():
    text = check_headlines(DOWNEY)
    data = rows(DOWNEY / "runs.csv")
    first = prose(text).split("\n\n")[1]
    assert f"the {len(data):,} runs took" in first
    fig11_seeds = max(int(r["seed"]) for r in data if r["study"].startswith("fig11") and r["days"] == "apart")
    assert f"Figure 11 on {fig11_seeds} workloads per offered load" in first
    chained = sum(r["days"] == "chained" for r in data)
    assert f"{chained} runs (Table 1, and sec. 6.1's" in first
    ratios = downey_ratios(data)
    # the table of sec. 6.1: each cell the mean [interval] of the per-seed ratios
    for (days, strategy, load), values in ratios.items():
        mean, low, high = interval(values)
        row = next(line for line in text.splitlines() if line.startswith(f"| {days} | {strategy} |"))
        loads = [
            float(x.removeprefix("rho "))
            for x in text.split("| days | strategy | paper | ")[1].split("\n")[0].strip(" |").split(" | ")
        ]
        cell = row.strip("|").split("|")[3 + loads.index(load)].strip()
        assert cell == f"{g3(mean)} [{g3(low)}, {g3(high)}]", (days, strategy, load, cell)
    # the sentence under it: how much chaining multiplies each strategy's mean ratio
    growth = defaultdict(list)
    for (days, strategy, load), values in ratios.items():
        if days == "chained" and ("apart", strategy, load) in ratios:
            growth[strategy].append(statistics.fmean(values) / statistics.fmean(ratios[("apart", strategy, load)]))
    said = "; ".join(f"{s} {min(growth[s]):.2f} to {max(growth[s]):.2f}" for s in ("SEV", "AVG", "PWS", "MAX"))
    assert f"over the offered loads, by: {said}." in prose(text).replace("\n", " ")


# -- Islam et al. -------------------------------------------------------------------------------------
OC = ("0", "0.05", "0.1", "0.2", "0.4")


def qops_means(data: list[dict]) -> dict:
    """{(trace, C, U, load, estimates): [mean gain per OC-factor..., DVQoPS]} over the seeds."""
    groups = defaultdict(list)
    for r in data:
        key = (r["trace"], int(r["C"]), float(r["U"]), r["load"], r["estimates"])
        groups[key].append([float(r[f"vqops_{oc}"]) for oc in OC] + [float(r["dvqops"] or "nan")])
    return {k: [statistics.fmean(col) for col in zip(*v)] for k, v in groups.items()}


@pytest.mark.skipif(not (QOPS / "revenue.csv").is_file(), reason="no committed Islam et al. report")
def test_qops_report_prose_agrees_with_its_data():
    text = check_headlines(QOPS)
    data = rows(QOPS / "revenue.csv")
    findings = rows(QOPS / "findings.csv")
    first = prose(text).split("\n\n")[1]
    seeds = len({r["seed"] for r in data})
    assert f"{seeds} seed{'s' if seeds > 1 else ''} (draws of the urgent" in first
    for trace in sorted({r["trace"] for r in data}):
        load = next(r for r in findings if r["claim"].startswith(f"{trace}: offered load of the jobs replayed"))
        assert f"offered load {100 * float(load['mean']):.1f} % against" in first.split(trace, 1)[1].split(";")[0]
        windows = next((line for line in prose(text).splitlines() if line.startswith(f"{trace}: ")), None)
        if windows:  # how near the paper's load the trace's windows come: the replayed one's load
            assert f"at {100 * float(load['mean']):.1f} %" in windows
            assert load["claim"].endswith(f"({windows.split(' is ')[1].split(', at ')[0]})")
    means = qops_means(data)
    # Table 1's rows: our means over the seeds, OC-factor by OC-factor
    for (trace, cost, urgent, load, estimates), gains in means.items():
        section = text.split(f"## Table 1 on {trace}")[1].split("\n## ")[0]
        row = next(
            line
            for line in section.splitlines()
            if line.startswith(f"| {cost}x | {int(urgent * 100)} % | {load} | {estimates} |")
        )
        cells = [c.strip() for c in row.strip("|").split("|")][4:9]
        assert [c.split(" (")[0] for c in cells] == [f"{100 * g:+.0f} %" for g in gains[:5]], row
    # the DVQoPS section: how many scenarios within 5 % of the best static factor, and the worst
    gaps = {k: (1 + v[5]) / (1 + max(v[:5])) - 1 for k, v in means.items() if not math.isnan(v[5])}
    within = sum(g >= -0.05 for g in gaps.values())
    worst = min(gaps.values())
    said = prose(text).split("## DVQoPS against the best static OC-factor")[1]
    assert f"{within} of {len(gaps)} scenarios within 5 %" in said
    assert f"at {100 * worst:+.1f} %)" in said
