"""Numbers as RapidJSON 1.1.0 reads them: Batsim 4.2.1 parses its workload files and the
scheduler's replies with RapidJSON's default parser (``src/workload.cpp``, ``src/protocol.cpp``),
whose conversion of a decimal number is not correctly rounded: it accumulates up to 2^53 in an
integer, the other digits in a double, then multiplies or divides by a power of ten (``reader.h``,
``ParseNumber``; ``internal/strtod.h``, ``StrtodNormalPrecision``). A number of 16 or 17
significant digits (Python's ``repr`` of a fractional time, such as Batsim's own
``example_workload_hpc_seed4_jobs250.json`` subtime ``26.070874296324014``) may be read one unit
in the last place away from the double Python's ``float`` makes of it.
"""

from __future__ import annotations

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


def read_exactly(text: str) -> bool:
    """Whether RapidJSON reads the decimal number ``text`` as ``float`` does: up to 15 characters
    without an exponent (at most 15 digits, accumulated exactly, and one division by a power of
    ten exact in a double) one correctly rounded operation gives the nearest double."""
    return len(text) <= 15 and "e" not in text and "E" not in text


def batsim_float(text: str) -> float:
    """``float(text)`` as RapidJSON reads it: a ``parse_float`` for :func:`json.loads`
    (:func:`read_exactly`: ``float`` itself for short texts)."""
    if read_exactly(text):
        return float(text)
    try:
        return rapidjson_number(text)
    except (ValueError, IndexError, OverflowError):
        return float(text)
