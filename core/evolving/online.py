"""The online scheduler behind the ``evolving`` plugin: Klein & Pérez's Algorithm 2 at each
arrival, Algorithm 1 at run time, each stage run as a copy of the job.

C. Klein, C. Pérez, "Scheduling Rigid, Evolving Applications on Homogeneous Resources",
INRIA Research Report RR-7205, 2010.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from mypy_extensions import mypyc_attr

from adaptsched.core import options as opt
from adaptsched.core.base import RUNS_NOTHING, RUNS_STAGE, Job, OnlineScheduler, Running
from adaptsched.core.evolving.mapping import MAPPINGS, NodeMapper
from adaptsched.core.evolving.planning import VARIANTS, Planner
from adaptsched.core.evolving.profiles import Scheduled, Stage
from adaptsched.core.needs import Need
from adaptsched.core.options import OptionError, Options, option
from adaptsched.core.units import EPS_S, INF


def evolving(job: Job) -> bool:
    """Whether the job describes an evolving application (``evolving`` stages); a job without
    them is one stage of its walltime, and runs itself (its own runtime, killed at its walltime)."""
    spec = job.fields.get("evolving") if job.fields else None
    return isinstance(spec, dict) and isinstance(spec.get("stages"), list) and bool(spec["stages"])


def stages_of(job: Job) -> tuple[Stage, ...]:
    """An application's requested EP from its job's ``evolving`` field (``{"stages": [[d, n],
    ...]}``); a job without it is one stage of its walltime on its hosts."""
    spec = job.fields.get("evolving") if job.fields else None
    if isinstance(spec, dict) and isinstance(spec.get("stages"), list) and spec["stages"]:
        try:
            return tuple((float(d), int(n)) for d, n in spec["stages"])
        except (TypeError, ValueError):
            raise ValueError(f"job {job.id}: 'evolving' stages must be [[seconds, nodes], ...]") from None
    if math.isfinite(job.walltime_s):
        return ((job.walltime_s, job.res),)
    raise ValueError(f"job {job.id}: neither 'evolving' stages nor a walltime")


# -- the online scheduler behind the ``evolving`` plugin --------------------------------------
@dataclass(frozen=True)
class EvolvingOptions(Options):
    variant: str = option(
        "nos", "fit (Klein & Pérez sec. 5.1): cbf, nos, mic, mic+c, inf, inf+c", choices=tuple(VARIANTS)
    )
    stretch_limit: float = option(
        0.0, "stretch limit l >= 1 (inf: none), overriding the variant's; 0: the variant's", low=0.0, infinite=True
    )
    compact: str = option(
        "variant", "compacting (sec. 4.3.3), overriding the variant's", choices=("variant", "yes", "no")
    )
    mapping: str = option(
        "random", "node ids of growing applications: random (seeded) or lowest free", choices=MAPPINGS
    )
    seed: int = option(0, "seed of the random node mapping")
    rigid: str = option(
        "refuse",
        "a workload without evolving applications: refuse it (generate evolving makes one), or keep: jobs "
        "without stages run rigid, themselves, for their own runtime (cbf needs no stages)",
        choices=("refuse", "keep"),
    )

    def needs(self) -> tuple[Need, ...]:
        """Evolving stages (or a walltime: a job without stages is one stage of its walltime);
        ``cbf`` sees every application as one rigid stage, and needs no stages."""
        cbf = self.variant == "cbf"
        need = Need(
            "evolving applications",
            "evolving",
            (),
            "adaptsched generate evolving OUT.json",
            "rigid=keep",
            "" if cbf else "jobs without stages run rigid, themselves, until they end or reach their walltime",
            required=self.rigid == "refuse" and not cbf,
        )
        return (need,)

    def check(self) -> None:
        if 0 < self.stretch_limit < 1:
            raise OptionError(
                f"option stretch_limit={self.stretch_limit:g}: must be 0 (the variant's) or at least 1",
                option="stretch_limit",
            )
        if self.variant == "cbf" and (self.stretch_limit or self.compact != "variant"):
            raise OptionError("options stretch_limit and compact do not apply to variant=cbf (rigid jobs)")

    def needs_dynamic_jobs(self) -> bool:
        return self.variant != "cbf"  # stages run as copies

    def planner(self, nb_hosts: int) -> Planner:
        return Planner(
            nb_hosts,
            self.variant,
            stretch_limit=self.stretch_limit or None,
            compact=None if self.compact == "variant" else self.compact == "yes",
        )


def arrival_key(job_id: str) -> tuple[str, int, str]:
    """Sort key of a job id ``WORKLOAD!ID``: by workload, then numerically if ID is a number."""
    workload, _, name = job_id.rpartition("!")
    return (workload, int(name), "") if name.isdigit() else (workload, -1, name)


@dataclass
class _App:
    job: Job
    plan: Scheduled
    nodes: list[tuple[int, ...]] = field(default_factory=list)
    step: int = 0  # next transition: 2k starts stage k, 2k+1 its hold (stretched stages), or the end
    copy: str | None = None  # the running copy (or the job itself under cbf)
    actions: list[tuple[float, str, int]] = field(default_factory=list)  # (time, "stage"/"hold"/"end", k)


@mypyc_attr(allow_interpreted_subclasses=True)  # a researcher's own scheduler may extend it
class EvolvingScheduler(OnlineScheduler):
    """Klein & Pérez's Algorithm 2 online: each arrival is fitted from now into the plan of
    the applications before it (= Algorithm 2 when all arrive at 0), never revisited.

    At run time each stage k runs as a registered copy (kind ``stage``, runtime d_k, no
    walltime) on the nodes Algorithm 1 gives it; a stretched stage is followed by a copy of
    kind ``hold`` of d'_k - d_k seconds on the same nodes, which hold them without computing.
    The copies' metadata: parent_job, kind, stage (from 0), planned_s (the planned start). The
    original is rejected with its last launch. Under ``cbf`` the job runs itself.

    The transitions due at t wait for the completions due at t (that free their nodes), then
    are done all at once, ends and shrinks first; CALL_ME_LATER at the planned times that are
    no completion. An application that still cannot move after every event at t is an error.
    """

    name = "evolving"
    summary = "Klein & Pérez's offline scheduling of rigid, evolving applications: cbf, nos, mic(+c), inf(+c) fits"
    copy_kinds = {"stage": RUNS_STAGE, "hold": RUNS_NOTHING}
    Options = EvolvingOptions

    def __init__(self, nb_hosts: int, options: opt.Options | None = None, **values: Any):
        super().__init__(nb_hosts, options, **values)
        o = opt.narrow(self.options, EvolvingOptions)
        self.planner = o.planner(nb_hosts)
        self.mapper = NodeMapper(nb_hosts, o.mapping, o.seed)
        self.rigid_stages = o.variant == "cbf"  # one stage per job: CBF on the jobs as submitted
        self.apps: dict[str, _App] = {}
        self.due_ends: dict[str, float] = {}  # running copy -> its planned end
        self.wake_requested: set[float] = set()
        self.arrivals: list[Job] = []

    def on_submit(self, job: Job, now: float) -> None:
        self.queue.remove_all([job])
        self.arrivals.append(job)

    def admit(self, job: Job, now: float) -> None:
        """Fits an arrival from now into ep_r (Algorithm 2's step) and lists its transitions."""
        plan = self.planner.place(stages_of(job), now)
        app = self.apps[job.id] = _App(job, plan)
        for k, (t, (d, _)) in enumerate(zip(plan.starts(), plan.stages)):
            app.actions.append((t, "stage", k))
            requested = plan.stages[k][0] if self.rigid_stages else plan.requested[k][0]
            if d > requested:
                app.actions.append((t + requested, "hold", k))
        app.actions.append((plan.end_s, "end", len(plan.stages)))

    def idle(self) -> bool:
        return not self.apps and not self.running and not self.arrivals

    def complete(self, job_id: str, now: float, state: str = "COMPLETED_SUCCESSFULLY") -> None:
        """A copy (or, under cbf, a job) ended: its nodes stay with the application until
        Algorithm 1 moves them (no pool: :class:`NodeMapper` owns the nodes)."""
        running = self.running.pop(job_id, None)
        if running is not None:
            self.on_complete(running, now, state)

    def on_complete(self, running: Running, now: float, state: str) -> None:
        self.due_ends.pop(running.exec_id, None)
        app = self.apps.get(running.job.id)
        if app is not None and app.copy == running.exec_id:
            app.copy = None

    def _next(self, app: _App) -> tuple[float, str, int] | None:
        return app.actions[app.step] if app.step < len(app.actions) else None

    def plan(self, now: float) -> None:
        # Simultaneous arrivals in a fixed order (Batsim's messages may list them in any):
        # by submission time, then by id (numerically when numbers), as a workload lists them.
        self.arrivals.sort(key=lambda job: (job.submit_s, arrival_key(job.id)))
        for job in self.arrivals:
            self.admit(job, now)
        self.arrivals = []
        horizon = now + EPS_S
        # Wait while a copy due by now has not reported its completion (it frees nodes).
        if any(end <= horizon for end in self.due_ends.values()):
            return
        due: list[tuple[int, str, _App, float, str, int]] = []
        for app_id, app in self.apps.items():
            action = self._next(app)
            if action is not None and action[0] <= horizon:
                t, what, k = action
                shrink = what == "end" or (
                    what == "stage" and k > 0 and app.plan.stages[k][1] < app.plan.stages[k - 1][1]
                )
                due.append((0 if shrink or what == "hold" else 1, app_id, app, t, what, k))
        order = {app_id: i for i, app_id in enumerate(self.apps)}
        due.sort(key=lambda x: (x[0], order[x[1]]))
        for _, app_id, app, _t, what, k in due:
            self._transition(app_id, app, what, k, now)
        self._wake(now)

    def _transition(self, app_id: str, app: _App, what: str, k: int, now: float) -> None:
        job, plan = app.job, app.plan
        app.step += 1
        if what == "end":
            self.mapper.resize(app_id, 0)
            del self.apps[app_id]
            return
        n = plan.stages[k][1]
        last = k == len(plan.stages) - 1 and what == "stage"
        if what == "stage":
            hosts = self.mapper.resize(app_id, n)
            app.nodes.append(tuple(hosts))
            if self.rigid_stages or not evolving(job):  # one rigid stage: the job itself
                running = self.start(job, now, sorted(hosts))
                running.end_s = now + plan.stages[0][0]
                app.copy = job.id
                self.due_ends[job.id] = running.end_s
                return
            runtime_s = plan.requested[k][0]
            planned = plan.starts()[k]
        else:
            hosts = self.mapper.hosts(app_id)
            runtime_s = plan.stages[k][0] - plan.requested[k][0]
            planned = plan.starts()[k] + plan.requested[k][0]
        job.res, job.walltime_s = n, INF
        running = self.launch(
            job,
            now,
            kind=what,
            end_s=now + runtime_s,
            hosts=sorted(hosts),
            runtime_s=runtime_s,
            metadata={"stage": k, "planned_s": planned},
        )
        app.copy = running.exec_id
        self.due_ends[running.exec_id] = running.end_s
        if last:
            self.reject(job)

    def _wake(self, now: float) -> None:
        """CALL_ME_LATER at the next planned transition if no completion is due by then."""
        upcoming = [a[0] for app in self.apps.values() if (a := self._next(app)) is not None]
        if not upcoming:
            return
        first = min(upcoming)
        if first <= now + EPS_S:
            return  # due now: a completion at this instant is still to come
        if any(end <= first + EPS_S for end in self.due_ends.values()):
            return
        if first not in self.wake_requested:
            self.wake_requested.add(first)
            self.wake_up(first)
