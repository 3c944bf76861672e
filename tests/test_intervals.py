"""Host ids as runs (adaptsched.core.intervals, formats.intervals.parse_runs) and the engine's
exact sums over repeated values (a job's cost independent of its width)."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adaptsched.core.intervals import IntervalMap, IntervalSet
from adaptsched.engines.embedded.outputs import repeated
from adaptsched.formats.intervals import RunsText, hosts_text, interval_text, parse_hosts, parse_runs, procset

host_sets = st.sets(st.integers(0, 300), max_size=60).map(sorted)
texts = st.lists(st.tuples(st.integers(0, 100), st.integers(0, 20)), max_size=8).map(
    lambda pairs: " ".join(f"{a}-{a + w}" if w else str(a) for a, w in pairs)
)


def test_a_small_set_by_hand():
    hosts = IntervalSet.from_ids([0, 1, 2, 3, 7, 9, 10])
    assert hosts.runs == [(0, 3), (7, 7), (9, 10)] and len(hosts) == 7 and hosts.max() == 10
    assert hosts_text(hosts) == "0-3 7 9-10" and list(hosts) == [0, 1, 2, 3, 7, 9, 10]
    assert 7 in hosts and 8 not in hosts and 11 not in hosts and 0 in hosts
    low, rest = hosts.split_lowest(5)
    assert low.runs == [(0, 3), (7, 7)] and rest.runs == [(9, 10)]
    low, rest = hosts.split_lowest(2)
    assert low.runs == [(0, 1)] and rest.runs == [(2, 3), (7, 7), (9, 10)]
    assert (low | rest) == hosts and hosts == [0, 1, 2, 3, 7, 9, 10]
    assert IntervalSet.from_runs([(4, 5), (1, 3), (2, 2), (9, 9)]).runs == [(1, 5), (9, 9)]


@given(host_sets, st.integers(0, 60))
def test_set_agrees_with_the_list_of_ids(hosts, n):
    runs = IntervalSet.from_ids(hosts)
    assert list(runs) == hosts and len(runs) == len(hosts) and hosts_text(runs) == interval_text(hosts)
    assert str(procset(runs)) == str(procset(hosts)) and list(procset(runs)) == hosts
    n = min(n, len(hosts))
    low, rest = runs.split_lowest(n)
    assert list(low) == hosts[:n] and list(rest) == hosts[n:]
    assert low | rest == runs


@given(host_sets)
def test_an_allocations_text_carries_the_runs_parse_runs_reads_back(hosts):
    """The engine takes an EXECUTE_JOB's runs from the adapter's text instead of parsing it:
    they must be what parse_runs would read, and a copy (the scheduler may change its list)."""
    runs = IntervalSet.from_ids(hosts)
    text = str(procset(runs))
    assert type(text) is RunsText and text == hosts_text(runs)
    assert list(text.runs) == (parse_runs(text).runs if hosts else [])
    runs.runs.append((400, 401))
    assert list(text.runs) == IntervalSet.from_ids(hosts).runs


@pytest.mark.parametrize("runs", [[(0, 1), (2, 3)], [(3, 4), (0, 1)], [(0, 3), (1, 5)], [(0, 3), (3, 5)]])
def test_runs_that_parse_runs_would_read_otherwise_give_plain_text(runs):
    text = str(procset(IntervalSet(runs)))
    assert type(text) is str and text == hosts_text(IntervalSet(runs))


@given(texts)
def test_parse_runs_is_parse_hosts_as_runs(text):
    assert list(parse_runs(text)) == parse_hosts(text)
    assert parse_runs(text) == IntervalSet.from_ids(parse_hosts(text))


@pytest.mark.parametrize("text", ["a", "3-1", "-1", "1-b", "2--3"])
def test_parse_runs_refuses_what_parse_hosts_refuses(text):
    with pytest.raises(ValueError, match="invalid interval"):
        parse_runs(text)


@given(st.lists(st.tuples(st.integers(0, 49), st.integers(0, 10), st.sampled_from([None, "a", "b"])), max_size=30))
def test_interval_map_agrees_with_a_list(assignments):
    n = 50
    runs, plain = IntervalMap(n, None), [None] * n
    for low, width, value in assignments:
        high = min(n - 1, low + width)
        runs.assign(low, high, value)
        plain[low : high + 1] = [value] * (high - low + 1)
        assert runs.to_list() == plain
        assert all(runs.values[i] != runs.values[i + 1] for i in range(len(runs.values) - 1))  # maximal
        for first, last, value_ in runs.pieces(low, high):
            assert plain[first : last + 1] == [value_] * (last - first + 1)
    assert sum(count for _, count in runs.counts()) == n


@given(st.lists(st.tuples(st.floats(0, 1e7), st.integers(0, 100_000)), max_size=20))
def test_repeated_terms_sum_exactly_as_one_by_one(pairs):
    one_by_one = math.fsum(v for v, count in pairs for _ in range(count))
    assert math.fsum(t for v, count in pairs for t in repeated((v,), count)) == one_by_one


@given(st.lists(st.tuples(st.booleans(), st.integers(1, 12)), max_size=40))
def test_host_pool_gives_the_lowest_free_ids_as_a_list_would(steps):
    from adaptsched.core.hosts import HostPool

    pool, free, held = HostPool(40), list(range(40)), []
    for allocate, n in steps:
        if allocate and n <= len(free):
            hosts = pool.allocate(n)
            assert list(hosts) == free[:n]
            free = free[n:]
            held.append(hosts)
        elif held:
            hosts = held.pop(n % len(held))
            pool.release(hosts)
            free = sorted(free + list(hosts))
        assert pool.nb_free == len(free) and list(pool.free()) == free
        assert pool.free().runs == IntervalSet.from_ids(free).runs  # maximal runs
    if free:
        taken = free[::2]
        pool.take(taken)
        assert list(pool.free()) == free[1::2]
        with pytest.raises(ValueError):
            pool.take(taken[:1])
