"""docs/writing-a-scheduler.md cannot rot: every code block in it is a file under ``examples/``
(byte for byte), a command this test runs, or an output a command prints; every example
scheduler passes ``adaptsched check`` (on real Batsim too, when it is there); and the claims the
page makes about them hold.

The commands run as a newcomer types them, from a folder that has the repository's
``examples/``, ``workloads/`` and ``platforms/`` (``results/`` is written there, not in the
checkout). Fast tier: the page's blocks, its outputs, ``check`` on every example (embedded
engine) and step 4; slow: steps 1 and 6 (its sweep with the spec as committed but on the first
150 jobs of each trace: the page's result is committed with its date), ``check --engine both``
and the two-shell run under real Batsim.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import CTC_EXCERPT, NO_BATSIM, NO_BATSIM_HELP, REPO, find_batsim

from adaptsched.analysis import compute_metrics
from adaptsched.cli import main

DOC = REPO / "docs" / "writing-a-scheduler.md"
EXAMPLES = REPO / "examples" / "schedulers"
BATSIM = find_batsim()
needs_batsim = pytest.mark.skipif(BATSIM is None, reason=f"{NO_BATSIM}: {NO_BATSIM_HELP}")
BLOCK = re.compile(r"(?:<!-- (?P<marker>[^\n]*?) -->\n)?```(?P<lang>\w*)\n(?P<body>.*?)```", re.S)
SECONDS = re.compile(r"\(\d+(\.\d+)? s\)")  # a case's time, which varies


def blocks() -> list[tuple[str, str, str]]:
    """(marker, language, body) of every fenced block of the page."""
    return [(m["marker"] or "", m["lang"], m["body"]) for m in BLOCK.finditer(DOC.read_text())]


def commands(step: str) -> list[str]:
    """The command lines of the page's ``<!-- run: STEP -->`` block."""
    [body] = [body for marker, _, body in blocks() if marker == f"run: {step}"]
    return [line for line in body.splitlines() if line.strip()]


@pytest.fixture
def sandbox(tmp_path, monkeypatch):
    """A folder laid out as the checkout, as far as the page's commands read it."""
    for name in ("examples", "workloads", "platforms"):
        (tmp_path / name).symlink_to(REPO / name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run_line(line: str) -> int:
    """Runs one of the page's command lines as typed (``.venv/bin/adaptsched`` in-process)."""
    words = shlex.split(line)
    if words[0] == ".venv/bin/adaptsched":
        return main(words[1:])
    assert words[0] == ".venv/bin/python", f"the page runs only adaptsched and the venv's python: {line}"
    return subprocess.run([sys.executable, *words[1:]], check=False).returncode


# -- the page is made of files, commands and their outputs ----------------------------------------
def test_every_block_is_a_file_a_command_or_an_output():
    shown = set()
    for marker, lang, body in blocks():
        if lang in ("python", "toml"):
            assert marker.startswith("file: "), f"a {lang} block not marked as a file: {body[:80]}"
            path = REPO / marker.removeprefix("file: ")
            assert path.read_text() == body, f"{path.relative_to(REPO)} differs from its block in the page"
            shown.add(path)
        elif lang == "sh":
            assert marker.startswith("run: "), f"a command block not marked as run: {body[:80]}"
        else:
            assert lang == "text", f"a block of an unknown kind: {lang!r}"
    examples = {p for p in EXAMPLES.glob("*.py") if p.name != "__init__.py"}
    assert examples - {EXAMPLES / "my_depth.py", EXAMPLES / "my_depth_fixed.py"} <= shown
    assert examples <= shown, f"examples the page never shows: {sorted(p.name for p in examples - shown)}"


@pytest.mark.parametrize(
    "marker",
    [m for m, _, _ in blocks() if m.startswith("output of: ")],
)
def test_the_outputs_shown_are_what_the_commands_print(marker, sandbox, capsys):
    [shown] = [body for m, _, body in blocks() if m == marker]
    line = marker.removeprefix("output of: ")
    status = run_line(line)
    out = capsys.readouterr().out
    assert status == 0, out
    assert SECONDS.sub("(s)", out) == SECONDS.sub("(s)", shown)


# -- every example passes check -------------------------------------------------------------------
EXAMPLE_FILES = sorted(p.name for p in EXAMPLES.glob("*.py"))


@pytest.mark.parametrize("example", EXAMPLE_FILES)
def test_each_example_passes_check(example, tmp_path, capsys):
    status = main(["check", str(EXAMPLES / example), "--fuzz", "2", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert status == 0 and "all checks passed" in out, out


@pytest.mark.slow
@needs_batsim
@pytest.mark.parametrize("example", EXAMPLE_FILES)
def test_each_example_passes_check_on_both_engines(example, tmp_path, capsys):
    """Under stock pybatsim and real Batsim, with the same ``_jobs.csv`` as the embedded engine."""
    status = main(["check", str(EXAMPLES / example), "--engine", "both", "--batsim", BATSIM, "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert status == 0 and "all checks passed" in out, out


def test_the_energy_example_passes_check_with_energy(tmp_path, capsys):
    """Step 7's plugin with Batsim's energy model, its hosts put to sleep as soon as they idle."""
    idle_off = str(EXAMPLES / "my_idle_off.py")
    status = main(["check", idle_off, "--option", "idle_s=0", "--energy", "--fuzz", "2", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert status == 0 and "all checks passed" in out, out
    assert any(",-2" in p.read_text() for p in tmp_path.rglob("*_pstate_changes.csv"))  # hosts did sleep


@pytest.mark.slow
@needs_batsim
def test_the_energy_example_passes_check_with_energy_on_both_engines(tmp_path, capsys):
    """The same on real Batsim (-E): the same _jobs.csv, _consumed_energy.csv and _pstate_changes.csv."""
    idle_off = str(EXAMPLES / "my_idle_off.py")
    args = ["check", idle_off, "--option", "idle_s=0", "--energy", "--engine", "both", "--batsim", BATSIM]
    status = main([*args, "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert status == 0 and "all checks passed" in out, out


# -- what the page claims of them -----------------------------------------------------------------
@pytest.mark.slow
def test_depth_one_is_easy_and_a_deep_depth_is_conservative(tmp_path):
    """Step 2's claim, on the CTC-SP2 excerpt the page runs."""

    import pandas as pd

    def jobs_csv(scheduler: str, *options: str) -> pd.DataFrame:
        out = tmp_path / scheduler.replace("/", "_") / "_".join(options or ("default",))
        args = ["run", "--scheduler", scheduler, "--workload", str(CTC_EXCERPT), "--platform", "338"]
        assert main(args + [a for o in options for a in ("--option", o)] + ["--out", str(out)]) == 0
        return pd.read_csv(f"{out}_jobs.csv", dtype=str).drop(columns="metadata")  # reservations recorded differ

    depth = str(EXAMPLES / "my_depth.py")
    assert jobs_csv(depth, "depth=1").equals(jobs_csv("easy"))
    assert jobs_csv(depth, "depth=1000000").equals(jobs_csv("conservative"))


@pytest.mark.slow
def test_slack_zero_is_easy_and_no_head_starts_after_its_promise(tmp_path):
    """Step 3's claims for my_slack_easy.py, on the CTC-SP2 excerpt the page runs."""
    import pandas as pd

    def jobs_csv(scheduler: str, *options: str) -> pd.DataFrame:
        out = tmp_path / scheduler.replace("/", "_") / "_".join(options or ("default",))
        args = ["run", "--scheduler", scheduler, "--workload", str(CTC_EXCERPT), "--platform", "338"]
        assert main(args + [a for o in options for a in ("--option", o)] + ["--out", str(out)]) == 0
        return pd.read_csv(f"{out}_jobs.csv", dtype=str)

    slack = str(EXAMPLES / "my_slack_easy.py")
    easy = jobs_csv("easy")
    assert jobs_csv(slack, "slack_s=0").equals(easy)
    jobs = jobs_csv(slack, "slack_s=3600")
    assert not jobs.drop(columns="metadata").equals(easy.drop(columns="metadata"))  # the slack changes things
    promised = jobs["metadata"].str.extract(r"reservation_s['\"]?\s*:\s*([-+0-9.eE]+)", expand=False).astype(float)
    start = jobs["starting_time"].astype(float)
    assert promised.notna().sum() > 100  # heads got promises
    assert (start[promised.notna()] <= promised[promised.notna()] + 1e-5).all()


def test_the_express_lane_by_hand():
    """4 hosts; a (4 hosts, 100 s) runs from 0; L (3 hosts, 2 h) arrives at 1 and is the head,
    promised 100 (a's end); S (2 hosts, 10 min, express) arrives at 2 and goes ahead of it: L's
    promise is withdrawn, S starts at 100, and L, the head again, is promised 700 (S's end)."""
    import importlib.util

    from adaptsched.api import EasyBackfilling, Job

    spec = importlib.util.spec_from_file_location("my_express_easy", EXAMPLES / "my_express_easy.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    def starts(scheduler) -> dict[str, float]:
        started, jobs = {}, [Job("a", 0.0, 4, 100.0), Job("L", 1.0, 3, 7200.0), Job("S", 2.0, 2, 600.0)]
        ends: list[tuple[float, str]] = []
        for now in (0.0, 1.0, 2.0, 100.0, 700.0, 7300.0):
            for end_s, job_id in ends:
                if end_s == now:
                    scheduler.complete(job_id, now)
            for job in jobs:
                if job.submit_s == now:
                    scheduler.submit(job, now)
            for job_id, _ in scheduler.schedule(now).starts:
                started[job_id] = now
                ends.append((now + {"a": 100.0, "L": 7200.0, "S": 600.0}[job_id], job_id))
        return started

    express = module.MyExpressEasy(4, express_s=3600.0)
    assert starts(express) == {"a": 0.0, "S": 100.0, "L": 700.0}
    assert express.first_reservation == {"S": 100.0, "L": 700.0} and express.withdrawn == {"L": (100.0, 2.0)}
    assert starts(EasyBackfilling(4)) == {"a": 0.0, "L": 100.0, "S": 7300.0}  # arrival order: L first
    assert starts(module.MyExpressEasy(4, express_s=0.0)) == {"a": 0.0, "L": 100.0, "S": 7300.0}


@pytest.mark.slow
def test_the_express_lane_keeps_easy_at_its_limits_and_changes_it_between(tmp_path):
    """Step 3's claims for my_express_easy.py, on the CTC-SP2 excerpt the page runs."""
    common = ["--workload", str(CTC_EXCERPT), "--platform", "338"]

    def jobs_csv(scheduler: str, *options: str) -> str:
        out = tmp_path / "_".join((Path(scheduler).stem, *options)).replace("=", "-")
        args = ["run", "--scheduler", scheduler, *common, "--out", str(out)]
        assert main(args + [a for o in options for a in ("--option", o)]) == 0
        return Path(f"{out}_jobs.csv").read_text()

    express = str(EXAMPLES / "my_express_easy.py")
    assert jobs_csv(express, "express_s=0") == jobs_csv("easy")
    assert jobs_csv(express, "express_s=3600", "order=sjf") == jobs_csv("easy", "order=sjf")
    lane = jobs_csv(express, "express_s=3600")
    assert lane != jobs_csv("easy") and "withdrawn_at_s" in lane  # short jobs went ahead of long heads


@pytest.mark.slow
def test_step_3_easy_variants(sandbox):
    for line in commands("step 3, easy"):
        assert run_line(line) == 0, line
    assert (sandbox / "results" / "tutorial" / "easy-variants" / "comparison.md").stat().st_size > 0


def test_the_largest_first_example_is_easy_widest_first(tmp_path):
    """Step 2's claim: the same ``_jobs.csv`` as ``easy --option order=large``, reservations in
    force and withdrawn ones included, on the CTC-SP2 excerpt the page runs."""
    common = ["--workload", str(CTC_EXCERPT), "--platform", "338"]
    mine, easy = tmp_path / "mine", tmp_path / "easy"
    assert main(["run", "--scheduler", str(EXAMPLES / "my_largest_first.py"), *common, "--out", str(mine)]) == 0
    assert main(["run", "--scheduler", "easy", "--option", "order=large", *common, "--out", str(easy)]) == 0
    jobs = Path(f"{mine}_jobs.csv").read_text()
    assert jobs == Path(f"{easy}_jobs.csv").read_text() and "withdrawn_at_s" in jobs


def test_the_largest_first_example_fails_check_without_its_withdraw(tmp_path, capsys):
    """Step 2's other claim: recorded as promises, the reservations of heads a wider job went
    ahead of are broken promises."""
    code = (EXAMPLES / "my_largest_first.py").read_text()
    line = "            self.withdraw(self.holder, now)  # a wider job went ahead of it: no longer promised\n"
    assert line in code
    plugin = tmp_path / "my_largest_first.py"
    plugin.write_text(code.replace(line, ""))
    status = main(["check", str(plugin), "--out", str(tmp_path / "check")])
    out = capsys.readouterr().out
    assert status == 1 and "(guarantee)" in out and "after its guarantee" in out, out


def test_a_wrong_option_is_refused_as_the_page_says(sandbox, capsys):
    line = commands("step 1")[0].replace("my_fcfs", "my_depth") + " --option depth=0"
    assert run_line(line) != 0
    assert "scheduler 'my_depth.py': option depth=0: must be in [1, inf]" in capsys.readouterr().err


# -- the page's commands, as typed -----------------------------------------------------------------
@pytest.mark.slow
def test_step_1(sandbox):
    for line in commands("step 1"):
        assert run_line(line) == 0, line
    assert (sandbox / "results" / "tutorial" / "my_fcfs_jobs.csv").stat().st_size > 0


def test_step_4(sandbox):
    for line in commands("step 4"):
        assert run_line(line) == 0, line
    jobs = (sandbox / "results" / "tutorial" / "my_moldable_jobs.csv").read_text()
    assert "molded" in jobs  # some job did run on another size


@pytest.mark.slow
def test_step_5(sandbox):
    for line in commands("step 5"):
        assert run_line(line) == 0, line
    assert len((sandbox / "results" / "tutorial" / "my_whatif_jobs.csv").read_text().splitlines()) == 1 + 300


@pytest.mark.slow
def test_step_7(sandbox, capsys):
    """Step 7's runs, and its claim: less energy than EASY, for a mean wait within a minute of it."""
    for line in commands("step 7"):
        assert run_line(line) == 0, line
    capsys.readouterr()
    results = sandbox / "results" / "tutorial"
    idle_off, easy = (
        compute_metrics(results / f"{name}_jobs.csv")["overall"] for name in ("my_idle_off", "easy_energy")
    )
    assert idle_off["energy_j"] < 0.8 * easy["energy_j"]  # the page: 23 % less
    assert easy["wait_mean_s"] < idle_off["wait_mean_s"] < easy["wait_mean_s"] + 60  # the page: 20 s longer


@pytest.mark.slow
def test_step_6_sweep_on_small_excerpts(sandbox):
    """The page's sweep spec as committed, on the first 150 jobs of each trace."""
    import tomllib

    spec = tomllib.loads((REPO / "examples" / "mine-vs-papers.toml").read_text())
    for workload in spec["workloads"]:  # paths as the spec's folder reads them
        workload["first"] = 150
        workload["trace"] = str((REPO / "examples" / workload["trace"]).resolve())
    for scheduler in spec["schedulers"]:
        if "plugin" in scheduler:
            scheduler["plugin"] = str(REPO / "examples" / scheduler["plugin"])
    (sandbox / "small.toml").write_text(toml_text(spec))
    small = [line.replace("examples/mine-vs-papers.toml", "small.toml") for line in commands("step 6, sweep")]
    for line in small:
        assert run_line(line) == 0, line
    table = (sandbox / "results" / "mine-vs-papers" / "summary" / "table.md").read_text()
    for name in ("my-depth (backfill=fcfs)", "my-depth (backfill=sjf)", "easy", "conservative", "R/L-NG", "scojo-p"):
        assert f"| {name} |" in table, table
    assert "3 seeds" in table


def toml_text(data: dict) -> str:
    """A sweep spec as TOML (tomllib reads only; the spec's shapes are few)."""

    def value(v: object) -> str:
        if isinstance(v, str):
            return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        if isinstance(v, dict):
            return "{ " + ", ".join(f"{k} = {value(x)}" for k, x in v.items()) + " }"
        return repr(v)

    lines = [f"{k} = {value(v)}" for k, v in data.items() if not isinstance(v, (dict, list)) or k == "engines"]
    for key, v in data.items():
        if isinstance(v, list) and v and isinstance(v[0], dict):
            for entry in v:
                lines += [f"[[{key}]]"] + [f"{k} = {value(x)}" for k, x in entry.items()]
        elif isinstance(v, dict):
            lines += [f"[{key}]"] + [f"{k} = {value(x)}" for k, x in v.items()]
    return "\n".join(lines) + "\n"


@pytest.mark.slow
def test_step_6_compare(sandbox):
    for line in commands("step 6, compare"):
        assert run_line(line) == 0, line
    assert (sandbox / "results" / "tutorial" / "explore.html").stat().st_size > 0


@needs_batsim
@pytest.mark.slow
def test_step_6_real_batsim(sandbox, monkeypatch):
    monkeypatch.setenv("BATSIM", BATSIM)
    for line in commands("step 6, real Batsim"):
        assert run_line(line) == 0, line


@pytest.mark.slow
@needs_batsim
def test_step_6_by_hand(tmp_path):
    """The two shells, as typed, from a folder laid out as the checkout (the socket moved into
    it, ``.venv/bin/`` and ``batsim`` the test's own)."""
    for name in ("examples", "workloads", "platforms"):
        (tmp_path / name).symlink_to(REPO / name)
    venv_bin = f"{Path(sys.executable).parent}/"

    def adapt(line: str) -> str:
        line = line.replace("ipc:///tmp/my-depth.sock", f"ipc://{tmp_path}/s.sock").replace(".venv/bin/", venv_bin)
        return re.sub(r"^batsim ", f"{BATSIM} ", line)

    shell1 = [adapt(line) for line in commands("step 6, by hand, shell 1")]
    shell2 = [adapt(line) for line in commands("step 6, by hand, shell 2")]

    def bash(line: str) -> subprocess.CompletedProcess:
        return subprocess.run(["bash", "-c", line], cwd=tmp_path, capture_output=True, text=True, timeout=3600)

    assert bash(shell1[0]).returncode == 0
    with open(tmp_path / "pybatsim.log", "w") as log:
        scheduler = subprocess.Popen(["bash", "-c", shell1[1]], cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT)
    try:
        batsim = bash(shell2[0])
        assert batsim.returncode == 0, batsim.stdout + batsim.stderr
        assert scheduler.wait(timeout=3600) == 0, (tmp_path / "pybatsim.log").read_text()
    finally:
        if scheduler.poll() is None:
            scheduler.kill()
    metrics = bash(shell2[1])
    assert metrics.returncode == 0 and "| jobs | 1,000 |" in metrics.stdout, metrics.stdout + metrics.stderr


def test_the_api_reference_command():
    """The page's inline ``.venv/bin/python -m pydoc adaptsched.api``."""
    assert "`.venv/bin/python -m pydoc adaptsched.api`" in DOC.read_text()
    done = subprocess.run([sys.executable, "-m", "pydoc", "adaptsched.api"], capture_output=True, text=True)
    assert done.returncode == 0 and "ReservationPlanner" in done.stdout and "def plugin" not in done.stderr
