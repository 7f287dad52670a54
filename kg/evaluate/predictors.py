"""Systems under evaluation: kg itself, and plain KeyBERT as the baseline.

A predictor turns papers into :class:`Prediction` s, one per paper; scoring
(:mod:`kg.evaluate.scoring`) does not care which system made them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from kg.evaluate.matching import Predicted
from kg.extract import keybert_model, keywords
from kg.model import Kind, Mention, Paper

__all__ = ["Prediction", "Predictor", "KgPredictor", "KeyBERTBaseline", "KEYBERT_TOP_N"]

#: Phrases the baseline keeps per abstract, as the data README's baseline does.
KEYBERT_TOP_N = 10


@dataclass(frozen=True)
class Prediction:
    """What a system predicted for one paper.

    Attributes:
        methods, problems: Typed concepts (kg).
        phrases: Untyped concepts (a baseline that does not type).
        fields: Predicted fields, best first, as their labels.
        areas: Distinct gold-scheme areas (ICLR) the fields map to, best first.
    """

    methods: tuple[Predicted, ...] = ()
    problems: tuple[Predicted, ...] = ()
    phrases: tuple[Predicted, ...] = ()
    fields: tuple[Predicted, ...] = ()
    areas: tuple[str, ...] = ()

    @property
    def concepts(self) -> tuple[Predicted, ...]:
        """Methods, problems and phrases: the untyped view."""
        return self.methods + self.problems + self.phrases


class Predictor(Protocol):
    """A system under evaluation. ``typed`` is False when it has no kinds or fields."""

    name: str
    typed: bool

    def predict(self, papers: Sequence[Paper]) -> list[Prediction]: ...


class KgPredictor:
    """kg's extractor: methods, problems, fields and the areas the fields map to."""

    name = "kg"
    typed = True

    def __init__(self, extractor: Any, areas: Mapping[str, str] | None = None) -> None:
        """``areas``: ``{IRI: label}`` of the areas fields map to; default: taxonomy targets."""
        self.extractor = extractor
        self.taxonomy = extractor.taxonomy
        self.areas = dict(self.taxonomy.targets if areas is None else areas)

    def predict(self, papers: Sequence[Paper]) -> list[Prediction]:
        mentions = self.extractor.extract(papers)
        return [self.prediction(mentions[p.id]) for p in papers]

    def prediction(self, mentions: Sequence[Mention]) -> Prediction:
        """One paper's mentions as a :class:`Prediction`."""

        def concept(m: Mention) -> Predicted:
            return Predicted((m.text, m.expansion) if m.expansion else (m.text,))

        fields = [m for m in mentions if m.kind is Kind.FIELD]
        areas: list[str] = []
        for m in fields:
            # The strongest mapping only (closeMatch before broadMatch), as in bench/.
            for _rel, iri in self.taxonomy.effective_matches(m.text)[:1]:
                if iri in self.areas and self.areas[iri] not in areas:
                    areas.append(self.areas[iri])
        return Prediction(
            methods=tuple(concept(m) for m in mentions if m.kind is Kind.METHOD),
            problems=tuple(concept(m) for m in mentions if m.kind is Kind.PROBLEM),
            fields=tuple(self._field(m.text) for m in fields),
            areas=tuple(areas),
        )

    def _field(self, key: str) -> Predicted:
        f = self.taxonomy.by_key(key)
        return Predicted((f.label, *f.alt_labels))


class KeyBERTBaseline:
    """Plain KeyBERT: 1-3-grams, English stop words, top 10, untyped."""

    name = "keybert"
    typed = False

    def __init__(self, model: Any, top_n: int = KEYBERT_TOP_N) -> None:
        """``model``: a SentenceTransformer, or any kg :class:`~kg.extract.Embedder`."""
        self.keybert = keybert_model(model)
        self.top_n = top_n

    def predict(self, papers: Sequence[Paper]) -> list[Prediction]:
        ranked = keywords(
            self.keybert,
            [p.text for p in papers],
            keyphrase_ngram_range=(1, 3),
            stop_words="english",
            top_n=self.top_n,
        )
        return [Prediction(phrases=tuple(Predicted((k,)) for k, _ in r)) for r in ranked]
