"""Which claims of :mod:`.findings` the runs of ``adaptsched reproduce perkovic-keleher`` check,
on what: the workload facts of both workloads, the scheduler claims on the cleaned log (a claim
on deterministic mixes only decided on the windows when they ran, the others on the whole log's
seeds), and the same claims on the paper's workload, which depend on the flurry reconstruction
and are not counted."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from adaptsched.reproduce.common import Claim, depends_on

from . import findings as claims
from .plan import WINDOWED_STUDIES
from .results import Results
from .workloads import draw_of

#: The class of every scheduler claim on the paper's workload: it stands or falls with the
#: flurry we reconstructed from the paper's Tables 1 and 2.
FLURRY = depends_on("the flurry reconstruction")
#: The statistics of the paper's workload the flurry's parameters were read off.
READ_OFF = ("jobs", "width_median", "runtime_mean_s", "estimate_mean_s", "zero_runtime_jobs")


def check(res: Results, mixes, win: Results | None = None, workload: str = "cleaned log") -> list[Claim]:
    """Every scheduler claim the runs on ``res`` (``workload``) can check, in the paper's order."""
    bsld = res.metric(("overall", "bsld_mean"))
    wait = res.metric(("overall", "wait_mean_s"))
    groups = {label: {g: res.series(label, ("groups", g, "bsld_mean")) for g in claims.GROUPS} for label in bsld}
    det = deterministic(res, win, ("overall", "bsld_mean"))
    det_wait = deterministic(res, win, ("overall", "wait_mean_s"))
    det_response = deterministic(res, win, ("overall", "response_mean_s"))
    bf = win if win is not None and win.has("BF") else res
    table3 = {k: bf.series("BF", ("guarantees", k)) for k in claims.PAPER_TABLE3} if bf.has("BF") else {}
    combined = [m.label for m in mixes if m.study == "combined"]
    bases = list(dict.fromkeys(m.base for m in mixes if m.study in ("speculation", "adaptation")))
    found = [
        claims.immediate_near_paper(bf.series("BF", ("queue", "immediate")), workload),
        claims.table3_ratios(table3, workload),
        claims.max_queue_near_paper(res.series("BF", ("queue", "max_queue")), workload),
        claims.randomized_beats_priority(bsld),
        claims.ng_improves_every_order(bsld, det),
        claims.shortest_first_helps(det),
        claims.priority_between(bsld),
        *(claims.gain_matches(label, "BF", bsld, wait, paper) for label, paper in claims.PAPER_VS_BF.items()),
        *(claims.gain_matches(label, "1/L", bsld, wait, paper) for label, paper in claims.PAPER_VS_SF.items()),
        claims.rlng_improves_every_group(groups),
        claims.long_wide_gain_least(groups),
    ]
    for base in bases:
        found += [
            claims.speculation_helps(base, det),
            claims.smaller_percentages_do_better(base, det),
            claims.speculative_test_runs_help(base, det),
            claims.test_runs_favour_large_percentages(base, det),
        ]
    found += [
        claims.resizing_trades_response(label, det, det_wait, det_response) for label in ("BF half", "BF quarter")
    ]
    found += [claims.greedy_only_matches_half(base, det) for base in bases]
    found += [
        claims.widening_helps(det),
        claims.combined_near_paper(bsld, combined),
        claims.rlng_delay_near_paper(wait, combined),
    ]
    return [f for f in found if f is not None]


def deterministic(res: Results, win: Results | None, path) -> dict:
    """The deterministic mixes of the windowed studies (:data:`.plan.WINDOWED_STUDIES`) as series:
    on the windows when every one of them ran there, else the whole log's exact numbers (a window
    never pairs with the whole log); randomized mixes pair with no window and are left out."""
    exact = {
        label: series
        for label, series in res.metric(path).items()
        if not isinstance(series, Mapping) and res.by_label[label].study in WINDOWED_STUDIES
    }
    if win is None or not all(win.has(label) for label in exact):
        return exact
    return {label: win.series(label, path) for label in exact}


def series_of(stats: Mapping | None, key: str, seeds: int, draws: int):
    """A workload statistic as a series over the seeds (seed k: draw k's), or None."""
    if not stats:
        return None
    return {k: stats[draw_of(k, draws)][key] for k in range(1, seeds + 1) if draw_of(k, draws) in stats}


def workload_claims(stats: Mapping | None, workload: str, series=None, read_off=()) -> list[Claim]:
    """Tables 1 and 2's numbers about the workload, as workload facts
    (:func:`.findings.workload_fact`)."""
    series = series or {}
    found = []
    for key in claims.PAPER_WORKLOAD:
        value = series.get(key, stats.get(key) if stats else None)
        source = "by construction: the flurry was read off it" if key in read_off else ""
        found.append(claims.workload_fact(key, value, workload, source))
    return [f for f in found if f is not None]


def check_paper(paper: Results, mixes, papers: Mapping, seeds: int) -> list[Claim]:
    """The workload facts and the scheduler claims on the paper's workload, each named so; the
    scheduler claims depend on the flurry reconstruction."""
    name = "paper's workload"
    series = {key: series_of(papers, key, seeds, len(papers)) for key in claims.PAPER_WORKLOAD}
    found = workload_claims(None, name, series, READ_OFF)
    for claim in check(paper, mixes, workload=name):
        text = claim.claim if claim.claim.endswith(f"({name})") else f"{claim.claim} ({name})"
        found.append(replace(claim, claim=text, klass=FLURRY))
    return found
