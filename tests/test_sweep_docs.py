"""docs/sweeps.md's batch script, run as written (slow): the one-job Slurm script with Slurm's
parts stood in for (``srun`` starts one worker here, ``ib0`` is the loopback interface, the
job id is the test's), on a 4-run spec. It removes the scheduler file, waits for the new
one, runs the sweep through ``--scheduler-file``, stops its processes and removes the file;
nothing it starts listens beyond loopback. And (fast) every ``adaptsched sweep`` command in
README, docs/sweeps.md and docs/scaling.md uses only the command's own options, and every
``dask scheduler`` / ``dask worker`` there keeps its HTTP server on loopback.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from listening import Watch, exposed

REPO = Path(__file__).resolve().parent.parent
EXCERPT = REPO / "workloads" / "excerpts" / "CTC-SP2-1996-3.1-cln.first5000.swf.gz"
SPEC = f"""
platforms = [32]

[[schedulers]]
name = "backfill"
options = {{ order = ["D", "P"], guarantees = [true, false] }}

[[workloads]]
trace = "{EXCERPT}"
first = 60
"""


def batch_script() -> str:
    text = (REPO / "docs" / "sweeps.md").read_text()
    section = text[text.index("### One batch job that holds everything") :]
    found = re.search(r"```bash\n(.*?)```", section, re.S)
    assert found, "docs/sweeps.md: no bash block after 'One batch job that holds everything'"
    return found.group(1)


@pytest.mark.slow
def test_the_docs_sbatch_script_runs_a_sweep(tmp_path):
    script = batch_script()
    assert script.count('rm -f "$sched"') == 2 and 'while [ ! -s "$sched" ]' in script
    assert "--dashboard-address 127.0.0.1:0" in script and "0.0.0.0" not in script
    venv = Path(sys.executable).parent.parent
    script = script.replace("~/adaptsched/.venv", str(venv)).replace("ib0", "lo")
    script = script.replace("srun --cpu-bind=cores ", "")  # one worker, here
    (tmp_path / "spec.toml").write_text(SPEC)
    (tmp_path / "stale").mkdir()
    sched = tmp_path / "dask-scheduler-4242.json"
    sched.write_text('{"address": "tcp://127.0.0.1:1"}')  # a stale file from an earlier job
    env = dict(os.environ, HOME=str(tmp_path), SLURM_JOB_ID="4242", TMPDIR=str(tmp_path / "stale"))
    with Watch(period_s=0.2) as watch:
        done = subprocess.run(
            ["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
        )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "4 runs: 4 done, 0 failed, 0 skipped" in done.stdout, done.stdout
    assert len(list((tmp_path / "results" / "big" / "runs").glob("*_jobs.csv"))) == 4
    assert not sched.exists()
    assert any("dask worker" in command or "dask_worker" in command for command in watch.commands)
    assert watch.seen and not exposed(watch.seen), exposed(watch.seen)


def commands(text: str, start: str) -> list[str]:
    """The commands of ``text`` (docs' code blocks and indented lines) that begin with
    ``start`` (after ``srun``'s own options, if any), continuation lines (a trailing
    backslash, or the synopsis's indented ``|`` and ``[`` lines) joined."""
    lines, found = text.splitlines(), []
    for i, line in enumerate(lines):
        if not re.match(r"\s*(srun( --\S+)* )?" + re.escape(start), line):  # srun's workers too
            continue
        command = line
        while command.rstrip().endswith("\\") or (
            i + 1 < len(lines) and lines[i + 1].strip()[:1] in ("|", "[") and lines[i + 1].startswith("    ")
        ):
            i += 1
            command = command.rstrip().rstrip("\\") + " " + lines[i].strip()
        found.append(command)
    return found


@pytest.mark.parametrize("doc", ["README.md", "docs/sweeps.md", "docs/scaling.md"])
def test_the_docs_sweep_commands_use_the_cli_s_own_options(doc):
    """Every option in the docs' ``adaptsched sweep`` commands (and the synopses) is one the
    command has, and every ``dask scheduler`` / ``dask worker`` keeps its HTTP server on
    loopback (it listens on all interfaces otherwise, ``--no-dashboard`` or not)."""
    from adaptsched.cli import build_parser

    parser = build_parser()
    [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    known = set(sub.choices["sweep"]._option_string_actions)
    text = (REPO / doc).read_text()
    sweeps = commands(text, "adaptsched sweep")
    assert sweeps or doc == "docs/scaling.md"
    for command in sweeps:
        used = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", command))
        assert used <= known, (doc, command, used - known)
    for command in commands(text, "dask scheduler") + commands(text, "dask worker"):
        assert "--dashboard-address 127.0.0.1:0" in command and "0.0.0.0" not in command, (doc, command)
        assert "--no-dashboard" not in command, (doc, command)
