"""The pybatsim plugins: registry, loading by path with stock pybatsim, options."""

import pytest

from adaptsched import schedulers as registry

#: One valid non-default option per scheduler.
SAMPLE_OPTIONS = {
    "fcfs": {"order": "sjf"},
    "easy": {"order": "sjf"},
    "conservative": {"order": "sjf"},
    "backfill": {"order": "R/L"},
    "downey": {"strategy": "PWS"},
    "qops": {"k_factor": 3},
    "dvqops": {"k_factor": 3},
    "scojo-trad": {"aging": "one-class"},
    "scojo-p": {"prediction": False},
    "cirne-berman": {"aging_factor": 4.0},
    "evolving": {"variant": "inf+c"},
}


def test_every_scheduler_has_a_sample():
    assert set(SAMPLE_OPTIONS) == set(registry.SCHEDULERS)


@pytest.mark.parametrize("name", list(registry.SCHEDULERS))
def test_plugins_load_by_path_with_stock_pybatsim(name):
    from batsim.tools.launcher import instanciate_scheduler

    plugin = registry.plugin_path(name)
    scheduler = instanciate_scheduler(str(plugin), SAMPLE_OPTIONS[name])
    assert type(scheduler).__name__ == plugin.stem[0].upper() + plugin.stem[1:]  # pybatsim's rule
    assert scheduler.core_class is registry.core_class(name)
    assert scheduler.core_options.changed() == SAMPLE_OPTIONS[name]


def test_a_scheduler_is_declared_by_its_class_alone():
    """The registry lists classes; each says its name, summary, options and copy kinds; its
    pybatsim entry file is the one generated from it, and no other entry file lies beside them."""
    from adaptsched.core import base

    rules = {base.RUNS_SCALED_PROFILE, base.RUNS_SPEEDUP_MODEL, base.RUNS_STAGE, base.RUNS_NOTHING}
    for name, cls in registry.SCHEDULERS.items():
        assert cls.name == name and cls.summary and issubclass(cls.Options, base.opt.Options)
        assert set(cls.copy_kinds.values()) <= rules, cls
        assert registry.plugin_path(name).read_text() == registry.entry_text(name)
    entries = {p.name for p in registry.plugin_path("easy").parent.glob("*.py")} - {
        "__init__.py",
        "adapter.py",
        "loader.py",
    }
    assert entries == {registry.plugin_path(name).name for name in registry.SCHEDULERS}
    assert registry.copy_kinds()["molded"] == base.RUNS_SPEEDUP_MODEL
    assert registry.copy_kinds()["hold"] == base.RUNS_NOTHING


def test_plugin_options_are_checked_once_by_the_options_class():
    """Under stock pybatsim (whose launcher lets exceptions through) a refused option stops the
    plugin with a one-line message and exit status 1, no traceback."""
    from batsim.tools.launcher import instanciate_scheduler

    with pytest.raises(SystemExit, match="easy: error: no option 'speed'"):
        instanciate_scheduler(str(registry.plugin_path("easy")), {"speed": 3})
    with pytest.raises(SystemExit, match="order='xyz': choose one of fcfs, sjf"):
        instanciate_scheduler(str(registry.plugin_path("easy")), {"order": "xyz"})
