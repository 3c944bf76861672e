"""EASY in arrival order whose backfilling takes hosts its head needs (``adaptsched check`` must
catch it).

The head's reservation is its true shadow time, recorded as EASY records it; but every free host
is counted as an extra one (hosts the head will not need at its shadow time), so a job that fits
now starts even when it will still hold the head's hosts then: the head starts after the start
it was promised. In arrival order the head never loses its place, so that promise held.
"""

from adaptsched.api import EasyBackfilling, plugin


class Greedy(EasyBackfilling):
    name = "greedy-backfill"

    def shadow(self, head, now):
        shadow_s, _ = super().shadow(head, now)
        return shadow_s, self.pool.nb_free  # wrong: the hosts the head needs are counted extra


plugin(Greedy)
