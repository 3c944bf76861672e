"""Host ids: the pool of free hosts (first-fit, lowest ids)."""

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

    def allocate(self, n: int) -> list[int]:
        if n > len(self._free):
            raise ValueError(f"cannot allocate {n} hosts: only {len(self._free)} are free")
        hosts, self._free = self._free[:n], self._free[n:]
        return hosts

    def release(self, hosts: list[int]) -> None:
        self._free.extend(hosts)
        self._free.sort()
