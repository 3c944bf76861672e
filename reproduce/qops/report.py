"""The Markdown report, CSV and PNG charts of ``adaptsched reproduce qops``.

One function per part of the report: Table 1 (revenue improvements beside the paper's),
DVQoPS against the best static OC-factor, the paper's findings checked (:mod:`.findings`),
accepted jobs by class, Table 2, the charts and the deadline guarantee.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import NamedTuple

import numpy as np

from adaptsched.reproduce.common import (
    CLASSES_TEXT,
    INDEPENDENT,
    depends_on,
    findings_table,
    headline,
    pct,
    pct1,
    share,
    write_findings_csv,
)

from . import findings as claims
from .findings import PAPER_TABLE1, PAPER_TABLE2
from .plan import (
    OC_FACTORS,
    PAPER_LOAD,
    WINDOWS_H,
    load_variance,
    scenario_name,
    schedulers,
    segment_text,
    table2_run,
)

#: Sec. 3: "a 10,000 jobs subset of the SDSC SP-2 and CTC SP-2 workload trace".
PAPER_JOBS = 10000
#: Sec. 3: "The cost of non-urgent jobs is fixed at 0.1 units per processor-second".
UNIT_PRICE = 0.1


class Row(NamedTuple):
    """One scenario's revenues: VQoPS's and DVQoPS's improvements over QoPS."""

    trace: str
    cost: int
    urgent: float
    load: str
    estimates: str
    segment: str
    gains: list  # per OC-factor
    dvqops: float
    qops_revenue: float
    seed: int = 0  # 0: the mean over the seeds

    @property
    def label(self) -> str:
        return f"{self.tag} C={self.cost} U={int(self.urgent * 100)} % {self.load} {self.estimates}"

    @property
    def tag(self) -> str:
        """The trace as the findings name it (:func:`tag_of`)."""
        return tag_of(self.trace, self.segment)

    @property
    def scenario(self) -> tuple:
        return (self.tag, self.cost, self.urgent, self.load, self.estimates)


def write_report(
    folder: Path,
    scenarios,
    plan,
    results,
    *,
    traces,
    jobs,
    engine,
    wall_s,
    inputs,
    segments=("load",),
    seeds=1,
    command="",
    when="",
    windows=None,
) -> Path:
    """Writes ``folder/report.md``, ``revenue.csv`` (one row per scenario and seed),
    ``findings.csv`` and the PNG charts; returns the report's path. Tables show means over the
    seeds; acceptance by class, Table 2 and the DVQoPS chart are seed 1's, on the first of
    ``segments``."""
    folder.mkdir(parents=True, exist_ok=True)
    per_seed = revenue_rows(scenarios, plan, results)
    rows = mean_rows(per_seed)
    write_csv(folder / "revenue.csv", per_seed)
    parts = {(t, seg): workload_part(inputs, t, seg, seeds) for t in traces for seg in segments}
    facts = [
        f
        for (t, seg), part in parts.items()
        if part
        for f in claims.workload_facts(tag_of(t, seg), part, PAPER_LOAD[t])
    ]
    found = check(per_seed, traces, segments, results)
    write_findings_csv(folder / "findings.csv", facts + found)
    lines = [
        "# Islam et al. (2007): QoPS, VQoPS and DVQoPS, reproduced",
        "",
        scale_paragraph(parts, jobs=jobs, seeds=seeds, engine=engine, wall_s=wall_s, results=results, when=when),
        "",
        *([f"Made by `{command}`.", ""] if command else []),
        headline(facts + found),
        "",
    ]
    lines += workload_section(facts, windows or {}, jobs)
    more, gaps = table1_section(rows, traces, segments, jobs, seeds)
    lines += more
    lines += segments_section(rows, traces, segments, jobs)
    lines += dvqops_section(gaps)
    lines += high_load_section(rows, read_measured(folder / MEASURED), jobs)[0]
    lines += ["", "## The paper's findings, checked", "", headline(found), "", CLASSES_TEXT, "", *findings_table(found)]
    lines += acceptance_section(results, traces, segments[0])
    lines += table2_section(results, inputs, segments[0])
    revenue_chart(folder / "revenue.png", rows)
    choices_chart(folder / "dvqops_choices.png", results, traces, segments[0])
    lines += ["", "![revenue](revenue.png)", "", "![DVQoPS choices](dvqops_choices.png)"]
    lines += deadline_section(results)
    lines += ["", differences(jobs, segments, results, seeds)]
    path = folder / "report.md"
    path.write_text("\n".join(lines) + "\n")
    return path


def tag_of(trace: str, segment: str) -> str:
    """The trace as the findings name it: with its part, unless the default (the paper's load)."""
    return trace if segment in ("load", "first") else f"{trace} ({segment})"


def workload_part(inputs: Path, trace: str, segment: str, seeds: int) -> dict:
    """What the jobs replayed hold (:func:`.findings.workload_facts`), read from the scenario
    workloads in ``inputs``: the original-load exact workload of seed 1 (the jobs are the same
    for every seed) and the high-load one of every seed; {} when they are not there."""
    from adaptsched.workloads.qos import offered_load

    base = inputs / f"{scenario_name(trace, 10, 0.8, 'orig', 'exact', segment)}.json"
    if not base.is_file():
        return {}
    w = json.loads(base.read_text())
    profiles = w["profiles"]
    start = w.get("metadata", {}).get("segment_start")
    high = []
    for seed in range(1, seeds + 1):
        path = inputs / f"{scenario_name(trace, 10, 0.8, 'high', 'exact', segment, seed)}.json"
        if path.is_file():
            high.append(offered_load(json.loads(path.read_text())))
    count = len(w["jobs"])
    return {
        "load": offered_load(w),
        "high": high,
        "width": float(np.mean([j["res"] for j in w["jobs"]])),
        "runtime_s": float(np.mean([float(profiles[j["profile"]]["delay"]) for j in w["jobs"]])),
        "window": f"jobs {start:,} to {start + count:,}" if start is not None else f"{count:,} jobs",
        "count": count,
    }


def scale_paragraph(parts, *, jobs, seeds, engine, wall_s, results, when) -> str:
    """The report's first paragraph: which jobs of each trace at which offered load, beside the
    paper's (sec. 3: 10,000 jobs of each trace at 89 % and 74 %), the seeds, the run time and the
    machine's load."""
    where = []
    for (trace, segment), part in parts.items():
        if not part:
            continue
        target = PAPER_LOAD[trace][0]
        where.append(
            f"{trace} {part['window']} ({segment_text(segment, jobs)}): offered load "
            f"{100 * part['load']:.1f} % against the paper's {100 * target:.0f} %"
        )
    missing = [t for t in PAPER_LOAD if t not in {trace for trace, _ in parts}]
    text = (
        f"{'; '.join(where) or 'No workload'}. The paper: {PAPER_JOBS:,} jobs of each trace"
        + ("; this is its scale" if jobs == PAPER_JOBS else f"; this is a shortened run of {jobs:,} jobs")
        + (f"; {' and '.join(missing)} not run here (`--qos-trace`), nor its claims" if missing else "")
        + f". {seeds} seed{'s' if seeds > 1 else ''} (draws of the urgent and duplicated jobs; the paper: one), "
        f"{engine} engine."
    )
    run_s = sum(r["wall_s"] for r in results.values())
    cpu = [r["cpu_s"] for r in results.values() if "cpu_s" in r]
    text += (
        f" This invocation {wall_s / 60:.1f} min" + (f" ({when})" if when else "") + f"; the {len(results):,} runs "
        f"took {run_s / 60:.1f} min"
        + (f" and {sum(cpu) / 60:.1f} min of CPU ({len(cpu):,} runs timed)" if cpu else "")
        + " in all."
    )
    return text


def workload_section(facts, windows: dict, jobs: int) -> list[str]:
    """The jobs' facts, and (``windows``: {trace: [(first job, offered load)]} of every window
    the rule looked at) how near the paper's load the trace's windows come."""
    if not facts:
        return []
    lines = [
        "## The jobs replayed, beside the paper's",
        "",
        "Checked before any scheduler (class *workload*: not counted among the scheduler claims). The window "
        "of each trace is the one whose offered load is nearest the paper's (`--segment load`: windows of "
        "the run's job count, one every tenth of it; a rule on the jobs alone, fixed before any run).",
        "",
        *findings_table(facts),
        "",
    ]
    for trace, loads in windows.items():
        target = PAPER_LOAD[trace][0]
        start, load = min(loads, key=lambda w: abs(w[1] - target))
        lines.append(
            f"{trace}: {len(loads)} windows of {jobs:,} jobs, offered loads {100 * min(w[1] for w in loads):.1f} to "
            f"{100 * max(w[1] for w in loads):.1f} %; the nearest the paper's {100 * target:.0f} % is jobs "
            f"{start:,} to {start + jobs:,}, at {100 * load:.1f} %"
            + (
                ". The jobs are replayed as the trace has them (no runtime or arrival is scaled to move the load)."
                if abs(load - target) > 0.005
                else "."
            )
        )
        lines.append("")
    return lines


def revenue_rows(scenarios, plan, results) -> list[Row]:
    """The :class:`Row` of every scenario and seed whose QoPS run is done."""
    revenue = {entry[2]: results[entry[2]]["all"]["revenue"] for entry in plan if entry[2] in results}
    seeds = sorted({entry[3] if len(entry) > 3 else 1 for entry in plan})
    rows = []
    for seed in seeds:
        for trace, cost, urgent, load, estimates, segment in scenarios:
            name = scenario_name(trace, cost, urgent, load, estimates, segment, seed)
            base = revenue.get(f"{name}_QoPS")
            if not base:
                continue
            gains = [revenue.get(f"{name}_VQoPS{oc:g}", np.nan) / base - 1 for oc in OC_FACTORS]
            dv = revenue.get(f"{name}_DVQoPS", np.nan) / base - 1
            rows.append(Row(trace, cost, urgent, load, estimates, segment, gains, dv, base, seed))
    return rows


def mean_rows(rows: list[Row]) -> list[Row]:
    """One :class:`Row` per scenario: the mean over its seeds (``seed`` 0), in first-seen order."""
    groups: dict[tuple, list[Row]] = {}
    for r in rows:
        groups.setdefault((r.trace, r.cost, r.urgent, r.load, r.estimates, r.segment), []).append(r)
    out = []
    for (trace, cost, urgent, load, estimates, segment), rs in groups.items():
        gains = [float(np.mean([r.gains[i] for r in rs])) for i in range(len(OC_FACTORS))]
        dv = float(np.mean([r.dvqops for r in rs]))
        base = float(np.mean([r.qops_revenue for r in rs]))
        out.append(Row(trace, cost, urgent, load, estimates, segment, gains, dv, base, 0))
    return out


def check(rows: list[Row], traces, segments, results) -> list:
    """Every claim of the paper the runs can check (:mod:`.findings`), trace by trace: Table 1's
    cells on SDSC-SP2 (the paper's Table 1 is SDSC's: :data:`.findings.PAPER_TABLE1`), sec. 5.3's
    gains on CTC-SP2, the trends on both."""
    table: dict = {}
    for r in rows:
        table.setdefault(r.scenario, {})[r.seed] = (r.gains, r.dvqops)
    found = []
    for segment in segments:
        tags = [tag_of(t, segment) for t in traces]
        for trace, tag in zip(traces, tags):
            own: list = claims.table1_cells(table, tag) if trace == "SDSC-SP2" else []
            if trace == "CTC-SP2":
                own += [claims.ctc_gain(table, tag, "orig"), claims.ctc_gain(table, tag, "high")]
            found += calibrated(
                [
                    *own,
                    claims.dvqops_near_best_static(table, tag),
                    claims.dvqops_at_high_load(table, tag),
                    claims.gains_grow_with_load(table, tag),
                    claims.cost_moves_best_factor(table, tag),
                    claims.urgent_share_moves_best_factor(table, tag),
                    claims.high_factors_lose_when_urgent_cheap(table, tag),
                ],
                trace,
                segment,
            )
        if len(tags) == 2:
            found += calibrated([claims.ctc_gains_less(table, tags[0], tags[1])], traces[0], segment)
    revenue: dict = {}
    for w in WINDOWS_H:
        for seed in sorted({r.seed for r in rows}):
            r = results.get(table2_run(w, segments[0], seed))
            if r:
                revenue.setdefault(w, {})[seed] = r["all"]["revenue"]
    found.append(claims.revenue_grows_with_window(revenue))
    return [f for f in found if f is not None]


#: The part of a trace chosen because its Table 1 lies nearer the paper's (SDSC-SP2's first and
#: last 1,500 jobs were compared on Table 1 before the window nearest the paper's offered load
#: became the default): claims on its Table 1 scenarios depend on that choice and are not counted.
CALIBRATED_PART = {("SDSC-SP2", "last"): "the trace part, chosen as the nearer to Table 1"}


def calibrated(found: list, trace: str, segment: str) -> list:
    """The claims of a trace part, classed *depends on* when the part was chosen on Table 1
    (:data:`CALIBRATED_PART`)."""
    reason = CALIBRATED_PART.get((trace, segment))
    if reason is None:
        return found
    return [c.with_class(depends_on(reason)) if c is not None and c.klass == INDEPENDENT else c for c in found]


def write_csv(path: Path, rows) -> None:
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(
            [
                "trace",
                "C",
                "U",
                "load",
                "estimates",
                "segment",
                "seed",
                "qops_revenue",
                *[f"vqops_{oc:g}" for oc in OC_FACTORS],
                "dvqops",
            ]
        )
        for r in rows:
            writer.writerow(
                [r.trace, r.cost, r.urgent, r.load, r.estimates, r.segment, r.seed, r.qops_revenue, *r.gains, r.dvqops]
            )


def table1_section(rows, traces, segments, jobs, seeds=1):
    """Table 1 per segment and trace (means over the seeds); returns its lines and {scenario:
    DVQoPS's gap to the best static OC-factor}."""
    lines, gaps = [], {}
    for segment in segments:
        for trace in traces:
            where = f", {segment_text(segment, jobs)}"
            paper_here = trace == "SDSC-SP2"
            lines += [
                f"## Table 1 on {trace}{where}: revenue improvement over QoPS"
                + (" (paper in parentheses)" if paper_here else ""),
                "",
                *(
                    []
                    if paper_here
                    else [
                        "The paper's Table 1 is SDSC's; of CTC it gives only its text's gains (sec. 5.3, in the "
                        "findings below).",
                        "",
                    ]
                ),
                *([f"Means over {seeds} seeds; their intervals are in the findings below.", ""] if seeds > 1 else []),
                "| C | urgent | load | estimates | "
                + " | ".join(f"OC {oc:g}" for oc in OC_FACTORS)
                + " | DVQoPS | DVQoPS vs best static |",
                "|---|---:|---|---|" + "---:|" * (len(OC_FACTORS) + 2),
            ]
            for r in rows:
                if r.trace != trace or r.segment != segment:
                    continue
                paper = PAPER_TABLE1.get((r.cost, r.urgent, r.load)) if r.estimates == "exact" and paper_here else None
                cells = [
                    f"{100 * g:+.0f} %" + (f" ({p:+d} %)" if paper else "") for g, p in zip(r.gains, paper or [0] * 5)
                ]
                gap = claims.dvqops_gap(r.dvqops, r.gains)
                lines.append(
                    f"| {r.cost}x | {int(r.urgent * 100)} % | {r.load} | {r.estimates} | "
                    + " | ".join(cells)
                    + f" | {pct(r.dvqops)} | {pct1(gap)} |"
                )
                if np.isfinite(gap):
                    gaps[r.label] = gap
            lines.append("")
    return lines, gaps


def segments_section(rows, traces, segments, jobs) -> list[str]:
    """Which part of the traces comes closer to the paper's Table 1: the mean
    distance, in percentage points, between our improvements and the paper's."""
    if len(segments) < 2:
        return []
    lines = [
        "## Which part of the trace: distance to the paper's Table 1",
        "",
        "Mean absolute difference between our revenue improvements and the paper's, in percentage "
        "points, over the exact-estimate scenarios and the five OC-factors (lower is closer).",
        "",
        "| trace | part | original load | high load | all of Table 1 |",
        "|---|---|---:|---:|---:|",
    ]
    for trace in [t for t in traces if t == "SDSC-SP2"]:  # the paper's Table 1 is SDSC's
        for segment in segments:
            ours = {
                (r.cost, r.urgent, r.load): r.gains
                for r in rows
                if r.trace == trace and r.segment == segment and r.estimates == "exact"
            }
            cells = [
                claims.table1_distance({k: v for k, v in ours.items() if k[2] == "orig"}),
                claims.table1_distance({k: v for k, v in ours.items() if k[2] == "high"}),
                claims.table1_distance(ours),
            ]
            lines.append(f"| {trace} | {segment_text(segment, jobs)} | " + " | ".join(f"{c:.0f}" for c in cells) + " |")
    return lines + [""]


def dvqops_section(gaps) -> list[str]:
    within = [g for g in gaps.values() if g >= -claims.DVQOPS_TOLERANCE]
    worst = min(gaps, key=gaps.__getitem__) if gaps else None
    return [
        "## DVQoPS against the best static OC-factor",
        "",
        f"Paper: DVQoPS within 5 % of the best static OC-factor for all traces (said of the original load). "
        f"Here, on the means over the seeds: {len(within)} of {len(gaps)} scenarios within 5 % (worst: "
        + (f"{worst} at {100 * gaps[worst]:+.1f} %" if gaps else "-")
        + "). The findings below decide seed by seed, on the original-load scenarios with exact estimates "
        "(the paper's claim); high load and real estimates are shown, not counted.",
    ]


#: Measurements of ``benchmarks/dvqops_state.py --json-out`` kept beside the report (the
#: 10,000-job DVQoPS runs being longer than a shortened reproduction): shown in the high-load
#: section if the report folder holds this file.
MEASURED = "dvqops_high_load.jsonl"


def read_measured(path: Path) -> list[dict]:
    """The benchmark's records (one JSON object a line: trace, jobs, segment, load, revenue
    by label), the high-load ones; [] without the file."""
    if not path.is_file():
        return []
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [r for r in records if r.get("load") == "high"]


def high_load_section(rows, measured, jobs) -> tuple[list[str], dict]:
    """DVQoPS against the best static OC-factor at high load (C = 10, U = 80 %, exact), beside
    the paper's "within 5 %": this reproduction's runs, then ``measured`` ones (benchmark
    records); the reason when a gap exceeds 5 %. Returns the lines and {run: gap}."""
    entries = []  # (label, source, best factor, best revenue, DVQoPS revenue, its default options?)
    for r in rows:
        if (r.cost, r.urgent, r.load, r.estimates) == (10, 0.8, "high", "exact") and not np.isnan(r.dvqops):
            index = int(np.nanargmax(r.gains))
            revenue = r.qops_revenue * (1 + r.gains[index]), r.qops_revenue * (1 + r.dvqops)
            where = f"{r.trace}, {segment_text(r.segment, jobs)}"
            entries.append((where, "this run", OC_FACTORS[index], *revenue, True))
    for m in measured:
        static = {oc: m["revenue"].get(f"VQoPS {oc:g}") for oc in OC_FACTORS}
        static = {oc: v for oc, v in static.items() if v is not None}
        for label, value in m["revenue"].items():
            if label.startswith("DVQoPS") and static:
                best = max(static, key=static.__getitem__)
                where = f"{m['trace']}, {segment_text(m.get('segment', 'first'), m['jobs'])}"
                options = label.removeprefix("DVQoPS").strip()
                source = "benchmarks/dvqops_state.py" + (f" ({options})" if options else "")
                entries.append((where, source, best, static[best], value, options in ("", "recorded")))
    if not entries:
        return [], {}
    lines = [
        "",
        '## DVQoPS at high load, beside the paper\'s "within 5 %"',
        "",
        'C = 10, U = 80 %, exact estimates, 40 % of the jobs duplicated. The paper: DVQoPS "within 5 %" '
        "of the best static OC-factor (sec. 5.2 and 5.3, said of the original load; of high load, Figure "
        '7(b), only "the overall trend is still the same"). "this run" rows use DVQoPS\'s defaults '
        "(what-if replays from the recorded state, `window_choice=continuous`); of the benchmark's rows, "
        "`(recorded)` alone is also the defaults and is counted in the finding, the others are readings "
        "compared (other options, in parentheses), not counted.",
        "",
        "| trace, part | runs | best static OC-factor | its revenue | DVQoPS | gap | paper | within 5 % |",
        "|---|---|---:|---:|---:|---:|---|---|",
    ]
    gaps, failing = {}, set()  # the best static factors of the runs more than 5 % behind
    for where, source, best_factor, best_value, value, default in entries:
        gap = value / best_value - 1
        if default:
            gaps[f"{where} ({source})"] = gap
        if gap < -claims.DVQOPS_TOLERANCE:
            failing.add(best_factor)
        lines.append(
            f"| {where} | {'`' + source + '`' if source != 'this run' else source} | {best_factor:g} | "
            f"{best_value / 1e6:,.2f} M | {value / 1e6:,.2f} M | {100 * gap:+.1f} % | within 5 % | "
            f"{'yes' if gap >= -claims.DVQOPS_TOLERANCE else '**no**'} |"
        )
    if failing:
        lines += ["", why_not_high_load(failing)]
    return lines, gaps


def why_not_high_load(best_factors) -> str:
    """:data:`WHY_NOT_HIGH_LOAD` with the best static factors of the runs more than 5 % behind."""
    return WHY_NOT_HIGH_LOAD.format(best=" or ".join(f"{oc:g}" for oc in sorted(best_factors)))


WHY_NOT_HIGH_LOAD = """**Why not within 5 %.** Where DVQoPS is more than 5 % behind, the best static factor is a
high one ({best}: turn every normal job away and keep the machine for urgent ones), and DVQoPS's what-if replays
lean toward low factors: a window's replay counts the revenue of the window's own arrivals
(and of the queue it inherits), while the cost of taking a cheap job, an urgent job turned
away later, mostly falls after the window's end, outside what the replay counts; and the
factor found best over the last window is applied to the next one. The paper gives no more
detail that would remove this bias (its §4.3 fixes only the rollback window, the candidate
factors and "the best estimated revenue over the window"); its text claims "within 5 %" for
the original load (Figures 5 and 7(a)) and says of high load (Figure 7(b)) only that "the
overall trend is still the same" (the figures are not in our copy). docs/qops.md ("DVQoPS
at high load, 10,000 jobs") gives the readings tried and the commands that measure them (`window_choice`,
`ties`, a fixed window)."""


def acceptance_section(results, traces, segment="first") -> list[str]:
    lines = [
        "",
        "## Accepted jobs by class (exact estimates, C = 10, U = 50 %, original load)",
        "",
        "Jobs accepted of offered, and accepted load in processor-hours of the estimates (offered in parentheses); "
        "*price realized*: the revenue over the price of the jobs accepted (what they would pay if each "
        "completed by its submission + estimate): the rest is lost to late completions.",
        "",
        "| trace | scheduler | urgent accepted | urgent load | normal accepted | normal load | revenue "
        "| price realized |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for trace in traces:
        name = scenario_name(trace, 10, 0.5, "orig", "exact", segment)
        for label, _, _ in schedulers():
            r = results.get(f"{name}_{label.replace(' ', '')}")
            if r:
                u, n = r["urgent"], r["normal"]
                lines.append(
                    f"| {trace} | {label} | {u['accepted_jobs']}/{u['offered_jobs']} | "
                    f"{u['accepted_load'] / 3600:,.0f} ({u['offered_load'] / 3600:,.0f}) | "
                    f"{n['accepted_jobs']}/{n['offered_jobs']} | "
                    f"{n['accepted_load'] / 3600:,.0f} ({n['offered_load'] / 3600:,.0f}) | "
                    f"{r['all']['revenue']:,.0f} | {share(price_realized(r, 10))} |"
                )
    return lines


def price_realized(result: dict, cost: float) -> float:
    """Revenue over the price of the accepted jobs (sec. 3: 0.1 per processor-second of the
    estimate, ``cost`` times more for urgent jobs)."""
    price = UNIT_PRICE * (cost * result["urgent"]["accepted_load"] + result["normal"]["accepted_load"])
    return result["all"]["revenue"] / price if price else float("nan")


def table2_section(results, inputs: Path, segment="first") -> list[str]:
    t2 = [(w, results.get(table2_run(w, segment))) for w in WINDOWS_H]
    if not any(r for _, r in t2):
        return []
    name = scenario_name("SDSC-SP2", 10, 0.5, "high", "exact", segment)
    workload = json.loads((inputs / f"{name}.json").read_text())
    lines = [
        "",
        "## Table 2: fixed rollback windows (SDSC, exact, C = 10, U = 50 %, high load)",
        "",
        "| window (h) | OC-factor variance (x1e-5) | load variance | revenue | paper |",
        "|---:|---:|---:|---:|---|",
    ]
    for w, r in t2:
        if r:
            p = PAPER_TABLE2[w]
            lines.append(
                f"| {w} | {1e5 * r.get('oc_variance', 0):.2f} | {load_variance(workload, w):.4f} | "
                f"{r['all']['revenue']:,.0f} | {p[0]}, {p[1]}, {p[2]:,} |"
            )
    return lines


def revenue_chart(path: Path, rows) -> None:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(9, 4.2), dpi=110)
    ax = fig.add_subplot()
    labels = [
        f"{r.trace[:4]} C{r.cost} U{int(r.urgent * 100)} {r.load[0]} {r.estimates[0]}"
        + ("" if r.segment == "first" else f" {r.segment}")
        for r in rows
    ]
    x = np.arange(len(rows))
    for i, oc in enumerate(OC_FACTORS):
        ax.bar(x + (i - 3) * 0.13, [100 * r.gains[i] for r in rows], 0.13, label=f"VQoPS {oc:g}")
    ax.bar(x + 3 * 0.13, [100 * r.dvqops for r in rows], 0.13, label="DVQoPS", color="black")
    ax.set_xticks(x, labels, rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("revenue vs QoPS (%)")
    ax.axhline(0, color="grey", lw=0.8)
    ax.legend(fontsize=7, ncol=4)
    fig.tight_layout()
    fig.savefig(path)


def choices_chart(path: Path, results, traces, segment="first") -> None:
    """DVQoPS's OC-factor and window over time (C = 10, U = 80 %, high load); the window axis
    is made with the first trajectory drawn, whichever trace has it."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8, 4.2), dpi=110)
    ax = fig.add_subplot()
    ax2 = None
    for trace in traces:
        r = results.get(f"{scenario_name(trace, 10, 0.8, 'high', 'exact', segment)}_DVQoPS")
        if r and r.get("trajectory"):
            tr = np.array(r["trajectory"])
            ax.step(tr[:, 0] / 86400, tr[:, 1], where="post", label=f"{trace} OC-factor")
            ax2 = ax.twinx() if ax2 is None else ax2
            ax2.step(tr[:, 0] / 86400, tr[:, 2], where="post", ls=":", label=f"{trace} window (h)")
            ax2.set_ylabel("rollback window (h)")
    ax.set_xlabel("day")
    ax.set_ylabel("OC-factor")
    ax.set_title("DVQoPS choices over time (C = 10, U = 80 %, high load)")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    fig.savefig(path)


def deadline_section(results) -> list[str]:
    missed = [(n, r["all"]["missed"]) for n, r in results.items() if r["all"]["missed"]]
    return [
        "",
        "## Deadline guarantee",
        "",
        f"Accepted jobs completing after their deadline, over all {len(results)} runs: "
        + ("**none**." if not missed else ", ".join(f"{n}: {m}" for n, m in missed)),
    ]


DIFFERENCES = """## Our readings where the paper is silent

* **QoPS.** The paper describes QoPS in one paragraph; ours tries positions 0, N/2, 3N/4,
  ..., N, accepts at the first feasible one, with at most K = 5 moves (`core/qops.py`).
* **VQoPS** keeps the feasible schedule of highest planned revenue and accepts a job when its
  revenue gain exceeds the OC-factor x its processor-seconds (the paper: "if the revenue gain
  obtainable can offset the opportunity cost"). At C = 2 a factor of 0.2 or more then turns
  every job away; Table 1's cells there are classed *depends on* that arithmetic.
  docs/qops.md measures a reading that accepts a gain equal to the cost.
* **DVQoPS's what-if simulations** start from the machine's state recorded at the window's
  start (running jobs until their known end, the accepted queue keeping its reservations),
  as the paper's rollback; jobs still running take their estimates (`core/dvqops.py`,
  `what_if_start`; `empty` starts them from an empty machine). At high load they lean toward
  low factors (the section "DVQoPS at high load" above; docs/qops.md measures why).
* **Table 2's OC-factor variance** is computed over groups of 5 consecutive changes of the
  factor; the paper's exact definition (and its scale, x1e-5) is not given, so only the
  trend across windows compares.{table2_revenue}
* **Traces.** Cleaned PWA logs, {parts}; prices on the estimates; {seeds} draws of the urgent
  (and duplicated) jobs per scenario.
"""


def differences(jobs: int, segments, results, seeds: int = 1) -> str:
    """The closing section: why our numbers differ, with the part of the traces replayed and
    how Table 2's revenue goes with the window (on the first of ``segments``)."""
    revenue = {w: r["all"]["revenue"] for w in WINDOWS_H if (r := results.get(table2_run(w, segments[0])))}
    if len(revenue) < 2:
        table2 = ""
    else:
        first, last = min(revenue), max(revenue)
        table2 = (
            f" Revenue (seed 1): {revenue[first] / 1e6:,.1f} M at {first} h, {revenue[last] / 1e6:,.1f} M at {last} h "
            f"({min(revenue.values()) / 1e6:,.1f} to {max(revenue.values()) / 1e6:,.1f} M over the windows); "
            f"the paper's grows from {PAPER_TABLE2[1][2] / 1e6:,.0f} M at 1 h to {PAPER_TABLE2[64][2] / 1e6:,.0f} M at "
            f"64 h ({PAPER_TABLE2[128][2] / 1e6:,.0f} M at 128 h)."
        )
    return DIFFERENCES.format(
        parts=" and ".join(segment_text(s, jobs) for s in segments), table2_revenue=table2, seeds=seeds
    )
