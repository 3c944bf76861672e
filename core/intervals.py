"""Sets of host ids as sorted runs (procset's representation), and maps of runs to values.

A job of 50,000 hosts is one run ``(0, 49999)``, not 50,000 list items: allocating it,
releasing it, checking it and writing it cost the number of its runs, not its width
(docs/scale.md). Batsim writes the same runs as its interval-set text ``"0-3 7"``:
:mod:`adaptsched.formats.intervals` writes and reads that text (a format, above ``core``).

- :class:`IntervalSet`: sorted, disjoint, non-adjacent runs ``(low, high)`` (inclusive), their
  number of hosts kept; iterating it yields the host ids (for code that wants them one by one);
- :class:`IntervalMap`: a value for every host id of ``0..n-1``, kept as runs of equal values
  (the engine's "which job is on this host", "when did this host last change state").
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Iterator
from typing import Generic, TypeVar

Run = tuple[int, int]
V = TypeVar("V")


class IntervalSet:
    """Host ids as maximal runs, lowest first: {0, 1, 2, 3, 7} is ``[(0, 3), (7, 7)]``.

    >>> hosts = IntervalSet.from_ids([0, 1, 2, 3, 7])
    >>> hosts, len(hosts), 7 in hosts, list(hosts)
    (IntervalSet([(0, 3), (7, 7)]), 5, True, [0, 1, 2, 3, 7])
    >>> list(IntervalSet([(0, 1)]) | IntervalSet([(5, 5)]))
    [0, 1, 5]
    """

    __slots__ = ("runs", "size")

    def __init__(self, runs: Iterable[Run] = ()):
        """From runs already sorted, disjoint and non-adjacent (see :meth:`from_runs` otherwise)."""
        self.runs: list[Run] = list(runs)
        self.size = sum(b - a + 1 for a, b in self.runs)

    @classmethod
    def from_ids(cls, hosts: Iterable[int]) -> IntervalSet:
        """From sorted, distinct host ids."""
        result: list[Run] = []
        start = prev = -2
        for host in hosts:
            if host == prev + 1:
                prev = host
                continue
            if prev >= 0:
                result.append((start, prev))
            start = prev = host
        if prev >= 0:
            result.append((start, prev))
        return cls(result)

    @classmethod
    def from_runs(cls, runs: Iterable[Run]) -> IntervalSet:
        """From any runs ``low <= high``: sorted, overlapping and adjacent ones merged."""
        merged: list[list[int]] = []
        for a, b in sorted(runs):
            if merged and a <= merged[-1][1] + 1:
                if b > merged[-1][1]:
                    merged[-1][1] = b
            else:
                merged.append([a, b])
        return cls((a, b) for a, b in merged)

    def __len__(self) -> int:
        return self.size

    def __iter__(self) -> Iterator[int]:
        for a, b in self.runs:
            yield from range(a, b + 1)

    def __contains__(self, host: object) -> bool:
        if not isinstance(host, int):
            return False
        i = bisect_right(self.runs, host, key=lambda run: run[0]) - 1
        return i >= 0 and host <= self.runs[i][1]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, IntervalSet):
            return self.runs == other.runs
        if isinstance(other, (list, tuple)):
            return len(other) == self.size and list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"IntervalSet({self.runs!r})"

    def __or__(self, other: IntervalSet) -> IntervalSet:
        return IntervalSet.from_runs(self.runs + other.runs)

    def max(self) -> int:
        return self.runs[-1][1]

    def split_lowest(self, n: int) -> tuple[IntervalSet, IntervalSet]:
        """(the ``n`` lowest ids, the others); ``n`` at most the size."""
        rest = list(self.runs)
        return IntervalSet(take_lowest(rest, n)), IntervalSet(rest)


def take_lowest(runs: list[Run], n: int) -> list[Run]:
    """Cuts the ``n`` lowest ids out of ``runs`` (sorted, disjoint; at least ``n`` ids), in
    place, and returns them as runs: the cost is the runs taken, not their width (first fit,
    lowest ids: :class:`adaptsched.core.hosts.HostPool` allocates this way)."""
    taken: list[Run] = []
    i = 0
    while n > 0:
        a, b = runs[i]
        width = b - a + 1
        if width <= n:
            taken.append((a, b))
            n -= width
            i += 1
        else:
            taken.append((a, a + n - 1))
            runs[i] = (a + n, b)
            n = 0
    del runs[:i]
    return taken


class IntervalMap(Generic[V]):
    """A value for each host id of ``0..n-1``, as runs of equal values: piece ``i`` covers
    ``starts[i]`` to ``starts[i + 1] - 1``. Assigning a run costs the pieces it covers."""

    __slots__ = ("n", "starts", "values")

    def __init__(self, n: int, value: V):
        self.n = n
        self.starts: list[int] = [0]
        self.values: list[V] = [value]

    def _cut(self, x: int) -> int:
        """Index of the piece starting at ``x`` (0 < x < n), splitting the piece holding it."""
        i = bisect_right(self.starts, x) - 1
        if self.starts[i] != x:
            i += 1
            self.starts.insert(i, x)
            self.values.insert(i, self.values[i - 1])
        return i

    def assign(self, low: int, high: int, value: V) -> None:
        """Hosts ``low..high`` take ``value``."""
        i = self._cut(low) if low > 0 else 0
        j = self._cut(high + 1) if high + 1 < self.n else len(self.starts)
        self.starts[i:j] = [low]
        self.values[i:j] = [value]
        if i + 1 < len(self.starts) and self.values[i + 1] == value:  # merge equal neighbours
            del self.starts[i + 1], self.values[i + 1]
        if i > 0 and self.values[i - 1] == value:
            del self.starts[i], self.values[i]

    def pieces(self, low: int, high: int) -> Iterator[tuple[int, int, V]]:
        """(first, last, value) of each piece over hosts ``low..high``, lowest first."""
        starts, values = self.starts, self.values
        i = bisect_right(starts, low) - 1
        while i < len(starts) and starts[i] <= high:
            end = starts[i + 1] - 1 if i + 1 < len(starts) else self.n - 1
            yield max(low, starts[i]), min(high, end), values[i]
            i += 1

    def counts(self) -> Iterator[tuple[V, int]]:
        """(value, number of hosts) of every piece."""
        bounds = self.starts[1:] + [self.n]
        for start, end, value in zip(self.starts, bounds, self.values):
            yield value, end - start

    def to_list(self) -> list[V]:
        """Every host's value (for tests)."""
        return [value for value, count in self.counts() for _ in range(count)]
