"""Test-wide settings: the tiers, hypothesis profiles, and a loud count of every skipped test.

**Tiers** (``--tier NAME[,NAME...]``; without it every collected test runs). ``.ci/tests``
runs them one after the other and times each (docs/results/ci-tests.md gives the last measured times):

* ``fast``: everything below that is not slow: README's test command.
* ``slow``: ``@pytest.mark.slow`` (end-to-end reproductions, whole traces, the long property
  tests: more than ~15 s on a busy 2-core machine), real Batsim not needed.
* ``conformance``: the tests that need real Batsim 4.2.1 (``BATSIM``, or ``batsim`` on PATH):
  a test is in it when it carries a skip mark whose reason is :data:`helpers.NO_BATSIM`.
* ``corpus``: tests/conformance/test_corpus.py, Batsim's own workloads and platforms on both
  engines: CI runs a sample of it that covers every workload, platform and scheduler
  (``--corpus sample``, the default); ``--corpus all`` runs all of it.

**Hypothesis.** Its per-example ``deadline`` (200 ms by default) and its ``too_slow`` health
check both measure time (the suite runs on shared, busy machines), so both are off in every
profile. ``default`` (loaded unless told otherwise) explores at random; ``ci``
(``--hypothesis-profile=ci``) derandomizes, so that the fast tier of a landing is reproducible.
The slow property tests ask for random exploration themselves, whatever the profile; when a
randomly seeded test fails, its report and the summary name the seed and the command that
replays it (``--hypothesis-seed``).

**Skips.** Every skipped test is counted at the end of the run, grouped by reason, each group
in one line that says what those tests would have checked and how to run them; a tier left
out by ``--tier`` is named the same way.
"""

import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

sys.path.insert(0, str(Path(__file__).resolve().parent))  # tests/helpers.py

from browser import NO_BROWSER, NO_BROWSER_HELP
from helpers import (
    INTERPRETED_ONLY,
    INTERPRETED_ONLY_HELP,
    NO_BATSIM,
    NO_BATSIM_HELP,
    NO_BATSIM_TREE,
    NO_BATSIM_TREE_HELP,
    NO_JOBQUEUE,
    NO_JOBQUEUE_HELP,
    NO_TRACE,
    NO_TRACE_HELP,
)

settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile(
    "ci", deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True, print_blob=True
)
settings.load_profile("default")

TIERS = ("fast", "slow", "conformance", "corpus")
#: What each tier checks, in one line, and how to run it (the summary names a tier left out with them).
TIER_CHECKS = {
    "fast": ("unit tests, hand-worked cases, the papers' rules, property tests", ".ci/tests fast"),
    "slow": (
        "end-to-end reproductions, whole traces, property tests at 500 examples in-process and 50 over ZeroMQ",
        ".ci/tests slow",
    ),
    "conformance": (
        "outputs of the embedded engine byte-identical to real Batsim 4.2.1's",
        ".ci/tests conformance (builds real Batsim if absent)",
    ),
    "corpus": (
        "Batsim 4.2.1's own workloads x platforms on both engines",
        ".ci/tests corpus (a sample that holds every workload, platform and scheduler), or corpus-all",
    ),
    "corpus-all": (
        "the rest of Batsim 4.2.1's own workloads x platforms on both engines",
        ".ci/tests corpus-all, or pytest --tier corpus --corpus all",
    ),
}

#: Skip reasons (by their start), what the tests skipped for them would have checked, and how to run them.
SKIPS = (
    (NO_BATSIM, "conformance tier: outputs byte-identical to real Batsim 4.2.1's", NO_BATSIM_HELP),
    (NO_BATSIM_TREE, "corpus tier: Batsim 4.2.1's own workloads and platforms on both engines", NO_BATSIM_TREE_HELP),
    (NO_BROWSER, "the explorer's pages in headless Chromium", NO_BROWSER_HELP),
    (INTERPRETED_ONLY, "doctests and monkeypatched core functions", INTERPRETED_ONLY_HELP),
    (NO_TRACE, "whole archive traces converted and run", NO_TRACE_HELP),
    (NO_JOBQUEUE, "sweep --cluster's job scripts and a sweep on dask-jobqueue's local cluster", NO_JOBQUEUE_HELP),
)


def pytest_addoption(parser):
    group = parser.getgroup("adaptsched")
    group.addoption(
        "--tier",
        default="",
        help=f"run only these tiers, comma-separated: {', '.join(TIERS)} (default: every collected test)",
    )
    group.addoption(
        "--corpus",
        default="sample",
        choices=("sample", "all"),
        help="the corpus tier: a sample covering every workload, platform and scheduler (default), or all of it",
    )


def pytest_configure(config):
    config.addinivalue_line("markers", "corpus_sample: a case of the corpus tier's sample (tests/conformance)")
    tiers = [t.strip() for t in config.getoption("tier").split(",") if t.strip()]
    unknown = sorted(set(tiers) - set(TIERS))
    if unknown:
        raise pytest.UsageError(f"--tier: unknown tier(s) {', '.join(unknown)}; the tiers are {', '.join(TIERS)}")
    config.adaptsched_tiers = tiers
    config.adaptsched_left_out = {}


def tier_of(item) -> str:
    """The tier of a collected test (see the module's docstring)."""
    if item.path.name == "test_corpus.py":
        return "corpus"
    if any(NO_BATSIM in str(mark.kwargs.get("reason", "")) for mark in item.iter_markers("skipif")):
        return "conformance"
    return "slow" if item.get_closest_marker("slow") else "fast"


def pytest_collection_modifyitems(config, items):
    tiers = config.adaptsched_tiers
    whole_corpus = config.getoption("corpus") == "all"
    kept, left_out = [], config.adaptsched_left_out
    for item in items:
        tier = tier_of(item)
        sampled = tier != "corpus" or whole_corpus or item.get_closest_marker("corpus_sample") is not None
        if tiers and tier not in tiers:
            left_out[tier] = left_out.get(tier, 0) + 1
        elif not sampled:
            left_out["corpus-all"] = left_out.get("corpus-all", 0) + 1
        else:
            kept.append(item)
    if len(kept) < len(items):
        chosen = set(kept)
        config.hook.pytest_deselected(items=[item for item in items if item not in chosen])
        items[:] = kept


def pytest_sessionfinish(session):
    """Under pytest-xdist, a worker hands the counts of the tests it left out to the controller."""
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput["adaptsched_left_out"] = dict(session.config.adaptsched_left_out)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """The controller's counts of the tests left out: a worker's (each one collects every test)."""
    counts = getattr(node, "workeroutput", {}).get("adaptsched_left_out")
    if counts:
        node.config.adaptsched_left_out = dict(counts)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed test that hypothesis seeded at random: its seed and the command that replays it."""
    report = yield
    seed = getattr(getattr(item, "obj", None), "_hypothesis_internal_use_generated_seed", None)
    if report.failed and call.when == "call" and seed is not None:
        replay = f"pytest '{item.nodeid}' --hypothesis-seed={seed}"
        report.sections.append(("hypothesis seed", f"seed {seed}: replay with {replay}"))
        report.user_properties.append(("hypothesis_seed", replay))
    return report


def skip_reason(report) -> str:
    return str(report.longrepr[2]) if isinstance(report.longrepr, tuple) else str(report.longrepr)


def pytest_terminal_summary(terminalreporter, config):
    """Every skipped test counted, by reason, each group in one line: what it would have checked
    and how to run it; the tiers left out by ``--tier``; the seeds of failed random examples."""
    write = terminalreporter
    for tier, count in sorted(config.adaptsched_left_out.items()):
        what, how = TIER_CHECKS[tier]
        write.write_sep("!", f"{count} TESTS NOT RUN ({tier} tier: {what}); run them with {how}", yellow=True)

    skipped = terminalreporter.stats.get("skipped", [])
    counted = 0
    for reason, what, help_text in SKIPS:
        group = [r for r in skipped if reason in skip_reason(r)]
        if group:
            counted += len(group)
            write.write_sep("!", f"{len(group)} TESTS SKIPPED ({what}): {reason}; to run them: {help_text}", red=True)
    others: dict[str, int] = {}
    for report in skipped:
        reason = skip_reason(report)
        if not any(known in reason for known, _, _ in SKIPS):
            others[reason] = others.get(reason, 0) + 1
    for reason, count in sorted(others.items()):
        counted += count
        write.write_sep("!", f"{count} TESTS SKIPPED: {reason}", red=True)
    assert counted == len(skipped), (counted, len(skipped))
    for report in terminalreporter.stats.get("failed", []):
        for key, replay in getattr(report, "user_properties", []):
            if key == "hypothesis_seed":
                write.write_line(f"random examples failed; replay: {replay}", red=True, bold=True)
