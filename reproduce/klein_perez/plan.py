"""What ``reproduce klein-perez`` runs: every test under the six variants through the engine
(the ``evolving`` plugin, its ``_jobs.csv`` folded per application by
:mod:`adaptsched.analysis.evolving`), the same in-process (the cross-check, and Algorithm 2's
time), and the n_max calibration.

Klein & Pérez (RR-7205) sec. 5.1: 1,000 tests of 15-20 applications (:mod:`adaptsched.workloads.evolving`),
each scheduled offline by CBF and the five variants of Algorithm 2; the metrics are
:mod:`adaptsched.analysis.evolving`'s, relative ones to the same test's CBF. *Time* is the wall
time of Algorithm 2 (fits and compacting included) for one test, in-process.

**n_max** is not in the paper. It is calibrated on two cells of Table 1 (CBF's utilisation,
40 %, and nos's makespan, .65) over :data:`CALIBRATION_FINE` (100 to 105 nodes), the coarse
grid :data:`CALIBRATION_COARSE` showing where that lies: :func:`choose_n_max`. Those two
cells are then not counted as independent evidence (:mod:`.findings`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence

from adaptsched.analysis.evolving import PER_APPLICATION, plan_metrics
from adaptsched.core.evolving import FitStats, Planner, Scheduled, schedule
from adaptsched.reproduce.common import cpu_seconds, span_seconds

VARIANTS = ("cbf", "nos", "mic", "mic+c", "inf", "inf+c")
#: n_max tried by the calibration: the fine grid chosen from, and a coarse one around it.
CALIBRATION_FINE = (100, 101, 102, 103, 104, 105)
CALIBRATION_COARSE = (75, 90, 110, 128)
#: The cells n_max is calibrated on: (variant, metric) -> the paper's average.
CALIBRATED_ON = {("cbf", "utilisation_pct"): 40.0, ("nos", "makespan"): 0.65}
#: Compared within 1e-6: the metrics an engine run must reproduce (all but the time).
ENGINE_METRICS = ("waste_pct", "reservation", "utilisation_pct", "makespan", "avg_jct", "avg_jwt", "stretches_pct")
SAME = 1e-6


def plans_of(
    apps: Sequence, hosts: int, variant: str, *, stretch_limit: float | None = None, stats: FitStats | None = None
) -> list[Scheduled]:
    """Algorithm 2's plan of one test under a variant; ``stretch_limit`` overrides the
    variant's l (a wrong reading: tests/test_wrong_readings.py)."""
    if stretch_limit is None:
        return schedule(apps, hosts, variant, stats=stats)
    planner = Planner(hosts, variant, stretch_limit=stretch_limit)
    return [planner.place(stages) for stages in apps]


def schedule_test(
    apps: Sequence, hosts: int, stats: FitStats | None = None, limits: Mapping[str, float] | None = None
) -> dict[str, tuple[list[Scheduled], float]]:
    """Every variant's plan of one test, with Algorithm 2's wall time in ms; ``limits``:
    stretch limits overriding some variants' (a wrong reading)."""
    out = {}
    for variant in VARIANTS:
        begin = time.perf_counter()
        limit = (limits or {}).get(variant)
        plans = plans_of(apps, hosts, variant, stretch_limit=limit, stats=stats if variant.endswith("+c") else None)
        out[variant] = (plans, 1000.0 * (time.perf_counter() - begin))
    return out


def in_process(
    tests: Sequence, hosts: int, progress=None, limits: Mapping[str, float] | None = None
) -> tuple[dict[str, list[dict]], list[dict], FitStats]:
    """({variant: per-test metrics}, CSV rows (one per test and variant), compacting's stats)."""
    results: dict[str, list[dict]] = {v: [] for v in VARIANTS}
    rows = []
    stats = FitStats()
    for number, apps in enumerate(tests, start=1):
        plans = schedule_test(apps, hosts, stats, limits)
        cbf = plans["cbf"][0]
        for variant, (scheduled, ms) in plans.items():
            metrics = plan_metrics(scheduled, cbf, hosts)
            metrics["time_ms"] = ms
            results[variant].append(metrics)
            rows.append(csv_row(number, variant, metrics))
        if progress:
            progress(number)
    return results, rows, stats


def csv_row(test: int, variant: str, metrics: Mapping) -> dict:
    """One row of ``per_test.csv``: a test under a variant, its per-test metrics."""
    row = {"test": test, "variant": variant}
    row.update({k: v for k, v in metrics.items() if k not in PER_APPLICATION})
    return row


# -- n_max ---------------------------------------------------------------------------------------
def calibration(tests: Sequence, sizes: Sequence[int] = CALIBRATION_FINE + CALIBRATION_COARSE) -> list[dict]:
    """Mean CBF utilisation and nos makespan (relative) for each n_max (the paper: 40 and .65),
    in-process, sorted by n_max."""
    out = []
    for hosts in sorted(sizes):
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
    for row in out:
        row["distance"] = calibration_distance(row)
    return out


def calibration_distance(row: Mapping[str, float]) -> float:
    """How far an n_max's two calibration cells lie from the paper's, each in units of half the
    paper's last printed digit (40 %: 0.5 point; .65: 0.005): the root of the sum of squares."""
    u = (row["cbf_utilisation_pct"] - CALIBRATED_ON[("cbf", "utilisation_pct")]) / 0.5
    m = (row["nos_makespan"] - CALIBRATED_ON[("nos", "makespan")]) / 0.005
    return float((u * u + m * m) ** 0.5)


def choose_n_max(rows: Sequence[Mapping[str, float]], grid: Sequence[int] = CALIBRATION_FINE) -> int:
    """The n_max of ``grid`` whose calibration cells are nearest the paper's (the smallest of
    equals)."""
    candidates = [r for r in rows if r["hosts"] in grid]
    if not candidates:
        raise ValueError(f"no calibration row for n_max in {list(grid)}")
    return int(min(candidates, key=lambda r: (calibration_distance(r), r["hosts"]))["hosts"])


# -- the engine runs -------------------------------------------------------------------------------
def engine_runs(count: int) -> list[tuple[str, int, str]]:
    """(run name, test number, variant) of every engine run of the first ``count`` tests."""
    return [(run_name(t, v), t, v) for t in range(1, count + 1) for v in VARIANTS]


def run_name(test: int, variant: str) -> str:
    return f"test{test:04d}_{variant.replace('+', '_')}"


def analyse_run(prefix: str, options: dict, workload: str) -> dict:
    """An engine run folded per application (:func:`adaptsched.analysis.evolving.fold_run`):
    the applications as they ran (``applications``: [start, [[d', n], ...]] each, from the
    ``_jobs.csv``), and checked against the in-process plan: every copy as planned within 1e-6 s
    and C2-C4 (``problems``), :func:`~adaptsched.analysis.invariants.check_invariants`
    (``violations``), and the folded metrics against the in-process ones, with the run's own CBF
    replaced by the plan's (``metrics_differ``)."""
    from adaptsched.analysis.evolving import fold_run
    from adaptsched.analysis.invariants import check_invariants
    from adaptsched.analysis.jobs import read_jobs_csv
    from adaptsched.reproduce.common import worker_cpu
    from adaptsched.workloads.evolving import read_test

    with open(workload) as handle:
        w = json.load(handle)
    hosts, apps, variant = int(w["nb_res"]), read_test(w), options["variant"]
    limit = options.get("stretch_limit") or None
    plans = plans_of(apps, hosts, variant, stretch_limit=limit)
    cbf = schedule(apps, hosts, "cbf")
    raw = read_jobs_csv(f"{prefix}_jobs.csv")
    folded = fold_run(raw, w, plans)
    expected = plan_metrics(plans, cbf, hosts)
    got = plan_metrics(folded.applications, cbf, hosts) if not folded.problems else {}
    differ = [
        f"{k}: {got.get(k)} vs {expected[k]}"
        for k in ENGINE_METRICS + PER_APPLICATION
        if not got or not _close(got[k], expected[k])
    ]
    return {
        **worker_cpu(),
        "variant": variant,
        "problems": folded.problems,
        "violations": check_invariants(raw, hosts),
        "metrics_differ": differ,
        "copies": int((raw["metadata"].str.contains("parent_job")).sum()),
        "hold_node_s": sum(folded.hold_node_s),
        "applications": [[s.start_s, [list(st) for st in s.stages]] for s in folded.applications],
    }


def ran_as(result: Mapping, apps: Sequence) -> list[Scheduled] | None:
    """The applications of an engine run's result (:func:`analyse_run`), with their requests."""
    ran = result.get("applications")
    if not ran or len(ran) != len(apps) or result.get("problems"):
        return None
    return [
        Scheduled(float(start), tuple((float(d), int(n)) for d, n in stages), tuple((float(d), int(n)) for d, n in req))
        for (start, stages), req in zip(ran, apps)
    ]


def engine_metrics(
    results: Mapping[str, Mapping], tests: Sequence, hosts: int
) -> tuple[dict[str, list[dict]], list[str]]:
    """({variant: per-test metrics}) of the engine runs, each relative to the same test's CBF
    *run*, and the tests that could not be folded (named); every number comes from the runs'
    ``_jobs.csv`` (no ``time_ms``: Algorithm 2's time is in-process)."""
    out: dict[str, list[dict]] = {v: [] for v in VARIANTS}
    missing = []
    for number, apps in enumerate(tests, start=1):
        ran = {v: ran_as(results.get(run_name(number, v), {}), apps) for v in VARIANTS}
        bad = [v for v, r in ran.items() if r is None]
        if bad:
            missing.append(f"test {number}: {', '.join(bad)}")
            continue
        for v in VARIANTS:
            out[v].append(plan_metrics(ran[v], ran["cbf"], hosts))  # type: ignore[arg-type]
    return out, missing


def cross_check(engine: Mapping[str, list[dict]], in_proc: Mapping[str, list[dict]]) -> dict:
    """The engine's per-test metrics against the in-process ones, test by test (the same
    tests in the same order): how many (test, variant) pairs agree on every metric within
    1e-6, of how many, and the largest difference of each metric."""
    pairs = agree = 0
    largest: dict[str, float] = {}
    for v in VARIANTS:
        for got, want in zip(engine.get(v, []), in_proc.get(v, [])):
            pairs += 1
            same = True
            for k in ENGINE_METRICS + PER_APPLICATION:
                diff = _largest_difference(got[k], want[k])
                largest[k] = max(largest.get(k, 0.0), diff)
                same &= diff <= SAME * max(1.0, _magnitude(want[k]))
            agree += same
    return {"pairs": pairs, "agree": agree, "largest": largest}


def _largest_difference(a, b) -> float:
    if isinstance(a, list):
        if len(a) != len(b):
            return float("inf")
        return max((abs(x - y) for x, y in zip(a, b)), default=0.0)
    if a != a and b != b:  # both NaN: a relative JWT where CBF waits for nothing
        return 0.0
    return abs(a - b)


def _magnitude(x) -> float:
    return max((abs(v) for v in x), default=0.0) if isinstance(x, list) else abs(x) if x == x else 0.0


def _close(a, b) -> bool:
    return _largest_difference(a, b) <= SAME * max(1.0, _magnitude(b))


def engine_summary(plan: Sequence[tuple[str, int, str]], results: Mapping[str, Mapping]) -> dict:
    """How the engine runs of ``plan`` went: runs, copies, how many ran as planned (C2-C4),
    met the invariants, and folded to the in-process metrics; the first failures, named."""
    failures: list[str] = []
    copies = as_planned = sound = equal = 0
    for name, _, _ in plan:
        r = results.get(name)
        if r is None or "error" in r:
            failures.append(f"{name}: {(r or {}).get('error', 'not run')}")
            continue
        copies += r["copies"]
        as_planned += not r["problems"]
        sound += not r["violations"]
        equal += not r["metrics_differ"]
        for key in ("problems", "violations", "metrics_differ"):
            failures += [f"{name}: {p}" for p in r[key][:3]]
    run_s = sum(r.get("wall_s", 0.0) for r in results.values())
    done = [results[name] for name, _, _ in plan if name in results]
    return {
        "cpu_s": cpu_seconds(done),
        "span_s": span_seconds(done),
        "tests": len(plan) // len(VARIANTS),
        "runs": len(plan),
        "copies": copies,
        "as_planned": as_planned,
        "sound": sound,
        "equal": equal,
        "failures": failures,
        "run_s": run_s,
    }
