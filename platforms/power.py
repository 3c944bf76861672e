"""The power model ``adaptsched platform --power`` gives each host of a generated cluster.

Batsim's energy model (``--energy``, docs/energy.md) reads a host's power from its platform
properties: ``wattage_per_state`` (``Idle:Epsilon:AllCores`` watts per pstate) and
``sleep_pstates`` (``sleep:off:on``: a sleep pstate and the virtual pstates its switch-off and
switch-on go through, each running 1 flop, so that the switch lasts ``1 / speed`` seconds).
A generated host has four pstates:

====  ==============  =========================  ======================================
0     computation     the cluster's speed        Idle ``idle_w``, AllCores ``full_w``
1     sleep           1e-3 flop/s                ``sleep_w``
2     switch-off      1 / ``off_s`` flop/s       ``off_w`` (``off_s`` x ``off_w`` J)
3     switch-on       1 / ``on_s`` flop/s        ``on_w`` (``on_s`` x ``on_w`` J)
====  ==============  =========================  ======================================

The defaults are the numbers of Batsim's own energy platforms
(``energy_platform_homogeneous_no_net_*.xml``, ``cluster_energy_128.xml``: a Grid'5000 node):
95 W idle, 190.738 W at full load, 9.75 W asleep, a 6.1 s switch-off of 616.08 J and a
151.52 s switch-on of 18966.4228 J. Under Batsim's model a job's host draws
Epsilon + load x (AllCores - Epsilon) watts while it computes, and a ``delay`` job (every job of a
converted SWF trace) has no CPU load: its hosts draw ``idle_w``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

from adaptsched.errors import UsageError

SLEEP_PSTATES = "1:2:3"


@dataclass(frozen=True)
class PowerSpec:
    """A host's power: watts per state and the switch durations (module doc)."""

    idle_w: float = 95.0
    full_w: float = 190.738
    sleep_w: float = 9.75
    off_s: float = 6.1
    off_w: float = 616.08 / 6.1
    on_s: float = 151.52
    on_w: float = 18966.4228 / 151.52

    @classmethod
    def parse(cls, text: str) -> PowerSpec:
        """``"idle_w=100,full_w=200"`` (any of the fields, the others at their defaults); ``""``: the defaults."""
        spec = cls()
        names = [f.name for f in fields(cls)]
        for item in filter(None, (part.strip() for part in text.split(","))):
            key, sep, value = item.partition("=")
            if not sep or key.strip() not in names:
                raise UsageError(f"--power {text!r}: {item!r} is not KEY=VALUE with KEY one of {', '.join(names)}")
            try:
                number = float(value)
            except ValueError:
                raise UsageError(f"--power {text!r}: {key.strip()} must be a number, not {value!r}") from None
            if not number > 0 or number == float("inf"):
                raise UsageError(f"--power {text!r}: {key.strip()} must be positive and finite")
            spec = replace(spec, **{key.strip(): number})
        if spec.full_w < spec.idle_w:
            raise UsageError(f"--power: full_w ({spec.full_w:g} W) is below idle_w ({spec.idle_w:g} W)")
        return spec

    def speeds(self, speed: str) -> str:
        """The ``speed`` attribute: the cluster's speed, then the sleep and switch pstates'."""
        return f"{speed}, 1e-3f, {1.0 / self.off_s!r}f, {1.0 / self.on_s!r}f"

    def wattage_per_state(self) -> str:
        watts = (
            (self.idle_w, self.idle_w, self.full_w),
            (self.sleep_w,) * 3,
            (self.off_w,) * 3,
            (self.on_w,) * 3,
        )
        return ", ".join(":".join(repr(w) for w in state) for state in watts)

    def describe(self) -> str:
        return (
            f"{self.idle_w:g} W idle, {self.full_w:g} W at full load, {self.sleep_w:g} W asleep, "
            f"switch-off {self.off_s:g} s at {self.off_w:g} W, switch-on {self.on_s:g} s at {self.on_w:g} W"
        )
