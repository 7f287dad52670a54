"""kg.build.forked: a function run in a forked child gives its value or its exception back."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import threading
import time

import pytest

from kg.build import forked
from kg.errors import ValidationError


def test_the_value_comes_back_from_another_process():
    handle = forked.start(lambda: (os.getpid(), [1, 2, 3]))
    pid, value = handle.result()
    assert value == [1, 2, 3] and pid != os.getpid()
    assert handle.result() == (pid, value)  # asked again, the same answer
    assert handle.seconds > 0
    assert not multiprocessing.active_children()


def test_the_child_sees_the_parents_memory_as_it_was_when_started():
    data = {"papers": list(range(1000))}
    handle = forked.start(lambda: sum(data["papers"]))
    data["papers"].clear()  # changed here after the fork: the child has its own copy
    assert handle.result() == sum(range(1000))


def test_its_exception_is_raised_here_with_its_type_and_message():
    def fails() -> None:
        raise ValidationError("the graph does not conform; nothing was written")

    handle = forked.start(fails)
    with pytest.raises(ValidationError, match="nothing was written"):
        handle.result()


def test_an_exception_that_cannot_be_pickled_comes_back_as_its_text():
    class Local(Exception):  # a local class cannot be pickled
        pass

    def fails() -> None:
        raise Local("held a lock")

    with pytest.raises(RuntimeError, match="Local: held a lock"):
        forked.start(fails).result()


def test_a_child_that_dies_is_an_error_not_a_hang():
    with pytest.raises(RuntimeError, match="child process ended"):
        forked.start(lambda: os._exit(3)).result()


def test_stop_ends_a_child_that_still_runs():
    blocked = threading.Event()
    handle = forked.start(lambda: blocked.wait(60))  # never set in the child
    handle.stop()
    assert not multiprocessing.active_children()


def test_without_fork_it_runs_here(monkeypatch):
    monkeypatch.setattr(multiprocessing, "get_all_start_methods", lambda: ["spawn"])
    handle = forked.start(os.getpid)
    assert handle.result() == os.getpid()


def test_the_child_ends_when_its_parent_is_killed(tmp_path):
    """A build killed while it checks leaves no check running on (it would write nothing,
    but would hold a core and print to a terminal nobody reads)."""
    script = tmp_path / "parent.py"
    pid_file = tmp_path / "child.pid"
    script.write_text(
        "import os, time\n"
        "from kg.build import forked\n"
        f"handle = forked.start(lambda: (open({str(pid_file)!r}, 'w').write(str(os.getpid())),"
        " time.sleep(60)))\n"
        "time.sleep(60)\n"
    )
    parent = subprocess.Popen([sys.executable, str(script)])
    deadline = time.monotonic() + 30
    while not (pid_file.exists() and pid_file.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    child = int(pid_file.read_text())
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 10
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"  # a zombie has ended
    except FileNotFoundError:
        return False
