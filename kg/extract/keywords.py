"""KeyBERT over any kg :class:`~kg.extract.embed.Embedder`, one result list per document.

Two KeyBERT habits are handled here once: given an object it does not know,
``KeyBERT(model=...)`` takes it for a model *name* and tries the hub, and
given one document it returns that document's list instead of a list of lists.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kg.extract.embed import Embedder

__all__ = ["keybert_model", "keywords"]


def keybert_model(model: Any) -> Any:
    """A ``KeyBERT`` over a SentenceTransformer, a KeyBERT backend, or a kg Embedder."""
    from keybert import KeyBERT
    from keybert.backend import BaseEmbedder
    from sentence_transformers import SentenceTransformer

    if not isinstance(model, (SentenceTransformer, BaseEmbedder)):
        model = _backend(model)
    return KeyBERT(model=model)


def _backend(embedder: Embedder) -> Any:
    from keybert.backend import BaseEmbedder

    class Backend(BaseEmbedder):  # type: ignore[misc]
        def embed(self, documents: list[str], verbose: bool = False) -> Any:
            return embedder.embed(list(documents))

    return Backend()


def keywords(keybert: Any, docs: Sequence[str], **options: Any) -> list[list[tuple[str, float]]]:
    """``keybert.extract_keywords(docs, **options)``, always one list per document."""
    if not docs:
        return []
    ranked = keybert.extract_keywords(list(docs), **options)
    if len(docs) == 1 and (not ranked or isinstance(ranked[0], tuple)):
        ranked = [ranked]  # KeyBERT unwraps a single document
    return [list(r) for r in ranked]
