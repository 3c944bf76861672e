"""The run explorer in a real browser: headless Chromium (Debian's), driven by Playwright.

On a small run (Batsim's ``kr`` fixture, with a second run stacked) and on the first 5,000
CTC-SP2 jobs under ``easy`` (slow): the page loads with no JavaScript error; the Gantt chart
holds one rectangle per attempt interval in the window; hovering a known job shows its
numbers; clicking it highlights all its attempts in every run; selecting a job table row
zooms to it; the metrics tables equal ``adaptsched metrics --json``; a screenshot is written
in the test's tmp dir. Without Chromium or playwright these tests skip, counted loudly at
the end of the run (conftest.py).
"""

from __future__ import annotations

import contextlib
import functools
import io
import itertools
import json
import time
import zlib

import numpy as np
import pandas as pd
import pytest
from browser import Page, browser, missing
from helpers import CTC_EXCERPT, REPO
from test_cli import cli
from test_explore import FIXTURES, KR, assert_metrics_cells_equal_json, intervals_in, sweep_rows, written_like

from adaptsched.analysis.explore import explore_runs
from adaptsched.analysis.explore.sweep import sweep_report
from adaptsched.analysis.jobs import read_jobs_csv
from adaptsched.cli import main

pytestmark = pytest.mark.skipif(missing() is not None, reason=missing() or "")

RAF = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"


def seconds(value: float) -> str:
    """A time as the tooltip writes it in parentheses: rounded to the millisecond, no trailing zeros."""
    return f"{round(float(value), 3):.3f}".rstrip("0").rstrip(".")


def clock(value: float) -> str:
    """An instant as the tooltip writes it: days, then hh:mm:ss (worked out here, by hand)."""
    whole = round(float(value))
    return f"{whole // 86400} d {whole % 86400 // 3600:02d}:{whole % 3600 // 60:02d}:{whole % 60:02d}"


def show_run(page: Page, run: int) -> str:
    """Shows the Gantt chart of run ``run`` alone (its tab, when the page has several runs);
    returns the chart's name."""
    if page.js("() => Bokeh.documents[0].get_model_by_name('gantt-tabs') !== null"):
        page.js(f"() => {{ {page.model('gantt-tabs')}.active = {run + 1}; }}")
        page.js(RAF)
    return f"gantt-{run}"


def rect_point(page: Page, run: int, index: int, chart: str | None = None) -> dict:
    """Page coordinates of the centre of rectangle ``index`` of run ``run`` in ``chart``."""
    return page.js(
        """([run, i, chart]) => {
          const doc = Bokeh.documents[0];
          const view = Bokeh.index.get_one(doc.get_model_by_name(chart));
          const d = doc.get_model_by_name(`rects-${run}`).data;
          const box = view.canvas_view.el.getBoundingClientRect();
          return {x: box.left + view.frame.x_scale.compute((d.left[i] + d.right[i]) / 2),
                  y: box.top + view.frame.y_scale.compute((d.bottom[i] + d.top[i]) / 2)};
        }""",
        [run, index, chart or f"gantt-{run}"],
    )


def column(page: Page, name: str, field: str) -> list:
    return page.js(f"() => Array.from({page.model(name)}.data[{field!r}])")


def hover_text(page: Page, point: dict) -> str:
    page.page.mouse.move(point["x"] + 1, point["y"] + 1)
    page.page.mouse.move(point["x"], point["y"])
    tooltip = page.page.locator("div.bk-tooltip-content").first
    tooltip.wait_for(state="visible", timeout=10_000)
    return tooltip.inner_text()


def page_metrics_cells(page: Page) -> dict:
    """{data-key: (value as written, exact --json value)} of the metrics tables as the browser shows them."""
    page.js(f"() => {{ {page.model('side-tabs')}.active = {page.model('side-tabs')}.tabs.length - 1; }}")
    page.js(RAF)
    pairs = page.js(
        """() => {
          const view = Bokeh.index.get_one(Bokeh.documents[0].get_model_by_name('metrics'));
          return Array.from(view.shadow_el.querySelectorAll('td[data-key]'))
            .map((c) => [c.dataset.key, c.innerText, c.dataset.json]);
        }"""
    )
    return {key: (written, exact) for key, written, exact in pairs}


def metrics_json(jobs_csv) -> dict:
    """What ``adaptsched metrics JOBS_CSV --json`` prints (run in this process: faster)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["metrics", str(jobs_csv), "--json"]) == 0
    return json.loads(out.getvalue())


def check_page(page: Page, jobs_csvs: list, tmp_path, window=None) -> None:
    """What every explorer page must do, for the runs of ``jobs_csvs`` (module doc)."""
    assert page.errors == []
    assert len(page.requests) == 1 and page.requests[0].startswith("file://"), page.requests  # no network
    for run, jobs_csv in enumerate(jobs_csvs):
        assert len(column(page, f"rects-{run}", "left")) == intervals_in(jobs_csv, window)
        assert page.js(f"() => {page.model(f'quads-own-{run}')}.visible")  # drawn one by one, not the overview
        assert_metrics_cells_equal_json(page_metrics_cells(page), metrics_json(jobs_csv), run)


def hover_and_click(page: Page, job_id: str, runs: int) -> str:
    """Hovers over the first rectangle of attempt ``job_id`` in run 0's chart, clicks it; returns
    the tooltip's text after checking that the job's attempts are highlighted in every run."""
    chart = show_run(page, 0)
    ids = column(page, "attempts-0", "id")
    rect = column(page, "rects-0", "attempt").index(ids.index(job_id))
    point = rect_point(page, 0, rect, chart)
    text = hover_text(page, point)
    page.page.mouse.click(point["x"], point["y"])
    page.js(RAF)
    keys = column(page, "jobs", "key")
    key = keys[column(page, "attempts-0", "job")[ids.index(job_id)]]
    for run in range(runs):
        selected = page.js(f"() => Array.from({page.model(f'rects-{run}')}.selected.indices)")
        attempts, jobs = column(page, f"rects-{run}", "attempt"), column(page, f"attempts-{run}", "job")
        assert sorted(selected) == [i for i, a in enumerate(attempts) if keys[jobs[a]] == key], run
        assert selected, run
    return text


def test_small_runs_in_a_browser(tmp_path):
    easy = FIXTURES / "easy"
    path = tmp_path / "page.html"
    explore_runs([KR, easy], path)
    with browser() as context:
        page = Page(context, path)
        check_page(page, [FIXTURES / "kr_jobs.csv", FIXTURES / "easy_jobs.csv"], tmp_path)
        # attempt 3#1: the second attempt of job 3, killed, run 11 s to 13 s on 4 hosts after 3 (killed at 11)
        text = hover_and_click(page, "3#1", runs=2)
        assert text.splitlines() == [
            "job 3#1, parent 3, attempt of job 3 (kr)",
            "kind: killed by the scheduler (other)",
            "size: 4 hosts (requested 4)",
            "submit: 0 d 00:00:11 (11 s)",
            "start: 0 d 00:00:11 (11 s)",
            "end: 0 d 00:00:13 (13 s)",
            "wait: 0 s",
            "bounded slowdown: 1.2 (job)",
        ]
        # zoomed into the first fifth of the longest attempt: its centre is out of view, its tooltip is not
        left, right = column(page, "rects-0", "left"), column(page, "rects-0", "right")
        longest = max(range(len(left)), key=lambda i: right[i] - left[i])
        start = left[longest]
        page.js(
            f"() => {page.model('time-range')}.setv({{start: {start}, end: {start + (right[longest] - start) / 5}}})"
        )
        page.js(RAF)
        point = rect_point(page, 0, longest, show_run(page, 0))
        view = page.js(f"() => {page.model('time-range')}.start")
        point["x"] = page.js(
            """([x]) => { const v = Bokeh.index.get_one(Bokeh.documents[0].get_model_by_name('gantt-0'));
              return v.canvas_view.el.getBoundingClientRect().left + v.frame.x_scale.compute(x); }""",
            [view + (right[longest] - start) / 10],
        )
        ids = column(page, "attempts-0", "id")
        assert hover_text(page, point).startswith(f"job {ids[column(page, 'rects-0', 'attempt')[longest]]}")
        page.js(f"() => {page.model('time-range')}.setv({{start: {left[0] - 1}, end: {max(right) + 1}}})")
        # a job table row zooms every chart to its job
        page.js(f"() => {{ {page.model('side-tabs')}.active = 1; }}")
        row = column(page, "jobs", "id").index("40")
        page.js(f"() => {{ {page.model('jobs')}.selected.indices = [{row}]; }}")
        page.js(RAF)
        start, end = page.js(f"() => [{page.model('time-range')}.start, {page.model('time-range')}.end]")
        submit, finish = column(page, "jobs", "submit")[row], column(page, "jobs", "end")[row]
        assert start < submit < finish < end and end - start < 200
        # the filters: bounded slowdown at least 1.1
        bsld = np.array(column(page, "jobs", "bsld"), dtype=float)
        page.page.get_by_label("bounded slowdown at least").fill("1.1")
        page.page.keyboard.press("Enter")
        page.js(RAF)
        shown = page.page.locator("div", has_text="jobs shown").last.inner_text()
        assert shown.startswith(f"{int((bsld >= 1.1).sum())} of {len(bsld)} jobs shown"), shown
        page.page.screenshot(path=tmp_path / "explore_small.png", full_page=True)
        assert page.errors == []
    assert (tmp_path / "explore_small.png").stat().st_size > 10_000


def test_a_job_keeps_its_colour_in_every_run_and_killed_attempts_are_struck_through(tmp_path):
    path = tmp_path / "page.html"
    explore_runs([KR, FIXTURES / "easy"], path)
    raw = read_jobs_csv(FIXTURES / "kr_jobs.csv")
    with browser() as context:
        page = Page(context, path)
        ids, keys = column(page, "jobs", "id"), column(page, "jobs", "key")

        def job_of_rects(run: int) -> list[int]:
            attempts, jobs = column(page, f"rects-{run}", "attempt"), column(page, f"attempts-{run}", "job")
            return [jobs[a] for a in attempts]

        # by job (the default): CRC-32 of the job's full id, modulo 255, in both runs
        for run in (0, 1):
            expected = [zlib.crc32(f"w0!{ids[k]}".encode()) % 255 for k in job_of_rects(run)]
            assert column(page, f"rects-{run}", "c") == expected, run
        colour = {keys[k]: c for k, c in zip(job_of_rects(0), column(page, "rects-0", "c"))}
        assert all(colour[keys[k]] == c for k, c in zip(job_of_rects(1), column(page, "rects-1", "c")))
        # by size: powers of two (1 host: 0, 2: 1, 3-4: 2)
        page.page.get_by_label("colour by").select_option(label="size (hosts requested)")
        page.js(RAF)
        sizes = column(page, "jobs", "size")
        assert column(page, "rects-0", "c") == [(sizes[k] - 1).bit_length() for k in job_of_rects(0)]
        assert "3-4 hosts" in page.js(f"() => {page.model('colour-legend')}.text")
        # killed attempts (12 walltime kills, job 3 killed twice, 6 other kills): struck through, and only they
        killed = page.js(f"() => Array.from({page.model('killed-own-0')}.view.filter.indices)")
        attempts = column(page, "rects-0", "attempt")
        ran = raw[raw["allocated_resources"] != ""].sort_values("starting_time", kind="stable")
        states = ran["final_state"].to_numpy()
        assert sorted(killed) == [i for i, a in enumerate(attempts) if states[a] != "COMPLETED_SUCCESSFULLY"]
        assert len(killed) > 12
        assert page.errors == []


def test_the_difference_view_in_a_browser(tmp_path):
    """easy (A) and filler (B), the same 60 jobs: every number of the view, worked out from the
    two _jobs.csv with pandas; then a job picked in the view is shown in both Gantt charts."""
    path = tmp_path / "page.html"
    explore_runs([FIXTURES / "easy", FIXTURES / "filler"], path)
    a, b = read_jobs_csv(FIXTURES / "easy_jobs.csv"), read_jobs_csv(FIXTURES / "filler_jobs.csv")
    both = a.merge(b, on="job_id", suffixes=("_a", "_b"))
    both["dw"] = both["waiting_time_b"] - both["waiting_time_a"]
    for side in ("a", "b"):
        runtime = both[f"execution_time_{side}"].clip(lower=10.0)
        both[f"bsld_{side}"] = (both[f"turnaround_time_{side}"] / runtime).clip(lower=1.0)
    both["db"] = both["bsld_b"] - both["bsld_a"]
    with browser() as context:
        page = Page(context, path)
        ids, dw, db = column(page, "diff", "id"), column(page, "diff", "dw"), column(page, "diff", "db")
        assert len(ids) == 60 and sorted(ids) == sorted(both["job_id"])
        expected = both.set_index("job_id")
        assert dw == pytest.approx(expected.loc[ids, "dw"].tolist())
        assert db == pytest.approx(expected.loc[ids, "db"].tolist(), abs=1e-5)  # slowdowns are float32
        assert all(abs(x) >= abs(y) for x, y in itertools.pairwise(dw))  # the largest changes first
        summary = page.js(f"() => {page.model('diff-summary')}.text")
        better, worse = int((both["dw"] < 0).sum()), int((both["dw"] > 0).sum())
        assert "<b>60</b> jobs ran in both easy (A) and filler (B)" in summary
        assert (
            f">{better}</b>, longer for" in summary and f">{worse}</b>, the same for {60 - better - worse}" in summary
        )
        # per class: Perkovic & Keleher's shape groups by the medians of estimate and width
        estimate, width = both["requested_time_a"], both["requested_number_of_resources_a"]
        group = np.where(estimate > estimate.median(), "L", "S") + np.where(width > width.median(), "W", "N")
        rows = page.js(
            """() => {
              const view = Bokeh.index.get_one(Bokeh.documents[0].get_model_by_name('diff-classes'));
              return Array.from(view.shadow_el.querySelectorAll('tr[data-class]'))
                .map((r) => [r.dataset.class, ...Array.from(r.children).slice(1).map((c) => c.innerText)]);
            }"""
        )
        assert [r[0] for r in rows] == ["SN", "SW", "LN", "LW", "all"]
        for name, jobs, wait_a, wait_b, _, bsld_a, bsld_b, _ in rows:
            mine = both[group == name] if name != "all" else both
            assert int(jobs) == len(mine), name
            assert written_like(wait_a, mine["waiting_time_a"].mean() if len(mine) else None), (name, wait_a)
            assert written_like(wait_b, mine["waiting_time_b"].mean() if len(mine) else None), (name, wait_b)
            assert written_like(bsld_b, mine["bsld_b"].mean() if len(mine) else None), (name, bsld_b)
            assert written_like(bsld_a, mine["bsld_a"].mean() if len(mine) else None), (name, bsld_a)
        # pick the job that changed most: the charts zoom to it, both runs highlight it, A over B shows
        page.js(f"() => {{ {page.model('gantt-tabs')}.active = 2; {page.model('diff')}.selected.indices = [0]; }}")
        page.js(RAF)
        job = ids[0]
        assert page.js(f"() => {page.model('gantt-tabs')}.active") == 0
        start, end = page.js(f"() => [{page.model('time-range')}.start, {page.model('time-range')}.end]")
        for run, frame in enumerate((a, b)):
            mine = frame[frame["job_id"] == job].iloc[0]
            assert start < mine["submission_time"] and mine["finish_time"] < end
            selected = page.js(f"() => {page.model(f'rects-{run}')}.selected.indices.length")
            assert selected == len(mine["allocated_resources"].split())
        # B and A swapped: every change changes sign
        page.page.get_by_label("run A").select_option(label="filler")
        page.page.get_by_label("run B (compared with A)").select_option(label="easy")
        page.js(RAF)
        swapped = dict(zip(column(page, "diff", "id"), column(page, "diff", "dw")))
        assert all(swapped[i] == -d for i, d in zip(ids, dw))
        assert page.js(f"() => {page.model('pair-A')}.title.text") == "A: filler"
        assert page.js(f"() => {page.model('quads-A-1')}.visible && !{page.model('quads-A-0')}.visible")
        # against size: the scatter's x axis spans the sizes (1 to 4 hosts), not from 0
        page.page.get_by_label("against").select_option(label="size")
        page.js(RAF)
        start, end = page.js(
            f"() => [{page.model('diff-scatter')}.x_range.start, {page.model('diff-scatter')}.x_range.end]"
        )
        sizes = both["requested_number_of_resources_a"]
        assert 0 < start < sizes.min() and sizes.max() < end < sizes.max() + 1, (start, end)
        page.page.screenshot(path=tmp_path / "explore_diff.png")
        assert page.errors == []


def answer(body: bytes, headers: dict, route) -> None:
    route.fulfill(body=body, headers=headers)


def test_a_page_served_with_another_encoding_says_how_to_open_it(tmp_path):
    """The page carries raw bytes in its declared windows-1252: served without a charset it
    opens; served as UTF-8 (which garbles them) it says to open it as a file, without an error."""
    path = tmp_path / "kr.html"
    explore_runs([KR], path)
    with browser() as context:
        for charset, rendered in (("", True), ("; charset=utf-8", False)):
            page = context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda error, errors=errors: errors.append(str(error)))
            headers = {"content-type": "text/html" + charset}
            # answered here: nothing leaves the machine
            page.route("http://adaptsched.test/kr.html", functools.partial(answer, path.read_bytes(), headers))
            page.goto("http://adaptsched.test/kr.html")
            if rendered:
                page.wait_for_function("() => window.Bokeh !== undefined && Bokeh.documents.length > 0")
            else:
                page.wait_for_function("() => /open it as a file/.test(document.body.innerText)")
                assert page.evaluate("() => window.Bokeh === undefined")
            assert errors == []


#: The power model of ``--platform N --energy`` (docs/energy.md), per host: idle (a delay job's
#: hosts draw idle too), asleep, switching off (616.08 J in 6.1 s), switching on (18,966.42 J in 151.52 s).
IDLE_W, ASLEEP_W, OFF_W, ON_W = 95.0, 9.75, 616.08 / 6.1, 18966.42 / 151.52


def step_at(times, values, at):
    """The value of the step function (each value from its time on) at the instants ``at``."""
    return np.asarray(values)[np.searchsorted(np.asarray(times), at, side="right") - 1]


def test_power_curve_and_sleeping_hosts_in_a_browser(tmp_path):
    """A run of the idle switch-off plugin with Batsim's energy model: the power panel is the
    platform's watts, equal in every interval to what the host states and the power model give;
    hosts asleep and switching are drawn in the Gantt chart and counted in their own panel, equal
    to _machine_states.csv's counts; both panels share the Gantt chart's time axis."""
    workload, prefix = tmp_path / "w.json", tmp_path / "idle"
    code, _, err = cli("convert", CTC_EXCERPT, workload, "--hosts", 64, "--first", 200)
    assert code == 0, err
    idle_off = REPO / "examples" / "schedulers" / "my_idle_off.py"
    code, _, err = cli("run", "--scheduler", idle_off, "--option", "idle_s=600", "--workload", workload,
                       "--platform", 64, "--energy", "--out", prefix)  # fmt: skip
    assert code == 0, err
    path = tmp_path / "idle.html"
    explore_runs([prefix], path)
    states = pd.read_csv(tmp_path / "idle_machine_states.csv")
    with browser() as context:
        page = Page(context, path)
        assert page.errors == []
        assert page.js(f"() => {page.model('series-watts')}.x_range === {page.model('gantt-0')}.x_range")
        # every interval's watts: the hosts in each state (at its middle) times their power
        times, watts = np.array(column(page, "power-0", "time")), np.array(column(page, "power-0", "watts"))
        assert times[-1] == pd.read_csv(tmp_path / "idle_consumed_energy.csv")["time"].iloc[-1]
        times, watts = times[:-1], watts[:-1]  # the last row ends the last step
        at = step_at(states["time"], np.arange(len(states)), (times + np.r_[times[1:], times[-1] + 1]) / 2)
        s = states.iloc[at]
        expected = (s.nb_idle + s.nb_computing) * IDLE_W + s.nb_sleeping * ASLEEP_W
        expected += s.nb_switching_off * OFF_W + s.nb_switching_on * ON_W
        assert watts == pytest.approx(expected.to_numpy(), abs=0.01)
        assert (s.nb_sleeping == 64).any() and 64 * ASLEEP_W in watts  # every host asleep: 624 W
        # hosts asleep and switching: the Gantt's spans hold, at any instant, the hosts that
        # _machine_states.csv counts (its times print to 6 digits: instants 10 s or more from its rows)
        spans = {name: np.array(column(page, "power-states-0", name)) for name in ("left", "right", "bottom", "top")}
        label = np.array(column(page, "power-states-0", "label"))
        rows = states["time"].to_numpy()
        long = np.flatnonzero(np.diff(rows) > 20)
        for row, instant in zip(long, (rows[long] + rows[long + 1]) / 2):
            held = (spans["left"] <= instant) & (instant < spans["right"])
            hosts = {
                state: int((spans["top"] - spans["bottom"])[held & (label == state)].sum()) for state in set(label)
            }
            counted = states.iloc[row]
            assert hosts.get("asleep", 0) == counted.nb_sleeping, instant
            assert hosts.get("switching off", 0) == counted.nb_switching_off, instant
            assert hosts.get("switching on", 0) == counted.nb_switching_on, instant
        assert set(label) == {"asleep", "switching off", "switching on"}
        assert page.js(f"() => {page.model('power-own-0')}.visible")
        assert "light grey, outlined" in page.js(f"() => {page.model('header')}.text")  # what the greys mean
        # the panel's step curves equal _machine_states.csv at each of its instants (its last row at
        # an instant holds; rows that change nothing are left out of the page)
        shown_times = column(page, "states-0", "time")
        held = states[states["time"] != states["time"].shift(-1)]
        for name, counted in (
            ("sleeping", held.nb_sleeping),
            ("switching", held.nb_switching_on + held.nb_switching_off),
        ):
            assert step_at(shown_times, column(page, "states-0", name), held["time"]).tolist() == counted.tolist()
        assert len(shown_times) < len(states)
        # zoomed into the first switch-off: the lines hold the part in view
        first = float(spans["left"].min())
        page.js(f"() => {page.model('time-range')}.setv({{start: {first - 100}, end: {first + 100}}})")
        page.js(RAF)
        shown = page.js(f"() => Array.from({page.model('power-watts-0')}.data_source.data.time)")
        assert shown[0] <= first - 100 and first + 100 <= shown[-1] and len(shown) < len(times)
        page.page.screenshot(path=tmp_path / "explore_energy.png")
        assert page.errors == []


@pytest.mark.slow
def test_first_5000_ctc_jobs_in_a_browser(tmp_path):
    workload, prefix = tmp_path / "ctc.json", tmp_path / "easy"
    code, _, err = cli("convert", CTC_EXCERPT, workload, "--hosts", 338, "--first", 5000)
    assert code == 0, err
    for scheduler in ("easy", "fcfs"):
        args = ("--workload", workload, "--platform", 338, "--out", tmp_path / scheduler)
        code, _, err = cli("run", "--scheduler", scheduler, *args)
        assert code == 0, err
    jobs_csv = tmp_path / "easy_jobs.csv"
    path = tmp_path / "ctc.html"
    written = explore_runs([prefix, tmp_path / "fcfs"], path, workloads=[workload])
    # 10,000 jobs shown: at most 1.5 MB; and one run's 5,000 jobs at most 0.75 MB
    assert sum(written["jobs"]) == 10_000 and written["bytes"] <= 1.5e6, written["bytes"]
    one = explore_runs([prefix], tmp_path / "one.html", workloads=[workload])
    assert one["jobs"] == [5000] and one["bytes"] <= 0.75e6, one["bytes"]
    raw = read_jobs_csv(jobs_csv)
    waited = raw.sort_values("waiting_time").iloc[-1]  # the job that waited longest
    with browser() as context:
        page = Page(context, path)
        check_page(page, [jobs_csv, tmp_path / "fcfs_jobs.csv"], tmp_path)
        # zoom on the job: a one-day window around it, then hover it
        page.js(
            f"() => {page.model('time-range')}.setv({{start: {waited.starting_time - 43200}, "
            f"end: {waited.starting_time + 43200}}})"
        )
        page.js(RAF)
        time.sleep(0.2)
        text = hover_and_click(page, str(waited.job_id), runs=2)
        lines = text.splitlines()
        assert lines[0] == f"job {waited.job_id} (easy)"
        assert lines[2].startswith(f"size: {waited.requested_number_of_resources} hosts") and ", user " in lines[2]
        for what, value in (("submit", waited.submission_time), ("start", waited.starting_time)):
            assert f"{what}: {clock(value)} ({seconds(value)} s)" in text
        assert f"end: {clock(waited.finish_time)} ({seconds(waited.finish_time)} s)" in text
        assert f"({seconds(waited.waiting_time)} s)" in lines[6] and written_like(
            lines[6][6:].split(" (")[0], waited.waiting_time
        )
        bsld = max(1.0, waited.turnaround_time / max(waited.execution_time, 10.0))
        assert written_like(lines[-1].removeprefix("bounded slowdown: "), bsld)
        page.page.screenshot(path=tmp_path / "explore_ctc5000.png")
        assert page.errors == []
    # a window: the page holds that window's rectangles only, and weighs by it
    window = (float(waited.submission_time), float(waited.finish_time))
    small = explore_runs([prefix], path, window=window)
    assert small["bytes"] < written["bytes"] / 2 + 0.8e6 / 2
    with browser() as context:
        page = Page(context, path)
        assert page.errors == [] and len(column(page, "rects-0", "left")) == intervals_in(jobs_csv, window)


def test_sweep_report_in_a_browser(tmp_path):
    params, rows = sweep_rows(tmp_path)
    path = sweep_report(tmp_path, "three runs", params, rows, ["bsld_mean"])
    with browser() as context:
        page = Page(context, path)
        factors = "() => Bokeh.documents[0].roots()[0].children.at(-1).x_range.factors.map(f => f.join('/'))"
        assert page.js(factors) == ["D/all runs", "R/all runs"]  # x: order; the seed is the spread
        page.page.get_by_role("combobox").nth(1).select_option("opt.seed")
        page.js(RAF)
        assert page.js(factors) == ["D/1", "D/2", "R/1"]
        page.page.get_by_role("combobox").nth(0).select_option("opt.seed")
        page.page.get_by_role("combobox").nth(1).select_option("opt.order")
        page.js(RAF)
        assert page.js(factors) == ["1/D", "1/R", "2/D"]
        page.page.screenshot(path=tmp_path / "sweep.png", full_page=True)
        assert page.errors == []
