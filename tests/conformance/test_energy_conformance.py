"""Conformance of Batsim's energy model (``--energy``, real Batsim's ``-E``): the embedded engine's
energy outputs equal real Batsim 4.2.1's, byte for byte.

Inputs nobody here wrote: Batsim's own energy workloads (``test_energy_minimal_load{0,50,100}.json``:
two 2-host jobs at 0 and 100 s, a delay, a compute-bound task, a task with communication) on its
energy platforms (``energy_platform_homogeneous_no_net_{128,256,512}.xml``, ``cluster_energy_128.xml``
with its network, and ``energy_platform.xml``, whose wattages SimGrid 3.32 refuses), under
``easy``, ``conservative`` and examples/schedulers/my_idle_off.py, which switches idle hosts off
and wakes them for the queue (``idle_s=0``: Batsim's ``energy_bf_idle_sleeper`` test setting).
Then the first 5,000 CTC-SP2 jobs on a 338-host cluster with power states
(``adaptsched platform --power``).

``_consumed_energy.csv``, ``_pstate_changes.csv``, ``_jobs.csv`` and ``_machine_states.csv`` are
byte-identical; ``_schedule.csv`` too but for its wall-clock columns and ``batsim_version``.
Without ``--energy``, a pstate request stops both engines (Batsim's ``test_energy_forgot_cli_flag``).
Batsim's files are read from its source tree ($BATSIM_SRC, else /opt/src/batsim-4.2.1), never
committed here. Runs only with real Batsim and that tree (skipped loudly otherwise): ``-m slow``.
"""

import csv
import subprocess
from pathlib import Path

import pytest
from helpers import (
    CTC_EXCERPT,
    NO_BATSIM,
    NO_BATSIM_HELP,
    NO_BATSIM_TREE,
    NO_BATSIM_TREE_HELP,
    REPO,
    assert_same_files,
    find_batsim,
    find_batsim_tree,
)
from test_corpus import schedule_row

from adaptsched.engines.run import RunSpec, run
from adaptsched.errors import InputError, SimulationError
from adaptsched.platforms.power import PowerSpec
from adaptsched.platforms.simgrid import write_cluster
from adaptsched.workloads.convert import convert_swf, write_workload

BATSIM = find_batsim()
TREE = find_batsim_tree()
IDLE_OFF = str(REPO / "examples" / "schedulers" / "my_idle_off.py")
SCHEDULERS = {"easy": ("easy", {}), "conservative": ("conservative", {}), "idle_off": (IDLE_OFF, {"idle_s": 0.0})}
PLATFORMS = (
    "energy_platform_homogeneous_no_net_128.xml",
    "energy_platform_homogeneous_no_net_256.xml",
    "energy_platform_homogeneous_no_net_512.xml",
    "cluster_energy_128.xml",
)
WORKLOADS = tuple(f"test_energy_minimal_load{load}.json" for load in (0, 50, 100))
ENERGY_FILES = ("_consumed_energy.csv", "_pstate_changes.csv", "_jobs.csv", "_machine_states.csv")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(BATSIM is None, reason=f"{NO_BATSIM}: {NO_BATSIM_HELP}"),
    pytest.mark.skipif(TREE is None, reason=f"{NO_BATSIM_TREE}: {NO_BATSIM_TREE_HELP}"),
]


def specs(folder, scheduler, workload, platform, *, energy=True, idle_s=None):
    name, options = SCHEDULERS[scheduler]
    if idle_s is not None and scheduler == "idle_off":
        options = {"idle_s": idle_s}
    return {
        engine: RunSpec.make(
            name,
            workload,
            platform,
            folder / engine,
            options=options,
            engine=engine,
            batsim=BATSIM,
            progress=False,
            energy=energy,
        )
        for engine in ("batsim", "embedded")
    }


def assert_same_runs(folder, suffixes=ENERGY_FILES):
    assert_same_files(folder / "batsim", folder / "embedded", suffixes)
    assert schedule_row(folder / "batsim") == schedule_row(folder / "embedded")


@pytest.mark.parametrize("scheduler", SCHEDULERS)
@pytest.mark.parametrize("workload", WORKLOADS, ids=lambda w: Path(w).stem[-6:])
@pytest.mark.parametrize("platform", PLATFORMS, ids=lambda p: Path(p).stem)
def test_batsim_energy_corpus(tmp_path, platform, workload, scheduler):
    assert TREE is not None
    spec = specs(tmp_path, scheduler, TREE / "workloads" / workload, TREE / "platforms" / platform)
    said: list[object] = []
    run(spec["batsim"], say=lambda *a: None)
    run(spec["embedded"], say=said.append)
    assert not any("warning" in str(s) for s in said), said
    assert_same_runs(tmp_path)
    energy = Path(f"{tmp_path / 'embedded'}_consumed_energy.csv").read_text().splitlines()
    assert energy[0] == "time,energy,event_type,wattmin,epower" and len(energy) >= 5  # 2 starts, 2 ends
    if scheduler == "idle_off":  # it did switch hosts: the comparison covers sleep states
        assert any(",p," in row for row in energy), energy


def test_invalid_energy_platform_stops_both_engines(tmp_path):
    """energy_platform.xml gives 6 wattages for Earth's 9 pstates: SimGrid stops on it, and so
    does the embedded engine, with the host named."""
    assert TREE is not None and BATSIM is not None
    platform, workload = TREE / "platforms" / "energy_platform.xml", TREE / "workloads" / WORKLOADS[2]
    command = [BATSIM, "-E", "-p", str(platform), "-w", str(workload), "-e", str(tmp_path / "b")]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    with pytest.raises(InputError, match=r"Earth.*wattage_per_state"):
        run(specs(tmp_path, "easy", workload, platform)["embedded"], say=lambda *a: None)


def test_forgotten_energy_flag_stops_both_engines(tmp_path):
    """Batsim's ``test_energy_forgot_cli_flag``: a pstate request without ``-E`` stops the run."""
    assert TREE is not None
    platform, workload = TREE / "platforms" / PLATFORMS[0], TREE / "workloads" / WORKLOADS[0]
    spec = specs(tmp_path, "idle_off", workload, platform, energy=False)
    for engine in ("batsim", "embedded"):
        with pytest.raises(SimulationError) as stopped:
            run(spec[engine], say=lambda *a: None)
        if engine == "embedded":
            assert "--energy" in str(stopped.value)


def test_without_energy_outputs_stay_as_before(tmp_path):
    """No ``--energy``: no energy files, ``consumed_energy`` -1 and ``consumed_joules`` 0 on both
    engines, whatever the platform's wattages."""
    assert TREE is not None
    spec = specs(tmp_path, "easy", TREE / "workloads" / WORKLOADS[2], TREE / "platforms" / PLATFORMS[0], energy=False)
    for engine in ("batsim", "embedded"):
        run(spec[engine], say=lambda *a: None)
        assert not Path(f"{tmp_path / engine}_consumed_energy.csv").exists()
        assert not Path(f"{tmp_path / engine}_pstate_changes.csv").exists()
    assert_same_runs(tmp_path, ("_jobs.csv", "_machine_states.csv"))
    assert schedule_row(tmp_path / "embedded")["consumed_joules"] == "0.000000"
    with open(f"{tmp_path / 'embedded'}_jobs.csv") as handle:
        assert {row["consumed_energy"] for row in csv.DictReader(handle)} == {"-1.000000"}


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_ctc_with_power_states(tmp_path, scheduler):
    """The first 5,000 CTC-SP2 jobs on its 338 hosts with Batsim's energy platforms' watts; the
    idle switch-off plugin with a 10-minute idle time, so that hosts sleep and wake all along."""
    workload, _ = convert_swf(CTC_EXCERPT, hosts=338, first=5000)
    workload_path = write_workload(workload, tmp_path / "ctc.json")
    platform = write_cluster(338, tmp_path / "p338.xml", power=PowerSpec())
    spec = specs(tmp_path, scheduler, workload_path, platform, idle_s=600.0)
    run(spec["batsim"], say=lambda *a: None)
    run(spec["embedded"], say=lambda *a: None)
    assert_same_runs(tmp_path)
