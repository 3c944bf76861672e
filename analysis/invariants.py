"""Schedule invariants checked on any Batsim ``_jobs.csv`` (all attempts, unfolded).

:func:`check_invariants` returns the list of violations (empty when the schedule is sound):

* no host runs two attempts at once (an attempt holds its hosts over [start, finish));
* no attempt starts before its submission; every allocation has the requested size (but
  jobs a scheduler molded natively, metadata ``molded``) and only hosts below the machine size;
* with ``guarantees``: no job starts (its first executed attempt, copies included) later
  than the first guarantee its scheduler wrote in its metadata (``reservation_s``), to within
  ``GUARANTEE_EPS_S`` (10 us: see :mod:`.backfilling`);
* killed attempts are never completions: a folded job counts as completed only if its
  final attempt ended COMPLETED_SUCCESSFULLY (:mod:`.fold`); no job completes twice (two
  successful attempts; the stage and hold copies of an evolving application, metadata
  ``kind`` ``stage`` or ``hold``, are parts of one run); a completed job's final attempt ran no longer than its walltime
  (at its width: the submitted walltime times the attempt's ``scale``).

Vectorised (numpy): a year of CTC-SP2 with its copies checks in about a second.
"""

from __future__ import annotations

from itertools import chain

import numpy as np
import pandas as pd

from adaptsched.core.units import EPS_S

from ..formats.intervals import parse_hosts
from .backfilling import GUARANTEE_EPS_S, reservations
from .fold import fold_attempts, root_keys
from .jobs import SUCCESS, alloc_columns, with_alloc_columns


def _host_rows(raw: pd.DataFrame, ran: np.ndarray):
    """(host, start, finish, row) of every host of every executed attempt."""
    executed = np.flatnonzero(ran)
    hosts = [parse_hosts(str(text)) for text in raw["allocated_resources"].to_numpy()[executed]]
    sizes = np.fromiter(map(len, hosts), dtype=np.int64, count=len(hosts))
    rows = np.repeat(executed, sizes)
    host = np.fromiter(chain.from_iterable(hosts), dtype=np.int64, count=int(sizes.sum()))
    return (
        host,
        raw["starting_time"].to_numpy(dtype=float)[rows],
        raw["finish_time"].to_numpy(dtype=float)[rows],
        rows,
    )


def check_invariants(raw: pd.DataFrame, nb_hosts: int, *, guarantees: bool = False, limit: int = 5) -> list[str]:
    """Violations of the module doc's invariants in an unfolded frame (at most ``limit``
    examples per invariant)."""
    raw = with_alloc_columns(raw)
    problems = []
    ids = raw["job_id"].to_numpy()
    ran = raw["starting_time"].notna().to_numpy()
    start = raw["starting_time"].to_numpy(dtype=float)
    sub = raw["submission_time"].to_numpy(dtype=float)

    early = np.flatnonzero(ran & (start < sub - EPS_S))
    problems += [f"job {ids[i]} starts at {start[i]} before its submission {sub[i]}" for i in early[:limit]]
    sizes, tops = alloc_columns(raw)
    molded = raw["metadata"].str.contains("'molded'", regex=False).to_numpy()  # natively molded
    wrong = np.flatnonzero(
        ran & (((sizes != raw["requested_number_of_resources"].to_numpy()) & ~molded) | (tops >= nb_hosts))
    )
    problems += [
        f"job {ids[i]} has {sizes[i]} hosts up to {tops[i]}, requested "
        f"{raw['requested_number_of_resources'].iat[i]} of {nb_hosts}"
        for i in wrong[:limit]
    ]

    host, begin, end, row = _host_rows(raw, ran)
    order = np.lexsort((begin, host))
    host, begin, end, row = host[order], begin[order], end[order], row[order]
    clash = np.flatnonzero((host[1:] == host[:-1]) & (begin[1:] < end[:-1] - EPS_S))
    problems += [
        f"host {host[k]} runs jobs {ids[row[k]]} and {ids[row[k + 1]]} at once ({begin[k + 1]} < {end[k]})"
        for k in clash[:limit]
    ]

    roots = root_keys(raw)
    if guarantees:
        promised = pd.Series(
            reservations(raw).to_numpy(), index=(raw["workload_name"] + "!" + raw["job_id"]).to_numpy()
        )
        first_start = pd.Series(np.where(ran, start, np.nan)).groupby(roots.to_numpy()).min()
        both = pd.concat(
            [promised.dropna().groupby(level=0).first(), first_start], axis=1, keys=["promised", "start"]
        ).dropna()
        late = both[both["start"] > both["promised"] + GUARANTEE_EPS_S]
        problems += [
            f"job {key} starts at {r.start} after its guarantee {r.promised}" for key, r in late.head(limit).iterrows()
        ]

    folded = fold_attempts(raw, roots)
    done = folded["final_state"].to_numpy() == SUCCESS
    has_walltime = folded["requested_time"].to_numpy(dtype=float) > 0  # Batsim's -1: none
    over = (
        done
        & has_walltime
        & (
            folded["execution_time"].to_numpy(dtype=float)
            > folded["requested_time"].to_numpy(dtype=float) * folded["scale"].to_numpy() + EPS_S
        )
    )
    # the stages of an evolving application (and their holds) each complete: they are parts
    # of one run of the application, not repeated completions
    parts = raw["metadata"].str.contains("'kind': 'stage'|'kind': 'hold'", regex=True).to_numpy()
    successes = pd.Series((raw["final_state"].to_numpy() == SUCCESS) & ~parts).groupby(roots.to_numpy()).sum()
    problems += [f"job {key} completed {n} times" for key, n in successes[successes > 1].head(limit).items()]
    problems += [
        f"job {folded['job_id'].iat[i]} completed after running past its walltime" for i in np.flatnonzero(over)[:limit]
    ]
    return problems
