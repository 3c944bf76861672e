"""A wrong reading of Islam et al. fails the reproduction's gate, ours passes it.

The wrong reading changes the algorithm, never the results: VQoPS that ignores its OC-factor
(every job's opportunity cost taken as 0, so every static factor schedules as OC 0 does), a
scheduler file run in place of ``qops`` through ``reproduce qops`` itself (the same workloads,
engine, analysis, findings), on SDSC-SP2's excerpt at a reduced scale: the two scenarios the
claim on the urgent share compares (C = 10, U = 20 % and 80 %, original load, exact
estimates), 3 seeds. The gate is that claim, as the report checks it: under the wrong reading it
does not hold (every factor earns the same: a difference of exactly 0), under ours it does not
fail. Slow tier: two reproductions of some forty runs each.
"""

from __future__ import annotations

import csv

import pytest
from helpers import SDSC_EXCERPT

from adaptsched.reproduce.common import FAILS
from adaptsched.reproduce.qops.command import reproduce
from adaptsched.reproduce.runner import Setup

JOBS, SEEDS = 600, 3
SCENARIOS = [(10, 0.2, "orig", "exact"), (10, 0.8, "orig", "exact")]
GATE = "SDSC-SP2: fewer urgent jobs favour smaller OC-factors"

#: VQoPS blind to the opportunity cost: the OC-factor it is given is never used.
NO_OPPORTUNITY_COST = """
from adaptsched.api import plugin
from adaptsched.core.qops import Qops


class QopsWithoutOc(Qops):
    name = "qops-without-oc"

    def admit(self, job, now):
        self.oc_factor = 0.0
        return super().admit(job, now)


plugin(QopsWithoutOc)
"""


def verdicts(tmp_path, name: str, variants=None) -> dict[str, str]:
    """{claim: verdict} of ``reproduce qops`` on the reduced grid (its findings.csv)."""
    report = reproduce(
        tmp_path / "runs",  # shared: the runs a variant does not touch (DVQoPS) run once
        jobs=JOBS,
        traces=("SDSC-SP2",),
        trace_files={"SDSC-SP2": str(SDSC_EXCERPT)},
        seeds=SEEDS,
        setup=Setup(workers=2, report_dir=tmp_path / name, say=lambda *a, **k: None),
        variants=variants,
        only=SCENARIOS,
    )
    with open(report.parent / "findings.csv", newline="") as handle:
        return {row["claim"]: row["verdict"] for row in csv.DictReader(handle)}


@pytest.mark.slow
def test_vqops_ignoring_the_oc_factor_fails_the_gate_ours_passes(tmp_path):
    wrong_file = tmp_path / "qops_without_oc.py"
    wrong_file.write_text(NO_OPPORTUNITY_COST)
    right = verdicts(tmp_path, "right")
    wrong = verdicts(tmp_path, "wrong", {"qops": str(wrong_file)})
    assert right[GATE] != FAILS, right
    assert wrong[GATE] == FAILS, wrong
