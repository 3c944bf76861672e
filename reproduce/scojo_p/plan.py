"""The grid of ``adaptsched reproduce scojo-p``: Barsanti & Sodan (sec. 5), and what each run
measures.

Workloads (sec. 5.2, Table 1): the Lublin-Feitelson model, typeless, 128
hosts, ``jobs`` jobs, alpha' (AARR) 10.23 (W1) or 9.83 (W2)
(:func:`adaptsched.workloads.lublin.generate`), exact runtime estimates (``estimates --model
exact``: ``estimate_s`` = the runtime, walltime one second more), a fraction f of the jobs
moldable with SCOJO-P's speedup model (:func:`adaptsched.workloads.moldable.annotate`, one
draw per job), or for Fig. 14 Downey's model with A log-uniform up to ``a_max``.
Evaluation seeds are 1..``seeds``; SCOJO-P's arrival statistics
(:mod:`adaptsched.workloads.scojo_stats`) come from seeds 101-104 of the same kind of
workload, never the evaluated ones.

Variants: ``trad`` (scojo-trad), ``scojo-p`` (predictive, with the statistics), ``non-pred``
(scojo-p, prediction=false), ``cb`` (cirne-berman, the paper's rule), ``cb-idle``
(cirne-berman, expand=idle: ours, not the paper's; its own rows, never in place of ``cb``).
Studies, in the order they run (the main study first, so that an interrupted reproduction
has it whole), on seeds 1..``seeds`` or 1..``side_seeds`` (side studies):

* ``main``: W1, f = 1, the four paper variants (Figs 5-9);
* ``idle``: ``cb-idle`` on W1;
* ``sensitivity``: W1, f = 1, scojo-p and cb with E(N_max) 0.5 and 0.65 instead of Table 1's
  0.4, and with the efficiency interpolated instead of the speedup (``side_seeds``; the
  traditional frame runs every job rigid at N_opt, so main's traditional runs are its
  baseline: by construction the same schedules);
* ``target``: W1, f = 1, scojo-p with ideal load 0.7, 0.8, 0.9 (main's run), 1.0
  (``side_seeds``);
* ``w2``: W2, f = 1, the four paper variants and ``cb-idle`` (Figs 10-13; ``side_seeds``);
* ``fraction``: W1, f = 0.8 and 0.9, the four paper variants (``side_seeds``);
* ``downey``: W1, f = 1, Downey's model, the four paper variants, at most 2 seeds (Fig. 14).

Each run is analysed by :func:`adaptsched.analysis.scojo.scojo_metrics` (5 % and 10 % cuts)
and checked: the engine-level invariants and every molded row's runtime (sec. 8.5).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HOSTS = 128
AARR = {"W1": 10.23, "W2": 9.83}
STATS_SEEDS = (101, 102, 103, 104)
STUDIES = ("main", "idle", "sensitivity", "target", "w2", "fraction", "downey")
VARIANTS: dict[str, tuple[str, dict[str, Any]]] = {
    "trad": ("scojo-trad", {}),
    "scojo-p": ("scojo-p", {}),
    "non-pred": ("scojo-p", {"prediction": False}),
    "cb": ("cirne-berman", {}),
    "cb-idle": ("cirne-berman", {"expand": "idle"}),
}
#: The paper's four variants (``cb-idle`` is ours).
PAPER_VARIANTS = ("trad", "scojo-p", "non-pred", "cb")
FRACTIONS = (0.8, 0.9)
IDEAL_LOADS = (0.7, 0.8, 0.9, 1.0)
#: The sensitivity study's models: (E(N_max), interpolation) beside Table 1's (0.4, speedup).
SENSITIVITY = ((0.5, "speedup"), (0.65, "speedup"), (0.4, "efficiency"))
E_MAX, INTERPOLATION = 0.4, "speedup"  # Table 1's


@dataclass(frozen=True)
class Kind:
    """A kind of workload: W1/W2, moldable fraction, speedup model."""

    load: str = "W1"
    fraction: float = 1.0
    model: str = "scojo-p"
    e_max: float = E_MAX
    interpolation: str = INTERPOLATION

    @property
    def label(self) -> str:
        model = "" if self.model == "scojo-p" else f"_{self.model}"
        shape = "" if self.e_max == E_MAX else f"_emax{self.e_max:g}"
        shape += "" if self.interpolation == INTERPOLATION else f"_{self.interpolation}"
        return f"{self.load}_f{self.fraction:g}{model}{shape}"

    @property
    def efficiencies(self) -> tuple[float, float, float]:
        return (0.8, 0.65, self.e_max)


@dataclass(frozen=True)
class Run:
    name: str
    study: str
    variant: str
    kind: Kind
    seed: int
    options: dict = field(hash=False, default_factory=dict)

    @property
    def scheduler(self) -> str:
        return VARIANTS[self.variant][0]


def runs(studies, seeds: int, side_seeds: int | None = None) -> list[Run]:
    """Every run of the chosen studies (runs shared between studies listed once), in the
    order of :data:`STUDIES`; side studies on seeds 1..``side_seeds`` (default ``seeds``)."""
    out: dict[str, Run] = {}
    side = min(seeds if side_seeds is None else side_seeds, seeds)

    def add(study: str, variant: str, kind: Kind, seed: int, **extra) -> None:
        options = {**VARIANTS[variant][1], **extra}
        suffix = "".join(f"_{k}{v:g}" for k, v in extra.items())
        name = f"{kind.label}_{variant}{suffix}_seed{seed}"
        out.setdefault(name, Run(name, study, variant, kind, seed, options))

    for study in STUDIES:
        if study not in studies:
            continue
        for seed in range(1, seeds + 1):
            _study_runs(add, study, seed, seed <= side)
    return list(out.values())


def _study_runs(add, study: str, seed: int, side: bool) -> None:
    """The runs of ``study`` on ``seed`` (``side``: the seed is one of the side studies')."""
    if study == "main":
        for v in PAPER_VARIANTS:
            add(study, v, Kind("W1"), seed)
    elif study == "idle":
        add(study, "cb-idle", Kind("W1"), seed)
    elif study == "target" and side:
        for ideal in IDEAL_LOADS:
            if ideal == 0.9:
                add(study, "scojo-p", Kind("W1"), seed)
            else:
                add(study, "scojo-p", Kind("W1"), seed, ideal_load=ideal)
    elif study == "sensitivity" and side:
        for e_max, interpolation in SENSITIVITY:
            for v in ("scojo-p", "cb"):
                add(study, v, Kind("W1", e_max=e_max, interpolation=interpolation), seed)
    elif study == "w2" and side:
        for v in (*PAPER_VARIANTS, "cb-idle"):
            add(study, v, Kind("W2"), seed)
    elif study == "fraction" and side:
        for f in FRACTIONS:
            for v in PAPER_VARIANTS:
                add(study, v, Kind("W1", f), seed)
    elif study == "downey" and side and seed <= 2:
        for v in PAPER_VARIANTS:
            add(study, v, Kind("W1", 1.0, "downey"), seed)


def base_workload(load: str, seed: int, jobs: int) -> dict:
    """The Lublin-Feitelson workload W1 or W2 of ``seed``, with exact runtime estimates."""
    from adaptsched.workloads.estimates import annotate
    from adaptsched.workloads.lublin import generate

    workload = generate(jobs, hosts=HOSTS, mode="typeless", aarr=AARR[load], seed=seed)
    return annotate(workload, model="exact")[0]


def workload(kind: Kind, seed: int, inputs: Path, *, jobs: int, a_max: str) -> Path:
    """The annotated workload of ``kind`` and ``seed`` (written once into ``inputs``)."""
    from adaptsched.workloads.convert import write_workload
    from adaptsched.workloads.moldable import annotate

    tail = f"_a{a_max}" if kind.model == "downey" else ""
    path = inputs / f"{kind.label}{tail}_seed{seed}_{jobs}.json"
    if not path.is_file():
        base = base_workload(kind.load, seed, jobs)
        shape: dict[str, Any] = (
            {"efficiencies": kind.efficiencies, "interpolation": kind.interpolation} if kind.model == "scojo-p" else {}
        )
        annotated, _ = annotate(base, model=kind.model, fraction=kind.fraction, seed=seed, a_max=a_max, **shape)
        write_workload(annotated, path)
    return path


def stats_file(kind: Kind, inputs: Path, *, jobs: int, a_max: str) -> Path:
    """SCOJO-P's arrival statistics for ``kind``, from seeds 101-104."""
    import json

    from adaptsched.workloads.scojo_stats import scojo_stats

    tail = f"_a{a_max}" if kind.model == "downey" else ""
    path = inputs / f"stats_{kind.label}{tail}_{jobs}.json"
    if not path.is_file():
        paths = [workload(kind, s, inputs, jobs=jobs, a_max=a_max) for s in STATS_SEEDS]
        stats = scojo_stats([json.loads(p.read_text()) for p in paths], names=[p.name for p in paths])
        path.write_text(json.dumps(stats, indent=1))
    return path


def prepare_runs(plan: list[Run], inputs: Path, *, jobs: int, a_max: str) -> list[tuple[Run, dict, str]]:
    """(run, its scheduler options, its workload path) of every run; predictive SCOJO-P runs
    get the statistics of their kind of workload."""
    out = []
    for run in plan:
        options = dict(run.options)
        if run.scheduler == "scojo-p" and options.get("prediction", True):
            options["stats"] = str(stats_file(run.kind, inputs, jobs=jobs, a_max=a_max))
        out.append((run, options, str(workload(run.kind, run.seed, inputs, jobs=jobs, a_max=a_max))))
    return out


def analyse_run(prefix: str, options: dict, workload: str) -> dict:
    import json

    from adaptsched.analysis.invariants import check_invariants
    from adaptsched.analysis.jobs import read_jobs_csv
    from adaptsched.analysis.scojo import molded_row_violations, scojo_metrics

    w = json.loads(Path(workload).read_text())
    out = scojo_metrics(prefix, w, cut=0.05)
    out.pop("source", None)
    ten = scojo_metrics(prefix, w, cut=0.10)
    out["cut10"] = {"utilization": ten["utilization"], "classes": ten["classes"]}
    out["violations"] = check_invariants(read_jobs_csv(f"{prefix}_jobs.csv"), int(w["nb_res"]))
    out["violations"] += molded_row_violations(prefix, w)
    return out
