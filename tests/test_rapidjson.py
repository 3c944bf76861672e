"""Numbers as Batsim's RapidJSON reads them (formats/rapidjson.py): the embedded engine reads a
workload's fractional numbers the same way, so that a 17-digit subtime puts its clock where real
Batsim's is (docs/conformance.md: the signed zeros of Batsim's energy platforms without links)."""

import json

from hypothesis import given
from hypothesis import strategies as st

from adaptsched.formats.rapidjson import batsim_float, rapidjson_number
from adaptsched.workloads.batsim_json import load_workload

#: pybatsim's ``now + 0.005`` as Python writes it, and what Batsim reads (docs/network.md)
WRITTEN, READ = "9.021467000000001", 9.021467


def test_rapidjson_reads_some_17_digit_numbers_one_ulp_away():
    assert float(WRITTEN) != READ
    assert rapidjson_number(WRITTEN) == READ
    assert batsim_float(WRITTEN) == READ
    # Batsim 4.2.1's example_workload_hpc_seed4_jobs250.json, job 0's subtime
    assert batsim_float("26.070874296324014") == rapidjson_number("26.070874296324014")
    assert batsim_float("26.070874296324014") != 26.070874296324014


@given(st.floats(min_value=-1e12, max_value=1e12, allow_nan=False), st.integers(min_value=1, max_value=15))
def test_short_numbers_take_the_shortcut_and_agree(value, digits):
    text = "%.*f" % (max(0, digits - len(str(int(abs(value))))), value)
    if len(text) <= 15:
        assert batsim_float(text) == rapidjson_number(text) == float(text)


def test_the_engine_reads_the_workload_as_batsim(tmp_path):
    path = tmp_path / "w.json"
    job = {"id": 1, "subtime": 0, "res": 1, "profile": "d", "walltime": 30.5}
    profiles = {"d": {"type": "delay", "delay": 1.0}}
    path.write_text(
        json.dumps({"nb_res": 1, "jobs": [job], "profiles": profiles}).replace('"subtime": 0', f'"subtime": {WRITTEN}')
    )
    assert load_workload(path).jobs["1"].subtime == READ  # the embedded engine's
    assert load_workload(path, embedded=False).jobs["1"].subtime == float(WRITTEN)  # Python's (checks only)
    assert load_workload(path).jobs["1"].walltime == 30.5


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_the_engine_reads_a_decision_time_as_rapidjson_does(value):
    """The engine's reading of a time pybatsim sends (``repr``), shortcut or not, is RapidJSON's."""
    from adaptsched.engines.embedded.cppnumbers import batsim_double

    assert batsim_double(value) == (value if value.is_integer() else rapidjson_number(repr(value)))


def test_the_engine_reads_pybatsims_17_digit_times_one_ulp_away():
    from adaptsched.engines.embedded.cppnumbers import batsim_double

    assert batsim_double(float(WRITTEN)) == READ
