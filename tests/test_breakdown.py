"""benchmarks/breakdown.py: the verdict on the engine's share and what it leaves the simulation, and a timed run
that leaves the same garbage as an untimed one (its clocks must not move work between parts)."""

import gc
import weakref

from helpers import REPO, load_benchmark

import adaptsched.engines.run as run_module
import adaptsched.engines.transports.inprocess as inprocess

breakdown = load_benchmark("breakdown")


def test_the_share_says_how_long_the_simulation_may_take():
    # engine + pybatsim = 3 of 12 s: 25 %, not under it. (E + P) <= total / 4 holds for
    # E <= (L + S) / 3 - P = 3 - 1 = 2 s, of which 0.5 s come after the last message: 1.5 s
    parts = {"loading": 1.0, "engine": 2.0, "pybatsim": 1.0, "scheduler": 8.0}
    text = breakdown.engine_share(parts, after=0.5, n=1000)
    assert "engine + pybatsim 25 % of the run" in text and "NOT met (under 25 %)" in text
    assert "the simulation may take at most 1.50 s (1500.0 us per message)" in text
    assert "it took 1.50 s" in text


def test_the_share_says_when_no_simulation_can_meet_it():
    # (L + S) / 3 - P - A = 5 / 3 - 2 - 2 < 0: a simulation of no time leaves (2 + 2) / 9 = 44 %
    parts = {"loading": 1.0, "engine": 3.0, "pybatsim": 2.0, "scheduler": 4.0}
    text = breakdown.engine_share(parts, after=2.0, n=10)
    assert "even a simulation that took no time would leave engine + pybatsim at 44 %" in text


class _NoCollections:
    def maybe(self) -> bool:
        return False


def test_the_timed_plugin_is_freed_by_reference_counting(tmp_path, monkeypatch, capsys):
    """The handlers' clocks are bound methods in the plugin's own ``__dict__``: left there, they
    make the plugin and all it holds (pybatsim's jobs) cyclic garbage, which the collection after
    the run then pays for inside the "engine" part (about 1 s on CTC's year)."""
    plugins = []
    load = inprocess.load_scheduler

    def recording(scheduler, options):
        obj = load(scheduler, options)
        plugins.append(weakref.ref(obj))
        return obj

    monkeypatch.setattr(inprocess, "load_scheduler", recording)
    monkeypatch.setattr(run_module, "COLLECTIONS", _NoCollections())
    trace = REPO / "tests" / "fixtures" / "swf" / "good.swf"
    enabled = gc.isenabled()
    gc.disable()
    try:
        assert breakdown.main(["--trace", str(trace), "--hosts", "16", "--out", str(tmp_path)]) == 0
        assert len(plugins) == 1
        assert plugins[0]() is None, "the timed plugin outlived its run: a reference cycle"
    finally:
        if enabled:
            gc.enable()
    out = capsys.readouterr().out
    assert "| - simulation |" in out and "| - after the last message |" in out
    assert "The aim for the engine's share: engine + pybatsim" in out
