"""Errors that the command line reports as a one-paragraph message (no traceback)."""

from __future__ import annotations


class AdaptschedError(Exception):
    """Base class of every error that adaptsched reports to its user."""


class InputError(AdaptschedError):
    """Bad input data, located as precisely as possible: file, line and field.

    >>> str(InputError("trace.swf", "expected 18 fields, found 17", line=12))
    'trace.swf:12: expected 18 fields, found 17'
    >>> str(InputError("w.json", "must be a positive integer", field="nb_res"))
    "w.json: field 'nb_res': must be a positive integer"
    """

    def __init__(self, path, message: str, *, line: int | None = None, field: str | None = None):
        self.path = str(path)
        self.line = line
        self.field = field
        self.message = message
        where = self.path if line is None else f"{self.path}:{line}"
        what = message if field is None else f"field '{field}': {message}"
        super().__init__(f"{where}: {what}")


class SimulationError(AdaptschedError):
    """A run failed: invalid scheduler decision, crashed process, broken protocol."""
