""".ci/tests, the tiers' runner: how it finds real Batsim or builds it, and the one line a tier
left out or skipped prints at the end of a run (what it would have checked, how to run it).

The build is played by a stand-in kit (``BATSIM_BUILD_KIT``) that records how it was called
and installs a stand-in ``batsim`` under ``BATSIM_PREFIX``: the real build (about 3 minutes,
root, Debian's packages) is what CI does on a machine without Batsim.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
KIT = """#!/usr/bin/env bash
echo "$*" > "{record}"
echo "$BATSIM_PREFIX" >> "{record}"
[ "$1" = fail ] && exit 3
mkdir -p "$BATSIM_PREFIX/bin"
printf '#!/bin/sh\\necho 4.2.1\\n' > "$BATSIM_PREFIX/bin/batsim"
chmod +x "$BATSIM_PREFIX/bin/batsim"
"""


def path_without_batsim() -> str:
    """PATH without any folder that holds a ``batsim``."""
    folders = os.environ.get("PATH", "").split(os.pathsep)
    return os.pathsep.join(f for f in folders if f and not (Path(f) / "batsim").exists())


def ci_tests(tmp_path: Path, *args: str, kit_fails: bool = False, **env: str) -> subprocess.CompletedProcess:
    """``.ci/tests ARGS`` with a stand-in build kit in ``tmp_path/kit`` and the prefix
    ``tmp_path/prefix``, real Batsim out of sight unless ``env`` names it."""
    kit = tmp_path / "kit"
    kit.mkdir(exist_ok=True)
    script = KIT.format(record=tmp_path / "called")
    if kit_fails:
        script = script.replace('[ "$1" = fail ]', "true")
    (kit / "build.sh").write_text(script)
    environ = {k: v for k, v in os.environ.items() if k not in ("BATSIM", "BATSIM_SRC")}
    environ.update(PATH=path_without_batsim(), BATSIM_BUILD_KIT=str(kit), BATSIM_PREFIX=str(tmp_path / "prefix"))
    environ.update(env)
    return subprocess.run(
        ["bash", str(REPO / ".ci" / "tests"), *args], capture_output=True, text=True, env=environ, timeout=120
    )


def test_batsim_not_found_is_built_with_the_kit(tmp_path):
    done = ci_tests(tmp_path, "batsim")
    assert done.returncode == 0, done.stderr
    called = (tmp_path / "called").read_text().splitlines()
    assert called == ["apt redox intervalset batsim", str(tmp_path / "prefix")]
    assert f"== real Batsim: {tmp_path / 'prefix' / 'bin' / 'batsim'} (4.2.1)" in done.stdout


def test_batsim_found_under_its_prefix_is_not_built_again(tmp_path):
    assert ci_tests(tmp_path, "batsim").returncode == 0
    (tmp_path / "called").unlink()
    done = ci_tests(tmp_path, "batsim")
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "called").exists()
    assert f"== real Batsim: {tmp_path / 'prefix' / 'bin' / 'batsim'} (4.2.1)" in done.stdout


def test_batsim_named_by_its_variable_is_used_as_it_is(tmp_path):
    named = tmp_path / "mine" / "batsim"
    named.parent.mkdir()
    named.write_text("#!/bin/sh\necho 4.2.1-mine\n")
    named.chmod(0o755)
    done = ci_tests(tmp_path, "batsim", BATSIM=str(named))
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "called").exists()
    assert f"== real Batsim: {named} (4.2.1-mine)" in done.stdout


def test_a_wrong_batsim_variable_is_refused_not_replaced_by_a_build(tmp_path):
    done = ci_tests(tmp_path, "batsim", BATSIM=str(tmp_path / "nowhere" / "batsim"))
    assert done.returncode == 1
    assert "is not an executable" in done.stderr
    assert not (tmp_path / "called").exists()


def test_a_failed_build_stops_the_run(tmp_path):
    done = ci_tests(tmp_path, "conformance", kit_fails=True)
    assert done.returncode == 1
    assert "building real Batsim failed" in done.stderr
    assert "== tier conformance" not in done.stdout  # no tier run without it


def test_an_unknown_tier_is_refused(tmp_path):
    done = ci_tests(tmp_path, "quick")
    assert done.returncode == 2
    assert "unknown tier 'quick'" in done.stderr


# -- the line a tier left out, or skipped, prints -----------------------------------------------
def pytest_summary(*args: str) -> str:
    environ = {k: v for k, v in os.environ.items() if k not in ("BATSIM", "PYTEST_XDIST_WORKER")}
    environ["PATH"] = path_without_batsim()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", "-n", "0", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=environ,
        timeout=300,
    )
    assert done.returncode in (0, 5), done.stdout[-3000:]  # 5: no test run (every one left out)
    return done.stdout


def test_a_tier_left_out_says_what_it_checks_and_how_to_run_it():
    out = pytest_summary("tests/test_intervals.py", "--tier", "slow")
    line = re.search(r"(\d+) TESTS NOT RUN \(fast tier: ([^)]*)\); run them with (.*?) !", out)
    assert line, out[-2000:]
    assert int(line.group(1)) > 0 and "hand-worked cases" in line.group(2) and line.group(3) == ".ci/tests fast"


def test_a_tier_skipped_for_want_of_batsim_says_what_it_checks_and_how_to_enable_it():
    out = pytest_summary("tests/conformance/test_sockets.py", "--tier", "conformance")
    lines = [line for line in out.splitlines() if "TESTS SKIPPED" in line]
    assert len(lines) == 1, out[-2000:]
    assert "byte-identical to real Batsim 4.2.1" in lines[0] and ".ci/tests conformance" in lines[0], lines[0]


@pytest.mark.parametrize("command", [".ci/tests fast", ".ci/tests all"])
def test_readme_names_both_commands(command):
    assert command in (REPO / "README.md").read_text()
