"""VQoPS's acceptance test, two readings, on Table 1's scenarios (Islam et al. 2007, sec. 4.2.1).

The paper: "if the revenue gain obtainable can offset the opportunity cost, VQoPS accepts the
job". Ours (``core/qops.py``): accept when the gain *exceeds* OC-factor x res x walltime. The
other reading accepts a gain that *equals* the cost, res x estimate, within a relative 1e-3
(the walltime of an exact estimate is the runtime + 1 s, and the planned completion of a job
that starts at once is then 1 s after its full-price time: an exact tie is never met). At
C = 2 the two part: an urgent job pays at most 0.2 per processor-second, so OC 0.2 turns
every job away in ours and keeps the urgent jobs that complete in time in the other.

In-process replays (:mod:`adaptsched.core.replay`) of the workloads of ``reproduce qops``
(:func:`adaptsched.reproduce.qops.plan.scenario_workload`, the window nearest the paper's
offered load by default); prints each OC-factor's revenue improvement over QoPS under both
readings, one line per seed, then their means. ``--baseline last``: the improvements over a
QoPS that takes the last feasible position of a new job instead of the first:

    .venv/bin/python benchmarks/qops_readings.py --trace SDSC-SP2 --cost 2 --seeds 3
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO.parent))  # the repository root is the adaptsched package

from adaptsched.core.base import Job  # noqa: E402
from adaptsched.core.qops import Qops, _give_back, _positions, job_value  # noqa: E402
from adaptsched.core.replay import replay  # noqa: E402
from adaptsched.core.units import INF  # noqa: E402
from adaptsched.reproduce.qops.plan import (  # noqa: E402
    DEFAULT_SEGMENT,
    OC_FACTORS,
    TRACES,
    parse_segment,
    scenario_workload,
)


class OffsetQops(Qops):
    """VQoPS accepting a gain that offsets the opportunity cost, ties included (module doc)."""

    def admit(self, job: Job, now: float) -> bool:
        chosen = self.choose(job, now)
        if chosen is None:
            return False
        best, gain = chosen
        if self.value_aware and gain < self.oc_factor * job.res * self.terms[job.id].estimate_s * (1 - 1e-3):
            return False
        pos, prefix, sequence, starts, _ = best
        self._take(pos, sequence, starts)
        self.waiting = prefix + sequence
        self.next_start = min(self.reservation.values(), default=INF)
        return True


class LastPositionQops(Qops):
    """QoPS taking the last feasible queue position of the new job (nearest first-come
    first-served) instead of the first (nearest the front)."""

    def candidates(self, new: Job, now: float):
        if self.value_aware:
            return super().candidates(new, now)
        for pos in reversed(_positions(len(self.waiting))):
            base = self.profile.copy()
            for job in self.waiting[pos:]:  # the suffix is re-planned
                start = self.reservation[job.id]
                _give_back(base, start, start + job.walltime_s, job.res)
            candidate = self._insert(base, new, pos, now)
            if candidate is not None:
                return [candidate]
        return []


def revenue(scheduler, jobs) -> float:
    out = replay(scheduler, [(Job(i, s, r, w, f), rt) for i, s, r, w, f, rt in jobs])
    return sum(job_value(o.job, o.end_s) for o in out.values() if o.end_s is not None and not o.rejected)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", choices=tuple(TRACES), default="SDSC-SP2")
    parser.add_argument("--jobs", type=int, default=10000)
    parser.add_argument("--segment", type=parse_segment, default=DEFAULT_SEGMENT)
    parser.add_argument("--cost", type=int, default=2)
    parser.add_argument("--urgent", type=float, default=0.8)
    parser.add_argument("--load", choices=("orig", "high"), default="orig")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument(
        "--baseline",
        choices=("first", "last"),
        default="first",
        help="QoPS's position for a new job among the feasible ones: the first (ours) or the last",
    )
    args = parser.parse_args(argv)
    baseline = Qops if args.baseline == "first" else LastPositionQops
    hosts = TRACES[args.trace][1]
    gains: dict[str, list[list[float]]] = {"exceeds": [], "offsets": []}
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(1, args.seeds + 1):
            path = scenario_workload(
                Path(tmp),
                args.trace,
                args.cost,
                args.urgent,
                args.load,
                "exact",
                jobs=args.jobs,
                segment=args.segment,
                seed=seed,
            )
            w = json.loads(path.read_text())
            jobs = [
                (str(j["id"]), j["subtime"], j["res"], j["walltime"], j, float(w["profiles"][j["profile"]]["delay"]))
                for j in w["jobs"]
            ]
            base = revenue(baseline(hosts), jobs)
            for reading, cls in (("exceeds", Qops), ("offsets", OffsetQops)):
                row = [revenue(cls(hosts, value_aware=True, oc_factor=oc), jobs) / base - 1 for oc in OC_FACTORS]
                gains[reading].append(row)
                cells = "  ".join(f"OC {oc:g} {100 * g:+6.1f} %" for oc, g in zip(OC_FACTORS, row))
                print(f"seed {seed} {reading:8s} {cells}", flush=True)
    for reading, rows in gains.items():
        means = [statistics.fmean(col) for col in zip(*rows)]
        print(f"mean   {reading:8s} " + "  ".join(f"OC {oc:g} {100 * g:+6.1f} %" for oc, g in zip(OC_FACTORS, means)))


if __name__ == "__main__":
    main()
