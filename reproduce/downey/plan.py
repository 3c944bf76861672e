"""The grid of ``adaptsched reproduce downey``: Downey (1996), Table 1 and Figures 11, 12
and 13, and what each run measures.

Workloads come from :mod:`adaptsched.workloads.downey` (64 processors, ``days`` simulated
days each, one workload per offered load and seed); the ``downey`` scheduler
(:mod:`adaptsched.core.allocation`) runs every strategy through the engine; the metrics are
:mod:`adaptsched.analysis.downey`'s.

* Table 1: greedy strategies at rho = 0.75;
* Figure 11: utilization vs offered load (0.5 to 1.0), stubborn and greedy;
* Figure 12: mean cluster size vs offered load (same runs);
* Figure 13: hybrid strategies, minimum fraction c from 0 to 1, at rho = 0.75;

each on ``seeds`` workloads (one per offered load and seed): means over the seeds, and every
claim paired seed by seed (:mod:`.findings`).
"""

from __future__ import annotations

from pathlib import Path

STRATEGIES = ("SEV", "AVG", "PWS", "MAX", "ASP")
LOADS = (0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
FRACTIONS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
COLUMNS = ("load", "utilization", "turnaround_s", "queue_s", "cluster_size", "cluster_cv", "slowdown_p90")


def analyse_run(prefix: str, options: dict, workload: str) -> dict:
    from adaptsched.analysis.downey import downey_metrics, read_workload
    from adaptsched.analysis.invariants import check_invariants
    from adaptsched.analysis.jobs import read_jobs_csv

    w = read_workload(workload)
    metrics = downey_metrics(prefix, w)
    metrics["violations"] = check_invariants(read_jobs_csv(f"{prefix}_jobs.csv"), int(w["nb_res"]))
    return metrics


def runs(seeds: int):
    """(name, options, load, seed, study) of every run: Table 1, Figure 11 and Figure 13 on
    each of ``seeds`` workloads (a workload per offered load and seed), so that every claim
    is paired seed by seed on the same workload."""
    out = []
    for seed in range(1, seeds + 1):
        for strategy in STRATEGIES:
            out.append((f"table1_{strategy}_seed{seed}", {"strategy": strategy, "load": 0.75}, 0.75, seed, "table1"))
        for load in LOADS:
            for mode in ("stubborn", "greedy"):
                for strategy in STRATEGIES:
                    if strategy == "ASP" and mode == "stubborn":
                        continue  # ASP is inherently greedy
                    out.append(
                        (
                            fig11_run(mode, strategy, load, seed),
                            {"strategy": strategy, "mode": mode, "load": load},
                            load,
                            seed,
                            f"fig11-{mode}",
                        )
                    )
        for c in FRACTIONS:
            for strategy in STRATEGIES[:4]:
                out.append(
                    (
                        fig13_run(strategy, c, seed),
                        {"strategy": strategy, "mode": "hybrid", "min_fraction": c, "load": 0.75},
                        0.75,
                        seed,
                        "fig13",
                    )
                )
    return out


def table1_run(strategy: str, seed: int) -> str:
    return f"table1_{strategy}_seed{seed}"


def fig11_run(mode: str, strategy: str, load: float, seed: int) -> str:
    """Seed 1 keeps the name runs had before Figure 11 ran on every seed (results reused)."""
    return f"fig11_{mode}_{strategy}_rho{load:g}" + ("" if seed == 1 else f"_seed{seed}")


def fig13_run(strategy: str, c: float, seed: int) -> str:
    return f"fig13_{strategy}_c{c:g}" + ("" if seed == 1 else f"_seed{seed}")


def workloads(plan, inputs: Path, *, days: int, hosts: int) -> dict:
    """{(load, seed): path} of the generated workload of every run of ``plan``, each written
    once into ``inputs``."""
    from adaptsched.workloads.convert import write_workload
    from adaptsched.workloads.downey import generate

    out = {}
    for _, _, load, seed, _ in plan:
        key = (load, seed)
        if key not in out:
            path = inputs / f"downey_rho{load:g}_seed{seed}_{days}d.json"
            if not path.is_file():
                write_workload(generate(days, load, hosts=hosts, seed=seed), path)
            out[key] = str(path)
    return out
