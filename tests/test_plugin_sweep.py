"""A scheduler file of one's own in a sweep: ``{ plugin = "mine.py", options = {...} }`` beside named
schedulers, its options checked by its own class, its file shipped to the workers by content
(the run works where the path does not exist)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import CTC_EXCERPT, REPO

from adaptsched.errors import InputError
from adaptsched.sweep.spec import parse_spec

DEPTH = REPO / "examples" / "schedulers" / "my_depth.py"


def spec_data(plugin: str, options: dict | None = None) -> dict:
    return {
        "platforms": [64],
        "schedulers": [{"name": "easy"}, {"plugin": plugin, "options": options or {"depth": [1, 3]}}],
        "workloads": [{"trace": str(CTC_EXCERPT), "first": 60, "label": "CTC"}],
    }


def test_a_plugin_entry_is_checked_by_its_own_options(tmp_path):
    shutil.copy(DEPTH, tmp_path / "mine.py")
    spec = parse_spec(spec_data("mine.py"), tmp_path / "s.toml")
    assert [p.scheduler for p in spec.points][1:] == [str(tmp_path / "mine.py")] * 2
    assert [p.options for p in spec.points][1:] == [{"depth": 1}, {"depth": 3}]
    with pytest.raises(InputError, match=r"schedulers\[2\].options.depth.*must be in \[1, inf\]"):
        parse_spec(spec_data("mine.py", {"depth": [0]}), tmp_path / "s.toml")
    with pytest.raises(InputError, match=r"schedulers\[2\].options.deep.*its options are backfill, depth"):
        parse_spec(spec_data("mine.py", {"deep": [1]}), tmp_path / "s.toml")
    with pytest.raises(InputError, match=r"schedulers\[2\].plugin.*no such file"):
        parse_spec(spec_data("nowhere.py"), tmp_path / "s.toml")
    both = spec_data("mine.py")
    both["schedulers"][1]["name"] = "easy"
    with pytest.raises(InputError, match=r"schedulers\[2\].*exactly one of name"):
        parse_spec(both, tmp_path / "s.toml")


def test_a_moldable_workload_key(tmp_path):
    data = spec_data(str(DEPTH))
    data["workloads"][0]["moldable"] = "scojo-q"
    with pytest.raises(InputError, match=r"workloads\[1\].moldable.*scojo-p"):
        parse_spec(data, tmp_path / "s.toml")
    data["workloads"][0]["moldable"] = "scojo-p"
    spec = parse_spec(data, tmp_path / "s.toml")
    import json

    from adaptsched.sweep.spec import make_workload

    workload = json.loads(make_workload(spec.points[0].workload, 64, tmp_path).read_text())
    assert all(job["moldable"]["model"] == "scojo-p" for job in workload["jobs"])


def test_the_plugin_travels_to_the_workers_by_content(tmp_path):
    """Planned, then the file removed: the runs still run (the workers write it from the run's
    spec) and each is the run the file gives directly."""
    from distributed import Client, LocalCluster

    from adaptsched.engines.run import run
    from adaptsched.engines.run.spec import RunSpec
    from adaptsched.sweep.plan import analysis_of, plan_runs
    from adaptsched.sweep.run import run_grid

    mine = tmp_path / "mine.py"
    shutil.copy(DEPTH, mine)
    spec = parse_spec(spec_data("mine.py"), tmp_path / "s.toml")
    runs = plan_runs(spec, tmp_path / "out")
    direct = {}
    for planned in runs:
        if planned.spec.plugin_sha256 is not None:  # the same run, straight from the file
            prefix = tmp_path / "direct" / planned.name
            spec_ = RunSpec.make(str(mine), planned.spec.workload, 64, prefix, options=planned.spec.options)
            direct[planned.name] = run(spec_, say=lambda *a: None)
    mine.rename(tmp_path / "elsewhere.py")  # the path no longer exists
    loopback = {"dashboard_address": "127.0.0.1:0", "worker_dashboard_address": "127.0.0.1:0"}
    with LocalCluster(n_workers=1, processes=True, threads_per_worker=1, **loopback) as cluster:
        with Client(cluster, set_as_default=False) as client:
            grid = run_grid(
                runs,
                tmp_path / "out" / "runs",
                client=client,
                analyse=analysis_of(spec),
                progress=False,
                say=lambda *a: None,
            )
    assert grid.done == 3 and not grid.failed, grid.failed
    assert {r["params"]["scheduler"] for r in grid.results.values()} == {"easy", "mine.py"}
    for name in direct:
        swept = (tmp_path / "out" / "runs" / f"{name}_jobs.csv").read_text()
        assert swept == Path(f"{tmp_path / 'direct' / name}_jobs.csv").read_text(), name


def test_a_workload_may_bring_its_own_platforms(tmp_path):
    """Two traces from machines of different sizes in one sweep: each on its own machine."""
    data = spec_data(str(DEPTH), {"depth": 2})
    data["workloads"].append({"trace": str(CTC_EXCERPT), "first": 30, "label": "small", "platforms": [16, 32]})
    spec = parse_spec(data, tmp_path / "s.toml")
    hosts = {(p.workload.label, p.platform.hosts) for p in spec.points}
    assert hosts == {("CTC", 64), ("small", 16), ("small", 32)}
    del data["platforms"]
    with pytest.raises(InputError, match=r"platforms.*missing"):
        parse_spec(data, tmp_path / "s.toml")
    data["workloads"][0]["platforms"] = [0]
    with pytest.raises(InputError, match=r"workloads\[1\].platforms\[1\].*at least one host"):
        parse_spec(data, tmp_path / "s.toml")
