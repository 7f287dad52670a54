"""Write a build's files into the output directory without ever leaving half a file.

Every file is first written in full to a staging directory inside the output
directory; only once all of them exist is each moved over its target with
``os.replace``, which is atomic per file. A build that fails while generating
or staging leaves the previous output untouched; one that fails during the
moves can leave some files new and some old (the whole-directory swap that
closes this gap is planned with the robustness work).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

from kg.errors import KGError

__all__ = ["write_files"]


def write_files(out_dir: Path, files: Mapping[str, str]) -> list[Path]:
    """Write all files into ``out_dir``: staged first, then each moved into place.

    Raises:
        KGError: ``out_dir`` exists but is not a directory, or is not writable.
    """
    if out_dir.exists() and not out_dir.is_dir():
        raise KGError(f"output path {out_dir} exists and is not a directory; pass --out DIR")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(dir=out_dir, prefix=".kg-staging-"))
    except OSError as exc:
        raise KGError(f"cannot write to output directory {out_dir}: {exc.strerror}") from exc
    written = []
    try:
        for name, text in files.items():
            staged = staging / name
            staged.write_text(text, encoding="utf-8", newline="\n")
        for name in files:
            target = out_dir / name
            os.replace(staging / name, target)
            written.append(target)
    except OSError as exc:
        raise KGError(f"cannot write to output directory {out_dir}: {exc}") from exc
    finally:
        for leftover in staging.iterdir():
            leftover.unlink()
        staging.rmdir()
    return written
