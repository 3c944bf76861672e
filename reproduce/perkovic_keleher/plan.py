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
  on 1/L-NG (a deterministic no-guarantee mix);
* ``adaptation`` (sec. 7, Figures 7 and 8): half size, quarter size and greedy adaptation
  (regular, half and double; and regular, half and quarter: sec. 7.1's "overall best greedy"
  without its unstated "restrictions for long jobs") on BF and on 1/L-NG;
* ``combined`` (sec. 7, Figure 9): half size + start-time widening, without and with
  speculative backfilling (50 %), on BF and on R/L-NG;
* ``readings``: BF, P/L-NG and R/L-NG under each alternative reading of the paper's text
  (:data:`READINGS`, docs/perkovic-keleher.md "Readings"), beside the default reading (the
  ``orders`` study's runs; run here too when that study is not);
* ``flurry``: BF, P/L-NG and R/L-NG alone (the mixes the paper's workload runs).

Without ``orders``, the studies that compare with BF (and 1/L-NG) run those too.

Randomized orders (P, R) run with ``seeds`` seeds on the whole trace. A deterministic mix
(BF, 1/L, the speculation and adaptation mixes...) is one exact run on the whole trace; so
that its claims rest on more than one run, it also runs on each of ``windows`` consecutive
parts of the trace (:func:`window_runs`: equal numbers of jobs in submission order), and a
claim comparing deterministic mixes only is decided on those windows, paired window by window.
The paper's workload (the cleaned log plus our reconstruction of its flurry,
:mod:`.workloads`) runs :data:`FLURRY_ORDERS` only, seed k on flurry draw k.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

TRACE = "CTC-SP2"  # the paper's log, workloads/traces.py says where it comes from
PAPER_HOSTS = 430
SPECULATION_PCTS = (25.0, 50.0, 75.0)
STUDIES = ("orders", "speculation", "adaptation", "combined", "readings", "flurry")
#: The studies of the paper's claims, run by default; ``readings`` (ours) when asked for.
DEFAULT_STUDIES = ("orders", "speculation", "adaptation", "combined")
#: The mixes whose numbers the paper states (sec. 5), the only ones run on the paper's
#: workload (:mod:`.workloads`), and the ``flurry`` study's on the cleaned log.
FLURRY_ORDERS = (("D", True), ("P/L", False), ("R/L", False))
#: Consecutive parts of the trace each deterministic mix also runs on (``--windows``).
WINDOWS = 10
#: The studies whose deterministic mixes run on the windows.
WINDOWED_STUDIES = ("orders", "speculation", "adaptation", "combined")

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
    greedy_third: str = "double"
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
        if self.adaptation == "greedy" and self.greedy_third != "double":
            out["greedy_third"] = self.greedy_third
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
            out.append(
                Mix(
                    f"{base} greedy quarter",
                    "adaptation",
                    order,
                    guarantees,
                    adaptation="greedy",
                    greedy_third="quarter",
                )
            )
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
    if "orders" not in studies and any(s in studies for s in ("speculation", "adaptation", "combined")):
        # the bases these studies compare with: BF, and 1/L-NG for speculation and adaptation
        bases = [("D", True)] + ([("1/L", False)] if {"speculation", "adaptation"} & set(studies) else [])
        present = {m.label for m in out}
        out[:0] = [Mix(base_label(o, g), "orders", o, g) for o, g in bases if base_label(o, g) not in present]
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
    from adaptsched.reproduce.common import worker_cpu

    from .workloads import queue_stats, read_flurry_ids, without_flurry

    metrics = backfilling_metrics(prefix)
    raw = read_jobs_csv(f"{prefix}_jobs.csv")
    metrics["violations"] = check_invariants(raw, metrics["hosts"], guarantees=bool(options.get("guarantees", True)))
    jobs = analyse(raw, source=prefix, hosts=metrics["hosts"])[1]
    metrics["queue"] = queue_stats(jobs)
    flurry = read_flurry_ids(workload)
    if flurry:
        metrics["without_flurry"] = without_flurry(jobs, flurry)
    metrics.update(worker_cpu())
    return metrics


def runs(chosen: list[Mix], seeds: int) -> list[tuple[str, dict]]:
    """(run name, ``backfill`` options) of every run: one per mix, one per seed if randomized."""
    out = []
    for mix in chosen:
        for seed in range(1, seeds + 1) if mix.randomized else [None]:
            out.append((mix.slug(seed), mix.options(seed or 0)))
    return out


def on_paper_workload(chosen: list[Mix]) -> list[Mix]:
    """The mixes of ``chosen`` that run on the paper's workload: :data:`FLURRY_ORDERS` under
    the default reading (the orders study's, or the flurry study's)."""
    wanted = {base_label(o, g) for o, g in FLURRY_ORDERS}
    return [m for m in chosen if m.label in wanted and m.study in ("orders", "flurry", "readings") and not m.reading]


def window_name(window: int, windows: int) -> str:
    """The name prefix of the runs on window ``window`` of ``windows``."""
    return f"win{window:02d}of{windows:02d}"


def window_runs(chosen: list[Mix], windows: int) -> list[tuple[int, str, dict]]:
    """(window, run name, options) of every deterministic mix of :data:`WINDOWED_STUDIES` on
    each of ``windows`` windows (none when ``windows`` < 2)."""
    if windows < 2:
        return []
    return [
        (k, f"{window_name(k, windows)}_{mix.slug(None)}", mix.options(0))
        for mix in chosen
        if not mix.randomized and mix.study in WINDOWED_STUDIES
        for k in range(1, windows + 1)
    ]


def split_windows(workload: dict, windows: int) -> list[dict]:
    """``workload`` cut into ``windows`` consecutive parts of (nearly) equal numbers of jobs, in
    submission order; each part keeps the workload's profiles and says which part it is."""
    jobs = sorted(workload["jobs"], key=lambda j: (float(j["subtime"]), str(j["id"])))
    bounds = [round(k * len(jobs) / windows) for k in range(windows + 1)]
    parts = []
    for k in range(windows):
        part = dict(workload, jobs=jobs[bounds[k] : bounds[k + 1]])
        part["adaptsched"] = dict(workload.get("adaptsched", {}), window={"part": k + 1, "of": windows})
        parts.append(part)
    return parts


def paper_runs(chosen: list[Mix], seeds: int, draws: int) -> list[tuple[int, str, dict]]:
    """(flurry draw, run name, options) of every run on the paper's workload: seed k of a
    randomized mix on draw :func:`~.workloads.draw_of` (k), a deterministic mix once per draw
    that some seed uses. Names: ``paper-fD_`` + the clean run's name."""
    from .workloads import draw_of, paper_name

    if draws < 1:  # --flurry-seeds 0: the cleaned log only
        return []
    used = sorted({draw_of(seed, draws) for seed in range(1, seeds + 1)})
    out = []
    for mix in on_paper_workload(chosen):
        if mix.randomized:
            for seed in range(1, seeds + 1):
                draw = draw_of(seed, draws)
                out.append((draw, f"{paper_name(draw)}_{mix.slug(seed)}", mix.options(seed)))
        else:
            out += [(draw, f"{paper_name(draw)}_{mix.slug(None)}", mix.options(0)) for draw in used]
    return out


def seed_of(name: str) -> int:
    """The seed (flurry draw, or window) a run belongs to, for running seed by seed: 0 for a
    deterministic run on the whole cleaned log."""
    found = re.search(r"_seed(\d+)$", name) or re.match(r"paper-f(\d+)_", name) or re.match(r"win(\d+)of", name)
    return int(found.group(1)) if found else 0
