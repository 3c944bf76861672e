"""Offline scheduling of rigid, evolving applications (Klein & Pérez, INRIA RR-7205, 2010).

An *evolving* application changes its resource requirements during its execution in a way
known in advance: its requested *evolution profile* (EP, sec. 3.1) is a sequence of stages
(d_i, n_i), d_i seconds on n_i nodes. The scheduler may delay the application and *stretch*
its stages (C1): while it waits for the nodes of its next stage, a stage keeps its own nodes
without computing. The sum of the scheduled EPs never exceeds the machine's n_max nodes.

Modules, one per part of the paper:

* :mod:`.profiles`: :class:`EP` and its helpers (sec. 3.1), ep(t), max, loc, delay, +, chps,
  on **half-open** intervals [t0, t1) (the paper's "max = 0 if t0 = t1" needs them); the
  scheduled application (:class:`Scheduled`);
* :mod:`.fitting`: :func:`fit` (Algorithm 3, sec. 4.3.2, with the stretch limit l of
  sec. 4.3.1; nos l = 1, mic l = 2, inf l = inf) and compacting (sec. 4.3.3, "+c"). The
  resource EP ep_r is an :class:`~adaptsched.core.profile.AvailabilityProfile` (busy = n_max
  - free), whose ``min_free`` and ``loc`` are n_max - max(ep_r, ...) and loc(ep_r, ...);
* :mod:`.planning`: :class:`Planner` / :func:`schedule` (Algorithm 2, sec. 4.2): applications
  in order, each fitted into ep_r and reserved there, never revisited. ``cbf`` sees each
  application as one rigid stage (sum of d, max n): Algorithm 2 then is conservative
  backfilling (sec. 5.1);
* :mod:`.mapping`: :class:`NodeMapper` / :func:`map_nodes` (Algorithm 1, sec. 4.1): node ids
  in time order;
* :mod:`.online`: :class:`EvolvingScheduler`, the online scheduler behind the ``evolving``
  plugin.

Every name is importable from ``adaptsched.core.evolving``.

Readings where the paper's text is garbled or silent (docs/evolving.md gives each with its reason):

* Algorithm 3's header says l > 1: it must read l >= 1 (nos is l = 1). Its line 30 reads
  ``if i > 0``, always true (i starts at 1): it must be ``i > 1``, line 33 being the first
  stage, which is moved to end where the second starts, never stretched. The last stage is
  never stretched either (the recursion's end returns the time it was given).
* loc returns the end of the last step attaining the maximum even when that step reaches
  past t1 (the paper restricts it to [t0, t1]): both give the same fits, this one in fewer
  tries (``clip_loc=True`` is the paper's, kept for the tests).
* Compacting is the same fit on the mirrored problem: stages reversed, ep_r reflected about
  the base completion C, times before the fit's origin forbidden, from t0 = 0; the result,
  mapped back, is kept if it ends by C and starts no earlier than the base, else the base
  is kept ("in the worst case no compacting occurs").
* A stretched stage computes first, then holds its nodes until the next stage starts.
"""

from adaptsched.core.evolving.fitting import FitStats, fit, mirrored
from adaptsched.core.evolving.mapping import MAPPINGS, NodeMapper, map_nodes, mapping_problems
from adaptsched.core.evolving.online import EvolvingOptions, EvolvingScheduler, arrival_key, stages_of
from adaptsched.core.evolving.planning import VARIANTS, Planner, rigid, schedule
from adaptsched.core.evolving.profiles import EP, Scheduled, Stage
from adaptsched.core.units import EPS_S, INF

__all__ = [
    "EP",
    "EPS_S",
    "INF",
    "MAPPINGS",
    "VARIANTS",
    "EvolvingOptions",
    "EvolvingScheduler",
    "FitStats",
    "NodeMapper",
    "Planner",
    "Scheduled",
    "Stage",
    "arrival_key",
    "fit",
    "map_nodes",
    "mapping_problems",
    "mirrored",
    "rigid",
    "schedule",
    "stages_of",
]
