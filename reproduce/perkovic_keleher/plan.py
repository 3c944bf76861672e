"""The grid of ``adaptsched reproduce perkovic-keleher``: the mixes of Perković & Keleher,
"Randomization, Speculation, and Adaptation in Batch Schedulers", on CTC-SP2, and what each
run measures.

Every technique is an option of the ``backfill`` scheduler (:mod:`adaptsched.core.backfill`);
this module only chooses the mixes and the runs, and says what each run measures (metrics and
the invariants of :mod:`adaptsched.analysis.invariants`); :mod:`.command` runs them and
:mod:`.report` writes the report.

Studies (BF = conservative backfilling = order ``D`` with guarantees):

* ``orders`` (sec. 5, Figures 3 and 4, Table 3): D, P, R, 1/L, P/L, R/L, each with
  guarantees and without (-NG);
* ``speculation`` (sec. 6, Figures 5 and 6): speculative backfilling at 25, 50 and 75 % of
  the estimate, without and with speculative test runs (3 h threshold, 5 to 15 min), on BF and
  on 1/L-NG (a deterministic no-guarantee mix, so that one run per point suffices);
* ``adaptation`` (sec. 7, Figures 7 and 8): half size, quarter size and greedy adaptation
  (regular, half, double) on BF and on 1/L-NG;
* ``combined`` (sec. 7, Figure 9): half size + start-time widening, without and with
  speculative backfilling (50 %), on BF and on R/L-NG;
* ``readings``: BF, P/L-NG and R/L-NG under each alternative reading of the
  paper's text (:data:`READINGS`, docs/perkovic-keleher.md "Readings"), beside the default
  reading (the ``orders`` study's runs; run here too when that study is not).

Randomized orders (P, R) run with ``seeds`` seeds (default 5): tables show the mean and the
spread (min to max).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

TRACE = "CTC-SP2"  # the paper's log, workloads/traces.py says where it comes from
PAPER_HOSTS = 430
SPECULATION_PCTS = (25.0, 50.0, 75.0)
STUDIES = ("orders", "speculation", "adaptation", "combined", "readings", "flurry")
#: The ``flurry`` study: the mixes whose numbers the paper states (sec. 5), on the
#: cleaned log and on the paper's workload (:mod:`.workloads`).
FLURRY_ORDERS = (("D", True), ("P/L", False), ("R/L", False))

#: Alternative readings of the paper's text (docs/perkovic-keleher.md, "Readings"): name ->
#: the ``backfill`` options that take it. Each acts on the -NG orders only (BF runs under
#: each as well, a check that it does not move).
READINGS: dict[str, dict[str, Any]] = {
    "starvation_weight=0": {"starvation_weight": 0.0},  # "a small constant": none at all
    "ng_passes=paper": {"ng_passes": "paper"},  # rebuild (redraw R) only at arrivals, early ends
    "priority_levels=1e9": {"priority_levels": 10**9},  # a real-valued P drawn once
    "all three": {"starvation_weight": 0.0, "ng_passes": "paper", "priority_levels": 10**9},
}
#: The orders the readings study runs: BF and the two whose gains the paper states (sec. 5).
READING_ORDERS = (("D", True), ("P/L", False), ("R/L", False))


def base_label(order: str, guarantees: bool) -> str:
    """An order's name in the paper's convention: BF, P, R, 1/L, P/L, R/L, with -NG."""
    return ("BF" if order == "D" and guarantees else order) + ("" if guarantees else "-NG")


@dataclass(frozen=True)
class Mix:
    """One scheduler configuration of the study: ``label`` as in the paper's figures."""

    label: str
    study: str
    order: str
    guarantees: bool = True
    speculation: float = 0.0
    test_runs: bool = False
    adaptation: str = "none"
    widening: bool = False
    reading: str = ""  # a key of READINGS; "" the default reading

    @property
    def base(self) -> str:
        return base_label(self.order, self.guarantees)

    @property
    def randomized(self) -> bool:
        return "P" in self.order or "R" in self.order

    def options(self, seed: int) -> dict:
        out = {"order": self.order, "guarantees": self.guarantees}
        if self.randomized:
            out["seed"] = seed
        if self.speculation:
            out["speculation"] = self.speculation
        if self.test_runs:
            out["test_runs"] = True
        if self.adaptation != "none":
            out["adaptation"] = self.adaptation
        if self.widening:
            out["widening"] = True
        if self.reading:
            out.update(READINGS[self.reading])
        return out

    def slug(self, seed: int | None) -> str:
        text = f"{self.study}_{self.label}".replace("/", "over").replace("+", "_")
        text = re.sub(r"[^A-Za-z0-9_.-]", "", text.replace(" ", "_"))
        return text + (f"_seed{seed}" if seed is not None else "")


def mixes(studies=STUDIES) -> list[Mix]:
    out = []
    if "orders" in studies:
        for guarantees in (True, False):
            for order in ("D", "P", "R", "1/L", "P/L", "R/L"):
                out.append(Mix(base_label(order, guarantees), "orders", order, guarantees))
    if "speculation" in studies:
        for order, guarantees in (("D", True), ("1/L", False)):
            base = base_label(order, guarantees)
            for tests in (False, True):
                for pct in SPECULATION_PCTS:
                    label = f"{base} spec {pct:g}%" + (" +test" if tests else "")
                    out.append(Mix(label, "speculation", order, guarantees, pct, tests))
    if "adaptation" in studies:
        for order, guarantees in (("D", True), ("1/L", False)):
            base = base_label(order, guarantees)
            for adaptation in ("half", "quarter", "greedy"):
                out.append(Mix(f"{base} {adaptation}", "adaptation", order, guarantees, adaptation=adaptation))
    if "combined" in studies:
        for order, guarantees in (("D", True), ("R/L", False)):
            base = base_label(order, guarantees)
            out.append(Mix(f"{base} half+widen", "combined", order, guarantees, adaptation="half", widening=True))
            out.append(
                Mix(
                    f"{base} half+widen+spec",
                    "combined",
                    order,
                    guarantees,
                    speculation=50.0,
                    adaptation="half",
                    widening=True,
                )
            )
    if "readings" in studies:
        for reading in ("", *READINGS):
            if reading or "orders" not in studies:  # the default reading: the orders study's runs
                for order, guarantees in READING_ORDERS:
                    label = base_label(order, guarantees) + (f" {reading}" if reading else "")
                    out.append(Mix(label, "readings", order, guarantees, reading=reading))
    if "flurry" in studies and "orders" not in studies and "readings" not in studies:
        for order, guarantees in FLURRY_ORDERS:
            out.append(Mix(base_label(order, guarantees), "flurry", order, guarantees))
    return out


def analyse_run(prefix: str, options: dict, workload: str | None = None) -> dict:
    """Metrics and invariant violations of one run (module-level: runs in worker processes)."""
    from adaptsched.analysis.backfilling import backfilling_metrics
    from adaptsched.analysis.invariants import check_invariants
    from adaptsched.analysis.jobs import read_jobs_csv
    from adaptsched.analysis.metrics import analyse

    from .workloads import queue_stats, read_flurry_ids, without_flurry

    metrics = backfilling_metrics(prefix)
    raw = read_jobs_csv(f"{prefix}_jobs.csv")
    metrics["violations"] = check_invariants(raw, metrics["hosts"], guarantees=bool(options.get("guarantees", True)))
    jobs = analyse(raw, source=prefix, hosts=metrics["hosts"])[1]
    metrics["queue"] = queue_stats(jobs)
    flurry = read_flurry_ids(workload)
    if flurry:
        metrics["without_flurry"] = without_flurry(jobs, flurry)
    return metrics


def runs(chosen: list[Mix], seeds: int) -> list[tuple[str, dict]]:
    """(run name, ``backfill`` options) of every run: one per mix, one per seed if randomized."""
    out = []
    for mix in chosen:
        for seed in range(1, seeds + 1) if mix.randomized else [None]:
            out.append((mix.slug(seed), mix.options(seed or 0)))
    return out


def paper_runs(chosen: list[Mix], seeds: int, draws: int) -> list[tuple[int, str, dict]]:
    """(flurry draw, run name, options) of every run on the paper's workload: seed k of a
    randomized mix on draw :func:`~.workloads.draw_of` (k), a deterministic mix once per draw
    that some seed uses. Names: ``paper-fD_`` + the clean run's name."""
    from .workloads import draw_of, paper_name

    if draws < 1:  # --flurry-seeds 0: the cleaned log only
        return []
    used = sorted({draw_of(seed, draws) for seed in range(1, seeds + 1)})
    out = []
    for mix in chosen:
        if mix.randomized:
            for seed in range(1, seeds + 1):
                draw = draw_of(seed, draws)
                out.append((draw, f"{paper_name(draw)}_{mix.slug(seed)}", mix.options(seed)))
        else:
            out += [(draw, f"{paper_name(draw)}_{mix.slug(None)}", mix.options(0)) for draw in used]
    return out


def seed_of(name: str) -> int:
    """The seed (or flurry draw) a run belongs to, for running seed by seed: 0 for a
    deterministic run on the cleaned log."""
    found = re.search(r"_seed(\d+)$", name) or re.match(r"paper-f(\d+)_", name)
    return int(found.group(1)) if found else 0
