"""EASY whose backfilling delays its head (as greedyBackfill.py), and which then withdraws the
reservation of a head it starts late, as if the promise had ended (``adaptsched check`` must
catch it: a withdrawal cannot excuse a promise already broken).
"""

from adaptsched.api import EasyBackfilling, plugin


class Hider(EasyBackfilling):
    name = "hidden-late-start"

    def shadow(self, head, now):
        shadow_s, _ = super().shadow(head, now)
        return shadow_s, self.pool.nb_free  # wrong: the hosts the head needs are counted extra

    def start(self, job, now, hosts=None):
        due = self.first_reservation.get(job.id)
        if due is not None and now > due:
            self.withdraw(job, now)  # hides the broken promise: after it was due
        return super().start(job, now, hosts)


plugin(Hider)
