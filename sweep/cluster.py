"""Where a grid runs: a Dask ``LocalCluster`` of our own, a running Dask cluster, or a client
the caller already holds (:class:`Cluster`).

A ``LocalCluster`` has one single-threaded worker process per CPU by default, its scheduler
and HTTP server on loopback; ``scheduler_address`` (``tcp://HOST:PORT``) connects to a running
cluster instead (``dask scheduler`` and ``dask worker`` processes, or dask-jobqueue on
Slurm/PBS: docs/sweeps.md).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from types import TracebackType
from typing import Any

from distributed.diagnostics.plugin import WorkerPlugin

from adaptsched.errors import AdaptschedError

Say = Callable[..., None]


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


def _threads(client: Any) -> int:
    return max(1, sum(w.get("nthreads", 1) for w in client.scheduler_info()["workers"].values()))


def start_client(scheduler_address: str | None, workers: int | None, *, say: Say = print) -> tuple[Any, Any, int]:
    """(client, cluster or None, number of worker threads). ``scheduler_address``: a running
    cluster's scheduler; otherwise a LocalCluster of ``workers`` single-threaded worker
    processes (default: one per CPU)."""
    from distributed import Client, LocalCluster

    if scheduler_address:
        try:
            client = Client(scheduler_address, timeout="30s", set_as_default=False)
        except (OSError, TimeoutError) as error:
            raise AdaptschedError(
                f"--scheduler-address {scheduler_address}: no Dask scheduler answers there ({error}); start one "
                "with 'dask scheduler' and workers with 'dask worker ADDRESS' (docs/sweeps.md)"
            ) from None
        try:
            client.wait_for_workers(1, timeout=120)
        except TimeoutError:
            client.close()
            raise AdaptschedError(
                f"--scheduler-address {scheduler_address}: the scheduler has no worker after 120 s; "
                "start some with 'dask worker ADDRESS'"
            ) from None
        return client, None, _threads(client)
    if hasattr(os, "sched_getaffinity"):
        cpus = len(os.sched_getaffinity(0))
    else:  # pragma: no cover
        cpus = os.cpu_count() or 1
    n = workers or cpus
    cluster = LocalCluster(
        n_workers=n,
        threads_per_worker=1,
        processes=True,
        dashboard_address="127.0.0.1:0",  # its HTTP server (health, no bokeh: no dashboard) on loopback
        silence_logs=logging.ERROR,
        host="127.0.0.1",
    )
    client = Client(cluster, set_as_default=False)
    client.register_plugin(QuietInterrupt())
    return client, cluster, n


class Cluster:
    """The client a grid runs through, for a ``with`` block: started here (and closed at the
    end) unless the caller gives one. ``workers``: its worker threads; ``local``: a
    LocalCluster of ours (whose workers may be pinned to CPUs); ``startup_s``: its start-up."""

    def __init__(
        self,
        client: Any = None,
        *,
        scheduler_address: str | None = None,
        workers: int | None = None,
        say: Say = print,
    ):
        self.client = client
        self.own = client is None
        self.scheduler_address = scheduler_address
        self.requested_workers = workers
        self.say = say
        self.cluster: Any = None
        self.workers = 0
        self.startup_s = 0.0

    @property
    def local(self) -> bool:
        return self.cluster is not None

    def __enter__(self) -> Cluster:
        begin = time.perf_counter()
        if self.own:
            self.client, self.cluster, self.workers = start_client(
                self.scheduler_address, self.requested_workers, say=self.say
            )
        else:
            self.workers = _threads(self.client)
        self.startup_s = time.perf_counter() - begin
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if not self.own:
            return
        try:
            self.client.close(timeout=10)
            if self.cluster is not None:
                self.cluster.close(timeout=10)
        except Exception:  # closing a cluster that lost its workers: nothing left to save
            pass
