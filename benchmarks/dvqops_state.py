"""DVQoPS's what-if replays from the recorded machine state against an empty machine.

Islam et al. (2007), Table 1's high-load scenario (C = 10, U = 80 %, exact estimates, 40 % of
the jobs duplicated) on ``--jobs`` jobs of SDSC-SP2 (128 hosts) and CTC-SP2 (338), the
workloads of ``adaptsched reproduce qops``
(:func:`adaptsched.reproduce.qops.plan.scenario_workload`; ``--segment``: first, last or
START:END, default its default, the last jobs).
Each scheduler runs in-process (:mod:`adaptsched.core.replay`): VQoPS at the static OC-factors
0, 0.05, 0.1, 0.2, 0.4, and DVQoPS with ``what_if_start`` = ``empty`` (the reading
docs/qops.md calls "empty") and ``recorded``. Prints one line per run as it ends (revenue, the gap to the best
static factor, wall time), and a JSON line per trace at the end.

    .venv/bin/python benchmarks/dvqops_state.py --trace SDSC-SP2 [--jobs 10000] [--load high] [--segment last]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO.parent))  # the repository root is the adaptsched package

from adaptsched.core.base import Job  # noqa: E402
from adaptsched.core.dvqops import Dvqops  # noqa: E402
from adaptsched.core.qops import Qops, job_value  # noqa: E402
from adaptsched.core.replay import replay  # noqa: E402
from adaptsched.reproduce.qops.plan import (  # noqa: E402
    DEFAULT_SEGMENT,
    OC_FACTORS,
    TRACES,
    parse_segment,
    scenario_workload,
)


def revenue(scheduler, jobs) -> tuple[float, int]:
    out = replay(scheduler, [(Job(i, s, r, w, f), rt) for i, s, r, w, f, rt in jobs])
    done = [o for o in out.values() if o.end_s is not None and not o.rejected and not o.killed]
    missed = sum(1 for o in done if o.end_s is not None and o.end_s > o.job.fields["deadline"] + 1e-6)
    return sum(job_value(o.job, o.end_s) for o in done if o.end_s is not None), missed


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", choices=tuple(TRACES), default="SDSC-SP2")
    parser.add_argument("--jobs", type=int, default=10000)
    parser.add_argument("--load", choices=("high", "orig"), default="high")
    parser.add_argument("--segment", type=parse_segment, default=DEFAULT_SEGMENT, help="first, last or START:END")
    parser.add_argument("--cost", type=float, default=10)
    parser.add_argument("--urgent", type=float, default=0.8)
    parser.add_argument("--skip-static", action="store_true")
    parser.add_argument("--starts", default="empty,recorded", help="DVQoPS what_if_start values to run")
    parser.add_argument("--option", action="append", default=[], help="another DVQoPS option, K=V (repeatable)")
    parser.add_argument(
        "--json-out",
        type=Path,
        help="also append the JSON line to this file (dvqops_high_load.jsonl in a report folder: its report shows it)",
    )
    args = parser.parse_args(argv)
    hosts = TRACES[args.trace][1]
    with tempfile.TemporaryDirectory() as tmp:
        path = scenario_workload(
            Path(tmp), args.trace, int(args.cost), args.urgent, args.load, "exact", jobs=args.jobs, segment=args.segment
        )
        workload = json.loads(path.read_text())
    profiles = workload["profiles"]
    jobs = [
        (str(j["id"]), j["subtime"], j["res"], j["walltime"], j, profiles[j["profile"]]["delay"])
        for j in workload["jobs"]
    ]
    print(
        f"{args.trace}: {args.segment} {args.jobs} jobs, load {args.load}, {len(jobs)} jobs, {hosts} hosts", flush=True
    )
    rows = {}
    runs = (
        []
        if args.skip_static
        else [(f"VQoPS {oc:g}", Qops, {"value_aware": True, "oc_factor": oc}) for oc in OC_FACTORS]
    )
    extra = dict(o.split("=", 1) for o in args.option)
    more = "".join(f" {k}={v}" for k, v in extra.items())
    runs += [
        (f"DVQoPS {start}{more}", Dvqops, Dvqops.Options.parse({"what_if_start": start, **extra}).changed())
        for start in args.starts.split(",")
    ]
    for label, cls, options in runs:
        begin = time.perf_counter()
        value, missed = revenue(cls(hosts, **options), jobs)
        rows[label] = value
        static = [v for k, v in rows.items() if k.startswith("VQoPS")]
        gap = f"{100 * (value / max(static) - 1):+.1f} % vs best static" if static else ""
        print(
            f"  {label:16s} revenue {value / 1e6:9.2f} M  {gap}  missed {missed}  {time.perf_counter() - begin:.0f} s",
            flush=True,
        )
    record = json.dumps(
        {"trace": args.trace, "jobs": args.jobs, "segment": args.segment, "load": args.load, "revenue": rows}
    )
    print(record, flush=True)
    if args.json_out:
        with open(args.json_out, "a") as handle:
            handle.write(record + "\n")


if __name__ == "__main__":
    main()
