"""Batsim's text formats (adaptsched.formats): interval sets and %f JSON."""

import pytest
from hypothesis import given
from hypothesis import strategies as st
from procset import ProcSet

from adaptsched.errors import InputError
from adaptsched.formats.intervals import (
    alloc_stats,
    interval_counts,
    interval_text,
    parse_hosts,
    parse_procset,
    procset,
    runs,
    well_formed,
)
from adaptsched.formats.jsontext import dumps, is_int, is_number, reserialized
from adaptsched.workloads.batsim_json import load_workload

host_sets = st.sets(st.integers(0, 300), max_size=60).map(sorted)


@given(host_sets)
def test_text_round_trips_and_matches_procset(hosts):
    text = interval_text(hosts)
    assert parse_hosts(text) == hosts
    assert text == str(ProcSet(*hosts)) == str(procset(hosts))
    assert list(procset(hosts)) == hosts
    sizes, tops = alloc_stats([text])
    assert sizes[0] == len(hosts) and tops[0] == (hosts[-1] if hosts else -1)


host_ids = st.lists(st.integers(0, 60), min_size=1, max_size=12, unique=True).map(sorted)


@given(host_ids, host_ids, st.sampled_from(["union", "intersection", "difference", "symmetric_difference"]))
def test_allocation_is_the_procset_of_its_hosts(hosts, others, operation):
    """pybatsim's job.allocation (built lazily, with its Batsim text) behaves as ProcSet(*hosts):
    read, pickled, copied, combined, or changed in place, and its text follows what it holds."""
    import copy
    import pickle

    ours, theirs = procset(hosts), ProcSet(*hosts)
    assert ours == theirs and theirs == ours and list(ours) == hosts and len(ours) == len(theirs)
    assert str(pickle.loads(pickle.dumps(ours))) == str(copy.deepcopy(ours)) == str(ours.copy()) == str(theirs)
    made = getattr(procset(hosts), operation)(procset(others))  # a new Allocation, no text of its own
    expected = getattr(ProcSet(*hosts), operation)(ProcSet(*others))
    assert made == expected and str(made) == str(expected)
    changed = procset(hosts)
    in_place = "update" if operation == "union" else operation + "_update"
    getattr(changed, in_place)(procset(others))  # in place: its old text is forgotten
    assert changed == expected and str(changed) == str(expected)


def test_runs_and_overlaps():
    assert runs([0, 1, 2, 3, 7, 9, 10]) == [(0, 3), (7, 7), (9, 10)]
    assert parse_hosts("4-5 1-4") == [1, 2, 3, 4, 5]  # Batsim merges overlapping intervals
    assert parse_hosts("") == []


texts = st.lists(st.tuples(st.integers(0, 100), st.integers(0, 20)), min_size=1, max_size=8).map(
    lambda pairs: " ".join(f"{a}-{a + w}" if w else str(a) for a, w in pairs)
)


@given(texts)
def test_parse_procset_is_procsets_own_parser(text):
    """evalys' Gantt charts read allocations as ProcSets: ours equal ProcSet.from_str's,
    overlapping and unsorted intervals included, and print Batsim's canonical text."""
    ours, theirs = parse_procset(text), ProcSet.from_str(text)
    assert ours == theirs and str(ours) == str(theirs) and list(ours.intervals()) == list(theirs.intervals())


def test_many_texts_at_once():
    column = ["0-3 7", "12", "5-9 11-12 40", "", "3 -4", "1-2  5", "a"]
    assert well_formed(column).tolist() == [True, True, True, False, False, False, False]
    assert interval_counts(column[:4]).tolist() == [2, 1, 3, 0]


@pytest.mark.parametrize("text", ["a", "3-1", "-1", "1-b", "2--3"])
def test_invalid_interval_sets(text):
    with pytest.raises(ValueError, match="invalid interval"):
        parse_hosts(text)


def test_json_text_prints_doubles_as_batsim():
    assert dumps({"now": 10.0, "res": 3, "x": [0.1234567, True, None, 'a"b']}) == (
        '{"now":10.000000,"res":3,"x":[0.123457,true,null,"a\\"b"]}'
    )


def test_registered_json_is_read_back_as_batsim_reads_its_own_text():
    doc = {"delay": 3723.662337662338, "res": 77, "walltime": 139488.3116883117, "x": [0.1234567, "a", True]}
    assert reserialized(doc) == {"delay": 3723.662338, "res": 77, "walltime": 139488.311688, "x": [0.123457, "a", True]}


def test_dumps_of_a_dict_equals_the_generic_writer_value_by_value():
    """dumps' inline path for flat dict values writes what its generic path writes."""
    import json as _json

    value = {"id": "w0!1", "subtime": 0.1234567, "res": 3, "walltime": -1, "ok": True, "none": None, 5: 2.5}
    value["nested"] = {"a": [1, 2.0, "x"], "b": {"c": 1e-7}}
    expected = "{" + ",".join(_json.dumps(str(k)) + ":" + dumps([v])[1:-1] for k, v in value.items()) + "}"
    assert dumps(value) == expected


def test_a_json_number_is_finite_and_not_a_bool():
    import numpy as np

    assert all(is_number(x) for x in (0, -3, 2.5, 10**30, np.float64(1.5), np.int64(7)))
    assert not any(is_number(x) for x in (True, False, None, "1", float("nan"), float("inf"), -float("inf")))
    assert is_int(3) and not is_int(True) and not is_int(3.0)


@pytest.mark.parametrize("field", ["subtime", "walltime"])
@pytest.mark.parametrize("value", ["NaN", "Infinity"])
def test_a_workload_with_a_nan_or_infinite_time_is_refused_with_the_field(tmp_path, field, value):
    """Python's json reads NaN and Infinity: a workload holding one is refused, not run."""
    import json as _json

    job = {"id": "1", "subtime": 0, "res": 1, "walltime": 10, "profile": "p", field: "HERE"}
    doc = {"nb_res": 2, "jobs": [job], "profiles": {"p": {"type": "delay", "delay": 5}}}
    text = _json.dumps(doc).replace('"HERE"', value)
    path = tmp_path / "w.json"
    path.write_text(text)
    with pytest.raises(InputError, match=field):
        load_workload(path)
