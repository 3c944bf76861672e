"""Scale of the run explorer (docs/analysis.md): page build time, file size, first render and a
one-day zoom in headless Chromium, on the full CTC-SP2 year under easy, on two days of it
under easy and fcfs (a ``--window`` page, with the difference view), and on a 300,000-job
Lublin-Feitelson run.

    .venv/bin/python benchmarks/explore.py [--work DIR] [--only ctc|lublin] [--screenshots docs]

Each run is simulated once (embedded engine) into ``--work`` and reused when its
``_jobs.csv`` is there. The Lublin run is measured twice: as the explorer writes it
(aggregated) and forced to full detail (``lublin-whole``, ``max_items`` unbounded). For each
page: the time to build it (``explore_runs``, CPU and wall, in this process), beside the
Gantt PNG of the same run (``plot_gantt``, its default two-day window: the baseline, measured
in the same process); the page's size, where its bytes go (BokehJS, the document's JSON, its
arrays), and per 10,000 jobs shown; in headless Chromium
(Debian's, through playwright, as the tests), the time from navigation to BokehJS idle (first
render) and the time to re-render after zooming the whole page into one day (median of 5 days
spread over the page's time axis, each from the full view), each as wall time and as the CPU
time of the browser's processes (what the render costs, whatever else the machine runs;
Chromium spreads it over several processes). The load average is printed before and after:
the machine is shared, say so when quoting the figures. ``--screenshots DIR`` writes, at
1600x1000, ``explore-ctc-year.png`` (the year, zoomed out) and ``explore-ctc-day.png`` (the
two-day page, a day of it, the difference view beside it).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import re
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO.parent))  # the repository root is the adaptsched package
sys.path.insert(0, str(REPO / "tests"))  # tests/browser.py: the same Chromium as the tests

from browser import Page, browser, missing  # noqa: E402

from adaptsched.analysis.explore import explore_runs  # noqa: E402
from adaptsched.analysis.explore.data import MAX_ITEMS  # noqa: E402
from adaptsched.analysis.gantt import plot_gantt  # noqa: E402
from adaptsched.analysis.jobs import read_jobs_csv, with_alloc_columns  # noqa: E402
from adaptsched.engines.run import RunSpec, run  # noqa: E402
from adaptsched.platforms.simgrid import write_cluster  # noqa: E402
from adaptsched.workloads.convert import convert_swf, write_workload  # noqa: E402
from adaptsched.workloads.traces import shared_trace  # noqa: E402

CTC = shared_trace("CTC-SP2")
RAF = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"


def simulate(name: str, work: Path, scheduler: str = "easy") -> Path:
    """The run's prefix, simulated under ``scheduler`` if its outputs are not in ``work`` yet."""
    prefix = work / name / scheduler
    if Path(f"{prefix}_jobs.csv").is_file() and Path(f"{prefix}_schedule.csv").is_file():
        return prefix
    prefix.parent.mkdir(parents=True, exist_ok=True)
    if name == "ctc":
        workload, _ = convert_swf(CTC, hosts=338)
        hosts = 338
    else:
        from adaptsched.workloads.lublin import generate

        hosts = 256
        workload = generate(300_000, hosts=hosts, seed=0)
    path = write_workload(workload, prefix.parent / "workload.json")
    platform_xml = write_cluster(hosts, prefix.parent / f"cluster{hosts}.xml")
    begin = time.perf_counter()
    result = run(RunSpec.make(scheduler, path, platform_xml, prefix, progress=False))
    print(f"{name}: simulated {result.nb_jobs:,} jobs in {time.perf_counter() - begin:.0f} s", flush=True)
    return prefix


def build(prefixes: list[Path], page: Path, max_items: int = MAX_ITEMS, window=None) -> dict:
    """Page build (wall and CPU) and, in the same process, the Gantt PNG baseline."""
    prefix = prefixes[0]
    wall, cpu = time.perf_counter(), time.process_time()
    written = explore_runs(
        prefixes, page, max_items=max_items, window=window, workloads=[prefix.parent / "workload.json"]
    )
    written["build_s"] = time.perf_counter() - wall
    written["build_cpu_s"] = time.process_time() - cpu
    wall, cpu = time.perf_counter(), time.process_time()
    raw = with_alloc_columns(read_jobs_csv(f"{prefix}_jobs.csv"))
    plot_gantt(raw, page.with_suffix(".png"))
    written["png_s"] = time.perf_counter() - wall
    written["png_cpu_s"] = time.process_time() - cpu
    return written


def browser_cpu_s() -> float:
    """CPU seconds (user + system) used so far by this process's descendants: Playwright's
    driver and Chromium's processes (Linux /proc). What a render costs, whatever else runs."""
    parents, cpu = {}, {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid = int(stat.parent.name)
        parents[pid] = int(fields[1])
        cpu[pid] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    mine, todo = set(), [os.getpid()]
    while todo:
        pid = todo.pop()
        children = [child for child, parent in parents.items() if parent == pid]
        mine.update(children)
        todo.extend(children)
    return sum(cpu[pid] for pid in mine)


#: Selects, in the difference view, the first job (the largest change first) with attempts drawn
#: in both runs of the page.
PICK_SHOWN = """() => {
  const doc = Bokeh.documents[0], diff = doc.get_model_by_name("diff");
  const drawn = (run) => new Set(Array.from(doc.get_model_by_name(`attempts-${run}`).data.job));
  const a = drawn(0), b = drawn(1);
  const row = diff.data.ra.findIndex((ra, i) => a.has(ra) && b.has(diff.data.rb[i]));
  diff.selected.indices = [Math.max(row, 0)];
}"""
#: The screenshots for the docs: (case, when) -> file name.
SHOTS = {("ctc", "run"): "explore-ctc-year.png", ("ctc-2days", "day"): "explore-ctc-day.png"}


def render(page_path: Path, screenshots: Path | None, name: str) -> dict:
    """First render, and the re-render after zooming into one day (median of 5 days spread
    over the page's time axis), wall time and the main thread's task time."""
    zooms, zooms_busy = [], []
    with browser() as context:
        before = browser_cpu_s()
        page = Page(context, page_path, timeout_s=600)
        first_busy = browser_cpu_s() - before
        errors = list(page.errors)
        if screenshots is not None and (name, "run") in SHOTS:
            page.page.screenshot(path=screenshots / SHOTS[name, "run"])
        span = page.js(f"() => [{page.model('time-range')}.start, {page.model('time-range')}.end]")
        days = [span[0] + (span[1] - span[0] - 86400) * f for f in (0.1, 0.3, 0.5, 0.7, 0.9)]
        for day in days:
            page.js(f"() => {page.model('time-range')}.setv({{start: {span[0]}, end: {span[1]}}})")
            page.js(RAF)
            time.sleep(0.5)
            begin, before = time.perf_counter(), browser_cpu_s()
            page.js(f"() => {page.model('time-range')}.setv({{start: {day}, end: {day + 86400}}})")
            page.js(RAF)
            zooms.append(time.perf_counter() - begin)
            zooms_busy.append(browser_cpu_s() - before)
        if screenshots is not None and (name, "day") in SHOTS:
            page.js(PICK_SHOWN)  # the job that changed most among those drawn in both runs
            page.js(RAF)
            time.sleep(0.5)
            page.page.screenshot(path=screenshots / SHOTS[name, "day"])
        errors += page.errors
    return {
        "first_render_s": page.load_s,
        "first_busy_s": first_busy,
        "zoom_s": statistics.median(zooms),
        "zoom_busy_s": statistics.median(zooms_busy),
        "zooms_s": zooms,
        "errors": errors,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, default=Path("results/bench-explore"), help="runs and pages")
    parser.add_argument("--only", choices=("ctc", "lublin"), help="one run only")
    parser.add_argument("--screenshots", type=Path, help="write the full-run and one-day screenshots there")
    args = parser.parse_args()
    if missing():
        print(f"benchmarks/explore.py: {missing()}", file=sys.stderr)
        return 1
    args.work.mkdir(parents=True, exist_ok=True)
    print(f"# benchmarks/explore.py, {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC")
    print(f"machine: {platform.node()}, {os.cpu_count()} CPUs, {platform.processor() or platform.machine()}")
    rows = []
    cases = [
        ("ctc", ["ctc"], MAX_ITEMS, None),
        ("ctc-2days", ["ctc", "ctc:fcfs"], MAX_ITEMS, "306d:308d"),
        ("lublin", ["lublin"], MAX_ITEMS, None),
        ("lublin-whole", ["lublin"], 10**9, None),
    ]
    for name, runs, max_items, window in cases:
        if args.only is not None and runs[0] != args.only:
            continue
        prefixes = [simulate(r.split(":")[0], args.work, (r.split(":") + ["easy"])[1]) for r in runs]
        print(f"{name}: load average before {os.getloadavg()[0]:.1f}", flush=True)
        written = build(prefixes, args.work / f"{name}.html", max_items, window)
        timings = render(args.work / f"{name}.html", args.screenshots, name)
        rows.append(row(name, written, timings))
        print(rows[-1], flush=True)
    print()
    print(
        "| page | holds | build s (CPU) | Gantt PNG s (CPU) | MB (library / document / arrays) | MB per 10,000 jobs | "
        "first render s (CPU) | "
        "one-day zoom s (CPU) | aggregated | JS errors | load after |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|")
    print("\n".join(rows))
    return 0


def parts(page: Path) -> str:
    """Where the page's bytes go: BokehJS, the document's JSON, its arrays (pagefile.py's streams)."""
    text = page.read_bytes()
    found = {
        match[1].decode(): len(match[2])
        for match in re.finditer(rb'<script id="adaptsched-(\w+)" type="text/plain">(.*?)</script>', text, re.S)
    }
    return " / ".join(f"{found.get(name, 0) / 1e6:.2f}" for name in ("library", "document", "data"))


def row(name: str, written: dict, timings: dict) -> str:
    """One line of the results table."""
    aggregated = written["aggregated"]
    jobs = sum(written["jobs"])
    runs = len(written["runs"])
    holds = f"{jobs:,} jobs" + (f" of {runs} runs" if runs > 1 else "") + f", {sum(written['rectangles']):,} rectangles"
    return (
        f"| {name} | {holds} | {written['build_s']:.1f} ({written['build_cpu_s']:.1f} CPU) | {written['png_s']:.1f} "
        f"({written['png_cpu_s']:.1f} CPU) | {written['bytes'] / 1e6:.2f} ({parts(Path(written['path']))}) | "
        f"{written['bytes'] / 100 / jobs:.2f} | "
        f"{timings['first_render_s']:.1f} ({timings['first_busy_s']:.1f} CPU) | {timings['zoom_s']:.2f} "
        f"({timings['zoom_busy_s']:.2f} CPU; max {max(timings['zooms_s']):.2f}) | "
        + (f"{aggregated['attempts_kept']:,} of {aggregated['attempts']:,} attempts in detail" if aggregated else "no")
        + f" | {len(timings['errors'])} | {os.getloadavg()[0]:.1f} |"
    )


if __name__ == "__main__":
    sys.exit(main())
