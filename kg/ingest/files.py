"""Which files to read, and their text: regular files only, bounded, decoded with care.

kg reads only regular files (a FIFO would hang the build, a link to
``/dev/zero`` would never end), at most :data:`MAX_FILE_BYTES` each, and
decodes UTF-8 (with or without a byte-order mark) or UTF-16/UTF-32 by their
byte-order mark. Any other encoding is refused with the ``iconv`` command that
converts it, or read as the user names it with ``--encoding``: text is never
silently garbled.
"""

from __future__ import annotations

import codecs
import os
import stat
import unicodedata
from collections.abc import Iterator, Sequence
from pathlib import Path

from kg.defaults import MAX_FILE_BYTES
from kg.errors import InputError

__all__ = ["input_files", "file_text", "check_outside"]

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def input_files(
    paths: Sequence[str | Path], suffixes: Sequence[str], *, exclude: Path | None = None
) -> Iterator[Path]:
    """The files to read: each file given, and the readable files of each directory.

    Args:
        paths: Files and directories, as the user gave them.
        suffixes: The suffixes of supported formats.
        exclude: kg's output directory: nothing in it is ever read.
    """
    if exclude is not None:
        check_outside(paths, exclude)
    for given in paths:
        path = Path(given)
        if path.is_dir():
            files = sorted(
                child
                for child in path.iterdir()
                if child.is_file()
                and not child.name.startswith(".")
                and not child.stem.casefold().startswith("readme")
                and child.suffix.lower() in suffixes
            )
            if not files:
                raise InputError(
                    f"{path}: directory has no input files; expected files ending in "
                    f"{', '.join(suffixes)}"
                )
            yield from files
        elif path.exists() or path.is_symlink():
            if path.suffix.lower() not in suffixes:
                raise InputError(
                    f"{path}: unsupported file type {path.suffix or '(no suffix)'!r}; "
                    f"use one of {', '.join(suffixes)}"
                )
            yield path
        else:
            raise InputError(f"{path}: no such file or directory; check the path")


def check_outside(paths: Sequence[str | Path], directory: str | Path) -> None:
    """Refuse any input that is, or lies inside, the output ``directory``.

    Raises:
        InputError: naming the first such input.
    """
    out = Path(os.path.abspath(directory))
    out = out.resolve() if out.is_symlink() else out.parent.resolve() / out.name
    for given in paths:
        if _inside(Path(given), out):
            raise InputError(
                f"{given}: is the output directory {directory} or inside it; kg replaces that "
                "directory as a whole and never reads its own output, so pass another --out"
            )


def _inside(path: Path, directory: Path) -> bool:
    try:
        resolved = path.resolve()
    except (OSError, RuntimeError):
        return False
    return resolved == directory or directory in resolved.parents


def file_text(path: Path, *, encoding: str | None = None, max_bytes: int = MAX_FILE_BYTES) -> str:
    """The file's text; anything that is not a readable, bounded text file is an InputError.

    Args:
        encoding: Decode with this codec instead of detecting UTF-8/UTF-16/UTF-32.
        max_bytes: Refuse files larger than this.
    """
    data = _read_bytes(path, max_bytes)
    if encoding is not None:
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError as exc:
            line = data[: exc.start].count(b"\n") + 1
            raise InputError(
                f"{path}:{line}: byte {data[exc.start]:#04x} is not valid {encoding}; "
                "check the --encoding you gave"
            ) from exc
        return _newlines(text.removeprefix("\ufeff"))
    for bom, codec in _BOMS:
        if data.startswith(bom):
            try:
                return _newlines(data[len(bom) :].decode(codec))
            except UnicodeDecodeError as exc:
                raise InputError(
                    f"{path}: starts with a {codec.upper()} byte-order mark but byte "
                    f"{exc.start + len(bom)} is not valid {codec.upper()}; the file is damaged "
                    "or mislabelled: re-save it as UTF-8"
                ) from exc
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(_not_utf8(path, data, exc)) from exc
    if "\x00" in text[:4096] and (guess := _guess_encoding(data)) is not None:
        # ASCII text in UTF-16 without a byte-order mark is valid UTF-8 full of NULs
        iconv, codec, what = guess
        raise InputError(
            f"{path}:1: it looks like {what}; convert it with "
            f"`iconv -f {iconv} -t UTF-8 {path} > fixed{path.suffix}`, or read it as it is "
            f"with --encoding {codec}"
        )
    return _newlines(text)


def _read_bytes(path: Path, max_bytes: int) -> bytes:
    """Read a regular file without ever blocking on a FIFO or reading a device."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise InputError(f"{path}: cannot read file ({exc.strerror}); check permissions") from exc
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = (
                "a FIFO (named pipe)"
                if stat.S_ISFIFO(info.st_mode)
                else "a device"
                if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode)
                else "a socket"
                if stat.S_ISSOCK(info.st_mode)
                else "not a regular file"
            )
            raise InputError(
                f"{path}: is {kind}; kg reads only regular files, so save the data to a file first"
            )
        if info.st_size > max_bytes:
            raise InputError(
                f"{path}: is {_size(info.st_size)}, more than the {_size(max_bytes)} kg reads "
                "from one file; split it, or raise the limit with --max-file-size"
            )
        chunks = []
        remaining = max_bytes + 1
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1 << 24))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        data = b"".join(chunks)
    except OSError as exc:
        raise InputError(f"{path}: cannot read file ({exc.strerror})") from exc
    finally:
        os.close(fd)
    if len(data) > max_bytes:  # grew while being read
        raise InputError(
            f"{path}: is larger than the {_size(max_bytes)} kg reads from one file; split it, "
            "or raise the limit with --max-file-size"
        )
    return data


def _size(n: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} bytes"


def _newlines(text: str) -> str:
    """CRLF and lone CR line endings as ``\\n``, so line numbers count what an editor shows."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def _not_utf8(path: Path, data: bytes, exc: UnicodeDecodeError) -> str:
    """The message for a file that is not UTF-8: where, and the command that fixes it."""
    line = data[: exc.start].count(b"\n") + 1
    where = f"{path}:{line}: not valid UTF-8 (byte {data[exc.start]:#04x})"
    guess = _guess_encoding(data)
    if guess is None:
        return (
            f"{where}; kg reads UTF-8 (or UTF-16 with a byte-order mark). Re-save the file "
            f"as UTF-8 (`iconv -f ENCODING -t UTF-8 {path} > fixed{path.suffix}`) or name its "
            "encoding with --encoding"
        )
    iconv, codec, what = guess
    return (
        f"{where}; it looks like {what}. Convert it with "
        f"`iconv -f {iconv} -t UTF-8 {path} > fixed{path.suffix}`, or read it as it is with "
        f"--encoding {codec}"
    )


def _guess_encoding(data: bytes) -> tuple[str, str, str] | None:
    """(iconv name, Python codec, description) of a likely encoding, or None."""
    sample = data[: 1 << 20]
    if len(sample) >= 4:
        even, odd = sample[0::2], sample[1::2]
        if odd.count(0) > len(odd) * 0.3 and even.count(0) < len(even) * 0.05:
            return "UTF-16LE", "utf-16-le", "UTF-16 (little-endian) without a byte-order mark"
        if even.count(0) > len(even) * 0.3 and odd.count(0) < len(odd) * 0.05:
            return "UTF-16BE", "utf-16-be", "UTF-16 (big-endian) without a byte-order mark"
    try:
        text = sample.decode("cp1252")
    except UnicodeDecodeError:
        return None
    high = [c for c in text if ord(c) > 127]
    western = sum(
        1 for c in high if "LATIN" in unicodedata.name(c, "") or unicodedata.category(c)[0] in "PS"
    )
    if high and western >= 0.9 * len(high):
        return "CP1252", "cp1252", "Windows-1252 / Latin-1 (Western European) text"
    return None
