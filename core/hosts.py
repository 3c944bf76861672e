"""Host ids: the pool of free hosts (first-fit, lowest ids) and Batsim's interval sets."""

from __future__ import annotations


class HostPool:
    """Free host ids, kept sorted; jobs get the lowest free ids (non-contiguous)."""

    __slots__ = ("_free", "nb_hosts")

    def __init__(self, nb_hosts: int):
        self.nb_hosts = nb_hosts
        self._free = list(range(nb_hosts))

    @property
    def nb_free(self) -> int:
        return len(self._free)

    def allocate(self, n: int) -> list:
        if n > len(self._free):
            raise ValueError(f"cannot allocate {n} hosts: only {len(self._free)} are free")
        hosts, self._free = self._free[:n], self._free[n:]
        return hosts

    def release(self, hosts):
        self._free.extend(hosts)
        self._free.sort()


def runs(hosts) -> list:
    """Maximal runs of consecutive ids in sorted, distinct host ids: [0,1,2,3,7] -> [(0,3), (7,7)]."""
    result = []
    start = prev = None
    for host in hosts:
        if prev is not None and host == prev + 1:
            prev = host
            continue
        if start is not None:
            result.append((start, prev))
        start = prev = host
    if start is not None:
        result.append((start, prev))
    return result


def interval_text(hosts) -> str:
    """Batsim's interval-set text of sorted, distinct host ids: [0,1,2,3,7] -> '0-3 7'."""
    return " ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs(hosts))
