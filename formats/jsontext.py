"""JSON text exactly as Batsim writes it: every double with ``%f`` (six decimals).

Batsim's rapidjson writer (``src/protocol.hpp``) prints doubles with ``"%6f"``, so a
scheduler sees ``"now":10.000000`` and a walltime of 0.1234567 as 0.123457. The
embedded engine formats its messages the same way so that schedulers receive the
same values from both engines. Integers stay integers.

:func:`is_number` and :func:`is_int` check a decoded JSON value before it is used as one.
"""

from __future__ import annotations

import json
import math
from numbers import Real
from typing import Any, TypeGuard

_escape = escape = json.encoder.encode_basestring  # the quoted, escaped form of a str

#: How :func:`dumps` writes a dict's flat values, by exact type (a str already escaped).
_FLAT_FORMATS = {int: "%d", float: "%f", str: "%s"}


def is_number(value: object) -> TypeGuard[float]:
    """A finite real number, not a bool: what a number field of a workload may hold (Python's
    json reads ``NaN`` and ``Infinity``, which no Batsim field means)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, Real) and math.isfinite(value)


def is_int(value: object) -> TypeGuard[int]:
    """An integer, not a bool."""
    return isinstance(value, int) and not isinstance(value, bool)


def dumps(value: object) -> str:
    """Compact JSON text of ``value`` with Batsim's float formatting."""
    if isinstance(value, str):
        return _escape(value)
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return "%f" % value
    if isinstance(value, dict):
        # flat values inline (a job's description: one call per job instead of one per value)
        parts = []
        for k, v in value.items():
            kind = type(v)
            if kind is float:
                text = "%f" % v
            elif kind is int:
                text = str(v)
            elif kind is str:
                text = _escape(v)
            else:
                text = dumps(v)
            parts.append(_escape(k if type(k) is str else str(k)) + ":" + text)
        return "{" + ",".join(parts) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(dumps(v) for v in value) + "]"
    if isinstance(value, RawJson):
        return value.text
    raise TypeError(f"cannot write {type(value).__name__} as JSON")


def dict_format(keys: tuple[object, ...], kinds: tuple[type, ...]) -> tuple[str, tuple[int, ...]] | None:
    """The ``%`` format of :func:`dumps` for dicts with these keys and these exact types of
    values (str, int and float only: None for any other), and the places of their strings,
    which are to be filled already escaped (:func:`escape`). Many dicts of one form (a
    workload's job descriptions) are then written in one ``%`` each."""
    if not all(kind in _FLAT_FORMATS for kind in kinds):
        return None
    fields = [
        _escape(key if type(key) is str else str(key)).replace("%", "%%") + ":" + _FLAT_FORMATS[kind]
        for key, kind in zip(keys, kinds)
    ]
    return "{" + ",".join(fields) + "}", tuple(i for i, kind in enumerate(kinds) if kind is str)


class RawJson:
    """Already-serialised JSON text, embedded as is."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text


def fmt_time(t: float) -> str:
    return "%f" % t


def reserialized(value: Any) -> Any:
    """``value`` (decoded JSON) as Batsim holds it after writing it back to text with its
    ``%f`` writer and reading that text again: every float rounded to six decimals.

    Batsim 4.2.1 stores what the scheduler registers (REGISTER_PROFILE's profile,
    REGISTER_JOB's job) as the text its custom writer (``src/protocol.hpp``) prints, then
    parses that text (``src/protocol.cpp``: ``handle_register_profile``,
    ``handle_register_job``). A resized job's delay of 3723.662337662338 s thus runs for
    3723.662338 s, and its walltime of 139488.3116883117 s becomes 139488.311688 s.
    Reading back: RapidJSON's default (fast-path) parsing of a six-decimal number whose
    digits fit in 53 bits is the correctly rounded quotient of two exact doubles, that is
    ``float(text)``. Integers and everything else are unchanged.
    """
    if isinstance(value, float):
        return float("%f" % value)
    if isinstance(value, dict):
        return {key: reserialized(item) for key, item in value.items()}
    if isinstance(value, list):
        return [reserialized(item) for item in value]
    return value
