"""docs/energy.md says what its reports say: the study's block is the committed study report
(examples/energy_study.py writes both), and every figure of the study's and the speed section's
prose is a figure of the study report or of the energy benchmark's report. A figure typed by hand,
or left behind by an older run, fails."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "energy.md"
STUDY = ROOT / "docs" / "results" / "energy-study.md"
BENCHMARK = ROOT / "docs" / "results" / "engines" / "energy" / "benchmark.md"
BEGIN, END = "<!-- energy-study: begin -->", "<!-- energy-study: end -->"
NUMBER = re.compile(r"(?<![\w.])[-+]?\d[\d,]*(?:\.\d+)?")
CODE = re.compile(r"`[^`]*`")
LINK = re.compile(r"!?\[[^\]]*\]\([^)]*\)")


def numbers(text: str) -> set[float]:
    return {abs(float(n.replace(",", ""))) for n in NUMBER.findall(LINK.sub("", CODE.sub("", text)))}


def section(title: str) -> str:
    text = DOC.read_text()
    start = text.index(f"\n## {title}")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


def test_the_study_block_is_the_committed_study_report():
    block = DOC.read_text().split(BEGIN)[1].split(END)[0].strip()
    report = STUDY.read_text().split("\n", 2)[2].strip()  # without its title
    assert block == report


def test_the_study_prose_quotes_only_the_study_report():
    prose = section("Study").replace(DOC.read_text().split(BEGIN)[1].split(END)[0], "")
    quoted = numbers(prose) - numbers(STUDY.read_text())
    assert not quoted, f"figures of docs/energy.md's study prose not in {STUDY.name}: {sorted(quoted)}"


def test_the_speed_prose_quotes_only_the_benchmark_report():
    quoted = numbers(section("Speed")) - numbers(BENCHMARK.read_text())
    assert not quoted, f"figures of docs/energy.md's speed prose not in {BENCHMARK}: {sorted(quoted)}"
