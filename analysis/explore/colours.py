"""What the colours of the explorer's Gantt charts mean: one rule, picked by the reader.

Every rectangle is coloured by a value of its **job** (the folded job, the same in every run
of a page), so that a job keeps its colour from one run's chart to the next:

* ``job``: a hash of the job's full id (CRC-32 of ``WORKLOAD!ID``, modulo 255) into
  :data:`JOB_PALETTE`: the same job has the same colour in every run and every page;
* ``size``: the hosts it requested, by powers of two (1, 2, 3-4, 5-8, ...);
* ``class``: Perkovic & Keleher's shape group (sec. 3, Table 2; :mod:`..backfilling`): short
  or long by the run's median estimate, narrow or wide by its median width;
* ``user``: the job's user (from the run's workload; grey when unknown), hashed as a job is;
* ``wait``: its wait in that run (so this one differs between runs), in bins from a minute to
  three days;
* ``kind``: the kind of the attempt (regular, resized, molded, speculative copy...), as the
  Gantt PNG colours it (:data:`~adaptsched.analysis.gantt.CATEGORIES`).

Killed attempts (at their walltime, by the scheduler, or failed) are not a colour: they are
outlined in black and struck through, corner to corner, over their job's colour
(:data:`KILLED`).

The page ships one byte per rectangle (its value under the default rule) and the jobs'
columns; :data:`RECOLOUR` recomputes the values in the browser when the reader picks another
rule, and swaps the palette.
"""

from __future__ import annotations

import colorsys
import html
import zlib

import numpy as np

from ..gantt import CATEGORIES

#: (mode, what the selector says), the first being the default.
MODES = (
    ("job", "job (the same in every run)"),
    ("size", "size (hosts requested)"),
    ("class", "class (short/long x narrow/wide)"),
    ("user", "user"),
    ("wait", "wait in this run"),
    ("kind", "kind of attempt"),
)
#: Colour value of "none" (a job of unknown user, a job that never ran): drawn in grey.
NONE = 255
GREY = "#c8c8c8"
#: Attempt categories struck through: the job did not complete in that attempt.
KILLED = ("speculative-killed", "walltime", "killed", "failed")
CATEGORY_KEYS = tuple(CATEGORIES)
KIND_PALETTE = tuple(tints[0] for _, tints in CATEGORIES.values())
#: The zoomed-out overview (each pixel: the category that kept its hosts busiest), muted:
#: completions in light tints of their kind, killed attempts in greys.
OVERVIEW_PALETTE = ("#9dbad6", "#a3cfbf", "#e3dc9c", "#d8b4cb", "#c4c4c4", "#8f8f8f", "#7d6f78", "#555555")
#: Waits: under a minute, 10 minutes, an hour, 4 hours, 12 hours, a day, 3 days, and more.
WAIT_BOUNDS_S = (60, 600, 3600, 4 * 3600, 12 * 3600, 86400, 3 * 86400)
WAIT_PALETTE = ("#ffffcc", "#ffeda0", "#fed976", "#feb24c", "#fd8d3c", "#f03b20", "#bd0026", "#67000d")
#: Shape groups (Okabe-Ito): short ones blue, long ones orange; wide ones darker.
CLASS_NAMES = ("SN", "SW", "LN", "LW")
CLASS_PALETTE = ("#56B4E9", "#0072B2", "#E69F00", "#D55E00")


def _job_palette(count: int = 255) -> tuple[str, ...]:
    """``count`` colours far apart in hue (golden-angle steps), in three lightnesses and two
    saturations, none too dark for the black stroke of a killed attempt to show."""
    colours = []
    for i in range(count):
        hue = (i * 137.508) % 360 / 360
        light = (0.50, 0.62, 0.74)[i % 3]
        saturation = (0.70, 0.50)[(i // 3) % 2]
        red, green, blue = colorsys.hls_to_rgb(hue, light, saturation)
        colours.append(f"#{round(red * 255):02x}{round(green * 255):02x}{round(blue * 255):02x}")
    return tuple(colours)


JOB_PALETTE = _job_palette()


def job_hue(keys) -> np.ndarray:
    """Colour value of each job of full id ``keys`` under ``job``: CRC-32 of the id, mod 255."""
    return np.fromiter((zlib.crc32(str(k).encode()) % 255 for k in keys), dtype=np.uint8, count=len(keys))


def user_hue(users: np.ndarray) -> np.ndarray:
    """Colour value of each user id (Knuth's multiplicative hash, mod 255); :data:`NONE` for -1."""
    users = np.asarray(users, dtype=np.int64)
    hashed = ((users * 2654435761) & 0xFFFFFFFF) % 255
    return np.where(users < 0, NONE, hashed).astype(np.uint8)


def size_bucket(size: np.ndarray) -> np.ndarray:
    """0 for 1 host, 1 for 2, 2 for 3-4, 3 for 5-8...: ceil(log2(hosts))."""
    size = np.maximum(np.asarray(size, dtype=np.int64), 1)
    return np.ceil(np.log2(size) - 1e-9).astype(np.uint8)


def wait_bin(wait: np.ndarray) -> np.ndarray:
    """Index of each wait among :data:`WAIT_BOUNDS_S`' bins; :data:`NONE` for a job that never ran."""
    wait = np.asarray(wait, dtype=float)
    bins = np.searchsorted(np.array(WAIT_BOUNDS_S, dtype=float), wait, side="right")
    return np.where(np.isnan(wait), NONE, bins).astype(np.uint8)


def size_palette(hosts: int) -> tuple[str, ...]:
    """One colour per size bucket up to the machine's, light (1 host) to dark (the widest)."""
    from bokeh.palettes import Viridis256

    buckets = int(size_bucket(np.array([hosts]))[0]) + 1
    return tuple(Viridis256[round(255 - 230 * i / max(buckets - 1, 1))] for i in range(buckets))


def palettes(hosts: int) -> dict[str, list[str]]:
    return {
        "job": list(JOB_PALETTE),
        "size": list(size_palette(hosts)),
        "class": list(CLASS_PALETTE),
        "user": list(JOB_PALETTE),
        "wait": list(WAIT_PALETTE),
        "kind": list(KIND_PALETTE),
    }


def swatch(colour: str, label: str) -> str:
    return (
        f'<span style="white-space:nowrap;margin-right:12px"><span style="display:inline-block;width:13px;'
        f'height:11px;background:{colour};border:1px solid #555;vertical-align:-1px"></span> '
        f"{html.escape(label)}</span>"
    )


STRUCK = (
    '<span style="white-space:nowrap;margin-right:12px"><span style="display:inline-block;width:13px;height:11px;'
    "border:1px solid #000;vertical-align:-1px;background:linear-gradient(to top right,transparent 45%,#000 45%,"
    '#000 55%,transparent 55%)"></span> struck through: killed (walltime, scheduler) or failed attempt</span>'
)


def legends(hosts: int, class_labels: dict[str, str], users: list[tuple[int, int]]) -> dict[str, str]:
    """The legend's HTML for each mode. ``class_labels``: {SN: "estimate <= ..., <= 8 hosts"...};
    ``users``: (user id, jobs) of the busiest users, or [] when users are unknown."""
    sizes = size_palette(hosts)
    size_items = [swatch(sizes[0], "1 host")] + [
        swatch(colour, f"{2 ** (i - 1) + 1}-{2**i} hosts" if i > 1 else "2 hosts")
        for i, colour in enumerate(sizes)
        if i
    ]
    wait_labels = ("< 1 min", "1-10 min", "10 min-1 h", "1-4 h", "4-12 h", "12 h-1 d", "1-3 d", ">= 3 d")
    if users:
        hues = user_hue(np.array([u for u, _ in users]))
        user_items = [swatch(JOB_PALETTE[h], f"user {u} ({n:,} jobs)") for (u, n), h in zip(users, hues)]
        user_items.append("others: a colour each (a hash of the user id); " + swatch(GREY, "user unknown"))
    else:
        user_items = [swatch(GREY, "users unknown: give the run's workload (explore --workload W.json)")]
    items = {
        "job": ["each job its own colour (a hash of its id): the same job has the same colour in every run"],
        "size": size_items,
        "class": [swatch(c, f"{name}: {class_labels.get(name, '')}") for name, c in zip(CLASS_NAMES, CLASS_PALETTE)],
        "user": user_items,
        "wait": [swatch(c, label) for c, label in zip(WAIT_PALETTE, wait_labels)],
        "kind": [swatch(KIND_PALETTE[i], CATEGORIES[k][0]) for i, k in enumerate(CATEGORY_KEYS)],
    }
    return {mode: " ".join(parts) + " " + STRUCK for mode, parts in items.items()}


#: Rule picked: recompute each run's colour values (``runs``: {rects, attempts} sources; ``jobs``:
#: the jobs' source; ``mappers``: every Gantt colour mapper; ``palettes``, ``legends``: by mode).
RECOLOUR = """
const mode = picker.value, j = jobs.data;
const bounds = %(bounds)s;
const value = {
  job: (k) => j.hue[k],
  size: (k) => Math.ceil(Math.log2(Math.max(j.size[k], 1)) - 1e-9),
  class: (k) => j.cls[k],
  user: (k) => (j.user[k] < 0 ? 255 : (Math.imul(j.user[k], 2654435761 | 0) >>> 0) %% 255),
  wait: (k) => {
    const w = j.wait[k];
    if (w == null || Number.isNaN(w)) return 255;
    let b = 0;
    while (b < bounds.length && w >= bounds[b]) b++;
    return b;
  },
}[mode];
for (const run of runs) {
  const rect = run.rects.data.attempt, a = run.attempts.data, c = new Uint8Array(rect.length);
  for (let i = 0; i < rect.length; i++) {
    c[i] = mode === "kind" ? a.code[rect[i]] : value(a.job[rect[i]]);
  }
  run.rects.data = Object.assign({}, run.rects.data, {c});
}
const palette = palettes[mode];
for (const mapper of mappers) {
  mapper.setv({palette, high: palette.length - 0.5});
}
legend.text = legends[mode];
""" % {"bounds": list(WAIT_BOUNDS_S)}
