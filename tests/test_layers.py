"""The layers import only downwards, and no module imports itself back through others.

Layers, lowest first (docs/architecture.md): the root's ``errors``, ``limits`` and ``__init__``; ``core``;
``formats``; ``workloads`` and ``platforms``; ``schedulers``, ``engines`` and ``api`` (the public
API for scheduler files, which re-exports core, a workload helper and the plugin helper); ``analysis``;
``sweep``; ``reproduce``; the command line (``cli``, ``demo``, ``__main__``). A module may
import its own layer and those below it. Every import counts, at the top of a module or
inside a function (a lazy import is still a dependency), except those under
``if TYPE_CHECKING:``. Read from the source with :mod:`ast`: nothing is imported.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "adaptsched"
LAYERS = (
    ("errors", "limits", ""),
    ("core",),
    ("formats",),
    ("workloads", "platforms"),
    ("schedulers", "engines", "api"),
    ("analysis",),
    ("sweep",),
    ("reproduce",),
    ("cli", "demo", "__main__"),
)
RANK = {name: rank for rank, names in enumerate(LAYERS) for name in names}
# examples: users' code, on adaptsched.api; setup.py: the build script, which setuptools leaves out
SKIP = {"tests", "benchmarks", "build", "dist", "docs", "examples", "setup"}


def modules() -> dict[str, Path]:
    """{dotted module name: file} of every module of the package."""
    out = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[0] in SKIP or parts[0].startswith(".") or any(p.startswith(".") for p in parts):
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join((PACKAGE, *parts))] = path
    return out


def _type_checking_block(node: ast.AST) -> bool:
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and (
        (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
        or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")
    )


def imports(name: str, path: Path, known, *, type_checking: bool = False) -> set[str]:
    """The package's modules that ``name`` imports (a package's own ``__init__`` counts when
    importing from it names one of its attributes rather than a submodule); with
    ``type_checking``, those under ``if TYPE_CHECKING:`` too."""
    is_package = path.name == "__init__.py"
    found = set()

    def resolve(target: str) -> str | None:
        while target and target not in known:  # a name inside a module: its module
            target = target.rpartition(".")[0]
        return target or None

    def visit(node):
        for child in ast.iter_child_nodes(node):
            if _type_checking_block(child) and not type_checking:
                continue
            if isinstance(child, ast.Import):
                found.update(resolve(a.name) for a in child.names if a.name.split(".")[0] == PACKAGE)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = name.split(".")
                    base = base if is_package else base[:-1]
                    base = base[: len(base) - (child.level - 1)]
                    module = ".".join(base + ([child.module] if child.module else []))
                else:
                    module = child.module or ""
                if module.split(".")[0] != PACKAGE:
                    continue
                for alias in child.names:
                    found.add(resolve(f"{module}.{alias.name}"))
            visit(child)

    visit(ast.parse(path.read_text(), str(path)))
    found.discard(None)
    found.discard(name)
    return found


def layer(module: str) -> int:
    parts = module.split(".")
    return RANK[parts[1] if len(parts) > 1 else ""]


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def test_every_module_has_a_layer(graph):
    for module in graph:
        assert module.split(".")[1:2] == [] or module.split(".")[1] in RANK, f"{module}: add its folder to LAYERS"


def test_no_import_from_a_higher_layer(graph):
    upward = sorted(
        f"{module} (layer {layer(module)}) imports {target} (layer {layer(target)})"
        for module, targets in graph.items()
        for target in targets
        if layer(target) > layer(module) and target != PACKAGE
    )
    assert not upward, "\n".join(upward)


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def connect(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return out


def test_cycles_finds_a_hand_made_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle(graph):
    # the root package only re-exports its version: importing it is not a dependency
    found = cycles({m: {t for t in ts if t != PACKAGE} for m, ts in graph.items()})
    assert not found, "\n".join(" <-> ".join(c) for c in found)


def test_no_cycle_hidden_under_type_checking():
    """A cycle broken only for the interpreter (``if TYPE_CHECKING:``) is still a cycle for a
    reader: core/base.py and core/queue.py had one; core/job.py now sits below both."""
    known = modules()
    full = {name: imports(name, path, known, type_checking=True) for name, path in known.items()}
    found = cycles({m: {t for t in ts if t != PACKAGE} for m, ts in full.items()})
    assert not found, "\n".join(" <-> ".join(c) for c in found)
