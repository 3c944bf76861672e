"""Downey's allocation strategies (core/allocation.py): hand-worked sizes and start rules,
and molded jobs' folded rows matching the speedup model through the embedded engine."""

import pytest
from test_downey_workload import paper_speedup

from adaptsched.core.allocation import DowneyAllocation, ideal_size, pws_size
from adaptsched.core.base import Job
from adaptsched.core.replay import replay
from adaptsched.core.speedup import Downey


def moldable(job_id, submit_s, A, sigma, t1_s, res=None):
    res = res or max(1, round(A))
    return Job(job_id, submit_s, res, -1, {"moldable": {"model": "downey", "A": A, "sigma": sigma, "t1_s": t1_s}})


def test_ideal_sizes_by_hand():
    low, one, high = Downey(10, 0.5), Downey(10, 1.0), Downey(10, 2.0)
    assert [ideal_size(s, low, 64) for s in ("AVG", "3/2AVG", "MAX", "PWS")] == [10, 15, 19, 10]
    assert ideal_size("PWS", one, 64) == 19  # sigma(A - 1/2) / (1 - sigma/2) = 2A - 1
    assert ideal_size("PWS", high, 64) == 14 and ideal_size("MAX", high, 64) == 28  # (A sigma + A - sigma) / sigma
    assert ideal_size("MAX", Downey(10, 0.0), 64) == 10
    assert ideal_size("MAX", high, 16) == 16  # never beyond the machine
    # SEV at rho = 0.75: A - (A - 1) rho sigma / 2
    assert ideal_size("SEV", high, 64, load=0.75) == 3  # 10 - 9 x 0.75 = 3.25
    assert ideal_size("SEV", Downey(10, 0.0), 64, load=0.75) == 10
    assert ideal_size("SSEV", high, 64, load=0.75) == 7  # sigma taken as 1: 6.625
    assert ideal_size("SEV", high, 64, load=0.0) == 10
    # sigma beyond sigma_max (2) counts as sigma_max: at rho = 0.4, 10 - 9 x 0.4 x 2 / 2 = 6.4, where
    # sigma = 3 taken as it is would give 10 - 9 x 0.4 x 3 / 2 = 4.6; at rho = 1.5, never below 1
    assert ideal_size("SEV", Downey(10, 3.0), 64, load=0.4) == 6
    assert ideal_size("SEV", Downey(10, 3.0), 64, load=1.5) == 1


@pytest.mark.parametrize("A,sigma", [(64, 0.3), (64, 0.8), (64, 1.5), (20, 2.0), (7.5, 0.9)])
def test_pws_matches_the_papers_closed_form(A, sigma):
    if sigma <= 1:
        closed = A if sigma <= 2 * A / (3 * A - 1) else sigma * (A - 0.5) / (1 - sigma / 2)
    else:
        closed = (A * sigma + A - sigma) / sigma
    assert abs(pws_size(Downey(A, sigma), 10**4) - closed) <= 1


def run(jobs, nb_hosts, **options):
    """Replays jobs whose true runtime at their request is their model's."""

    def runtime(job):
        m = job.fields["moldable"]
        return Downey(m["A"], m["sigma"], m["t1_s"]).runtime(job.res)

    return replay(DowneyAllocation(nb_hosts, **options), [(j, runtime(j)) for j in jobs])


def test_stubborn_greedy_and_hybrid():
    # a sigma-0 job of A = 10 holds 10 of 16 hosts for 100 s; the next (ideal 10) finds 6 free
    def jobs():
        return [moldable("a", 0, 10, 0.0, 1000), moldable("b", 1, 10, 0.0, 1000), moldable("c", 2, 2, 0.0, 20)]

    stubborn = run(jobs(), 16, mode="stubborn")
    assert stubborn["b"].start_s == 100 and stubborn["c"].start_s == 100  # FIFO: c waits behind b
    greedy = run(jobs(), 16, mode="greedy")
    assert greedy["b"].start_s == 1 and len(greedy["b"].hosts) == 6
    assert greedy["b"].end_s == pytest.approx(1 + 1000 / 6)  # t1 / S(6), S(n) = min(n, A)
    assert greedy["c"].start_s == 100  # nothing was left for c before a ended
    assert run(jobs(), 16, mode="hybrid", min_fraction=0.7)["b"].start_s == 100  # needs 7
    assert run(jobs(), 16, mode="hybrid", min_fraction=0.5)["b"].start_s == 1


def test_asp_divides_the_free_processors_among_the_queue():
    blocker = moldable("x", 0, 8, 0.0, 800)  # 8 of 16 hosts for 100 s
    queued = [moldable(f"q{i}", 1, 8, 0.0, 800) for i in range(3)]
    out = run([blocker, *queued], 16, strategy="ASP")
    # at t=1: 8 free, 3 queued: 2 each (capped at MAX = 8), two left idle
    assert [len(out[f"q{i}"].hosts) for i in range(3)] == [2, 2, 2]
    assert all(out[f"q{i}"].start_s == 1 for i in range(3))


def test_molded_copy_replaces_the_original_with_the_model_runtime():
    blocker = moldable("x", 0, 12, 0.0, 1200)  # 12 of 16 hosts for 100 s
    out = run([blocker, moldable("a", 1, 10, 0.5, 1000, res=10)], 16)  # greedy AVG: 4 hosts
    assert out["a"].rejected and len(out["a"].hosts) == 4 and out["a"].start_s == 1
    # Downey's eq. (1), A = 10, sigma = 0.5: S(4) = 40 / (10 + 0.5 x 3 / 2) = 40 / 10.75, so
    # 1,000 / S(4) = 268.75 s; S(10) = 100 / (10 + 0.5 x 9 / 2) = 100 / 12.25; scale S(10) / S(4) = 1075 / 490
    assert out["a"].end_s - out["a"].start_s == pytest.approx(268.75)
    assert out["a"].scale == pytest.approx(1075 / 490)


def test_bad_options():
    for bad in ({"strategy": "BEST"}, {"mode": "lazy"}, {"min_fraction": 2.0}):
        with pytest.raises(ValueError):
            DowneyAllocation(8, **bad)


def check_molded_rows(prefix, workload):
    """Every folded job ran for exactly t1 / S(its allocated size); returns the molded count."""
    from adaptsched.analysis import load_jobs
    from adaptsched.formats.intervals import alloc_stats

    jobs = load_jobs(prefix).set_index("job_id")
    specs = {j["id"]: j["moldable"] for j in workload["jobs"]}
    sizes = alloc_stats(jobs["allocated_resources"].to_numpy())[0]
    assert len(jobs) == len(specs) and (jobs["final_state"] == "COMPLETED_SUCCESSFULLY").all()
    for (job_id, row), n in zip(jobs.iterrows(), sizes):
        m = specs[job_id]
        expected = m["t1_s"] / paper_speedup(int(n), m["A"], m["sigma"])  # eq. (1)-(2), written out in the test

        assert row["execution_time"] == pytest.approx(expected, rel=1e-9, abs=2e-6), job_id
        assert row["starting_time"] >= row["submission_time"]
    return int((jobs["scale"] != 1.0).sum())


@pytest.mark.parametrize("strategy,mode", [("SEV", "greedy"), ("PWS", "stubborn"), ("ASP", "greedy")])
def test_molded_rows_match_the_model_through_the_embedded_engine(tmp_path, strategy, mode):
    from adaptsched.engines.run import RunSpec
    from adaptsched.engines.run import run as simulate
    from adaptsched.workloads.convert import write_workload
    from adaptsched.workloads.downey import generate

    workload = generate(2, 0.75, seed=7)
    path = write_workload(workload, tmp_path / "downey.json")
    simulate(
        RunSpec.make(
            "downey", path, 64, tmp_path / "run", options={"strategy": strategy, "mode": mode}, progress=False
        ),
        say=lambda *a: None,
    )
    assert check_molded_rows(tmp_path / "run", workload) > 20


def test_downey_metrics_by_hand(tmp_path):
    from test_analysis import row, write_run

    from adaptsched.analysis.downey import downey_metrics

    # N = 4. Job 1: A 2, sigma 0, t1 200, on 2 hosts for 100 s from 0 (R(4) = 100, slowdown 1).
    # Job 2: A 4, t1 400, molded onto 2 hosts from 10 for 200 s (R(4) = 100, slowdown 2).
    path = write_run(
        tmp_path,
        "d",
        [
            row(1, 0, 2, "COMPLETED_SUCCESSFULLY", 0, 100, "0-1"),
            row(2, 10, 4, "REJECTED"),
            row(
                "2#1",
                10,
                2,
                "COMPLETED_SUCCESSFULLY",
                10,
                200,
                "2-3",
                meta="{'parent_job': 'w0!2', 'kind': 'molded', 'scale': 2.0}",
            ),
        ],
    )
    workload = {
        "nb_res": 4,
        "jobs": [
            {"id": "1", "moldable": {"model": "downey", "A": 2, "sigma": 0, "t1_s": 200}},
            {"id": "2", "moldable": {"model": "downey", "A": 4, "sigma": 0, "t1_s": 400}},
        ],
    }
    m = downey_metrics(path, workload)
    window = 4 * 43200  # day 0 is measured over its 12-hour arrival phase
    assert m["jobs"] == 2 and m["load"] == pytest.approx(600 / window)
    assert m["utilization"] == pytest.approx(600 / window)  # efficiency 1: n <= A, sigma 0
    assert (m["turnaround_s"], m["queue_s"], m["cluster_size"], m["cluster_cv"]) == (150, 0, 2, 0)
    assert m["slowdown_p90"] == pytest.approx(1.9)


def linear_ptotal_workload(nb_jobs=30, seed=2):
    """Linear-speedup jobs whose parallel_homogeneous_total profiles Batsim molds natively."""
    import random

    rnd = random.Random(seed)
    jobs, profiles = [], {}
    for i in range(nb_jobs):
        t1 = float(rnd.randint(10, 400))
        profiles[f"p{i}"] = {"type": "parallel_homogeneous_total", "cpu": t1 * 1e9, "com": 0}
        jobs.append(
            {
                "id": str(i + 1),
                "subtime": float(rnd.randint(0, 300)),
                "res": rnd.randint(1, 8),
                "profile": f"p{i}",
                "moldable": {"model": "linear", "t1_s": t1},
                "min_res": 1,
                "max_res": rnd.randint(1, 16),
            }
        )
    return {"nb_res": 16, "jobs": jobs, "profiles": profiles}


def check_native_rows(prefix, workload):
    import csv

    from adaptsched.formats.intervals import alloc_stats

    rows = {r["job_id"]: r for r in csv.DictReader(open(f"{prefix}_jobs.csv"))}
    t1 = {j["id"]: j["moldable"]["t1_s"] for j in workload["jobs"]}
    molded = 0
    for job_id, r in rows.items():
        assert "#" not in job_id and r["final_state"] == "COMPLETED_SUCCESSFULLY"
        n = int(alloc_stats([r["allocated_resources"]])[0][0])
        assert float(r["execution_time"]) == pytest.approx(t1[job_id] / n, abs=2e-6)
        molded += n != int(r["requested_number_of_resources"])
    return molded


def test_linear_jobs_with_total_profiles_are_molded_natively(tmp_path):
    from adaptsched.analysis.invariants import check_invariants
    from adaptsched.analysis.jobs import read_jobs_csv
    from adaptsched.engines.run import RunSpec
    from adaptsched.engines.run import run as simulate
    from adaptsched.workloads.convert import write_workload

    workload = linear_ptotal_workload()
    path = write_workload(workload, tmp_path / "lin.json")
    simulate(RunSpec.make("downey", path, 16, tmp_path / "run", progress=False), say=lambda *a: None)
    assert check_native_rows(tmp_path / "run", workload) > 10
    assert check_invariants(read_jobs_csv(tmp_path / "run_jobs.csv"), 16) == []
