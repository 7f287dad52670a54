"""Run one function in a forked child process while this one goes on: the other core.

The stages after extraction are Python that holds the interpreter's lock, so a
thread does not give them the second core; a forked child does, and it starts
with the parent's memory as it is (copy-on-write), so nothing is pickled on the
way in. The result, or the exception, comes back pickled through a pipe. The
child ends if the parent does.

Where processes cannot be forked (not POSIX), :func:`start` runs the function at
once, in this process, and the handle gives what it gave.
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

__all__ = ["Handle", "start"]

T = TypeVar("T")


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
        done: _Outcome[T] | None = None,
    ) -> None:
        self._process = process
        self._pipe = pipe
        self._done: _Outcome[T] | None = done

    @property
    def seconds(self) -> float:
        """How long the function ran in the child (0 until it has ended)."""
        return self._done.seconds if self._done is not None else 0.0

    def result(self) -> T:
        """The function's return value; its exception, raised here, if it raised one."""
        outcome = self._wait()
        if outcome.error is not None:
            raise outcome.error
        return outcome.value  # type: ignore[return-value]

    def stop(self) -> None:
        """End the child if it still runs (the build failed elsewhere)."""
        if self._process is not None and self._process.is_alive():
            self._process.terminate()
            self._process.join()
        self._close()

    def _wait(self) -> _Outcome[T]:
        if self._done is None:
            try:
                assert self._pipe is not None
                self._done = pickle.loads(self._pipe.recv_bytes())
            except EOFError:  # killed, or it died without a word
                code = self._process.exitcode if self._process is not None else None
                self._done = _Outcome(error=RuntimeError(f"a child process ended ({code})"))
            finally:
                self._close()
        return self._done

    def _close(self) -> None:
        if self._process is not None:
            self._process.join()
            self._process = None
        if self._pipe is not None:
            self._pipe.close()
            self._pipe = None


def start(function: Callable[[], T]) -> Handle[T]:
    """Start ``function()`` in a forked child, or run it here where forking is not possible."""
    if "fork" not in multiprocessing.get_all_start_methods():
        return Handle(None, None, _run(function))
    context = multiprocessing.get_context("fork")
    receiving, sending = context.Pipe(duplex=False)
    parent = os.getpid()

    def child() -> None:
        receiving.close()
        _die_with(parent)
        outcome = _pickled(_run(function))
        with contextlib.suppress(OSError):  # the parent has gone: nobody waits for it
            sending.send_bytes(outcome)
        sending.close()

    process = context.Process(target=child, name="kg-child", daemon=True)
    process.start()
    sending.close()
    return Handle(process, receiving)


def _die_with(parent: int) -> None:
    """End this child when the parent ends (killed, say), rather than finish its work."""
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
    began = time.perf_counter()
    try:
        outcome: _Outcome[T] = _Outcome(value=function())
    except BaseException as exc:  # handed to the parent, which raises it
        outcome = _Outcome(error=exc)
    outcome.seconds = time.perf_counter() - began
    return outcome


def _pickled(outcome: _Outcome[T]) -> bytes:
    """The outcome pickled; an exception that cannot be is sent as its text."""
    try:
        return pickle.dumps(outcome)
    except Exception:
        error = outcome.error
        text = "".join(traceback.format_exception(error)) if error else "an unpicklable result"
        return pickle.dumps(_Outcome(error=RuntimeError(text), seconds=outcome.seconds))
