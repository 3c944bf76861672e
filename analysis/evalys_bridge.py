"""The only place that talks to evalys: JobSet construction and load (utilisation/queue) curves.

evalys 4.0.7 notes (why the code below looks the way it does):

* ``JobSet.utilisation`` and ``JobSet.queue`` are both ``evalys.metrics.compute_load`` over
  (``starting_time``, ``finish_time``, ``proc_alloc``) and (``submission_time``,
  ``starting_time``, ``requested_number_of_resources``). ``compute_load`` only needs the host
  *count* per job, so :func:`load_curve` calls it directly with counts computed from the
  interval strings: building a ``JobSet`` parses every allocation into a ``ProcSet``
  (seconds for 100k jobs). Full ``JobSet`` objects are built only for Gantt
  windows (a few hundred jobs).
* ``compute_load`` overwrites ``starting_time``/``finish_time`` with
  ``submission_time + waiting_time`` / ``+ execution_time``; keep those columns consistent.
* ``JobSet.mean_utilisation(begin, end)`` (``load_mean``) raises ``TypeError`` under pandas 3
  as soon as ``begin``/``end`` is not an event time (``float()`` of a one-element Series), and
  raises ``ValueError`` for a window starting before the first job start; it also returns a
  mean number of busy *hosts*, not a fraction. We integrate the ``area`` column instead.
* Without ``resource_bounds``, ``JobSet`` takes ``min..max`` allocated id as the machine, so
  idle low/high hosts vanish; :func:`to_jobset` always passes ``(0, hosts - 1)``.
* ``JobSet.__init__`` uses ``DataFrame.rename(inplace=True)`` (a Pandas4Warning under
  pandas 3): we pass ``jobID`` ourselves and silence evalys' warnings.
"""

from __future__ import annotations

import contextlib
import warnings

import numpy as np
import pandas as pd
from procset import ProcSet

from ..errors import InputError
from ..formats.intervals import parse_procset
from .jobs import HIDDEN_COLUMNS, alloc_columns


@contextlib.contextmanager
def quiet_evalys():
    """Silence the pandas deprecation warnings that evalys 4.0.7 triggers."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", module=r"evalys(\..*)?$")
        warnings.filterwarnings("ignore", category=FutureWarning, module=r"evalys(\..*)?$")
        yield


def _evalys():
    with quiet_evalys():
        import evalys.jobset
        import evalys.metrics
    return evalys


def executed_rows(df: pd.DataFrame) -> pd.DataFrame:
    """Rows of jobs (or attempts) that ran: they have a start time and an allocation."""
    return df[df["starting_time"].notna() & (df["allocated_resources"] != "")]


def job_labels(df: pd.DataFrame) -> pd.Series:
    """``job_id``, prefixed with ``WORKLOAD!`` when the frame mixes several workloads."""
    if df["workload_name"].nunique() > 1:
        return df["workload_name"] + "!" + df["job_id"]
    return df["job_id"].astype(str)


def to_jobset(df: pd.DataFrame, *, hosts: int | None = None):
    """An ``evalys.jobset.JobSet`` of the executed jobs of ``df`` (folded or not).

    ``hosts`` sets the machine size (``resource_bounds = (0, hosts - 1)``); by default it is
    the highest allocated id + 1. Raises :class:`~adaptsched.errors.InputError` (naming the
    source file when known) if no job was executed.
    """
    evalys = _evalys()
    ran = executed_rows(df)
    if ran.empty:
        source = df.attrs.get("source") or "<jobs DataFrame>"
        what = "no job at all" if df.empty else f"all {len(df)} jobs were rejected"
        raise InputError(source, f"no executed job to build an evalys JobSet from ({what})")
    cache: dict[str, ProcSet] = {}

    def parse(text: str) -> ProcSet:
        hit = cache.get(text)
        if hit is None:
            hit = cache[text] = parse_procset(text)
        return hit

    top = int(alloc_columns(ran)[1].max())
    frame = ran.drop(columns=["job_id", *[c for c in HIDDEN_COLUMNS if c in ran.columns]])
    frame.insert(0, "jobID", job_labels(ran).to_numpy())
    frame["allocated_resources"] = [parse(t) for t in ran["allocated_resources"]]
    if hosts is None:
        hosts = top + 1
    elif top >= hosts:
        raise ValueError(f"hosts={hosts} but the jobs allocate host id {top}")
    with quiet_evalys():
        return evalys.jobset.JobSet(frame, resource_bounds=(0, int(hosts) - 1))


def load_curve(df: pd.DataFrame, kind: str) -> pd.DataFrame:
    """evalys load curve of executed rows: ``kind`` = ``"utilisation"`` (busy hosts) or
    ``"queue"`` (requested hosts of submitted, not yet started jobs).

    Returns evalys' frame indexed by event time with columns ``load`` (value from that time
    on) and ``area`` (load x time to the next event); empty frame if nothing ran.
    """
    evalys = _evalys()
    ran = executed_rows(df)
    if ran.empty:
        return pd.DataFrame({"load": [], "area": []}, index=pd.Index([], name="time"))
    frame = pd.DataFrame(
        {
            "jobID": np.arange(len(ran)),
            "submission_time": ran["submission_time"].to_numpy(),
            "waiting_time": (ran["starting_time"] - ran["submission_time"]).to_numpy(),
            "execution_time": ran["execution_time"].to_numpy(),
            "requested_number_of_resources": ran["requested_number_of_resources"].to_numpy(),
            "proc_alloc": alloc_columns(ran)[0],
        }
    )
    with quiet_evalys():
        if kind == "utilisation":
            return evalys.metrics.compute_load(
                frame, col_begin="starting_time", col_end="finish_time", col_cumsum="proc_alloc"
            )
        if kind == "queue":
            return evalys.metrics.compute_load(
                frame, col_begin="submission_time", col_end="starting_time", col_cumsum="requested_number_of_resources"
            )
    raise ValueError(f"kind must be 'utilisation' or 'queue', not {kind!r}")


def integral(curve: pd.DataFrame) -> float:
    """Total area (load x seconds) of an evalys load curve (its last row's area is NaN)."""
    return float(np.nansum(curve["area"].to_numpy(dtype=float))) if len(curve) else 0.0
