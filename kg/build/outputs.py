"""The output files of a build, in the order they are listed and written, and how each is made."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from kg import export, query
from kg.build.records import Built
from kg.model import Paper

__all__ = [
    "OUTPUT_FILES",
    "OUTPUT_INSIDE",
    "output_texts",
    "makers",
    "heading",
    "in_output_order",
]

OUTPUT_FILES = (
    "kg.ttl",
    "kg.nt",
    "kg.jsonld",
    "graph.graphml",
    "graph.json",
    *export.VIEW_FILES.values(),
    f"{export.DETAILS_DIR}/",
    f"{query.STORE_NAME}/",
)
#: Which files inside an output directory's folders are kg's (anything else is the user's).
OUTPUT_INSIDE = {query.STORE_NAME: query.is_store_file, export.DETAILS_DIR: export.is_details_file}


def output_texts(built: Built) -> dict[str, str]:
    """Every output file's text content, by name (the Oxigraph store is not text)."""
    return {name: _text(make()) for name, make in makers(built).items()}


def _text(made: str | bytes | Iterable[str]) -> str:
    if isinstance(made, bytes):
        return made.decode("utf-8")
    return made if isinstance(made, str) else "".join(made)


def makers(built: Built) -> dict[str, Callable[[], str | bytes | Iterable[str]]]:
    """How each output file is made: the RDF files as bytes or pieces, so the largest
    file of a large build is never one string (:class:`kg.export.Later`). The views'
    details files are named by their path (``paper-details/0000.js``)."""
    views = functools.cache(lambda: export.render_views(built.graph, heading(built.kg.papers)))
    details = export.details_names(len(built.kg.papers))
    return {
        "kg.ttl": lambda: export.turtle_bytes(built.triples),
        "kg.nt": lambda: export.ntriples_chunks(built.triples),
        "kg.jsonld": lambda: export.jsonld_chunks(built.triples),
        "graph.graphml": lambda: export.graphml_text(built.graph),
        "graph.json": lambda: export.json_chunks(built.graph),
        **{
            name: functools.partial(lambda n: views()[n], name)
            for name in (*export.VIEW_FILES.values(), *details)
        },
    }


def rewrite_views(out_dir: str | Path) -> None:
    """Regenerate the views of the build in ``out_dir`` from its ``graph.json``, keeping the
    other files byte for byte (:func:`kg.export.rewrite_views`)."""
    export.rewrite_views(out_dir, OUTPUT_FILES, OUTPUT_INSIDE)


def in_output_order(path: Path) -> int:
    names = [name.rstrip("/") for name in OUTPUT_FILES]
    return names.index(path.name)


def heading(papers: Sequence[Paper]) -> str:
    """The views' heading and the provenance's title: "kg: 37 NeurIPS 2026 papers"."""
    return export.heading(len(papers), [(p.venue, p.year) for p in papers])
