"""The grid of ``adaptsched reproduce downey``: Downey (1996), Table 1 and Figures 11, 12, 13
and 15, and what each run measures.

Workloads come from :mod:`adaptsched.workloads.downey` (64 processors, ``days`` simulated
days each, one workload per offered load and seed); the ``downey`` scheduler
(:mod:`adaptsched.core.allocation`) runs every strategy through the engine; the metrics are
:mod:`adaptsched.analysis.downey`'s.

Days run *apart* (each on an empty machine, as the paper's "day-long simulated runs", sec. 4
and Figure 11) for every study; some runs are repeated on the same jobs with the days
*chained* (a day's backlog still there the next morning), to measure what chaining changes:

* Table 1: greedy strategies at rho = 0.75 (apart and chained);
* Figure 11: utilization vs offered load (0.5 to 1.0), stubborn and greedy, on
  ``fig11_seeds`` workloads (the paper: 1,200 days per point, 10 workloads of 120 days); its
  stubborn runs and ASP also chained, on ``seeds`` workloads (sec. 6.1's ratios of stubborn
  turnaround to ASP's, both ways);
* Figure 12: mean cluster size vs offered load (the same runs);
* Figure 13: hybrid strategies, minimum fraction c from 0 to 1, at rho = 0.75;
* Figure 15 (sec. 6.5): the variance-insensitive SSEV and 3/2 AVG, greedy, at every load
  (their counterparts SEV and PWS are Figure 11's greedy runs);

each on ``seeds`` workloads (one per offered load and seed): every claim is paired seed by
seed (:mod:`.findings`).
"""

from __future__ import annotations

from pathlib import Path

STRATEGIES = ("SEV", "AVG", "PWS", "MAX", "ASP")
#: Sec. 6.5: the variance-insensitive strategy of each variance-sensitive one.
INSENSITIVE = {"SEV": "SSEV", "PWS": "3/2AVG"}
LOADS = (0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
FRACTIONS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
COLUMNS = ("load", "utilization", "turnaround_s", "queue_s", "cluster_size", "cluster_cv", "slowdown_p90")
#: How a workload's days follow one another (:func:`adaptsched.workloads.downey.generate`).
APART, CHAINED = "apart", "chained"


def analyse_run(prefix: str, options: dict, workload: str) -> dict:
    from adaptsched.analysis.downey import downey_metrics, read_workload
    from adaptsched.analysis.invariants import check_invariants
    from adaptsched.analysis.jobs import read_jobs_csv

    w = read_workload(workload)
    metrics = downey_metrics(prefix, w)
    metrics["violations"] = check_invariants(read_jobs_csv(f"{prefix}_jobs.csv"), int(w["nb_res"]))
    return metrics


def _suffix(seed: int, days: str) -> str:
    return f"_seed{seed}" + ("_chained" if days == CHAINED else "")


def table1_run(strategy: str, seed: int, days: str = APART) -> str:
    return f"table1_{strategy}{_suffix(seed, days)}"


def fig11_run(mode: str, strategy: str, load: float, seed: int, days: str = APART) -> str:
    return f"fig11_{mode}_{strategy}_rho{load:g}{_suffix(seed, days)}"


def fig13_run(strategy: str, c: float, seed: int) -> str:
    return f"fig13_{strategy}_c{c:g}{_suffix(seed, APART)}"


def fig15_run(strategy: str, load: float, seed: int) -> str:
    return f"fig15_{strategy.replace('/', '')}_rho{load:g}{_suffix(seed, APART)}"


def _fig11(seed: int, days: str, modes=("stubborn", "greedy"), strategies=STRATEGIES) -> list[tuple]:
    out = []
    for load in LOADS:
        for mode in modes:
            for strategy in strategies:
                if strategy == "ASP" and mode == "stubborn":
                    continue  # ASP is inherently greedy
                options = {"strategy": strategy, "mode": mode, "load": load}
                out.append((fig11_run(mode, strategy, load, seed, days), options, load, seed, f"fig11-{mode}", days))
    return out


def runs(seeds: int, fig11_seeds: int | None = None, only=None) -> list[tuple]:
    """(name, options, load, seed, study, days) of every run (module doc): Figure 11 on
    ``fig11_seeds`` workloads (default ``seeds``), everything else on ``seeds``, so that every
    claim is paired seed by seed on the same workload. ``only``: just the runs of these studies
    (``table1``, ``fig11-stubborn``, ``fig11-greedy``, ``fig13``, ``fig15``; ``-chained`` after
    a name for its runs with the days chained): a quick check of some claims."""
    out = _runs(seeds, fig11_seeds)
    if only is None:
        return out
    return [r for r in out if (r[4] if r[5] == APART else f"{r[4]}-{CHAINED}") in set(only)]


def _runs(seeds: int, fig11_seeds: int | None) -> list[tuple]:
    """Seed by seed, every study of a seed before the next seed's (an interrupted run has whole
    seeds done); Figure 11's seeds beyond ``seeds`` last."""
    fig11_seeds = max(seeds, fig11_seeds or seeds)
    out = []
    for seed in range(1, fig11_seeds + 1):
        out += _fig11(seed, APART)
        if seed > seeds:
            continue
        for days in (APART, CHAINED):
            for strategy in STRATEGIES:
                options = {"strategy": strategy, "load": 0.75}
                out.append((table1_run(strategy, seed, days), options, 0.75, seed, "table1", days))
        # sec. 6.1 chained: the stubborn strategies and ASP, whose turnaround the ratios divide by
        out += _fig11(seed, CHAINED, modes=("stubborn",), strategies=STRATEGIES[:4])
        out += _fig11(seed, CHAINED, modes=("greedy",), strategies=("ASP",))
        for c in FRACTIONS:
            for strategy in STRATEGIES[:4]:
                options = {"strategy": strategy, "mode": "hybrid", "min_fraction": c, "load": 0.75}
                out.append((fig13_run(strategy, c, seed), options, 0.75, seed, "fig13", APART))
        for load in LOADS:
            for strategy in INSENSITIVE.values():
                options = {"strategy": strategy, "mode": "greedy", "load": load}
                out.append((fig15_run(strategy, load, seed), options, load, seed, "fig15", APART))
    return out


def workload_path(inputs: Path, load: float, seed: int, days: int, how: str) -> Path:
    return inputs / f"downey_rho{load:g}_seed{seed}_{days}d{'' if how == CHAINED else '_apart'}.json"


def workloads(plan, inputs: Path, *, days: int, hosts: int) -> dict:
    """{(load, seed, apart or chained): path} of the generated workload of every run of ``plan``,
    each written once into ``inputs``; a seed draws the same jobs apart and chained."""
    from adaptsched.workloads.convert import write_workload
    from adaptsched.workloads.downey import generate

    out = {}
    for _, _, load, seed, _, how in plan:
        key = (load, seed, how)
        if key not in out:
            path = workload_path(inputs, load, seed, days, how)
            if not path.is_file():
                write_workload(generate(days, load, hosts=hosts, seed=seed, apart=how == APART), path)
            out[key] = str(path)
    return out
