"""The run explorer's data: one run's rectangles, attempts, jobs and load series, as columns.

Everything the page draws is computed here, in numpy, so that it can be tested without a
browser (:mod:`.page` only lays it out with Bokeh):

* **attempts**: every executed attempt (a row of ``_jobs.csv`` with a start and an
  allocation: killed attempts did occupy their hosts), in start order, with its category
  (:data:`~adaptsched.analysis.gantt.CATEGORIES`, as the Gantt PNG colours it), its parent
  (the ``parent_job`` of its metadata) and the row of its folded job in ``jobs``;
* **rectangles**: one per interval of an attempt's allocation (``"0-3 7"`` is two), from its
  start to its finish, hosts ``low`` to ``high + 1``;
* **jobs**: the folded jobs of :func:`~adaptsched.analysis.metrics.analyse` (the same rows
  ``adaptsched metrics`` measures), with their wait and bounded slowdown, final state (a code
  of :data:`STATE_WORDS`), shape group (``cls``, by the whole run's medians), colour value by
  job (``hue``) and user (from the run's workload, :func:`workload_users`; -1 if unknown);
* **series**: on one time axis, busy hosts (attempts running), queued demand (hosts
  requested by attempts submitted and not yet started) and waiting jobs (their number), the
  value from each time on. Busy hosts and queued demand are evalys' utilisation and queue
  curves (:func:`~adaptsched.analysis.evalys_bridge.load_curve`), computed at once here.

A ``window`` keeps the attempts that overlap it (as the Gantt PNG clips them), the jobs
submitted before its end that had not finished by its start, and the series inside it.
The metrics always cover the whole run: they are ``adaptsched metrics --json``'s, number for
number.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd

from ...errors import InputError
from ..backfilling import shape_groups
from ..evalys_bridge import executed_rows, job_labels
from ..fold import job_keys, parse_parent, root_keys
from ..gantt import CATEGORIES, attempt_categories
from ..jobs import (
    FAILED,
    KILLED,
    REJECTED,
    SUCCESS,
    WALLTIME,
    alloc_columns,
    read_jobs_csv,
    resolve_jobs_path,
    schedule_path_for,
    with_alloc_columns,
)
from ..metrics import analyse, bounded_slowdown_of, nothing_ran
from . import fmt
from .colours import CLASS_NAMES, job_hue
from .energy import read_energy

#: The attempt categories, in :data:`CATEGORIES` order: an attempt's ``code`` is its index here.
CATEGORY_KEYS = tuple(CATEGORIES)
#: Short words of the final states: a job's ``state`` is its index here (the job table's column).
STATE_WORDS = ("completed", "killed at walltime", "killed", "failed", "rejected", "other")
_STATE_CODES = {SUCCESS: 0, WALLTIME: 1, KILLED: 2, FAILED: 3, REJECTED: 4}


@dataclasses.dataclass
class RunData:
    """One run, ready to draw (module doc). Column dicts hold numpy arrays of equal length."""

    label: str
    path: Path
    hosts: int
    metrics: dict
    span: tuple[float, float]  # first submission, last finish of the whole run
    attempts: dict[str, np.ndarray]
    rects: dict[str, np.ndarray]
    jobs: dict[str, np.ndarray]
    series: dict[str, np.ndarray]
    keys: np.ndarray = dataclasses.field(repr=False)
    #: power and host power states (:func:`~.energy.read_energy`), None without the energy model
    energy: dict | None = None  # root key ("WORKLOAD!ID") of each job row
    #: the shape groups' definitions of this run, {"SN": "estimate <= 1:00:00, <= 8 hosts", ...}
    classes: dict[str, str] = dataclasses.field(default_factory=dict)
    #: the whole run's overview raster (image, hosts per row) and load envelopes, when the
    #: page holds only a window of it (:func:`detail_window`)
    overview: tuple[np.ndarray, int] | None = None
    overview_series: dict | None = None


def load_run(prefix, *, bound_s: float = 10.0) -> tuple[pd.DataFrame, dict, pd.DataFrame]:
    """(attempts as read, metrics, folded jobs) of one run, or an InputError saying why the
    run cannot be explored: no ``_schedule.csv`` beside its ``_jobs.csv``, or no job ran."""
    path = resolve_jobs_path(prefix)
    raw = with_alloc_columns(read_jobs_csv(path))
    schedule = schedule_path_for(path)
    if schedule is None or not schedule.is_file():
        beside = schedule.name if schedule is not None else "the matching PREFIX_schedule.csv"
        raise InputError(
            path,
            f"no {beside} beside it. Batsim (and the embedded engine) write it last, when a run ends: "
            "without it the run may have stopped early, and the machine size is unknown. Explore a "
            "finished run (both files from the same -e prefix)",
        )
    metrics, jobs = analyse(raw, source=str(path), bound_s=bound_s)
    empty = nothing_ran(metrics)
    if empty:
        raise InputError(path, empty + ": there is nothing to explore")
    return raw, metrics, jobs


def build_run(
    raw: pd.DataFrame,
    metrics: dict,
    jobs: pd.DataFrame,
    label: str,
    window: tuple[float, float] | None = None,
    *,
    whole_run_extent: tuple[float, float] | None = None,
    users: dict[str, int] | None = None,
    also_keys: set[str] | None = None,
) -> RunData:
    """:class:`RunData` of a run read by :func:`load_run`, restricted to ``window`` if given.
    ``whole_run_extent``: also draw the overview raster of the whole run over that time span
    (``RunData.overview``: the page holds the details of ``window`` only). ``users``: {job id:
    user} of the run's workload (:func:`workload_users`), if known. ``also_keys``: with a
    window, the jobs of these full ids are kept too (:func:`window_keys` of the page's other
    runs: a job the window holds in one run is compared in every run)."""
    ran = executed_rows(raw)
    ran = ran.iloc[np.argsort(ran["starting_time"].to_numpy(dtype=float), kind="stable")]
    span = (float(jobs["submission_time"].min()), float(ran["finish_time"].max()))
    roots = root_keys(raw)
    job_rows, job_keys_all, classes = _jobs_columns(jobs, metrics["parameters"]["bound_s"], users)
    series = load_series(ran)
    overview = None
    if whole_run_extent is not None:
        whole = _rectangles(ran["allocated_resources"].to_numpy(dtype=object))
        start, end = ran["starting_time"].to_numpy(dtype=float), ran["finish_time"].to_numpy(dtype=float)
        overview = raster_of(whole, start, end, _attempt_codes(ran), int(metrics["hosts"]), *whole_run_extent)
        overview_series = {name: envelope(series, name, *whole_run_extent) for name in ("busy", "queued", "waiting")}
    if window is not None:
        ran = ran[_overlaps(ran["starting_time"], ran["finish_time"], *window)]
    attempts = _attempt_columns(ran, roots.loc[ran.index], job_keys_all)
    rects = _rectangles(ran["allocated_resources"].to_numpy(dtype=object))
    if window is not None:
        keep = _job_in_window(job_rows, *window)
        keep[attempts["job"]] = True  # every attempt drawn has its job's row
        if also_keys:
            keep |= pd.Index(job_keys_all).isin(also_keys)  # hashed: np.isin sorts objects, 100x slower
        renumber = np.cumsum(keep) - 1  # attempts point at job rows: renumber them to the rows kept
        attempts["job"] = renumber[attempts["job"]].astype(np.int32)
        job_rows = {name: column[keep] for name, column in job_rows.items()}
        job_keys_all = job_keys_all[keep]
        series = clip_series(series, *window)
    return RunData(
        energy=energy_in(read_energy(Path(metrics["source"]), span[1]), window),
        label=label,
        path=Path(metrics["source"]),
        hosts=int(metrics["hosts"]),
        metrics=metrics,
        span=span,
        attempts=attempts,
        rects=rects,
        jobs=job_rows,
        series=series,
        keys=job_keys_all,
        classes=classes,
        overview=overview,
        overview_series=overview_series if whole_run_extent is not None else None,
    )


def energy_in(energy: dict | None, window: tuple[float, float] | None) -> dict | None:
    """The power and host states of :func:`~.energy.read_energy` inside ``window`` (all without)."""
    if energy is None or window is None:
        return energy
    spans = energy["spans"]
    keep = (spans["left"] < window[1]) & (spans["right"] > window[0])
    return {
        "power": clip_series(energy["power"], *window) if len(energy["power"]["time"]) else energy["power"],
        "states": clip_series(energy["states"], *window) if len(energy["states"]["time"]) else energy["states"],
        "spans": {name: column[keep] for name, column in spans.items()},
    }


def _overlaps(start: pd.Series, finish: pd.Series, begin: float, end: float) -> np.ndarray:
    """Attempts running in [begin, end] (those of zero length at an instant inside it too),
    the rule of the Gantt PNG's clipping."""
    start_a, finish_a = start.to_numpy(dtype=float), finish.to_numpy(dtype=float)
    return ((start_a < end) & (finish_a > begin)) | ((start_a == finish_a) & (start_a >= begin) & (start_a <= end))


def window_keys(jobs: pd.DataFrame, window: tuple[float, float]) -> set[str]:
    """Full ids of the folded ``jobs`` a window keeps (:func:`build_run`'s rule)."""
    submit = jobs["submission_time"].to_numpy(dtype=float)
    finish = jobs["finish_time"].to_numpy(dtype=float)
    finish = np.where(np.isnan(finish), submit, finish)
    inside = (submit <= window[1]) & (finish >= window[0])
    return set(job_keys(jobs).to_numpy(dtype=object)[inside])


def _job_in_window(job_rows: dict, begin: float, end: float) -> np.ndarray:
    finish = np.where(np.isnan(job_rows["end"]), job_rows["submit"], job_rows["end"])
    return (job_rows["submit"] <= end) & (finish >= begin)


def _jobs_columns(
    jobs: pd.DataFrame, bound_s: float, users: dict[str, int] | None
) -> tuple[dict[str, np.ndarray], np.ndarray, dict[str, str]]:
    """The job table's columns (folded jobs, in submission order), each row's root key, and
    the shape groups' definitions. ``cls``: the job's shape group (index in
    :data:`~.colours.CLASS_NAMES`), by the whole run's median estimate and width; ``hue``:
    its colour value by job (:func:`~.colours.job_hue`); ``user``: -1 when unknown."""
    jobs = jobs.iloc[np.argsort(jobs["submission_time"].to_numpy(dtype=float), kind="stable")]
    ran = jobs["starting_time"].notna().to_numpy()
    runtime = (jobs["execution_time"] / jobs["scale"]).to_numpy(dtype=float)
    bsld = np.where(ran, bounded_slowdown_of(jobs["turnaround_time"], np.nan_to_num(runtime), bound_s), np.nan)
    states = jobs["final_state"].map(_STATE_CODES).fillna(len(STATE_WORDS) - 1)
    keys = job_keys(jobs).to_numpy(dtype=object)
    user = np.full(len(jobs), -1, dtype=np.int32)
    if users:
        user = jobs["job_id"].map(users).fillna(-1).to_numpy(dtype=np.int32)
    columns = {
        "id": job_labels(jobs).to_numpy(dtype=object),
        "size": jobs["requested_number_of_resources"].to_numpy(dtype=np.int32),
        "submit": jobs["submission_time"].to_numpy(dtype=float),
        "start": jobs["starting_time"].to_numpy(dtype=float),
        "end": jobs["finish_time"].to_numpy(dtype=float),
        "wait": jobs["waiting_time"].to_numpy(dtype=float),
        "bsld": bsld,
        "attempts": jobs["attempts"].to_numpy(dtype=np.int32),
        "state": states.to_numpy(dtype=np.uint8),
        "cls": shape_groups(jobs).map({name: i for i, name in enumerate(CLASS_NAMES)}).to_numpy(dtype=np.uint8),
        "hue": job_hue(keys),
        "user": user,
    }
    return columns, keys, shape_group_labels(jobs)


def shape_group_labels(jobs: pd.DataFrame) -> dict[str, str]:
    """What each shape group of :func:`~adaptsched.analysis.backfilling.shape_groups` holds,
    in words: its estimate and width, by the run's medians."""
    estimate = fmt.duration(float(jobs["requested_time"].astype(float).median()))
    width = float(jobs["requested_number_of_resources"].astype(float).median())
    width_text = f"{width:g} host" + ("s" if width != 1 else "")
    short, long_ = f"estimate <= {estimate}", f"estimate > {estimate}"
    narrow, wide = f"<= {width_text}", f"> {width_text}"
    return {"SN": f"{short}, {narrow}", "SW": f"{short}, {wide}", "LN": f"{long_}, {narrow}", "LW": f"{long_}, {wide}"}


def workload_users(path, jobs: pd.DataFrame, known: dict | None = None) -> dict[str, int]:
    """{job id: user} of the folded ``jobs`` of a run, from its Batsim JSON workload ``path``
    (the ``user`` key SWF conversion writes). A workload that is not the run's (a job of the
    run missing from it, or submitted at another time or with another size there) is refused
    with an :class:`InputError`: its users would colour the wrong jobs. ``known``: the
    workload's jobs already read (:func:`workload_jobs`)."""
    known = workload_jobs(path) if known is None else known
    users = {}
    for job_id, submit, size in zip(jobs["job_id"], jobs["submission_time"], jobs["requested_number_of_resources"]):
        job = known.get(job_id)
        if job is None or abs(float(job.get("subtime", -1)) - float(submit)) > 1e-3 or job.get("res") != size:
            there = (
                "has no such job"
                if job is None
                else f"has it submitted at {job.get('subtime')} s on {job.get('res')} hosts"
            )
            raise InputError(
                path,
                f"not the workload of this run: the run's job {job_id} (submitted at {submit:g} s on {size} hosts) is "
                f"not there as it ran (the workload {there}). Give the run's own workload (--workload)",
            )
        if isinstance(job.get("user"), int):
            users[job_id] = int(job["user"])
    return users


def workload_jobs(path) -> dict[str, dict]:
    """{job id (without its workload): job} of a Batsim JSON workload."""
    import json

    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError) as error:
        raise InputError(path, f"cannot read the workload: {error}") from None
    listed = data.get("jobs") if isinstance(data, dict) else None
    if not isinstance(listed, list):
        raise InputError(path, "not a Batsim JSON workload (no list of jobs)")
    return {str(job.get("id")).split("!", 1)[-1]: job for job in listed if isinstance(job, dict)}


def _attempt_codes(ran: pd.DataFrame) -> np.ndarray:
    """Category of each attempt of ``ran``: its index in :data:`CATEGORY_KEYS`."""
    index = {key: i for i, key in enumerate(CATEGORY_KEYS)}
    return np.array([index[c] for c in attempt_categories(ran)], dtype=np.uint8)


def _attempt_columns(ran: pd.DataFrame, roots: pd.Series, job_keys_all: np.ndarray) -> dict[str, np.ndarray]:
    """Columns of the executed attempts ``ran`` (in the order given; ``roots``: their root
    keys, found over the whole run): see the module doc."""
    codes = _attempt_codes(ran)
    row_of_key = pd.Series(np.arange(len(job_keys_all)), index=pd.Index(job_keys_all))
    job_row = row_of_key.reindex(roots.to_numpy()).to_numpy()
    if np.isnan(job_row).any():  # never: every root is a folded job
        raise AssertionError("an attempt without its folded job")
    metadata = ran["metadata"].to_numpy(dtype=object)
    parents = np.array([(parse_parent(text) or "") if "parent_job" in text else "" for text in metadata], dtype=object)
    if ran["workload_name"].nunique() <= 1:  # ids are shown without their workload
        parents = np.array([p.split("!", 1)[-1] for p in parents], dtype=object)
    return {
        "id": job_labels(ran).to_numpy(dtype=object),
        "parent": parents,
        "submit": ran["submission_time"].to_numpy(dtype=float),
        "start": ran["starting_time"].to_numpy(dtype=float),
        "end": ran["finish_time"].to_numpy(dtype=float),
        "hosts": ran["_alloc_size"].to_numpy(dtype=np.int32),
        "code": codes,
        "job": job_row.astype(np.int32),
    }


def _rectangles(allocations: np.ndarray) -> dict[str, np.ndarray]:
    """One rectangle per interval of each allocation text: ``attempt`` (position in
    ``allocations``), ``low``, ``high`` (host ids, inclusive)."""
    if not len(allocations):
        empty = np.zeros(0, dtype=np.int32)
        return {"attempt": empty, "low": empty, "high": empty}
    parts = pd.Series(allocations).str.split(" ").explode()
    pieces = parts.str.partition("-")
    low = pieces[0].to_numpy(dtype=np.int64)
    high_text = pieces[2].to_numpy(dtype=object)
    high = np.where(high_text == "", low, pd.to_numeric(pd.Series(high_text).replace("", "0")).to_numpy())
    return {
        "attempt": parts.index.to_numpy(dtype=np.int32),
        "low": low.astype(np.int32),
        "high": high.astype(np.int32),
    }


def load_series(ran: pd.DataFrame) -> dict[str, np.ndarray]:
    """Busy hosts, queued demand (hosts) and waiting jobs from each event time on, over the
    executed attempts ``ran``: ``{"time", "busy", "queued", "waiting"}`` (module doc)."""
    submit = ran["submission_time"].to_numpy(dtype=float)
    start = ran["starting_time"].to_numpy(dtype=float)
    finish = ran["finish_time"].to_numpy(dtype=float)
    size = alloc_columns(ran)[0].astype(np.int64)
    requested = ran["requested_number_of_resources"].to_numpy(dtype=np.int64)
    times = np.unique(np.concatenate([submit, start, finish]))

    def steps(begin: np.ndarray, end: np.ndarray, weight: np.ndarray) -> np.ndarray:
        delta = np.bincount(np.searchsorted(times, begin), weight, minlength=len(times))
        delta -= np.bincount(np.searchsorted(times, end), weight, minlength=len(times))
        return np.rint(np.cumsum(delta)).astype(np.int32)

    ones = np.ones(len(ran), dtype=np.int64)
    return {
        "time": times,
        "busy": steps(start, finish, size),
        "queued": steps(submit, start, requested),
        "waiting": steps(submit, start, ones),
    }


def clip_series(series: dict[str, np.ndarray], begin: float, end: float) -> dict[str, np.ndarray]:
    """The series inside [begin, end]: the value at ``begin``, the events inside, ``end``."""
    times = series["time"]
    before = int(np.searchsorted(times, begin, side="right")) - 1
    inside = np.flatnonzero((times > begin) & (times < end))
    out = {"time": np.concatenate(([begin], times[inside], [end]))}
    for name, values in series.items():
        if name == "time":
            continue
        first = values[before] if before >= 0 else 0
        last = values[inside[-1]] if len(inside) else first
        out[name] = np.concatenate(([first], values[inside], [last])).astype(values.dtype)
    return out


def mixed_hosts(labels: list[str], metrics: list[dict]) -> str | None:
    """Why runs of different machine sizes cannot share one page (None if they can)."""
    sizes = {m["hosts"] for m in metrics}
    if len(sizes) < 2:
        return None
    listed = ", ".join(f"{label} ({m['source']}): {m['hosts']} hosts" for label, m in zip(labels, metrics))
    return (
        f"these runs have different machine sizes ({listed}). Their Gantt charts would have different "
        "host axes and their utilisations different capacities: explore them on separate pages"
    )


def window_problem(window: tuple[float, float], spans: list[tuple[float, float]]) -> str | None:
    """Why ``window`` shows nothing of the runs (None if it overlaps at least one)."""
    begin, end = window
    if any(end >= first and begin <= last for first, last in spans):
        return None
    first = min(s[0] for s in spans)
    last = max(s[1] for s in spans)
    return (
        f"--window {begin:g}:{end:g} (seconds) lies outside the run{'s' if len(spans) > 1 else ''}, which "
        f"go{'' if len(spans) > 1 else 'es'} from the first submission at {first:g} s to the last finish "
        f"at {last:g} s: pick a window inside, e.g. {first:g}:{min(last, first + 86400):g}"
    )


#: Columns of the overview raster and of the decimated load series (full zoom-out).
OVERVIEW_BINS = 2000
OVERVIEW_ROWS = 512
IDLE = 255  # raster value of a pixel whose hosts were idle most of the time


def raster(run: RunData, begin: float, end: float, bins: int = OVERVIEW_BINS) -> tuple[np.ndarray, int]:
    """The overview of a run's Gantt chart over [begin, end]: :func:`raster_of` its rectangles."""
    a = run.attempts
    return raster_of(run.rects, a["start"], a["end"], a["code"], run.hosts, begin, end, bins)


def raster_of(
    rects: dict,
    start: np.ndarray,
    end_s: np.ndarray,
    codes: np.ndarray,
    hosts: int,
    begin: float,
    end: float,
    bins=OVERVIEW_BINS,
) -> tuple[np.ndarray, int]:
    """(image, hosts per row): pixel (row, bin) holds the category (index in
    :data:`CATEGORY_KEYS`) that occupied its hosts most of its time, or :data:`IDLE` when they
    were idle more than any category kept them busy. ``rects``: rectangles of attempts whose
    start, end and category are ``start``, ``end_s``, ``codes``."""
    per_row = -(-hosts // OVERVIEW_ROWS)
    rows = -(-hosts // per_row)
    width = (end - begin) / bins
    r = rects
    left = (start[r["attempt"]] - begin) / width
    right = (end_s[r["attempt"]] - begin) / width
    # host rows: a rectangle covers rows low // per_row .. high // per_row, in host units
    low, high = r["low"].astype(float) / per_row, (r["high"] + 1).astype(float) / per_row
    category = codes[r["attempt"]]
    busy = np.zeros((len(CATEGORY_KEYS), rows, bins), dtype=np.float32)
    for c in np.unique(category):
        mine = category == c
        busy[c] = _coverage(left[mine], right[mine], low[mine], high[mine], rows, bins)
    idle = 1.0 - busy.sum(axis=0)
    best = busy.argmax(axis=0)
    image = np.where(busy.max(axis=0) >= idle, best, IDLE).astype(np.uint8)
    return image, per_row


def _coverage(left, right, low, high, rows: int, bins: int) -> np.ndarray:
    """Fraction of each (row, bin) cell covered by the rectangles (x in bins, y in rows)."""
    # time: the part in each bin, as a difference array of full bins plus the two partial ends
    x0, x1 = np.clip(left, 0, bins), np.clip(right, 0, bins)
    b0, b1 = np.minimum(np.floor(x0).astype(int), bins - 1), np.minimum(np.floor(x1).astype(int), bins - 1)
    y0, y1 = np.clip(low, 0, rows), np.clip(high, 0, rows)
    r0, r1 = np.minimum(np.floor(y0).astype(int), rows - 1), np.minimum(np.ceil(y1).astype(int), rows)
    share = (y1 - y0) / np.maximum(r1 - r0, 1)  # spread a partial row range evenly over its rows
    same = b0 == b1
    time_diff = np.zeros((rows + 1, bins + 1), dtype=np.float64)
    for bins_at, weight in (
        (b0, np.where(same, x1 - x0, b0 + 1 - x0)),
        (b0 + 1, np.where(same, -(x1 - x0), x0 - b0)),
        (b1, np.where(same, 0.0, x1 - b1 - 1.0)),
        (b1 + 1, np.where(same, 0.0, -(x1 - b1))),
    ):
        w = weight * share
        np.add.at(time_diff, (r0, bins_at), w)
        np.add.at(time_diff, (r1, bins_at), -w)
    out = np.cumsum(np.cumsum(time_diff, axis=0), axis=1)[:rows, :bins]
    return np.clip(out, 0.0, 1.0)


def envelope(series: dict[str, np.ndarray], name: str, begin: float, end: float, bins: int = OVERVIEW_BINS):
    """(low, high) of the step function ``series[name]`` in each of ``bins`` equal time bins of
    [begin, end]: what a line drawn at one pixel per bin shows."""
    times, values = series["time"], series[name]
    edges = begin + (end - begin) * np.arange(bins + 1) / bins
    first = np.searchsorted(times, edges[:-1], side="right")  # events after each bin's start
    stop = np.searchsorted(times, edges[1:], side="left")  # ... and before its end
    carried = np.where(first > 0, values[np.maximum(first - 1, 0)], 0) if len(values) else np.zeros(bins)
    wide = np.float64 if values.dtype.kind == "f" else np.int64
    low, high = carried.astype(wide), carried.astype(wide)
    has = stop > first
    if has.any():
        starts = first[has]
        low_in = np.minimum.reduceat(values, starts) if len(values) else starts
        high_in = np.maximum.reduceat(values, starts) if len(values) else starts
        # reduceat runs to the next start: cut each segment at its own stop instead
        segment_ends = np.append(starts[1:], len(values))
        exact = stop[has] == segment_ends
        for i in np.flatnonzero(~exact):
            low_in[i] = values[starts[i] : stop[has][i]].min()
            high_in[i] = values[starts[i] : stop[has][i]].max()
        low[has] = np.minimum(low[has], low_in)
        high[has] = np.maximum(high[has], high_in)
    narrow = np.float32 if values.dtype.kind == "f" else np.int32
    return edges, low.astype(narrow), high.astype(narrow)


#: The most items (rectangles, attempts, jobs and load-series events, counted by
#: :func:`detail_window`) one page holds in detail: about 20 MB of HTML that headless Chromium
#: renders in a few seconds (docs/analysis.md). Bigger runs are aggregated.
MAX_ITEMS = 800_000


def detail_window(
    raws: list[pd.DataFrame], window: tuple[float, float] | None, max_items: int = MAX_ITEMS
) -> tuple[tuple[float, float] | None, dict | None]:
    """(window of the details, aggregation) of runs whose attempts ``raws`` (as read) share a page.

    Each executed attempt in ``window`` (the whole run if None) counts its rectangles + 5 items
    (itself, its job's row, its three load-series events). When they add up to at most
    ``max_items``: ``(window, None)``. Otherwise the details cover the attempts started
    first, from the window's start (or the first submission) up to the start time at which
    the count would pass ``max_items``, and the aggregation says by how much:
    ``{"items", "items_kept", "attempts", "attempts_kept", "window"}``.
    """
    starts, finishes, weights = [], [], []
    first = min(float(raw["submission_time"].min()) for raw in raws)
    for raw in raws:
        ran = executed_rows(raw)
        begin, finish = ran["starting_time"].to_numpy(dtype=float), ran["finish_time"].to_numpy(dtype=float)
        keep = (
            _overlaps(ran["starting_time"], ran["finish_time"], *window)
            if window is not None
            else np.ones(len(ran), bool)
        )
        starts.append(begin[keep])
        finishes.append(finish[keep])
        weights.append(ran["allocated_resources"].str.count(" ").to_numpy()[keep] + 6)
    start, weight = np.concatenate(starts), np.concatenate(weights)
    total = int(weight.sum())
    if total <= max_items:
        return window, None
    order = np.argsort(start, kind="stable")
    over = int(np.searchsorted(np.cumsum(weight[order]), max_items, side="right"))
    begin = window[0] if window is not None else first
    cut = max(float(start[order][over]), begin + 1.0)
    kept = start < cut
    info = {
        "items": total,
        "items_kept": int(weight[kept].sum()),
        "attempts": len(start),
        "attempts_kept": int(kept.sum()),
        "window": (begin, cut),
    }
    return (begin, cut), info
