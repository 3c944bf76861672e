"""The pybatsim plugins: registry, loading by path with stock pybatsim, options, allocations."""

import random

import pytest
from procset import ProcSet

from adaptsched import schedulers as registry
from adaptsched.formats.intervals import interval_text, procset, runs
from adaptsched.schedulers.adapter import parse_options


def test_allocations_equal_procset_built_the_slow_way():
    rnd = random.Random(3)
    for _ in range(2000):
        ids = sorted(rnd.sample(range(60), rnd.randint(1, 60)))
        fast, slow = procset(ids), ProcSet(*ids)
        assert fast == slow and list(fast) == list(slow) and len(fast) == len(slow)
        assert str(fast) == str(slow) == format(slow) == interval_text(ids)
    assert runs([0, 1, 2, 3, 7, 9, 10]) == [(0, 3), (7, 7), (9, 10)]


@pytest.mark.parametrize("name", list(registry.SCHEDULERS))
def test_plugins_load_by_path_with_stock_pybatsim(name):
    from batsim.tools.launcher import instanciate_scheduler

    plugin = registry.plugin_path(name)
    options = (
        {"order": "sjf"}
        if "order" in registry.core_class(name).options
        else {"strategy": "PWS"}
        if name == "downey"
        else {"k_factor": 3}
    )
    scheduler = instanciate_scheduler(str(plugin), options)
    assert type(scheduler).__name__ == plugin.stem.capitalize()
    assert scheduler.core_class is registry.core_class(name)


def test_options_are_checked():
    core = registry.core_class("easy")
    assert parse_options(core, {"order": "sjf"}) == {"order": "sjf"}
    with pytest.raises(ValueError, match="has no option 'speed'"):
        parse_options(core, {"speed": 3})
