"""kg: knowledge graphs of research papers.

The pipeline, one package per stage: :mod:`kg.ingest` (files -> papers),
:mod:`kg.extract` (papers -> typed mentions), :mod:`kg.concepts` (mentions ->
canonical concepts and links), :mod:`kg.graph` (-> the hand-off record, RDF
and NetworkX), :mod:`kg.export` (-> files), orchestrated by :mod:`kg.build`;
:mod:`kg.query` and :mod:`kg.evaluate` work on what a build made, and
:mod:`kg.cli` is the command line. Below them all, the ground floor:
:mod:`kg.model` (records), :mod:`kg.errors`, :mod:`kg.lexicon` (words),
:mod:`kg.text` (cleaning), :mod:`kg.taxonomy` (fields) and :mod:`kg.vocab`
(RDF terms).

For analytics scripts, ``kg.load_graph(path)`` returns the NetworkX graph of
a build (see :func:`kg.query.load_graph`).
"""

from typing import Any

from kg.offline import offline as _offline

_offline()  # before any module imports huggingface_hub, which reads these once

__version__ = "0.1.0"
__all__ = ["__version__", "load_graph"]


def __getattr__(name: str) -> Any:
    """``kg.load_graph``, imported on first use so that ``import kg`` stays light."""
    if name == "load_graph":
        from kg.query import load_graph

        return load_graph
    raise AttributeError(f"module 'kg' has no attribute {name!r}")
