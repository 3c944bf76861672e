"""A run's power and host power states, for the explorer, when Batsim's energy model ran
(``--energy``, docs/energy.md); None for a run without its energy files.

* ``power``: the platform's power in watts, a step function: from one row of
  ``PREFIX_consumed_energy.csv`` to the next, the energy difference over the time difference
  (the mean power of that interval; Batsim's ``epower`` column is the same quotient, at the
  interval's end). Batsim writes a row at every job start and end and every power-state
  request and completion: the power is constant in between, so the step is exact.
* ``states``: the hosts asleep and the hosts switching (on or off), from
  ``PREFIX_machine_states.csv`` (``nb_sleeping``, ``nb_switching_on + nb_switching_off``).
* ``spans``: each host's time asleep and switching, as rectangles of the Gantt chart, from
  ``PREFIX_pstate_changes.csv``: ``-2`` starts a switch-off, ``-1`` a switch-on, and the pstate
  that completes a switch-off is a sleep state. Hosts of one row with the same span are one
  rectangle.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ...errors import InputError
from ...formats.intervals import parse_runs

#: Host power states drawn on the Gantt chart, in ``spans["state"]`` order.
SPAN_STATES = ("switching off", "asleep", "switching on")


def energy_files(jobs_path: Path) -> dict[str, Path] | None:
    """The energy files beside the run's ``_jobs.csv`` (None without ``_consumed_energy.csv``)."""
    text = str(jobs_path)
    base = text[: -len("_jobs.csv")] if text.endswith("_jobs.csv") else text
    files = {name: Path(f"{base}_{name}.csv") for name in ("consumed_energy", "pstate_changes", "machine_states")}
    return files if files["consumed_energy"].is_file() else None


def read_energy(jobs_path: Path, end_s: float) -> dict | None:
    """``{"power": {time, watts}, "states": {time, sleeping, switching}, "spans": {left, right,
    bottom, top, state}}`` of the run whose ``_jobs.csv`` is ``jobs_path`` (module doc); None
    when it ran without the energy model. ``end_s``: the run's end (its last job's); spans still
    open at the end of the records stop there, or at the last record if later."""
    files = energy_files(jobs_path)
    if files is None:
        return None
    power, states = power_series(files["consumed_energy"]), state_series(files["machine_states"])
    # hosts switched off after the last job ends stay asleep to the end of the records
    end_s = max([end_s, *power["time"][-1:], *states["time"][-1:]])
    return {"power": power, "states": states, "spans": host_spans(files["pstate_changes"], end_s)}


def power_series(path: Path) -> dict[str, np.ndarray]:
    """The platform's power (module doc): ``watts[i]`` from ``time[i]`` to ``time[i + 1]``; the
    last row holds the last time, and the last interval's watts again (a step line ends there);
    rows that change nothing are left out (:func:`changes`)."""
    try:
        frame = pd.read_csv(path, usecols=["time", "energy"], dtype=float)
    except (ValueError, pd.errors.ParserError) as error:
        raise InputError(path, f"not a Batsim _consumed_energy.csv (time,energy,... columns): {error}") from error
    times, energy = frame["time"].to_numpy(), frame["energy"].to_numpy()
    if len(times) and (np.diff(times) < 0).any():
        raise InputError(path, "its times go backwards: not a Batsim _consumed_energy.csv")
    # the energy at each distinct time (several rows at one instant: the last one holds)
    last = np.r_[times[1:] != times[:-1], True][: len(times)]
    times, energy = np.r_[0.0, times[last]], np.r_[0.0, energy[last]]
    if len(times) > 1 and times[1] == 0.0:
        times, energy = times[1:], energy[1:]
    if len(times) < 2:  # no interval: no curve
        return {"time": np.zeros(0), "watts": np.zeros(0)}
    watts = np.diff(energy) / np.diff(times)
    # float32: 7 digits, a hundredth of a watt below 100 kW: what a curve shows
    return changes({"time": times, "watts": np.r_[watts, watts[-1:]].astype(np.float32)})


def state_series(path: Path) -> dict[str, np.ndarray]:
    """Hosts asleep and switching, as ``_machine_states.csv`` counts them (empty without it)."""
    if not path.is_file():
        return {"time": np.zeros(0), "sleeping": np.zeros(0, np.int32), "switching": np.zeros(0, np.int32)}
    frame = pd.read_csv(path)
    needed = {"time", "nb_sleeping", "nb_switching_on", "nb_switching_off"}
    if not needed <= set(frame.columns):
        raise InputError(path, f"no {', '.join(sorted(needed - set(frame.columns)))} column: written without --energy?")
    return changes(
        {
            "time": frame["time"].to_numpy(dtype=float),
            "sleeping": frame["nb_sleeping"].to_numpy(dtype=np.int32),
            "switching": (frame["nb_switching_on"] + frame["nb_switching_off"]).to_numpy(dtype=np.int32),
        }
    )


def changes(series: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The rows of a step series where a value changes, and its last row (where the step ends):
    the same curve, drawn with fewer points (most rows of a run of delay jobs change neither
    the power nor the hosts asleep)."""
    values = [column for name, column in series.items() if name != "time"]
    if len(series["time"]) < 3:
        return series
    changed = np.zeros(len(series["time"]), dtype=bool)
    changed[0] = changed[-1] = True
    for column in values:
        changed[1:] |= column[1:] != column[:-1]
    return {name: column[changed] for name, column in series.items()}


def host_spans(path: Path, end_s: float) -> dict[str, np.ndarray]:
    """Each host's spans switching off, asleep and switching on (module doc) as rectangles."""
    empty = {"time": np.zeros(0), "host": np.zeros(0, np.int64), "pstate": np.zeros(0, np.int64)}
    events = _host_events(path) if path.is_file() else empty
    order = np.lexsort((np.arange(len(events["host"])), events["host"]))  # by host, then in file order
    host, time_s, pstate = events["host"][order], events["time"][order], events["pstate"][order]
    same_before = np.r_[False, host[1:] == host[:-1]]
    same_after = np.r_[host[1:] == host[:-1], False]
    after_off = same_before & (np.r_[0, pstate[:-1]] == -2)  # a switch-off completed: asleep from now
    state = np.where(pstate == -2, 0, np.where(pstate == -1, 2, np.where(after_off & (pstate >= 0), 1, -1)))
    end = np.where(same_after, np.r_[time_s[1:], 0.0], np.maximum(end_s, time_s))
    kept = (state >= 0) & (end > time_s)  # a switch requested as the records end: nothing to draw
    return _merged(time_s[kept], end[kept], host[kept], state[kept])


def _host_events(path: Path) -> dict[str, np.ndarray]:
    """``_pstate_changes.csv`` one row per host: {time, host, pstate}."""
    frame = pd.read_csv(path, dtype={"machine_id": str})
    try:
        runs = [parse_runs(text).runs for text in frame["machine_id"]]
    except (ValueError, AttributeError) as error:
        raise InputError(path, f"machine_id: not an interval set of hosts ({error})") from error
    lows = np.array([low for pairs in runs for low, _ in pairs], dtype=np.int64)
    highs = np.array([high for pairs in runs for _, high in pairs], dtype=np.int64)
    row_of_run = np.repeat(np.arange(len(runs)), [len(pairs) for pairs in runs])
    sizes = highs - lows + 1
    row = np.repeat(row_of_run, sizes)
    host = np.repeat(lows, sizes) + np.arange(sizes.sum()) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    return {
        "time": frame["time"].to_numpy(dtype=float)[row],
        "host": host,
        "pstate": frame["new_pstate"].to_numpy(dtype=np.int64)[row],
    }


def _merged(start: np.ndarray, end: np.ndarray, host: np.ndarray, state: np.ndarray) -> dict[str, np.ndarray]:
    """Spans of neighbouring hosts with the same start, end and state as one rectangle."""
    order = np.lexsort((host, end, start, state))
    start, end, host, state = start[order], end[order], host[order], state[order]
    same = (start[1:] == start[:-1]) & (end[1:] == end[:-1]) & (state[1:] == state[:-1]) & (host[1:] == host[:-1] + 1)
    first = np.flatnonzero(np.r_[True, ~same])
    last = np.r_[first[1:], len(host)] - 1
    return {
        "left": start[first],
        "right": end[first],
        "bottom": host[first].astype(np.int32),
        "top": (host[last] + 1).astype(np.int32),
        "state": state[first].astype(np.uint8),
    }
