"""A sweep's own cluster on a batch system (Slurm, PBS, SGE) with dask-jobqueue: :class:`JobQueue`.

``adaptsched sweep SPEC --cluster slurm --jobs 4 --cluster-option cores=32 ...`` starts the
Dask scheduler in the sweep's process (on the login node), submits ``--jobs`` batch jobs of
workers (``processes = cores``: one single-threaded worker per core), waits for the first
worker, and closes the cluster (its jobs cancelled) at the end or on Ctrl-C. ``--dry-run``
prints the job script that would be submitted, and starts nothing (:func:`job_script`).

``--cluster-option KEY=VALUE`` are dask-jobqueue's own parameters (``cores``, ``memory``,
``walltime``, ``queue``, ``account``, ``interface``, ``job_extra_directives``...: its
documentation lists them); a value is read as JSON when it is JSON (``32``,
``["--exclusive"]``), as a string otherwise. ``interface`` (the network the workers reach the
scheduler on, e.g. ``ib0``) is required: nothing of ours listens beyond loopback unless the
user names where. The scheduler's and the workers' HTTP servers (health, metrics, the
dashboard when bokeh is installed) stay on 127.0.0.1.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from typing import Any

from adaptsched.errors import UsageError

#: ``--cluster`` values and their dask-jobqueue classes (``local``: dask-jobqueue's own test
#: cluster, jobs as local processes; for tests, not offered on the command line).
SYSTEMS = {"slurm": "SLURMCluster", "pbs": "PBSCluster", "sge": "SGECluster", "local": "local.LocalCluster"}
COMMAND_LINE_SYSTEMS = ("slurm", "pbs", "sge")
#: Where the scheduler's and the workers' HTTP servers listen.
HTTP_ADDRESS = "127.0.0.1:0"
PLACEHOLDER_ADDRESS = "tcp://<scheduler-address>:<port>"


def parse_cluster_options(items: list[str] | None) -> dict[str, Any]:
    """``["cores=32", "memory=64GB", 'job_extra_directives=["--exclusive"]']`` as keyword
    arguments; a one-line :class:`UsageError` for an item without ``=``."""
    out: dict[str, Any] = {}
    for item in items or []:
        key, sep, text = item.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not key.isidentifier():
            raise UsageError(f"--cluster-option {item!r}: expected KEY=VALUE, e.g. --cluster-option memory=64GB")
        try:
            value: Any = json.loads(text)
        except ValueError:
            value = text
        out[key] = value
    return out


@dataclass(frozen=True)
class JobQueue:
    """A dask-jobqueue cluster to start: ``system`` (slurm, pbs, sge), ``jobs`` batch jobs of
    workers, ``options`` (dask-jobqueue's keyword arguments)."""

    system: str
    jobs: int = 1
    options: dict[str, Any] = field(default_factory=dict, hash=False)

    def check(self) -> None:
        if self.system not in SYSTEMS:
            raise UsageError(f"--cluster {self.system!r}: choose among {', '.join(COMMAND_LINE_SYSTEMS)}")
        if self.jobs < 1:
            raise UsageError(f"--jobs must be at least 1, got {self.jobs}")
        if not self.options.get("interface") and not self.options.get("scheduler_options"):
            raise UsageError(
                f"--cluster {self.system}: name the network the workers reach the scheduler on, e.g. "
                "--cluster-option interface=ib0 ('ip -brief address' on a compute node lists them); "
                "nothing is opened on all interfaces"
            )

    def keywords(self) -> dict[str, Any]:
        """dask-jobqueue's keyword arguments: the user's, over our defaults (one single-threaded
        worker process per core, this Python, HTTP servers on loopback); the defaults of the
        user's dask-jobqueue configuration file win over ours."""
        import dask

        config = f"jobqueue.{self.system}"
        options = dict(self.options)
        cores = options.get("cores") or dask.config.get(f"{config}.cores", None) or 1
        defaults: dict[str, Any] = {"cores": cores, "processes": cores, "python": sys.executable}
        if dask.config.get(f"{config}.memory", None) is None:
            defaults["memory"] = f"{2 * int(cores)}GB"
        if dask.config.get(f"{config}.job-name", None) is None:
            defaults["job_name"] = "adaptsched"
        extra = list(options.pop("worker_extra_args", None) or [])
        if "--dashboard-address" not in extra:
            extra += ["--dashboard-address", HTTP_ADDRESS]
        defaults["worker_extra_args"] = extra
        return {**defaults, **options}

    def cluster_class(self) -> Any:
        try:
            dask_jobqueue = import_jobqueue()
        except ImportError:
            raise UsageError(
                f"--cluster {self.system} needs dask-jobqueue: pip install 'adaptsched[cluster]' "
                "(or ./setup.sh, then .venv/bin/pip install dask-jobqueue)"
            ) from None
        found: Any = dask_jobqueue
        for name in SYSTEMS[self.system].split("."):
            found = getattr(found, name)
        return found

    def start(self, security: Any = None) -> Any:
        """The cluster, its scheduler started here (nothing submitted yet); with ``security``
        (Dask's ``Security``), the scheduler and its workers talk TLS, the workers' certificate
        files named in their job script."""
        self.check()
        keywords = self.keywords()
        scheduler_options = {"dashboard_address": HTTP_ADDRESS, **(keywords.pop("scheduler_options", None) or {})}
        if security is not None:
            keywords["security"] = security
        try:
            return self.cluster_class()(scheduler_options=scheduler_options, silence_logs="critical", **keywords)
        except (TypeError, ValueError) as error:
            raise UsageError(f"--cluster {self.system}: {_first_line(error)}") from None


def import_jobqueue() -> Any:
    """dask_jobqueue, and Ctrl-C as it was: importing ``dask_jobqueue.runner`` replaces the
    SIGINT handler with ``sys.exit()`` (exit status 0, no KeyboardInterrupt), which would
    make an interrupted sweep look like a finished one."""
    import signal
    import threading

    import dask_jobqueue
    import dask_jobqueue.local

    handler = signal.getsignal(signal.SIGINT)
    if getattr(handler, "__module__", "").startswith("dask_jobqueue"):
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, signal.default_int_handler)
    return dask_jobqueue


def job_script(spec: JobQueue, security: Any = None) -> str:
    """The job script dask-jobqueue would submit for each job (``cluster.job_script()``),
    made without starting a scheduler: its address is a placeholder. With ``security`` (Dask's
    ``Security``), the workers talk TLS, as :meth:`JobQueue.start` would make them."""
    spec.check()
    cls = spec.cluster_class()
    keywords = spec.keywords()
    keywords.pop("scheduler_options", None)
    interface = keywords.pop("interface", None)
    placeholder = PLACEHOLDER_ADDRESS if security is None else PLACEHOLDER_ADDRESS.replace("tcp://", "tls://")
    try:
        job = cls.job_cls(
            placeholder,
            name="dummy-name",
            config_name=cls.job_cls.default_config_name(),
            interface=interface,
            protocol=None if security is None else "tls://",
            security=security,
            **keywords,
        )
    except (TypeError, ValueError) as error:
        raise UsageError(f"--cluster {spec.system}: {_first_line(error)}") from None
    script: str = job.job_script()
    return script


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__
