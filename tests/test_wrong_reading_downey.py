"""A wrong reading of Downey fails the reproduction's gate, ours passes it.

Each wrong reading changes the allocation, never the results: a scheduler file run in place of
``downey`` through ``reproduce downey`` itself (the same generated workloads, engine, analysis
and findings), at a reduced scale: Table 1's runs (greedy, rho = 0.75, days apart) on 4
workloads of 4 days. The gate is Table 1's claims as the report checks them; the wrong reading
makes at least one of them fail, ours none:

* AVG and MAX swapped (AVG's jobs get MAX's sizes and MAX's AVG's): "MAX has lower utilization
  and longer turnaround than SEV, AVG, PWS" and "AVG beats PWS" turn over;
* SEV blind to the load (sizes A - (A - 1) rho sigma / 2 with rho = 0: every job gets A, as
  AVG): "SEV has the smallest clusters and the shortest queues" cannot hold.

Slow tier: three reproductions of twenty runs.
"""

from __future__ import annotations

import csv

import pytest

from adaptsched.reproduce.common import FAILS
from adaptsched.reproduce.downey.command import reproduce
from adaptsched.reproduce.runner import Setup

DAYS, SEEDS = 4, 4
GATE = (
    "SEV has the smallest clusters and the shortest queues (Table 1)",
    "SEV has the lowest p90 slowdown (Table 1)",
    "MAX has lower utilization and longer turnaround than SEV, AVG, PWS (Table 1)",
    "AVG beats PWS on turnaround and p90 slowdown (Table 1)",
)

HEAD = """
from adaptsched.api import plugin
from adaptsched.core.allocation import DowneyAllocation, ideal_size
"""

WRONG = {
    "avg-max-swapped": HEAD
    + '''

class AvgMaxSwapped(DowneyAllocation):
    """AVG's jobs get MAX's ideal size, MAX's jobs AVG's."""

    name = "downey-avg-max-swapped"

    def on_submit(self, job, now):
        super().on_submit(job, now)
        model, requested, ideal = self.models[job.id]
        if model is not None and self.strategy in ("AVG", "MAX"):
            other = "MAX" if self.strategy == "AVG" else "AVG"
            self.models[job.id] = (model, requested, ideal_size(other, model, self.nb_hosts, load=self.load))


plugin(AvgMaxSwapped)
''',
    "sev-blind-to-load": HEAD
    + '''

class SevBlindToLoad(DowneyAllocation):
    """SEV's sizes as if the offered load were 0: every job gets A."""

    name = "downey-sev-blind-to-load"

    def on_submit(self, job, now):
        super().on_submit(job, now)
        model, requested, ideal = self.models[job.id]
        if model is not None and self.strategy == "SEV":
            self.models[job.id] = (model, requested, ideal_size("SEV", model, self.nb_hosts, load=0.0))


plugin(SevBlindToLoad)
''',
}


def gate(tmp_path, name: str, variants=None) -> dict[str, str]:
    """{claim: verdict} of the gate's claims in ``reproduce downey``'s findings.csv."""
    report = reproduce(
        tmp_path / "runs",  # shared: the strategies a variant does not change run once
        days=DAYS,
        seeds=SEEDS,
        fig11_seeds=SEEDS,
        setup=Setup(workers=2, report_dir=tmp_path / name, say=lambda *a, **k: None),
        variants=variants,
        only=("table1",),
    )
    with open(report.parent / "findings.csv", newline="") as handle:
        return {row["claim"]: row["verdict"] for row in csv.DictReader(handle) if row["claim"] in GATE}


@pytest.fixture(scope="module")
def right(tmp_path_factory):
    return gate(tmp_path_factory.mktemp("downey"), "right")


@pytest.mark.slow
@pytest.mark.parametrize("reading", sorted(WRONG))
def test_a_wrong_allocation_fails_the_gate_ours_passes(tmp_path, right, reading):
    assert set(right) == set(GATE) and FAILS not in right.values(), right
    plugin = tmp_path / f"{reading.replace('-', '_')}.py"
    plugin.write_text(WRONG[reading])
    wrong = gate(tmp_path, reading, {"downey": str(plugin)})
    assert FAILS in wrong.values(), wrong
