"""Scheduler options: each declared once (name, type, default, help, allowed values), checked once.

A scheduler declares its options as a frozen dataclass whose fields are made by
:func:`option`; the field's type is its default's (bool, int, float or str). Every way of
setting options goes through the dataclass's constructor, which checks each value (type,
choices, range) and the scheduler's own cross-field rules (``check``), so a bad value is
reported with the valid ones before anything runs:

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Demo(Options):
...     order: str = option("fcfs", "queue order", choices=("fcfs", "sjf"))
...     weight: float = option(1.0, "a weight", low=0.0)
>>> Demo.parse({"order": "sjf", "weight": "2.5"})
Demo(order='sjf', weight=2.5)
>>> Demo(order="xyz")
Traceback (most recent call last):
...
adaptsched.core.options.OptionError: option order='xyz': choose one of fcfs, sjf
"""

from __future__ import annotations

import dataclasses
import difflib
import gc
import json
import math
import sys
import types
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from adaptsched.limits import MAX_TEXT_BYTES

if TYPE_CHECKING:
    from adaptsched.core.needs import Need

OptionsT = TypeVar("OptionsT", bound="Options")
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


class OptionError(ValueError):
    """An unknown option, or a value of the wrong type or outside the allowed ones.

    ``option`` names the option at fault (None when a rule between options fails), for
    callers that locate it themselves (a sweep's spec names its TOML key).

    >>> @dataclass(frozen=True)
    ... class Mine(Options):
    ...     weight: float = option(1.0, "a weight", low=0.0)
    >>> try: Mine.parse({"weight": "-1"})
    ... except OptionError as error: print(error.option, "|", error)
    weight | option weight=-1.0: must be in [0, inf]
    """

    def __init__(self, message: str, *, option: str | None = None) -> None:
        super().__init__(message)
        self.option = option


def option(
    default: Any,
    help: str,
    *,
    choices: Sequence[Any] | None = None,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
    infinite: bool = False,
    file: str | None = None,
) -> Any:
    """A dataclass field declaring one option: ``default`` (whose type is the option's),
    ``help``, and the allowed values: ``choices``, or a range [low, high] (open ends with
    ``low_open``/``high_open``). A float is finite unless ``infinite`` (NaN never is allowed).
    ``file``: the option names a file (its empty value: none), which must exist and be
    readable: ``"text"``, or ``"json"`` (and hold valid JSON).

    >>> @dataclass(frozen=True)
    ... class Mine(Options):
    ...     order: str = option("fcfs", "queue order", choices=("fcfs", "sjf"))
    >>> [(spec.name, spec.default, spec.allowed) for spec in Mine.specs()]
    [('order', 'fcfs', 'fcfs, sjf')]
    """
    metadata = {
        "help": help,
        "choices": tuple(choices) if choices is not None else None,
        "low": low,
        "high": high,
        "low_open": low_open,
        "high_open": high_open,
        "infinite": infinite,
        "file": file,
    }
    return dataclasses.field(default=default, metadata=metadata)


def fixed(value: Any) -> Any:
    """A field a subclass of options fixes: not settable, not listed (e.g. DVQoPS is VQoPS with
    ``value_aware`` always true)."""
    metadata = {
        "help": "",
        "choices": None,
        "low": None,
        "high": None,
        "low_open": False,
        "high_open": False,
        "infinite": True,
        "file": None,
    }
    return dataclasses.field(default=value, init=False, metadata=metadata)


@dataclass(frozen=True)
class OptionSpec:
    """What ``adaptsched schedulers`` prints of one option."""

    name: str
    default: Any
    help: str
    allowed: str  # "" if any value of the type is allowed


def _allowed(meta: Mapping[str, Any]) -> str:
    if meta["choices"] is not None:
        return ", ".join(str(c) for c in meta["choices"])
    low, high = meta["low"], meta["high"]
    if low is None and high is None:
        return ""
    left = "(" if meta["low_open"] else "["
    right = ")" if meta["high_open"] else "]"
    return f"{left}{'-inf' if low is None else f'{low:g}'}, {'inf' if high is None else f'{high:g}'}{right}"


def _check_number(name: str, value: float, meta: Mapping[str, Any]) -> None:
    """NaN is never an option's value; an infinity only where the option says so."""
    if math.isnan(value):
        raise OptionError(f"option {name}={value!r}: expected a number, not NaN", option=name)
    if math.isinf(value) and not meta.get("infinite"):
        raise OptionError(f"option {name}={value!r}: expected a finite number", option=name)


def _check_file(name: str, value: str, kind: str) -> None:
    """An option naming a file: it exists and can be read (as JSON when ``kind`` says so)."""
    if not value:
        return
    try:
        with open(value, "rb") as handle:
            data = handle.read(1 << 16)  # judged before the rest is read (/dev/zero: at once)
            if b"\0" not in data:
                data += handle.read(MAX_TEXT_BYTES + 1 - len(data))
        if b"\0" in data or len(data) > MAX_TEXT_BYTES:
            raise UnicodeDecodeError("utf-8", data[:1], 0, 1, "binary data or too large")
        text = data.decode("utf-8-sig")
    except FileNotFoundError:
        raise OptionError(f"option {name}={value!r}: no such file", option=name) from None
    except IsADirectoryError:
        raise OptionError(f"option {name}={value!r}: a folder, not a file", option=name) from None
    except UnicodeDecodeError:
        raise OptionError(
            f"option {name}={value!r}: not a text file, or larger than {MAX_TEXT_BYTES:,} bytes", option=name
        ) from None
    except OSError as error:
        raise OptionError(f"option {name}={value!r}: cannot read it: {error.strerror}", option=name) from None
    if kind == "json":
        try:
            json.loads(text, parse_constant=_no_constant)
        except RecursionError:
            raise OptionError(f"option {name}={value!r}: not valid JSON: nested too deeply", option=name) from None
        except ValueError as error:
            raise OptionError(f"option {name}={value!r}: not valid JSON: {error}", option=name) from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _typed(name: str, value: Any, kind: type) -> Any:
    """``value`` as an option of type ``kind`` (from text, or from JSON's types)."""
    if isinstance(value, str) and kind is not str:
        text = value.strip().lower()
        if kind is bool:
            if text in _TRUE:
                return True
            if text in _FALSE:
                return False
            raise OptionError(f"option {name}={value!r}: expected true or false", option=name)
        try:
            return kind(text)
        except ValueError:
            raise OptionError(
                f"option {name}={value!r}: expected {'an' if kind is int else 'a'} {kind.__name__}", option=name
            ) from None
    if kind is bool:
        if isinstance(value, bool):
            return value
        raise OptionError(f"option {name}={value!r}: expected true or false", option=name)
    if kind is float and isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if kind is int and isinstance(value, int) and not isinstance(value, bool):
        return value
    if kind is int and isinstance(value, float) and value.is_integer():
        return int(value)
    if kind is str and isinstance(value, str):
        return value
    raise OptionError(f"option {name}={value!r}: expected {'an' if kind is int else 'a'} {kind.__name__}", option=name)


def _register_module(cls: type) -> None:
    """Puts the module defining ``cls`` in ``sys.modules`` if it is not there.

    Stock pybatsim loads a plugin file whose folder is not importable as a package (a folder
    named ``schedulers``, which pybatsim's own package shadows, or ``my-plugins``) as a module
    it never registers; ``@dataclass`` then fails on the string annotations of ``from
    __future__ import annotations`` (it looks the module up by name). The module is found from
    the class body's frame.
    """
    name = cls.__module__
    if name in sys.modules:
        return
    frame = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__") != name:
        frame = frame.f_back  # type: ignore[assignment]
    if frame is None:
        return
    namespace = frame.f_globals
    found = [m for m in gc.get_referrers(namespace) if isinstance(m, types.ModuleType) and vars(m) is namespace]
    if found:
        sys.modules[name] = found[0]


class OptionsClass(type):
    """The class of every options class: it registers the module defining one
    (:func:`_register_module`).

    Being a metaclass, it also keeps options classes ordinary Python classes in a compiled
    build (mypyc compiles a class with its own metaclass as a Python class; docs/engines.md,
    "a compiled build"). Options need no speed, and a compiled frozen dataclass leaves a
    :func:`fixed` field (``init=False``) unset.
    """

    def __init__(cls, name: str, bases: tuple[type, ...], namespace: dict[str, Any], **kwargs: Any) -> None:
        super().__init__(name, bases, namespace, **kwargs)
        _register_module(cls)


@dataclass(frozen=True)
class Options(metaclass=OptionsClass):
    """Base of every scheduler's options (no option of its own): a scheduler's own are a frozen
    dataclass deriving from it, each field made by :func:`option`; ``check`` adds rules
    between them.

    >>> @dataclass(frozen=True)
    ... class Mine(Options):
    ...     depth: int = option(4, "jobs holding a reservation", low=1)
    >>> Mine.parse({"depth": "8"}), Mine().changed()
    (Mine(depth=8), {})
    """

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            meta = f.metadata
            value = _typed(f.name, getattr(self, f.name), type(f.default))
            object.__setattr__(self, f.name, value)
            if isinstance(value, float):
                _check_number(f.name, value, meta)
            if meta.get("choices") is not None and value not in meta["choices"]:
                raise OptionError(f"option {f.name}={value!r}: choose one of {_allowed(meta)}", option=f.name)
            low, high = meta.get("low"), meta.get("high")
            too_low = low is not None and (value <= low if meta["low_open"] else value < low)
            too_high = high is not None and (value >= high if meta["high_open"] else value > high)
            if too_low or too_high:
                raise OptionError(f"option {f.name}={value!r}: must be in {_allowed(meta)}", option=f.name)
            if meta.get("file") and f.init:
                _check_file(f.name, value, meta["file"])
        self.check()

    def check(self) -> None:
        """Rules between options (subclasses raise :class:`OptionError`)."""

    def needs_dynamic_jobs(self) -> bool:
        """Whether the scheduler registers job copies with these options (Batsim's
        ``--enable-dynamic-jobs --enable-profile-reuse``)."""
        return False

    def needs(self) -> tuple[Need, ...]:
        """What the scheduler's input must carry with these options (:mod:`adaptsched.core.needs`):
        nothing when a rigid workload is all it needs."""
        return ()

    @classmethod
    def parse(cls: type[OptionsT], values: Mapping[str, Any]) -> OptionsT:
        """The options from text (``adaptsched run --option K=V``) or JSON values (pybatsim's ``-o``)."""
        known = {f.name: f for f in dataclasses.fields(cls) if f.init}
        unknown = sorted(set(values) - set(known))
        if unknown:
            close = difflib.get_close_matches(unknown[0], list(known), n=1, cutoff=0.6)
            guess = f" (did you mean {close[0]!r}?)" if close else ""
            raise OptionError(
                f"no option {unknown[0]!r}{guess}; the options are: {', '.join(known) or 'none'}", option=unknown[0]
            )
        return cls(**{name: _typed(name, value, type(known[name].default)) for name, value in values.items()})

    @classmethod
    def specs(cls) -> list[OptionSpec]:
        return [
            OptionSpec(f.name, f.default, f.metadata["help"], _allowed(f.metadata))
            for f in dataclasses.fields(cls)
            if f.init
        ]

    def values(self) -> dict[str, Any]:
        """Every settable option's value, by name (what the scheduler's constructor takes)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.init}

    def changed(self) -> dict[str, Any]:
        """The options that differ from their defaults."""
        return {
            name: value
            for name, value in self.values().items()
            if value != type(self).__dataclass_fields__[name].default
        }


def narrow(options: Options, kind: type[OptionsT]) -> OptionsT:
    """``options`` as ``kind``, the options class a scheduler declares (its ``Options``); a
    TypeError if they are not.

    A scheduler reads its own options through this instead of re-declaring the type of the
    ``options`` attribute it inherits: a compiled build (mypyc) gives an attribute one type, in
    the class that declares it and in all its subclasses.

    >>> @dataclass(frozen=True)
    ... class Mine(Options):
    ...     depth: int = option(4, "jobs holding a reservation", low=1)
    >>> narrow(Mine(), Mine).depth
    4
    >>> narrow(Options(), Mine)
    Traceback (most recent call last):
    ...
    TypeError: options of class Options where Mine was expected
    """
    if not isinstance(options, kind):
        raise TypeError(f"options of class {type(options).__name__} where {kind.__name__} was expected")
    return options
