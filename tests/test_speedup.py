"""Speedup models (core/speedup.py): properties over random parameters, and hand-worked values."""

import itertools
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
@given(st.integers(1, 256), st.integers(0, 512), st.floats(1.0, 1e5), st.sampled_from(["speedup", "efficiency"]))
def test_scojo_p_points_continuity_and_work(n_opt, extra, runtime_opt_s, interpolation):
    machine = n_opt + extra
    model = ScojoP(runtime_opt_s, n_opt, machine, interpolation=interpolation)
    assert (model.n_min, model.n_max) == (max(math.ceil(n_opt / 2), 1), min(2 * n_opt, machine))
    assert model.runtime(n_opt) == pytest.approx(runtime_opt_s, rel=1e-12)
    assert model.efficiency(n_opt) == pytest.approx(0.65)
    for n in range(model.n_min, model.n_max + 1):
        assert model.runtime(n) * n * model.efficiency(n) == pytest.approx(model.t1_s, rel=1e-12)
    # continuous at N_opt: no jump on either side
    assert model.speedup(n_opt - 1e-9 if n_opt > model.n_min else n_opt) == pytest.approx(
        model.speedup(n_opt), rel=1e-6
    )


@pytest.mark.parametrize("n_opt", [2, 8, 16, 40, 64])
def test_scojo_the_three_anchors_on_the_unclamped_line(n_opt):
    """Sec. 4.6: S through (N_opt/2, 0.4 N_opt), (N_opt, 0.65 N_opt), (2 N_opt, 0.8 N_opt)."""
    model = ScojoP(100.0, n_opt, 128)
    assert model.speedup(n_opt / 2) == pytest.approx(0.4 * n_opt)
    assert model.speedup(n_opt) == pytest.approx(0.65 * n_opt)
    assert model.speedup(2 * n_opt) == pytest.approx(0.8 * n_opt)
    assert model.efficiency(n_opt / 2) == pytest.approx(0.8)
    assert model.efficiency(2 * n_opt) == pytest.approx(0.4)
    # straight lines between them
    mid = (n_opt / 2 + n_opt) / 2
    assert model.speedup(mid) == pytest.approx((0.4 * n_opt + 0.65 * n_opt) / 2)


def test_scojo_table_1_factors_1625_and_08125():
    model = ScojoP(1000.0, 16, 128)
    assert (model.n_min, model.n_max) == (8, 32)
    assert model.runtime(8) == pytest.approx(1625.0) and model.runtime(32) == pytest.approx(812.5)
    assert model.runtime_ratio(0.5) == pytest.approx(1.625) and model.runtime_ratio(2) == pytest.approx(0.8125)
    assert ScojoP(1000.0, 100, 128).n_max == 128  # clamped to the machine
    with pytest.raises(ValueError):
        model.runtime(7)
    with pytest.raises(ValueError):
        model.runtime(33)


def test_scojo_domain_rounds_n_min_up():
    assert ScojoP(10.0, 7, 128).n_min == 4  # ceil(3.5), not floor
    assert ScojoP(10.0, 1, 128).n_min == 1 and ScojoP(10.0, 1, 128).n_max == 2
    assert ScojoP(10.0, 1, 1).n_max == 1


@pytest.mark.parametrize("n_opt", range(2, 65))
def test_scojo_pws_is_n_opt(n_opt):
    """Table 1: "N_opt = N_PWS", the n in [N_min, N_max] maximising S(n)^2 / n."""
    model = ScojoP(100.0, n_opt, 128)
    sizes = range(model.n_min, model.n_max + 1)
    assert max(sizes, key=lambda n: model.speedup(n) ** 2 / n) == n_opt
    # the old efficiency interpolation puts it above (about 1.2 N_opt)
    old = ScojoP(100.0, n_opt, 128, interpolation="efficiency")
    assert max(sizes, key=lambda n: old.speedup(n) ** 2 / n) >= n_opt


@pytest.mark.parametrize("n_opt", [65, 79, 100, 128])
def test_scojo_speedup_increases_up_to_n_max(n_opt):
    model = ScojoP(100.0, n_opt, 128)
    speedups = [model.speedup(n) for n in range(model.n_min, model.n_max + 1)]
    assert all(b > a for a, b in itertools.pairwise(speedups))
    assert model.runtime(model.n_max) <= model.runtime(n_opt)


def test_scojo_old_efficiency_form_kept():
    old = ScojoP(1000.0, 16, 128, interpolation="efficiency")
    assert old.efficiency(8) == pytest.approx(0.8) and old.efficiency(32) == pytest.approx(0.4)
    assert old.efficiency(12) == pytest.approx((0.8 + 0.65) / 2)
    with pytest.raises(ValueError):
        ScojoP(1000.0, 16, 128, interpolation="cubic")


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
