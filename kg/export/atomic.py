"""Write a build's files by swapping the whole output directory in one step.

A build never writes into its output directory. :func:`output_dir` checks the
directory before any work starts (it is a directory or can be made one, it
holds nothing but kg's files, no input lies inside it), takes a lock beside
it for the whole build and removes what killed builds left behind.
:meth:`Output.write` then writes every file into a new sibling directory,
flushes it to disk and exchanges it with the old one in one
``renameat2(RENAME_EXCHANGE)`` call, so a reader sees either the old build or
the new one, never a mix, and a build that fails or is interrupted at any
point (an exception, Ctrl-C, SIGTERM, SIGKILL, a full disk) leaves the
previous output exactly as it was (the system calls: :mod:`kg.export.swap`).

Where the kernel or file system has no exchange (not Linux, or a file system
without it), the fallback is two renames: the old directory to a backup name,
the new one into place. Between them the output directory is briefly absent,
never mixed; a build killed in that instant leaves the backup, which the next
build puts back before doing anything else.

Names used beside the output directory ``out``: ``.out.kg-lock`` (the lock,
kept), ``.out.kg-new-*`` (a build being written) and ``.out.kg-old-*`` (the
fallback's backup).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import shutil
import tempfile
import threading
import traceback
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from kg.errors import BusyError, OutputError
from kg.export import swap

__all__ = [
    "output_dir",
    "output_path",
    "Output",
    "write_files",
    "write_entry",
    "entry",
    "Content",
    "Later",
    "Beside",
    "Inside",
]


@dataclass(frozen=True)
class Later:
    """A file's text or bytes, made only when the file is written: a build's files are
    then in memory one at a time, not all together. ``make`` may also return pieces of
    text, written as they come (a file of hundreds of megabytes is never one string)."""

    make: Callable[[], str | bytes | Iterable[str]]


@dataclass(frozen=True)
class Beside:
    """An entry made in a thread while the files after it are written, for work that
    leaves Python's lock (Oxigraph's bulk loader): the two cores then work at once.

    ``make(path, stop)`` makes the entry at ``path``; ``stop`` is set when the
    write fails elsewhere, and ``make`` should then end soon (raising or not). The
    new output is swapped in only after every such entry is made.
    """

    make: Callable[[Path, threading.Event], None]


#: What :meth:`Output.write` writes under one name: text, bytes, text made when
#: written, a function that makes the entry (a directory, say) at the path given,
#: or such a function run beside the others.
Content = str | bytes | Later | Beside | Callable[[Path], None]

#: Entries an output directory may hold besides the build's own files: the
#: placeholder git keeps, and the staging directories of kg before 0.2.
_ALSO_OURS = (".gitkeep",)
_LEGACY_STAGING = ".kg-staging-"


@dataclass
class Output:
    """A locked output directory; :meth:`write` replaces it with new files."""

    path: Path  # as the user named it, for messages
    real: Path  # the directory that is swapped (symbolic links resolved)
    names: frozenset[str]

    def write(
        self,
        files: Mapping[str, Content],
        on_commit: Callable[[], None] | None = None,
        *,
        before_commit: Callable[[], None] | None = None,
        on_abort: Callable[[], None] | None = None,
    ) -> list[Path]:
        """Write ``files`` into a new directory and swap it in for the old one; return the
        directory's entries written (a folder once for the files named inside it).

        ``before_commit`` is called once every file is written, before the swap: what it
        raises fails the write, and the old output stays (a check run beside the writes).
        ``on_abort`` is called when the write fails, before the new directory is removed:
        it stops whatever else writes into it (a child process the caller started).

        Ctrl-C and SIGTERM that arrive during the swap take effect just after
        it and ``on_commit`` (called once the new output is in place), so the
        caller always knows which output a stopped build left.

        Raises:
            OutputError: Writing failed (a full disk, say); nothing changed.
        """
        parent = self.real.parent
        try:
            staging = Path(tempfile.mkdtemp(prefix=f".{self.real.name}.kg-new-", dir=parent))
        except OSError as exc:
            raise OutputError(f"cannot write next to {self.path}: {exc.strerror}") from exc
        beside = _Threads()
        try:
            os.chmod(staging, _mode(self.real))
            for name, content in files.items():
                if isinstance(content, Beside):
                    beside.start(content, staging / name)
                else:
                    write_entry(staging, name, content)
                beside.check()  # a failure beside ends the write at once
            beside.join()
            if before_commit is not None:
                before_commit()
            # A file's entry lives in its folder: the folders of named files are flushed too.
            for folder in sorted(
                {staging} | {(staging / name).parent for name in files}, reverse=True
            ):
                swap.fsync_path(folder)
            with swap.signals_deferred():
                swap.swap_in(staging, self.real)
                if on_commit is not None:
                    on_commit()
        except OSError as exc:
            _abort(beside, on_abort, staging)
            raise OutputError(
                f"cannot write the output to {self.path} ({exc.strerror or exc}); "
                f"{self.path} is unchanged"
            ) from exc
        except BaseException:
            _abort(beside, on_abort, staging)
            raise
        return [self.path / name for name in dict.fromkeys(entry(n) for n in files)]


def _abort(beside: _Threads, on_abort: Callable[[], None] | None, staging: Path) -> None:
    """Stop everything that may still write into a failed write's directory, then remove it
    (also when stopping raised: a second Ctrl-C, say)."""
    try:
        if on_abort is not None:
            on_abort()
    finally:
        try:
            beside.stop()
        finally:
            shutil.rmtree(staging, ignore_errors=True)


class _Threads:
    """The :class:`Beside` entries of one write, each in its thread."""

    def __init__(self) -> None:
        self.event = threading.Event()
        self.running: list[tuple[threading.Thread, list[BaseException]]] = []

    def start(self, content: Beside, path: Path) -> None:
        failed: list[BaseException] = []

        def run() -> None:
            try:
                content.make(path, self.event)
            except BaseException as exc:  # handed to the writing thread by check() or join()
                if exc.__traceback__ is not None:
                    traceback.clear_frames(exc.__traceback__)  # they may hold the entry open
                failed.append(exc)

        thread = threading.Thread(target=run, name=f"kg-write-{path.name}", daemon=True)
        thread.start()
        self.running.append((thread, failed))

    def check(self) -> None:
        """Raise the first failure of an entry, if one has failed yet."""
        for _, failed in self.running:
            if failed:
                self.stop()
                raise failed[0]

    def join(self) -> None:
        """Wait for every entry; raise the first failure."""
        for thread, _ in self.running:
            thread.join()
        self.check()
        self.running = []

    def stop(self) -> None:
        """Ask every entry to end, and wait until it has, Ctrl-C or not: nothing writes
        into a staging directory once it is removed (the caller is already failing,
        so an interrupt here only hurries nothing)."""
        self.event.set()
        for thread, _ in self.running:
            while thread.is_alive():
                try:
                    thread.join()
                except KeyboardInterrupt:
                    continue
        self.running = []


#: For a directory a build writes, which names of files inside it are kg's.
Inside = Mapping[str, Callable[[str], bool]]


@contextlib.contextmanager
def output_dir(
    path: str | Path, names: Collection[str], inside: Inside | None = None
) -> Iterator[Output]:
    """Check and lock the output directory ``path`` for a build that writes ``names``.

    Args:
        path: The output directory (it and its parents are created if missing).
        names: The files a build writes; a name ending in ``/`` is a directory.
        inside: Directory name (without ``/``) -> whether a file name inside it
            is kg's; anything else in it (another file, a folder, a link) is
            the user's. A directory not named here is kg's as a whole.

    Raises:
        OutputError: ``path`` is not a directory, cannot be written, or holds
            something kg did not write (kg replaces it as a whole).
        BusyError: Another build holds the lock.
    """
    shown = Path(path)
    real = output_path(shown)
    parent = real.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(
            f"cannot write to output directory {shown}: cannot create {parent} "
            f"({exc.strerror}); pass --out DIR"
        ) from exc
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(
            f"cannot write the output directory {shown}: {parent} is not writable; pass --out DIR"
        )
    lock = _lock(parent / f".{real.name}.kg-lock", shown)
    try:
        _clean_leftovers(real)
        if real.exists() and not real.is_dir():
            raise OutputError(f"output path {shown} exists and is not a directory; pass --out DIR")
        _check_ours(shown, real, names, inside or {})
        yield Output(shown, real, frozenset(names))
    finally:
        _HELD.discard(lock)
        os.close(lock)


def write_files(out_dir: Path, files: Mapping[str, Content]) -> list[Path]:
    """Lock ``out_dir``, then replace it with ``files`` (for callers outside a build); a name
    with a folder (``paper-details/0000.js``) makes that folder one of the directory's own."""
    names = {entry(name) + "/" * ("/" in name) for name in files}
    with output_dir(out_dir, names) as target:
        return target.write(files)


def entry(name: str) -> str:
    """The output directory's entry a file name is in: itself, or its folder.

    >>> entry("kg.ttl"), entry("paper-details/0000.js")
    ('kg.ttl', 'paper-details')
    """
    return name.split("/", 1)[0]


def output_path(path: str | Path) -> Path:
    """The directory a build swaps: symbolic links to it and in its parents resolved.

    Raises:
        OutputError: ``path`` is a symbolic link loop, or a link to nothing.
    """
    absolute = Path(os.path.abspath(path))
    try:
        if not absolute.is_symlink():
            return absolute.parent.resolve() / absolute.name
        return absolute.resolve(strict=True)
    except FileNotFoundError:
        raise OutputError(
            f"output directory {path} is a symbolic link to {os.readlink(absolute)}, which does "
            "not exist; create that directory, remove the link, or pass another --out"
        ) from None
    except (OSError, RuntimeError) as exc:
        if isinstance(exc, RuntimeError) or exc.errno == errno.ELOOP:
            raise OutputError(
                f"output directory {path} is a symbolic link loop (it leads back to itself); "
                "remove the link or pass another --out"
            ) from None
        raise OutputError(f"cannot use {path} as the output directory: {exc}") from exc


#: The lock descriptors this process holds: a forked child closes its copies at once
#: (:func:`_forget_locks`), so that a child left running never holds a build's lock.
_HELD: set[int] = set()


def _forget_locks() -> None:
    """In a forked child: close the inherited lock descriptors. The parent's lock stays, as
    ``flock`` locks last until every descriptor of the open file is closed."""
    for fd in _HELD:
        with contextlib.suppress(OSError):
            os.close(fd)
    _HELD.clear()


os.register_at_fork(after_in_child=_forget_locks)


def _lock(lock_path: Path, shown: Path) -> int:
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
    except OSError as exc:
        raise OutputError(f"cannot lock the output directory {shown}: {exc.strerror}") from exc
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
        os.close(fd)
        who = f" (pid {holder})" if holder.isdigit() else ""
        raise BusyError(
            f"another kg build{who} is writing {shown}; wait for it to finish, or pass "
            "another --out"
        ) from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    _HELD.add(fd)
    return fd


def _clean_leftovers(real: Path) -> None:
    """Undo what killed builds left: restore a fallback backup, remove staging directories."""
    leftovers = sorted(real.parent.glob(f".{real.name}.kg-*"))
    backups = [p for p in leftovers if p.name.startswith(f".{real.name}.kg-old-")]
    if backups and not real.exists():
        os.rename(backups[-1], real)  # killed between the fallback's two renames
    for leftover in leftovers:
        if leftover.name.endswith(".kg-lock") or not leftover.exists():
            continue
        if leftover.is_dir() and not leftover.is_symlink():
            shutil.rmtree(leftover, ignore_errors=True)
        else:
            leftover.unlink(missing_ok=True)
    if real.is_dir():
        for legacy in real.glob(f"{_LEGACY_STAGING}*"):
            shutil.rmtree(legacy, ignore_errors=True)


def _check_ours(shown: Path, real: Path, names: Collection[str], inside: Inside) -> None:
    """Refuse to replace a directory that holds anything kg did not write."""
    if not real.is_dir():
        return
    files = {n for n in names if not n.endswith("/")} | set(_ALSO_OURS)
    dirs = {n.rstrip("/") for n in names if n.endswith("/")}
    foreign = []
    for entry in _entries(shown, real):
        is_dir = entry.is_dir() and not entry.is_symlink()
        if entry.name in files and not is_dir:
            continue
        if entry.name in dirs and is_dir:
            ours = inside.get(entry.name)
            if ours is not None:
                foreign += [
                    f"{entry.name}/{e.name}" + ("/" if e.is_dir() and not e.is_symlink() else "")
                    for e in _entries(shown, entry)
                    if not (ours(e.name) and e.is_file() and not e.is_symlink())
                ]
            continue
        foreign.append(entry.name + ("/" if is_dir else ""))
    if foreign:
        listed = ", ".join(foreign[:5]) + (", …" if len(foreign) > 5 else "")
        raise OutputError(
            f"output directory {shown} holds {listed}, which kg did not write; kg replaces "
            "the whole directory, so move those away or pass another --out"
        )


def _entries(shown: Path, directory: Path) -> list[Path]:
    try:
        return sorted(directory.iterdir())
    except OSError as exc:
        raise OutputError(
            f"cannot list {directory} in the output directory {shown}: {exc.strerror}; "
            "pass another --out"
        ) from exc


def _mode(real: Path) -> int:
    try:
        return real.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o777 & ~umask


def write_entry(
    directory: Path, name: str, content: str | bytes | Later | Callable[[Path], None]
) -> None:
    """Write one file in full and flush it to disk, or have ``content`` make a directory."""
    target = directory / name
    target.parent.mkdir(parents=True, exist_ok=True)
    if callable(content):
        content(target)
        return
    made = content.make() if isinstance(content, Later) else content
    pieces = [made] if isinstance(made, (str, bytes)) else made
    with open(target, "wb") as fh:
        for piece in pieces:
            fh.write(piece.encode("utf-8") if isinstance(piece, str) else piece)
        fh.flush()
        os.fsync(fh.fileno())
