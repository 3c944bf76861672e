"""EASY backfilling with an express lane: a new queue order through EASY's ``queue_order`` hook
(docs/writing-a-scheduler.md, step 3).

Many centres give short jobs a queue of their own, served first. Here a job that requests at
most ``express_s`` seconds goes ahead of every longer one; within each lane, jobs keep the order
that ``easy``'s own ``order`` option names (arrival order by default). The rest is EASY's pass,
unchanged: the head of this order holds the reservation; when a short job arrives ahead of a
long head, that head's reservation is withdrawn (it was a promise only while it was the head)
and the short job becomes the head. ``express_s=0`` schedules as ``easy``; with
``order=sjf`` every express lane is already in front, so it schedules as ``easy order=sjf``.
"""

from dataclasses import dataclass

from adaptsched.api import EasyBackfilling, ReservingOptions, WaitingQueue, option, plugin


@dataclass(frozen=True)
class ExpressOptions(ReservingOptions):  # order and record_reservations, as easy's
    express_s: float = option(3600.0, "longest requested time of an express job (s)", low=0)


class MyExpressEasy(EasyBackfilling):
    """EASY backfilling in which jobs of at most ``express_s`` requested time go first."""

    name = "my-express-easy"
    Options = ExpressOptions

    def queue_order(self):
        """A key function of a job, smaller first: its lane, then easy's ``order`` within it."""
        within = WaitingQueue.order_key(self.options.order)  # easy's option, by name
        express_s = self.options.express_s
        return lambda job: (0 if job.walltime_s <= express_s else 1, within(job))


plugin(MyExpressEasy)
