"""A sweep under chaos (benchmarks/chaos.py): 60 runs on a loopback cluster of 3 workers, a
random worker killed every 5 s and a new one started, 5 times, and one run that kills its
worker (tests/plugins/killerSched.py).

Expected: the 59 other runs done, each ``_jobs.csv`` byte-identical to a clean LocalCluster
sweep's, exactly the killer failed, with its log, after killing two workers; the sweep says
which workers were lost and counts them. All along, no process of ours (scheduler, workers,
their nannies, the sweep, the clean sweep's LocalCluster) listens on anything but loopback,
from the OS's socket table.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from listening import Watch, exposed

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))

from chaos import chaos  # noqa: E402


@pytest.mark.slow
def test_sweep_survives_workers_killed_all_along_and_a_run_that_kills_its_worker(tmp_path):
    with Watch(period_s=0.2) as watch:
        report = chaos(tmp_path, runs=60, workers=3, kills=5, period_s=5.0)
    (tmp_path / "report.json").write_text(json.dumps(report, indent=1))  # kept by pytest, for a look afterwards
    under, clean, compare = report["under_chaos"], report["clean"], report["compare"]
    log = under["log"]
    assert len(under["killed"]) == 5, ("the sweep ended before 5 workers were killed", under["killed"], log)
    killers = [name for name in compare["clean"] if name.startswith("killer-")]
    assert len(killers) == 1
    [killer] = killers
    # the clean sweep: the killer fails there too, the rest is the reference
    assert sorted(n for n, s in compare["clean"].items() if s != "done") == [killer], clean["log"]
    # under chaos: exactly the killer failed, the 59 others byte-identical to the clean sweep
    assert sorted(n for n, s in compare["chaos"].items() if s != "done") == [killer], log
    assert compare["identical"] == 59 and not compare["differ"], compare["differ"]
    assert under["exit"] == 1 and "1 of 60 runs failed" in log
    assert f"{killer}: killed its worker twice (tcp://127.0.0.1:" in log, log
    assert "killerSched: killing my worker" in log  # its log, from the host it died on
    assert (tmp_path / "chaos" / "runs" / f"{killer}_sched.log").is_file()
    [summary] = [line for line in log.splitlines() if line.startswith("sweep: ")]
    assert "60 runs: 59 done, 1 failed, 0 skipped" in summary
    lost, joined, resubmitted = map(
        int, re.search(r"(\d+) workers? lost, (\d+) joined, (\d+) runs? resubmit", summary).groups()
    )
    assert lost >= 7 and joined >= 5 and resubmitted >= 1, summary  # 5 killed here, 2 by the killer
    assert len(re.findall(r"^worker tcp://127\.0\.0\.1:\d+ lost; \d+ runs? resubmitted", log, re.M)) == lost
    # loopback only, all along: every listening socket of every process started here
    assert watch.seen and watch.looks > 20
    assert not exposed(watch.seen), exposed(watch.seen)


@pytest.mark.slow
def test_a_run_whose_workers_are_killed_twice_under_it_is_resubmitted_not_failed(tmp_path):
    """The innocent's side of the killer's rule: one long run, its worker killed from outside
    (nanny and all) twice while it runs. Dask fails it (``KilledWorker``: two workers died
    under it), but neither died alone, so the sweep submits it again and it is done."""
    import time

    from chaos import EXCERPT, Loopback, _start, stop

    spec = tmp_path / "spec.toml"
    spec.write_text(f'platforms = [64]\n[[schedulers]]\nname = "easy"\n[[workloads]]\ntrace = "{EXCERPT}"\n')
    cluster = Loopback(tmp_path / "cluster")
    try:
        cluster.start_scheduler()
        worker = cluster.start_worker()
        command = [str(Path(sys.executable).parent / "adaptsched"), "sweep", str(spec), "--out", str(tmp_path / "out")]
        sweep = _start(command + ["--scheduler-file", str(cluster.scheduler_file), "--progress", "off"], tmp_path / "c")
        cluster.processes.append(sweep)
        for _kill in range(2):
            scratch = tmp_path / "cluster" / f"worker{cluster.started}" / "dask"
            for _ in range(3000):  # hang guard only: the run's scratch folder appears when it starts
                if list(scratch.glob("**/adaptsched-runs/*/*")):
                    break
                assert sweep.poll() is None, (tmp_path / "c" / "log.txt").read_text()
                time.sleep(0.1)
            time.sleep(1.0)
            stop(worker)  # nanny and worker: lost whole, as a node or a batch job is
            cluster.workers.remove(worker)
            worker = cluster.start_worker()
        assert sweep.wait(timeout=600) == 0, (tmp_path / "c" / "log.txt").read_text()
    finally:
        cluster.close()
    log = (tmp_path / "c" / "log.txt").read_text()
    assert "1 runs: 1 done, 0 failed, 0 skipped" in log, log
    assert "failed by Dask for lost workers it did not kill; submitted again" in log, log
    assert re.search(r"2 workers lost, \d+ joined, 2 runs resubmitted", log), log
