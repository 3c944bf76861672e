"""``adaptsched schedulers``: the schedulers, their options and their plugin files."""

from __future__ import annotations

import argparse

from .common import Subparsers, say


def register(sub: Subparsers) -> None:
    p = sub.add_parser("schedulers", help="list the schedulers, their options and plugin paths")
    p.set_defaults(func=cmd_schedulers)


def cmd_schedulers(args: argparse.Namespace) -> int:
    from adaptsched import schedulers as registry

    for name, (_, description, _) in registry.SCHEDULERS.items():
        core = registry.core_class(name)
        say(f"{name}: {description}")
        say(f"    plugin: {registry.plugin_path(name)}")
        for spec in core.Options.specs():
            allowed = f"; allowed: {spec.allowed}" if spec.allowed else ""
            say(f"    --option {spec.name}=... (default {spec.default}{allowed}): {spec.help}")
    say(
        "pybatsim's own schedulers (e.g. easyBackfill, fillerSched) and any .py pybatsim plugin path "
        "are accepted by 'adaptsched run --scheduler' too."
    )
    return 0
