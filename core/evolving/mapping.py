"""Algorithm 1 of Klein & Pérez (sec. 4.1): the node ids of each stage, in time order, and
the checks C2-C4 of a mapping.

C. Klein, C. Pérez, "Scheduling Rigid, Evolving Applications on Homogeneous Resources",
INRIA Research Report RR-7205, 2010.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import pairwise

from adaptsched.core.evolving.profiles import Scheduled

MAPPINGS = ("random", "lowest")


class NodeMapper:
    """Node ids of running applications (Algorithm 1's S_j^(i)), changed one application at
    a time: a shrinking application frees the nodes it acquired last, so its first ("driver")
    node stays (C4); a growing one takes free nodes at random (seeded) or the lowest ids."""

    def __init__(self, nb_hosts: int, mapping: str = "random", seed: int = 0):
        if mapping not in MAPPINGS:
            raise ValueError(f"unknown mapping {mapping!r}: choose one of {', '.join(MAPPINGS)}")
        self.nb_hosts = nb_hosts
        self.mapping = mapping
        self.rng = random.Random(seed)
        self.free: list[int] = list(range(nb_hosts))  # sorted
        self.held: dict[str, list[int]] = {}  # application -> its nodes, in acquisition order

    def hosts(self, app: str) -> list[int]:
        return self.held.get(app, [])

    def resize(self, app: str, n: int) -> list[int]:
        """Gives ``app`` exactly ``n`` nodes (shrinking or growing); returns its nodes."""
        held = self.held.setdefault(app, [])
        if n < len(held):
            freed = held[n:]
            del held[n:]
            self.free.extend(freed)
            self.free.sort()
        elif n > len(held):
            k = n - len(held)
            if k > len(self.free):
                raise ValueError(f"application {app}: needs {k} more nodes, only {len(self.free)} are free")
            if self.mapping == "lowest":
                taken = self.free[:k]
            else:
                taken = self.rng.sample(self.free, k)
            chosen = set(taken)
            self.free = [h for h in self.free if h not in chosen]
            held.extend(taken)
        if not held:
            del self.held[app]
        return list(held)


def map_nodes(
    scheduled: Sequence[Scheduled], nb_hosts: int, mapping: str = "random", seed: int = 0
) -> list[list[tuple[int, ...]]]:
    """Algorithm 1: the node ids of each stage of each application. Change points in time
    order; at each, shrinking applications (ends included) first, then growing ones (starts
    included), each in application order."""
    events: list[tuple[float, int, int, int, int]] = []  # (time, 0 shrink / 1 grow, app, stage, n)
    for a, s in enumerate(scheduled):
        previous = 0
        for k, (t, (_, n)) in enumerate(zip(s.starts(), s.stages)):
            events.append((t, 0 if n < previous else 1, a, k, n))
            previous = n
        events.append((s.end_s, 0, a, len(s.stages), 0))
    events.sort()
    mapper = NodeMapper(nb_hosts, mapping, seed)
    out: list[list[tuple[int, ...]]] = [[] for _ in scheduled]
    for _, _, a, k, n in events:
        hosts = mapper.resize(str(a), n)
        if k < len(scheduled[a].stages):
            out[a].append(tuple(hosts))
    return out


def mapping_problems(scheduled: Sequence[Scheduled], hosts: Sequence[Sequence[Sequence[int]]]) -> list[str]:
    """C2-C4 of a node mapping: each stage has exactly its n nodes (C2), no node serves two
    applications at once (C3), a shrink keeps a subset and a growth a superset of the
    previous stage's nodes, so the first node stays throughout (C4)."""
    problems = []
    spans: list[tuple[float, float, int, int]] = []
    for a, (s, stage_hosts) in enumerate(zip(scheduled, hosts)):
        previous: set[int] | None = None
        for k, (t, (d, n), nodes) in enumerate(zip(s.starts(), s.stages, stage_hosts)):
            now = set(nodes)
            if len(now) != n or len(nodes) != n:
                problems.append(f"application {a} stage {k}: {len(nodes)} nodes, not {n} (C2)")
            if previous is not None and not (now <= previous or now >= previous):
                problems.append(f"application {a} stage {k}: nodes neither a subset nor a superset (C4)")
            previous = now
            spans.extend((t, t + d, h, a) for h in nodes)
    spans.sort(key=lambda x: (x[2], x[0]))
    for (_, e0, h0, a0), (b1, _, h1, a1) in pairwise(spans):
        if h0 == h1 and a0 != a1 and b1 < e0:
            problems.append(f"node {h0} serves applications {a0} and {a1} at once at {b1:g} (C3)")
    return problems
