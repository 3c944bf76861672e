"""The public API (``adaptsched.api``): its names are all there, each documented with a short
example that runs."""

import doctest
import importlib

import pytest
from helpers import COMPILED, INTERPRETED_ONLY

import adaptsched.api as api

#: The public names. Removing one breaks scheduler files written against it: this list changes
#: only by adding names (or through a deprecation).
PUBLIC = {
    "AvailabilityProfile",
    "Decisions",
    "Downey",
    "EasyBackfilling",
    "HostPool",
    "IntervalSet",
    "Job",
    "Linear",
    "OnlineScheduler",
    "OptionError",
    "Options",
    "Outcome",
    "QueueOptions",
    "ReservationPlanner",
    "ReservingOptions",
    "ReservingScheduler",
    "Running",
    "ScojoP",
    "SpeedupModel",
    "WaitingQueue",
    "model_of",
    "option",
    "plugin",
    "replay",
}


def test_no_public_name_disappears():
    namespace = {}
    exec("from adaptsched.api import *", namespace)
    exported = {name for name in namespace if not name.startswith("__")}
    missing = PUBLIC - exported
    assert not missing, f"public names gone from adaptsched.api: {sorted(missing)}"
    assert set(api.__all__) == exported


def test_every_new_name_is_listed_here():
    assert set(api.__all__) <= PUBLIC, f"add to PUBLIC (and document): {sorted(set(api.__all__) - PUBLIC)}"


def test_the_module_doc_names_every_public_name():
    for name in api.__all__:
        assert f":class:`{name}`" in api.__doc__ or f":func:`{name}`" in api.__doc__, name


def _examples(obj) -> list[doctest.DocTest]:
    module = importlib.import_module(obj.__module__)
    finder = doctest.DocTestFinder(recurse=False)
    return [t for t in finder.find(obj, obj.__name__, module=module, globs=dict(vars(module))) if t.examples]


@pytest.mark.skipif(COMPILED, reason=INTERPRETED_ONLY)
@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_each_name_has_a_short_example_that_runs(name):
    obj = getattr(api, name)
    tests = _examples(obj)
    assert tests, f"{name}: its docstring has no example"
    [test] = tests
    lines = sum(len(e.source.splitlines()) + len(e.want.splitlines()) for e in test.examples)
    assert 3 <= lines <= 6, f"{name}: an example of {lines} lines (3 to 6)"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0, f"{name}: its example fails"
