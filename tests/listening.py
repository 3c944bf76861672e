"""Which sockets of ours listen where: the OS's socket table (psutil), for the loopback-only rule.

:func:`listening` lists the listening TCP sockets of a process tree (a process and all its
descendants) as ``(pid, command, address, port)``; :func:`exposed` keeps those on all
interfaces (``0.0.0.0`` or ``::``) or on any other non-loopback address; :class:`Watch`
samples both in a background thread while a sweep or a conformance run goes on, so that a
socket opened and closed between two looks is still likely to be seen (one look per 50 ms).
"""

from __future__ import annotations

import ipaddress
import os
import threading

import psutil

Listening = tuple[int, str, str, int]


def tree(root: int) -> list[psutil.Process]:
    try:
        process = psutil.Process(root)
        return [process] + process.children(recursive=True)
    except psutil.NoSuchProcess:
        return []


def processes(roots: list[int] | None = None) -> dict[int, str]:
    """{pid: the start of its command line} of the trees under ``roots`` (default: this process)."""
    pids: dict[int, str] = {}
    for root in roots or [os.getpid()]:
        for process in tree(root):
            try:
                pids[process.pid] = " ".join(process.cmdline()[:4])[:120]
            except psutil.Error:
                pass
    return pids


def listening(roots: list[int] | None = None, pids: dict[int, str] | None = None) -> set[Listening]:
    """Listening TCP sockets (IPv4 and IPv6) of the trees under ``roots`` (default: this process)."""
    pids = processes(roots) if pids is None else pids
    out = set()
    for conn in psutil.net_connections(kind="tcp"):
        if conn.status == psutil.CONN_LISTEN and conn.pid in pids and conn.laddr:
            out.add((conn.pid, pids[conn.pid], conn.laddr.ip, conn.laddr.port))
    return out


def exposed(sockets: set[Listening]) -> set[Listening]:
    """Those not on loopback: on all interfaces (0.0.0.0, ::) or on another address."""
    bad = set()
    for socket in sockets:
        ip = socket[2].split("%")[0]
        try:
            address = ipaddress.ip_address(ip)
        except ValueError:
            bad.add(socket)
            continue
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        if not address.is_loopback:
            bad.add(socket)
    return bad


class Watch:
    """``with Watch(roots) as watch:`` samples :func:`listening` every ``period_s`` in a thread;
    ``watch.seen`` holds every socket seen, ``watch.commands`` every process of the trees (the
    start of its command line), ``watch.looks`` how many looks were taken."""

    def __init__(self, roots: list[int] | None = None, period_s: float = 0.05):
        self.roots = roots
        self.period_s = period_s
        self.seen: set[Listening] = set()
        self.commands: set[str] = set()
        self.looks = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                pids = processes(self.roots)
                self.commands |= set(pids.values())
                self.seen |= listening(pids=pids)
                self.looks += 1
            except psutil.Error:
                pass
            self._stop.wait(self.period_s)

    def __enter__(self) -> Watch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
