"""The sha256 of a file, read in blocks (model pins, provenance, the store's stamp)."""

from __future__ import annotations

import hashlib
from pathlib import Path

__all__ = ["file_sha256"]


def file_sha256(path: Path) -> str:
    """The hex sha256 of the file at ``path``, without reading it into memory at once."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
