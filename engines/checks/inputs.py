"""Before a run's first event, on either engine: its workload carries what the scheduler needs
(the scheduler's options declare it, :mod:`adaptsched.core.needs`), its times stay where the
simulation's clock resolves a microsecond (:data:`MAX_TIME_S`), and its sizes fit the platform.
What cannot run is refused with an :class:`~adaptsched.errors.InputError` naming the file and
field; what runs with a caveat is said."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from adaptsched.core import needs
from adaptsched.core.options import Options
from adaptsched.errors import InputError

if TYPE_CHECKING:
    from adaptsched.engines.run.spec import RunSpec
    from adaptsched.platforms.simgrid import Platform
    from adaptsched.workloads.batsim_json import Workload

Say = Callable[..., None]


def check_inputs(spec: RunSpec, loaded: Workload, machines: Platform, say: Say) -> None:
    """Before the first event: the workload carries what the scheduler needs (its options'
    declaration, :mod:`adaptsched.core.needs`: refused with a message naming the command that
    prepares it, or a note when only some jobs carry it), and its sizes fit the platform."""
    for need in spec.options.needs() if isinstance(spec.options, Options) else ():
        verdict = needs.check_jobs(need, described_jobs(loaded), spec.workload, spec.scheduler)
        if verdict.note:
            say(verdict.note)
    check_times(loaded, spec.workload)
    _check_size(loaded, machines, say)


def described_jobs(loaded: Workload) -> Iterator[dict[str, Any]]:
    """Each job as ``{"id": NAME, "walltime": W, annotation fields...}``: what
    :func:`adaptsched.core.needs.check_jobs` reads."""
    empty: dict[str, Any] = {}
    for name, job in loaded.jobs.items():
        yield {"id": name, "walltime": job.walltime, **loaded.annotations.get(name, empty)}


#: The latest time a run may reach: up to 2^33 s (about 272 years) a double, the clock of both
#: engines (and Batsim's), resolves a microsecond (its spacing there is at most 2^-20 s), which
#: Batsim's six printed decimals show; past it, times round to the double's spacing there (at
#: 1.7e15 s a quarter of a second: a 7.77 s delay runs 7.75 s).
MAX_TIME_S = 2.0**33


def check_times(loaded: Workload, path: str | Path) -> None:
    """Before the run, on either engine: no job submitted, or ending at its submission plus its
    delay or walltime (the earliest it can end), at or past :data:`MAX_TIME_S`; an
    :class:`InputError` names the first such job and field otherwise."""
    jobs = loaded.jobs.values()
    latest = max((abs(job.subtime) for job in jobs), default=0.0)
    longest = max((job.walltime for job in jobs), default=0.0)
    delays = [p.delay for p in loaded.profiles.values() if p is not None and p.type == "delay"]
    if latest + max(longest, max(delays, default=0.0)) < MAX_TIME_S:
        return  # every job's bound at once (the usual case: one pass over the jobs)
    profiles = loaded.profiles
    for index, job in enumerate(jobs):
        profile = profiles.get(job.profile)
        delay = profile.delay if profile is not None and profile.type == "delay" else 0.0
        run_s = min(delay, job.walltime) if job.walltime > 0 else delay
        at = abs(job.subtime) + run_s
        if abs(job.subtime) >= MAX_TIME_S:
            field, what = "subtime", f"job '{job.name}' is submitted at {job.subtime:g} s"
        elif at >= MAX_TIME_S and run_s == job.walltime:
            field, what = (
                "walltime",
                f"job '{job.name}' (submitted at {job.subtime:g} s, walltime {run_s:g} s) can run until {at:g} s",
            )
        elif at >= MAX_TIME_S:
            field = "profile"
            what = f"job '{job.name}' (submitted at {job.subtime:g} s, a {run_s:g} s delay) runs until {at:g} s"
        else:
            continue
        raise InputError(
            path,
            f"{what}, past "
            f"{MAX_TIME_S:,.0f} s (2^33 s, about 272 years): beyond it the simulation's clock, a double in "
            f"both engines as in Batsim, cannot resolve a microsecond (at {at:g} s its resolution is "
            f"{math.ulp(at):g} s, and runtimes round to it); shift the workload's times so that they start near 0",
            field=f"jobs[{index}].{field}",
        )


def _check_size(loaded: Workload, machines: Platform, say: Say) -> None:
    """Before the run: the workload's declared size against the platform's, the jobs that
    are wider than the platform (Batsim runs them, the scheduler must reject them) and those
    that ask for no host (rejected too)."""
    if loaded.nb_res != machines.nb_hosts:
        say(
            f"note: the workload says nb_res={loaded.nb_res}, the platform has {machines.nb_hosts} hosts; "
            "the platform decides"
        )
    wide = too_wide_note(loaded, machines.nb_hosts)
    if wide:
        say(wide)
    empty = no_host_note(loaded)
    if empty:
        say(empty)


def too_wide_note(workload: Workload, nb_hosts: int, *, shown: int = 10) -> str | None:
    """A note naming the jobs that ask for more hosts than the platform has, or None.

    Batsim runs such a workload: the scheduler has to reject those jobs (they end
    ``REJECTED``) and the run exits 0 without a word. Both engines print this note before
    the run starts: id, hosts requested, hosts available. A job with a
    ``parallel_homogeneous_total`` profile may still run if the scheduler molds it to fewer
    hosts; the others never can.
    """
    wide = [job for job in workload.jobs.values() if job.res > nb_hosts]
    if not wide:
        return None
    moldable = {
        name for name, profile in workload.profiles.items() if profile and profile.type == "parallel_homogeneous_total"
    }
    never = [job for job in wide if job.profile not in moldable]
    molded = [job for job in wide if job.profile in moldable]

    def listing(jobs) -> str:
        text = ", ".join(f"job {job.name}: {job.res} hosts requested" for job in jobs[:shown])
        return text + (f", and {len(jobs) - shown} more" if len(jobs) > shown else "")

    parts = []
    if never:
        what = "1 job can never run" if len(never) == 1 else f"{len(never)} jobs can never run"
        parts.append(
            f"note: {what}: wider than the platform's {nb_hosts} hosts ({listing(never)}); "
            f"the scheduler must reject {'it' if len(never) == 1 else 'them'} (final state REJECTED)"
        )
    if molded:
        what = "1 moldable job is" if len(molded) == 1 else f"{len(molded)} moldable jobs are"
        parts.append(
            f"note: {what} wider than the platform's {nb_hosts} hosts ({listing(molded)}); "
            + (
                "it runs only if the scheduler molds it"
                if len(molded) == 1
                else "they run only if the scheduler molds them"
            )
            + " to fewer hosts"
        )
    return "\n".join(parts)


def no_host_note(workload: Workload, *, shown: int = 5) -> str | None:
    """A note naming the jobs that ask for no host (``res`` 0), or None: Batsim accepts them,
    every scheduler rejects them (final state REJECTED)."""
    empty = [name for name, job in workload.jobs.items() if job.res == 0]
    if not empty:
        return None
    listed = ", ".join(empty[:shown]) + (f" and {len(empty) - shown:,} more" if len(empty) > shown else "")
    what = "1 job asks" if len(empty) == 1 else f"{len(empty):,} jobs ask"
    them = "it" if len(empty) == 1 else "them"
    return f"note: {what} for no host (res 0: job {listed}); the scheduler rejects {them} (final state REJECTED)"
