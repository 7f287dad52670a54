"""kg.build.forked: a function run in a forked child gives its value or its exception back."""

from __future__ import annotations

import multiprocessing
import os
import signal
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
    handle = forked.start(lambda: (os.getpid(), sum(data["papers"])))
    data["papers"].clear()  # changed here after the fork: the child has its own copy
    assert handle.result() == (handle.result()[0], sum(range(1000)))
    assert handle.result()[0] != os.getpid()


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


class Picky(Exception):
    """Pickled with its message only, so rebuilding it misses an argument (as pyshacl's
    ShapeRecursionWarning does)."""

    def __init__(self, message, path):
        super().__init__(message)


def test_an_exception_that_pickles_but_does_not_read_back_comes_back_as_its_text():
    def fails() -> None:
        raise Picky("no shape", "path")

    with pytest.raises(RuntimeError, match="no shape"):
        forked.start(fails).result()


def test_the_childs_traceback_comes_back_as_a_note():
    def fails() -> None:
        raise ValueError("deep inside")

    with pytest.raises(ValueError) as caught:
        forked.start(fails).result()
    assert "in fails" in "".join(caught.value.__notes__)


def test_a_child_that_dies_is_a_clear_error_not_a_hang():
    with pytest.raises(forked.ChildError, match="exited with status 3"):
        forked.start(lambda: os._exit(3)).result()
    with pytest.raises(forked.ChildError, match="killed by signal 9"):
        forked.start(lambda: os.kill(os.getpid(), signal.SIGKILL)).result()


def test_stop_ends_a_child_that_still_runs():
    blocked = threading.Event()
    handle = forked.start(lambda: blocked.wait(60))  # never set in the child
    began = time.monotonic()
    handle.stop()
    assert time.monotonic() - began < 10  # not the 60 s of its wait
    assert not multiprocessing.active_children()


def test_an_interrupt_while_waiting_kills_the_child(monkeypatch):
    """SIGTERM is raised as an exception in kg's parent process; the child must not
    outlive it, nor keep the parent waiting for the check to end."""

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        handle = forked.start(lambda: time.sleep(60))
        began = time.monotonic()
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        with pytest.raises(KeyboardInterrupt):
            handle.result()
        assert time.monotonic() - began < 10
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert not multiprocessing.active_children()


def test_the_child_leaves_signals_to_its_parent():
    """SIGTERM ends the child at once (not kg's handler, which raises), and Ctrl-C, sent
    to the whole process group, reaches the parent only, which kills the child."""
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: None)
    try:
        got = forked.start(lambda: [signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)])
        assert got.result() == [signal.SIG_DFL, signal.SIG_IGN]
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_a_child_stopped_before_it_answered_says_so():
    handle = forked.start(lambda: time.sleep(60))
    handle.stop()
    with pytest.raises(forked.ChildError, match="stopped before it answered"):
        handle.result()


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


_SLOW_CHILD: list[str] = []  # a marker file, while a test wants slow fork handlers


def _slow_in_child() -> None:
    if _SLOW_CHILD:
        time.sleep(0.5)
        with open(_SLOW_CHILD[0], "w") as f:
            f.write("ran")


os.register_at_fork(after_in_child=_slow_in_child)


def test_start_returns_once_the_childs_fork_handlers_have_run(tmp_path):
    """kg.export closes its lock in a forked child by such a handler: when start() returns,
    the child holds no lock, however late it is scheduled."""
    marker = tmp_path / "ran"
    _SLOW_CHILD.append(str(marker))
    try:
        handle = forked.start(lambda: None)
        assert marker.exists()
    finally:
        _SLOW_CHILD.clear()
    handle.result()
