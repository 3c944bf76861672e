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


_POW10 = [float(f"1e{n}") for n in range(309)]  # RapidJSON's table of the doubles nearest 10^n
_UINT32_LIMIT = {False: (429496729, 5), True: (214748364, 8)}  # (i, last digit) before 64-bit parsing
_UINT64_LIMIT = {False: (0x1999999999999999, 5), True: (0x0CCCCCCCCCCCCCCC, 8)}
_FAST_PATH_MAX = (1 << 53) - 1


def _fast_path(significand: float, exp: int) -> float:
    """``internal::FastPath``."""
    if exp < -308:
        return 0.0
    if exp >= 0:
        return significand * _POW10[exp]
    return significand / _POW10[-exp]


def rapidjson_number(text: str) -> float:
    """The double RapidJSON 1.1.0's default parser makes of the JSON number ``text``
    (``GenericReader::ParseNumber`` without ``kParseFullPrecisionFlag``, 64-bit build)."""
    pos, n = 0, len(text)
    minus = n > 0 and text[0] == "-"
    if minus:
        pos = 1

    def digit(at: int) -> int:
        return ord(text[at]) - 48 if at < n and "0" <= text[at] <= "9" else -1

    i = i64 = significand_digits = 0
    use64 = use_double = False
    d = 0.0
    if digit(pos) == 0:
        pos += 1
    elif digit(pos) > 0:
        i = digit(pos)
        pos += 1
        limit, last = _UINT32_LIMIT[minus]
        while digit(pos) >= 0:
            if i >= limit and (i != limit or digit(pos) > last):
                i64, use64 = i, True
                break
            i = i * 10 + digit(pos)
            pos += 1
            significand_digits += 1
    else:
        raise ValueError(f"not a JSON number: {text!r}")
    if use64:
        limit, last = _UINT64_LIMIT[minus]
        while digit(pos) >= 0:
            if i64 >= limit and (i64 != limit or digit(pos) > last):
                d, use_double = float(i64), True
                break
            i64 = i64 * 10 + digit(pos)
            pos += 1
            significand_digits += 1
    if use_double:
        while digit(pos) >= 0:
            d = d * 10 + digit(pos)
            pos += 1
    exp_frac = 0
    if pos < n and text[pos] == ".":
        pos += 1
        if not use_double:
            if not use64:
                i64 = i
            while digit(pos) >= 0 and i64 <= _FAST_PATH_MAX:
                i64 = i64 * 10 + digit(pos)
                pos += 1
                exp_frac -= 1
                if i64 != 0:
                    significand_digits += 1
            d, use_double = float(i64), True
        while digit(pos) >= 0:
            if significand_digits < 17:
                d = d * 10.0 + digit(pos)
                exp_frac -= 1
                if d > 0.0:
                    significand_digits += 1
            pos += 1
    exp = 0
    if pos < n and text[pos] in "eE":
        pos += 1
        if not use_double:
            d, use_double = float(i64 if use64 else i), True
        sign = 1
        if pos < n and text[pos] in "+-":
            sign = -1 if text[pos] == "-" else 1
            pos += 1
        exp = sign * int(text[pos:])
    if not use_double:
        value = float(i64 if use64 else i)
        return -value if minus else value
    return _scaled(d, exp + exp_frac, minus)


def _scaled(d: float, p: int, minus: bool) -> float:
    """``d`` x 10^``p`` as RapidJSON computes it (in two steps below 1e-308), with its sign."""
    if p < -308:
        d = _fast_path(_fast_path(d, -308), p + 308)
    else:
        d = _fast_path(d, p)
    return -d if minus else d


def batsim_double(value: float) -> float:
    """The double Batsim reads when pybatsim sends ``value`` (written with Python's ``repr``)."""
    if value.is_integer():
        return value
    return rapidjson_number(repr(value))
