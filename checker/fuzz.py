"""Random small workloads for a given time, each run and checked (hypothesis).

Each workload has 1 to 12 jobs on a machine of 1 to 16 hosts (or the machine given): whole
submission times in a short window (so that jobs overlap and queues form), sizes up to the
machine (now and then one host wider: it must be rejected), runtimes of 1 to 200 s, walltimes
of 1 to 300 s (so some jobs run past theirs, some exactly theirs). With declared inputs
(:func:`~.cases.prepared`) the workload is annotated as the built-in cases are.

hypothesis draws them in batches of :data:`BATCH` examples, each batch from its own seed
(``seed``, ``seed + 1``...: the same run finds the same workloads), until the time is up; the
first failing example is shrunk by hypothesis to the smallest workload showing the same
kind of violation.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from adaptsched.analysis.invariants import Violation

BATCH = 20
MAX_JOBS = 12
MAX_HOSTS = 16


@dataclass
class FuzzResult:
    """How many workloads were drawn (``refused`` of them refused up front by the scheduler's
    declared needs: not run), and the first violation with the smallest workload showing it."""

    workloads: int = 0
    refused: int = 0
    seconds: float = 0.0
    violation: Violation | None = None
    workload: dict[str, Any] | None = None
    nb_hosts: int = 0
    kinds: dict[str, type] = field(default_factory=dict)


class Violated(Exception):
    """A workload broke a rule (one subclass per kind: hypothesis shrinks toward the same one)."""


def _workloads(nb_hosts: int | None) -> Any:
    from hypothesis import strategies as st

    @st.composite
    def workload(draw: Any) -> tuple[dict[str, Any], int]:
        hosts = nb_hosts or draw(st.integers(1, MAX_HOSTS))
        count = draw(st.integers(1, MAX_JOBS))
        jobs, profiles = [], {}
        for i in range(count):
            runtime = draw(st.integers(1, 200))
            res = draw(st.integers(1, hosts + 1)) if draw(st.integers(0, 9)) == 0 else draw(st.integers(1, hosts))
            profiles[f"delay{runtime}"] = {"type": "delay", "delay": runtime}
            jobs.append(
                {
                    "id": str(i + 1),
                    "subtime": draw(st.integers(0, 300)),
                    "res": res,
                    "walltime": draw(st.integers(1, 300)),
                    "profile": f"delay{runtime}",
                }
            )
        jobs.sort(key=lambda job: job["subtime"])
        return {"nb_res": hosts, "jobs": jobs, "profiles": profiles}, hosts

    return workload()


def fuzz(
    check: Callable[[dict[str, Any], int], list[Violation]],
    seconds: float,
    *,
    nb_hosts: int | None = None,
    prepare: Callable[[dict[str, Any]], dict[str, Any]] = lambda w: w,
    seed: int = 0,
) -> FuzzResult:
    """Runs ``check(workload, nb_hosts)`` on random workloads for ``seconds`` (module doc)."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as seeded

    result = FuzzResult()
    begin = time.monotonic()

    def prop(drawn: tuple[dict[str, Any], int]) -> None:
        workload, hosts = drawn
        workload = prepare(workload)
        result.workloads += 1
        found = check(workload, hosts)
        if found:
            result.violation, result.workload, result.nb_hosts = found[0], workload, hosts
            kind = found[0].kind
            raise result.kinds.setdefault(kind, type(f"Violated_{kind.replace('-', '_')}", (Violated,), {}))(kind)

    batch = 0
    while time.monotonic() - begin < seconds:
        test = settings(
            max_examples=BATCH,
            deadline=None,
            database=None,
            derandomize=False,
            report_multiple_bugs=False,
            suppress_health_check=list(HealthCheck),
            phases=(Phase.generate, Phase.shrink),
            print_blob=False,
        )(seeded(seed * 1_000_003 + batch)(given(_workloads(nb_hosts))(prop)))
        batch += 1
        try:
            test()
        except Violated:
            break  # hypothesis ran the smallest failing example last: it is the one kept
    result.seconds = time.monotonic() - begin
    return result
