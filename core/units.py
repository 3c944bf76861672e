"""Units of time and the tolerances on times: one home for each, imported everywhere.

Times are seconds, as floats (names end in ``_s``). Batsim prints them with six decimals
(``"%f"``), so two times closer than :data:`EPS_S` are the same instant to it and to us.
"""

from __future__ import annotations

import math
from typing import Final

#: No limit: a job without a walltime, a time that never comes.
INF: Final = math.inf
#: Batsim writes times with 6 decimals: events this close are simultaneous, a reservation
#: this close to now is due.
EPS_S: Final = 1e-6

MINUTE_S: Final = 60.0
HOUR_S: Final = 3600.0
DAY_S: Final = 86400.0
