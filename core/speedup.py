"""Speedup models of moldable jobs: how a job's runtime depends on its number of hosts.

Every model gives ``speedup(n)``, ``runtime(n)`` (seconds) and ``efficiency(n)`` =
speedup / n, with ``work = runtime(n) x n x efficiency(n)`` the same for every n (the job's
sequential time ``t1_s``).

* :class:`Linear`: S(n) = n. A job whose runtime Batsim can scale natively with a
  ``parallel_homogeneous_total`` profile.
* :class:`Downey`: Downey, "A parallel workload model and its implications for processor
  allocation" (1996), sec. 2.1 and 2.2: average parallelism ``A`` and ``sigma`` (about the
  squared coefficient of variation of parallelism); low variance (sigma <= 1)

      S(n) = A n / (A + sigma (n - 1) / 2)              1 <= n <= A
           = A n / (sigma (A - 1/2) + n (1 - sigma / 2))  A <= n <= 2A - 1
           = A                                          n >= 2A - 1

  high variance (sigma >= 1)

      S(n) = n A (sigma + 1) / (sigma (n + A - 1) + A)  1 <= n <= A + A sigma - sigma
           = A                                          beyond

  (formulas from Cirne's port of the model; docs/scojo-p.md).
  Runtimes are real numbers here; the reference port's ``ceil`` is the caller's choice.
* :class:`ScojoP`: Barsanti & Sodan, SCOJO-P (sec. 4.6, Table 1): the speedup interpolated
  linearly through (N_opt / 2, 0.4 N_opt), (N_opt, 0.65 N_opt) and (2 N_opt, 0.8 N_opt), that
  is efficiencies E = S / n of 0.8, 0.65 and 0.4 (Table 1's "E = speedup/MN" read as speedup /
  N), and runtime(N) = T1 / S(N) with T1 = 0.65 N_opt runtime(N_opt), so that runtime(N_opt)
  is the job's runtime at its optimum size. The anchors are on the unclamped line; the sizes
  run from N_min = max(ceil(N_opt / 2), 1) to N_max = min(2 N_opt, machine). Table 1 swaps the
  factors of runtime(N_min) and runtime(N_max): runtime(N_opt / 2) = 0.65 / 0.4 = 1.625
  runtime(N_opt) and runtime(2 N_opt) = 0.65 / 0.8 = 0.8125 runtime(N_opt). Linear speedup
  puts N_PWS = argmax S^2 / n exactly at N_opt, as Table 1 says ("N_opt = N_PWS");
  ``interpolation="efficiency"`` keeps adaptsched's first reading (E linear, N_PWS about
  1.2 N_opt). S is relative to T1, so S(1) < 1 here: a SCOJO-P job never runs below N_min.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from mypy_extensions import mypyc_attr


@mypyc_attr(allow_interpreted_subclasses=True)  # a researcher's own model may extend it
class SpeedupModel:
    """Base: subclasses define ``speedup(n)``; ``t1_s`` is the sequential time (seconds).

    >>> class Amdahl(SpeedupModel):  # a serial fraction f
    ...     def __init__(self, t1_s, f): self.t1_s, self.f = t1_s, f
    ...     def speedup(self, n): return 1 / (self.f + (1 - self.f) / n)
    >>> round(Amdahl(100.0, 0.1).runtime(10), 6)
    19.0
    """

    t1_s: float

    def speedup(self, n: float) -> float:
        raise NotImplementedError

    def runtime(self, n: float) -> float:
        """Seconds on ``n`` hosts."""
        return self.t1_s / self.speedup(n)

    def efficiency(self, n: float) -> float:
        return self.speedup(n) / n

    @staticmethod
    def _check_n(n: float) -> None:
        if not n >= 1:
            raise ValueError(f"number of hosts must be >= 1, got {n!r}")


class Linear(SpeedupModel):
    """S(n) = n.

    >>> model = Linear(t1_s=3600.0)
    >>> model.runtime(4), model.speedup(4), model.efficiency(4)
    (900.0, 4.0, 1.0)
    """

    def __init__(self, t1_s: float):
        if not t1_s > 0:
            raise ValueError(f"t1_s must be > 0, got {t1_s!r}")
        self.t1_s = float(t1_s)

    def speedup(self, n: float) -> float:
        self._check_n(n)
        return float(n)

    def __repr__(self) -> str:
        return f"Linear(t1_s={self.t1_s!r})"


class Downey(SpeedupModel):
    """Downey's speedup model with average parallelism ``A`` >= 1 and ``sigma`` >= 0.

    >>> model = Downey(A=8, sigma=0.5, t1_s=800.0)
    >>> round(model.speedup(4), 4), round(model.runtime(4), 4), model.n_max_useful
    (3.6571, 218.75, 15)
    """

    def __init__(self, A: float, sigma: float, t1_s: float = 1.0):
        if not A >= 1:
            raise ValueError(f"A (average parallelism) must be >= 1, got {A!r}")
        if not sigma >= 0:
            raise ValueError(f"sigma must be >= 0, got {sigma!r}")
        if not t1_s > 0:
            raise ValueError(f"t1_s must be > 0, got {t1_s!r}")
        self.A, self.sigma, self.t1_s = float(A), float(sigma), float(t1_s)

    @property
    def n_max_useful(self) -> int:
        """Smallest n reaching S = A (beyond, more hosts add nothing): Downey's MAX size."""
        A, s = self.A, self.sigma
        if s == 0:
            return max(1, math.ceil(A))  # S(n) = min(n, A)
        return max(1, math.ceil(2 * A - 1 if s <= 1 else A + A * s - s))

    def speedup(self, n: float) -> float:
        self._check_n(n)
        A, s = self.A, self.sigma
        if s <= 1:
            if n <= A:
                return A * n / (A + s * (n - 1) / 2)
            if n <= 2 * A - 1:
                return A * n / (s * (A - 0.5) + n * (1 - s / 2))
            return A
        if n <= A + A * s - s:
            return n * A * (s + 1) / (s * (n + A - 1) + A)
        return A

    def __repr__(self) -> str:
        return f"Downey(A={self.A!r}, sigma={self.sigma!r}, t1_s={self.t1_s!r})"


INTERPOLATIONS = ("speedup", "efficiency")
#: Table 1's efficiencies at N_min, N_opt and N_max.
EFFICIENCIES = (0.8, 0.65, 0.4)


def check_efficiencies(e_min: float, e_opt: float, e_max: float) -> None:
    """ValueError unless 1 >= e_min >= e_opt >= e_max > 0 (a job is no more efficient on more
    hosts) and the speedup rises from N_min to N_opt to N_max (e_min / 2 < e_opt < 2 e_max:
    S(N_opt / 2) = e_min N_opt / 2, S(N_opt) = e_opt N_opt, S(2 N_opt) = 2 e_max N_opt)."""
    values = (e_min, e_opt, e_max)
    if not all(isinstance(x, (int, float)) and math.isfinite(x) for x in values):
        raise ValueError(f"efficiencies must be numbers, got {e_min!r}, {e_opt!r}, {e_max!r}")
    if not 1 >= e_min >= e_opt >= e_max > 0:
        raise ValueError(
            f"efficiencies must satisfy 1 >= E(N_min) >= E(N_opt) >= E(N_max) > 0, got {e_min:g}, {e_opt:g}, {e_max:g}"
        )
    if not e_min / 2 < e_opt < 2 * e_max:
        raise ValueError(
            f"with E(N_min) {e_min:g}, E(N_opt) {e_opt:g}, E(N_max) {e_max:g} the speedup does not rise from N_min "
            "to N_opt to N_max (needs E(N_min) / 2 < E(N_opt) < 2 E(N_max))"
        )


class ScojoP(SpeedupModel):
    """SCOJO-P's piecewise-linear curve around the optimum size ``n_opt`` (module doc).

    The anchors sit on the unclamped line, at N_opt / 2, N_opt and 2 N_opt (efficiencies
    ``e_min``, ``e_opt``, ``e_max``); the job's sizes are N_min = max(ceil(N_opt / 2), 1) to
    N_max = min(2 N_opt, machine). ``interpolation="speedup"`` (the paper's "interpolate the
    speedup curve between these points linearly", sec. 4.6) draws S(n) = n E(n) as straight
    lines between the anchors: then N_PWS = argmax S(n)^2 / n is exactly N_opt, as Table 1
    says, and S rises up to N_max. ``"efficiency"`` draws E(n) as straight lines instead
    (adaptsched's first reading): N_PWS is then about 1.2 N_opt.

    >>> model = ScojoP(runtime_opt_s=1000.0, n_opt=8, machine_hosts=64)
    >>> model.n_min, model.n_max, round(model.runtime(8), 6), round(model.runtime(16), 6)
    (4, 16, 1000.0, 812.5)
    """

    def __init__(
        self,
        runtime_opt_s: float,
        n_opt: int,
        machine_hosts: int,
        *,
        interpolation: str = "speedup",
        e_min: float = EFFICIENCIES[0],
        e_opt: float = EFFICIENCIES[1],
        e_max: float = EFFICIENCIES[2],
    ):
        if not runtime_opt_s > 0:
            raise ValueError(f"runtime_opt_s must be > 0, got {runtime_opt_s!r}")
        if not 1 <= n_opt <= machine_hosts:
            raise ValueError(f"need 1 <= n_opt <= machine_hosts, got {n_opt!r}, {machine_hosts!r}")
        if interpolation not in INTERPOLATIONS:
            raise ValueError(f"interpolation must be one of {', '.join(INTERPOLATIONS)}, got {interpolation!r}")
        check_efficiencies(e_min, e_opt, e_max)
        self.interpolation = interpolation
        self.n_opt = int(n_opt)
        self.n_min = max(math.ceil(self.n_opt / 2), 1)
        self.n_max = min(2 * self.n_opt, int(machine_hosts))
        self.e_min, self.e_opt, self.e_max = float(e_min), float(e_opt), float(e_max)
        self.runtime_opt_s = float(runtime_opt_s)
        self.t1_s = self.runtime_opt_s * self.n_opt * self.e_opt

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], machine_hosts: int) -> ScojoP:
        """The model of a job's ``moldable`` annotation (``adaptsched mold-annotate --model
        scojo-p``): ``runtime_opt_s``, ``n_opt``, and when not Table 1's ``interpolation``,
        ``e_min``, ``e_opt``, ``e_max`` (KeyError, ValueError if malformed)."""
        e_min, e_opt, e_max = (float(spec.get(k, d)) for k, d in zip(("e_min", "e_opt", "e_max"), EFFICIENCIES))
        interpolation = str(spec.get("interpolation", "speedup"))
        return cls(
            spec["runtime_opt_s"],
            spec["n_opt"],
            machine_hosts,
            interpolation=interpolation,
            e_min=e_min,
            e_opt=e_opt,
            e_max=e_max,
        )

    def _relative_speedup(self, s: float) -> float:
        """S(s N_opt) / N_opt on the unclamped line (any s > 0; the anchors at s = 1/2, 1, 2)."""
        lo, opt, hi = self.e_min / 2, self.e_opt, self.e_max * 2  # S / N_opt at s = 1/2, 1, 2
        if self.interpolation == "speedup":
            if s <= 1:
                return opt + (s - 1) * (opt - lo) / 0.5
            return opt + (s - 1) * (hi - opt)
        if s <= 1:
            e = self.e_opt + (1 - s) * (self.e_min - self.e_opt) / 0.5
        else:
            e = self.e_opt + (s - 1) * (self.e_max - self.e_opt)
        return s * e

    def runtime_ratio(self, s: float) -> float:
        """runtime(s N_opt) / runtime(N_opt) on the unclamped line: the same for every job of
        this shape (SCOJO-P's prediction of future jobs resized by ``s``)."""
        if not s > 0:
            raise ValueError(f"size factor must be > 0, got {s!r}")
        return self.e_opt / self._relative_speedup(s)

    def _check_domain(self, n: float) -> None:
        if not self.n_min - 1e-9 <= n <= self.n_max + 1e-9:
            raise ValueError(f"{n!r} hosts is outside [{self.n_min}, {self.n_max}]")

    def speedup(self, n: float) -> float:
        self._check_domain(n)
        return self.n_opt * self._relative_speedup(n / self.n_opt)

    def __repr__(self) -> str:
        return (
            f"ScojoP(runtime_opt_s={self.runtime_opt_s!r}, n_opt={self.n_opt}, "
            f"range=[{self.n_min}, {self.n_max}], interpolation={self.interpolation!r})"
        )
