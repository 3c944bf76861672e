"""docs/sweeps.md's commands, run as written (slow): its TLS certificates made by its own
``openssl`` lines; the one-job Slurm script with Slurm's parts stood in for (``srun`` starts one
worker here, ``ib0`` is the loopback interface, the job id is the test's), on a 4-run spec, over
TLS; and the cluster started by hand, its machines' addresses made loopback, over TLS too. The
script removes the scheduler file, waits for the new one, runs the sweep through
``--scheduler-file``, stops its processes and removes the file; nothing either starts listens
beyond loopback; the scheduler by hand refuses a client without a certificate, or with one
another authority signed. And (fast) every ``adaptsched sweep`` command in README,
docs/sweeps.md and docs/scaling.md uses only the command's own options, and every ``dask
scheduler`` / ``dask worker`` there keeps its HTTP server on loopback; every command of these
pages that reaches beyond loopback does it over TLS.
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


def marked_block(marker: str) -> str:
    """The code block of docs/sweeps.md after ``<!-- MARKER -->``."""
    text = (REPO / "docs" / "sweeps.md").read_text()
    found = re.search(r"<!-- " + re.escape(marker) + r" -->\n```\w*\n(.*?)```", text, re.S)
    assert found, f"docs/sweeps.md: no block marked {marker!r}"
    return found.group(1)


def make_certificates(home: Path) -> Path:
    """The page's certificate commands, as typed, in ``home`` (for ``~``): its TLS folder."""
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", marked_block("tls: certificates")],
        cwd=home,
        env=dict(os.environ, HOME=str(home)),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    folder = home / ".adaptsched-tls"
    assert sorted(p.name for p in folder.iterdir()) == ["ca.pem", "cert.pem", "key.pem"]
    assert folder.stat().st_mode & 0o077 == 0  # private
    return folder


@pytest.mark.slow
def test_the_docs_sbatch_script_runs_a_sweep(tmp_path):
    script = batch_script()
    assert script.count('rm -f "$sched"') == 2 and 'while [ ! -s "$sched" ]' in script
    assert "--dashboard-address 127.0.0.1:0" in script and "0.0.0.0" not in script
    assert script.count('--tls-ca-file "$tls/ca.pem" --tls-cert "$tls/cert.pem" --tls-key "$tls/key.pem"') == 3
    make_certificates(tmp_path)
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
    assert "warning" not in done.stderr, done.stderr
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
    for command in sweeps + commands(text, "dask scheduler") + commands(text, "dask worker"):
        if beyond_loopback(command):
            assert all(f"--tls-{name}" in command for name in ("ca-file", "cert", "key")), (doc, command)
            plain = re.findall(r"tcp://([^\s:\"/]+)", command)
            assert all(host in LOOPBACK for host in plain), (doc, command)  # a synopsis may show loopback


LOOPBACK = ("127.0.0.1", "localhost", "[::1]")


def beyond_loopback(command: str) -> bool:
    """Whether a command's scheduler or worker is reached beyond this machine: a network
    interface, a batch cluster, a scheduler file (its scheduler's address is elsewhere), an
    address or host that is not loopback."""
    if re.search(r"--interface|interface=|--cluster |--scheduler-file", command):
        return True
    hosts = re.findall(r"(?:--host|--scheduler-address)[ =]\"?(?:\w+://)?([^\s:\"/]+)", command)
    hosts += re.findall(r"\b(?:tcp|tls)://([^\s:\"/]+)", command)
    return any(host not in LOOPBACK for host in hosts)


def test_beyond_loopback():
    assert beyond_loopback("dask scheduler --host tls://10.0.0.1 --port 8786")
    assert beyond_loopback('dask scheduler --host "tls://$ip" --port 0')  # not known to be loopback
    assert beyond_loopback("adaptsched sweep s.toml --out o --scheduler-address tcp://10.0.0.1:8786")
    assert beyond_loopback("dask worker --scheduler-file s.json --interface ib0")
    assert beyond_loopback("adaptsched sweep s.toml --out o --cluster slurm --jobs 4")
    assert not beyond_loopback("adaptsched sweep s.toml --out o --scheduler-address tcp://127.0.0.1:8786")
    assert not beyond_loopback("dask worker tcp://127.0.0.1:8786 --host 127.0.0.1 --nthreads 1")
    assert not beyond_loopback("adaptsched sweep s.toml --out o --workers 2")


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def by_hand(home: Path, port: int) -> list[str]:
    """The page's cluster started by hand, its lines joined, its machines this one: the
    scheduler, a worker (of one process), the sweep (on the 4-run spec)."""
    lines = marked_block("tls: by hand").replace("\\\n", " ").splitlines()
    lines = [line.replace("10.0.0.1", "127.0.0.1").replace("10.0.0.2", "127.0.0.1") for line in lines]
    lines = [line.replace(":8786", f":{port}").replace("--port 8786", f"--port {port}") for line in lines]
    lines = [line.replace("~/", f"{home}/").replace("--nworkers 4", "--nworkers 1") for line in lines]
    venv = Path(sys.executable).parent
    return [
        re.sub(r"^(dask|adaptsched) ", lambda m: f"{venv}/{m[1]} ", line)
        for line in lines
        if not line.startswith("export")
    ]


@pytest.mark.slow
def test_the_docs_cluster_by_hand_runs_a_sweep_over_tls(tmp_path, monkeypatch, capfd):
    """Over TLS with the page's certificates; nothing listens beyond loopback; the scheduler
    refuses a client without a certificate, or with one another authority signed."""
    from adaptsched.cli import main
    from adaptsched.sweep import cluster

    home = tmp_path / "home"
    home.mkdir()
    folder = make_certificates(home)
    port = free_port()
    scheduler, worker, sweep = by_hand(home, port)
    assert scheduler.count("--tls-") == worker.count("--tls-") == sweep.count("--tls-") == 3
    (tmp_path / "spec.toml").write_text(SPEC)
    env = dict(os.environ, HOME=str(home), DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES="1")
    logs = [open(tmp_path / f"{name}.log", "w") for name in ("scheduler", "worker")]
    started = []
    try:
        with Watch(period_s=0.2) as watch:
            for line, log in zip((scheduler, worker), logs):
                started.append(
                    subprocess.Popen(["bash", "-c", f"exec {line}"], cwd=tmp_path, env=env, stdout=log, stderr=log)
                )
            done = subprocess.run(
                ["bash", "-c", sweep], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
            )
            assert done.returncode == 0, done.stdout + done.stderr + (tmp_path / "scheduler.log").read_text()
            assert "4 runs: 4 done, 0 failed, 0 skipped" in done.stdout, done.stdout
            assert "warning" not in done.stderr, done.stderr
            monkeypatch.setattr(cluster, "CONNECT_TIMEOUT_S", 3)
            plain = ["sweep", str(tmp_path / "spec.toml"), "--out", str(tmp_path / "plain"), "--progress", "off"]
            assert main(plain + ["--scheduler-address", f"tcp://127.0.0.1:{port}"]) == 1
            assert "no Dask scheduler answers" in capfd.readouterr().err
            stranger = tmp_path / "stranger"
            stranger.mkdir()
            other = make_certificates(stranger)  # signed by another authority
            tls = [f"--tls-{name}" if name != "ca" else "--tls-ca-file" for name in ("ca", "cert", "key")]
            files = [str(other / name) for name in ("ca.pem", "cert.pem", "key.pem")]
            args = (
                plain
                + ["--scheduler-address", f"tls://127.0.0.1:{port}"]
                + [x for pair in zip(tls, files) for x in pair]
            )
            assert main(args) == 1
            assert "no Dask scheduler answers" in capfd.readouterr().err
    finally:
        for process in started:
            process.terminate()
        for process in started:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
        for log in logs:
            log.close()
    assert folder.exists() and any(
        f"tls://127.0.0.1:{port}" in line for line in (tmp_path / "scheduler.log").read_text().splitlines()
    )
    assert watch.seen and not exposed(watch.seen), exposed(watch.seen)
