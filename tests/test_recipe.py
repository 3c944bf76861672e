"""docs/getting-started.md's two-shell recipe, run as written: stock pybatsim runs an adaptsched
plugin against real Batsim, then ``adaptsched metrics`` reads the outputs.

The commands are read from the page (the fenced blocks after ``<!-- recipe: shell N -->``)
and run from the repository root, with three substitutions only: the output folder
``results/recipe`` becomes a temporary folder, the ``ipc://`` socket moves into it (parallel
test runs never collide), and ``.venv/bin/`` and ``batsim`` name the test's own executables.
Skipped without real Batsim.
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import NO_BATSIM, NO_BATSIM_HELP, REPO, find_batsim

BATSIM = find_batsim()
PAGE = REPO / "docs" / "getting-started.md"
HANG_GUARD_S = 3600  # a guard against a hung process, not a speed check


def recipe_blocks() -> dict[int, list[str]]:
    """{shell number: its command lines} of the page's recipe."""
    found = re.findall(r"<!-- recipe: shell (\d+) -->\s*```sh\n(.*?)```", PAGE.read_text(), re.S)
    return {int(n): [line for line in body.splitlines() if line.strip()] for n, body in found}


def test_the_page_has_the_two_shells():
    blocks = recipe_blocks()
    assert sorted(blocks) == [1, 2]
    assert blocks[1][-1].startswith(".venv/bin/pybatsim ") and blocks[2][0].startswith("batsim ")


@pytest.mark.skipif(BATSIM is None, reason=f"{NO_BATSIM}: {NO_BATSIM_HELP}")
def test_the_recipe_runs_as_written(tmp_path):
    venv_bin = f"{Path(sys.executable).parent}/"

    def adapt(line: str) -> str:
        line = line.replace("ipc:///tmp/adaptsched-recipe.sock", f"ipc://{tmp_path}/recipe.sock")
        line = line.replace("results/recipe", str(tmp_path / "recipe")).replace(".venv/bin/", venv_bin)
        return re.sub(r"^batsim ", f"{BATSIM} ", line)

    blocks = recipe_blocks()
    shell1, shell2 = [adapt(c) for c in blocks[1]], [adapt(c) for c in blocks[2]]

    def bash(command: str):
        return subprocess.run(["bash", "-c", command], cwd=REPO, capture_output=True, text=True, timeout=HANG_GUARD_S)

    for command in shell1[:-1]:
        done = bash(command)
        assert done.returncode == 0, (command, done.stderr)
    with open(tmp_path / "pybatsim.log", "w") as log:
        scheduler = subprocess.Popen(["bash", "-c", shell1[-1]], cwd=REPO, stdout=log, stderr=subprocess.STDOUT)
    try:
        batsim = bash(shell2[0])
        assert batsim.returncode == 0, batsim.stdout + batsim.stderr
        assert scheduler.wait(timeout=HANG_GUARD_S) == 0, (tmp_path / "pybatsim.log").read_text()
    finally:
        if scheduler.poll() is None:
            scheduler.kill()
    metrics = bash(shell2[1])
    assert metrics.returncode == 0, metrics.stderr
    assert "| jobs | 1,000 |" in metrics.stdout
    out = tmp_path / "recipe"
    for name in ("easy_jobs.csv", "easy_schedule.csv", "easy_machine_states.csv", "easy_schedule.trace"):
        assert (out / name).stat().st_size > 0, name
    assert len((out / "easy_jobs.csv").read_text().splitlines()) == 1 + 1000
