"""Which narrow field topic a method or problem belongs to, by what its name means.

A concept's name need not contain a field's label to belong under it: "3D
content" belongs under 3D generation, "learned representations" under the
analysis of learned representations. Each topic of the taxonomy (a field with a broader
one) is known by the embeddings of its label and alt labels; a mention whose
phrase (its expansion, for an acronym) has a cosine of at least
:data:`PLACE_SIMILARITY` with one of them is placed under the nearest topic
(:attr:`kg.model.Mention.topic`). The phrase vectors are the ones candidate
scoring made, so placing costs no model call.

The threshold was read off ICLR 2024 (10,251 concepts, docs/explanation/measuring.md "Links"),
judging random samples of the placements only embedding makes by eye: cosine
0.90 and above 25 of 25 right, 0.85-0.90 about 21 of 25 ("question answering
task" under retrieval-augmented generation is not), 0.80-0.85 about 20 of 25
("prediction performance" under social choice is not), 0.70-0.80 about two in
three ("ASM" under speech recognition is not). Short generic names fare worst:
of the 18 seed concepts placed this way, 11 are right ("arm identification
problem" under multi-armed bandits), 7 are not ("smoothing technique" under
graph neural networks).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from kg.extract.embed import Embedder, unit
from kg.model import Kind, Mention
from kg.taxonomy import Taxonomy

__all__ = ["PLACE_SIMILARITY", "TopicIndex", "placed"]

#: Least cosine between a phrase and a topic's label for the phrase to be placed under it.
PLACE_SIMILARITY = 0.8


@dataclass(frozen=True)
class TopicIndex:
    """The unit vectors of every topic label and alt label, and whose each is."""

    keys: tuple[str, ...]  # topic key of each row of ``vectors``
    vectors: np.ndarray

    @classmethod
    def from_taxonomy(cls, taxonomy: Taxonomy, embedder: Embedder) -> TopicIndex:
        names = [(f.key, n) for f in taxonomy.fields if f.broader for n in (f.label, *f.alt_labels)]
        if not names:
            return cls((), np.zeros((0, 0), dtype=np.float32))
        return cls(
            tuple(k for k, _ in names),
            unit(np.asarray(embedder.embed([n for _, n in names]), dtype=np.float32)),
        )

    def nearest(self, vectors: np.ndarray, least: float = PLACE_SIMILARITY) -> list[str | None]:
        """For each row of ``vectors``, the nearest topic if its cosine is at least ``least``."""
        if not self.keys or not len(vectors):
            return [None] * len(vectors)
        sims = unit(np.asarray(vectors, dtype=np.float32)) @ self.vectors.T
        best = sims.argmax(axis=1)
        return [
            self.keys[i] if sims[row, i] >= least else None for row, i in enumerate(best.tolist())
        ]


def placed(mentions: Sequence[Mention], index: TopicIndex, embedder: Embedder) -> list[Mention]:
    """``mentions`` with the topic of each method and problem set (fields pass through)."""
    own = [i for i, m in enumerate(mentions) if m.kind is not Kind.FIELD]
    out = list(mentions)
    if not own:
        return out
    vectors = np.asarray(embedder.embed([mentions[i].expansion or mentions[i].text for i in own]))
    for i, topic in zip(own, index.nearest(vectors), strict=True):
        if topic is not None:
            out[i] = replace(mentions[i], topic=topic)
    return out
