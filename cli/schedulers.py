"""``adaptsched schedulers``: the schedulers, their options and their plugin files; with
``--plugin FILE``, a plugin file's scheduler and its options."""

from __future__ import annotations

import argparse

from adaptsched.errors import InputError

from .common import Subparsers, say


def register(sub: Subparsers) -> None:
    p = sub.add_parser("schedulers", help="list the schedulers, their options and plugin paths")
    p.add_argument(
        "--plugin",
        metavar="FILE.py",
        help="list this plugin file's scheduler and options instead (a file made with adaptsched.api.plugin)",
    )
    p.set_defaults(func=cmd_schedulers)


def say_options(options: type) -> None:
    specs = options.specs()  # type: ignore[attr-defined]
    for spec in specs:
        allowed = f"; allowed: {spec.allowed}" if spec.allowed else ""
        say(f"    --option {spec.name}=... (default {spec.default}{allowed}): {spec.help}")
    if not specs:
        say("    (no options)")


def cmd_schedulers(args: argparse.Namespace) -> int:
    from adaptsched import schedulers as registry

    if args.plugin:
        return say_plugin(args.plugin)
    for name, core in registry.SCHEDULERS.items():
        say(f"{name}: {core.summary}")
        say(f"    plugin: {registry.plugin_path(name)}")
        say_options(core.Options)
    say(
        "pybatsim's own schedulers (e.g. easyBackfill, fillerSched) and any .py pybatsim plugin path "
        "are accepted by 'adaptsched run --scheduler' too ('adaptsched schedulers --plugin FILE.py' "
        "lists a plugin's options)."
    )
    return 0


def say_plugin(path: str) -> int:
    from pathlib import Path

    from adaptsched.schedulers.loader import load_plugin

    if not path.endswith(".py") or not Path(path).is_file():
        raise InputError(path, "no such scheduler plugin file (a .py file)")
    loaded = load_plugin(path)
    if loaded.scheduler_class is None:
        raise InputError(
            path,
            f"no class named {loaded.class_name!r}: stock pybatsim takes the class named after the file; "
            "end the file with plugin(YourScheduler) (from adaptsched.api import plugin)",
        )
    core = loaded.core_class
    if core is None:
        say(f"{path}: pybatsim scheduler {loaded.class_name} (its own options are JSON values it reads itself)")
        return 0
    import sys

    module = sys.modules.get(core.__module__)
    doc = (core.__doc__ or getattr(module, "__doc__", None) or "").strip().split("\n\n")[0]
    say(f"{core.name}: {' '.join(doc.split()) or core.__qualname__}")
    say(f"    plugin: {path} (pybatsim class {loaded.class_name}, running {core.__qualname__})")
    say_options(core.Options)
    return 0
