"""Numbers as Batsim's C++ computes and reads them, where Python's doubles would differ.

**Long doubles** (``src/export.cpp``, ``src/jobs_execution.cpp``, ``src/job_submitter.cpp``).
Batsim keeps a job's ``starting_time``, ``runtime`` and ``submission_time`` in ``long double``
(x87: 64-bit significands on x86-64), computes ``runtime = clock - starting_time`` and the
printed ``finish_time``, ``waiting_time``, ``turnaround_time`` and ``stretch`` in that type, and
casts each to ``double`` before printing it with ``%f``. With integral times every result is
exact in both types; with fractional ones (message latencies, molded jobs) double arithmetic
can differ in the last printed digit (a stretch of 18.554929 against Batsim's 18.554930).
:func:`job_times` redoes Batsim's operations exactly: each result rounded to 64 bits, then
to a double. The job submitter sleeps ``(double)(subtime - current)`` computed in long double
(:func:`ld_difference`).

**RapidJSON's numbers** (:func:`batsim_double`). Batsim reads the scheduler's replies with
RapidJSON 1.1.0's default parser (``src/protocol.cpp``), whose conversion of a decimal number
is not correctly rounded: it accumulates up to 2^53 in an integer, the other digits in a double,
then multiplies or divides by a power of ten (``reader.h``, ``ParseNumber``;
``internal/strtod.h``, ``StrtodNormalPrecision``). pybatsim writes the timestamps it computes
(``now + 0.005``) with Python's shortest repr, up to 17 digits, so Batsim may read a double
one unit in the last place away from the one pybatsim meant, and sleep until that one.
"""

from __future__ import annotations

from fractions import Fraction
from math import isfinite

from adaptsched.formats.rapidjson import rapidjson_number, read_exactly

SIGNIFICAND_BITS = 64  # x87 extended precision


def round_ld(value: Fraction) -> Fraction:
    """``value`` rounded to the nearest ``long double`` (ties to even)."""
    if value == 0:
        return value
    negative = value < 0
    n, d = abs(value.numerator), value.denominator
    shift = SIGNIFICAND_BITS - (n.bit_length() - d.bit_length())  # scale so that the quotient has ~64 bits
    scaled_n, scaled_d = (n << shift, d) if shift >= 0 else (n, d << -shift)
    q, r = divmod(scaled_n, scaled_d)
    if q.bit_length() > SIGNIFICAND_BITS:  # one bit too many: scale back by 2
        shift -= 1
        scaled_n, scaled_d = (n << shift, d) if shift >= 0 else (n, d << -shift)
        q, r = divmod(scaled_n, scaled_d)
    if 2 * r > scaled_d or (2 * r == scaled_d and q & 1):
        q += 1
    result = Fraction(q, 1 << shift) if shift >= 0 else Fraction(q << -shift, 1)
    return -result if negative else result


EPSILON_RUNTIME = round_ld(Fraction(1, 100000))  # Batsim's ``1e-5l`` for a job that took no time


def job_times(start: float, finish: float, subtime: float) -> tuple[float, float, float, float, float]:
    """(runtime, finish, waiting, turnaround, stretch) as Batsim prints them, from the clock at
    the job's start and at its end."""
    s, sub = Fraction(start), Fraction(subtime)
    run = round_ld(Fraction(finish) - s) if finish != start else EPSILON_RUNTIME
    completion = round_ld(s + run)
    turnaround = round_ld(completion - sub)
    return (
        float(run),
        float(completion),
        float(round_ld(s - sub)),
        float(turnaround),
        float(round_ld(turnaround / run)),
    )


def ld_difference(a: float, b: float) -> float:
    """``(double)((long double)a - (long double)b)``: rounded twice, as Batsim's job submitter
    computes how long to sleep until the next submission."""
    return float(round_ld(Fraction(a) - Fraction(b)))


def batsim_double(value: float) -> float:
    """The double Batsim reads when pybatsim sends ``value`` (written with Python's ``repr``).

    The usual time (``now`` as Batsim sent it: six decimals) has a short ``repr``, which RapidJSON
    reads exactly (:func:`~adaptsched.formats.rapidjson.read_exactly`): ``value`` itself, as
    ``repr`` round-trips. Longer texts, and the non-finite ones RapidJSON refuses, go through
    :func:`rapidjson_number`."""
    if value.is_integer():
        return value
    text = repr(value)
    if read_exactly(text) and isfinite(value):
        return value
    return rapidjson_number(text)
