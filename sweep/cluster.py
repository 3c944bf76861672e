"""Where a grid runs (:class:`Where`), and the client it runs through (:class:`Cluster`).

* a Dask ``LocalCluster`` of our own (the default): one single-threaded worker process per
  CPU, its scheduler, workers and HTTP servers on 127.0.0.1;
* a running cluster: ``scheduler_address`` (``tcp://HOST:PORT`` or ``tls://HOST:PORT``) or
  ``scheduler_file`` (the JSON file ``dask scheduler --scheduler-file`` writes), checked before
  anything connects;
* a dask-jobqueue cluster on Slurm, PBS or SGE, started and closed here
  (:class:`~.jobqueue.JobQueue`);
* a client the caller already holds.

A Dask scheduler runs the code any client sends it: one that listens beyond this machine over
plain ``tcp://`` runs code for anyone who can reach it. Over a network the connection is TLS
(:class:`Tls`: ``tls://`` addresses, and a dask-jobqueue cluster's scheduler and workers), with
certificates signed by the user's own certificate authority, which both ends require; a sweep
pointed at a plain ``tcp://`` address beyond loopback says so on stderr (:func:`unencrypted`).

The clusters started here run their scheduler with :data:`SCHEDULER_CONFIG`: a run whose
worker dies twice while it runs fails with Dask's ``KilledWorker`` (``allowed-failures``
1), and a single-threaded worker holds one run at a time (``worker-saturation`` 1.0), so a
lost worker costs only the run it was running. docs/sweeps.md gives the same settings for
a scheduler started by hand.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import os
import socket
import ssl
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

from distributed.diagnostics.plugin import WorkerPlugin

from adaptsched.errors import AdaptschedError, UsageError

from .jobqueue import JobQueue

Say = Callable[..., None]

#: Scheduler settings of the clusters started here (and of docs/sweeps.md's commands).
SCHEDULER_CONFIG = {"distributed.scheduler.allowed-failures": 1, "distributed.scheduler.worker-saturation": 1.0}
SCHEMES = ("tcp", "tls")
CONNECT_TIMEOUT_S = 30
#: How long a sweep waits for a first worker (and for a scheduler file), by default: a running
#: cluster's workers are there or about to be; batch jobs may wait in the queue.
FIRST_WORKER_TIMEOUT_S = 120.0
FIRST_JOB_TIMEOUT_S = 1800.0


def _exit_quietly(signum: int, frame: Any) -> None:  # pragma: no cover - runs in worker processes
    os._exit(128 + signum)


class QuietInterrupt(WorkerPlugin):
    """A worker plugin: on Ctrl-C (SIGINT to the terminal's whole process group), a local
    worker exits at once instead of printing a traceback; the client reports the interruption."""

    name = "adaptsched-quiet-interrupt"

    def setup(self, worker: Any) -> None:
        import signal
        import threading

        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, _exit_quietly)


def check_address(address: str, option: str = "--scheduler-address") -> str:
    """A Dask scheduler's address as ``SCHEME://HOST:PORT`` (``tcp://`` when none is given);
    a one-line :class:`UsageError` naming what is wrong otherwise.

    >>> check_address("127.0.0.1:8786")
    'tcp://127.0.0.1:8786'
    >>> check_address("127.0.0.1:notaport", "-a")
    Traceback (most recent call last):
    ...
    adaptsched.errors.UsageError: -a 127.0.0.1:notaport: the port must be a number from 1 to 65535, got 'notaport'
    """
    text = address.strip()
    shown = f"{option} {address}"
    if "://" not in text:
        text = f"tcp://{text}"
    parts = urlsplit(text)
    if parts.scheme not in SCHEMES:
        raise UsageError(f"{shown}: the scheme must be one of {', '.join(s + '://' for s in SCHEMES)}")
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username:
        raise UsageError(f"{shown}: expected SCHEME://HOST:PORT, e.g. tcp://10.0.0.1:8786")
    host = parts.hostname
    if not host:
        raise UsageError(f"{shown}: no host: expected SCHEME://HOST:PORT, e.g. tcp://10.0.0.1:8786")
    netloc = parts.netloc.rsplit("@", 1)[-1]
    port_text = netloc.rsplit(":", 1)[1] if ":" in netloc.lstrip("[").split("]")[-1] else ""
    if not port_text:
        raise UsageError(f"{shown}: no port: expected SCHEME://HOST:PORT, e.g. tcp://{host}:8786")
    if not port_text.isdigit() or not 1 <= int(port_text) <= 65535:
        raise UsageError(f"{shown}: the port must be a number from 1 to 65535, got {port_text!r}")
    shown_host = f"[{host}]" if ":" in host else host
    return f"{parts.scheme}://{shown_host}:{int(port_text)}"


def read_scheduler_file(path: str | Path, timeout_s: float = FIRST_WORKER_TIMEOUT_S, say: Say = print) -> str:
    """The address in a scheduler file (``dask scheduler --scheduler-file FILE``), waiting up
    to ``timeout_s`` for the file to appear; one-line errors naming the file."""
    path = Path(path).expanduser()
    shown = f"--scheduler-file {path}"
    deadline = time.monotonic() + timeout_s
    told = False
    while True:
        try:
            text = path.read_text()
            if text.strip():
                break
        except FileNotFoundError:
            pass
        except OSError as error:
            raise AdaptschedError(f"{shown}: cannot read it: {error.strerror or error}") from None
        if time.monotonic() > deadline:
            raise AdaptschedError(
                f"{shown}: no scheduler wrote it within {timeout_s:.0f} s; start one with "
                f"'dask scheduler --scheduler-file {path}' (docs/sweeps.md)"
            )
        if not told:
            say(f"waiting for {path} (a Dask scheduler writes it when it starts)")
            told = True
        time.sleep(0.5)
    try:
        data = json.loads(text)
        address = data["address"]
    except (ValueError, KeyError, TypeError):
        raise AdaptschedError(f"{shown}: not a Dask scheduler file (JSON with an 'address')") from None
    if not isinstance(address, str):
        raise AdaptschedError(f"{shown}: its 'address' is not a string: {address!r}")
    return check_address(address, f"{shown}: address")


@dataclass(frozen=True)
class Tls:
    """TLS to a Dask scheduler: the certificate authority's certificate (``ca_file``) and this
    process's certificate and private key, PEM files, as ``dask scheduler`` and ``dask worker``
    take them (``--tls-ca-file``, ``--tls-cert``, ``--tls-key``). The certificate is the client's
    and, for a dask-jobqueue cluster, its scheduler's and its workers' too (their batch jobs read
    the same paths: a shared file system)."""

    ca_file: str
    cert: str
    key: str

    def check(self) -> Tls:
        """The files, readable, as absolute paths; that they make a TLS context (a certificate
        authority, a certificate and its key), or a one-line :class:`UsageError` naming them."""
        paths = []
        for option, given in (("--tls-ca-file", self.ca_file), ("--tls-cert", self.cert), ("--tls-key", self.key)):
            path = Path(given).expanduser()
            try:
                path.read_bytes()
            except OSError as error:
                raise UsageError(f"{option} {given}: cannot read it: {error.strerror or error}") from None
            paths.append(str(path.resolve()))
        ca_file, cert, key = paths
        try:
            context = ssl.create_default_context(cafile=ca_file)
        except (ssl.SSLError, ValueError) as error:
            raise UsageError(f"--tls-ca-file {self.ca_file}: not a PEM certificate ({error})") from None
        try:
            context.load_cert_chain(cert, key)
        except (ssl.SSLError, ValueError) as error:
            raise UsageError(
                f"--tls-cert {self.cert} and --tls-key {self.key}: not a PEM certificate and its private key ({error})"
            ) from None
        return Tls(ca_file, cert, key)

    def security(self) -> Any:
        """Dask's ``Security``: these files for every role, encryption required."""
        from distributed.security import Security

        roles = ("client", "scheduler", "worker")
        files = {f"tls_{role}_{part}": getattr(self, part) for role in roles for part in ("cert", "key")}
        return Security(tls_ca_file=self.ca_file, require_encryption=True, **files)


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or a name) is this machine only: a loopback address, or a
    name every address of which is one.

    >>> is_loopback("127.0.0.1"), is_loopback("[::1]"), is_loopback("10.0.0.1")
    (True, True, False)
    """
    host = host.strip("[]")
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        pass
    try:
        found = {str(info[4][0]) for info in socket.getaddrinfo(host, None)}
    except (OSError, UnicodeError):
        return False
    return bool(found) and all(ipaddress.ip_address(a.split("%", 1)[0]).is_loopback for a in found)


def unencrypted(address: str, shown: str) -> str | None:
    """The warning for a plain ``tcp://`` scheduler ``address`` beyond loopback (None otherwise)."""
    parts = urlsplit(address)
    if parts.scheme != "tcp" or is_loopback(parts.hostname or ""):
        return None
    return (
        f"warning: {shown}: {address} is plain tcp:// beyond this machine: a Dask scheduler runs the code "
        "any client sends it, so anyone who can reach it can run code as its user, and read the runs. "
        "Over a network, use TLS: tls:// with --tls-ca-file, --tls-cert and --tls-key (docs/sweeps.md, section TLS)"
    )


def check_scheme(address: str, shown: str, tls: Tls | None) -> None:
    """A ``tls://`` address has certificates, and certificates go with a ``tls://`` address."""
    scheme = urlsplit(address).scheme
    if scheme == "tls" and tls is None:
        raise UsageError(f"{shown}: {address} is TLS: give --tls-ca-file, --tls-cert and --tls-key (docs/sweeps.md)")
    if scheme == "tcp" and tls is not None:
        raise UsageError(f"{shown}: --tls-ca-file, --tls-cert and --tls-key are given, but {address} is not tls://")


def print_warning(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


@dataclass(frozen=True)
class Where:
    """Where a grid's runs go: a LocalCluster of ``workers`` (the default), a running
    scheduler (``scheduler_address`` or ``scheduler_file``), or a dask-jobqueue cluster of
    our own (``jobqueue``). At most one of them; ``tls`` with the last three only."""

    workers: int | None = None
    scheduler_address: str | None = None
    scheduler_file: str | None = None
    jobqueue: JobQueue | None = None
    timeout_s: float | None = None  # for a first worker; default FIRST_WORKER_TIMEOUT_S or FIRST_JOB_TIMEOUT_S
    tls: Tls | None = None

    @property
    def wait_s(self) -> float:
        if self.timeout_s is not None:
            return self.timeout_s
        return FIRST_JOB_TIMEOUT_S if self.jobqueue is not None else FIRST_WORKER_TIMEOUT_S

    def check(self) -> Where:
        """Contradictions, bad addresses and bad cluster options, before anything starts; the
        address normalised."""
        given = [
            name
            for name, value in (
                ("--workers", self.workers),
                ("--scheduler-address", self.scheduler_address),
                ("--scheduler-file", self.scheduler_file),
                ("--cluster", self.jobqueue),
            )
            if value is not None
        ]
        if len(given) > 1:
            raise UsageError(f"{' and '.join(given)} do not go together: give one place for the runs")
        if self.workers is not None and self.workers < 1:
            raise UsageError(f"--workers must be at least 1, got {self.workers}")
        if self.jobqueue is not None:
            self.jobqueue.check()
        if self.timeout_s is not None and self.timeout_s <= 0:
            raise UsageError(f"--first-worker-timeout must be a number of seconds > 0, got {self.timeout_s}")
        tls = self.tls
        if tls is not None:
            if not (self.remote or self.jobqueue):
                raise UsageError(
                    "--tls-ca-file, --tls-cert and --tls-key go with --scheduler-address tls://..., --scheduler-file "
                    "or --cluster: the local cluster listens on 127.0.0.1 only"
                )
            tls = tls.check()
        if self.scheduler_address is not None:
            address = check_address(self.scheduler_address)
            check_scheme(address, f"--scheduler-address {self.scheduler_address}", tls)
            return replace(self, scheduler_address=address, tls=tls)
        return replace(self, tls=tls)

    @property
    def remote(self) -> bool:
        return self.scheduler_address is not None or self.scheduler_file is not None


def _threads(client: Any) -> int:
    info = client.scheduler_info(n_workers=0)
    return int(info.get("total_threads") or 0)


def local_cluster(workers: int | None) -> tuple[Any, int]:
    """A LocalCluster of ``workers`` single-threaded worker processes (default: one per CPU),
    everything on 127.0.0.1."""
    import dask
    from distributed import LocalCluster

    if hasattr(os, "sched_getaffinity"):
        cpus = len(os.sched_getaffinity(0))
    else:  # pragma: no cover
        cpus = os.cpu_count() or 1
    n = workers or cpus
    with dask.config.set(SCHEDULER_CONFIG):
        cluster = LocalCluster(
            n_workers=n,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address="127.0.0.1:0",  # its HTTP server (health; the dashboard if bokeh is installed)
            worker_dashboard_address="127.0.0.1:0",
            silence_logs=logging.CRITICAL,  # lost workers and failed runs: the sweep says it its way
        )
    return cluster, n


def connect(address: str, shown: str, tls: Tls | None = None) -> Any:
    """A client of the scheduler at ``address`` (checked; over TLS with ``tls``), with a one-line
    error if none answers."""
    from distributed import Client

    security = tls.security() if tls is not None else None
    try:
        return Client(address, timeout=f"{CONNECT_TIMEOUT_S}s", set_as_default=False, security=security)
    except (OSError, TimeoutError) as error:
        raise AdaptschedError(
            f"{shown}: no Dask scheduler answers at {address} ({str(error).splitlines()[0]}); start one with "
            "'dask scheduler' and workers with 'dask worker ADDRESS' (docs/sweeps.md)"
        ) from None


def wait_for_first_worker(client: Any, shown: str, timeout_s: float, say: Say) -> None:
    if _threads(client):
        return
    hint = "; 'squeue' or 'qstat' shows the jobs" if shown.startswith("--cluster") else ""
    say(f"waiting for a first worker ({shown}; at most {timeout_s:.0f} s{hint})")
    try:
        client.wait_for_workers(1, timeout=timeout_s)
    except TimeoutError:
        raise AdaptschedError(
            f"{shown}: no worker joined within {timeout_s:.0f} s (--first-worker-timeout); "
            + (
                "check the jobs in the batch queue (squeue, qstat) and their output files"
                if shown.startswith("--cluster")
                else "start some with 'dask worker ADDRESS' (docs/sweeps.md)"
            )
        ) from None


class Cluster:
    """The client a grid runs through, for a ``with`` block: started here (and closed at the
    end, on Ctrl-C too) unless the caller gives one. ``workers``: its worker threads at the
    start; ``local``: a LocalCluster of ours; ``startup_s``: its start-up."""

    def __init__(
        self,
        client: Any = None,
        *,
        where: Where | None = None,
        say: Say = print,
        warn: Say = print_warning,
    ):
        self.client = client
        self.own = client is None
        self.where = (where or Where()).check()
        self.first_worker_timeout_s = self.where.wait_s
        self.say = say
        self.warn = warn
        self.cluster: Any = None
        self.local = False
        self.workers = 0
        self.startup_s = 0.0

    def __enter__(self) -> Cluster:
        begin = time.perf_counter()
        try:
            if self.own:
                self._start()
            self.workers = _threads(self.client)
        except BaseException:
            self._close()
            raise
        self.startup_s = time.perf_counter() - begin
        return self

    def _start(self) -> None:
        from distributed import Client

        where = self.where
        if where.jobqueue is not None:
            import dask

            security = where.tls.security() if where.tls is not None else None
            with dask.config.set(SCHEDULER_CONFIG):  # its scheduler runs here
                self.cluster = where.jobqueue.start(security)
            self._warn_if_unencrypted(self.cluster.scheduler_address, f"--cluster {where.jobqueue.system}")
            jobs = where.jobqueue.jobs
            self.cluster.scale(jobs=jobs)
            self.client = Client(self.cluster, set_as_default=False, security=security)
            self.say(
                f"{where.jobqueue.system}: {jobs} job{'s' if jobs > 1 else ''} submitted; scheduler at "
                f"{self.cluster.scheduler_address}"
            )
            wait_for_first_worker(
                self.client, f"--cluster {where.jobqueue.system}", self.first_worker_timeout_s, self.say
            )
            return
        if where.remote:
            if where.scheduler_file is not None:
                address = read_scheduler_file(where.scheduler_file, self.first_worker_timeout_s, self.say)
                shown = f"--scheduler-file {where.scheduler_file}"
            else:
                address = str(where.scheduler_address)
                shown = f"--scheduler-address {address}"
            check_scheme(address, shown, where.tls)
            self._warn_if_unencrypted(address, shown)
            self.client = connect(address, shown, where.tls)
            wait_for_first_worker(self.client, shown, self.first_worker_timeout_s, self.say)
            return
        self.cluster, _ = local_cluster(where.workers)
        self.local = True
        self.client = Client(self.cluster, set_as_default=False)
        self.client.register_plugin(QuietInterrupt())

    def _warn_if_unencrypted(self, address: str, shown: str) -> None:
        text = unencrypted(address, shown)
        if text is not None:
            self.warn(text)

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self._close()

    def _close(self) -> None:
        if not self.own:
            return
        for thing in (self.client, self.cluster):
            if thing is None:
                continue
            try:
                thing.close(timeout=10) if thing is self.client else thing.close()
            except Exception:  # closing a cluster that lost its workers: nothing left to save
                pass
        self.client = self.cluster = None
