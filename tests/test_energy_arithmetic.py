"""The energy model's fast arithmetic gives the bytes of the plain one: long double sums taken on
integers when no partial sum can round, ``%Lf`` of a long double that is also a double printed by
Python, and machine-state times added in batches from a log. Each is checked against the direct
computation (80-bit additions one by one, numpy's long double formatting, one addition per change)
on values chosen to take and to miss the fast paths."""

import numpy as np
import pytest

from adaptsched.engines.embedded.energy import ld_text, long_double_sums
from adaptsched.engines.embedded.machines import COMPUTING, IDLE, NAMES, SLEEPING, MachineStates

pytestmark = pytest.mark.skipif(np.finfo(np.longdouble).nmant < 63, reason="x87 long double (Batsim's)")


def one_by_one(row: np.ndarray) -> np.longdouble:
    total = np.longdouble(row[0])
    for value in row[1:]:
        total = total + np.longdouble(value)
    return total


@pytest.mark.parametrize("seed", range(4))
def test_long_double_sums_are_the_sums_added_in_order(seed):
    rng = np.random.default_rng(seed)
    cases = [
        rng.integers(0, 2**40, (3, 338)).astype(float),  # whole joules: the exact path
        rng.integers(0, 2**45, (2, 200)).astype(float) * 0.25,
        rng.random((2, 338)) * 1e11,  # fractions below the sums' last bit: rounded in order
        np.array([[2.0**62, 1.0, -(2.0**62), 1.0]]),  # partial sums past 2^62: not the exact path
        np.array([[1e300, -1e300, 1e-300]]),  # a value that would underflow if scaled down
        np.array([[0.0, 0.0]]),
    ]
    for rows in cases:
        assert [one_by_one(row) for row in rows] == list(long_double_sums(rows))


def test_sums_past_64_bits_round_at_each_addition_as_batsim_does():
    whole = np.full((1, 4), 2.0**50)
    assert long_double_sums(whole)[0] == 2.0**52
    tiny = np.array([[2.0**64, 1.0, 1.0]])  # 2^64 + 1 is a tie, rounded to even: each 1 is lost
    assert long_double_sums(tiny)[0] == np.longdouble(2.0**64) == one_by_one(tiny[0])


def test_a_long_double_prints_as_glibc_whether_or_not_it_is_a_double():
    def numpy_text(value):
        return np.format_float_positional(value, precision=6, unique=False, fractional=True)

    rng = np.random.default_rng(7)
    values = [np.longdouble(v) for v in (0.0, -0.0, 5e-7, -5e-7, 1e-7, 937.0, 27238590.0, 1e15, np.inf)]
    values += [np.longdouble(rng.random() * 10 ** rng.uniform(-8, 14)) for _ in range(2000)]
    values += [np.cumsum(rng.random(5) * 1e9, dtype=np.longdouble)[-1] for _ in range(2000)]  # not doubles
    assert any(v != float(v) for v in values) and any(v == float(v) for v in values)
    for value in values:
        assert ld_text(value) == numpy_text(value), value
    assert ld_text(np.longdouble(30087070)) == "30087070.000000"


def test_machine_state_times_added_in_batches_are_the_times_added_at_each_change(monkeypatch):
    """Batsim adds ``now - since`` (long double) to the old state's time at every change."""
    monkeypatch.setattr(MachineStates, "BATCH", 7)  # several batches, a machine's changes across them
    rng = np.random.default_rng(3)
    n = 12
    states = MachineStates(n)
    state = np.zeros(n, dtype=np.int64)
    since = np.zeros(n, dtype=np.longdouble)
    expected = np.zeros((len(NAMES), n), dtype=np.longdouble)
    now = 0.0
    for _ in range(60):
        now += float(rng.choice([0.0, 1e-5, 0.1, 3.0, 1234.567]))
        low = int(rng.integers(0, n))
        high = int(rng.integers(low, n))
        sel = slice(low, high + 1) if rng.random() < 0.5 else np.arange(low, high + 1)
        new = int(rng.choice([IDLE, COMPUTING, SLEEPING]))
        for machine in range(low, high + 1):
            expected[state[machine], machine] += np.longdouble(now) - since[machine]
            state[machine], since[machine] = new, np.longdouble(now)
        states.change(sel, new, now)
        assert states.row() == tuple(int((state == s).sum()) for s in (SLEEPING, 3, 4, IDLE, COMPUTING))
    totals = states.totals()
    for index, name in enumerate(NAMES):
        assert totals[name] == float(one_by_one(expected[index]))
