"""Numbers as the explorer writes them, for reading: the same rules in Python (header,
metrics tables) and in JavaScript (:data:`JS`: tables, tooltips, axes, the difference view).

* a **duration** (a wait, a makespan): under a minute, seconds to 3 significant digits
  (``1.3 s``); under a day, ``h:mm:ss`` to the second (``7:35:31``); from a day on, days to 3
  significant digits (``2.35 d``, ``26 d``);
* an **instant** of simulation time: ``D d hh:mm:ss`` (``2 d 03:04:05``), as the time axes;
* a **number**: 3 significant digits with thousands separators (``27,300``, ``20.6``,
  ``0.639``); a count: every digit (``4,998``); a share: a percentage to 3 significant digits.

``-`` stands for a missing value (a job that never ran has no wait).
"""

from __future__ import annotations

import math

DAY_S = 86400.0


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def number(value, digits: int = 3) -> str:
    """``value`` to ``digits`` significant digits, with thousands separators."""
    if _missing(value):
        return "-"
    value = float(value)
    if value == 0:
        return "0"
    rounded = float(f"{value:.{digits}g}")
    decimals = max(digits - 1 - math.floor(math.log10(abs(rounded))), 0)
    text = f"{rounded:,.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def count(value) -> str:
    return "-" if _missing(value) else f"{int(value):,}"


def percent(value) -> str:
    return "-" if _missing(value) else f"{number(100 * float(value))} %"


def duration(seconds) -> str:
    """A duration for reading (module doc)."""
    if _missing(seconds):
        return "-"
    sign, size = ("-" if seconds < 0 else ""), abs(float(seconds))
    if size < 60:
        return f"{sign}{number(size)} s"
    if size < DAY_S:
        whole = round(size)
        return f"{sign}{whole // 3600}:{whole % 3600 // 60:02d}:{whole % 60:02d}"
    return f"{sign}{number(size / DAY_S)} d"


def instant(seconds) -> str:
    """An instant of simulation time, to the second: ``D d hh:mm:ss``."""
    if _missing(seconds):
        return "-"
    whole = round(float(seconds))
    days, rest = divmod(whole, 86400)
    return f"{days} d {rest // 3600:02d}:{rest % 3600 // 60:02d}:{rest % 60:02d}"


def metric(key: str, value) -> str:
    """A value of ``adaptsched metrics --json`` for reading, by its key: ``*_s`` durations
    (but host-seconds, ``*node_s``, are numbers),
    ``window_*_s`` instants, ``utilization`` a share, integers counts, the rest numbers."""
    if key.startswith("window_"):
        return instant(value)
    if key.endswith("_s") and not key.endswith("node_s"):
        return duration(value)
    if key == "utilization":
        return percent(value)
    if isinstance(value, int):
        return count(value)
    return number(value)


#: The same rules in JavaScript: ``fmt.num``, ``fmt.count``, ``fmt.dur``, ``fmt.at`` (an
#: instant) and ``fmt.exact`` (seconds to the millisecond, no trailing zeros).
JS = """
const fmt = (() => {
  const three = new Intl.NumberFormat("en", {maximumSignificantDigits: 3});
  const missing = (x) => x == null || Number.isNaN(x);
  const two = (v) => String(v).padStart(2, "0");
  const num = (x) => (missing(x) ? "-" : three.format(x));
  const count = (x) => (missing(x) ? "-" : Math.round(x).toLocaleString("en"));
  const dur = (s) => {
    if (missing(s)) return "-";
    const sign = s < 0 ? "-" : "", a = Math.abs(s);
    if (a < 60) return `${sign}${three.format(a)} s`;
    if (a < 86400) {
      const w = Math.round(a);
      return `${sign}${Math.floor(w / 3600)}:${two(Math.floor((w % 3600) / 60))}:${two(w % 60)}`;
    }
    return `${sign}${three.format(a / 86400)} d`;
  };
  const at = (t) => {
    if (missing(t)) return "-";
    const w = Math.round(t), d = Math.floor(w / 86400), r = w - d * 86400;
    return `${d} d ${two(Math.floor(r / 3600))}:${two(Math.floor((r % 3600) / 60))}:${two(r % 60)}`;
  };
  const exact = (s) => String(Math.round(s * 1000) / 1000);
  const signed = (x, f) => (x > 0 ? "+" : "") + f(x);
  return {num, count, dur, at, exact, signed, missing};
})();
"""
