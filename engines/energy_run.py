"""What ``--energy`` adds to a run's inputs, beside the engines (docs/energy.md): a platform
given as a number of hosts becomes a generated cluster with power (:mod:`adaptsched.platforms.power`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from adaptsched.errors import AdaptschedError
from adaptsched.platforms.power import PowerSpec
from adaptsched.platforms.simgrid import Platform, read_platform, write_cluster


def powered_cluster(nb_hosts: int, prefix: str, say: Callable[..., None]) -> tuple[Path, Platform]:
    """A run's platform given as a number of hosts, with ``--energy``: the generated cluster with
    the default power model (:mod:`adaptsched.platforms.power`), written to ``PREFIX_platform.xml``."""
    if nb_hosts < 1:
        raise AdaptschedError("a platform needs at least one host")
    power = PowerSpec()
    path = write_cluster(nb_hosts, f"{prefix}_platform.xml", power=power)
    say(f"note: --energy on a generated cluster of {nb_hosts} hosts: power {power.describe()} ({path})")
    return path, read_platform(path)
