"""Every path of the repository that README.md names exists (and the docs pages' links and
reports).

Checked: the targets of relative Markdown links, and `code` spans naming a path (one word
with a "/"), in README.md; in docs/*.md, relative links (from their page) and the reports
named from the root (`docs/results/...`). Not checked: what commands write
(``results/...``, ``.venv/``), the shared folder beside the clone (``../shared/...``), and
indented code blocks (command lines).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINK = re.compile(r"\]\(([^)\s]+)\)")
CODE = re.compile(r"`([^`\s]+)`")
NOT_IN_THE_REPOSITORY = ("results/", ".venv/", "../", "~")


def _prose(text: str) -> str:
    """The text without its indented code blocks (4 spaces or a tab) and fenced blocks."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return "\n".join(line for line in text.splitlines() if not line.startswith(("    ", "\t")))


def named_paths(text: str) -> set[str]:
    """Relative paths a Markdown text names: link targets and one-word code spans with a "/"."""
    text = _prose(text)
    out = {link.split("#")[0] for link in LINK.findall(text) if not re.match(r"[a-z]+:|#", link)}
    out |= {code for code in CODE.findall(text) if "/" in code and not re.search(r"[A-Z]{3,}|\*|=|:", code)}
    return {p for p in out if p and not p.startswith(NOT_IN_THE_REPOSITORY)}


def test_named_paths_reads_links_and_code_spans():
    text = (
        "See [the docs](docs/a.md#part), `core/x.py`, `results/demo/`, `../shared/traces/`, "
        "`PREFIX_jobs.csv`, `docs/results/PAPER/`, [web](https://example.org/x) and `--out DIR`.\n"
        "\n    .venv/bin/adaptsched demo --out results/x\n"
    )
    assert named_paths(text) == {"docs/a.md", "core/x.py"}


def test_every_path_readme_names_exists():
    missing = sorted(p for p in named_paths((ROOT / "README.md").read_text()) if not (ROOT / p).exists())
    assert not missing, f"README.md names paths that do not exist: {missing}"


@pytest.mark.parametrize("page", sorted((ROOT / "docs").glob("*.md")), ids=lambda p: p.name)
def test_every_link_of_the_docs_pages_exists(page):
    text = _prose(page.read_text())
    links = {link.split("#")[0] for link in LINK.findall(text) if not re.match(r"[a-z]+:|#", link)}
    missing = sorted(link for link in links if link and not (page.parent / link).exists())
    # the committed reports, named from the repository's root
    missing += sorted(c for c in CODE.findall(text) if c.startswith("docs/results/") and not (ROOT / c).exists())
    assert not missing, f"{page.name} names paths that do not exist: {missing}"


def test_readme_stays_short() -> None:
    """README is the front page: what it is, the two commands, one line per paper, the commands
    and where the docs are, in at most 90 lines; measurements and detail live in docs/."""
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 90, f"README.md has {len(lines)} lines (at most 90): move detail to docs/"
