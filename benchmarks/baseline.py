"""Which code a benchmark measures, and on what: this tree's commit and the load average as its
reports name them, and another commit's code beside this tree's, for the benchmarks that measure a
baseline in the same run as this tree (``throughput.py --base``, ``scale.py --base``), so that
both sides meet the same machine."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def load() -> str:
    """The load average over 1, 5 and 15 minutes, as the reports print it ("?" where there is none)."""
    try:
        return "%.1f, %.1f, %.1f" % os.getloadavg()
    except OSError:
        return "?"


def commit() -> str:
    """HEAD's short hash, with "+" when a Python file has uncommitted changes (the code measured is
    then not that commit's; reports and docs, README's speed section included, do not count)."""
    try:
        head = subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no", "--", "*.py"],
            capture_output=True,
            text=True,
        ).stdout.strip()
        return head + ("+" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "?"


def build() -> str:
    """What code runs: "pure Python", or the compiled core when ``adaptsched.core`` is made of
    extension modules (``PYTHONPATH=`` a ``benchmarks/compiled.py`` build, whose stamp names the
    commit it was built from: not necessarily :func:`commit`'s)."""
    import adaptsched.core.base as base

    path = Path(str(base.__file__))
    if path.suffix == ".py":
        return "pure Python"
    stamp = path.parents[2] / "built-from"  # BUILD/adaptsched/core/base.*.so -> BUILD/built-from
    return f"compiled core (mypyc, built from {stamp.read_text().strip() if stamp.is_file() else '?'})"


def code_of(rev: str, where: Path) -> tuple[str, Path]:
    """The full sha of commit ``rev``, and a folder under ``where`` whose ``adaptsched`` is that
    commit's code (``git archive``, made once): first on a child process's ``PYTHONPATH``, it runs
    that commit's adaptsched instead of this tree's."""
    sha = subprocess.run(["git", "-C", str(REPO), "rev-parse", rev], capture_output=True, text=True, check=True)
    sha_text = sha.stdout.strip()
    path = where / f"code-{sha_text[:10]}"
    tree = path / "adaptsched"
    if not tree.is_dir():
        tree.mkdir(parents=True)
        archive = subprocess.run(["git", "-C", str(REPO), "archive", sha_text], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
    return sha_text, path
