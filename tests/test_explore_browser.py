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
import io
import json
import time

import numpy as np
import pytest
from browser import Page, browser, missing
from helpers import CTC_EXCERPT
from test_cli import cli
from test_explore import FIXTURES, KR, assert_metrics_cells_equal_json, intervals_in, sweep_rows

from adaptsched.analysis.explore import explore_runs
from adaptsched.analysis.explore.sweep import sweep_report
from adaptsched.analysis.jobs import read_jobs_csv
from adaptsched.cli import main

pytestmark = pytest.mark.skipif(missing() is not None, reason=missing() or "")

RAF = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"


def seconds(value: float) -> str:
    """A time as the tooltip writes it: rounded to the millisecond, no trailing zeros."""
    return f"{round(float(value), 3):.3f}".rstrip("0").rstrip(".")


def rect_point(page: Page, run: int, index: int) -> dict:
    """Page coordinates of the centre of rectangle ``index`` of run ``run``'s Gantt chart."""
    return page.js(
        """([run, i]) => {
          const doc = Bokeh.documents[0];
          const view = Bokeh.index.get_one(doc.get_model_by_name(`gantt-${run}`));
          const d = doc.get_model_by_name(`rects-${run}`).data;
          const box = view.canvas_view.el.getBoundingClientRect();
          return {x: box.left + view.frame.x_scale.compute((d.left[i] + d.right[i]) / 2),
                  y: box.top + view.frame.y_scale.compute((d.bottom[i] + d.top[i]) / 2)};
        }""",
        [run, index],
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
    """{data-key: (printed, --json)} of the metrics tables as the browser shows them."""
    cells: dict = {}
    for key, text in page.page.locator("td[data-key]").evaluate_all(
        "cells => cells.map(c => [c.dataset.key, c.innerText])"
    ):
        cells.setdefault(key, []).append(text)
    return {key: tuple(values) for key, values in cells.items()}


def metrics_json(jobs_csv) -> dict:
    """What ``adaptsched metrics JOBS_CSV --json`` prints (run in this process: faster)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["metrics", str(jobs_csv), "--json"]) == 0
    return json.loads(out.getvalue())


def check_page(page: Page, jobs_csvs: list, tmp_path, window=None) -> None:
    """What every explorer page must do, for the runs of ``jobs_csvs`` (module doc)."""
    assert page.errors == []
    for run, jobs_csv in enumerate(jobs_csvs):
        assert len(column(page, f"rects-{run}", "left")) == intervals_in(jobs_csv, window)
        assert page.js(f"() => {page.model(f'gantt-quads-{run}')}.visible")  # drawn one by one, not the overview
        assert_metrics_cells_equal_json(page_metrics_cells(page), metrics_json(jobs_csv), run)


def hover_and_click(page: Page, job_id: str, runs: int) -> str:
    """Hovers over the first rectangle of attempt ``job_id`` in run 0, clicks it; returns the
    tooltip's text after checking that the job's attempts are highlighted in every run."""
    ids = column(page, "attempts-0", "id")
    rect = column(page, "rects-0", "attempt").index(ids.index(job_id))
    point = rect_point(page, 0, rect)
    text = hover_text(page, point)
    page.page.mouse.click(point["x"], point["y"])
    page.js(RAF)
    for run in range(runs):
        selected = page.js(f"() => Array.from({page.model(f'rects-{run}')}.selected.indices)")
        attempts = column(page, f"rects-{run}", "attempt")
        jobs = column(page, f"attempts-{run}", "job")
        keys = column(page, "jobs", "key")
        key = keys[column(page, "attempts-0", "job")[ids.index(job_id)]]
        assert sorted(selected) == [i for i, a in enumerate(attempts) if keys[jobs[a]] == key], run
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
            "job 3#1, parent 3, attempt of job 3",
            "kind: killed by the scheduler (other)",
            "size: 4 hosts (requested 4)",
            "submit: 11 s (0 d 00:00:11)",
            "start: 11 s (0 d 00:00:11)",
            "end: 13 s (0 d 00:00:13)",
            "wait: 0 s (0 d 00:00:00)",
            "bounded slowdown: 1.20 (job)",
        ]
        # job 3 in run kr: 3 attempts; in run easy: 1; all highlighted (checked above)
        assert len(page.js(f"() => {page.model('rects-1')}.selected.indices")) >= 1
        # a job table row zooms every chart to its job
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


@pytest.mark.slow
def test_first_5000_ctc_jobs_in_a_browser(tmp_path):
    workload, prefix = tmp_path / "ctc.json", tmp_path / "easy"
    code, _, err = cli("convert", CTC_EXCERPT, workload, "--hosts", 338, "--first", 5000)
    assert code == 0, err
    code, _, err = cli("run", "--scheduler", "easy", "--workload", workload, "--platform", 338, "--out", prefix)
    assert code == 0, err
    jobs_csv = tmp_path / "easy_jobs.csv"
    path = tmp_path / "ctc.html"
    explore_runs([prefix], path)
    raw = read_jobs_csv(jobs_csv)
    waited = raw.sort_values("waiting_time").iloc[-1]  # the job that waited longest
    with browser() as context:
        page = Page(context, path)
        check_page(page, [jobs_csv], tmp_path)
        # zoom on the job: a one-day window around it, then hover it
        page.js(
            f"() => {page.model('time-range')}.setv({{start: {waited.starting_time - 43200}, "
            f"end: {waited.starting_time + 43200}}})"
        )
        page.js(RAF)
        time.sleep(0.2)
        text = hover_and_click(page, str(waited.job_id), runs=1)
        assert text.splitlines()[0] == f"job {waited.job_id}"
        for what, value in (("submit", waited.submission_time), ("start", waited.starting_time)):
            assert f"{what}: {seconds(value)} s (" in text
        assert f"end: {seconds(waited.finish_time)} s (" in text and f"wait: {seconds(waited.waiting_time)} s (" in text
        assert f"size: {waited.requested_number_of_resources} hosts" in text
        bsld = max(1.0, waited.turnaround_time / max(waited.execution_time, 10.0))
        assert text.splitlines()[-1] == f"bounded slowdown: {bsld:.2f}"
        page.page.screenshot(path=tmp_path / "explore_ctc5000.png", full_page=True)
        assert page.errors == []
    # a window: the page holds that window's rectangles only
    window = (float(waited.submission_time), float(waited.finish_time))
    explore_runs([prefix], path, window=window)
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
