"""A plugin in adaptsched's own process may not end it unseen: ``os._exit`` raises instead.

In-process (the embedded engine's default transport, and wherever adaptsched imports a plugin
file to read its options: ``check``, ``sweep``), a plugin that calls ``os._exit(0)`` at import or
in a decision would end ``run`` or ``check`` at once with exit status 0 and nothing printed: a
CI gate built on them would pass. While :func:`guarded` is in force, ``os._exit`` called by
the thread that entered it raises :class:`PluginExit` there instead, which the caller turns into
an error naming the plugin (:mod:`adaptsched.engines.inprocess`,
:mod:`adaptsched.schedulers.loader`). ``sys.exit`` is an exception already, reported the same
way. Over ZeroMQ and with real Batsim the plugin has a process of its own, whose end before the
simulation's is seen from outside (:mod:`adaptsched.engines.process`, :mod:`adaptsched.engines.real`).

What is not intercepted: ``os._exit`` in another thread (a Dask worker's own, or one the plugin
started) or in a process forked from this one (``multiprocessing``'s children end that way), which
keep their meaning; and a plugin that ends the process otherwise (a signal, a crash of the
interpreter), which ends it with a non-zero status, never 0.
"""

from __future__ import annotations

import os
import posix
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

_REAL_EXIT = os._exit
#: Why a plugin may not end its process, as the errors say it.
ENDS_ITS_PROCESS = "a plugin must not end its process before the simulation ends (the run would pass for finished)"


class PluginExit(BaseException):
    """The plugin called ``os._exit(code)`` (a BaseException: an ``except Exception`` in the
    plugin does not swallow it)."""

    def __init__(self, code: object) -> None:
        super().__init__(code)
        self.code = code


_THREADS: dict[int, int] = {}  # guarded thread -> how many guards it is in
_PID = os.getpid()  # the process whose threads are guarded (not a child forked since)
_LOCK = threading.Lock()


def _exit(status: int) -> NoReturn:
    if threading.get_ident() not in _THREADS or os.getpid() != _PID:
        _REAL_EXIT(status)  # another thread's, or a forked child's: its own to end
    raise PluginExit(status)


@contextmanager
def guarded() -> Iterator[None]:
    """While in force (nested calls too), ``os._exit`` in this thread raises :class:`PluginExit`."""
    global _PID
    me = threading.get_ident()
    with _LOCK:
        if not _THREADS:
            _PID = os.getpid()
            os._exit = posix._exit = _exit
        _THREADS[me] = _THREADS.get(me, 0) + 1
    try:
        yield
    finally:
        with _LOCK:
            _THREADS[me] -= 1
            if not _THREADS[me]:
                del _THREADS[me]
            if not _THREADS:
                os._exit = posix._exit = _REAL_EXIT
