"""What ``reproduce klein-perez`` runs: the in-process grid (every test under the six variants),
the n_max calibration, and the engine check (the first tests through the ``evolving`` plugin).

Klein & Pérez (RR-7205) sec. 5.1: 1,000 tests of 15-20 applications (:mod:`adaptsched.workloads.evolving`),
each scheduled offline by CBF and the five variants of Algorithm 2; the metrics are
:mod:`adaptsched.analysis.evolving`'s, relative ones to the same test's CBF. *Time* is the wall
time of Algorithm 2 (fits and compacting included) for one test, in-process.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence

from adaptsched.analysis.evolving import PER_APPLICATION, plan_metrics
from adaptsched.core.evolving import FitStats, Scheduled, schedule

VARIANTS = ("cbf", "nos", "mic", "mic+c", "inf", "inf+c")
#: n_max tried by the calibration (the paper does not state its own).
CALIBRATION_HOSTS = (75, 90, 100, 110, 128)
#: Compared within 1e-6: the metrics an engine run must reproduce (all but the time).
ENGINE_METRICS = ("waste_pct", "reservation", "utilisation_pct", "makespan", "avg_jct", "avg_jwt", "stretches_pct")


def schedule_test(
    apps: Sequence, hosts: int, stats: FitStats | None = None
) -> dict[str, tuple[list[Scheduled], float]]:
    """Every variant's plan of one test, with Algorithm 2's wall time in ms."""
    out = {}
    for variant in VARIANTS:
        begin = time.perf_counter()
        plans = schedule(apps, hosts, variant, stats=stats if variant.endswith("+c") else None)
        out[variant] = (plans, 1000.0 * (time.perf_counter() - begin))
    return out


def in_process(tests: Sequence, hosts: int, progress=None) -> tuple[dict[str, list[dict]], list[dict], FitStats]:
    """({variant: per-test metrics}, CSV rows (one per test and variant), compacting's stats)."""
    results: dict[str, list[dict]] = {v: [] for v in VARIANTS}
    rows = []
    stats = FitStats()
    for number, apps in enumerate(tests, start=1):
        plans = schedule_test(apps, hosts, stats)
        cbf = plans["cbf"][0]
        for variant, (scheduled, ms) in plans.items():
            metrics = plan_metrics(scheduled, cbf, hosts)
            metrics["time_ms"] = ms
            results[variant].append(metrics)
            row = {"test": number, "variant": variant}
            row.update({k: v for k, v in metrics.items() if k not in PER_APPLICATION})
            rows.append(row)
        if progress:
            progress(number)
    return results, rows, stats


def calibration(tests: Sequence, sizes: Sequence[int] = CALIBRATION_HOSTS) -> list[dict]:
    """Mean CBF utilisation and nos makespan (relative) for each n_max (the paper: 40 and .65)."""
    out = []
    for hosts in sizes:
        util, makespan = [], []
        for apps in tests:
            cbf = schedule(apps, hosts, "cbf")
            nos = schedule(apps, hosts, "nos")
            util.append(plan_metrics(cbf, cbf, hosts)["utilisation_pct"])
            makespan.append(plan_metrics(nos, cbf, hosts)["makespan"])
        out.append(
            {
                "hosts": hosts,
                "cbf_utilisation_pct": sum(util) / len(util),
                "nos_makespan": sum(makespan) / len(makespan),
            }
        )
    return out


def engine_runs(count: int) -> list[tuple[str, int, str]]:
    """(run name, test number, variant) of the engine check."""
    return [(f"test{t:04d}_{v.replace('+', '_')}", t, v) for t in range(1, count + 1) for v in VARIANTS]


def analyse_run(prefix: str, options: dict, workload: str) -> dict:
    """An engine run against its in-process plan: the run folded per application
    (:func:`adaptsched.analysis.evolving.fold_run`) must follow the plan within 1e-6 s and meet
    C2-C4, the schedule meet :func:`~adaptsched.analysis.invariants.check_invariants`, and the
    folded metrics equal the in-process ones."""
    from adaptsched.analysis.evolving import fold_run
    from adaptsched.analysis.invariants import check_invariants
    from adaptsched.analysis.jobs import read_jobs_csv
    from adaptsched.workloads.evolving import read_test

    with open(workload) as handle:
        w = json.load(handle)
    hosts, apps, variant = int(w["nb_res"]), read_test(w), options["variant"]
    plans = schedule(apps, hosts, variant)
    cbf = schedule(apps, hosts, "cbf")
    raw = read_jobs_csv(f"{prefix}_jobs.csv")
    folded = fold_run(raw, w, plans)
    expected = plan_metrics(plans, cbf, hosts)
    got = plan_metrics(folded.applications, cbf, hosts) if not folded.problems else {}
    differ = [
        f"{k}: {got.get(k)} vs {expected[k]}"
        for k in ENGINE_METRICS + ("job_stretch_pct", "job_waste_pct")
        if not got or not _close(got[k], expected[k])
    ]
    return {
        "variant": variant,
        "problems": folded.problems,
        "violations": check_invariants(raw, hosts),
        "metrics_differ": differ,
        "copies": int((raw["metadata"].str.contains("parent_job")).sum()),
        "hold_node_s": sum(folded.hold_node_s),
    }


def _close(a, b) -> bool:
    if isinstance(a, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    return abs(a - b) <= 1e-6 * max(1.0, abs(b))
