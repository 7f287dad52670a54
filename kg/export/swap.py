"""Put a new output directory where the old one is, in one step: the system calls under
:mod:`kg.export.atomic`.

On Linux, ``renameat2(RENAME_EXCHANGE)`` exchanges the two directories
atomically; elsewhere (or on a file system without it) two renames do, with
the old directory briefly under a backup name. Ctrl-C and SIGTERM are held
while the swap runs.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import shutil
import signal
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["signals_deferred", "fsync_path", "swap_in", "exchange_supported"]

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


@contextlib.contextmanager
def signals_deferred() -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM until the block is done, then act on them as usual."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    held = (signal.SIGINT, signal.SIGTERM)
    previous: dict[int, Any] = {
        s: signal.signal(s, lambda signum, frame: caught.append(signum)) for s in held
    }
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        if caught:
            handler = previous[caught[0]]
            if callable(handler):
                handler(caught[0], None)
            elif handler == signal.SIG_DFL:
                os.kill(os.getpid(), caught[0])


def fsync_path(path: Path) -> None:
    """Flush a file's content, or a directory's entries, to disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def swap_in(new: Path, real: Path) -> None:
    """Put ``new`` where ``real`` is, in one step where the system allows it."""
    if not real.exists():
        os.rename(new, real)
    elif _exchange(new, real):
        shutil.rmtree(new, ignore_errors=True)  # now the previous output; else the next build
    else:
        backup = Path(tempfile.mkdtemp(prefix=f".{real.name}.kg-old-", dir=real.parent))
        os.rmdir(backup)
        os.rename(real, backup)
        try:
            os.rename(new, real)
        except BaseException:
            os.rename(backup, real)
            raise
        shutil.rmtree(backup, ignore_errors=True)
    with contextlib.suppress(OSError):  # the swap is done; durability is best effort now
        fsync_path(real.parent)


_renameat2 = None
with contextlib.suppress(AttributeError, OSError):
    _renameat2 = ctypes.CDLL(None, use_errno=True).renameat2


def _exchange(a: Path, b: Path) -> bool:
    """Atomically exchange two directories; False where the system cannot."""
    if _renameat2 is None:
        return False
    result = _renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    if result == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(b))


def exchange_supported(directory: Path) -> bool:
    """Whether ``directory``'s file system can exchange two directories atomically."""
    a = Path(tempfile.mkdtemp(prefix=".kg-probe-", dir=directory))
    b = Path(tempfile.mkdtemp(prefix=".kg-probe-", dir=directory))
    try:
        return _exchange(a, b)
    finally:
        os.rmdir(a)
        os.rmdir(b)
