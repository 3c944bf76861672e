"""Reading and validating Batsim v4 ``PREFIX_jobs.csv`` / ``PREFIX_schedule.csv`` files.

``read_jobs_csv`` returns the rows exactly as Batsim wrote them (one row per executed or
rejected job *attempt*), with proper dtypes:

* ``job_id``, ``workload_name``, ``profile``, ``final_state``, ``allocated_resources``,
  ``metadata``: ``str`` (empty string when Batsim wrote nothing);
* ``submission_time``, ``requested_time``, ``starting_time``, ``execution_time``,
  ``finish_time``, ``waiting_time``, ``turnaround_time``, ``stretch``,
  ``consumed_energy``: ``float64``, NaN where Batsim left the cell empty (rejected jobs);
* ``requested_number_of_resources``, ``success``: ``int64``.

Every problem raises :class:`adaptsched.errors.InputError` naming the file (and the line and
column when one row is at fault): missing file, empty file, a CSV without the Batsim columns,
a value that is not a number, an executed job without an allocation...

``load_jobs`` (attempt folding) lives in :mod:`adaptsched.analysis.fold`.
"""

from __future__ import annotations

import csv
import os
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import InputError
from ..formats.intervals import alloc_stats, well_formed
from ..formats.outputs import JOBS_COLUMNS

#: Column order of Batsim v4.2.1 ``src/export.cpp``.
BATSIM_COLUMNS = JOBS_COLUMNS
#: Columns without which the file cannot be analysed.
REQUIRED_COLUMNS = (
    "job_id",
    "submission_time",
    "requested_number_of_resources",
    "final_state",
    "starting_time",
    "execution_time",
    "finish_time",
    "allocated_resources",
)
#: Pre-v3 Batsim spelled a few columns differently.
_ALIASES = {
    "allocated_processors": "allocated_resources",
    "requested_number_of_processors": "requested_number_of_resources",
}
_STR_COLUMNS = ("job_id", "workload_name", "profile", "final_state", "allocated_resources", "metadata")
_FLOAT_COLUMNS = (
    "submission_time",
    "requested_time",
    "starting_time",
    "execution_time",
    "finish_time",
    "waiting_time",
    "turnaround_time",
    "stretch",
    "consumed_energy",
)
_INT_COLUMNS = ("requested_number_of_resources", "success")

SUCCESS = "COMPLETED_SUCCESSFULLY"
FAILED = "COMPLETED_FAILED"
WALLTIME = "COMPLETED_WALLTIME_REACHED"
KILLED = "COMPLETED_KILLED"
REJECTED = "REJECTED"
KILLED_STATES = (WALLTIME, KILLED)


# --------------------------------------------------------------------------- paths
def resolve_jobs_path(run) -> Path:
    """``/x/out/easy`` (a Batsim ``-e`` prefix) -> ``/x/out/easy_jobs.csv``.

    A path ending in ``.csv``, or naming an existing file, is taken as the jobs file itself.
    """
    text = os.fspath(run)
    path = Path(text)
    if text.endswith(".csv") or path.is_file():
        return path
    return Path(text + "_jobs.csv")


def run_label(run) -> str:
    """Default label of a run: the basename of its prefix (``/x/out/easy`` -> ``easy``)."""
    name = resolve_jobs_path(run).name
    for suffix in ("_jobs.csv", ".csv"):
        if name.endswith(suffix):
            return name[: -len(suffix)] or name
    return name


def schedule_path_for(jobs_path) -> Path | None:
    """The sibling ``PREFIX_schedule.csv`` of ``PREFIX_jobs.csv`` (None for other names)."""
    path = Path(jobs_path)
    if path.name.endswith("_jobs.csv"):
        return path.with_name(path.name[: -len("_jobs.csv")] + "_schedule.csv")
    return None


# --------------------------------------------------------------------------- jobs.csv
def _bad_row(path, frame: pd.DataFrame, mask, column: str, message: str):
    """InputError located at the first row of ``mask`` (file line = row index + 2)."""
    row = int(np.flatnonzero(np.asarray(mask))[0])
    value = frame[column].iloc[row]
    return InputError(path, f"{message} (got {value!r})", line=row + 2, field=column)


def read_jobs_csv(path) -> pd.DataFrame:
    """Read a Batsim ``_jobs.csv`` without folding: one row per line of the file.

    The result's ``attrs["source"]`` holds the path (used in later error messages).
    """
    path_str = os.fspath(path)
    try:
        # Everything as text first: the C parser is fast, and we control NaN handling
        # (a job or profile literally named "NA" must stay a string).
        frame = pd.read_csv(path_str, dtype=str, keep_default_na=False, na_filter=False, encoding="utf-8-sig")
    except FileNotFoundError:
        raise InputError(path_str, "no such file") from None
    except IsADirectoryError:
        raise InputError(path_str, "is a directory, not a Batsim _jobs.csv file") from None
    except PermissionError:
        raise InputError(path_str, "permission denied") from None
    except pd.errors.EmptyDataError:
        raise InputError(path_str, "empty file (expected a Batsim _jobs.csv with a header row)") from None
    except UnicodeDecodeError:
        raise InputError(path_str, "not a text CSV file (cannot decode it as UTF-8)") from None
    except (pd.errors.ParserError, csv.Error, ValueError) as exc:
        raise InputError(path_str, f"malformed CSV: {exc}") from None

    frame.columns = [str(c).strip() for c in frame.columns]
    frame = frame.rename(columns={k: v for k, v in _ALIASES.items() if k in frame.columns and v not in frame.columns})
    missing = [c for c in REQUIRED_COLUMNS if c not in frame.columns]
    if missing:
        found = ", ".join(frame.columns[:6]) + (", ..." if len(frame.columns) > 6 else "")
        raise InputError(
            path_str, "not a Batsim jobs file: missing column(s) " + ", ".join(missing) + f" (found: {found})"
        )

    out = pd.DataFrame(index=frame.index)
    for column in BATSIM_COLUMNS:
        if column in _STR_COLUMNS:
            out[column] = frame[column] if column in frame.columns else ""
        elif column in _FLOAT_COLUMNS:
            if column not in frame.columns:
                out[column] = np.nan
                continue
            text = frame[column]
            values = pd.to_numeric(text.replace("", np.nan), errors="coerce")
            bad = values.isna() & (text != "")
            if bad.any():
                raise _bad_row(path_str, frame, bad, column, "not a number")
            out[column] = values.astype("float64")
        else:  # integer columns
            if column not in frame.columns:
                out[column] = 0
                continue
            values = pd.to_numeric(frame[column].replace("", np.nan), errors="coerce")
            bad = values.isna() | (values != np.floor(values))
            if bad.any():
                raise _bad_row(path_str, frame, bad, column, "not an integer")
            out[column] = values.astype("int64")

    if "success" not in frame.columns:
        out["success"] = (out["final_state"] == SUCCESS).astype("int64")

    if out["submission_time"].isna().any():
        raise _bad_row(path_str, frame, out["submission_time"].isna(), "submission_time", "missing submission time")
    executed = out["starting_time"].notna()
    for column in ("execution_time", "finish_time"):
        bad = executed & out[column].isna()
        if bad.any():
            raise _bad_row(path_str, frame, bad, column, "executed job without " + column)
    bad = executed & ~well_formed(out["allocated_resources"].to_numpy())
    if bad.any():
        raise _bad_row(
            path_str, frame, bad, "allocated_resources", "executed job without a valid interval set such as '0-3 7'"
        )
    # Batsim derives these; recompute them if an older/foreign file lacks them.
    if "waiting_time" not in frame.columns:
        out["waiting_time"] = out["starting_time"] - out["submission_time"]
    if "turnaround_time" not in frame.columns:
        out["turnaround_time"] = out["finish_time"] - out["submission_time"]

    out.attrs["source"] = path_str
    return out


def alloc_columns(df: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """``alloc_stats`` of a frame's ``allocated_resources``, reusing cached columns
    ``_alloc_size``/``_alloc_top`` when an analysis added them."""
    if "_alloc_size" in df.columns and "_alloc_top" in df.columns:
        return df["_alloc_size"].to_numpy(), df["_alloc_top"].to_numpy()
    return alloc_stats(df["allocated_resources"].to_numpy())


def with_alloc_columns(df: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``df`` with the cached ``_alloc_size``/``_alloc_top`` columns."""
    sizes, tops = alloc_columns(df)
    out = df.assign(_alloc_size=sizes, _alloc_top=tops)
    out.attrs = dict(df.attrs)
    return out


HIDDEN_COLUMNS = ("_alloc_size", "_alloc_top")


# --------------------------------------------------------------------------- schedule.csv
def read_schedule_csv(path) -> dict:
    """The value row of a Batsim ``_schedule.csv`` as a dict of strings."""
    path_str = os.fspath(path)
    try:
        with open(path_str, newline="") as handle:
            rows = list(csv.reader(handle))
    except FileNotFoundError:
        raise InputError(path_str, "no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(path_str, f"cannot read: {exc}") from None
    if len(rows) < 2 or len(rows[0]) != len(rows[1]):
        raise InputError(
            path_str, "not a Batsim schedule file (expected one header row and one value row with as many fields)"
        )
    return dict(zip((h.strip() for h in rows[0]), (v.strip() for v in rows[1])))


def resolve_hosts(jobs_path, raw: pd.DataFrame, hosts=None) -> tuple[int | None, str]:
    """Number of compute hosts and where it comes from.

    Order: the ``hosts`` argument; else ``nb_computing_machines`` of the sibling
    ``PREFIX_schedule.csv``; else the highest allocated host id + 1.
    """
    _, tops = alloc_columns(raw)
    highest = int(tops.max()) if len(tops) else -1
    if hosts is not None:
        if isinstance(hosts, bool) or int(hosts) != hosts or hosts < 1:
            raise ValueError(f"hosts must be a positive integer, got {hosts!r}")
        if highest >= hosts:
            raise InputError(
                jobs_path, f"allocates host id {highest}, beyond the {hosts} hosts given", field="allocated_resources"
            )
        return int(hosts), "hosts argument"
    schedule = schedule_path_for(jobs_path)
    if schedule is not None and schedule.is_file():
        values = read_schedule_csv(schedule)
        text = values.get("nb_computing_machines", "")
        try:
            count = int(float(text))
        except ValueError:
            raise InputError(schedule, f"not an integer (got {text!r})", field="nb_computing_machines") from None
        if count >= 1:
            if highest >= count:
                raise InputError(
                    schedule,
                    f"{count} machines but {Path(jobs_path).name} allocates host id {highest}",
                    field="nb_computing_machines",
                )
            return count, f"nb_computing_machines of {schedule.name}"
    if highest < 0:
        return None, "unknown (no executed job, no schedule.csv)"
    return highest + 1, "highest allocated host id + 1"
