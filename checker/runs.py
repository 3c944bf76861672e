"""One workload through the scheduler, on one engine or both, and what its run breaks.

A run is an ordinary :class:`~adaptsched.engines.run.spec.RunSpec` (the embedded engine in-process
or over ZeroMQ, or real Batsim with the plugin under pybatsim); its ``_jobs.csv`` is checked by
:func:`adaptsched.analysis.invariants.run_violations`, and the reservations its scheduler withdrew
by :func:`.promises.withdrawal_violations`. A run the engine stops (a decision it refuses,
the scheduler's exception, a deadlock) is a violation too
(:func:`~adaptsched.analysis.invariants.run_failure`). With both engines, each run is checked
and their ``_jobs.csv`` compared (:func:`~adaptsched.analysis.invariants.same_jobs`).

A plugin that does not answer one message within the target's ``scheduler_timeout_s`` stops an
embedded run (a crash). Real Batsim waits for its scheduler without a limit, so a workload whose
embedded run timed out is not run on real Batsim: that run would hang.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adaptsched.analysis.invariants import Violation, run_failure, run_violations, same_jobs
from adaptsched.analysis.jobs import read_jobs_csv
from adaptsched.errors import NO_ANSWER, AdaptschedError

from .cases import job_ids
from .promises import withdrawal_violations

#: Seconds a plugin may take to answer one message in ``check``'s embedded runs (its workloads are
#: small: a plugin slower than this is taken to hang).
SCHEDULER_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class Target:
    """The scheduler under check: its name or plugin file, its options (as given), the engines
    (``embedded``, ``batsim`` or both), the real Batsim executable, how the embedded engine talks
    to the plugin (``inprocess``, or ``zmq``: in its own process, so that one that kills its
    process is reported too) and the embedded runs' timeout for one answer (None: wait)."""

    scheduler: str
    options: dict[str, Any] = field(default_factory=dict, hash=False)
    engines: tuple[str, ...] = ("embedded",)
    batsim: str | None = None
    transport: str = "inprocess"
    scheduler_timeout_s: float | None = SCHEDULER_TIMEOUT_S
    energy: bool = False  # Batsim's energy model on every run (check --energy)


@dataclass
class Checked:
    """What running a workload found: its ``violations``, or why the scheduler's declared needs
    refused it up front (``refused``: then it was not run, and nothing was checked)."""

    violations: list[Violation] = field(default_factory=list)
    refused: str = ""


def run_once(
    target: Target, workload: dict[str, Any], platform: int | str, folder: Path, name: str, engine: str
) -> Checked:
    """The violations of one run of ``workload`` (written to ``folder/NAME.json``; outputs
    ``folder/NAME-ENGINE_*``) on ``platform``, a host count or a SimGrid XML file; or the
    message of the scheduler's refusal of the input, not run."""
    from adaptsched.engines.run import run
    from adaptsched.engines.run.spec import RunSpec
    from adaptsched.errors import InputRefused
    from adaptsched.workloads.convert import write_workload

    folder.mkdir(parents=True, exist_ok=True)
    path = write_workload(workload, folder / f"{name}.json")
    prefix = folder / f"{name}-{engine}"
    embedded = engine == "embedded"
    spec = RunSpec.make(
        target.scheduler,
        path,
        platform,
        prefix,
        options=target.options,
        engine=engine,
        batsim=target.batsim,
        transport=target.transport if embedded else None,
        scheduler_timeout_s=target.scheduler_timeout_s if embedded else None,  # real Batsim waits
        energy=target.energy,
    )
    for suffix in ("_jobs.csv", "_schedule.csv", *ENERGY_OUTPUTS):  # never read a previous run's outputs
        Path(f"{prefix}{suffix}").unlink(missing_ok=True)
    try:
        run(spec, say=lambda *args: None)
    except InputRefused as error:
        # the scheduler's declared needs (core/needs.py) refuse this input before the first
        # event, with a message naming the command that prepares it: the rule working, not a
        # fault; counted, so that a report never calls an unchecked workload checked
        return Checked(refused=str(error))
    except AdaptschedError as error:
        return Checked([run_failure(essence(str(error)))])
    # Every rule on a finished run is called here, from analysis/invariants.py; the run's physics
    # against its workload is checked by the engine at the end of every run (engines/checks/physics.py):
    # a violation stops the run, and run_failure names it "physics".
    jobs_csv = f"{prefix}_jobs.csv"
    found = run_violations(jobs_csv, host_count(platform), workload_ids=job_ids(workload))
    return Checked(found + [Violation("guarantee", p) for p in withdrawal_violations(read_jobs_csv(jobs_csv))])


def host_count(platform: int | str) -> int:
    """The compute hosts of a platform: a host count, or a SimGrid XML file's."""
    if isinstance(platform, int):
        return platform
    from adaptsched.platforms.simgrid import read_platform

    return read_platform(platform).nb_hosts


def violations(target: Target, workload: dict[str, Any], platform: int | str, folder: Path, name: str) -> Checked:
    """Every violation of the workload's runs on the target's engines (module doc); or the
    scheduler's refusal of the input, from the first engine (the same needs refuse it on every
    engine), and nothing compared."""
    found: list[Violation] = []
    for engine in target.engines:
        checked = run_once(target, workload, platform, folder, name, engine)
        found += [Violation(v.kind, f"{engine}: {v.message}") for v in checked.violations]
        if checked.refused:
            return Checked(found, checked.refused)
        if any(NO_ANSWER in v.message for v in checked.violations):
            return Checked(found)  # real Batsim would wait for ever for the same answer (module doc)
    if len(target.engines) == 2 and not found:
        a, b = (folder / f"{name}-{engine}_jobs.csv" for engine in target.engines)
        found += [
            Violation("engines-differ", f"{target.engines[0]} vs {target.engines[1]}: {d}") for d in same_jobs(a, b)
        ]
        if target.energy:
            prefixes = [folder / f"{name}-{engine}" for engine in target.engines]
            found += [
                Violation("engines-differ", f"{target.engines[0]} vs {target.engines[1]}: {d}")
                for d in same_energy(*prefixes)
            ]
    return Checked(found)


ENERGY_OUTPUTS = ("_consumed_energy.csv", "_pstate_changes.csv")


def same_energy(a_prefix: Path, b_prefix: Path) -> list[str]:
    """How two runs' energy outputs differ (empty: byte-identical), the first line that differs in each."""
    out = []
    for suffix in ENERGY_OUTPUTS:
        a, b = (Path(f"{prefix}{suffix}").read_text().splitlines() for prefix in (a_prefix, b_prefix))
        for number, (x, y) in enumerate(zip(a, b), start=1):
            if x != y:
                out.append(f"{suffix} line {number}: {x!r} against {y!r}")
                break
        else:
            if len(a) != len(b):
                out.append(f"{suffix}: {len(a)} lines against {len(b)}")
    return out


def essence(message: str) -> str:
    """A failed run's message with real Batsim's log tail reduced to its error line (the
    engine's own words, as the embedded engine gives them), the rest kept after it."""
    lines = message.splitlines()
    critical = next((line for line in lines if "/CRITICAL]" in line), None)
    if critical is None:
        return message
    words = critical.split("] ", 2)[-1].replace(" (rerun with --help to display the available options)", "")
    return f"real Batsim: {words}\n{message}"
