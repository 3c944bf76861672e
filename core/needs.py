"""What a scheduler's input must carry, declared once, checked before the first event.

A scheduler whose algorithm reads more than Batsim's rigid request (moldable sizes with a
speedup model, QoS terms, evolving stages, a walltime on every job) declares it in its options
class (:meth:`adaptsched.core.options.Options.needs`): each :class:`Need` names the job field,
the models it reads, the command that adds the field and the option that accepts the input
without it. :func:`check_jobs` is the one check, with one message: made by ``adaptsched run``
(:func:`adaptsched.engines.run.run`) on the workload it read, before the engine starts, and
only under stock pybatsim against real Batsim by the pybatsim adapter at SIMULATION_BEGINS,
from the workload files Batsim names.

* no job carries it: :class:`InputRefused`, one paragraph naming the command that prepares
  the workload and the option that accepts it as it is;
* some jobs carry it: a note saying how many jobs of each kind there are, and what happens
  to the others (``Need.without``);
* the option is set (``Need.required`` false): the same note when some lack it, no refusal.

>>> need = Need("moldable jobs", "moldable", ("downey",), "adaptsched mold-annotate W.json OUT.json",
...             "rigid=keep", "rigid jobs keep their request and runtime")
>>> verdict = check_jobs(need, [{"id": 1, "moldable": {"model": "downey"}}, {"id": 2}], "w.json", "downey")
>>> verdict.counts
{'with': 1, 'without': 1, 'other models': 0}
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from adaptsched.errors import InputRefused

__all__ = ["InputRefused", "Need", "Verdict", "check_jobs"]


@dataclass(frozen=True)
class Need:
    """What every job should carry: the field ``field`` (a JSON object whose ``model`` is one of
    ``models`` when models are named; a non-empty ``stages`` list for evolving applications),
    described as ``what``. ``command`` adds it; the option ``fallback`` (``KEY=VALUE``) accepts
    a workload without it, jobs without it being treated as ``without`` says (empty: nothing to
    say, they are as good). ``required``: refuse a workload where no job carries it (false once
    the fallback option is set)."""

    what: str
    field: str
    models: tuple[str, ...]
    command: str
    fallback: str | None  # None: no option accepts a workload without it
    without: str
    required: bool = True
    every: bool = False  # every job must carry it (no job may lack it)

    def carried_by(self, job: Mapping[str, Any]) -> str:
        """ "with", "without" or "other models": what the job's description carries (an
        :class:`InputRefused` for a model that lacks one of its parameters)."""
        value = job.get(self.field)
        if self.field == "evolving" and not self._stages(value) and not _positive(job.get("walltime", -1)):
            raise InputRefused(
                f"job {job.get('id')} has neither evolving stages nor a walltime: a job without stages is planned as "
                "one stage of its walltime"
            )
        if self.field == "walltime":
            return "with" if _positive(value) else "without"
        if value is None:
            return "without"
        if self.field == "evolving":
            return "with" if self._stages(value) else "without"
        if not self.models:
            return "with"
        model = value.get("model") if isinstance(value, dict) else None
        if model not in self.models:
            return "other models"
        assert isinstance(value, dict)
        missing = [key for key in MODEL_PARAMETERS.get(model, ()) if key not in value]
        if missing:
            raise InputRefused(
                f"job {job.get('id')}: its {self.field!r} model {model!r} lacks {', '.join(map(repr, missing))} "
                f"(`{self.command}` writes every parameter)"
            )
        return "with"

    @staticmethod
    def _stages(value: Any) -> bool:
        stages = value.get("stages") if isinstance(value, dict) else None
        return isinstance(stages, list) and bool(stages)


def _positive(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0


def walltimes(family: str) -> Need:
    """Every job needs a walltime, its estimate: ``family`` plans with it."""
    return Need(
        "a walltime (its estimate)",
        "walltime",
        (),
        "adaptsched estimates IN.json OUT.json --model exact",
        None,
        f"{family} plans every job with its estimate, and cannot place one without",
        every=True,
    )


#: The parameters each speedup model needs (:mod:`adaptsched.core.speedup`); a default would
#: set a job's runtime at every size but its request.
MODEL_PARAMETERS = {"downey": ("A", "sigma", "t1_s"), "linear": ("t1_s",), "scojo-p": ("runtime_opt_s", "n_opt")}


@dataclass(frozen=True)
class Verdict:
    """The counts of a workload's jobs by what they carry, and the note to print (or None)."""

    counts: dict[str, int]
    note: str | None


def check_jobs(need: Need, jobs: Iterable[Mapping[str, Any]], source: str, scheduler: str) -> Verdict:
    """Counts the jobs of ``source`` by what they carry; raises :class:`InputRefused` when none
    carries it and the need is required (module doc)."""
    counts = {"with": 0, "without": 0, "other models": 0}
    first_other: str | None = None
    first_without: Any = None
    for job in jobs:
        try:
            kind = need.carried_by(job)
        except InputRefused as error:
            raise InputRefused(f"{source}: {error}") from None
        counts[kind] += 1
        if kind == "without" and first_without is None:
            first_without = job.get("id")
        if kind == "other models" and first_other is None:
            value = job.get(need.field)
            first_other = f"job {job.get('id')}: {value.get('model') if isinstance(value, dict) else value!r}"
    total = sum(counts.values())
    lacking = counts["without"] + counts["other models"]
    if total == 0 or lacking == 0 or not need.without:
        return Verdict(counts, None)
    if need.every:
        command = need.command.replace("IN.json", source) if source.endswith(".json") else need.command
        raise InputRefused(
            f"scheduler {scheduler!r} needs {need.what} on every job, and {lacking:,} of the {total:,} jobs of "
            f"{source} have none (first: job {first_without}): {need.without}. Prepare the workload with "
            f"`{command}`."
        )
    models = f" with a speedup model of {_either(need.models)}" if need.models else ""
    other = (
        f"; {counts['other models']:,} carry a model {scheduler} does not read (first: {first_other})"
        if counts["other models"]
        else ""
    )
    if counts["with"] == 0 and need.required:
        command = need.command.replace("IN.json", source) if source.endswith(".json") else need.command
        fallback = f", or run it as it is with --option {need.fallback} ({need.without})" if need.fallback else ""
        raise InputRefused(
            f"scheduler {scheduler!r} needs {need.what} ({_a(need.field)} field{models} on each job), and none "
            f"of the {total:,} jobs of {source} has one{other}. Prepare the workload with `{command}`{fallback}."
        )
    note = (
        f"note: {scheduler}: {counts['with']:,} of the {total:,} jobs of {source} are {need.what} "
        f"({_a(need.field)} field{models}), {lacking:,} are not{other}: {need.without}"
    )
    return Verdict(counts, note)


def _a(field: str) -> str:
    return f"{'an' if field[0] in 'aeiou' else 'a'} {field!r}"


def _either(names: tuple[str, ...]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
