"""A run's outputs never look whole when they are not: written under partial names, renamed
once the run has ended and passed its physics check.

Both engines write a run's outputs (``PREFIX_jobs.csv``, ``PREFIX_schedule.csv``,
``PREFIX_machine_states.csv``, real Batsim's ``PREFIX_schedule.trace``) under their *partial*
names, the final name followed by :data:`PARTIAL` (``PREFIX_jobs.csv.partial``), and
:meth:`RunOutputs.promote` gives them their final names only when the run succeeded. A run that
fails, is interrupted (Ctrl-C) or whose process dies leaves what it wrote under the partial
names, readable (the rows written before the end are on disk: the embedded engine flushes its
``_jobs.csv`` before each message to an in-process plugin), and nothing under the final names:
a run starts by removing both names' files of its prefix (a previous run's outputs would
otherwise pass for its own). Real Batsim writes under a prefix of its own in a folder beside the
outputs (``PREFIX.partial-XXXX/``), whose files are moved to the partial names when it ends
(:func:`batsim_outputs`); if the process running it is killed, they stay there.

The logs (``PREFIX_sched.log``, ``PREFIX_batsim.log``) and the inputs a run writes
(``PREFIX_platform.xml``, ``PREFIX_workload.json``) keep their names: they are not results.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from adaptsched.errors import SimulationError

#: What follows an output's final name while it is not (or never becomes) a finished run's.
PARTIAL = ".partial"
#: A run's outputs, after its prefix, in the order :meth:`RunOutputs.promote` renames them: the
#: schedule summary, which Batsim writes at the very end, last.
SUFFIXES = (
    "_machine_states.csv",
    "_schedule.trace",
    "_consumed_energy.csv",  # with the energy model (docs/energy.md)
    "_pstate_changes.csv",
    "_jobs.csv",
    "_schedule.csv",
)


class RunOutputs:
    """The outputs of the run of prefix ``prefix``: their final and partial names."""

    def __init__(self, prefix: str | Path) -> None:
        self.prefix = str(prefix)

    def final(self, suffix: str) -> str:
        return f"{self.prefix}{suffix}"

    def partial(self, suffix: str) -> str:
        return f"{self.prefix}{suffix}{PARTIAL}"

    def clear(self) -> None:
        """Removes the outputs of an earlier run of this prefix, final or partial."""
        for suffix in SUFFIXES:
            for path in (self.final(suffix), self.partial(suffix)):
                try:
                    os.unlink(path)
                except FileNotFoundError:
                    pass

    def kept(self) -> list[str]:
        """The partial outputs on disk (those of a run that did not succeed)."""
        return [self.partial(s) for s in SUFFIXES if os.path.isfile(self.partial(s))]

    def promote(self) -> None:
        """The run succeeded: its outputs get their final names."""
        for suffix in SUFFIXES:
            if os.path.isfile(self.partial(suffix)):
                os.replace(self.partial(suffix), self.final(suffix))

    @contextmanager
    def written(self, say: Callable[..., None] = print) -> Iterator[None]:
        """The run writes its outputs in this block: an earlier run's go first (they would pass for
        this one's); if it ends, they get their final names (:meth:`promote`); if it fails, its
        error says where what it wrote is kept (:meth:`note`), and so does an interruption."""
        self.clear()
        try:
            yield
        except SimulationError as error:
            note = self.note()
            if note:
                raise SimulationError(f"{error}\n{note}") from None
            raise
        except KeyboardInterrupt:
            note = self.note()
            if note:
                say(f"interrupted {note}")
            raise
        self.promote()  # the run ended and passed its physics: its outputs are whole

    def note(self) -> str:
        """What a failed run's message adds: where its outputs are kept, or ''."""
        kept = self.kept()
        if not kept:
            return ""
        return f"(what the run wrote is kept, marked partial: {', '.join(kept)})"


@contextmanager
def batsim_outputs(prefix: str | Path) -> Iterator[str]:
    """``with batsim_outputs(prefix) as export_prefix``: real Batsim writes in a folder of its own
    beside the outputs (``PREFIX.partial-XXXX/``), under ``export_prefix`` there; once it has ended
    (or was stopped), each file it wrote moves to its partial name beside the outputs
    (``folder/NAME_jobs.csv`` -> ``PREFIX_jobs.csv.partial``) and the folder goes."""
    final = Path(prefix)
    folder = Path(tempfile.mkdtemp(prefix=f"{final.name}{PARTIAL}-", dir=final.parent))
    try:
        yield str(folder / final.name)
    finally:
        outputs = RunOutputs(prefix)
        for suffix in SUFFIXES:
            path = folder / f"{final.name}{suffix}"
            if path.is_file():
                os.replace(path, outputs.partial(suffix))
        shutil.rmtree(folder, ignore_errors=True)
