"""Run one function in a forked child process while this one goes on: the other core.

The stages after extraction are Python that holds the interpreter's lock, so a
thread does not give them the second core; a forked child does, and it starts
with the parent's memory as it is (copy-on-write), so nothing is pickled on the
way in. The result, or the exception, comes back pickled through a pipe. On Linux
the child is killed when the parent ends; anywhere, a parent that stops waiting
(an error, Ctrl-C, SIGTERM) kills it. kg runs on POSIX systems only (its output
lock is ``fcntl``'s), where processes can always be forked.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import pickle
import signal
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Generic, TypeVar

from kg.errors import KGError

__all__ = ["ChildError", "Handle", "start"]

T = TypeVar("T")


class ChildError(KGError):
    """The child ended without an answer: killed (for memory, say) or exited early."""


@dataclass
class _Outcome(Generic[T]):
    value: T | None = None
    error: BaseException | None = None
    seconds: float = 0.0


class Handle(Generic[T]):
    """A function running in a child; :meth:`result` waits for it."""

    def __init__(
        self,
        process: BaseProcess | None,
        pipe: Connection | None,
    ) -> None:
        self._process = process
        self._pipe = pipe
        self._done: _Outcome[T] | None = None
        self._ended_with: int | None = None  # the child's exit code, once joined

    @property
    def seconds(self) -> float:
        """How long the function ran in the child (0 until it has ended)."""
        return self._done.seconds if self._done is not None else 0.0

    def result(self) -> T:
        """The function's return value; its exception, raised here, if it raised one.

        Raises:
            ChildError: The child ended without an answer.
        """
        outcome = self._wait()
        if outcome.error is not None:
            raise outcome.error
        return outcome.value  # type: ignore[return-value]

    def stop(self) -> None:
        """Kill the child if it still runs (the build failed or stopped elsewhere)."""
        if self._process is not None and self._process.is_alive():
            self._process.kill()
        self._close()
        if self._done is None:
            stopped = ChildError("a child process was stopped before it answered")
            self._done = _Outcome(error=stopped)

    def _wait(self) -> _Outcome[T]:
        if self._done is not None:
            return self._done
        try:
            assert self._pipe is not None
            data = self._pipe.recv_bytes()
        except EOFError:  # it ended without sending
            self._close()
            self._done = _Outcome(error=ChildError(f"a child process {self._how_it_ended()}"))
        except BaseException:  # Ctrl-C or SIGTERM here: the child must not outlive the wait
            self.stop()
            raise
        else:
            self._close()
            self._done = pickle.loads(data)
        return self._done

    def _how_it_ended(self) -> str:
        code = self._ended_with
        if code is not None and code < 0:
            return f"was killed by signal {-code} ({signal.strsignal(-code) or 'unknown'})"
        return f"exited with status {code} without an answer"

    def _close(self) -> None:
        if self._process is not None:
            self._process.join(_EXIT_SECONDS)  # it has answered, or closed its end: it is ending
            if self._process.is_alive():
                self._process.kill()
                self._process.join()
            self._ended_with = self._process.exitcode
            self._process = None
        if self._pipe is not None:
            self._pipe.close()
            self._pipe = None


#: Seconds a child that has answered is given to exit before it is killed.
_EXIT_SECONDS = 10


def start(function: Callable[[], T]) -> Handle[T]:
    """Start ``function()`` in a forked child."""
    context = multiprocessing.get_context("fork")
    receiving, sending = context.Pipe(duplex=False)
    parent = os.getpid()

    def child() -> None:
        # Stopped by the parent, it ends at once: not by a handler the parent installed.
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the parent, which kills it
        receiving.close()
        _die_with(parent)
        sending.send_bytes(b"")  # started: the fork's handlers have run (os.register_at_fork)
        outcome = _pickled(_run(function))
        with contextlib.suppress(OSError):  # the parent has gone: nobody waits for it
            sending.send_bytes(outcome)
        sending.close()

    process = context.Process(target=child, name="kg-child", daemon=True)
    process.start()
    sending.close()
    # Once the child has started, it holds nothing it must not (kg.export's lock, say).
    try:
        receiving.recv_bytes()
    except EOFError:  # it ended at once: result() says how
        pass
    except BaseException:
        Handle(process, receiving).stop()
        raise
    return Handle(process, receiving)


def _die_with(parent: int) -> None:
    """On Linux, have this child killed when the parent ends (killed itself, say)."""
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # not Linux: the child ends when its work does
        return
    if os.getppid() != parent:  # the parent ended before the call above
        os._exit(1)


#: prctl's option that sends the child a signal when its parent ends (linux/prctl.h).
_PR_SET_PDEATHSIG = 1


def _run(function: Callable[[], T]) -> _Outcome[T]:
    """Call ``function``; its exception is kept for the parent, with the child's traceback
    as a note."""
    began = time.perf_counter()
    try:
        outcome: _Outcome[T] = _Outcome(value=function())
    except BaseException as exc:  # handed to the parent, which raises it
        exc.add_note("".join(traceback.format_exception(exc)).rstrip())
        outcome = _Outcome(error=exc)
    outcome.seconds = time.perf_counter() - began
    return outcome


def _pickled(outcome: _Outcome[T]) -> bytes:
    """The outcome pickled; one that does not read back (an exception whose class cannot be
    rebuilt from its arguments, say) is sent as its text."""
    try:
        data = pickle.dumps(outcome)
        pickle.loads(data)
        return data
    except Exception:
        error = outcome.error
        text = "".join(traceback.format_exception(error)) if error else "an unpicklable result"
        return pickle.dumps(_Outcome(error=RuntimeError(text), seconds=outcome.seconds))
