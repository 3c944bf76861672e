"""adaptsched.analysis: metrics, comparisons and Gantt charts of Batsim v4 outputs, on evalys.

Public API:

* :func:`load_jobs` (``fold=True``): one row per job of a ``PREFIX_jobs.csv``, attempts of
  killed-and-resubmitted or copied-and-rejected jobs folded (:mod:`.fold`);
* :func:`to_jobset`: an ``evalys.jobset.JobSet`` of the executed jobs;
* :func:`compute_metrics` / :func:`format_metrics`: metrics dict / Markdown table
  (:mod:`.metrics` documents every formula);
* :func:`compare_runs`: tables and charts comparing runs (:mod:`.compare`);
* :func:`report_run`: metrics and Gantt chart of one run (:mod:`.report`).

Bad input (missing, empty or non-Batsim file) raises :class:`adaptsched.errors.InputError`.
Plots are drawn on ``matplotlib.figure.Figure`` objects (Agg), never through pyplot windows.
"""

from .compare import compare_runs
from .evalys_bridge import to_jobset
from .fold import fold_attempts, load_jobs
from .gantt import choose_window, plot_gantt
from .jobs import read_jobs_csv
from .metrics import bounded_slowdown, compute_metrics, format_metrics
from .report import report_run

__all__ = [
    "bounded_slowdown",
    "choose_window",
    "compare_runs",
    "compute_metrics",
    "fold_attempts",
    "format_metrics",
    "load_jobs",
    "plot_gantt",
    "read_jobs_csv",
    "report_run",
    "to_jobset",
]
