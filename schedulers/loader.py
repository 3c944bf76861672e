"""A plugin file, read as adaptsched reads it: its pybatsim class and, if it runs one of our
pure schedulers, that scheduler (its options, its name).

Stock pybatsim loads a plugin file by path and takes the class named after the file, its first
letter capitalised (``my_easy.py`` -> ``My_easy``); :func:`adaptsched.schedulers.adapter.plugin`
makes that class for a pure scheduler. :func:`load_plugin` loads the file the same way, with
the same ``sys.path`` as pybatsim's launcher (the file's folder and its parent, for imports
of files beside it), in a module of its own, and tells which pure scheduler the class runs.
Loading runs the file: only files that mention ``adaptsched`` are loaded here (a plain
pybatsim plugin is pybatsim's to load, and its options are JSON values only it can check).
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from adaptsched.core.base import OnlineScheduler
from adaptsched.engines.transports.plugin_exit import ENDS_ITS_PROCESS, PluginExit, guarded
from adaptsched.errors import InputError


@dataclass(frozen=True)
class PluginFile:
    """A loaded plugin file: ``scheduler_class`` is the pybatsim class pybatsim would take (None
    if the file has none of that name); ``core_class`` the pure scheduler it runs (None for a
    pybatsim plugin of its own)."""

    path: Path
    class_name: str
    scheduler_class: type | None
    core_class: type[OnlineScheduler] | None


_LOADED: dict[tuple[str, str], PluginFile] = {}  # (path, SHA-256 of its contents) -> the file loaded


def pybatsim_class_name(path: str | Path) -> str:
    """The class stock pybatsim takes from a plugin file: its name's first letter capitalised."""
    stem = Path(path).name.split(".")[0]
    return stem[:1].upper() + stem[1:]


def mentions_adaptsched(path: str | Path) -> bool:
    try:
        return b"adaptsched" in Path(path).read_bytes()
    except OSError:
        return False


def load_plugin(path: str | Path) -> PluginFile:
    """The plugin file's classes (module doc); an :class:`InputError` naming the file if it
    cannot be loaded (the exception and its line)."""
    from adaptsched.schedulers.adapter import PlannerScheduler

    path = Path(path).resolve()
    try:
        contents = path.read_bytes()
    except OSError as error:
        raise InputError(path, f"cannot read the scheduler plugin: {error.strerror or error}") from None
    key = (str(path), hashlib.sha256(contents).hexdigest())
    if key in _LOADED:
        return _LOADED[key]
    module = _exec_module(path)
    name = pybatsim_class_name(path)
    found = getattr(module, name, None)
    scheduler_class = found if isinstance(found, type) else None
    core = None
    if scheduler_class is not None and issubclass(scheduler_class, PlannerScheduler):
        core = scheduler_class.core_class
    loaded = _LOADED[key] = PluginFile(path, name, scheduler_class, core)
    return loaded


def plugin_copy_kinds(core: type[OnlineScheduler] | None, plugin: str) -> dict[str, str]:
    """What each kind of job copy runs, as adaptsched's schedulers and the run's own declare it:
    ``core``, the run's scheduler class, or else the one of the plugin file ``plugin`` when it
    builds on adaptsched (loaded once already, for its options); the end-of-run physics check
    times copies by it."""
    from adaptsched.schedulers import copy_kinds

    if core is None and plugin.endswith(".py") and mentions_adaptsched(plugin):
        try:
            core = load_plugin(plugin).core_class
        except InputError:
            core = None
    return copy_kinds(core)


def _exec_module(path: Path) -> Any:
    module_name = f"adaptsched_plugin_{abs(hash(str(path))):x}_{path.stem}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise InputError(path, "not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    saved = list(sys.path)
    sys.path[:0] = [str(path.parent), str(path.parent.parent)]  # as pybatsim's launcher does
    try:
        with guarded():  # os._exit raises, rather than end this process with its status
            spec.loader.exec_module(module)
    except (SystemExit, PluginExit) as stop:
        del sys.modules[module_name]
        call = "sys.exit" if isinstance(stop, SystemExit) else "os._exit"
        raise InputError(path, f"the plugin called {call}({stop.code!r}) while loading: {ENDS_ITS_PROCESS}") from None
    except BaseException as error:
        del sys.modules[module_name]
        if isinstance(error, KeyboardInterrupt):
            raise
        raise InputError(path, f"cannot load the plugin: {where_in_plugin(error, path)}") from None
    finally:
        sys.path[:] = saved
    return module


def where_in_plugin(error: BaseException, path: Path) -> str:
    """``ExceptionType: message (line N)``, the line being the plugin's own, if any."""
    text = "".join(traceback.format_exception_only(type(error), error)).strip().splitlines()[-1]
    if isinstance(error, SyntaxError) and error.lineno:
        return f"{text} (line {error.lineno})"
    lines = [frame.lineno for frame in traceback.extract_tb(error.__traceback__) if Path(frame.filename) == path]
    return f"{text} (line {lines[-1]})" if lines else text
