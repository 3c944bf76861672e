"""Where a sweep runs, and what counts as done: addresses, scheduler files, dask-jobqueue, resuming.

* every malformed ``--scheduler-address`` (and scheduler file) is one line, before anything
  starts (no traceback, no Dask client left to complain when collected);
* ``--cluster slurm|pbs|sge`` makes the job script dask-jobqueue would submit: one
  single-threaded worker per core, this Python, the network interface named, HTTP servers on
  loopback; ``--dry-run`` prints it and opens no socket;
* a real sweep on dask-jobqueue's own local test cluster (jobs as local processes), its
  sockets all on loopback, its jobs gone at the end;
* resuming: a run without its ``_jobs.csv``, or whose result holds another key, runs again;
  changed metrics are recomputed on the workers, not the client; a LocalCluster sweep's
  sockets are all on loopback;
* TLS: the certificate files go together, with a ``tls://`` address (or a scheduler file's, or
  ``--cluster``), each mistake one line; a plain ``tcp://`` address beyond loopback is warned
  about on stderr; dask-jobqueue's cluster over TLS, its job script naming the files. (A sweep
  on a ``tls://`` scheduler started by hand: tests/test_sweep_docs.py.)
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import psutil
import pytest
from helpers import NO_JOBQUEUE
from listening import Watch, exposed

from adaptsched.cli import main
from adaptsched.errors import AdaptschedError, UsageError
from adaptsched.sweep.cluster import Tls, Where, check_address, read_scheduler_file, unencrypted
from adaptsched.sweep.jobqueue import JobQueue, job_script, parse_cluster_options

REPO = Path(__file__).resolve().parent.parent
EXCERPT = REPO / "workloads" / "excerpts" / "CTC-SP2-1996-3.1-cln.first5000.swf.gz"
SPEC = f"""
title = "t"
platforms = [32]

[[schedulers]]
name = "backfill"
options = {{ order = ["D", "P"], guarantees = [true, false] }}

[[workloads]]
trace = "{EXCERPT}"
first = 60
"""

needs_jobqueue = pytest.mark.skipif(
    importlib.util.find_spec("dask_jobqueue") is None, reason=f"{NO_JOBQUEUE}: the 'cluster' and 'test' extras"
)


@pytest.fixture
def spec(tmp_path) -> Path:
    path = tmp_path / "spec.toml"
    path.write_text(SPEC)
    return path


@pytest.fixture
def tls(tmp_path) -> Tls:
    """A certificate authority of the test's own and a certificate it signed (openssl)."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not on PATH")
    folder = tmp_path / "tls"
    folder.mkdir(mode=0o700)
    ext = "basicConstraints=critical,CA:FALSE\nextendedKeyUsage=serverAuth,clientAuth\n"
    script = f"""
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=test-ca -keyout ca.key -out ca.pem
    openssl req -newkey rsa:2048 -nodes -subj /CN=test -keyout key.pem -out cert.csr
    printf '{ext}subjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n' > cert.ext
    openssl x509 -req -in cert.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile cert.ext -out cert.pem
    """
    subprocess.run(["bash", "-euc", script], cwd=folder, check=True, capture_output=True)
    return Tls(str(folder / "ca.pem"), str(folder / "cert.pem"), str(folder / "key.pem"))


def tls_args(tls: Tls) -> list[str]:
    return ["--tls-ca-file", tls.ca_file, "--tls-cert", tls.cert, "--tls-key", tls.key]


# ------------------------------------------------------------------------------ addresses
@pytest.mark.parametrize(
    "text, normal",
    [
        ("127.0.0.1:8786", "tcp://127.0.0.1:8786"),
        ("tcp://node-12.cluster:8786", "tcp://node-12.cluster:8786"),
        ("tls://10.0.0.1:8786", "tls://10.0.0.1:8786"),
        ("tcp://[::1]:8786", "tcp://[::1]:8786"),
    ],
)
def test_good_addresses_are_normalised(text, normal):
    assert check_address(text) == normal


BAD_ADDRESSES = [
    ("127.0.0.1:notaport", "the port must be a number from 1 to 65535, got 'notaport'"),
    ("tcp://127.0.0.1:0", "got '0'"),
    ("tcp://127.0.0.1:70000", "got '70000'"),
    ("tcp://127.0.0.1", "no port"),
    ("http://127.0.0.1:8786", "the scheme must be one of tcp://, tls://"),
    ("tcp://:8786", "no host"),
    ("tcp://127.0.0.1:8786/path", "expected SCHEME://HOST:PORT"),
]


@pytest.mark.parametrize("address, words", BAD_ADDRESSES, ids=[a for a, _ in BAD_ADDRESSES])
def test_bad_address_is_one_line_before_anything_starts(tmp_path, spec, capfd, address, words):
    out = tmp_path / "out"
    assert main(["sweep", str(spec), "--out", str(out), "--scheduler-address", address]) == 2
    err = capfd.readouterr().err.strip()
    assert err == f"adaptsched sweep: error: --scheduler-address {address}: {err.split(': ', 3)[-1]}"
    assert words in err and "\n" not in err and "Traceback" not in err
    assert not out.exists()  # checked before the spec's inputs are made


def test_unreachable_scheduler_is_one_line(tmp_path, spec, capfd, monkeypatch):
    import socket

    from adaptsched.sweep import cluster

    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT_S", 2)
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    args = ["sweep", str(spec), "--out", str(tmp_path / "o"), "--scheduler-address", f"127.0.0.1:{port}"]
    assert main(args + ["--progress", "off"]) == 1
    err = capfd.readouterr().err.strip()
    assert err.startswith(
        f"adaptsched sweep: error: --scheduler-address tcp://127.0.0.1:{port}: no Dask scheduler answers"
    )
    assert "\n" not in err and "Traceback" not in err and "Exception ignored" not in err  # and no warning: loopback


def test_scheduler_file_is_read_checked_and_waited_for(tmp_path):
    path = tmp_path / "sched.json"
    with pytest.raises(AdaptschedError, match=r"sched\.json: no scheduler wrote it within 1 s"):
        read_scheduler_file(path, timeout_s=1, say=lambda *a: None)
    path.write_text("{not json")
    with pytest.raises(AdaptschedError, match="not a Dask scheduler file"):
        read_scheduler_file(path, timeout_s=1)
    path.write_text(json.dumps({"address": "tcp://10.0.0.1:notaport"}))
    with pytest.raises(UsageError, match=r"address tcp://10\.0\.0\.1:notaport: the port must be"):
        read_scheduler_file(path, timeout_s=1)
    path.write_text(json.dumps({"address": "tcp://10.0.0.1:8786", "type": "Scheduler"}))
    assert read_scheduler_file(path, timeout_s=1) == "tcp://10.0.0.1:8786"


def test_places_do_not_go_together():
    with pytest.raises(UsageError, match="--workers and --scheduler-file do not go together"):
        Where(workers=2, scheduler_file="x.json").check()


# ------------------------------------------------------------------------------------- TLS
def test_tls_mistakes_are_one_line_before_anything_starts(tmp_path, spec, tls, capfd):
    out = tmp_path / "out"
    sweep = ["sweep", str(spec), "--out", str(out)]
    not_pem = tmp_path / "not.pem"
    not_pem.write_text("hello")
    cases = [
        (["--scheduler-address", "tls://10.0.0.1:8786", "--tls-ca-file", tls.ca_file], "go together: give all three"),
        (["--workers", "2", *tls_args(tls)], "go with --scheduler-address tls://..., --scheduler-file or --cluster"),
        (tls_args(tls), "the local cluster listens on 127.0.0.1 only"),
        (["--scheduler-address", "tls://10.0.0.1:8786"], "tls://10.0.0.1:8786 is TLS: give --tls-ca-file"),
        (["--scheduler-address", "tcp://10.0.0.1:8786", *tls_args(tls)], "but tcp://10.0.0.1:8786 is not tls://"),
        (
            [
                "--scheduler-address",
                "tls://10.0.0.1:8786",
                *tls_args(tls)[:2],
                "--tls-cert",
                str(tmp_path / "none"),
                *tls_args(tls)[4:],
            ],
            f"--tls-cert {tmp_path / 'none'}: cannot read it: No such file or directory",
        ),
        (
            ["--scheduler-address", "tls://10.0.0.1:8786", "--tls-ca-file", str(not_pem), *tls_args(tls)[2:]],
            f"--tls-ca-file {not_pem}: not a PEM certificate",
        ),
        (
            ["--scheduler-address", "tls://10.0.0.1:8786", *tls_args(tls)[:4], "--tls-key", tls.ca_file],
            "not a PEM certificate and its private key",
        ),
    ]
    for args, words in cases:
        assert main(sweep + args) == 2, args
        err = capfd.readouterr().err.strip()
        assert err.startswith("adaptsched sweep: error: ") and words in err and "\n" not in err, (args, err)
    assert not out.exists()


def test_a_tls_scheduler_file_needs_the_certificates(tmp_path, spec, capfd):
    sched = tmp_path / "sched.json"
    sched.write_text(json.dumps({"address": "tls://127.0.0.1:1"}))
    assert main(["sweep", str(spec), "--out", str(tmp_path / "o"), "--scheduler-file", str(sched)]) == 2
    err = capfd.readouterr().err.strip()
    assert f"--scheduler-file {sched}: tls://127.0.0.1:1 is TLS: give --tls-ca-file, --tls-cert and --tls-key" in err


def test_unencrypted_addresses_beyond_loopback():
    for address in ("tcp://127.0.0.1:8786", "tcp://localhost:8786", "tcp://[::1]:8786", "tls://10.0.0.1:8786"):
        assert unencrypted(address, "-a") is None, address
    text = unencrypted("tcp://10.0.0.1:8786", "--scheduler-address tcp://10.0.0.1:8786")
    assert text is not None and text.startswith("warning: --scheduler-address tcp://10.0.0.1:8786: ")
    assert "anyone who can reach it can run code" in text and "--tls-ca-file" in text


@pytest.mark.parametrize("by_file", [False, True], ids=["address", "scheduler file"])
def test_a_plain_tcp_scheduler_beyond_loopback_is_warned_about(tmp_path, spec, capfd, monkeypatch, by_file):
    from adaptsched.sweep import cluster

    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT_S", 1)
    address = "tcp://192.0.2.1:8786"  # TEST-NET-1: beyond loopback, and nobody answers
    where = ["--scheduler-address", address]
    if by_file:
        (tmp_path / "sched.json").write_text(json.dumps({"address": address}))
        where = ["--scheduler-file", str(tmp_path / "sched.json")]
    assert main(["sweep", str(spec), "--out", str(tmp_path / "o"), "--progress", "off", *where]) == 1
    warning, error = capfd.readouterr().err.strip().splitlines()
    assert warning.startswith(f"warning: {where[0]} {where[1]}: {address} is plain tcp:// beyond this machine")
    assert error.startswith("adaptsched sweep: error: ") and "no Dask scheduler answers" in error


@needs_jobqueue
def test_dry_run_over_tls_names_the_certificates(tmp_path, spec, tls, capfd):
    options = ["--cluster-option", "cores=8", "--cluster-option", "interface=ib0"]
    command = ["sweep", str(spec), "--out", str(tmp_path / "o"), "--cluster", "slurm", "--dry-run"]
    assert main(command + options + tls_args(tls)) == 0
    [worker] = [line for line in capfd.readouterr().out.splitlines() if "distributed.cli.dask_worker" in line]
    words = worker.split()
    assert words[3] == "tls://<scheduler-address>:<port>" and words[words.index("--protocol") + 1] == "tls://"
    for flag, path in zip(("--tls-ca-file", "--tls-cert", "--tls-key"), (tls.ca_file, tls.cert, tls.key)):
        assert words[words.index(flag) + 1] == path


# ----------------------------------------------------------------------------- job scripts
SITE = {"cores": 32, "memory": "64GB", "walltime": "04:00:00", "interface": "ib0"}
SCRIPTS = {
    "slurm": (
        {"queue": "normal", "account": "proj", "job_extra_directives": ["--exclusive"]},
        ["#SBATCH -J adaptsched", "#SBATCH -p normal", "#SBATCH -A proj", "#SBATCH --cpus-per-task=32"]
        + ["#SBATCH --mem=60G", "#SBATCH -t 04:00:00", "#SBATCH --exclusive"],
    ),
    "pbs": (
        {"queue": "workq", "account": "proj"},
        ["#PBS -N adaptsched", "#PBS -q workq", "#PBS -A proj", "#PBS -l select=1:ncpus=32:mem=60GB"]
        + ["#PBS -l walltime=04:00:00"],
    ),
    "sge": (
        {"queue": "all.q", "project": "proj", "resource_spec": "h_vmem=2G", "job_extra_directives": ["-pe smp 32"]},
        ["#$ -N adaptsched", "#$ -q all.q", "#$ -P proj", "#$ -l h_vmem=2G", "#$ -l h_rt=04:00:00", "#$ -pe smp 32"],
    ),
}


@needs_jobqueue
@pytest.mark.parametrize("system", sorted(SCRIPTS))
def test_job_script_of_each_batch_system(system):
    extra, directives = SCRIPTS[system]
    script = job_script(JobQueue(system, 4, {**SITE, **extra}))
    lines = script.splitlines()
    for directive in directives:
        assert directive in lines, (directive, script)
    [command] = [line for line in lines if "distributed.cli.dask_worker" in line]
    words = command.split()
    assert words[0] == sys.executable  # this Python: adaptsched installed where the jobs run
    assert words[1:3] == ["-m", "distributed.cli.dask_worker"]
    assert words[words.index("--nthreads") + 1] == "1"  # one run per worker process
    assert words[words.index("--nworkers") + 1] == "32"  # one worker process per core
    assert words[words.index("--interface") + 1] == "ib0"
    assert words[words.index("--dashboard-address") + 1] == "127.0.0.1:0"  # its HTTP server: loopback
    assert "--nanny" in words


@needs_jobqueue
def test_dry_run_prints_the_job_script_and_opens_nothing(tmp_path, spec, capfd):
    options = ["--cluster-option", "cores=8", "--cluster-option", "interface=ib0", "--cluster-option", "queue=short"]
    with Watch() as watch:
        code = main(
            ["sweep", str(spec), "--out", str(tmp_path / "o"), "--cluster", "slurm", "--jobs", "3", "--dry-run"]
            + options
        )
    assert code == 0
    said = capfd.readouterr().out
    assert "# spec.toml: 4 runs" in said.replace(str(spec), "spec.toml")
    assert "3 jobs like this one would be submitted to slurm" in said
    assert "#SBATCH -p short" in said and "--nworkers 8" in said and "--interface ib0" in said
    assert not watch.seen and watch.looks > 0  # no scheduler started
    assert not (tmp_path / "o").exists()


@needs_jobqueue
@pytest.mark.parametrize(
    "args, words",
    [
        (["--jobs", "2"], "--jobs goes with --cluster slurm|pbs|sge"),
        (["--cluster-option", "cores=2"], "--cluster-option goes with --cluster"),
        (["--cluster", "slurm"], "name the network the workers reach the scheduler on"),
        (["--cluster", "slurm", "--cluster-option", "cores"], "--cluster-option 'cores': expected KEY=VALUE"),
        (
            ["--cluster", "sge", "--cluster-option", "interface=ib0", "--cluster-option", "account=x", "--dry-run"],
            "--cluster sge: Job.__init__() got an unexpected keyword argument 'account'",
        ),
    ],
)
def test_cluster_flags_misused_are_one_line(tmp_path, spec, capfd, args, words):
    assert main(["sweep", str(spec), "--out", str(tmp_path / "o")] + args) == 2
    err = capfd.readouterr().err.strip()
    assert words in err and "\n" not in err, err


def test_cluster_options_are_json_or_text():
    assert parse_cluster_options(["cores=32", "memory=64GB", 'job_extra_directives=["--exclusive"]', "a-b=x=y"]) == {
        "cores": 32,
        "memory": "64GB",
        "job_extra_directives": ["--exclusive"],
        "a_b": "x=y",
    }


# ------------------------------------------------------------------------ real sweeps
def _children() -> set[int]:
    return {p.pid for p in psutil.Process().children(recursive=True)}


@needs_jobqueue
@pytest.mark.slow
def test_sweep_on_dask_jobqueue_local_cluster(tmp_path, spec):
    """dask-jobqueue's own test cluster: the same machinery as Slurm's (job scripts, scale,
    jobs cancelled at the end), its jobs local processes."""
    from adaptsched.sweep import run_sweep

    before = _children()
    queue = JobQueue("local", 2, {"interface": "lo", "cores": 1, "memory": "1GB"})
    said: list[str] = []
    with Watch() as watch:
        grid, _ = run_sweep(spec, tmp_path / "out", where=Where(jobqueue=queue), progress=False, say=said.append)
    assert grid.done == 4 and not grid.failed, said
    assert any(line.startswith("local: 2 jobs submitted; scheduler at tcp://127.0.0.1:") for line in said)
    assert any("distributed.cli.dask_worker" in command for _, command, _, _ in watch.seen)  # the jobs' workers
    assert not exposed(watch.seen), exposed(watch.seen)
    assert not {pid for pid in _children() - before if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE}


@needs_jobqueue
@pytest.mark.slow
def test_sweep_on_dask_jobqueue_local_cluster_over_tls(tmp_path, spec, tls, capfd):
    """The scheduler the sweep starts and the jobs' workers talk TLS, the workers reading the
    certificate files their job script names."""
    from adaptsched.sweep import run_sweep

    queue = JobQueue("local", 1, {"interface": "lo", "cores": 1, "memory": "1GB"})
    said: list[str] = []
    with Watch() as watch:
        where = Where(jobqueue=queue, tls=tls)
        grid, _ = run_sweep(spec, tmp_path / "out", where=where, progress=False, say=said.append)
    assert grid.done == 4 and not grid.failed, said  # the workers got in: the scheduler requires TLS
    assert any(line.startswith("local: 1 job submitted; scheduler at tls://127.0.0.1:") for line in said), said
    assert "warning" not in capfd.readouterr().err
    assert not exposed(watch.seen), exposed(watch.seen)


@pytest.mark.slow
def test_resume_needs_outputs_and_key_and_recomputes_metrics_on_workers(tmp_path, spec, capfd):
    out = tmp_path / "out"
    command = ["sweep", str(spec), "--out", str(out), "--workers", "2", "--progress", "off"]
    with Watch() as watch:  # a LocalCluster sweep: every socket of ours on loopback
        assert main(command) == 0
    assert watch.seen and not exposed(watch.seen), watch.seen
    capfd.readouterr()
    runs = sorted((out / "runs").glob("*_result.json"))
    assert len(runs) == 4
    names = [p.name.removesuffix("_result.json") for p in runs]
    (out / "runs" / f"{names[0]}_jobs.csv").unlink()  # outputs lost: not done
    result = json.loads(runs[1].read_text())
    result["key"] = "0" * 20  # made from other inputs: not done
    runs[1].write_text(json.dumps(result))
    spec.write_text(SPEC + '\n[metrics]\ncollect = ["bsld_mean", "makespan_s"]\n')
    stamps = {p: p.stat().st_mtime_ns for p in runs[2:]}
    assert main(command) == 0
    said = capfd.readouterr().out
    assert "2 runs already done" in said and "2 to go" in said
    assert "2 of them with other metrics: recomputed on the workers" in said
    assert "[4/4]" in said  # two runs and two recomputations, one progress display
    assert "4 runs: 2 done, 0 failed, 2 skipped" in said and "metrics recomputed for 2 of the skipped" in said
    rows = (out / "runs.csv").read_text().splitlines()
    assert rows[0].split(",")[-6:-4] == ["bsld_mean", "makespan_s"]
    assert all(row.split(",")[-5] for row in rows[1:])  # makespan_s filled in for every run
    for path in runs[2:]:
        redone = json.loads(path.read_text())
        assert "makespan_s" in redone["metrics"] and redone["analysis_s"] >= 0
        assert path.stat().st_mtime_ns != stamps[path]
    assert (out / "runs" / f"{names[0]}_jobs.csv").is_file()


INTERRUPTED = """
from adaptsched.sweep import JobQueue, Where, run_sweep

if __name__ == "__main__":
    queue = JobQueue("local", 2, {"interface": "lo", "cores": 1, "memory": "1GB"})
    run_sweep(SPEC, OUT, where=Where(jobqueue=queue), progress=False)
"""


@needs_jobqueue
@pytest.mark.slow
def test_ctrl_c_closes_the_jobqueue_cluster(tmp_path):
    """Ctrl-C in a ``--cluster`` sweep: the jobs are cancelled (here, dask-jobqueue's local
    jobs killed), no worker left behind; the runs finished before are kept."""
    import os
    import re
    import signal
    import subprocess
    import time

    (tmp_path / "spec.toml").write_text(SPEC.replace("first = 60", "first = 1500"))
    script = INTERRUPTED.replace("SPEC", repr(str(tmp_path / "spec.toml"))).replace("OUT", repr(str(tmp_path / "out")))
    (tmp_path / "interrupted.py").write_text(script)
    log = open(tmp_path / "log.txt", "w")
    sweep = subprocess.Popen([sys.executable, "interrupted.py"], cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT)
    try:
        address = None
        for _ in range(3000):  # hang guard only
            said = (tmp_path / "log.txt").read_text()
            found = re.search(r"scheduler at (tcp://127\.0\.0\.1:\d+)", said)
            if found and list((tmp_path / "out" / "runs").glob("*_result.json")):
                address = found.group(1)
                break
            assert sweep.poll() is None, said
            time.sleep(0.1)
        assert address, (tmp_path / "log.txt").read_text()
        workers = [p for p in psutil.process_iter(["cmdline"]) if address in " ".join(p.info["cmdline"] or [])]
        assert workers  # the jobs' workers, connected to this sweep's scheduler
        os.kill(sweep.pid, signal.SIGINT)
        assert sweep.wait(timeout=120) != 0  # interrupted: not a success
        _, alive = psutil.wait_procs(workers, timeout=30)
        assert not alive, [p.info["cmdline"] for p in alive]
    finally:
        if sweep.poll() is None:
            sweep.kill()
    said = (tmp_path / "log.txt").read_text()
    assert "interrupted:" in said and "runs done" in said, said
    assert (tmp_path / "out" / "runs.csv").is_file()


# ------------------------------------------------------------------------------ blame
def test_blame_tells_a_run_that_kills_its_worker_from_one_whose_workers_were_killed():
    """A death counts against the run that was running when the worker's nanny started a new
    worker after it (the worker died alone); a worker lost with its nanny (a node, a batch job,
    killed from outside) counts against no one; without a nanny, every death counts (Dask's
    rule). Two counted deaths make a killer; until the nannies are heard from, a verdict waits."""
    from adaptsched.sweep.blame import NANNY_WAIT_S, Attempt, Blame

    blame = Blame()
    for worker, nanny in (("w1", "n1"), ("w2", "n2"), ("w3", "n3"), ("bare", None)):
        blame.worker_seen(worker, nanny)
    at = Attempt
    # the killer: its worker dies under it twice, and each nanny starts a new worker
    blame.started("killer", at("w1", "h", "/s/1"))
    blame.worker_lost("w1", now=0.0)
    assert blame.verdict("killer", now=1.0) == "innocent"  # one death so far
    blame.worker_seen("w1b", "n1")
    blame.started("killer", at("w2", "h", "/s/2"))
    assert blame.verdict("killer", also="w2", now=2.0) == "wait"  # Dask failed it; w2's nanny not heard from
    blame.worker_lost("w2", now=2.0)
    blame.worker_seen("w2b", "n2")
    assert blame.verdict("killer", also="w2", now=3.0) == "killer"
    assert blame.deaths("killer") == ["w1", "w2"]
    # an innocent run on two workers killed whole (nanny and all): waits, then innocent
    blame.started("innocent", at("w3", "h", "/s/3"))
    blame.worker_lost("w3", now=10.0)
    blame.started("innocent", at("w1b", "h", "/s/4"))
    blame.worker_lost("w1b", now=12.0)
    assert blame.verdict("innocent", now=13.0) == "wait"
    assert blame.verdict("innocent", now=12.0 + NANNY_WAIT_S + 1) == "innocent"
    # without a nanny, Dask's rule: each death counts
    blame.started("bare-run", at("bare", "h", "/s/5"))
    blame.worker_lost("bare", now=20.0)
    blame.started("bare-run", at("w2b", "h", "/s/6"))
    blame.worker_lost("w2b", now=21.0)
    blame.worker_seen("w2c", "n2")
    assert blame.verdict("bare-run", now=22.0) == "killer"
