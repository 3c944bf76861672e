"""``adaptsched check``: a scheduler held to the checks adaptsched's own schedulers pass.

:func:`check_scheduler` runs the scheduler (an adaptsched name or a plugin file) on small
workloads, the built-in cases (:mod:`.cases`) or the user's, on the embedded engine, real
Batsim or both (:mod:`.runs`), and checks every run with :mod:`adaptsched.analysis.invariants`:

* no host runs two jobs at once, no job starts before its submission, every allocation has
  the requested size (unless molded) on hosts of the machine;
* every job of the workload ends; no job completes twice, nor after running past its walltime;
* no job starts after the reservation its scheduler recorded in its metadata (if it records any)
  and did not withdraw; a reservation is withdrawn only while the job waits and before it is due
  (:mod:`.promises`: EASY's head job holds its reservation while it stays the head);
* the engine accepts every decision, and the scheduler runs without an error;
* with both engines, both write the same ``_jobs.csv``.

Then, for ``fuzz_s`` seconds, random small workloads (:mod:`.fuzz`). The first violation found
is shrunk to the smallest workload that still shows it (:mod:`.shrink`; hypothesis shrinks its
own), written as a Batsim JSON workload that ``adaptsched run`` replays. The built-in cases all
run even after a violation (a report of what passes); shrinking and fuzzing stop at the first.

A workload the scheduler's declared needs refuse (:mod:`adaptsched.core.needs`) is not run and
not checked: reported as refused, with the reason, and counted apart; a check where nothing
ran does not pass (:attr:`CheckReport.nothing_checked`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adaptsched.analysis.invariants import Violation

from .cases import Case, builtin_cases, declared_needs, given_case, prepared, subset
from .fuzz import FuzzResult, fuzz
from .runs import Checked, Target, violations
from .shrink import shrink

__all__ = ["CaseResult", "CheckReport", "Target", "check_scheduler"]

Say = Callable[..., None]


@dataclass
class CaseResult:
    name: str
    about: str
    jobs: int
    nb_hosts: int
    seconds: float
    violations: list[Violation]
    refused: str = ""  # why the scheduler's declared needs refused it (not run, not checked)


@dataclass
class CheckReport:
    """What :func:`check_scheduler` found; ``first`` is the violation reported, ``smallest`` the
    file of the smallest workload showing it (``smallest_jobs`` jobs on ``smallest_hosts``);
    ``refused_inputs`` the messages of the inputs the scheduler refused up front (its declared
    needs: not run, not checked), in this check only."""

    target: Target
    cases: list[CaseResult] = field(default_factory=list)
    fuzz: FuzzResult | None = None
    first: Violation | None = None
    first_case: str = ""
    smallest: Path | None = None
    smallest_jobs: int = 0
    smallest_hosts: int = 0
    minimal: bool = False
    refused_inputs: list[str] = field(default_factory=list)

    @property
    def ran(self) -> int:
        """The workloads run and checked (cases and random ones), not those refused."""
        fuzzed = self.fuzz.workloads - self.fuzz.refused if self.fuzz else 0
        return sum(1 for case in self.cases if not case.refused) + fuzzed

    @property
    def refused(self) -> int:
        """The workloads (cases and random ones) refused up front: not run, not checked."""
        return sum(1 for case in self.cases if case.refused) + (self.fuzz.refused if self.fuzz else 0)

    @property
    def nothing_checked(self) -> bool:
        """No violation, and no workload run either: nothing was checked."""
        return self.first is None and self.ran == 0

    @property
    def ok(self) -> bool:
        """Every workload run passes, and at least one ran."""
        return self.first is None and self.ran > 0


def target_needs(target: Target) -> list[Any]:
    """What the target's options declare its input must carry (none for a pybatsim plugin)."""
    from adaptsched import schedulers as registry
    from adaptsched.engines.spec import SchedulerOptionError, resolve_scheduler
    from adaptsched.schedulers.loader import load_plugin

    plugin, core = resolve_scheduler(target.scheduler)
    if core is None and plugin.endswith(".py"):
        core = load_plugin(plugin).core_class
    if core is None:
        return []
    try:
        options = core.Options.parse(target.options)
    except ValueError as error:
        name = target.scheduler if target.scheduler in registry.SCHEDULERS else Path(plugin).name
        raise SchedulerOptionError(name, error) from None  # type: ignore[arg-type]
    return declared_needs(options)


def check_scheduler(
    target: Target,
    out: Path,
    *,
    workload: str | Path | None = None,
    nb_hosts: int | None = None,
    platform: str | int | None = None,
    fuzz_s: float = 0.0,
    shrink_s: float = 120.0,
    seed: int = 0,
    say: Say = print,
) -> CheckReport:
    """Checks the scheduler (module doc); the run outputs and workloads go under ``out``."""
    needs = target_needs(target)
    cases = (
        [given_case(workload, nb_hosts)] if workload is not None else builtin_cases(needs, nb_hosts=nb_hosts, seed=seed)
    )
    report = CheckReport(target)
    for case in cases:
        result = run_case(report, case, platform, out, given=workload)
        report.cases.append(result)
        say_case(result, target, say)
        if result.violations and report.first is None:
            report.first, report.first_case = result.violations[0], case.name
            first_case = case
    if report.first is not None:
        say(f"shrinking the {report.first_case} workload to the fewest jobs that still show: {report.first.rule} ...")
        smallest_of_case(report, first_case, platform, out, shrink_s)
    elif fuzz_s > 0:
        run_fuzz(report, needs, out, nb_hosts=nb_hosts, platform=platform, seconds=fuzz_s, seed=seed, say=say)
    return report


def run_case(
    report: CheckReport, case: Case, platform: str | int | None, out: Path, given: str | Path | None
) -> CaseResult:
    """Runs and checks one case; a refusal's reason names the user's JSON file, not its copy."""
    begin = time.perf_counter()
    folder = out / "cases"
    checked = checked_run(report, case.workload, platform or case.nb_hosts, folder, case.name)
    result = CaseResult(
        case.name,
        case.about,
        len(case.workload["jobs"]),
        case.nb_hosts,
        time.perf_counter() - begin,
        checked.violations,
    )
    if checked.refused:
        result.refused = checked.refused
        if given is not None and str(given).lower().endswith(".json"):
            copy = folder / f"{case.name}.json"
            result.refused = result.refused.replace(str(copy.resolve()), str(given)).replace(str(copy), str(given))
    return result


def checked_run(report: CheckReport, workload: dict[str, Any], platform: str | int, folder: Path, name: str) -> Checked:
    """:func:`~.runs.violations` of the report's target on ``workload``; a refusal goes to the
    report's ``refused_inputs`` too."""
    checked = violations(report.target, workload, platform, folder, name)
    if checked.refused:
        report.refused_inputs.append(checked.refused)
    return checked


def say_case(result: CaseResult, target: Target, say: Say) -> None:
    engines = " and ".join(target.engines)
    head = f"  {result.name:<10} {result.jobs:>4} jobs, {result.nb_hosts:>4} hosts, {engines}: "
    if result.refused:
        say(f"{head}refused: {result.refused}")
        return
    if not result.violations:
        say(f"{head}ok ({result.seconds:.1f} s)")
        return
    say(f"{head}FAILED, {len(result.violations)} violation(s)")
    for violation in result.violations[:3]:
        say(f"      {violation.kind}: {_short(violation.message)}")


def _short(text: str, width: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."


def smallest_of_case(report: CheckReport, case: Case, platform: str | int | None, out: Path, budget_s: float) -> None:
    """Shrinks the first failing case's workload (same kind of violation) and writes it."""
    assert report.first is not None
    kind = report.first.kind
    hosts = platform or case.nb_hosts

    def found_in(workload: dict[str, Any]) -> list[Violation]:
        return checked_run(report, workload, hosts, out / "shrink", "try").violations

    def fails(jobs: list[dict[str, Any]]) -> bool:
        return any(v.kind == kind for v in found_in(subset(case.workload, jobs)))

    jobs, report.minimal = shrink(list(case.workload["jobs"]), fails, budget_s=budget_s)
    smallest = subset(case.workload, jobs)
    report.first = next((v for v in found_in(smallest) if v.kind == kind), report.first)
    write_smallest(report, smallest, case.nb_hosts, out)


def write_smallest(report: CheckReport, workload: dict[str, Any], nb_hosts: int, out: Path) -> None:
    from adaptsched.workloads.convert import write_workload

    assert report.first is not None
    workload = dict(workload, nb_res=nb_hosts)
    report.smallest = write_workload(workload, out / f"violation-{report.first.kind}.json")
    report.smallest_jobs, report.smallest_hosts = len(workload["jobs"]), nb_hosts


def run_fuzz(
    report: CheckReport,
    needs: list[Any],
    out: Path,
    *,
    nb_hosts: int | None,
    platform: str | int | None,
    seconds: float,
    seed: int,
    say: Say,
) -> None:
    """Random small workloads for ``seconds`` (:mod:`.fuzz`), prepared for the declared inputs."""
    refused = 0  # the random workloads refused up front (not run)

    def check(workload: dict[str, Any], hosts: int) -> list[Violation]:
        nonlocal refused
        checked = checked_run(report, workload, platform or hosts, out / "fuzz", "fuzz")
        refused += bool(checked.refused)
        return checked.violations

    def prepare(workload: dict[str, Any]) -> dict[str, Any]:
        for need in needs:
            annotated = prepared(workload, need, seed) if need.field != "evolving" else None
            workload = annotated if annotated is not None else workload
        return workload

    say(f"  fuzzing for {seconds:g} s: random workloads of 1 to 12 jobs ...")
    result = report.fuzz = fuzz(check, seconds, nb_hosts=nb_hosts, prepare=prepare, seed=seed)
    result.refused = refused
    if result.refused:
        say(
            f"  fuzz       {result.refused} of {result.workloads} workloads refused up front by the scheduler's "
            "declared needs (not run, not checked)"
        )
    ran = result.workloads - result.refused
    if result.violation is None:
        say(
            f"  fuzz       {ran} random workloads run in {result.seconds:.0f} s: "
            + ("ok" if ran else "nothing checked")
        )
        return
    report.first, report.first_case, report.minimal = result.violation, "fuzz", True
    assert result.workload is not None
    violation = result.violation
    say(f"  fuzz       FAILED after {result.workloads} workloads: {violation.kind}: {_short(violation.message)}")
    write_smallest(report, result.workload, result.nb_hosts, out)
