"""What happens on the cluster while a grid runs: :class:`Watch`.

Two kinds of events reach the client (``Client.subscribe_topic``), and are handed over to the
grid's loop (:meth:`Watch.drain`), which runs in the client's main thread:

* the scheduler's ``all`` topic: ``add-worker`` and ``remove-worker`` (with the tasks it was
  processing and whether its departure was expected);
* the runs' own topic (:data:`~.worker.EVENTS`): a run started on a worker (its host and
  scratch folder), a run failed there.

The cluster's size is sampled as the grid runs (:meth:`Watch.sample`, at most once a second:
``Client.scheduler_info(n_workers=0)``, a few bytes): least and most worker threads, and
their integral over time, the worker-seconds that the sweep's efficiency divides by.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from typing import Any

from .worker import EVENTS

SAMPLE_PERIOD_S = 1.0


class Watch:
    """Subscribes to the cluster's events (:meth:`start`), samples its size (:meth:`sample`)."""

    def __init__(self, client: Any):
        self.client = client
        self._events: deque[tuple[str, dict[str, Any]]] = deque()
        self._lock = threading.Lock()
        self.threads = 0
        self.threads_min = 0
        self.threads_max = 0
        self.worker_s = 0.0
        self._sampled_at = 0.0
        self._subscribed = False

    def start(self) -> None:
        self.client.subscribe_topic("all", self._on_cluster)
        self.client.subscribe_topic(EVENTS, self._on_run)
        self._subscribed = True
        self.sample(force=True)
        self.threads_min = self.threads_max = self.threads

    def _on_cluster(self, event: tuple[float, Any]) -> None:  # on the client's event loop
        message = event[1]
        if isinstance(message, dict) and message.get("action") in ("add-worker", "remove-worker"):
            with self._lock:
                self._events.append(("cluster", message))

    def _on_run(self, event: tuple[float, Any]) -> None:  # on the client's event loop
        if isinstance(event[1], dict):
            with self._lock:
                self._events.append(("run", event[1]))

    def drain(self) -> list[tuple[str, dict[str, Any]]]:
        """The events received since the last call, oldest first."""
        with self._lock:
            events = list(self._events)
            self._events.clear()
        return events

    def sample(self, force: bool = False) -> None:
        """The cluster's worker threads now (at most once per :data:`SAMPLE_PERIOD_S`), the time
        since the last sample counted at the last sample's size."""
        now = time.monotonic()
        if not force and now - self._sampled_at < SAMPLE_PERIOD_S:
            return
        if self._sampled_at:
            self.worker_s += self.threads * (now - self._sampled_at)
        self._sampled_at = now
        try:
            self.threads = int(self.client.scheduler_info(n_workers=0).get("total_threads") or 0)
        except Exception:  # the scheduler is gone: the grid's loop finds out
            return
        self.threads_min = min(self.threads_min, self.threads) if self.threads_max else self.threads
        self.threads_max = max(self.threads_max, self.threads)

    def close(self) -> None:
        self.sample(force=True)
        if not self._subscribed:
            return
        for topic in ("all", EVENTS):
            try:
                self.client.unsubscribe_topic(topic)
            except Exception:
                pass
        self._subscribed = False
