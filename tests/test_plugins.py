"""A scheduler file of one's own: ``plugin()`` makes it a pybatsim plugin that loads as pybatsim
loads plugins, adaptsched reads its options, and it runs like our schedulers."""

import textwrap

import pytest

from adaptsched.api import Job, OnlineScheduler
from adaptsched.cli import main
from adaptsched.engines.run.spec import PluginOptions, RunSpec, SchedulerOptionError
from adaptsched.errors import InputError
from adaptsched.schedulers.adapter import PlannerScheduler
from adaptsched.schedulers.loader import load_plugin

MINE = textwrap.dedent('''\
    from __future__ import annotations  # string annotations: dataclasses must find the module

    from dataclasses import dataclass

    from adaptsched.api import OnlineScheduler, Options, option, plugin


    @dataclass(frozen=True)
    class LimitOptions(Options):
        limit: int = option(3, "jobs started per pass, at most", low=1)


    class Limited(OnlineScheduler):
        """FCFS starting at most ``limit`` jobs per pass."""

        name = "limited"
        Options = LimitOptions

        def plan(self, now):
            started = []
            for job in self.queue:
                if job.res > self.pool.nb_free or len(started) == self.options.limit:
                    break
                self.start(job, now)
                started.append(job)
            self.queue.remove_all(started)
            if started and len(self.queue):
                self.wake_up(now + 1)


    plugin(Limited)
    ''')


@pytest.fixture
def mine(tmp_path):
    folder = tmp_path / "schedulers"  # a folder pybatsim's own `schedulers` package shadows
    folder.mkdir()
    path = folder / "my_limit.py"
    path.write_text(MINE)
    return path


def test_plugin_makes_the_class_pybatsim_takes(mine):
    from batsim.tools.launcher import instanciate_scheduler

    scheduler = instanciate_scheduler(str(mine), options={"limit": 2})  # stock pybatsim's loader
    assert type(scheduler).__name__ == "My_limit" and isinstance(scheduler, PlannerScheduler)
    assert scheduler.core_options.limit == 2
    loaded = load_plugin(mine)
    assert loaded.class_name == "My_limit" and loaded.core_class.name == "limited"


def test_plugin_refuses_a_name_clash(tmp_path):
    path = tmp_path / "fifo.py"
    path.write_text(
        "from adaptsched.api import OnlineScheduler, plugin\nclass Fifo(OnlineScheduler):\n    pass\nplugin(Fifo)\n"
    )
    with pytest.raises(InputError, match="rename your type 'Fifo'"):
        load_plugin(path)


def test_a_plugin_that_cannot_load_is_named_with_its_line(tmp_path):
    path = tmp_path / "bad.py"
    path.write_text("import adaptsched\n\nraise ValueError('nope')\n")
    with pytest.raises(InputError, match=r"bad.py.*ValueError: nope \(line 3\)"):
        load_plugin(path)


def test_a_plugins_options_are_checked_by_its_class(mine, tmp_path):
    spec = RunSpec.make(str(mine), "w.json", 4, tmp_path / "out", options=["limit=2"])
    assert spec.options == PluginOptions((("limit", 2),))  # typed, as JSON values for the plugin
    with pytest.raises(SchedulerOptionError, match=r"my_limit.py.*limit=0: must be in \[1, inf\]"):
        RunSpec.make(str(mine), "w.json", 4, tmp_path / "out", options=["limit=0"])
    with pytest.raises(SchedulerOptionError, match="no option 'depth'; the options are: limit"):
        RunSpec.make(str(mine), "w.json", 4, tmp_path / "out", options=["depth=2"])


def test_schedulers_lists_a_plugins_options(mine, capsys):
    assert main(["schedulers", "--plugin", str(mine)]) == 0
    out = capsys.readouterr().out
    assert "limited: FCFS starting at most ``limit`` jobs per pass." in out
    assert "--option limit=... (default 3; allowed: [1, inf]): jobs started per pass, at most" in out


@pytest.mark.parametrize("transport", ["inprocess", "zmq"])
def test_a_plugin_runs_in_both_transports(mine, tmp_path, transport):
    from helpers import CTC_EXCERPT

    from adaptsched.engines.run import run

    spec = RunSpec.make(str(mine), CTC_EXCERPT, 338, tmp_path / "run", options=["limit=2"], transport=transport)
    result = run(spec, say=lambda *a: None)
    assert result.nb_jobs == 5000 and (tmp_path / "run_jobs.csv").stat().st_size > 0


def test_a_plugin_travels_by_its_contents(mine, tmp_path):
    spec = RunSpec.make(str(mine), "w.json", 4, tmp_path / "out")
    from dataclasses import replace

    carried = replace(spec, plugin_source=mine.read_bytes())
    mine.unlink()  # a worker where the path does not exist
    here = carried.with_plugin_in(tmp_path / "worker")
    assert here.plugin != spec.plugin and here.plugin.endswith("/my_limit.py") and here.plugin_source is None
    assert load_plugin(here.plugin).core_class.name == "limited"
    with pytest.raises(Exception, match="changed"):
        replace(carried, plugin_source=b"# other").with_plugin_in(tmp_path / "worker")


def test_metadata_recorded_on_submission_reaches_the_pass():
    class Noting(OnlineScheduler):
        def on_submit(self, job, now):
            self.record(job, seen_s=now)

        def plan(self, now):
            pass

    s = Noting(4)
    s.submit(Job("w0!1", 0.0, 8, 10.0), 0.0)  # too wide: rejected at the pass
    s.submit(Job("w0!2", 0.0, 1, 10.0), 0.0)
    decisions = s.schedule(0.0)
    assert decisions.metadata == {"w0!2": {"seen_s": 0.0}} and decisions.rejects == ["w0!1"]
    assert not s.schedule(1.0)
