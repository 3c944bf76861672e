"""Folding job attempts (kill + resubmit, copy + reject) into one row per original job.

A scheduler can run one user job through several Batsim jobs:

* **resubmission** (pybatsim's ``Batsim.resubmit_job``): the job is killed and a copy
  ``<id>#<n>`` is registered whose metadata is a Python dict literal such as
  ``{'parent_job': 'w0!1', 'nb_resubmit': 1}`` (``parent_job`` names the original job);
* **copy + reject**: a copy (metadata ``{'parent_job': 'w0!5'}``) is executed and the
  original is REJECTED.

Links come only from the ``parent_job`` key of the metadata (Python literal or JSON; Batsim
4.2.1 refuses double quotes in metadata, so real files hold Python literals). ``parent_job``
may be a full id ``WORKLOAD!ID`` or a bare id of the row's own workload; chains
(copy of a copy) are followed to the root.

The folded row of a group is the original job's row (submission time, requested size and
time, profile, metadata) with, from the **final attempt** (the executed attempt that started
last): ``starting_time``, ``execution_time``, ``finish_time``, ``allocated_resources``,
``final_state``, ``success``; ``waiting_time``, ``turnaround_time`` and ``stretch`` are
recomputed from the original submission. ``consumed_energy`` is the sum over attempts.
Two columns are added:

* ``attempts``: number of executed attempts (rejected ones do not count; 0 for a rejected job);
* ``wasted_node_s``: hosts x seconds consumed by the non-final attempts that did not complete
  successfully;
* ``scale``: the final attempt's runtime relative to the job's submitted shape (its
  metadata's ``scale``, written by adaptsched's job adaptation: 2.0 for a half-size copy;
  1.0 when absent), so that ``execution_time / scale`` is the job's runtime at its
  submitted width.

A group without any executed attempt folds to a REJECTED row. Rows without links are kept
unchanged (``attempts`` = 1 if executed else 0, ``wasted_node_s`` = 0).
"""

from __future__ import annotations

import ast
import json
import os
import re

import numpy as np
import pandas as pd

from .jobs import REJECTED, SUCCESS, alloc_columns, read_jobs_csv, resolve_jobs_path

_PARENT_RE = re.compile(r"""['"]parent_job['"]\s*:\s*['"]([^'"]+)['"]""")
_SCALE_RE = re.compile(r"""['"]scale['"]\s*:\s*([-+0-9.eE]+)""")


def scales(metadata: pd.Series) -> np.ndarray:
    """The ``scale`` of each metadata string (1.0 when absent or unreadable)."""
    found = metadata.str.extract(_SCALE_RE, expand=False)
    values = pd.to_numeric(found, errors="coerce").to_numpy(dtype=float)
    return np.where(np.isfinite(values) & (values > 0), values, 1.0)


def parse_parent(metadata: str) -> str | None:
    """The ``parent_job`` of a metadata string (Python literal, JSON, or near-miss)."""
    if not metadata or "parent_job" not in metadata:
        return None
    for parse in (ast.literal_eval, json.loads):
        try:
            value = parse(metadata)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if isinstance(value, dict) and value.get("parent_job") not in (None, ""):
            return str(value["parent_job"])
    match = _PARENT_RE.search(metadata)
    return match.group(1) if match else None


def job_keys(raw: pd.DataFrame) -> pd.Series:
    """``WORKLOAD!ID`` of every row (Batsim's full job id)."""
    return raw["workload_name"] + "!" + raw["job_id"]


def root_keys(raw: pd.DataFrame) -> pd.Series:
    """For each row, the full id of the original job it is an attempt of (itself if none)."""
    keys = job_keys(raw)
    meta = raw["metadata"]
    linked = meta.str.contains("parent_job", regex=False).to_numpy()
    if not linked.any():
        return keys
    parent: dict[str, str] = {}
    for key, workload, text in zip(keys[linked], raw["workload_name"][linked], meta[linked]):
        target = parse_parent(text)
        if target is None:
            continue
        if "!" not in target:
            target = f"{workload}!{target}"
        if target != key:
            parent[key] = target

    def root(key: str) -> str:
        seen = {key}
        while key in parent:
            key = parent[key]
            if key in seen:  # cycle: stop at the first repeated id
                break
            seen.add(key)
        return key

    return keys.map(lambda k: root(k) if k in parent else k)


def fold_attempts(raw: pd.DataFrame, roots: pd.Series | None = None) -> pd.DataFrame:
    """Fold a frame from :func:`read_jobs_csv` into one row per original job (see module doc)."""
    if roots is None:
        roots = root_keys(raw)
    keys = job_keys(raw).to_numpy()
    roots_a = roots.to_numpy()
    executed = raw["starting_time"].notna().to_numpy()
    folded = raw.copy().reset_index(drop=True)
    folded["attempts"] = executed.astype(np.int64)
    folded["wasted_node_s"] = 0.0
    raw_scale = (
        scales(raw["metadata"]) if raw["metadata"].str.contains("scale", regex=False).any() else np.ones(len(raw))
    )
    folded["scale"] = raw_scale
    linked = roots_a != keys
    if not linked.any():
        return folded

    rows = _group_rows(raw, keys, roots_a, executed, linked)
    ran = rows["executed"].to_numpy()
    # The original of each group: the root's own row, else the earliest submitted attempt.
    originals = (
        rows.sort_values(["root", "is_root", "sub", "row"], ascending=[True, False, True, True])
        .groupby("root", sort=False)
        .head(1)
        .set_index("root")
    )
    # The final attempt: the executed attempt that started (then finished) last.
    done = rows[ran].sort_values(["root", "start", "finish", "row"])
    finals = done.groupby("root", sort=False).tail(1).set_index("root")
    target = originals["row"]  # indexed by root
    _count_attempts(folded, target, done, finals)
    _name_absent_roots(folded, target, originals)
    with_final = target.index.isin(finals.index)
    energy = done[done["energy"] >= 0].groupby("root")["energy"].sum()
    _take_final_attempts(folded, raw, raw_scale, target, finals, with_final, energy)
    _never_ran(folded, target.to_numpy()[~with_final])
    drop = np.setdiff1d(rows["row"].to_numpy(), target.to_numpy())
    folded = folded.drop(index=drop).reset_index(drop=True)
    folded["attempts"] = folded["attempts"].astype(np.int64)
    folded["success"] = folded["success"].astype(np.int64)
    return folded


def _group_rows(
    raw: pd.DataFrame, keys: np.ndarray, roots_a: np.ndarray, executed: np.ndarray, linked: np.ndarray
) -> pd.DataFrame:
    """The rows of the groups of attempts (a root and the copies linked to it): their row
    number, root, times, state, energy and node-seconds."""
    # (pandas isin hashes; numpy's isin on object arrays is quadratic-slow)
    in_group = pd.Series(roots_a).isin(set(roots_a[linked])).to_numpy()
    rows = pd.DataFrame(
        {
            "row": np.flatnonzero(in_group),
            "root": roots_a[in_group],
            "is_root": (keys == roots_a)[in_group],
            "sub": raw["submission_time"].to_numpy()[in_group],
            "start": raw["starting_time"].to_numpy()[in_group],
            "finish": raw["finish_time"].to_numpy()[in_group],
            "runtime": raw["execution_time"].to_numpy()[in_group],
            "success": (raw["final_state"].to_numpy()[in_group] == SUCCESS),
            "energy": raw["consumed_energy"].to_numpy()[in_group],
            "executed": executed[in_group],
        }
    )
    ran = rows["executed"].to_numpy()
    sizes = alloc_columns(raw)[0][in_group]
    rows["node_s"] = np.where(ran, sizes * np.nan_to_num(rows["runtime"].to_numpy()), 0.0)
    return rows


def _count_attempts(folded: pd.DataFrame, target: pd.Series, done: pd.DataFrame, finals: pd.DataFrame) -> None:
    """Each group's attempts and wasted node-seconds (failed attempts but the final one)."""
    attempts = done.groupby("root").size().reindex(target.index, fill_value=0)
    wasted = done[~done["success"]].groupby("root")["node_s"].sum().reindex(target.index, fill_value=0.0)
    final_failed = finals.loc[~finals["success"], "node_s"].reindex(target.index, fill_value=0.0)
    folded.loc[target.to_numpy(), "attempts"] = attempts.to_numpy()
    folded.loc[target.to_numpy(), "wasted_node_s"] = (wasted - final_failed).to_numpy()


def _name_absent_roots(folded: pd.DataFrame, target: pd.Series, originals: pd.DataFrame) -> None:
    """Roots absent from the file: the folded row takes the root's id."""
    missing = ~originals["is_root"].to_numpy()
    if missing.any():
        parts = pd.Series(target.index[missing]).str.split("!", n=1, expand=True)
        folded.loc[target.to_numpy()[missing], "workload_name"] = parts[0].to_numpy()
        folded.loc[target.to_numpy()[missing], "job_id"] = parts[1].to_numpy()


def _take_final_attempts(
    folded: pd.DataFrame,
    raw: pd.DataFrame,
    raw_scale: np.ndarray,
    target: pd.Series,
    finals: pd.DataFrame,
    with_final: np.ndarray,
    energy: pd.Series,
) -> None:
    """A group's folded row takes its final attempt's start, runtime, end, hosts and state,
    the times derived from them, and the energy of all its attempts."""
    dest = target.to_numpy()[with_final]
    src = finals.loc[target.index[with_final], "row"].to_numpy()
    for column in ("starting_time", "execution_time", "finish_time", "allocated_resources", "final_state", "success"):
        folded.loc[dest, column] = raw[column].to_numpy()[src]
    folded.loc[dest, "scale"] = raw_scale[src]
    sub = raw["submission_time"].to_numpy()[dest]
    start = raw["starting_time"].to_numpy()[src]
    runtime = raw["execution_time"].to_numpy()[src]
    with np.errstate(divide="ignore", invalid="ignore"):
        folded.loc[dest, "waiting_time"] = start - sub
        folded.loc[dest, "turnaround_time"] = start + runtime - sub
        folded.loc[dest, "stretch"] = np.where(runtime > 0, (start + runtime - sub) / runtime, np.nan)
    folded.loc[dest, "consumed_energy"] = (
        energy.reindex(target.index[with_final])
        .fillna(pd.Series(raw["consumed_energy"].to_numpy()[src], index=target.index[with_final]))
        .to_numpy()
    )


def _never_ran(folded: pd.DataFrame, never: np.ndarray) -> None:
    """The groups without an executed attempt: rejected, no times, no hosts."""
    if len(never):
        for column in (
            "starting_time",
            "execution_time",
            "finish_time",
            "waiting_time",
            "turnaround_time",
            "stretch",
            "consumed_energy",
        ):
            folded.loc[never, column] = np.nan
        folded.loc[never, "allocated_resources"] = ""
        folded.loc[never, "final_state"] = REJECTED
        folded.loc[never, "success"] = 0


def load_jobs(path, fold: bool = True) -> pd.DataFrame:
    """One row per job of a Batsim ``_jobs.csv``.

    ``fold=True`` (default) folds attempts of the same job (see :mod:`.fold`) and adds the
    ``attempts`` and ``wasted_node_s`` columns; ``fold=False`` returns the file's rows
    unchanged (typed). ``path`` may also be a Batsim prefix (``/x/out/easy``).
    Raises :class:`adaptsched.errors.InputError` on bad input.
    """
    raw = read_jobs_csv(resolve_jobs_path(os.fspath(path)))
    if not fold:
        return raw
    folded = fold_attempts(raw)
    folded.attrs["source"] = raw.attrs.get("source")
    return folded
