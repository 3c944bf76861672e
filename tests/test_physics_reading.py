"""The physics check reads ``_jobs.csv`` by splitting each line at its commas
(engines/physics.py ``_columns``); until 2026-11 it read it with one regular expression per
file. On any text, clean or dirty, both readings give the same columns, or both hand the file
to :mod:`csv`; and the check finds the same things (or raises the same error) either way."""

import csv
import re
from collections.abc import Sequence
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adaptsched.engines import physics
from adaptsched.engines.physics import COLUMNS, check_physics
from adaptsched.workloads.batsim_json import load_workload

HEADER = [
    "job_id",
    "workload_name",
    "profile",
    "submission_time",
    "requested_number_of_resources",
    "requested_time",
    "success",
    "final_state",
    "starting_time",
    "execution_time",
    "finish_time",
    "waiting_time",
    "turnaround_time",
    "stretch",
    "allocated_resources",
    "consumed_energy",
    "metadata",
]


def regex_columns(jobs_csv: str | Path) -> dict[str, Sequence[str]]:
    """The reading of 32c4a51 (one regular expression over the file), kept as the reference."""
    with open(jobs_csv, newline="") as handle:
        text = handle.read()
    head, _, body = text.partition("\n")
    header = next(csv.reader([head]), [])
    if header and header[-1] == "metadata" and set(COLUMNS) <= set(header) and "\r" not in text:
        parts = [r"([^,\n]*)" if name in COLUMNS else r"[^,\n]*" for name in header[:-1]]
        pattern = re.compile("^" + ",".join(parts) + r",(.*)$", re.MULTILINE)
        rows = pattern.findall(body)
        if len(rows) == body.count("\n") + (1 if body and not body.endswith("\n") else 0):
            wanted = [name for name in header if name in COLUMNS]
            columns: dict[str, Sequence[str]] = dict(zip(wanted, zip(*rows))) if rows else dict.fromkeys(wanted, ())
            if not any('"' in "".join(columns[name]) for name in ("job_id", "workload_name", "profile")):
                return columns
    index = {name: i for i, name in enumerate(header)}
    rows = list(csv.reader(body.splitlines()))
    columns = {name: [row[index[name]] for row in rows] for name in COLUMNS}
    columns["metadata"] = ['"' + m.replace('"', '""') + '"' for m in columns["metadata"]]
    return columns


def outcome(read, path: Path) -> object:
    try:
        return {name: list(cells) for name, cells in read(path).items()}
    except Exception as error:  # the same error, or none, from both
        return (type(error).__name__, str(error))


#: Cells of a Batsim row, and the characters that break one: commas, quotes, blanks, the line
#: ends that str.splitlines sees and a regular expression does not.
CELLS = st.one_of(
    st.sampled_from(["1", "w0", "delay_1", "0.000000", "12.500000", "COMPLETED_SUCCESSFULLY", "0-3 7", '""', "-1"]),
    st.sampled_from(["\"{'parent_job': 'w0!1', 'kind': 'molded'}\"", "{'scale': 2.0}", "REJECTED", ""]),
    st.text(alphabet=st.sampled_from(list("0123456789.-, \"'x!\r\x0b\x85\u2028é")), max_size=6),
)
LINE = st.lists(CELLS, min_size=14, max_size=19).map(",".join)
HEADERS = st.one_of(
    st.just(HEADER),
    st.permutations(HEADER[:-1]).map(lambda names: [*names, "metadata"]),
    st.lists(st.sampled_from(HEADER), min_size=15, max_size=18),
    st.just([*HEADER[:-1], "extra", "metadata"]),
)


@st.composite
def jobs_files(draw) -> str:
    header = ",".join(draw(HEADERS))
    lines = draw(st.lists(LINE, max_size=6))
    body = "\n".join(lines) + draw(st.sampled_from(["", "\n", "\n\n", "\r\n"]))
    return header + ("\n" + body if lines or draw(st.booleans()) else "")


@settings(max_examples=400, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=jobs_files())
def test_split_reading_is_the_regex_reading(tmp_path, text):
    path = tmp_path / "x_jobs.csv"
    with open(path, "w", newline="", encoding="utf-8") as handle:
        handle.write(text)
    assert outcome(physics._columns, path) == outcome(regex_columns, path)


SOUND = (
    '1,w0,d100,0.000000,4,200.000000,1,COMPLETED_SUCCESSFULLY,0.000000,100.000000,100.000000,0,100,1,0-3,-1,""',
    '2,w0,d100,0.000000,4,200.000000,0,REJECTED,,,,,,,,,""',
    "2#1,w0,d100,0.000000,2,400.000000,1,COMPLETED_SUCCESSFULLY,0.000000,200.000000,200,0,0,1,4-5,-1,"
    "\"{'parent_job': 'w0!2', 'kind': 'molded'}\"",
    '3,w0,d30,5.000000,2,-1.000000,1,COMPLETED_SUCCESSFULLY,100.000000,30.000000,130,95,125,4.1,6-7,-1,""',
)


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    rows=st.lists(
        st.tuples(st.sampled_from(SOUND), st.integers(0, 16), CELLS),
        min_size=1,
        max_size=5,
    )
)
def test_the_check_finds_the_same_with_either_reading(tmp_path, monkeypatch, rows):
    """Sound rows with one cell replaced by another, clean or dirty: the same findings."""
    workload_path = tmp_path / "w.json"
    workload_path.write_text(
        '{"nb_res": 8, "jobs": [{"id": 1, "subtime": 0, "res": 4, "walltime": 200, "profile": "d100"},'
        '{"id": 2, "subtime": 0, "res": 4, "walltime": 200, "profile": "d100"},'
        '{"id": 3, "subtime": 5, "res": 2, "walltime": -1, "profile": "d30"}],'
        '"profiles": {"d100": {"type": "delay", "delay": 100}, "d30": {"type": "delay", "delay": 30}}}'
    )
    workload = load_workload(workload_path)
    lines = []
    for line, at, cell in rows:
        cells = line.split(",", 16)
        cells[at] = cell
        lines.append(",".join(cells))
    path = tmp_path / "x_jobs.csv"
    with open(path, "w", newline="", encoding="utf-8") as handle:
        handle.write(",".join(HEADER) + "\n" + "\n".join(lines) + "\n")

    def found() -> object:
        try:
            p = check_physics(path, workload, 8)
        except Exception as error:
            return (type(error).__name__, str(error))
        return (p.violations, p.count, p.timed, p.untimed)

    new = found()
    monkeypatch.setattr(physics, "_columns", regex_columns)
    assert new == found()
