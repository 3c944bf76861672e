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

    def take(self, hosts: list[int]) -> None:
        """Marks these free hosts as used (a what-if simulation resuming a running job)."""
        gone = set(hosts)
        if len(gone) != len(hosts) or not gone.issubset(self._free):
            raise ValueError(f"cannot take hosts {hosts}: not all free")
        self._free = [h for h in self._free if h not in gone]

    def release(self, hosts: list[int]) -> None:
        self._free.extend(hosts)
        self._free.sort()
