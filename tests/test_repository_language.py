"""The repository speaks of the software only: no tracker numbers, no work-log language.

No tracker ships with the repository, so "issue 26" or "#31" mean nothing to a reader, and
numbered working periods ("the twelfth session"), copies tagged by them
(``throughput_twelfth.md``) and sections headed by a date tell our history instead of the
design. History that matters to users is in CHANGELOG.md, by capability and date; git keeps
the rest. Every tracked text file is scanned: code, tests, docs, committed reports.

Left alone on purpose: references to other projects' trackers (``mypyc/mypyc#1162``,
``github.com/x/y/issues/12``: a cited source, not our history); job copies (``w0!3#1``);
colours (``#333;``); a process's session (``start_new_session``), an SSH or ``tmux`` session;
benchmark rounds ("round 1 of 3"); dates in reports (a report states when it was measured) and
in CHANGELOG.md's headings.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
THIS = Path(__file__).resolve()

_ORDINALS = (
    "third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|"
    "fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth"
)
_PERIOD = "session|sitting|period|helper|round of work|working day"

#: name -> pattern; each names one way history leaks into the software's text.
PATTERNS = {
    "tracker number (issue N)": re.compile(r"\b[Ii]ssues? #?\d+\b"),
    "tracker number (#N)": re.compile(r"(?:^|[\s(\[])#\d{2,3}\b(?![;\w])"),
    "numbered working period": re.compile(rf"\b(?:first|second|{_ORDINALS})[ -](?:{_PERIOD})s?\b", re.I),
    "numbered round or pass": re.compile(rf"\b(?:{_ORDINALS})[ -](?:round|pass)s?\b", re.I),
    "name tagged by a working period": re.compile(rf"[_-](?:{_ORDINALS})(?=[._/-]\w)", re.I),
    "working session": re.compile(r"\bsessions?\b(?!\s*=)", re.I),
    "dated section heading": re.compile(r"^#{1,6} .*\b20\d\d-\d\d-\d\d"),
}

#: the legitimate sessions: a process's (its own process group), a terminal's, a browser's.
LEGITIMATE_SESSION = re.compile(
    r"new_session|cdp_session|SSH session|`(?:screen|tmux)` session|DevTools session|remote sessions|"
    r"own session|process group|pytest_session\w*\(session\)|\bsession\.config\b",
    re.I,
)

#: files whose text is not ours: licences, vendored formats.
NOT_OURS = {"COPYING", "LICENSE"}

BINARY_SUFFIXES = {".png", ".gz", ".svg", ".pdf", ".jpg", ".ico", ".woff", ".woff2", ".zip", ".pkl"}


def tracked_text_files() -> list[Path]:
    names = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, text=True
    ).stdout.split("\0")
    files = []
    for name in filter(None, names):
        path = ROOT / name
        if name in NOT_OURS or path.suffix.lower() in BINARY_SUFFIXES or path.resolve() == THIS:
            continue
        if path.is_file():
            files.append(path)
    return files


#: "issue" at the end of a line whose next line starts with its number (prose wrapped there)
WRAPPED_ISSUE = re.compile(r"\b[Ii]ssues?\n[\s#*/>-]*#?\d+\b")


def offences(text: str, heading_rules: bool = True) -> list[tuple[int, str, str]]:
    """(line number, pattern name, line) for each line of ``text`` that tells our history."""
    lines = text.splitlines()
    found = [
        (text.count("\n", 0, m.start()) + 1, "tracker number (issue N)", lines[text.count("\n", 0, m.start())].strip())
        for m in WRAPPED_ISSUE.finditer(text)
    ]
    for number, line in enumerate(lines, 1):
        for name, pattern in PATTERNS.items():
            if name == "dated section heading" and not heading_rules:
                continue
            if name == "working session" and LEGITIMATE_SESSION.search(line):
                continue
            if pattern.search(line):
                found.append((number, name, line.strip()[:120]))
    return found


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("see issue 26, target 2", ["tracker number (issue N)"]),
        ("as Issue 31 asks", ["tracker number (issue N)"]),
        ("measured before issue\n24: means only", ["tracker number (issue N)"]),
        ("fixed in #45 last week", ["tracker number (#N)"]),
        ("## Speed after the twelfth session", ["numbered working period", "working session"]),
        ("in the fifteenth round, conservative", ["numbered round or pass"]),
        ("[report](results/engines/throughput_dvqops_tenth.json)", ["name tagged by a working period"]),
        ("the previous session's measurements", ["working session"]),
        ("### Conservative on deep queues (2026-11-25)", ["dated section heading"]),
        ("mypyc/mypyc#1162 is open upstream", []),
        ("greedy_third='quarter'; jobs_per_cpu_s_by_tenth", []),
        ("https://github.com/oar-team/batsim/issues/12 explains it", []),
        ("job w0!3#1 and 3#2 were killed", []),
        ("td{color:#333;border:1px solid #777;}", []),
        ("start_new_session=True,  # its own process group", []),
        ("in a `tmux` or `screen` session (it must outlive your SSH session)", []),
        ("best of 3 rounds; round 1 of 3; a second pass over the queue", []),
        ("Measured 2026-11-27 08:01 UTC at commit aa3de31", []),
    ],
)
def test_the_patterns_catch_history_and_spare_the_software(text, expected):
    assert [name for _, name, _ in offences(text)] == expected


def test_the_repository_speaks_of_the_software_only():
    found = []
    for path in tracked_text_files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        rel = path.relative_to(ROOT).as_posix()
        # a report states when it was measured, the changelog when a capability came: their
        # headings may carry dates
        dated = rel.startswith("docs/results/") or rel == "CHANGELOG.md"
        for number, name, line in offences(text, heading_rules=not dated):
            found.append(f"{rel}:{number}: {name}: {line}")
    assert not found, f"{len(found)} lines tell the project's history, not the software's:\n" + "\n".join(found)
