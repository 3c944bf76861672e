"""The stated limits of adaptsched's inputs: past them an input is refused with a message, before
it costs memory or time that its claims alone (a host count, a gzip header, a job count) would
make it cost (docs/errors.md, "Limits").

Each limit is far above what the papers, the archive's traces and the scale runs use
(docs/scale.md: 300,000 jobs, 100,000 hosts), and low enough that what it lets through loads
in well under 2 GB: a run on 1,000,000 hosts takes about 0.85 GB.
"""

from __future__ import annotations

#: Hosts of a machine: ``--platform N``, ``--hosts N``, a platform file's hosts.
MAX_HOSTS = 1_000_000
#: Jobs a command makes from a number it is given (``generate lublin --jobs``, ``--add-flurry count=``).
MAX_GENERATED_JOBS = 1_000_000
#: ``generate downey --days``: a century of arrivals.
MAX_DAYS = 36_500
#: ``generate evolving --tests``.
MAX_TESTS = 100_000
#: A file read whole (a JSON workload, a platform, a sweep spec, an option's file): refused past this size.
MAX_TEXT_BYTES = 1 << 30
#: A line of an SWF trace (the archive's are under 200 bytes; header comments under 1 KB).
MAX_SWF_LINE_BYTES = 1 << 20
#: A gzip file that inflates more than this many times its own size (past its first 8 MiB) is
#: refused: the archive's traces inflate 5 to 10 times, a "gzip bomb" about 1,000 times.
MAX_GZIP_RATIO = 200
#: The characters of one input token that an error message quotes (the rest is elided).
SHOWN_CHARS = 60


def shown(text: str, limit: int = SHOWN_CHARS) -> str:
    """``repr(text)``, elided in the middle past ``limit`` characters, with its length.

    >>> shown("abc")
    "'abc'"
    >>> shown("1" * 10_000_000)
    "'111111111111111111111111111111...111111111111111111111111111111' (10,000,000 characters)"
    """
    if len(text) <= limit:
        return repr(text)
    half = limit // 2
    return f"{text[:half]!r}...{text[-half:]!r}".replace("'...'", "...") + f" ({len(text):,} characters)"


def brief(value: object, limit: int = SHOWN_CHARS) -> str:
    """``repr(value)``, elided in the middle past ``limit`` characters (a value an error quotes).

    >>> brief(12), brief([0] * 1000)[:20]
    ('12', '[0, 0, 0, 0, 0, 0, 0')
    """
    text = repr(value)
    if len(text) <= limit:
        return text
    return f"{text[: limit // 2]}...{text[-(limit // 2) :]} ({len(text):,} characters)"
