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
"""

from kg.offline import offline as _offline

_offline()  # before any module imports huggingface_hub, which reads these once

__version__ = "0.1.0"
__all__ = ["__version__"]
