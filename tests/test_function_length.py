"""No function of the package or of its benchmarks is over 80 lines, its docstring not counted
(the project's style: small functions with one job each). Read from the source with :mod:`ast`: nothing is imported."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SKIP = {"tests", "build", "dist", "docs", "examples"}
MAX_LINES = 80


def lengths(path: Path) -> list[tuple[str, int, int]]:
    """(name, line, length) of every function in ``path``: from its ``def`` to its last line,
    less its docstring's lines."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                length -= (first.end_lineno or first.lineno) - first.lineno + 1
            out.append((node.name, node.lineno, length))
    return out


def test_lengths_are_measured_as_said(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text('def f():\n    """Two\n    lines."""\n    a = 1\n    return a\n\n\ndef g():\n    pass\n')
    assert lengths(sample) == [("f", 1, 3), ("g", 8, 2)]


def test_no_function_is_over_80_lines():
    long = []
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT).parts
        if parts[0] in SKIP or any(part.startswith(".") for part in parts):
            continue
        long += [
            f"{path.relative_to(ROOT)}:{line} {name}: {n} lines" for name, line, n in lengths(path) if n > MAX_LINES
        ]
    assert not long, "\n".join(long)
