"""The run explorer without a browser: its data (rectangles, series, overview, aggregation),
its metrics tables, its refusals of bad input, and the command line that writes it.

Fixtures: Batsim 4.2.1 outputs of tests/fixtures/analysis/ (``kr``: jobs killed and
resubmitted, copies of rejected jobs, fragmented allocations, on 8 hosts). The browser
tests are in test_explore_browser.py.
"""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from test_cli import assert_clean_error, assert_usage_error, cli

from adaptsched.analysis import compute_metrics
from adaptsched.analysis.evalys_bridge import executed_rows, load_curve
from adaptsched.analysis.explore import explore_runs
from adaptsched.analysis.explore.data import (
    CATEGORY_KEYS,
    IDLE,
    _coverage,
    build_run,
    detail_window,
    energy_in,
    envelope,
    load_run,
    raster,
    raster_of,
    workload_users,
)
from adaptsched.analysis.explore.energy import SPAN_STATES, host_spans, power_series, read_energy
from adaptsched.analysis.explore.pagefile import uncarried
from adaptsched.analysis.explore.sweep import _choice, sweep_report
from adaptsched.analysis.explore.tables import metrics_div
from adaptsched.analysis.jobs import read_jobs_csv
from adaptsched.cli.run import RUN_OUTPUTS
from adaptsched.engines.run.partial import PARTIAL, SUFFIXES
from adaptsched.errors import InputError

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "analysis"
KR = FIXTURES / "kr"


def intervals_in(jobs_csv, window=None) -> int:
    """Rectangles a Gantt chart of the file must hold: one per interval of each executed
    attempt's allocation ("1-2 5-6" is two), counted from the text, attempts overlapping
    ``window`` only."""
    raw = read_jobs_csv(jobs_csv)
    ran = raw[raw["allocated_resources"] != ""]
    if window is not None:
        begin, end = window
        ran = ran[(ran["starting_time"] < end) & (ran["finish_time"] > begin)]
    return sum(len(text.split()) for text in ran["allocated_resources"])


def program(page) -> str:
    """What a page carries compressed (gzip, escaped): BokehJS, then the document's JSON."""
    text = Path(page).read_bytes()
    parts = []
    for name in ("library", "document"):
        found = re.search(rf'<script id="adaptsched-{name}" type="text/plain">(.*?)</script>'.encode(), text, re.S)
        assert found is not None, f"{page}: no {name}"
        parts.append(uncarried(found.group(1)).decode("utf-8"))
    return "\n".join(parts)


def kr_run(window=None):
    raw, metrics, jobs = load_run(KR)
    return build_run(raw, metrics, jobs, "kr", window)


# --------------------------------------------------------------------------- data
def test_every_attempt_interval_is_a_rectangle():
    run = kr_run()
    raw = read_jobs_csv(FIXTURES / "kr_jobs.csv")
    assert len(run.rects["low"]) == intervals_in(FIXTURES / "kr_jobs.csv") == 88
    assert len(run.attempts["id"]) == len(executed_rows(raw)) == 68
    assert len(run.jobs["id"]) == compute_metrics(KR)["overall"]["jobs"] == 60
    # attempt 3 ran on "1-2 5-6": two rectangles, hosts 1..2 and 5..6, from its start to its finish
    three = int(np.flatnonzero(run.attempts["id"] == "3")[0])
    mine = run.rects["attempt"] == three
    assert sorted(zip(run.rects["low"][mine], run.rects["high"][mine])) == [(1, 2), (5, 6)]
    assert (run.attempts["start"][three], run.attempts["end"][three]) == (9.0, 11.0)
    # its resubmitted copies point at the same folded job, whose row says 3 attempts
    copies = np.flatnonzero(np.isin(run.attempts["id"], ["3", "3#1", "3#2"]))
    assert len(set(run.attempts["job"][copies])) == 1
    job = run.attempts["job"][copies[0]]
    assert run.jobs["id"][job] == "3" and run.jobs["attempts"][job] == 3
    assert list(run.attempts["parent"][copies]) == ["", "3", "3"]


def test_load_series_are_evalys_curves():
    run = kr_run()
    ran = executed_rows(read_jobs_csv(FIXTURES / "kr_jobs.csv"))
    for name, kind in (("busy", "utilisation"), ("queued", "queue")):
        curve = load_curve(ran, kind)
        times = curve.index.to_numpy(dtype=float)
        at = np.searchsorted(run.series["time"], times)
        assert np.array_equal(run.series["time"][at], times)
        assert np.array_equal(run.series[name][at], curve["load"].to_numpy(dtype=float)), name
    # waiting jobs, counted at each event time: attempts submitted by then and started after
    submit, start = ran["submission_time"].to_numpy(), ran["starting_time"].to_numpy()
    counted = [int(((submit <= t) & (start > t)).sum()) for t in run.series["time"]]
    assert run.series["waiting"].tolist() == counted and max(counted) >= 1


def test_a_window_keeps_what_runs_in_it():
    window = (20.0, 40.0)
    run = kr_run(window)
    assert len(run.rects["low"]) == intervals_in(FIXTURES / "kr_jobs.csv", window)
    assert (run.attempts["start"] < 40).all() and (run.attempts["end"] > 20).all()
    assert run.series["time"][0] == 20.0 and run.series["time"][-1] == 40.0
    # every attempt drawn has its job's row, renumbered
    assert (run.jobs["id"][run.attempts["job"]] != "").all()
    assert len(run.jobs["id"]) < 60


def test_coverage_of_a_rectangle_by_hand():
    # from 0.5 to 2.25 bins, rows 1 and 2 of 4
    cells = _coverage(np.array([0.5]), np.array([2.25]), np.array([1.0]), np.array([3.0]), 4, 4)
    assert cells.tolist() == [[0, 0, 0, 0], [0.5, 1, 0.25, 0], [0.5, 1, 0.25, 0], [0, 0, 0, 0]]
    # inside one bin; and up to the last edge
    assert _coverage(np.array([1.2]), np.array([1.7]), np.zeros(1), np.ones(1), 1, 4).round(6).tolist() == [
        [0, 0.5, 0, 0]
    ]
    assert _coverage(np.array([3.5]), np.array([4.0]), np.zeros(1), np.ones(1), 1, 4).tolist() == [[0, 0, 0, 0.5]]


def test_overview_pixel_is_the_kind_that_kept_its_hosts_busiest():
    walltime, regular = CATEGORY_KEYS.index("walltime"), CATEGORY_KEYS.index("regular")
    # host 0: a walltime kill over [0, 10), then a regular run over [10, 13); hosts 1-2: the
    # regular run over [14, 20) and a walltime kill over [26, 40); bins of 10 s
    rects = {"attempt": np.array([0, 1, 2, 3]), "low": np.array([0, 0, 1, 1]), "high": np.array([0, 0, 2, 2])}
    start, end = np.array([0.0, 10.0, 14.0, 26.0]), np.array([10.0, 13.0, 20.0, 40.0])
    codes = np.array([walltime, regular, regular, walltime], dtype=np.uint8)
    image, per_row = raster_of(rects, start, end, codes, 3, 0.0, 40.0, bins=4)
    assert per_row == 1
    assert image.tolist() == [
        [walltime, IDLE, IDLE, IDLE],  # 10 s of walltime; then 3 s busy, 7 s idle: idle wins
        [IDLE, regular, IDLE, walltime],  # 6 s regular of [10, 20); 4 s walltime of [20, 30): idle
        [IDLE, regular, IDLE, walltime],
    ]
    # the kr run: a machine 78.5 % busy, most pixels hold a category
    image, _ = raster(kr_run(), 0.0, 188.0, bins=20)
    assert image.shape == (8, 20) and (image != IDLE).mean() > 0.5


def test_envelope_by_hand():
    series = {"time": np.array([0.0, 1.0, 2.5, 3.0]), "busy": np.array([2, 5, 1, 0])}
    edges, low, high = envelope(series, "busy", 0.0, 4.0, bins=4)
    assert edges.tolist() == [0, 1, 2, 3, 4]
    # [0,1): 2; [1,2): 5 (event at 1 carried in); [2,3): 5 then 1 at 2.5; [3,4): 0
    assert low.tolist() == [2, 5, 1, 0] and high.tolist() == [2, 5, 5, 0]


def test_big_runs_are_aggregated_and_say_by_how_much(tmp_path):
    raw, _, _ = load_run(KR)
    assert detail_window([raw], None, max_items=10_000) == (None, None)
    window, info = detail_window([raw], None, max_items=200)
    # 68 attempts, 88 rectangles: 88 + 5 x 68 = 428 items; the first ones up to 200
    assert info["items"] == 428 and info["items_kept"] <= 200 and 0 < info["attempts_kept"] < 68
    assert window[0] == 0.0 and 0 < window[1] < 188
    written = explore_runs([KR], tmp_path / "kr.html", max_items=200)
    assert written["aggregated"] == info and written["window"] == list(window)
    text = program(tmp_path / "kr.html")
    assert "Aggregated:" in text and f"cover only {info['attempts_kept']:,} of its 68 attempts" in text


# --------------------------------------------------------------------------- metrics table
def metrics_cells(text: str) -> dict[str, tuple[str, str]]:
    """{data-key: (value as written, exact --json value)} of the metrics tables' HTML."""
    cells = re.findall(r'<td data-key="([^"]+)" data-json="([^"]*)" title="[^"]*">(.*?)</td>', text)
    return {key: (html.unescape(written), html.unescape(exact)) for key, exact, written in cells}


def read_back(text: str) -> float | None:
    """The number a cell writes for reading ("7:35:31", "2.35 d", "1.3 s", "63.9 %", "27,300",
    "0 d 00:00:11"), parsed by hand: None for "-"."""
    text = text.replace(",", "")
    if text == "-":
        return None
    if re.fullmatch(r"-?\d+ d \d\d:\d\d:\d\d", text):  # an instant
        days, clock = text.split(" d ")
        h, m, s = clock.split(":")
        return int(days) * 86400 + int(h) * 3600 + int(m) * 60 + int(s)
    sign = -1 if text.startswith("-") else 1
    text = text.lstrip("-")
    if re.fullmatch(r"\d+:\d\d:\d\d", text):
        h, m, s = text.split(":")
        return sign * (int(h) * 3600 + int(m) * 60 + int(s))
    for unit, scale in ((" d", 86400), (" s", 1), (" %", 0.01)):
        if text.endswith(unit):
            return sign * float(text[: -len(unit)]) * scale
    return sign * float(text)


def written_like(written: str, value) -> bool:
    """A value written for reading stands for the exact one: to the second (h:mm:ss), or to 3
    significant digits, or exactly (a count)."""
    back = read_back(written)
    if value is None or back is None:
        return value is None and back is None
    to_the_second = ":" in written
    return abs(back - value) <= (0.5 if to_the_second else 0.005 * abs(value))


def assert_metrics_cells_equal_json(cells: dict, expected: dict, run: int = 0):
    """Every number of ``metrics --json`` is in the cells, exactly (data-json) and for reading."""
    for key, value in expected["overall"].items():
        written, exact = cells[f"{run}.overall.{key}"]
        assert exact == json.dumps(value), key
        assert written_like(written, value), (key, written, value)
    for name, stats in expected["classes"].items():
        for key, value in stats.items():
            written, exact = cells[f"{run}.classes.{name}.{key}"]
            assert exact == json.dumps(value) and written_like(written, value), (name, key, written, value)


def test_numbers_are_written_for_reading():
    from adaptsched.analysis.explore import fmt

    # worked by hand: 27,331.1 s = 7 h 35 min 31.1 s; 2,240,195 s = 25.928 days
    assert [fmt.duration(x) for x in (27331.100000000006, 2240195.0, 1.3, 0.0, -3725.0, 59.96)] == [
        "7:35:31", "25.9 d", "1.3 s", "0 s", "-1:02:05", "60 s",
    ]  # fmt: skip
    assert [fmt.number(x) for x in (27331.1, 20.64, 0.63912, 125.95, 1370.4)] == [
        "27,300",
        "20.6",
        "0.639",
        "126",
        "1,370",
    ]
    assert fmt.instant(1301486) == "15 d 01:31:26" and fmt.percent(0.639) == "63.9 %" and fmt.count(4998) == "4,998"
    assert fmt.metric("busy_node_s", 484e6) == "484,000,000" and fmt.metric("window_end_s", 86400) == "1 d 00:00:00"
    assert fmt.duration(None) == "-" and fmt.number(float("nan")) == "-"


def test_metrics_table_is_metrics_json_to_the_digit():
    code, out, err = cli("metrics", KR, "--json")
    assert code == 0, err
    cells = metrics_cells(metrics_div([kr_run()]).text)
    assert len(cells) == len(json.loads(out)["overall"]) + 5 * len(json.loads(out)["classes"]["short"])
    assert_metrics_cells_equal_json(cells, json.loads(out))
    # and the check can fail: a value written wrong is caught
    assert not written_like("0:00:02", 1.3) and not written_like("20.6", 21.0)


# --------------------------------------------------------------------------- bad input
def test_bad_input_gets_one_paragraph(tmp_path):
    out = tmp_path / "page.html"
    # runs of different machine sizes
    small = tmp_path / "small"
    shutil.copy(FIXTURES / "easy_jobs.csv", f"{small}_jobs.csv")
    (tmp_path / "small_schedule.csv").write_text((FIXTURES / "easy_schedule.csv").read_text().replace(",8,", ",16,", 1))
    assert compute_metrics(small)["hosts"] == 16
    code, _, err = cli("explore", KR, small, "--out", out)
    assert_clean_error(code, err, "different machine sizes", "kr (", "8 hosts", "16 hosts")
    # a _jobs.csv without its _schedule.csv
    shutil.copy(FIXTURES / "kr_jobs.csv", tmp_path / "lone_jobs.csv")
    code, _, err = cli("explore", tmp_path / "lone", "--out", out)
    assert_clean_error(code, err, "lone_jobs.csv: no lone_schedule.csv beside it", "finished run")
    # no executed job
    lines = (FIXTURES / "kr_jobs.csv").read_text().splitlines()
    (tmp_path / "none_jobs.csv").write_text("\n".join([lines[0], *(x for x in lines if "REJECTED" in x)]) + "\n")
    shutil.copy(FIXTURES / "kr_schedule.csv", tmp_path / "none_schedule.csv")
    code, _, err = cli("explore", tmp_path / "none", "--out", out)
    assert_clean_error(code, err, "none_jobs.csv: holds 12 jobs and none of them ran", "nothing to explore")
    # a window outside the run, or not a window
    code, _, err = cli("explore", KR, "--out", out, "--window", "1d:2d")
    assert_clean_error(code, err, "--window 86400:172800 (seconds) lies outside the run", "0:188")
    code, _, err = cli("explore", KR, "--out", out, "--window", "soon")
    assert_usage_error(code, err, "argument --window: soon: expected START:END")
    code, _, err = cli("explore", KR, "--out", out, "--window", "job:nope")
    assert_usage_error(code, err, "no job 'nope'")
    assert not out.exists()  # never a broken page
    with pytest.raises(InputError, match="different machine sizes"):
        explore_runs([KR, small], out)


# --------------------------------------------------------------------------- command line
def test_explore_writes_one_self_contained_page(tmp_path):
    out = tmp_path / "sub" / "report.html"
    code, stdout, err = cli("explore", KR, FIXTURES / "easy", "--out", out, "--label", "kr", "--label", "easy")
    assert code == 0, err
    assert stdout.startswith(f"explorer: {out} (") and "kr: 88 rectangles of 68 attempts, 60 jobs" in stdout
    text = out.read_bytes().decode("cp1252", errors="replace")  # the page's own encoding (pagefile.py)
    # no CDN, no server: every script is inline
    assert "<script src" not in text.replace("<script src=\\", "") and "cdn.bokeh.org" not in text
    assert "Bokeh" in program(out) and program(out).count("rects-") >= 2
    code, stdout, err = cli("explore", KR, "--out", out, "--window", "job:3")
    assert code == 0 and "kr: " in stdout, err
    # runs without Batsim's energy model: no power panel, no host power states, no empty panel
    assert not any(
        name in program(out)
        for name in ('"series-watts"', '"series-sleeping"', '"power-states-', "power-states-legend")
    )


def test_run_report_html_writes_the_page_beside_the_outputs_and_every_file_is_documented(tmp_path):
    # 12 jobs of an SWF trace (users 7 and 8), on a number of hosts: run converts and generates
    lines = [
        f"{i + 1} {10 * i} 0 25 {1 + i % 3} -1 -1 {1 + i % 3} 100 -1 1 {7 + i % 2} 1 -1 1 -1 -1 -1" for i in range(12)
    ]
    (tmp_path / "w.swf").write_text("; MaxNodes: 4\n" + "\n".join(lines) + "\n")
    code, stdout, err = cli(
        "run", "--scheduler", "easy", "--workload", tmp_path / "w.swf", "--platform", "4", "--out", tmp_path / "r",
        "--report", "html",
    )  # fmt: skip
    assert code == 0, err
    assert (tmp_path / "r_explore.html").is_file() and (tmp_path / "r_gantt.png").is_file()
    assert f"explorer: {tmp_path / 'r_explore.html'}" in stdout
    # the page found the converted workload beside the run: its jobs have their users
    assert '"users unknown' not in program(tmp_path / "r_explore.html") and "user 7 (6 jobs)" in program(
        tmp_path / "r_explore.html"
    )
    # every file run wrote is in docs/getting-started.md's table, with why it is there
    table = (Path(__file__).resolve().parent.parent / "docs" / "getting-started.md").read_text()
    written = sorted(p.name.removeprefix("r") for p in tmp_path.glob("r_*"))
    assert {"_workload.json", "_platform.xml", "_jobs.csv", "_explore.html"} <= set(written)
    for suffix in {*written, *RUN_OUTPUTS}:  # and every file run may write, in any case
        assert f"`PREFIX{suffix}`" in table, suffix
    # a run that passed its checks leaves no partial file; the page names every output written
    # under a partial name first (engines/run/partial.py) and the partial name itself
    assert not list(tmp_path.glob("r*.partial*")), written
    partial = table.split("The run's results, ")[1].split("\n\n")[0]
    for suffix in SUFFIXES:
        assert f"`PREFIX{suffix}`" in partial, suffix
    assert f"`PREFIX_jobs.csv{PARTIAL}`" in partial and "`PREFIX.partial-XXXX/`" in partial


# --------------------------------------------------------------------------- sweep report
def sweep_rows(tmp_path) -> tuple[list[str], list[dict]]:
    """A sweep folder of three runs (Batsim fixtures as runs/NAME_*), and its runs.csv rows."""
    (tmp_path / "runs").mkdir()
    rows = []
    for name, fixture, order, seed in (("a", "easy", "D", "1"), ("b", "filler", "D", "2"), ("c", "kr", "R", "1")):
        for suffix in ("_jobs.csv", "_schedule.csv"):
            shutil.copy(FIXTURES / f"{fixture}{suffix}", tmp_path / "runs" / f"{name}{suffix}")
        metrics = compute_metrics(tmp_path / "runs" / name)["overall"]
        rows.append(
            {"name": name, "status": "done", "opt.order": order, "opt.seed": seed, "bsld_mean": metrics["bsld_mean"]}
        )
    rows.append({"name": "d", "status": "failed", "opt.order": "R", "opt.seed": "2", "bsld_mean": ""})
    return ["opt.order", "opt.seed"], rows


def test_sweep_report_charts_every_choice_and_writes_run_pages_lazily(tmp_path):
    params, rows = sweep_rows(tmp_path)
    path = sweep_report(tmp_path, "three runs", params, rows, ["bsld_mean", "utilization"], max_page_jobs=130)
    assert path == tmp_path / "report.html" and "Bokeh" in program(path)
    # pages of 60 jobs each: two fit in 130 jobs, the third waits for the next report
    pages = sorted(p.name for p in (tmp_path / "runs").glob("*_explore.html"))
    assert pages == ["a_explore.html", "b_explore.html"]
    written = {p: (tmp_path / "runs" / p).stat().st_mtime for p in pages}
    sweep_report(tmp_path, "three runs", params, rows, ["bsld_mean"], max_page_jobs=130)
    assert sorted(p.name for p in (tmp_path / "runs").glob("*_explore.html")) == [*pages, "c_explore.html"]
    assert {p: (tmp_path / "runs" / p).stat().st_mtime for p in pages} == written  # up to date: not rewritten
    # x = order, grouped by seed: D has seeds 1 and 2, R seed 1 (run d failed)
    choice = _choice(
        [r for r in rows if r["status"] == "done"], [r["bsld_mean"] for r in rows[:3]], {}, "opt.order", "opt.seed"
    )
    assert choice["factors"] == [("D", "1"), ("D", "2"), ("R", "1")]
    # grouped by nothing: D's bar is the mean of a and b, its whisker their spread
    choice = _choice(rows[:3], [r["bsld_mean"] for r in rows[:3]], {}, "opt.order", "(none)")
    d = choice["summary"]["x"].index(("D", "all runs"))
    assert choice["summary"]["mean"][d] == pytest.approx((rows[0]["bsld_mean"] + rows[1]["bsld_mean"]) / 2)
    assert choice["summary"]["low"][d] == min(rows[0]["bsld_mean"], rows[1]["bsld_mean"])
    assert choice["summary"]["n"][d] == 2
    assert "no page yet: adaptsched explore runs/c" in choice["points"]["what"][2]


def test_sweep_report_writes_at_most_max_pages_run_pages_and_says_how_to_get_the_others(tmp_path):
    """Each page carries Bokeh (about 2 MB): a 10,000-run sweep must not write 20 GB of them."""
    params, rows = sweep_rows(tmp_path)
    said: list[str] = []
    sweep_report(tmp_path, "three runs", params, rows, ["bsld_mean"], max_pages=1, say=said.append)
    assert sorted(p.name for p in (tmp_path / "runs").glob("*_explore.html")) == ["a_explore.html"]
    assert any("1 at most per sweep, 2 runs without one" in s and "adaptsched explore" in s for s in said)


def test_sweep_report_bars_are_cells_of_the_grid_by_default():
    from adaptsched.analysis.explore.sweep import _one_scheduler_column, default_axes

    # two schedulers (one labelled) x two workloads x two seeds; bsld is 10 x workload + seed
    rows = [
        {"name": f"{s}-{w}-{e}", "scheduler": s, "label": label, "workload": w, "opt.seed": str(e),
         "bsld_mean": 10.0 * (w == "SDSC") + e}
        for s, label in (("easy", ""), ("ljf.py", "LJF")) for w in ("CTC", "SDSC") for e in (1, 2)
    ]  # fmt: skip
    rows = [_one_scheduler_column(r) for r in rows]
    dims, x, group = default_axes(["scheduler", "workload", "opt.seed"], rows)
    assert (x, group) == ("scheduler", "workload") and "label" not in dims
    choice = _choice(rows, [r["bsld_mean"] for r in rows], {}, x, group)
    assert choice["factors"] == [("LJF", "CTC"), ("LJF", "SDSC"), ("easy", "CTC"), ("easy", "SDSC")]
    # each bar: the two seeds of one scheduler on one workload, never CTC and SDSC together
    assert choice["summary"]["n"] == [2, 2, 2, 2] and choice["summary"]["mean"] == [1.5, 11.5, 1.5, 11.5]
    # a third dimension goes along x with the scheduler: still one bar per cell
    for r in rows:
        r["opt.order"] = "D" if r["opt.seed"] == "1" else "R"
        r["opt.seed"] = "1"
    dims, x, group = default_axes(["scheduler", "workload", "opt.order", "opt.seed"], rows)
    assert (x, group) == ("scheduler x opt.order", "workload") and rows[0][x] == "easy, opt.order=D"
    assert _choice(rows, [r["bsld_mean"] for r in rows], {}, x, group)["summary"]["n"] == [1] * 8


def test_a_window_keeps_a_job_in_every_run_if_it_keeps_it_in_one(tmp_path):
    # in 35-40 s, easy has finished job 9 and still holds job 7; kr the other way round
    window = (35.0, 40.0)
    easy, kr = (build_run(*load_run(path), name, window) for path, name in ((FIXTURES / "easy", "easy"), (KR, "kr")))
    assert "9" not in set(easy.jobs["id"]) and "7" in set(easy.jobs["id"])
    assert "7" not in set(kr.jobs["id"]) and "9" in set(kr.jobs["id"])
    # on one page, both runs hold both jobs: the difference view compares them
    written = explore_runs([FIXTURES / "easy", KR], tmp_path / "page.html", window=window)
    assert written["jobs"] == [len(easy.jobs["id"]) + 1, len(kr.jobs["id"]) + 1]
    shared = build_run(*load_run(KR), "kr", window, also_keys={"w0!7", "w0!9"})
    assert {"7", "9"} <= set(shared.jobs["id"])


def test_users_come_from_the_run_s_own_workload_and_another_is_refused(tmp_path):
    # the fixtures' workload (tests/fixtures/analysis/README.md), with a user for each job
    jobs = [
        {"id": i, "subtime": i * 3, "res": 1 + i % 4, "profile": "d5", "walltime": 9, "user": 40 + i % 3}
        for i in range(60)
    ]
    workload = tmp_path / "w.json"
    workload.write_text(json.dumps({"nb_res": 8, "jobs": jobs, "profiles": {"d5": {"type": "delay", "delay": 5}}}))
    users = workload_users(workload, load_run(FIXTURES / "easy")[2])
    assert users == {str(i): 40 + i % 3 for i in range(60)}
    code, _, err = cli("explore", FIXTURES / "easy", "--out", tmp_path / "page.html", "--workload", workload)
    assert code == 0, err
    assert "user 40 (20 jobs)" in program(tmp_path / "page.html")
    jobs[5]["subtime"] = 16  # not when the run's job 5 was submitted (15 s)
    workload.write_text(json.dumps({"nb_res": 8, "jobs": jobs, "profiles": {"d5": {"type": "delay", "delay": 5}}}))
    code, _, err = cli("explore", FIXTURES / "easy", "--out", tmp_path / "page2.html", "--workload", workload)
    assert_clean_error(code, err, "w.json", "not the workload of this run", "job 5 (submitted at 15 s on 2 hosts)")
    assert not (tmp_path / "page2.html").exists()


def test_host_power_states_by_hand(tmp_path):
    """Hosts 0-3: 2-3 switch off at 10 s (done at 16 s), 0 at 20 s (done at 26 s); 2 wakes at 100 s
    (done at 250 s); the records end at 300 s, 3 and 0 still asleep."""
    path = tmp_path / "r_pstate_changes.csv"
    path.write_text("time,machine_id,new_pstate\n0,0-3,0\n10,2-3,-2\n16,2-3,1\n20,0,-2\n26,0,1\n100,2,-1\n250,2,0\n")
    spans = host_spans(path, 300.0)
    rows = sorted(zip(spans["left"], spans["right"], spans["bottom"], spans["top"], spans["state"]))
    off, asleep, on = (SPAN_STATES.index(name) for name in ("switching off", "asleep", "switching on"))
    assert rows == [
        (10, 16, 2, 4, off),  # hosts 2 and 3 together: one rectangle
        (16, 100, 2, 3, asleep),
        (16, 300, 3, 4, asleep),
        (20, 26, 0, 1, off),
        (26, 300, 0, 1, asleep),
        (100, 250, 2, 3, on),
    ]
    assert read_energy(tmp_path / "r_jobs.csv", 300.0) is None  # no _consumed_energy.csv: no energy


def test_power_by_hand(tmp_path):
    """1,000 J in the first 10 s, then 500 J in 20 s; two rows at 10 s count once."""
    path = tmp_path / "r_consumed_energy.csv"
    path.write_text(
        "time,energy,event_type,wattmin,epower\n0.000000,0.000000,s,95.000000,NA\n10.000000,1000.000000,e,95.000000,"
        "100.000000\n10.000000,1000.000000,s,95.000000,NA\n30.000000,1500.000000,p,95.000000,25.000000\n"
    )
    power = power_series(path)
    assert power["time"].tolist() == [0, 10, 30] and power["watts"].tolist() == [100, 25, 25]
    path.write_text("time,energy,event_type,wattmin,epower\n")  # no row: no curve, no panel
    assert {name: len(column) for name, column in power_series(path).items()} == {"time": 0, "watts": 0}


def test_a_window_keeps_the_power_and_host_states_inside_it():
    """Power 100 W from 0 s, 25 W from 10 s; a window from 5 s to 20 s starts at 100 W; a span
    from 30 s on is left out, one across the window kept."""
    energy = {
        "power": {"time": np.array([0.0, 10.0, 30.0]), "watts": np.array([100.0, 25.0, 25.0])},
        "states": {"time": np.array([0.0, 12.0]), "sleeping": np.array([0, 2], np.int32),
                   "switching": np.array([0, 0], np.int32)},
        "spans": {"left": np.array([12.0, 30.0]), "right": np.array([40.0, 40.0]), "bottom": np.array([0, 2]),
                  "top": np.array([2, 3]), "state": np.array([1, 0], np.uint8)},
    }  # fmt: skip
    kept = energy_in(energy, (5.0, 20.0))
    assert kept["power"]["time"].tolist() == [5, 10, 20] and kept["power"]["watts"].tolist() == [100, 25, 25]
    assert kept["states"]["time"].tolist() == [5, 12, 20] and kept["states"]["sleeping"].tolist() == [0, 2, 2]
    assert kept["spans"]["left"].tolist() == [12.0] and energy_in(energy, None) is energy
