"""A deliberately broken scheduler: Downey's allocation whose molded copies run 1.5 times their
speedup model's runtime. The engine's end-of-run physics check and ``adaptsched
metrics --workload`` must both refuse its runs, naming the job."""

from adaptsched.core.allocation import DowneyAllocation
from adaptsched.schedulers.adapter import PlannerScheduler


class SlowCopies(DowneyAllocation):
    name = "wrong-copy-runtime"

    def mold(self, job, now, n, *, scale, runtime_s):
        return super().mold(job, now, n, scale=scale, runtime_s=runtime_s * 1.5)


class WrongCopyRuntime(PlannerScheduler):
    core_class = SlowCopies
