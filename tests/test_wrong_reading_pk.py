"""Wrong readings of Perković & Keleher's algorithms fail the reproduction's gate.

Each test changes the ``backfill`` scheduler itself (a method of it patched in this process:
the scheduler the embedded engine runs in-process), never its results, and puts both readings
through the same pipeline as ``adaptsched reproduce perkovic-keleher`` at a reduced scale: the
plan's mixes and runs (:mod:`adaptsched.reproduce.perkovic_keleher.plan`, whole trace part and
its windows), each run on the embedded engine, analysed by the plan's ``analyse_run``, the
claims decided by :func:`~adaptsched.reproduce.perkovic_keleher.checks.check` as the report
does. The claims the wrong reading targets are the gate: under ours none of them fails (each
holds or needs more seeds/windows at this scale), under the wrong one at least one fails.
"""

from __future__ import annotations

import pytest
from helpers import CTC_EXCERPT

from adaptsched.reproduce.common import FAILS

HOSTS = 430


def pipeline(tmp_path, studies, *, jobs: int, seeds: int, windows: int) -> list:
    """The reproduction's claims on the first ``jobs`` jobs of the CTC excerpt: every run of the
    plan for ``studies`` through the embedded engine in this process, analysed as the
    reproduction analyses it."""
    from adaptsched.engines.run import run
    from adaptsched.engines.run.spec import RunSpec
    from adaptsched.platforms.simgrid import write_cluster
    from adaptsched.reproduce.perkovic_keleher.checks import check
    from adaptsched.reproduce.perkovic_keleher.plan import analyse_run, mixes, runs, split_windows, window_runs
    from adaptsched.reproduce.perkovic_keleher.results import Results, WindowResults
    from adaptsched.workloads.convert import convert_swf, write_workload

    workload, _ = convert_swf(CTC_EXCERPT, hosts=HOSTS, first=jobs)
    whole = write_workload(workload, tmp_path / "workload.json")
    parts = {
        k: write_workload(part, tmp_path / f"window{k}.json")
        for k, part in enumerate(split_windows(workload, windows), start=1)
    }
    platform = write_cluster(HOSTS, tmp_path / "cluster.xml")
    chosen = mixes(studies)
    named = [(name, options, whole) for name, options in runs(chosen, seeds)]
    named += [(name, options, parts[k]) for k, name, options in window_runs(chosen, windows)]
    results = {}
    for name, options, path in named:
        prefix = tmp_path / "runs" / name
        prefix.parent.mkdir(exist_ok=True)
        spec = RunSpec.make("backfill", path, platform, prefix, options=options, progress=False)
        done = run(spec, say=lambda *a: None)
        results[name] = {**analyse_run(str(prefix), options, str(path)), "name": name, "wall_s": done.wall_s}
    return check(Results(chosen, results, seeds), chosen, WindowResults(chosen, results, windows))


def gate(claims, prefix: str) -> dict[str, str]:
    """{claim: verdict} of the independent claims whose name starts with ``prefix``."""
    return {c.claim: c.verdict for c in claims if c.counted and c.claim.startswith(prefix)}


@pytest.mark.slow
def test_speculation_ignored_fails_the_speculation_claims(tmp_path, monkeypatch):
    """Speculation ignored (the phase picks no job: ``Speculation.choose`` returns none) against
    ours, on BF and 1/L-NG with speculation at 25, 50 and 75 %, without and with test runs: the
    first 1,500 CTC jobs and their 3 windows of 500."""
    from adaptsched.core.speculation import Speculation

    right = {
        **gate(pipeline(tmp_path / "right", ("speculation",), jobs=1500, seeds=1, windows=3), "BF:"),
    }
    assert right and FAILS not in right.values(), right
    monkeypatch.setattr(Speculation, "choose", lambda self, *args, **kwargs: [])
    wrong = gate(pipeline(tmp_path / "wrong", ("speculation",), jobs=1500, seeds=1, windows=3), "BF:")
    assert wrong.keys() == right.keys()
    assert wrong["BF: speculation improves bounded slowdown"] == FAILS, wrong
    assert wrong["BF: test runs significantly improve speculative backfilling"] == FAILS, wrong


@pytest.mark.slow
def test_no_guarantee_variant_keeping_its_guarantees_fails_the_ng_claim(tmp_path, monkeypatch):
    """The -NG variant read as keeping its guarantees (``guarantees=false`` ignored: every pass
    compresses the reservations, with no starvation weight) against ours: the orders study on the
    first 1,500 CTC jobs, 3 seeds and 3 windows."""
    from adaptsched.core.backfill import Backfill

    claim = "-NG beats guarantees for every order except arrival order"
    right = gate(pipeline(tmp_path / "right", ("orders",), jobs=1500, seeds=3, windows=3), claim)
    assert right[claim] != FAILS, right
    init = Backfill.__init__

    def keeps_guarantees(self, nb_hosts, options=None, **values):
        init(self, nb_hosts, options, **values)
        self.guarantees = True
        self.criterion.starvation_weight = 0.0

    monkeypatch.setattr(Backfill, "__init__", keeps_guarantees)
    wrong = gate(pipeline(tmp_path / "wrong", ("orders",), jobs=1500, seeds=3, windows=3), claim)
    assert wrong[claim] == FAILS, wrong


@pytest.mark.slow
def test_the_pipeline_of_these_tests_is_the_reproductions(tmp_path):
    """The claims these tests decide are those of ``adaptsched reproduce perkovic-keleher`` on the
    same jobs, seeds and windows (its Dask runner, the same engine): the same verdicts."""
    from adaptsched.reproduce.perkovic_keleher.command import reproduce
    from adaptsched.reproduce.runner import Setup

    ours = {c.claim: c.verdict for c in pipeline(tmp_path / "here", ("speculation",), jobs=600, seeds=1, windows=3)}
    reproduce(
        tmp_path / "pk",
        trace=CTC_EXCERPT,
        jobs=600,
        seeds=1,
        studies=("speculation",),
        flurry_seeds=0,
        windows=3,
        setup=Setup(say=lambda *a: None, workers=1),
    )
    import csv

    rows = csv.DictReader(open(tmp_path / "pk" / "report-embedded" / "findings.csv"))
    theirs = {r["claim"]: r["verdict"] for r in rows if r["class"] != "workload"}
    assert theirs == ours
