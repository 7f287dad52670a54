"""Which files to read, and their text."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from kg.errors import InputError

__all__ = ["input_files", "file_text"]


def input_files(paths: Sequence[str | Path], suffixes: Sequence[str]) -> Iterator[Path]:
    """The files to read: each file given, and the readable files of each directory."""
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
        elif path.exists():
            if path.suffix.lower() not in suffixes:
                raise InputError(
                    f"{path}: unsupported file type {path.suffix or '(no suffix)'!r}; "
                    f"use one of {', '.join(suffixes)}"
                )
            yield path
        else:
            raise InputError(f"{path}: no such file or directory; check the path")


def file_text(path: Path) -> str:
    """The file decoded as UTF-8 (a BOM is dropped); anything else is an InputError."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read file ({exc.strerror}); check permissions") from exc
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(
            f"{path}:{line}: not valid UTF-8 (byte {data[exc.start]:#04x}); kg reads UTF-8, "
            "so re-save the file as UTF-8 (e.g. `iconv -f latin1 -t utf-8`)"
        ) from exc
