"""Sensitivity to a wrong reading, Klein & Pérez: a deliberately wrong setting goes through the
same findings code as the reproduction, at reduced size, and at least one independent claim
that does not fail under our reading must fail under the wrong one. A wrong reading no claim
catches would mean the gate cannot tell the paper's algorithm from another. (Downey's and
Islam et al.'s are in tests/test_wrong_reading_downey.py and test_wrong_reading_qops.py.)"""

import pytest

from adaptsched.reproduce.common import FAILS


def newly_failing(wrong, right) -> set[str]:
    """The independent claims that fail under the wrong reading and not under ours."""
    fails = {c.claim for c in wrong if c.counted and c.verdict == FAILS}
    return fails - {c.claim for c in right if c.counted and c.verdict == FAILS}


# -- Klein & Pérez: mic (and mic+c) with the stretch limit l = 1.5 or 3 instead of 2 ------------------
KP_TESTS = 500  # l = 1.5 needs this many: on 300 tests its cells only "need more tests"
KP_HOSTS = 102


def kp_per_test(limit: float, count: int) -> dict:
    """{cbf, mic, mic+c: per-test metrics} of the first ``count`` tests, mic and mic+c with the
    stretch limit ``limit`` (l = 2 is the paper's)."""
    from adaptsched.analysis.evolving import plan_metrics
    from adaptsched.reproduce.klein_perez.plan import plans_of
    from adaptsched.workloads.evolving import generate_tests

    tests = generate_tests(count, 1)
    cbf = [plans_of(apps, KP_HOSTS, "cbf") for apps in tests]
    per_test = {"cbf": [plan_metrics(c, c, KP_HOSTS) for c in cbf]}
    for variant in ("mic", "mic+c"):
        per_test[variant] = [
            plan_metrics(plans_of(apps, KP_HOSTS, variant, stretch_limit=limit), c, KP_HOSTS)
            for apps, c in zip(tests, cbf)
        ]
    return per_test


@pytest.fixture(scope="module")
def kp_right():
    """Our reading, l = 2, on the largest size the tests use."""
    return kp_per_test(2.0, KP_TESTS)


def kp_claims(per_test: dict, count: int):
    """The cells of mic and mic+c (:func:`findings.cell`) on the first ``count`` tests."""
    from adaptsched.reproduce.klein_perez import findings

    first = {v: rows[:count] for v, rows in per_test.items()}
    return [findings.cell(first, v, m) for v in ("mic", "mic+c") for m in findings.GATED]


@pytest.mark.parametrize("limit,count", [(1.5, KP_TESTS), (3.0, 200)])
def test_klein_perez_mic_with_another_stretch_limit_fails_a_claim(kp_right, limit, count):
    wrong = kp_claims(kp_per_test(limit, count), count)
    right = kp_claims(kp_right, count)
    assert newly_failing(wrong, right), [(c.claim, c.verdict) for c in wrong]
