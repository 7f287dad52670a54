"""Files read in blocks, never whole: the sha256 of a file (model pins, provenance, the
store's stamp) and a text file's whole-line pieces (kg.nt, for the store and the prefixes);
and what the keys of a build's caches say the code was: its source files and the versions
of the libraries installed (the extraction key, the freshness record)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from importlib import metadata
from pathlib import Path

__all__ = ["file_sha256", "line_pieces", "sources_sha256", "installed_versions"]


def file_sha256(path: Path) -> str:
    """The hex sha256 of the file at ``path``, without reading it into memory at once."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def line_pieces(path: Path, size: int) -> Iterator[bytes]:
    """The bytes of the file at ``path`` in pieces of whole lines: ``size`` bytes and the
    rest of the line they end in, so no line is ever cut between two pieces.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp) / "lines"
    ...     _ = path.write_bytes(b"one\\ntwo\\nthree\\n")
    ...     list(line_pieces(path, 5))
    [b'one\\ntwo\\n', b'three\\n']
    """
    if size <= 0:
        raise ValueError(f"a piece must be at least one byte, not {size}")
    with path.open("rb") as fh:
        while piece := fh.read(size):
            yield piece + fh.readline()


def sources_sha256(files: Iterable[tuple[Path, Path]]) -> str:
    """The sha256 of source files by name and content, in the order given: each
    ``(root, file)``, the name taken relative to its root."""
    digest = hashlib.sha256()
    for root, file in files:
        digest.update(str(file.relative_to(root)).encode() + b"\0")
        digest.update(file.read_bytes() + b"\0")
    return digest.hexdigest()


def installed_versions(names: Iterable[str]) -> dict[str, str]:
    """Each distribution's installed version by name, "-" for one not installed."""
    out = {}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "-"
    return out
