"""kg: knowledge graphs of research papers.

Stages, one module each: :mod:`kg.ingest` (files -> papers), :mod:`kg.extract`
(paper -> typed mentions), :mod:`kg.concepts` (mentions -> canonical concepts
and links), :mod:`kg.graph` (-> RDF and NetworkX), :mod:`kg.export` and
:mod:`kg.view` (-> files), orchestrated by :mod:`kg.build`; :mod:`kg.cli` is
the command line.
"""

from kg.embed import offline as _offline

_offline()  # before any module imports huggingface_hub, which reads these once

__version__ = "0.1.0"
__all__ = ["__version__"]
