"""Moldable annotations (workloads/moldable.py, adaptsched mold-annotate)."""

import json

import pytest
from helpers import CTC_EXCERPT
from test_cli import assert_clean_error, cli

from adaptsched.workloads.convert import convert_swf, write_workload
from adaptsched.workloads.moldable import annotate, model_of


@pytest.fixture(scope="module")
def ctc():
    workload, _ = convert_swf(CTC_EXCERPT, hosts=338, first=400)
    return workload


@pytest.mark.parametrize("model", ["downey", "linear", "scojo-p"])
def test_models_reproduce_the_trace_runtime_at_the_requested_size(ctc, model):
    out, summary = annotate(ctc, model=model, seed=3)
    assert summary["moldable"] == len(out["jobs"]) == 400
    for job in out["jobs"]:
        shape = model_of(job, 338)
        runtime = ctc["profiles"][job["profile"]]["delay"]
        assert shape.runtime(job["res"]) == pytest.approx(runtime, rel=1e-12, abs=1e-6)
        assert 1 <= job["min_res"] <= job["res"] <= job["max_res"] <= 338
    assert ctc["jobs"][0].get("moldable") is None  # the input is not modified


@pytest.mark.parametrize("model", ["downey", "scojo-p"])
def test_the_sizes_are_the_models_own(ctc, model):
    """min_res and max_res come from the job's own model: SCOJO-P's N_min and N_max, Downey's
    1 and the smallest size reaching S = A (workloads/moldable.py once held a ScojoP in a
    variable typed Downey: the types now say what each branch builds)."""
    from adaptsched.core.speedup import Downey, ScojoP

    out, _ = annotate(ctc, model=model, seed=5)
    for job in out["jobs"]:
        shape = model_of(job, 338)
        if model == "scojo-p":
            assert isinstance(shape, ScojoP)
            assert (job["min_res"], job["max_res"]) == (shape.n_min, max(shape.n_max, job["res"]))
        else:
            assert isinstance(shape, Downey)
            assert (job["min_res"], job["max_res"]) == (1, max(min(338, shape.n_max_useful), job["res"]))


def test_fraction_and_seed(ctc):
    a, sa = annotate(ctc, fraction=0.5, seed=1)
    b, _ = annotate(ctc, fraction=0.5, seed=1)
    assert a == b and 150 < sa["moldable"] < 250
    assert annotate(ctc, fraction=0.5, seed=2)[0] != a
    downey = [j["moldable"] for j in a["jobs"] if "moldable" in j]
    assert all(1 <= m["A"] <= 338 and 0 <= m["sigma"] <= 2 for m in downey)


def test_cli_writes_a_workload_that_runs(tmp_path, ctc):
    src = write_workload(ctc, tmp_path / "ctc.json")
    code, out, err = cli("mold-annotate", src, tmp_path / "mold.json", "--fraction", 0.8, "--seed", 4)
    assert code == 0, err
    assert "of 400 jobs moldable" in out
    jobs = json.loads((tmp_path / "mold.json").read_text())["jobs"]
    assert sum("moldable" in j for j in jobs) > 250
    code, out, err = cli(
        "run",
        "--scheduler",
        "easy",
        "--workload",
        tmp_path / "mold.json",
        "--platform",
        338,
        "--out",
        tmp_path / "easy",
    )
    assert code == 0, err  # the extra fields are carried through


def test_cli_errors(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(
        '{"nb_res": 4, "jobs": [{"id": 1, "subtime": 0, "res": -1, "profile": "p"}], '
        '"profiles": {"p": {"type": "delay", "delay": 1}}}'
    )
    assert_clean_error(*cli("mold-annotate", bad, tmp_path / "o.json")[::2], "bad.json")
    assert_clean_error(*cli("mold-annotate", tmp_path / "none.json", tmp_path / "o.json")[::2], "none.json")
