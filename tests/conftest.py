"""Test-wide settings: hypothesis profiles, and a loud count of skipped conformance tests.

No test may depend on wall-clock speed (the suite runs on shared, busy machines):

* hypothesis' per-example ``deadline`` (200 ms by default) and its ``too_slow`` health check
  both measure time, so both are off in every profile. ``default`` (loaded unless told
  otherwise) keeps hypothesis' random exploration; ``ci`` (``--hypothesis-profile=ci``, as
  ``.ci/run`` does) also derandomizes it, so that a CI run is reproducible.
* slow tests (end-to-end reproductions, whole-trace runs: more than ~15 s on a busy 2-core
  machine) carry ``@pytest.mark.slow``; ``-m "not slow"`` leaves them out, ``-m slow`` runs only them.
"""

import sys
from pathlib import Path

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
)

settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile(
    "ci", deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True, print_blob=True
)
settings.load_profile("default")


def pytest_terminal_summary(terminalreporter):
    """Say, loudly, how many tests did not run because real Batsim is absent (the conformance
    tests, and docs/getting-started.md's recipe), or headless Chromium (the explorer's browser
    tests)."""
    for reason, what, help_text in (
        (NO_BATSIM, "conformance, recipe", NO_BATSIM_HELP),
        (NO_BATSIM_TREE, "Batsim's own corpus", NO_BATSIM_TREE_HELP),
        (NO_BROWSER, "explorer in a browser", NO_BROWSER_HELP),
        (INTERPRETED_ONLY, "interpreted source only", INTERPRETED_ONLY_HELP),
    ):
        skipped = [
            report
            for report in terminalreporter.stats.get("skipped", [])
            if isinstance(report.longrepr, tuple) and reason in str(report.longrepr[2])
        ]
        if skipped:
            terminalreporter.write_sep("!", f"{len(skipped)} TESTS SKIPPED ({what}): {reason}", red=True, bold=True)
            terminalreporter.write_line(help_text)
