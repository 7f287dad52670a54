"""Systems under evaluation: kg itself, and plain KeyBERT as the baseline.

A predictor turns papers into :class:`Prediction` s, one per paper; scoring
(:mod:`kg.evaluate.scoring`) does not care which system made them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from kg.concepts import canonicalize
from kg.defaults import EXTRACT_BATCH
from kg.evaluate.matching import Predicted
from kg.extract import keybert_model, keywords
from kg.graph import knowledge_graph
from kg.lexicon import variant_key
from kg.model import Concept, Kind, KnowledgeGraph, Link, Mention, Paper, Progress

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
        ranked: Methods, problems and phrases, most confident first (what
            keyphrase benchmarks score at 5 and 10).
        confidence: The confidence of each of ``ranked``, when the system gives one.
        candidates: Every phrase the system considered, chosen or not (for
            candidate recall); empty when the system does not say.
    """

    methods: tuple[Predicted, ...] = ()
    problems: tuple[Predicted, ...] = ()
    phrases: tuple[Predicted, ...] = ()
    fields: tuple[Predicted, ...] = ()
    areas: tuple[str, ...] = ()
    ranked: tuple[Predicted, ...] = ()
    confidence: tuple[float, ...] = ()
    candidates: tuple[str, ...] = ()

    @property
    def concepts(self) -> tuple[Predicted, ...]:
        """Methods, problems and phrases: the untyped view."""
        return self.methods + self.problems + self.phrases


class Predictor(Protocol):
    """A system under evaluation. ``typed`` is False when it has no kinds or fields."""

    name: str
    typed: bool

    def predict(
        self, papers: Sequence[Paper], progress: Progress | None = None
    ) -> list[Prediction]: ...


class KgPredictor:
    """kg as it builds a graph: methods, problems and fields each paper links to.

    The whole corpus is extracted first, then merged into concepts, as
    ``kg build`` does: a paper's predictions are its links in the built graph
    (a phrase it mentions becomes one when other papers mention it too), each
    scored by the forms the paper itself wrote. The built graph is kept in
    :attr:`graph` for the link figures.
    """

    name = "kg"
    typed = True

    def __init__(
        self, extractor: Any, areas: Mapping[str, str] | None = None, rule: Any = None
    ) -> None:
        """``areas``: ``{IRI: label}`` of the areas fields map to; default: taxonomy targets."""
        self.extractor = extractor
        self.taxonomy = extractor.taxonomy
        self.areas = dict(self.taxonomy.targets if areas is None else areas)
        self.rule = rule
        self.graph: KnowledgeGraph | None = None

    def predict(
        self, papers: Sequence[Paper], progress: Progress | None = None
    ) -> list[Prediction]:
        done = 0

        def step(n: int) -> None:
            nonlocal done
            done += n
            if progress:
                progress("extracting (kg)", done, len(papers))

        mentions = self.extractor.extract(papers, progress=step)
        concepts, links = canonicalize(mentions, self.taxonomy)
        self.graph = knowledge_graph(papers, concepts, links, self.taxonomy, self.rule)
        predictions = self.predictions(papers, mentions, concepts, links)
        phrases = self.extractor.candidate_phrases(papers)
        return [
            replace(pred, candidates=tuple(found))
            for pred, found in zip(predictions, phrases, strict=True)
        ]

    def predictions(
        self,
        papers: Sequence[Paper],
        mentions: Mapping[str, Sequence[Mention]],
        concepts: Sequence[Concept],
        links: Sequence[Link],
    ) -> list[Prediction]:
        """Each paper's prediction from mentions already merged into ``concepts`` and ``links``."""
        linked: dict[str, set[str]] = defaultdict(set)
        for link in links:
            linked[link.paper_id].add(link.concept_key)
        key_of = {
            variant_key(form): c.key
            for c in concepts
            if c.kind is not Kind.FIELD
            for form in (c.label, *c.alt_labels)
        }
        return [self.prediction(mentions[p.id], linked[p.id], key_of) for p in papers]

    def prediction(
        self,
        mentions: Sequence[Mention],
        linked: set[str] | None = None,
        key_of: Mapping[str, str] | None = None,
    ) -> Prediction:
        """One paper's mentions as a :class:`Prediction`: every link its graph holds.

        The kept mentions, and the weak ones the graph links it to (``linked``
        concept keys) as the kind they would most likely be: a user sees both,
        so both are scored.
        """

        def concept(m: Mention) -> Predicted:
            return Predicted((m.text, m.expansion) if m.expansion else (m.text,))

        def promoted(m: Mention) -> bool:
            keys = {variant_key(f) for f in (m.text, m.expansion) if f}
            return any((key_of or {}).get(k) in (linked or set()) for k in keys)

        linked_mentions = [m for m in mentions if m.selected or promoted(m)]
        mentions = [m for m in linked_mentions if m.kind is not Kind.FIELD]
        fields = sorted(
            (m for m in linked_mentions if m.kind is Kind.FIELD), key=lambda m: -m.score
        )
        ranked = sorted(mentions, key=lambda m: -m.score)
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
            ranked=tuple(concept(m) for m in ranked),
            confidence=tuple(m.score for m in ranked),
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

    def predict(
        self, papers: Sequence[Paper], progress: Progress | None = None
    ) -> list[Prediction]:
        ranked: list[list[tuple[str, float]]] = []
        for start in range(0, len(papers), EXTRACT_BATCH):
            ranked += keywords(
                self.keybert,
                [p.text for p in papers[start : start + EXTRACT_BATCH]],
                keyphrase_ngram_range=(1, 3),
                stop_words="english",
                top_n=self.top_n,
            )
            if progress:
                progress(f"extracting ({self.name})", len(ranked), len(papers))
        return [
            Prediction(phrases=(found := tuple(Predicted((k,)) for k, _ in r)), ranked=found)
            for r in ranked
        ]
