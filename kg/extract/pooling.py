"""Sentence vectors pooled from one model pass over each abstract.

Embedding every sentence on its own was a third of extraction's model time (a
short text costs a model call nearly as dear per token as a long one). Instead
each abstract is read once (:meth:`~kg.extract.embed.MiniLM.read`) and a
sentence gets the normalised mean of the vectors of the tokens it spans there:
the sentence in context. A sentence the text does not contain is embedded on
its own, all such sentences of a batch in one call.

Candidate phrases are still embedded on their own: pooling them the same way
(tried: docs/explanation/measurement-log.md) cost keyword-pair recall 0.02. The
pooled vector of a phrase where the abstract writes it is the classifier's
*context* instead (:func:`in_context`): the same words read differently in "we
propose X" and in "X remains an open problem", at no extra model pass.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kg.extract.embed import Embedder, TextVectors, unit
from kg.extract.phrases import spans

__all__ = ["in_context", "locate", "sentence_vectors"]

Span = tuple[int, int]


def locate(text: str, parts: Sequence[str]) -> list[Span | None]:
    """Where each part occurs in ``text``, searching on from the previous one (None: not found)."""
    spans: list[Span | None] = []
    at = 0
    for part in parts:
        start = text.find(part, at) if part else -1
        if start < 0:
            spans.append(None)
        else:
            spans.append((start, start + len(part)))
            at = start + len(part)
    return spans


def _pool(reading: TextVectors, span: Span) -> np.ndarray | None:
    """Mean vector of the tokens inside ``span`` (None if no token is)."""
    start, end = reading.offsets[:, 0], reading.offsets[:, 1]
    inside = (start >= span[0]) & (end <= span[1])
    return reading.tokens[inside].mean(axis=0) if inside.any() else None


def in_context(reading: TextVectors, phrases: Sequence[str]) -> np.ndarray:
    """Each phrase's unit vector pooled from its tokens wherever ``reading`` writes it.

    Every whole-word occurrence counts, in any case; a phrase the text does not
    write (an author keyword it never uses) gets a zero row.
    """
    low = reading.text.lower()
    folded = len(low) == len(reading.text)  # else lower case would move the offsets
    low = low if folded else reading.text
    start, end = reading.offsets[:, 0], reading.offsets[:, 1]
    out = np.zeros((len(phrases), reading.tokens.shape[1]), np.float32)
    for i, phrase in enumerate(phrases):
        inside = np.zeros(len(start), bool)
        for a, b in spans(phrase.lower() if folded else phrase, low):
            inside |= (start >= a) & (end <= b)
        if inside.any():
            out[i] = reading.tokens[inside].mean(axis=0)
    return unit(out)


def sentence_vectors(
    embedder: Embedder, readings: Sequence[TextVectors], sentence_lists: Sequence[Sequence[str]]
) -> list[np.ndarray]:
    """Per reading, one unit vector per sentence, pooled where the sentence stands.

    A sentence not in its reading's text (a title cleaned differently from
    the text the model read) is embedded on its own, all of them in one call.
    """
    pooled = [
        [_pool(r, span) if span else None for span in locate(r.text, sents)]
        for r, sents in zip(readings, sentence_lists, strict=True)
    ]
    alone = sorted(
        {
            s
            for row, got in zip(sentence_lists, pooled, strict=True)
            for s, v in zip(row, got, strict=True)
            if v is None
        }
    )
    by_text = dict(zip(alone, embedder.embed(alone), strict=True)) if alone else {}
    out = []
    for r, row, got in zip(readings, sentence_lists, pooled, strict=True):
        vectors = [v if v is not None else by_text[s] for s, v in zip(row, got, strict=True)]
        out.append(unit(np.asarray(vectors, np.float32).reshape(len(row), len(r.vector))))
    return out
