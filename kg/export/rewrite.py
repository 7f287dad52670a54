"""``kg view``: the views of a build made again from its ``graph.json``, the rest kept."""

from __future__ import annotations

import functools
import shutil
from collections.abc import Collection
from pathlib import Path

from kg.errors import OutputError
from kg.export.atomic import Content, Inside, entry, output_dir
from kg.export.serialize import graph_from_json
from kg.export.views import render_views

__all__ = ["rewrite_views"]


def rewrite_views(
    out_dir: str | Path, names: Collection[str], inside: Inside | None = None
) -> None:
    """Regenerate the views of the build in ``out_dir`` from its ``graph.json``.

    The other files of ``names`` (a build's output files) are kept byte for
    byte; the directory is swapped as a whole, as a build swaps it.

    Raises:
        OutputError: ``out_dir`` holds no build (no ``graph.json``).
    """
    shown = Path(out_dir) / "graph.json"
    if not shown.is_file():
        raise OutputError(f"{shown} not found; run kg build first (or pass --out DIR)")
    with output_dir(out_dir, names, inside) as target:
        source = target.real / "graph.json"
        try:
            text = source.read_text(encoding="utf-8")
        except OSError as exc:
            raise OutputError(f"cannot read {shown}: {exc.strerror}") from exc
        views = render_views(graph_from_json(text, str(shown)))
        files: dict[str, Content] = {n: page.encode("utf-8") for n, page in views.items()}
        made = {entry(n) for n in views}  # the details' folder is made anew
        for name in names:
            kept = target.real / name.rstrip("/")
            if name.rstrip("/") in made:
                continue
            if name.endswith("/") and kept.is_dir():
                files[name.rstrip("/")] = functools.partial(shutil.copytree, kept)
            elif kept.is_file():
                files[name] = kept.read_bytes()
        target.write(files)
