"""A reproduction report's prose never says what its tables do not.

For the committed reports of Barsanti & Sodan, Perković & Keleher and Klein & Pérez (and for
reports written from made-up runs, so that the code that writes them is held to it too):

* the headline is the one :func:`~adaptsched.reproduce.common.headline` gives for the classes
  and verdicts of ``findings.csv``, and README quotes it;
* every number in the prose (outside tables, headings, code, image links, section and figure
  references) is a number of one of the report's tables: prose is made from the data or
  carries no figure of its own;
* each "what decided each claim made of parts" line is its claim's details in ``findings.csv``.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from adaptsched.reproduce.common import Claim, headline

ROOT = Path(__file__).resolve().parents[1]
REPORTS = ("scojo-p", "perkovic-keleher", "klein-perez")
NUMBER = re.compile(r"(?<![\w.])[-+−]?\d[\d,]*(?:\.\d+)?")
#: References, not figures: "sec. 5.3", "Fig. 14", "Figs 5-9", "Table 1", "Tables 1 and 2"...
REFERENCE = re.compile(
    r"\b(?:sec\.|secs\.|section|sections|Fig\.|Figs|Figure|Figures|Table|Tables|claim|claims|Algorithm|"
    r"Algorithms|line|lines|step|steps|C)\s*\d[\d.]*(?:\s*(?:-|to|and|,)\s*\d[\d.]*)*",
    re.IGNORECASE,
)
CODE = re.compile(r"`[^`]*`")
LINK = re.compile(r"!?\[[^\]]*\]\([^)]*\)")
QUOTE = re.compile(r'"[^"]*"')


def numbers(text: str) -> set[float]:
    out = set()
    for match in NUMBER.findall(text):
        try:
            out.add(abs(float(match.replace(",", "").replace("−", "-"))))
        except ValueError:
            continue
    return out


def split(report: str) -> tuple[list[str], list[str], list[str]]:
    """(table lines, prose lines, "what decided" lines of the first findings table: the one
    ``findings.csv`` holds) of a Markdown report."""
    tables, prose, details = [], [], []
    block = 0  # the "what decided" blocks seen
    in_details = False
    for line in report.splitlines():
        if line.startswith("|"):
            tables.append(line)
            in_details = False
        elif line.startswith("What decided each claim made of parts"):
            block += 1
            in_details = True
        elif in_details and re.match(r"^\d+\. ", line):
            if block == 1:
                details.append(line)
        elif line.startswith(("#", "![", "Made by `", "`")) or not line.strip():
            continue
        else:
            prose.append(line)
    return tables, prose, details


def prose_numbers(line: str) -> set[float]:
    for pattern in (CODE, LINK, QUOTE, REFERENCE):
        line = pattern.sub(" ", line)
    line = re.sub(r"\*\*\d+ of \d+ independent claims hold\*\*.*", " ", line)  # the headline: checked apart
    return numbers(line)


def read_claims(path: Path) -> list[dict]:
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def check_report(report: str, rows: list[dict]) -> None:
    """The checks of the module doc on a report's text and its findings.csv rows."""
    claims = [Claim(r["claim"], r["paper"], None, r["tolerance"], r["source"], r["class"], r["verdict"]) for r in rows]
    assert headline(claims) in report, headline(claims)
    tables, prose, details = split(report)
    in_tables = numbers(" ".join(tables))
    stray = {line: sorted(prose_numbers(line) - in_tables) for line in prose}
    stray = {line: found for line, found in stray.items() if found and headline(claims) not in line}
    assert not stray, stray
    for line in details:
        number, text = line.split(". ", 1)
        assert rows[int(number) - 1]["details"] == text, (line, rows[int(number) - 1]["details"])


@pytest.mark.parametrize("paper", REPORTS)
def test_committed_report_prose_agrees_with_its_tables(paper):
    folder = ROOT / "docs" / "results" / paper
    report = (folder / "report.md").read_text()
    rows = read_claims(folder / "findings.csv")
    check_report(report, rows)
    quoted = re.search(r"\*\*\d+ of \d+ independent claims hold\*\*", report)
    assert quoted, f"docs/results/{paper}/report.md has no headline"
    readme = (ROOT / "README.md").read_text()
    line = next(x for x in readme.splitlines() if f"docs/results/{paper}/report.md" in x)
    assert quoted.group(0) in line, (paper, quoted.group(0), line)


def test_a_figure_typed_in_the_prose_is_caught():
    report = "Intro with 12 jobs.\n\n| a | b |\n|---|---|\n| 12 | 3.5 % |\n\nWe measured 7,174 more (sec. 5.3).\n"
    tables, prose, _ = split(report)
    in_tables = numbers(" ".join(tables))
    assert prose_numbers(prose[0]) <= in_tables  # 12 is in the table
    assert prose_numbers(prose[1]) - in_tables == {7174.0}  # 7,174 is not; sec. 5.3 is a reference
