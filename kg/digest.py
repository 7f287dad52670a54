"""Files read in blocks, never whole: the sha256 of a file (model pins, provenance, the
store's stamp) and a text file's whole-line pieces (kg.nt, for the store and the prefixes);
and what the keys of a build's caches say the code was: its source files and the versions
of the libraries installed (the extraction key, the freshness record); and a build's
inputs, each file hashed once (:class:`InputDigest`: the freshness record and the
provenance read it)."""

from __future__ import annotations

import hashlib
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from kg.taxonomy import DEFAULT_TAXONOMY

__all__ = [
    "file_sha256",
    "line_pieces",
    "sources_sha256",
    "installed_versions",
    "InputDigest",
    "input_digest",
]

_SHIPPED_TAXONOMY = "ontology/fields.ttl (shipped with kg)"


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


@dataclass(frozen=True)
class InputDigest:
    """A build's input files and taxonomy, each read and hashed once.

    Attributes:
        files: ``(path as given, sha256)`` of every input file; the sha256 is None for
            a file only reading can judge (not a regular file, or over the size limit:
            a FIFO would never end).
        taxonomy: ``(path as shown, sha256)`` of the field taxonomy file.
    """

    files: tuple[tuple[str, str | None], ...]
    taxonomy: tuple[str, str]


def input_digest(
    files: Iterable[Path], taxonomy: str | Path | None, max_file_bytes: int
) -> InputDigest:
    """Hash ``files`` (the inputs, as listed for reading) and the taxonomy file (None: the
    one shipped with kg)."""
    hashed: list[tuple[str, str | None]] = []
    for path in files:
        sha256 = None
        try:
            info = path.stat()
            if stat.S_ISREG(info.st_mode) and info.st_size <= max_file_bytes:
                sha256 = file_sha256(path)
        except OSError:  # reading says what is wrong with it
            pass
        hashed.append((str(path), sha256))
    shown = str(taxonomy) if taxonomy else _SHIPPED_TAXONOMY
    return InputDigest(tuple(hashed), (shown, file_sha256(Path(taxonomy or DEFAULT_TAXONOMY))))
