"""Message latency (docs/network.md): the embedded engine's ``_jobs.csv`` and
``_machine_states.csv`` are byte-identical to real Batsim 4.2.1's on platforms whose messages
take time. Platforms of our own (tests/fixtures/platforms): ``cluster_bb.xml``, two clusters
with backbones joined by a zone route; ``slow_shared.xml``, where kB/s links make Batsim's
simultaneous messages share bandwidth (max-min sharing, limiter, loopback, FATPIPE backbone).
Batsim's own platforms and workloads: tests/conformance/test_corpus.py.

Runs only when real Batsim is present (BATSIM), like the rest of tests/conformance/.
"""

import re
from pathlib import Path

import pytest
from helpers import NO_BATSIM, NO_BATSIM_HELP, PLUGINS, assert_same_files, find_batsim
from test_conformance import TORTURE, random_workload

from adaptsched.engines.run import run
from adaptsched.errors import SimulationError

BATSIM = find_batsim()
pytestmark = pytest.mark.skipif(BATSIM is None, reason=f"{NO_BATSIM}: {NO_BATSIM_HELP}")

PLATFORMS = Path(__file__).parent.parent / "fixtures" / "platforms"
FILLER = str(PLUGINS / "orderedFillerSched.py")


def both_engines(tmp_path, scheduler, workload, platform, **kwargs):
    """Runs both engines; both succeed with identical outputs, or both stop on the same error
    (a CALL_ME_LATER that reaches Batsim's server after its date: "awaken in the past")."""
    prefixes, errors = {}, {}
    for engine in ("batsim", "embedded"):
        prefixes[engine] = tmp_path / engine
        said: list = []
        try:
            run(
                scheduler,
                workload,
                platform,
                prefixes[engine],
                engine=engine,
                batsim=BATSIM,
                progress=False,
                say=said.append,
                **kwargs,
            )
        except SimulationError as error:
            errors[engine] = str(error)
        assert not any("warning" in str(s) for s in said), said  # modelled: no warning
    if errors:
        assert set(errors) == {"batsim", "embedded"}, errors
        when = [re.search(r"you ask: ([0-9.]+), it is: ([0-9.]+)", errors[e]) for e in ("batsim", "embedded")]
        assert all(when) and when[0].groups() == when[1].groups(), errors  # the same request, at the same time
        return None
    assert_same_files(prefixes["batsim"], prefixes["embedded"])
    return prefixes["batsim"]


@pytest.mark.parametrize("platform", ["cluster_bb.xml", "slow_shared.xml"])
@pytest.mark.parametrize("scheduler", ["easy", FILLER, "conservative"], ids=lambda s: Path(s).stem)
@pytest.mark.parametrize("seed", [0, 1])
def test_delay_jobs_with_message_latency(tmp_path, platform, scheduler, seed):
    nb_res = (12, 8)[seed]
    workload = random_workload(tmp_path / "w.json", 300 + seed, nb_res, nb_jobs=50)
    prefix = both_engines(tmp_path, scheduler, workload, PLATFORMS / platform)
    if prefix is None:
        return  # both stopped on the same error
    starts = [line.split(",")[8] for line in Path(f"{prefix}_jobs.csv").read_text().splitlines()[1:]]
    assert any(s and not s.endswith("000000") for s in starts), "no start moved by the messages' latency"


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
