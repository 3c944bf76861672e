"""JSON text exactly as Batsim writes it: every double with ``%f`` (six decimals).

Batsim's rapidjson writer (``src/protocol.hpp``) prints doubles with ``"%6f"``, so a
scheduler sees ``"now":10.000000`` and a walltime of 0.1234567 as 0.123457. The
embedded engine formats its messages the same way so that schedulers receive the
same values from both engines. Integers stay integers.
"""

from __future__ import annotations

import json

_escape = json.encoder.encode_basestring  # the quoted, escaped form of a str


def dumps(value) -> str:
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


class RawJson:
    """Already-serialised JSON text, embedded as is."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text


def fmt_time(t: float) -> str:
    return "%f" % t
