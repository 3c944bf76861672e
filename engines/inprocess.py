"""The pybatsim scheduler inside the engine's own process (the in-process transport).

pybatsim's ``Batsim`` object reads one message from Batsim, calls the plugin's handlers and
sends one reply per ``_read_bat_msg()``; it talks through a ``NetworkHandler`` whose ``recv``
returns the message as ``json.loads`` decodes it and whose ``send`` takes the reply as a
Python structure (``json.dumps`` is inside it). :class:`InProcessHandler` stands in for that
handler, so the engine hands each message to pybatsim's own ``Batsim`` as a Python structure
and takes its reply the same way: no second process, no ZeroMQ, no JSON text per message.
The rest is pybatsim's: the same ``Batsim`` object, the same plugin loader
(``batsim.tools.launcher.instanciate_scheduler``), the same handlers called in the same order
with the same ``Job`` objects, so any pybatsim plugin (adaptsched's, pybatsim's own, a user's
``.py``) runs as it does under ``pybatsim`` against real Batsim. One part of it is a copy: the
usual messages (job submissions and completions, requested calls) are read by
:mod:`adaptsched.engines.dispatch`'s mirror of pybatsim's ``_read_bat_msg``, which does what it
does without its overhead, only while the installed pybatsim is the one it copies and nothing
replaces what it bypasses (its module doc says how that is checked; tests/conformance/
test_dispatch.py proves both readers alike); every other message, and all of them when that
check fails, are read by pybatsim's own ``_read_bat_msg``.

What a separate process gave for free is kept here:

- the plugin's output (``print``, ``logging``) goes to ``PREFIX_sched.log``, formatted as
  the ``pybatsim`` launcher formats it;
- an exception in the plugin, ``sys.exit`` in the plugin, or a plugin that does not answer
  within ``timeout_s`` stops the run with a :class:`SimulationError` naming the plugin and
  the simulated time, its traceback in the log; the engine then closes its outputs as for
  any other failure, so every row written so far is kept (the timeout interrupts the plugin
  with a signal, so it needs the main thread: elsewhere it is refused, never dropped);
- Ctrl-C while the plugin computes stops the run the same way (exit code 130);
- what the plugin may change in the process for its run (``sys.stdout``/``sys.stderr``,
  the recursion limit pybatsim raises, the root logger) is restored afterwards.

- ``os._exit`` in the plugin (at import or in a decision) stops the run the same way: it raises
  while the plugin runs (:mod:`adaptsched.engines.plugin_exit`), rather than end the process
  with a status that would pass for success.

A plugin that kills its process otherwise (a signal) or corrupts the interpreter itself can
still take the engine down with it, with a non-zero status (the engine flushes ``_jobs.csv``
before each message to the plugin, so the rows written are on disk, under their partial names:
:mod:`adaptsched.engines.partial`): the ZeroMQ transport (``--transport zmq``) isolates such plugins.

pybatsim's own ``_read_bat_msg`` logs every message it receives at INFO level (``"...".format(msg)``, computed even
when INFO is off). When INFO is off (the default verbosity, ``warning``), the messages are
handed over as :class:`Message`, a ``dict`` whose ``repr`` is short, so that this unused text
is not built; with INFO on they are plain dicts and the log shows them in full.
"""

from __future__ import annotations

import importlib.util
import io
import logging
import signal
import sys
import threading
import time
import traceback
from contextlib import ExitStack, redirect_stdout
from pathlib import Path

from adaptsched.engines import dispatch
from adaptsched.engines.dispatch import Dispatcher
from adaptsched.engines.plugin_exit import ENDS_ITS_PROCESS, PluginExit, guarded
from adaptsched.errors import NO_ANSWER, AdaptschedError, InputError, SimulationError

LOG_FORMAT = "[pybatsim - %(asctime)s - %(name)s - %(levelname)s] %(message)s"  # the launcher's


class Message(dict):
    """A protocol message as ``json.loads`` gives it, with a short ``repr`` (see module doc)."""

    __slots__ = ()

    def __repr__(self):
        return f"<message: now={self.get('now')!r}, {len(self.get('events', ()))} event(s)>"

    __str__ = __repr__


class InProcessHandler:
    """Stands in for pybatsim's ``NetworkHandler`` (``batsim/network.py``): ``recv`` returns the
    message the engine put in ``inbox``; ``send`` keeps the reply in ``outbox``."""

    def __init__(self, socket_endpoint="inprocess", timeout=None, type=None):
        self.socket_endpoint = socket_endpoint
        self.timeout = timeout
        self.connection = self  # pybatsim asserts that a connection is open
        self.inbox = None
        self.outbox = None

    def recv(self, blocking=False):
        message, self.inbox = self.inbox, None
        return message

    def send(self, msg):
        self.outbox = msg

    # The rest of NetworkHandler's interface, for plugins that use it directly.
    def recv_string(self, blocking=False):
        import json

        message = self.recv(blocking)
        return None if message is None else json.dumps(message)

    def send_string(self, msg):
        import json

        self.send(json.loads(msg))

    def bind(self):
        pass

    def connect(self):
        pass

    def subscribe(self, pattern=b""):
        pass

    def close(self):
        pass


def _pybatsim_schedulers_init() -> Path:
    spec = importlib.util.find_spec("batsim")
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError("pybatsim (module 'batsim') is not installed")
    return Path(spec.origin).parent.parent / "schedulers" / "__init__.py"


def _pybatsim_schedulers():
    """pybatsim's ``schedulers`` package, imported by file (our repository root holds a folder
    of the same name that may come first on ``sys.path``)."""
    init = _pybatsim_schedulers_init()
    package_spec = importlib.util.spec_from_file_location("schedulers", init)
    package = importlib.util.module_from_spec(package_spec)
    package_spec.loader.exec_module(package)
    return package


def load_scheduler(scheduler: str, options: object):
    """The plugin's scheduler object, made by pybatsim's own loader (as the ``pybatsim`` command
    does): a pybatsim built-in name or the path of a ``.py`` plugin."""
    from batsim.tools.launcher import instanciate_scheduler

    previous = sys.modules.get("schedulers")
    if previous is None or getattr(previous, "__file__", None) != str(_pybatsim_schedulers_init()):
        sys.modules["schedulers"] = _pybatsim_schedulers()
    said = io.StringIO()
    try:
        with redirect_stdout(said):
            return instanciate_scheduler(scheduler, options=options)
    except SystemExit:  # pybatsim's loader says what is missing and exits
        raise AdaptschedError(f"cannot load the scheduler {scheduler!r}: {said.getvalue().strip()}") from None
    except (AdaptschedError, PluginExit, KeyboardInterrupt):
        raise
    except Exception as error:  # the plugin's own code failed (syntax, an exception at import)
        if not scheduler.endswith(".py"):
            raise
        from adaptsched.schedulers.loader import where_in_plugin

        path = Path(scheduler).resolve()
        raise InputError(path, f"cannot load the plugin: {where_in_plugin(error, path)}") from None
    finally:
        if previous is not None:
            sys.modules["schedulers"] = previous


class _Timeout(BaseException):
    """Raised in the main thread when the plugin takes longer than the timeout."""


class InProcessConnection:
    """The engine's side of the exchange: ``exchange(message) -> reply``, Python structures.

    ``wire = "python"`` tells the engine to build its messages as Python structures.
    """

    wire = "python"

    def __init__(self, scheduler: str, options: object, log_path, *, timeout_s: float | None = None, now=None):
        if timeout_s is not None and threading.current_thread() is not threading.main_thread():
            raise SimulationError(  # rather than a timeout silently not kept
                f"a scheduler timeout ({timeout_s:g} s) needs the main thread with the plugin in the engine's "
                "process (it interrupts the plugin with a signal): run from the main thread, over ZeroMQ "
                "(transport zmq), or without a timeout"
            )
        self.scheduler_name = scheduler
        self.log_path = Path(log_path)
        self.timeout_s = timeout_s
        self.now = now or (lambda: float("nan"))  # the engine's clock, for messages
        self.log = open(self.log_path, "w", buffering=1)
        self.handler = InProcessHandler()
        self.bs = None
        self.dispatcher: Dispatcher | None = None
        self.exchanges = 0
        self._in_plugin = False
        self._timed_out = False
        self._saved_recursion_limit = sys.getrecursionlimit()
        self._log_handler = logging.StreamHandler(self.log)
        self._log_handler.setFormatter(logging.Formatter(LOG_FORMAT))
        root = logging.getLogger()
        self._saved_root_level = root.level
        root.addHandler(self._log_handler)
        root.setLevel(logging.WARNING)  # the launcher's default verbosity
        self.short_repr = not logging.getLogger("batsim.batsim").isEnabledFor(logging.INFO)
        self._watchdog = None
        self._guard = ExitStack()  # os._exit in the plugin's code raises (engines/plugin_exit.py)
        self._guard.enter_context(guarded())
        try:
            with _output_to(self.log):
                print(f"Scheduler: {scheduler} ({options}) in the engine's process", file=self.log)
                self.scheduler = load_scheduler(scheduler, options)
        except PluginExit as stop:
            self._report("called os._exit while loading", traceback.format_exc())
            self.close()
            raise SimulationError(
                f"the scheduler plugin ({scheduler}) called os._exit({stop.code!r}) while loading: {ENDS_ITS_PROCESS}"
            ) from None
        except BaseException:
            self.close()
            raise
        if timeout_s is not None:
            self._main = threading.get_ident()
            self._stop = threading.Event()
            self._previous_sigalrm = signal.signal(signal.SIGALRM, self._on_alarm)
            self._watchdog = threading.Thread(target=self._watch, name="plugin watchdog", daemon=True)
            self._watchdog.start()

    # -- the exchange -----------------------------------------------------------
    def exchange(self, message):
        handler = self.handler
        handler.outbox = None
        self.exchanges += 1
        out, err = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = self.log
        self._in_plugin = True
        try:
            bs, dispatcher = self.bs, self.dispatcher
            if dispatcher is not None and dispatcher.route(bs, message):
                handler.inbox = message
                dispatcher.read_bat_msg(bs)
            else:
                handler.inbox = Message(message) if self.short_repr else message
                if bs is None:
                    self.bs = self._start_batsim()
                    self.dispatcher = self._dispatcher()
                else:
                    bs._read_bat_msg()
        except _Timeout:
            self._report("did not answer", traceback.format_exc())
            raise SimulationError(
                f"the scheduler plugin ({self.scheduler_name}) {NO_ANSWER} {self.timeout_s:g} s "
                f"at t={self.now():f}; where it was is in {self.log_path}"
            ) from None
        except KeyboardInterrupt:
            self._report("was interrupted", traceback.format_exc())
            raise
        except PluginExit as stop:
            self._report("called os._exit", traceback.format_exc())
            raise SimulationError(
                f"the scheduler plugin ({self.scheduler_name}) called os._exit({stop.code!r}) at t={self.now():f} "
                f"instead of answering: {ENDS_ITS_PROCESS}; its traceback is in {self.log_path}"
            ) from None
        except SystemExit as stop:
            self._report("called sys.exit", traceback.format_exc())
            if isinstance(stop.code, str):  # a plugin refusing its input or options says why
                raise SimulationError(f"the scheduler plugin refused to run: {stop.code}") from None
            raise SimulationError(
                f"the scheduler plugin ({self.scheduler_name}) called sys.exit({stop.code!r}) at t={self.now():f} "
                f"instead of answering; its traceback is in {self.log_path}"
            ) from None
        except Exception as error:
            self._report("raised an exception", traceback.format_exc())
            raise SimulationError(
                f"the scheduler plugin ({self.scheduler_name}) failed at t={self.now():f}: "
                f"{type(error).__name__}: {error}; last lines of {self.log_path}:\n{self._tail()}"
            ) from None
        finally:
            self._in_plugin = False
            sys.stdout, sys.stderr = out, err
        reply = handler.outbox
        if reply is None:
            raise SimulationError(
                f"the scheduler plugin ({self.scheduler_name}) returned without answering at t={self.now():f}"
            )
        return reply

    def _start_batsim(self):
        """pybatsim's ``Batsim(scheduler, ...)``: it reads the first message in its constructor."""
        import batsim.batsim as module

        saved = module.NetworkHandler
        module.NetworkHandler = lambda endpoint, timeout=None, type=None: self.handler
        try:
            return module.Batsim(self.scheduler, "inprocess", None)
        finally:
            module.NetworkHandler = saved

    def _dispatcher(self) -> Dispatcher | None:
        """The mirror of ``_read_bat_msg`` (engines/dispatch.py) when the installed pybatsim is the
        one it copies; else None (pybatsim's own code reads every message, as fast as before, and
        the log says why: the run's outputs do not depend on it, only its speed)."""
        import batsim.batsim as module

        if not dispatch.ENABLED:
            return None
        problem = dispatch.check_pybatsim(module)
        if problem is not None:
            print(f"[adaptsched] pybatsim's own _read_bat_msg reads every message: {problem}", file=self.log)
            return None
        return Dispatcher(module, self.handler)

    def _report(self, what: str, trace: str):
        print(f"[adaptsched] the scheduler plugin {what} at t={self.now():f}:\n{trace}", file=self.log)

    def _tail(self, lines: int = 12) -> str:
        from adaptsched.engines.process import tail

        self.log.flush()
        return tail(self.log_path, lines)

    # -- the watchdog -------------------------------------------------------------
    def _watch(self):
        """Interrupts the main thread when one exchange lasts longer than ``timeout_s``."""
        seen, since = -1, time.monotonic()
        poll = min(0.2, self.timeout_s / 4)
        while not self._stop.wait(poll):
            count = self.exchanges
            if count != seen or not self._in_plugin or count <= 1:  # as over ZeroMQ: not the first answer
                seen, since = count, time.monotonic()
            elif time.monotonic() - since > self.timeout_s:
                self._timed_out = True
                signal.pthread_kill(self._main, signal.SIGALRM)
                return

    def _on_alarm(self, signum, frame):
        if self._timed_out and self._in_plugin:
            raise _Timeout()

    # -- after the run ------------------------------------------------------------
    def summary_problem(self) -> str | None:
        """What the ``pybatsim`` launcher checks at the end (it exits with 1 when jobs are unaccounted for)."""
        bs = self.bs
        if bs is None:
            return None
        print(
            "Job submitted:",
            bs.nb_jobs_submitted,
            ", scheduled:",
            bs.nb_jobs_scheduled,
            ", rejected:",
            bs.nb_jobs_rejected,
            ", killed:",
            bs.nb_jobs_killed,
            ", changed:",
            len(bs.jobs_manually_changed),
            ", timeout:",
            bs.nb_jobs_timeout,
            ", success",
            bs.nb_jobs_successful,
            ", complete:",
            bs.nb_jobs_completed,
            file=self.log,
        )
        if bs.nb_jobs_submitted != bs.nb_jobs_scheduled + bs.nb_jobs_rejected + len(bs.jobs_manually_changed):
            return (
                f"pybatsim counts {bs.nb_jobs_submitted} submitted jobs but {bs.nb_jobs_scheduled} scheduled and "
                f"{bs.nb_jobs_rejected} rejected (the pybatsim command would exit with code 1; see {self.log_path})"
            )
        return None

    def close(self):
        if self._watchdog is not None:
            self._stop.set()
            self._watchdog.join()
            signal.signal(signal.SIGALRM, self._previous_sigalrm)
            self._watchdog = None
        sys.setrecursionlimit(self._saved_recursion_limit)
        root = logging.getLogger()
        root.removeHandler(self._log_handler)
        root.setLevel(self._saved_root_level)
        if not self.log.closed:
            self.log.close()
        self._guard.close()
        self._release()

    def _release(self):
        """Breaks the reference cycles of the run's objects once the exchange is over, so that
        reference counting frees them when the caller lets go of this connection: pybatsim's
        ``Batsim`` and its scheduler refer to each other (``bs.scheduler``, ``scheduler.bs``),
        and through them every pybatsim ``Job`` of the run; the engine's clock (``now``) refers
        to the engine, which refers to this connection. Left to the cyclic GC, a long-lived
        process (a sweep's worker) would pay for them in its next full collection."""
        bs, self.now = self.bs, _no_clock
        if bs is not None and getattr(bs, "scheduler", None) is self.scheduler:
            del bs.scheduler  # the scheduler keeps bs (a plugin may read it after the run)


def _no_clock() -> float:
    return float("nan")


class _output_to:
    """``sys.stdout`` and ``sys.stderr`` to a file for a while."""

    def __init__(self, file):
        self.file = file

    def __enter__(self):
        self.saved = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = self.file

    def __exit__(self, *exc):
        sys.stdout, sys.stderr = self.saved
