"""Scheduler options (adaptsched.core.options): declared once, checked once, before any run."""

import pytest

from adaptsched import schedulers as registry
from adaptsched.core.backfill import Backfill, BackfillOptions
from adaptsched.core.dvqops import Dvqops
from adaptsched.core.options import OptionError
from adaptsched.engines.run.spec import PluginOptions, SchedulerOptionError, parse_options
from adaptsched.errors import AdaptschedError


def test_text_values_are_typed_from_the_defaults():
    o = BackfillOptions.parse({"order": "R/L", "guarantees": "false", "seed": "7", "speculation": "50"})
    assert (o.order, o.guarantees, o.seed, o.speculation) == ("R/L", False, 7, 50.0)
    assert o.changed() == {"order": "R/L", "guarantees": False, "seed": 7, "speculation": 50.0}
    assert o.needs_dynamic_jobs()


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"order": "xyz"}, "order='xyz': choose one of D, P, R, 1/L, P/L, R/L"),
        ({"adaptation": "third"}, "adaptation='third': choose one of none, half, quarter, greedy"),
        ({"speculation": "100"}, r"speculation=100.0: must be in \[0, 100\)"),
        ({"priority_levels": "0"}, r"priority_levels=0: must be in \[1, inf\]"),
        ({"seed": "1.5"}, "seed='1.5': expected an int"),
        ({"guarantees": "maybe"}, "guarantees='maybe': expected true or false"),
        ({"test_run_s": "1000"}, "test_run_s <= test_run_max_s"),
        ({"colour": "red"}, "no option 'colour'"),
    ],
)
def test_bad_values_name_the_allowed_ones(values, message):
    with pytest.raises(OptionError, match=message):
        BackfillOptions.parse(values)
    with pytest.raises(OptionError, match=message):  # the constructor checks the same way
        Backfill(8, **{k: v for k, v in values.items()})


def test_dvqops_is_vqops_with_fixed_value_awareness():
    d = Dvqops(8, initial_oc_factor=0.1)
    assert d.value_aware and d.oc_factor == 0.1
    assert "value_aware" not in {s.name for s in Dvqops.Options.specs()}
    with pytest.raises(OptionError, match="no option 'value_aware'"):
        Dvqops.Options.parse({"value_aware": "false"})
    with pytest.raises(OptionError, match="oc_factors='a,b'"):
        Dvqops(8, oc_factors="a,b")


@pytest.mark.parametrize("name", list(registry.SCHEDULERS))
def test_every_scheduler_declares_its_options_once(name):
    core = registry.core_class(name)
    specs = core.Options.specs()
    assert all(spec.help for spec in specs)
    scheduler = core(16)  # the defaults are the declared ones
    assert scheduler.options.values() == {spec.name: spec.default for spec in specs}


def test_run_checks_values_before_anything_runs():
    core = registry.core_class("downey")
    parsed = parse_options(["strategy=PWS", "min_fraction=0.25"], core)
    assert isinstance(parsed, core.Options) and (parsed.strategy, parsed.min_fraction) == ("PWS", 0.25)
    assert parse_options(parsed, core) is parsed  # parsed once: handed on as it is
    with pytest.raises(AdaptschedError, match="scheduler 'downey': option strategy='FOO': choose one of PWS") as bad:
        parse_options(["strategy=FOO"], core)
    assert isinstance(bad.value, SchedulerOptionError) and bad.value.option == "strategy"
    with pytest.raises(AdaptschedError, match="is not of the form KEY=VALUE"):
        parse_options(["strategy"], core)
    plugin = parse_options(["x=1", "y=abc"], None)  # pybatsim plugins: JSON values
    assert plugin == PluginOptions((("x", 1), ("y", "abc"))) and plugin.values() == {"x": 1, "y": "abc"}


@pytest.mark.parametrize(
    ("values", "option"),
    [
        ({"order": "xyz"}, "order"),
        ({"seed": "1.5"}, "seed"),
        ({"guarantees": "maybe"}, "guarantees"),
        ({"colour": "red"}, "colour"),
        ({"test_run_s": "1000"}, None),  # a rule between two options
    ],
)
def test_option_errors_name_the_option(values, option):
    with pytest.raises(OptionError) as error:
        BackfillOptions.parse(values)
    assert error.value.option == option


@pytest.fixture
def parses(monkeypatch):
    """Counts the options parsed (every Options object is checked in ``__post_init__``)."""
    from adaptsched.core.options import Options

    count = []
    checked = Options.__post_init__

    def counted(self):
        count.append(type(self).__name__)
        checked(self)

    monkeypatch.setattr(Options, "__post_init__", counted)
    return count


def test_a_run_parses_its_options_once(tmp_path, parses):
    """engines.run parses the options once (RunSpec.make); the plugin in the engine's process
    and the pure scheduler receive them parsed."""
    from helpers import CTC_EXCERPT

    from adaptsched.engines.run import RunSpec, run
    from adaptsched.workloads.convert import convert_swf, write_workload

    workload = write_workload(convert_swf(CTC_EXCERPT, hosts=64, first=30)[0], tmp_path / "w.json")
    spec = RunSpec.make("backfill", workload, 64, tmp_path / "bf", options=["order=R/L", "seed=3"], progress=False)
    assert parses == ["BackfillOptions"]
    result = run(spec, say=lambda *a: None)
    assert parses == ["BackfillOptions"] and result.nb_jobs == 30


def test_stock_pybatsim_checks_the_json_options_once(parses):
    """``pybatsim easy.py -o '{"order": "sjf"}'``: the plugin parses its JSON options once and
    the pure scheduler receives them parsed."""
    from types import SimpleNamespace

    from batsim.tools.launcher import instanciate_scheduler

    scheduler = instanciate_scheduler(str(registry.plugin_path("easy")), {"order": "sjf"})
    scheduler.bs = SimpleNamespace(nb_compute_resources=8, dynamic_job_registration_enabled=False)
    scheduler.onSimulationBegins()
    assert len(parses) == 1
    assert scheduler.core.options is scheduler.core_options and scheduler.core.options.order == "sjf"
