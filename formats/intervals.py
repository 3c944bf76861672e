"""Interval sets of host ids, Batsim's ``"0-3 7"`` text (https://batsim.readthedocs.io, protocol).

Batsim's protocol and its ``_jobs.csv`` name an allocation by the maximal runs of its host ids,
lowest first, separated by spaces: hosts 0, 1, 2, 3 and 7 are ``"0-3 7"``. This module is the
one that writes and reads that text, for the engine, the schedulers' adapter and the analysis
(:class:`~adaptsched.core.intervals.IntervalSet` holds the runs and writes no text: a text
format belongs to ``formats``, above ``core``).

- :func:`text_of_runs`, :func:`hosts_text` and :func:`interval_text` write it from runs, an
  ``IntervalSet`` or sorted, distinct host ids (:func:`runs`);
- :func:`parse_runs` and :func:`parse_hosts` read it back, with Batsim's checks (ids >= 0,
  ``low <= high``), overlapping intervals merged as Batsim's ``IntervalSet`` merges them. It is
  hand-written: procset's ``ProcSet.from_str`` is about ten times slower on texts like
  ``"0-3 7 9-20"``, and the engine parses every EXECUTE_JOB;
- :func:`well_formed`, :func:`interval_counts` and :func:`alloc_stats` read many texts at
  once (a ``_jobs.csv`` column of 100,000 rows): the syntax, the number of intervals, the
  size and highest id of each (numpy);
- :func:`procset` builds pybatsim's allocation object (a procset ``ProcSet``) with its text;
  :func:`parse_procset` reads a text into one (evalys' Gantt charts take them).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import numpy as np
from procset import ProcInt, ProcSet

from adaptsched.core.intervals import IntervalSet, Run

#: The syntax of an interval-set text with at least one interval (``"0-3 7"``).
SYNTAX = re.compile(r"\d+(?:-\d+)?(?: \d+(?:-\d+)?)*")


# -- writing ---------------------------------------------------------------------------------
def runs(hosts: Iterable[int]) -> list[Run]:
    """Maximal runs of consecutive ids in sorted, distinct host ids: [0,1,2,3,7] -> [(0,3), (7,7)]."""
    return IntervalSet.from_ids(hosts).runs


def text_of_runs(pairs: Iterable[Run]) -> str:
    """Batsim's text of maximal runs: [(0, 3), (7, 7)] -> '0-3 7'."""
    return " ".join(str(a) if a == b else f"{a}-{b}" for a, b in pairs)


def hosts_text(hosts: IntervalSet) -> str:
    """Batsim's text of an :class:`~adaptsched.core.intervals.IntervalSet`: '0-3 7'."""
    return text_of_runs(hosts.runs)


def interval_text(hosts: Iterable[int]) -> str:
    """Batsim's interval-set text of sorted, distinct host ids: [0,1,2,3,7] -> '0-3 7'."""
    return text_of_runs(runs(hosts))


# -- reading one -----------------------------------------------------------------------------


def parse_hosts(text: str) -> list[int]:
    """Host ids of an interval-set text, sorted and distinct; ValueError if it is not one.

    >>> parse_hosts("0-3 7")
    [0, 1, 2, 3, 7]
    >>> parse_hosts("4-5 1-4")
    [1, 2, 3, 4, 5]
    """
    return list(parse_runs(text))


def parse_runs(text: str) -> IntervalSet:
    """:func:`parse_hosts` as an :class:`~adaptsched.core.intervals.IntervalSet` (its cost is the
    number of intervals in the text, not of hosts); ValueError if it is not one.

    >>> parse_runs("4-5 1-3 7").runs
    [(1, 5), (7, 7)]
    """
    pairs: list[tuple[int, int]] = []
    last = -1
    ordered = True
    for part in text.split():
        low_text, sep, high_text = part.partition("-")
        try:
            low = int(low_text)
            high = int(high_text) if sep else low
        except ValueError:
            raise ValueError(f"invalid interval set '{text}'") from None
        if low < 0 or high < low:
            raise ValueError(f"invalid interval '{part}' in '{text}'")
        if low <= last:
            ordered = False
        if ordered and pairs and low == last + 1:
            pairs[-1] = (pairs[-1][0], high)
        else:
            pairs.append((low, high))
        last = max(last, high)
    return IntervalSet(pairs) if ordered else IntervalSet.from_runs(pairs)


# -- pybatsim's and evalys' ProcSet -----------------------------------------------------------
_ITVS = ProcSet._itvs  # ProcSet's own slot: its list of ProcInt intervals


class Allocation(ProcSet):  # type: ignore[misc]  # procset has no type hints
    """A ProcSet made from a scheduler's runs, that knows its Batsim text (pybatsim sends
    ``str(job.allocation)``) and builds its intervals (ProcSet's list of ``ProcInt``) only when
    first read: pybatsim keeps every job's allocation for the whole run, and most are never read
    as a ProcSet (three objects fewer per job for the cyclic GC to scan, and no ``ProcInt``
    checks). A ProcSet operation that changes it, in place, forgets the text, and a new one made
    from it (``copy``, ``|``) has none: either one's text is ProcSet's."""

    __slots__ = ("_runs", "_text")

    _runs: tuple[Run, ...]
    _text: str | None

    @property
    def _itvs(self) -> list[ProcInt]:
        try:
            return _ITVS.__get__(self)  # type: ignore[no-any-return]
        except AttributeError:  # not built yet
            itvs = [ProcInt(a, b) for a, b in self._runs]
            _ITVS.__set__(self, itvs)
            return itvs

    @_itvs.setter
    def _itvs(self, itvs: list[ProcInt]) -> None:
        _ITVS.__set__(self, itvs)
        self._text = None

    def __str__(self) -> str:
        text = self._text
        return ProcSet.__str__(self) if text is None else text


class RunsText(str):
    """Batsim's text of maximal runs (``"0-3 7"``) that carries them (``runs``): the embedded
    engine, in the same process, takes the runs of an EXECUTE_JOB's ``alloc`` from it instead
    of parsing the text again (:meth:`~adaptsched.engines.embedded.batsim.EmbeddedBatsim.execute_decision`).
    Anywhere else it is the plain text (JSON writes it as a string). Made only by
    :func:`procset`, only of runs :func:`canonical` accepts, so ``parse_runs(text).runs == runs``."""

    runs: tuple[Run, ...]


def canonical(pairs: Sequence[Run]) -> bool:
    """Whether runs are what :func:`parse_runs` reads back from their text: sorted, ``0 <= low
    <= high`` (ints), disjoint and not adjacent (an IntervalSet's invariant, which it does not check)."""
    last = -2
    for low, high in pairs:
        if type(low) is not int or type(high) is not int or low <= last + 1 or high < low:
            return False
        last = high
    return True


def procset(hosts: Sequence[int] | IntervalSet) -> Allocation:
    """ProcSet of sorted, distinct host ids, or of an IntervalSet.

    ``ProcSet(*ids)`` merges its arguments one by one (seconds for a few thousand
    allocations); the maximal runs of sorted ids are already ProcSet's canonical
    interval list, so it is made from them when first read (checked against ``ProcSet(*ids)``
    in the tests), with its text, which pybatsim would otherwise format again (a
    :class:`RunsText` when the runs are canonical).
    """
    # a copy (a tuple): the scheduler may change its list later
    pairs = tuple(hosts.runs if isinstance(hosts, IntervalSet) else runs(hosts))
    result = Allocation.__new__(Allocation)  # no ProcSet.__init__: no intervals yet
    result._runs = pairs
    text = text_of_runs(pairs)
    if canonical(pairs):
        text = RunsText(text)
        text.runs = pairs
    result._text = text
    return result


def parse_procset(text: str) -> Allocation:
    """The ProcSet of an interval-set text (``ProcSet.from_str``'s result, ten times faster):
    ``parse_procset("4-5 1-3 7")`` is hosts 1-5 and 7; ValueError if it is not one."""
    return procset(parse_runs(text))


# -- reading many ----------------------------------------------------------------------------
def well_formed(texts: Iterable[object]) -> np.ndarray:
    """Whether each text is an interval set of at least one interval (its syntax: ids and
    ``low-high`` pairs separated by single spaces), as a boolean array."""
    match = SYNTAX.fullmatch
    return np.fromiter((isinstance(t, str) and match(t) is not None for t in texts), dtype=bool)


def interval_counts(texts: Iterable[object]) -> np.ndarray:
    """The number of intervals of each text (0 for an empty one), as an int64 array."""
    return np.fromiter((t.count(" ") + 1 if t else 0 for t in map(str, texts)), dtype=np.int64)


_POW10 = 10.0 ** np.arange(19)


def alloc_stats(allocations: Iterable[object]) -> tuple[np.ndarray, np.ndarray]:
    """Number of hosts and highest host id of each interval-set string (0 and -1 if empty).

    Vectorised with numpy over the concatenated text: parsing each string costs microseconds
    and fragmented allocations hold hundreds of intervals, far too slow for 100k jobs.
    Strings must be valid, non-overlapping interval sets (``analysis.jobs.read_jobs_csv``
    checks them).
    """
    texts = [str(t) for t in allocations]
    count = len(texts)
    sizes = np.zeros(count, dtype=np.int64)
    tops = np.full(count, -1, dtype=np.int64)
    if count == 0:
        return sizes, tops
    lengths = np.fromiter((len(t) for t in texts), dtype=np.int64, count=count)
    row_start = np.concatenate(([0], np.cumsum(lengths + 1)[:-1]))
    buf = np.frombuffer(" ".join(texts).encode("ascii", errors="replace"), dtype=np.uint8)
    digit = (buf >= 48) & (buf <= 57)
    if not digit.any():
        return sizes, tops
    before = np.concatenate(([False], digit[:-1]))
    after = np.concatenate((digit[1:], [False]))
    starts = np.flatnonzero(digit & ~before)
    ends = np.flatnonzero(digit & ~after) + 1  # exclusive
    positions = np.flatnonzero(digit)
    run = np.cumsum((digit & ~before)[positions]) - 1
    exponent = np.minimum(ends[run] - positions - 1, 18)
    weights = (buf[positions] - 48) * _POW10[exponent]
    values = np.rint(np.bincount(run, weights=weights, minlength=len(starts))).astype(np.int64)
    high_bound = np.zeros(len(starts), dtype=bool)
    high_bound[starts > 0] = buf[starts[starts > 0] - 1] == ord("-")
    low = np.flatnonzero(~high_bound)
    nxt = low + 1
    has_high = np.zeros(len(low), dtype=bool)
    inside = nxt < len(starts)
    has_high[inside] = high_bound[nxt[inside]]
    high = values[low].copy()
    high[has_high] = values[nxt[has_high]]
    row = np.searchsorted(row_start, starts[low], side="right") - 1
    sizes += np.bincount(row, weights=high - values[low] + 1, minlength=count).astype(np.int64)
    rows, first = np.unique(row, return_index=True)
    tops[rows] = np.maximum.reduceat(np.maximum(high, values[low]), first)
    return sizes, tops
