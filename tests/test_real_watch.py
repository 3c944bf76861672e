"""engines/real.py's watch over real Batsim and its scheduler process, with stand-in processes:
a scheduler that exits with code 0 has answered for the last time, and Batsim is left to end
(it may still be writing its outputs); any other exit stops Batsim at once."""

import pytest

import adaptsched.engines.real as real
from adaptsched.errors import SimulationError


class FakeProcess:
    """``subprocess.Popen``'s pid, poll, kill and wait: running for ``polls`` calls of poll, then ended."""

    pid = 0

    def __init__(self, polls: int | None, code: int = 0):
        self.polls, self.code, self.killed = polls, code, False

    def poll(self):
        if self.killed:
            return -9
        if self.polls is None:
            return None  # never ends by itself
        if self.polls > 0:
            self.polls -= 1
            return None
        return self.code

    def kill(self):
        self.killed = True

    def wait(self):
        return self.poll()


class FakeScheduler:
    cpu = None  # (Batsim is pinned beside a scheduler that has a CPU)

    def __init__(self, code: int):
        self.process = FakeProcess(0, code)  # already exited

    def alive(self) -> bool:
        return self.process.poll() is None

    def describe_failure(self) -> str:
        return f"the scheduler process (test) exited with code {self.process.poll()}"


def watch(batsim: FakeProcess, scheduler: FakeScheduler, tmp_path) -> None:
    log = tmp_path / "run_batsim.log"
    log.write_text("Simulation is finished!\n")
    real._watch(batsim, scheduler, str(log), tmp_path / "run_jobs.csv", None, poll_s=0.001)  # type: ignore[arg-type]


def test_batsim_ends_by_itself_after_its_scheduler_exited_normally(tmp_path):
    """pybatsim exits right after its last reply, possibly before Batsim has written its outputs:
    that is no failure, and Batsim must not be stopped (it was, whenever a poll fell in between)."""
    batsim = FakeProcess(polls=5)
    watch(batsim, FakeScheduler(0), tmp_path)
    assert not batsim.killed and batsim.poll() == 0


def test_a_scheduler_that_failed_stops_batsim_at_once(tmp_path):
    batsim = FakeProcess(polls=None)
    with pytest.raises(SimulationError, match="exited with code 3") as error:
        watch(batsim, FakeScheduler(3), tmp_path)
    assert batsim.killed and "had not ended" not in str(error.value)


def test_batsim_still_waiting_long_after_its_scheduler_exited_is_stopped(tmp_path, monkeypatch):
    monkeypatch.setattr(real, "END_GRACE_S", 0.05)
    batsim = FakeProcess(polls=None)  # waits for a reply that will not come
    with pytest.raises(SimulationError, match=r"exited with code 0; real Batsim had not ended 0\.05 s later"):
        watch(batsim, FakeScheduler(0), tmp_path)
    assert batsim.killed
