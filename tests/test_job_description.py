"""A job's description as Batsim sends it (workloads/batsim_json.py ``_description``): filled
into one ``%`` format per form of description, it is exactly what ``dumps`` writes of the
description with the job's full id, for any description (strings with quotes, percent signs
or controls, floats, booleans, nested values, keys that are not strings); and loading leaves the
cyclic garbage collector, which it turns off while it builds the jobs, as it found it."""

import gc
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adaptsched.errors import InputError
from adaptsched.formats.jsontext import dumps
from adaptsched.workloads import batsim_json
from adaptsched.workloads.batsim_json import _description, load_workload

TEXT = st.text(alphabet=st.sampled_from(list('ab%d"\\\n\x01é\u2028! ')), max_size=5)
SCALARS = st.one_of(
    st.integers(-(10**20), 10**20),
    st.floats(allow_nan=False, allow_infinity=False),
    st.floats(),
    TEXT,
    st.booleans(),
    st.none(),
)
VALUES = st.one_of(SCALARS, st.lists(SCALARS, max_size=3), st.dictionaries(TEXT, SCALARS, max_size=2))
KEYS = st.one_of(st.sampled_from(["subtime", "res", "walltime", "profile", "user", "%s", 'a"b']), TEXT, st.integers())


@st.composite
def descriptions(draw) -> dict:
    fields = draw(st.lists(st.tuples(KEYS, VALUES), max_size=8))
    desc = dict(fields)
    desc.pop("id", None)
    items = list(desc.items())
    items.insert(draw(st.integers(0, len(items))), ("id", draw(st.one_of(st.integers(0, 10**6), TEXT))))
    return dict(items)


@given(desc=descriptions(), job_id=TEXT.map(lambda name: f"w0!{name}"))
def test_a_description_is_what_dumps_writes(desc, job_id):
    described = dict(desc)
    described["id"] = job_id
    assert _description(desc, job_id) == dumps(described)
    assert _description(desc, job_id) == dumps(described)  # its form cached


def test_every_job_of_a_workload_keeps_its_text(tmp_path, monkeypatch):
    """Jobs of a few forms (an int or a float subtime, a string or an int field, extra fields):
    each text is dumps'; a workload of more forms than the cache holds is written too."""
    monkeypatch.setattr(batsim_json, "_FORMS", {})
    monkeypatch.setattr(batsim_json, "_MAX_FORMS", 2)
    jobs = [
        {"id": 1, "subtime": 0, "res": 4, "walltime": 200, "profile": "p"},
        {"id": "two", "subtime": 1.5, "res": 4, "walltime": -1, "profile": "p", "user": "a%b"},
        {"id": 3, "subtime": 2, "res": 1, "walltime": 10.25, "profile": "p", "flag": True, "tags": [1, 2.5]},
        {"subtime": 3, "id": 4, "res": 1, "profile": "p", "note": None},
        {"id": 5, "subtime": 0, "res": 4, "walltime": 200, "profile": "p"},
    ]
    path = tmp_path / "w.json"
    path.write_text(json.dumps({"nb_res": 4, "jobs": jobs, "profiles": {"p": {"type": "delay", "delay": 1}}}))
    loaded = load_workload(path)
    for desc in jobs:
        described = {**desc, "id": f"w0!{desc['id']}"}
        assert loaded.jobs[str(desc["id"])].json == dumps(described)


def test_loading_leaves_the_garbage_collector_as_it_found_it(tmp_path):
    """load_workload turns the cyclic GC off while it builds the jobs, and back on after, on
    success and on a refused workload; a caller's GC left off stays off."""
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text('{"nb_res": 1, "jobs": [], "profiles": {}}')
    bad.write_text('{"nb_res": 0, "jobs": [], "profiles": {}}')
    assert gc.isenabled()
    load_workload(good)
    assert gc.isenabled()
    with pytest.raises(InputError, match="nb_res"):
        load_workload(bad)
    assert gc.isenabled()
    gc.disable()
    try:
        load_workload(good)
        assert not gc.isenabled()
    finally:
        gc.enable()
