"""Message latency and parallel tasks (docs/network.md): the embedded engine's ``_jobs.csv`` and
``_machine_states.csv`` are byte-identical to real Batsim 4.2.1's on platforms whose messages
take time. Platforms of our own (tests/fixtures/platforms): ``cluster_bb.xml``, two clusters
with backbones joined by a zone route; ``slow_shared.xml``, where kB/s links make Batsim's
simultaneous messages share bandwidth (max-min sharing, limiter, loopback, FATPIPE backbone);
``mixed_speeds.xml`` and ``mixed_speeds_net.xml``, compute hosts of four speeds in one file,
without links and behind them.
Workloads: delay jobs, and every profile the engine models (parallel tasks that compute and
communicate, composed profiles, walltimes that cut them: a parallel task past its walltime keeps
its hosts and links until its job is deleted, as in SimGrid). Batsim's own platforms and
workloads: tests/conformance/test_corpus.py.

Runs only when real Batsim is present (BATSIM), like the rest of tests/conformance/.
"""

import json
import random
import re
import subprocess
from pathlib import Path

import pytest
from helpers import NO_BATSIM, NO_BATSIM_HELP, PLUGINS, assert_same_files, find_batsim
from test_conformance import TORTURE, random_workload

from adaptsched.engines.process import Endpoint, SchedulerProcess
from adaptsched.engines.run import RunSpec, run
from adaptsched.engines.spec import resolve_scheduler
from adaptsched.errors import SimulationError
from adaptsched.platforms.simgrid import write_cluster

BATSIM = find_batsim()
pytestmark = pytest.mark.skipif(BATSIM is None, reason=f"{NO_BATSIM}: {NO_BATSIM_HELP}")

PLATFORMS = Path(__file__).parent.parent / "fixtures" / "platforms"
FILLER = str(PLUGINS / "orderedFillerSched.py")


def both_engines(tmp_path, scheduler, workload, platform, *, stops=False, **kwargs):
    """Runs both engines: both succeed with identical outputs (returns real Batsim's outputs'
    prefix), or, with ``stops``, both stop on the same error (returns None): a CALL_ME_LATER that
    reaches Batsim's server after its date, "awaken in the past", at the same time."""
    prefixes, errors = {}, {}
    for engine in ("batsim", "embedded"):
        prefixes[engine] = tmp_path / engine
        said: list = []
        try:
            spec = RunSpec.make(
                scheduler, workload, platform, prefixes[engine], engine=engine, batsim=BATSIM, progress=False, **kwargs
            )
            run(spec, say=said.append)
        except SimulationError as error:
            errors[engine] = str(error)
        assert not any("warning" in str(s) for s in said), said  # modelled: no warning
    if stops or errors:
        assert stops, f"expected both engines to run, but: {errors}"
        assert set(errors) == {"batsim", "embedded"}, f"expected both engines to stop, but: {errors}"
        when = [re.search(r"you ask: ([0-9.]+), it is: ([0-9.]+)", errors[e]) for e in ("batsim", "embedded")]
        assert all(when) and when[0].groups() == when[1].groups(), errors  # the same request, at the same time
        return None
    assert_same_files(prefixes["batsim"], prefixes["embedded"])
    return prefixes["batsim"]


#: (seed, scheduler, platform) of the one case where both engines stop: conservative asks to be
#: called back at an instant that has passed when its message reaches Batsim's server over the
#: slow links ("awaken in the past", at t = 81.004820 on both).
BOTH_STOP = ("0", "conservative", "slow_shared.xml")
LATENCY_CASES = [
    (seed, scheduler, platform)
    for seed in ("0", "1")
    for scheduler in ("easy", FILLER, "conservative")
    for platform in ("cluster_bb.xml", "slow_shared.xml")
    if (seed, Path(scheduler).stem, platform) != BOTH_STOP
]


def latency_workload(path, seed):
    return random_workload(path, 300 + int(seed), (12, 8)[int(seed)], nb_jobs=50)


@pytest.mark.parametrize("seed,scheduler,platform", LATENCY_CASES, ids=lambda v: Path(v).stem)
def test_delay_jobs_with_message_latency(tmp_path, seed, scheduler, platform):
    prefix = both_engines(tmp_path, scheduler, latency_workload(tmp_path / "w.json", seed), PLATFORMS / platform)
    starts = [line.split(",")[8] for line in Path(f"{prefix}_jobs.csv").read_text().splitlines()[1:]]
    assert any(s and not s.endswith("000000") for s in starts), "no start moved by the messages' latency"


def test_a_call_back_in_the_past_stops_both_engines_alike(tmp_path):
    seed, scheduler, platform = BOTH_STOP
    workload = latency_workload(tmp_path / "w.json", seed)
    assert both_engines(tmp_path, scheduler, workload, PLATFORMS / platform, stops=True) is None


@pytest.mark.parametrize("platform", ["cluster_bb.xml", "slow_shared.xml"])
def test_kills_call_me_later_and_dynamic_jobs_with_message_latency(tmp_path, platform):
    """tortureSched: kills, CALL_ME_LATER, dynamic registrations, decisions in the future."""
    workload = random_workload(tmp_path / "w.json", 400, 8, nb_jobs=30)
    both_engines(
        tmp_path,
        TORTURE,
        workload,
        PLATFORMS / platform,
        options={"dynamic": True},
        dynamic_jobs=True,
        profile_reuse=True,
    )


def profile_workload(path, seed: int, nb_res: int, nb_jobs: int = 40):
    """Every modelled profile type: parallel_homogeneous_total (molded by tortureSched),
    parallel_homogeneous, parallel (full matrices but no host sending to itself: see
    test_self_communication_hangs_real_batsim), composed
    (repeat, delays and parallel tasks), delay; walltimes below some runtimes."""
    rnd = random.Random(seed)
    jobs, profiles = [], {"d1": {"type": "delay", "delay": 1}}
    for i in range(nb_jobs):
        d, res, kind = rnd.randint(1, 6), rnd.randint(1, nb_res), rnd.random()
        if kind < 0.25:
            name = f"pt{i}"
            profiles[name] = {
                "type": "parallel_homogeneous_total",
                "cpu": d * res * 1e9,
                "com": rnd.choice([0, 1e3, 5e3]),
            }
        elif kind < 0.5:
            name = f"ph{i}"
            profiles[name] = {"type": "parallel_homogeneous", "cpu": d * 1e9, "com": rnd.choice([0, 2e3])}
        elif kind < 0.65:
            name = f"pa{i}"
            profiles[name] = {
                "type": "parallel",
                "cpu": [rnd.choice([0, 1e9, 2e9]) for _ in range(res)],
                "com": [0 if k // res == k % res else rnd.choice([0, 0, 1e3]) for k in range(res * res)],
            }
        elif kind < 0.8:
            name, sub, part = f"c{i}", f"cd{i}", f"ph{i}x"
            profiles[sub] = {"type": "delay", "delay": d / 2}
            profiles[part] = {"type": "parallel_homogeneous", "cpu": 1e9, "com": 500}
            profiles[name] = {
                "type": "composed",
                "repeat": rnd.randint(1, 3),
                "seq": [sub, "d1", part][: rnd.randint(2, 3)],
            }
        else:
            name = f"d{d}"
            profiles[name] = {"type": "delay", "delay": d}
        walltime = d + rnd.randint(-3, 6) if rnd.random() < 0.6 else -1
        jobs.append(
            {
                "id": i,
                "subtime": rnd.randint(0, 25),
                "res": res,
                "profile": name,
                "walltime": walltime if walltime == -1 or walltime > 0 else 1,
            }
        )
    path.write_text(json.dumps({"nb_res": nb_res, "jobs": jobs, "profiles": profiles}))
    return path


@pytest.mark.parametrize("platform", ["cluster_bb.xml", "slow_shared.xml"])
@pytest.mark.parametrize("scheduler", ["easy", FILLER], ids=lambda s: Path(s).stem)
@pytest.mark.parametrize("seed", [1, 2])
def test_parallel_tasks_and_composed_profiles_with_message_latency(tmp_path, platform, scheduler, seed):
    workload = profile_workload(tmp_path / "w.json", seed, 8)
    both_engines(tmp_path, scheduler, workload, PLATFORMS / platform)


@pytest.mark.parametrize("platform", ["cluster_bb.xml", "slow_shared.xml"])
def test_killed_and_molded_parallel_tasks_with_message_latency(tmp_path, platform):
    """tortureSched kills parallel tasks and composed jobs (their progress trees reach the
    scheduler) and molds parallel_homogeneous_total jobs to half their hosts."""
    workload = profile_workload(tmp_path / "w.json", 6, 8)
    both_engines(
        tmp_path,
        TORTURE,
        workload,
        PLATFORMS / platform,
        options={"dynamic": True},
        dynamic_jobs=True,
        profile_reuse=True,
    )


@pytest.mark.parametrize("scheduler", ["easy", FILLER], ids=lambda s: Path(s).stem)
@pytest.mark.parametrize("seed", [3, 4])
def test_every_modelled_profile_on_a_platform_without_latency(tmp_path, scheduler, seed):
    """The same profiles on a platform adaptsched generates (the engine's network-less kernel)."""
    workload = profile_workload(tmp_path / "w.json", seed, 8)
    both_engines(tmp_path, scheduler, workload, write_cluster(8, tmp_path / "p.xml"))


def test_self_communication_hangs_real_batsim_and_is_refused(tmp_path):
    """A parallel task sending bytes from a host to itself, on a platform adaptsched generates:
    SimGrid's max-min solver never ends (real Batsim spins forever); the embedded engine refuses
    the run before its first event, saying so."""
    profiles = {"p": {"type": "parallel", "cpu": [2e9, 1e9], "com": [1e3, 0, 1e3, 0]}}
    path = tmp_path / "w.json"
    path.write_text(
        json.dumps({"nb_res": 2, "jobs": [{"id": 1, "subtime": 0, "res": 2, "profile": "p"}], "profiles": profiles})
    )
    platform = write_cluster(2, tmp_path / "p.xml")
    with pytest.raises(SimulationError, match="hangs on this workload too"):
        run(RunSpec.make("easy", path, platform, tmp_path / "e", progress=False), say=lambda *a: None)

    plugin, _ = resolve_scheduler("easy")
    endpoint = Endpoint()
    scheduler = SchedulerProcess(plugin, {}, endpoint, str(tmp_path / "b_sched.log"))
    scheduler.start()
    try:
        command = [BATSIM, "-p", str(platform), "-w", str(path), "-e", str(tmp_path / "b"), "-s", endpoint.url, "-q"]
        with pytest.raises(subprocess.TimeoutExpired):
            subprocess.run(command, timeout=10, capture_output=True)
    finally:
        scheduler.kill()
        scheduler.close()
        endpoint.close()


@pytest.mark.parametrize("platform", ["mixed_speeds.xml", "mixed_speeds_net.xml"])
@pytest.mark.parametrize("scheduler", ["easy", FILLER], ids=lambda s: Path(s).stem)
@pytest.mark.parametrize("seed", [5, 8])
def test_hosts_of_different_speeds_in_one_platform_file(tmp_path, platform, scheduler, seed):
    """Compute hosts at 1, 3, 0.7 and 2.5 Gflop/s in one file, without links (the engine's
    network-less kernel: a parallel task lasts its slowest host's flops / speed) and behind
    links (SimGrid's ptask_L07 model: the least of each host's speed / flops): every modelled
    profile, durations that are not whole seconds."""
    workload = profile_workload(tmp_path / "w.json", seed, 8)
    prefix = both_engines(tmp_path, scheduler, workload, PLATFORMS / platform)
    starts_and_ends = [line.split(",")[8:11] for line in Path(f"{prefix}_jobs.csv").read_text().splitlines()[1:]]
    assert any(e and not e.endswith("000000") for _, _, e in starts_and_ends), "no fractional end: speeds unused"
