"""Speedup models (core/speedup.py): properties over random parameters, and hand-worked values."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adaptsched.core.speedup import Downey, Linear, ScojoP

A_S = st.floats(1.0, 512.0)
SIGMA = st.floats(0.0, 4.0)
N = st.integers(1, 2048)
close = dict(rel=1e-9, abs=1e-9)


@given(A_S, SIGMA)
def test_downey_starts_at_one(A, sigma):
    assert Downey(A, sigma).speedup(1) == pytest.approx(1.0, **close)


@settings(max_examples=300)
@given(A_S, SIGMA, N)
def test_downey_non_decreasing_and_bounded(A, sigma, n):
    model = Downey(A, sigma)
    s = model.speedup(n)
    assert model.speedup(n + 1) >= s - 1e-9
    assert s <= min(n, A) + 1e-9


@settings(max_examples=300)
@given(A_S, SIGMA)
def test_downey_continuous_at_the_breakpoints(A, sigma):
    model = Downey(A, sigma)
    points = [A, 2 * A - 1] if sigma <= 1 else [A + A * sigma - sigma]
    for x in points:
        if x > 1 + 1e-6:
            assert model.speedup(x - 1e-9) == pytest.approx(model.speedup(x + 1e-9), rel=1e-6)


@given(A_S, N)
def test_downey_families_agree_at_sigma_one_and_sigma_zero_is_min(A, n):
    low, high = Downey(A, 1.0), Downey(A, 1.0 + 1e-12)
    assert low.speedup(n) == pytest.approx(high.speedup(n), rel=1e-6)
    assert Downey(A, 0.0).speedup(n) == pytest.approx(min(n, A), **close)


@given(A_S, SIGMA, N, st.floats(1.0, 1e6))
def test_work_is_conserved(A, sigma, n, t1_s):
    for model in (Downey(A, sigma, t1_s), Linear(t1_s)):
        assert model.runtime(n) * n * model.efficiency(n) == pytest.approx(t1_s, rel=1e-9)


def test_downey_by_hand():
    # low variance, A = 10, sigma = 0.5: S(5) = 50 / (10 + 1) ; S(12) = 120 / (4.75 + 9)
    model = Downey(10, 0.5, t1_s=1000)
    assert model.speedup(5) == pytest.approx(50 / 11)
    assert model.speedup(12) == pytest.approx(120 / 13.75)
    assert model.speedup(19) == pytest.approx(10) and model.speedup(100) == 10
    assert model.runtime(100) == pytest.approx(100) and model.n_max_useful == 19
    # high variance, A = 10, sigma = 2: S(4) = 4*10*3 / (2*13 + 10); max useful 10 + 20 - 2 = 28
    high = Downey(10, 2)
    assert high.speedup(4) == pytest.approx(120 / 36) and high.n_max_useful == 28
    assert high.speedup(28) == pytest.approx(10)


@settings(max_examples=200)
@given(st.integers(1, 256), st.integers(1, 512), st.floats(1.0, 1e5))
def test_scojo_p_points_continuity_and_work(n_opt, extra, runtime_opt_s):
    machine = n_opt + extra
    model = ScojoP(runtime_opt_s, n_opt, machine)
    assert model.runtime(n_opt) == pytest.approx(runtime_opt_s, rel=1e-12)
    assert model.efficiency(model.n_min) == pytest.approx(0.8 if model.n_min < n_opt else 0.65)
    if model.n_max > n_opt:
        assert model.efficiency(model.n_max) == pytest.approx(0.4)
    for n in range(model.n_min, model.n_max + 1):
        assert model.runtime(n) * n * model.efficiency(n) == pytest.approx(model.t1_s, rel=1e-12)
    assert model.efficiency(n_opt - 1e-9 if n_opt > model.n_min else n_opt) == pytest.approx(0.65, abs=1e-6)


def test_scojo_p_erratum_values():
    model = ScojoP(1000.0, 16, 128)
    assert (model.n_min, model.n_max) == (8, 32)
    assert model.runtime(8) == pytest.approx(1625.0) and model.runtime(32) == pytest.approx(812.5)
    assert ScojoP(1000.0, 100, 128).n_max == 128  # clamped to the machine
    with pytest.raises(ValueError):
        model.runtime(7)


def test_bad_parameters():
    for bad in (
        lambda: Downey(0.5, 1),
        lambda: Downey(2, -1),
        lambda: Linear(0),
        lambda: Downey(2, 1).speedup(0),
        lambda: ScojoP(10, 0, 8),
    ):
        with pytest.raises(ValueError):
            bad()
    assert not math.isnan(Downey(1, 0).speedup(1))
