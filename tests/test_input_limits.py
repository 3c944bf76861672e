"""Inputs cost what their work costs, not what they claim: each hostile input ends at once under a
2 GB address-space cap with one message; streaming readers read what the whole-file readers
read; a full disk names its file; docs/errors.md's exit statuses and limits are the code's."""

from __future__ import annotations

import contextlib
import doctest
import errno
import gzip
import importlib
import json
import os
import re
import resource
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from helpers import CTC_EXCERPT, REPO

from adaptsched import limits
from adaptsched.cli import main
from adaptsched.cli.common import EXIT_ERROR, EXIT_INTERRUPTED, EXIT_NOTHING_CHECKED, EXIT_OK, EXIT_USAGE
from adaptsched.errors import InputError, file_problem
from adaptsched.workloads.batsim_json import load_workload
from adaptsched.workloads.swf import read_swf

GOOD_SWF = REPO / "tests" / "fixtures" / "swf" / "good.swf"
CAP_BYTES = 2_000_000_000
CPU_LIMIT_S = 10.0


def zeros_bomb(path: Path) -> Path:
    """A 1 MB gzip file of 1 GB of zeros: 1,000 gzip members of 1 MiB of zeros each."""
    path.write_bytes(gzip.compress(bytes(1 << 20), 9) * 1000)
    return path


def capped(argv: list[str]) -> tuple[int, str, float]:
    """(exit status, stderr, CPU seconds) of ``adaptsched ARGV`` in a process capped at 2 GB of
    address space (``ulimit -v 2000000``)."""

    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (CAP_BYTES, CAP_BYTES))

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = subprocess.run(
        [sys.executable, "-m", "adaptsched", *argv], capture_output=True, text=True, preexec_fn=cap, timeout=120
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return result.returncode, result.stderr, cpu


@pytest.mark.parametrize(
    ("case", "status", "message"),
    [
        ("gzip of 1 GB of zeros", 1, "zeros.swf.gz: not a text file (it holds binary data)"),
        ("--platform 1000000000000", 2, "--platform: at most 1,000,000 hosts"),
        ("platform --hosts 1e18", 2, "argument --hosts: at most 1,000,000 hosts"),
        ("convert --add-flurry count=1e8", 2, "count=1e8: at most 1,000,000"),
        ("--workload /dev/zero", 1, "/dev/zero: not a text file (it holds binary data)"),
    ],
)
def test_claims_cost_nothing_under_a_2_gb_cap(tmp_path, case, status, message):
    workload = tmp_path / "w.json"
    assert main(["convert", str(GOOD_SWF), str(workload)]) == 0
    run = ["run", "--scheduler", "easy", "--out", str(tmp_path / "r")]
    argv = {
        "gzip of 1 GB of zeros": ["convert", str(zeros_bomb(tmp_path / "zeros.swf.gz")), str(tmp_path / "z.json")],
        "--platform 1000000000000": [*run, "--workload", str(workload), "--platform", "1000000000000"],
        "platform --hosts 1e18": ["platform", "--hosts", "1e18", str(tmp_path / "p.xml")],
        "convert --add-flurry count=1e8": [
            "convert",
            str(GOOD_SWF),
            str(tmp_path / "f.json"),
            "--add-flurry",
            "count=1e8,window=0:1000",
        ],
        "--workload /dev/zero": [*run, "--workload", "/dev/zero", "--platform", "4"],
    }[case]
    got, err, cpu = capped(argv)
    assert got == status and message in err, err
    assert err.count("\n") <= 10 and "Traceback" not in err and "internal error" not in err, err
    assert cpu < CPU_LIMIT_S, f"{cpu:.1f} s of CPU"


def test_a_gzip_bomb_of_text_is_refused_by_its_ratio(tmp_path):
    bomb = tmp_path / "lines.swf.gz"
    bomb.write_bytes(gzip.compress(b"\n" * (1 << 20), 9) * 1000)  # 1 MB inflating to 1 GB of empty lines
    with pytest.raises(InputError, match=r"inflates to more than 200 times its size"):
        read_swf(bomb)


def test_the_stream_reads_what_the_whole_file_reader_read(tmp_path):
    """Every encoding and line end of one trace gives the same jobs and header; the digest is the
    stored file's; gzip members and blocks split anywhere change nothing."""
    text = GOOD_SWF.read_bytes()
    plain = read_swf(GOOD_SWF)
    variants = {
        "crlf.swf": text.replace(b"\n", b"\r\n"),
        "cr.swf": text.replace(b"\n", b"\r"),
        "utf16.swf": text.decode().encode("utf-16"),
        "utf16le.swf": text.decode().encode("utf-16-le"),
        "utf16be.swf": text.decode().encode("utf-16-be"),
        "members.swf.gz": gzip.compress(text[:333]) + gzip.compress(text[333:]),
    }
    for name, data in variants.items():
        path = tmp_path / name
        path.write_bytes(data)
        trace = read_swf(path)
        assert trace.header == plain.header and trace.header_lines == plain.header_lines, name
        assert [job[:-1] for job in trace.jobs] == [job[:-1] for job in plain.jobs], name
        assert [job.line for job in trace.jobs] == [job.line for job in plain.jobs], name
        import hashlib

        assert trace.sha256 == hashlib.sha256(data).hexdigest(), name


def test_blocks_split_anywhere(monkeypatch):
    """Tiny blocks (a CR LF and UTF-8 characters cut in two): the same trace as in one block."""
    from adaptsched.formats import files

    whole = read_swf(CTC_EXCERPT)
    monkeypatch.setattr(files, "BLOCK_BYTES", 4099)
    small = read_swf(CTC_EXCERPT)
    assert small.jobs == whole.jobs and small.header == whole.header and small.sha256 == whole.sha256


def test_corrupt_gzip_is_named(tmp_path):
    data = gzip.compress(GOOD_SWF.read_bytes() * 50)
    cases = {"truncated.swf.gz": data[:-30], "flipped.swf.gz": data[:40] + bytes([data[40] ^ 0xFF]) + data[41:]}
    for name, content in cases.items():
        (tmp_path / name).write_bytes(content)
        with pytest.raises(InputError, match="corrupt or truncated gzip data") as info:
            read_swf(tmp_path / name)
        assert name in str(info.value)


def test_a_json_workload_loads_as_before(tmp_path):
    """The sniffing reader changes nothing for a valid workload: the jobs and profiles of the CTC
    excerpt, converted, load as the decoded JSON says."""
    path = tmp_path / "w.json"
    assert main(["convert", str(CTC_EXCERPT), str(path), "--first", "300"]) == 0
    doc = json.loads(path.read_text())
    loaded = load_workload(path)
    assert [job.name for job in loaded.jobs.values()] == [str(job["id"]) for job in doc["jobs"]]
    assert [job.subtime for job in loaded.jobs.values()] == [float(job["subtime"]) for job in doc["jobs"]]


def test_a_full_disk_through_the_command_line(tmp_path, monkeypatch, capsys):
    """``platform`` on a full disk (ENOSPC without a file name): exit 1, the file named, and no
    half-written platform or temporary file left."""

    def full(self, text, encoding=None):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(Path, "write_text", full)
    out = tmp_path / "p.xml"
    assert main(["platform", "--hosts", "4", str(out)]) == EXIT_ERROR
    err = capsys.readouterr().err
    assert f"{out}: No space left on device" in err and not out.exists()
    assert not list(tmp_path.glob(".p.xml.tmp*"))


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
def test_dev_full_names_the_file(capsys):
    """/dev/full answers every write with ENOSPC: the message names it."""
    assert main(["platform", "--hosts", "4", "/dev/full"]) == EXIT_ERROR
    assert "/dev/full: No space left on device" in capsys.readouterr().err


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
def test_the_file_being_written_is_found_in_the_traceback():
    """A write error without a file name is named by the file its frame was writing: a local
    (``with open(...) as out``) or an attribute of one (``self._file``), as the engine's writers hold them."""

    class Writer:
        def __init__(self):
            self._file = open("/dev/full", "w")

        def write(self):
            self._file.write("x" * 100_000)
            self._file.flush()

    def local():
        with open("/dev/full", "w") as out:
            out.write("x" * 100_000)

    writer = Writer()
    for action in (local, writer.write):
        with pytest.raises(OSError) as info:
            action()
        assert info.value.filename is None and file_problem(info.value) == "/dev/full: No space left on device"
    with contextlib.suppress(OSError):  # (what is left of its buffer goes to /dev/full again)
        writer._file.close()
    assert writer._file.closed


def test_a_10_million_digit_token_is_not_repeated(tmp_path, capsys):
    token = "7" * 10_000_000
    cases = [
        ["platform", "--hosts", token, str(tmp_path / "p.xml")],
        ["convert", str(GOOD_SWF), str(tmp_path / "c.json"), "--add-flurry", f"count={token},window=0:1"],
    ]
    for name, text in (("w.json", '{"nb_res": "' + token + '"}'), ("t.swf", "1 " + token + " 0" * 16 + "\n")):
        (tmp_path / name).write_text(text)
    cases.append(["convert", str(tmp_path / "t.swf"), str(tmp_path / "c.json")])
    cases.append(["mold-annotate", str(tmp_path / "w.json"), str(tmp_path / "m.json")])
    for argv in cases:
        try:
            main(argv)
        except SystemExit:
            pass
        err = capsys.readouterr().err
        assert "error" in err and len(err) < 3000, (argv[0], len(err))


def test_the_limits_are_the_documented_ones():
    """docs/errors.md's table of limits says the numbers of limits.py."""
    text = (REPO / "docs" / "errors.md").read_text()
    table = text[text.index("## Limits") :]
    for number in (limits.MAX_HOSTS, limits.MAX_GENERATED_JOBS, limits.MAX_DAYS, limits.MAX_TESTS):
        assert f"{number:,}" in table
    assert "1 GiB" in table and limits.MAX_TEXT_BYTES == 1 << 30
    assert "1 MiB" in table and limits.MAX_SWF_LINE_BYTES == 1 << 20
    assert f"{limits.MAX_GZIP_RATIO}x" in table


def exit_statuses_documented() -> dict[int, str]:
    text = (REPO / "docs" / "errors.md").read_text()
    return {int(m.group(1)): m.group(2) for m in re.finditer(r"^\| (\d+) \| ([^|]+) \|", text, re.M)}


def test_every_exit_status_is_documented_and_happens(tmp_path, capsys, monkeypatch):
    """Each status of docs/errors.md's table is the code's constant, and a command ends with it."""
    documented = exit_statuses_documented()
    constants = {EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_NOTHING_CHECKED, EXIT_INTERRUPTED}
    assert set(documented) == constants == {0, 1, 2, 3, 130}

    def status(argv):
        try:
            return main([str(a) for a in argv])
        except SystemExit as exit:
            return exit.code

    out = tmp_path / "w.json"
    seen = {
        status(["convert", GOOD_SWF, out]): "success",
        status(["convert", tmp_path / "nowhere.swf", out]): "error",
        status(["convert", GOOD_SWF, out, "--first", "0"]): "usage error",
        status(["run", "--scheduler", "eazy", "--workload", out, "--platform", 4, "--out", tmp_path / "r"]): "usage",
        status(["check", "evolving", "--platform", 8, "--out", tmp_path / "chk"]): "nothing checked",
    }
    from adaptsched.cli import inputs

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(inputs, "cmd_platform", interrupted)
    parser_status = status(["platform", "--hosts", 4, tmp_path / "p.xml"])
    seen[parser_status] = "interrupted"
    capsys.readouterr()
    assert set(seen) == constants, seen


@pytest.mark.parametrize(
    "module", ["adaptsched.limits", "adaptsched.errors", "adaptsched.formats.files", "adaptsched.cli.usage"]
)
def test_doctests(module):
    failed, tried = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert tried > 0 and failed == 0


def test_inflating_by_blocks_matches_zlib():
    data = os.urandom(1 << 16) * 3
    stored = gzip.compress(data)
    from adaptsched.formats.files import _inflated

    pieces = [stored[i : i + 1000] for i in range(0, len(stored), 1000)]
    assert b"".join(_inflated(iter(pieces), "x.gz")) == data == zlib.decompress(stored, 31)
