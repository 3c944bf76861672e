"""EASY backfilling with slack: a new backfilling rule through EASY's ``shadow`` hook
(docs/writing-a-scheduler.md, step 3).

EASY lets a job behind the head start now if it ends by the head's shadow time or keeps only
hosts the head will not need. With slack (Talby & Feitelson, "Supporting priorities and
improving utilization of the IBM SP scheduler using slack-based backfilling", IPPS 1999), a
backfilled job may also end up to ``slack_s`` seconds after the shadow time: the head may be
delayed that much, never more than the start it was promised when it became the head.
``slack_s=0`` schedules as ``easy``. The queue order and the recording of reservations are
``easy``'s own options, inherited: ``--option order=sjf`` works here too.
"""

from dataclasses import dataclass

from adaptsched.api import EasyBackfilling, ReservingOptions, option, plugin


@dataclass(frozen=True)
class SlackOptions(ReservingOptions):  # order and record_reservations, as easy's
    slack_s: float = option(1800.0, "how long a backfilled job may delay the head job (s)", low=0)


class MySlackEasy(EasyBackfilling):
    """EASY backfilling whose backfilled jobs may delay the head job by up to ``slack_s``."""

    name = "my-slack-easy"
    Options = SlackOptions

    def shadow(self, head, now):
        """EASY's shadow time, later by the slack, but never past the start promised to the head
        (its first reservation, which EASY records from this very hook)."""
        shadow_s, extra = super().shadow(head, now)
        promised = self.first_reservation.get(head.id, float("inf"))
        return max(shadow_s, min(shadow_s + self.options.slack_s, promised)), extra


plugin(MySlackEasy)
