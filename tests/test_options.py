"""Scheduler options (adaptsched.core.options): declared once, checked once, before any run."""

import pytest

from adaptsched import schedulers as registry
from adaptsched.core.backfill import Backfill, BackfillOptions
from adaptsched.core.dvqops import Dvqops
from adaptsched.core.options import OptionError
from adaptsched.engines.run import parse_options
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
    assert parse_options(["strategy=PWS", "min_fraction=0.25"], core) == {"strategy": "PWS", "min_fraction": 0.25}
    with pytest.raises(AdaptschedError, match="scheduler 'downey': option strategy='FOO': choose one of PWS"):
        parse_options(["strategy=FOO"], core)
    with pytest.raises(AdaptschedError, match="is not of the form KEY=VALUE"):
        parse_options(["strategy"], core)
    assert parse_options(["x=1", "y=abc"], None) == {"x": 1, "y": "abc"}  # pybatsim plugins: JSON values
