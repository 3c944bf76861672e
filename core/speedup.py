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

  (formulas as in ``../shared/reference/workload-models.md`` sec. 2.1, from Cirne's port).
  Runtimes are real numbers here; the reference port's ``ceil`` is the caller's choice.
* :class:`ScojoP`: Barsanti & Sodan, SCOJO-P (sec. 4): efficiency piecewise linear between
  (N_min, 0.8), (N_opt, 0.65) and (N_max, 0.4), runtime(N) = T1 / (N E(N)) with T1 chosen so
  that runtime(N_opt) is the job's runtime at its optimum size. N_min = max(N_opt // 2, 1),
  N_max = min(2 N_opt, machine). (The paper's table swaps the factors of runtime(N_min) and
  runtime(N_max): unclamped, runtime(N_min) = 1.625 runtime(N_opt) and runtime(N_max) =
  0.8125 runtime(N_opt), see the reference's erratum.) S(n) = n E(n) is relative to T1, so
  S(1) = E(1) < 1 here: a SCOJO-P job is never run below N_min.
"""

from __future__ import annotations

import math


class SpeedupModel:
    """Base: subclasses define ``speedup(n)``; ``t1_s`` is the sequential time (seconds)."""

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
    """S(n) = n."""

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
    """Downey's speedup model with average parallelism ``A`` >= 1 and ``sigma`` >= 0."""

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


class ScojoP(SpeedupModel):
    """SCOJO-P's piecewise-linear efficiency around the optimum size ``n_opt``."""

    def __init__(
        self,
        runtime_opt_s: float,
        n_opt: int,
        machine_hosts: int,
        *,
        e_min: float = 0.8,
        e_opt: float = 0.65,
        e_max: float = 0.4,
    ):
        if not runtime_opt_s > 0:
            raise ValueError(f"runtime_opt_s must be > 0, got {runtime_opt_s!r}")
        if not 1 <= n_opt <= machine_hosts:
            raise ValueError(f"need 1 <= n_opt <= machine_hosts, got {n_opt!r}, {machine_hosts!r}")
        self.n_opt = int(n_opt)
        self.n_min = max(self.n_opt // 2, 1)
        self.n_max = min(2 * self.n_opt, int(machine_hosts))
        self.e_min, self.e_opt, self.e_max = float(e_min), float(e_opt), float(e_max)
        self.t1_s = float(runtime_opt_s) * self.n_opt * self.e_opt

    def efficiency(self, n: float) -> float:
        if not self.n_min <= n <= self.n_max:
            raise ValueError(f"{n!r} hosts is outside [{self.n_min}, {self.n_max}]")
        if n <= self.n_opt:
            if self.n_opt == self.n_min:
                return self.e_opt
            f = (n - self.n_min) / (self.n_opt - self.n_min)
            return self.e_min + f * (self.e_opt - self.e_min)
        f = (n - self.n_opt) / (self.n_max - self.n_opt)
        return self.e_opt + f * (self.e_max - self.e_opt)

    def speedup(self, n: float) -> float:
        return n * self.efficiency(n)

    def __repr__(self) -> str:
        return (
            f"ScojoP(runtime_opt_s={self.t1_s / (self.n_opt * self.e_opt)!r}, n_opt={self.n_opt}, "
            f"range=[{self.n_min}, {self.n_max}])"
        )
