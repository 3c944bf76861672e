"""The runs of ``adaptsched reproduce perkovic-keleher`` seen per mix: on the whole cleaned log
(:class:`Results`: a randomized mix's seeds, a deterministic mix's one run), on the paper's
workload (:class:`PaperResults`: seed k on flurry draw k) and on the windows of the cleaned log
(:class:`WindowResults`: a deterministic mix's run on each window)."""

from __future__ import annotations

import math

import numpy as np

from .findings import Windows
from .plan import window_name
from .workloads import draw_of, paper_name


class Stat:
    """Mean and spread of one metric over a mix's runs."""

    def __init__(self, values):
        self.values = [v for v in values if v is not None and math.isfinite(v)]
        self.mean = float(np.mean(self.values)) if self.values else float("nan")
        self.low = min(self.values) if self.values else float("nan")
        self.high = max(self.values) if self.values else float("nan")

    def text(self, digits=2, scale=1.0):
        if not self.values:
            return "-"
        out = f"{self.mean * scale:,.{digits}f}"
        if len(self.values) > 1:
            out += f" ({self.low * scale:,.{digits}f}–{self.high * scale:,.{digits}f})"
        return out


def get(run, path):
    """run[path[0]][path[1]]..., None when a key is missing."""
    value = run
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def relative(a: Stat, b: Stat) -> float:
    """a's mean / b's - 1, NaN when one is missing."""
    return a.mean / b.mean - 1 if b.values and a.values and b.mean else float("nan")


class Results:
    """The runs of each mix on the whole cleaned log, and accessors for their metrics."""

    def __init__(self, mixes, results, seeds):
        self.mixes = mixes
        self.runs = {}
        self.seeded = {}  # label -> {seed: result} (randomized mixes), or {None: result}
        for mix in mixes:
            keys = list(range(1, seeds + 1)) if mix.randomized else [None]
            self.seeded[mix.label] = {k: results[mix.slug(k)] for k in keys if mix.slug(k) in results}
            self.runs[mix.label] = list(self.seeded[mix.label].values())
        self.by_label = {m.label: m for m in mixes}

    def series(self, label, path):
        """A metric of a mix as the findings take it: {seed: value} if randomized, one number if
        deterministic (one run), None when it did not run."""
        runs = self.seeded.get(label)
        if not runs:
            return None
        values = {k: get(run, path) for k, run in runs.items()}
        if None in values:
            return values[None]
        return {k: v for k, v in values.items() if v is not None}

    def metric(self, path) -> dict:
        """{label: series} of every mix that ran."""
        return {label: self.series(label, path) for label in self.seeded if self.seeded[label]}

    def stat(self, label, path):
        return Stat([get(run, path) for run in self.runs.get(label, [])])

    def bsld(self, label):
        return self.stat(label, ("overall", "bsld_mean"))

    def wait(self, label):
        return self.stat(label, ("overall", "wait_mean_s"))

    def response(self, label):
        return self.stat(label, ("overall", "response_mean_s"))

    def has(self, label):
        return bool(self.runs.get(label))

    def all_runs(self) -> list[dict]:
        return [r for rs in self.runs.values() for r in rs]


class PaperResults(Results):
    """The runs on the paper's workload: every mix keyed by seed, seed k on flurry draw
    :func:`~.workloads.draw_of` (k), so that a deterministic mix (BF) is a series over the draws,
    paired with the randomized mixes' seeds."""

    def __init__(self, mixes, results, seeds, draws):
        self.mixes = mixes
        self.runs = {}
        self.seeded = {}
        for mix in mixes:
            got = {}
            for k in range(1, seeds + 1):
                name = f"{paper_name(draw_of(k, draws))}_{mix.slug(k if mix.randomized else None)}"
                if name in results:
                    got[k] = results[name]
            self.seeded[mix.label] = got
            self.runs[mix.label] = list({id(r): r for r in got.values()}.values())
        self.by_label = {m.label: m for m in mixes}


class WindowResults(Results):
    """The runs of the deterministic mixes on each window of the cleaned log: every series a
    :class:`~.findings.Windows` ({window: value})."""

    def __init__(self, mixes, results, windows):
        self.mixes = mixes
        self.runs = {}
        self.seeded = {}
        for mix in mixes:
            got = {}
            for k in range(1, windows + 1):
                name = f"{window_name(k, windows)}_{mix.slug(None)}"
                if name in results:
                    got[k] = results[name]
            self.seeded[mix.label] = got
            self.runs[mix.label] = list(got.values())
        self.by_label = {m.label: m for m in mixes}

    def series(self, label, path):
        runs = self.seeded.get(label)
        if not runs:
            return None
        values = {k: get(run, path) for k, run in runs.items()}
        return Windows({k: v for k, v in values.items() if v is not None})
