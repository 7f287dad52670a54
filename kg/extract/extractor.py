"""Papers -> typed concept mentions, with KeyBERT ranking kg's own candidates.

For each paper the result is a pure function of the paper's text, the
settings and the model: batching papers together (one KeyBERT call embeds
every distinct candidate phrase once) changes speed, not results, so builds
can be split, cached or distributed per paper.

Pipeline for one abstract:
1. :func:`kg.extract.candidates.candidates` proposes phrases that never cross
   punctuation, function words or verbs, with lexical type cues and acronym
   definitions;
2. KeyBERT (with all-MiniLM-L6-v2, offline) scores every candidate by
   similarity to the abstract;
3. the learned classifier types them and :mod:`kg.extract.select` keeps each
   paper's methods and problems; fields come from the taxonomy
   (:mod:`kg.extract.fields`);
4. the reader model (:mod:`kg.extract.reader`) gives each kept method and
   problem link its confidence: how likely a reader judges it right.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from kg.defaults import EXTRACT_BATCH
from kg.extract.candidates import Candidate, candidates
from kg.extract.classify import CandidateClassifier, features, load_classifier
from kg.extract.embed import Embedder, Memo, TextVectors, read
from kg.extract.fields import FieldScorer, assign_fields_batch
from kg.extract.keywords import keybert_model, keywords
from kg.extract.named_fields import field_names, with_named_fields
from kg.extract.placement import TopicIndex, placed
from kg.extract.pooling import in_context
from kg.extract.reader import ReaderModel, load_reader, rescored
from kg.extract.refine import keyword_candidates, merge_acronyms
from kg.extract.select import (
    WEAK_FLOOR,
    CandidateTable,
    Scored,
    classified,
    select_links,
    weak_mentions,
)
from kg.lexicon import is_general_word, lower_case_words
from kg.model import Kind, Mention, Paper, Role
from kg.taxonomy import Taxonomy, load_taxonomy
from kg.text import clean
from kg.text import sentences as split_sentences

__all__ = ["Settings", "Extractor", "paper_sentences"]

# What a method and a problem "sound like", for phrases without a lexical cue
# when there is no classifier (the rules-only path used to train it).
_PROTOTYPES = {
    Kind.METHOD: "a method, algorithm, model or technique",
    Kind.PROBLEM: "a problem, task or challenge to solve",
}
# Rules only: a kind with no cued phrase takes the best of this many most
# relevant uncued phrases, at this share of its relevance.
_FALLBACK_POOL = 10
_FALLBACK_DISCOUNT = 0.8
#: Most papers extracted between two progress reports (:meth:`Extractor.extract`).
PROGRESS_STEP = 8


@dataclass(frozen=True)
class Settings:
    """Knobs of extraction; part of what a result is a function of.

    Attributes:
        max_methods: Methods kept per paper.
        max_problems: Problems kept per paper.
        max_fields: Fields kept per paper (narrower topics and their areas).
        max_words: Longest candidate phrase, in words.
        min_relevance: Candidates less similar than this to the abstract are
            dropped unless nothing else of their kind is left.
        min_field_score: A field after the best area is kept when its
            probability is at least this (the best area is kept unless the
            abstract is outside the taxonomy's reach). At 0.25, a second area
            is as likely right as the best area of an unsure paper.
    """

    max_methods: int = 8
    max_problems: int = 5
    max_fields: int = 3
    max_words: int = 4
    min_relevance: float = 0.15
    min_field_score: float = 0.25


class Extractor:
    """Holds the loaded model and taxonomy; everything else is per paper."""

    def __init__(
        self,
        embedder: Embedder,
        taxonomy: Taxonomy | None = None,
        settings: Settings | None = None,
        classifier: CandidateClassifier | None | Literal["default"] = "default",
        reader: ReaderModel | None | Literal["default"] = "default",
        prepared: Mapping[str, np.ndarray] | None = None,
    ) -> None:
        """``prepared``: the :attr:`prepared` vectors of an extractor made before with the
        same model, taxonomy and settings (a build's cache keeps them): set-up embeds nothing."""
        self.embedder = embedder = Memo(embedder, known=prepared)
        self.settings = settings or Settings()
        self.classifier = load_classifier() if classifier == "default" else classifier
        # The reader model reads the classifier's features: without one, rules score the links.
        self.reader = (
            (load_reader() if reader == "default" else reader) if self.classifier else None
        )
        # Weak mentions are linked only at the likelihood the classifier was tuned to.
        self._weak_floor = (
            self.classifier.thresholds.get("weak", WEAK_FLOOR) if self.classifier else WEAK_FLOOR
        )
        self.keybert = keybert_model(embedder)
        self.taxonomy = taxonomy or load_taxonomy()
        self.field_scorer = FieldScorer.from_taxonomy(self.taxonomy, embedder)
        self.topics = TopicIndex.from_taxonomy(self.taxonomy, embedder)
        # Multi-word field names are established terms: "large language models"
        # keeps its "large".
        labels = [label for f in self.taxonomy.fields for label in (f.label, *f.alt_labels)]
        self._terms = frozenset(label.lower() for label in labels if " " in label)
        # Words the field labels write in lower case are ordinary words: "Neural
        # networks" at the start of a sentence is "neural networks".
        self._ordinary = lower_case_words(labels)
        self._field_names = field_names(self.taxonomy)
        self._prototypes = dict(
            zip(_PROTOTYPES, embedder.embed(list(_PROTOTYPES.values())), strict=True)
        )
        #: The vectors set-up embedded (field labels and definitions, topics, prototypes).
        self.prepared = dict(embedder.vectors)

    def extract(
        self,
        papers: Sequence[Paper],
        progress: Callable[[int], None] | None = None,
        batch_size: int = EXTRACT_BATCH,
    ) -> dict[str, tuple[Mention, ...]]:
        """Mentions for each paper id, in input order.

        ``progress`` is called with the number of papers done since its last
        call. With it, a batch is extracted in steps of at most
        :data:`PROGRESS_STEP` papers, so that a build of a few dozen papers
        moves as they finish: a paper's result does not depend on its batch,
        and steps that small took no longer (37 papers: 41 s in steps of 4,
        42 s in one batch; per paper it took twice as long).
        """
        step = min(batch_size, PROGRESS_STEP) if progress else batch_size
        result: dict[str, tuple[Mention, ...]] = {}
        for start in range(0, len(papers), step):
            batch = papers[start : start + step]
            result.update(self._extract_batch(batch))
            if progress:
                progress(len(batch))
        return result

    def _extract_batch(self, papers: Sequence[Paper]) -> dict[str, tuple[Mention, ...]]:
        s = self.settings
        sentence_lists = [paper_sentences(p) for p in papers]
        documents = [_document(p) for p in papers]
        # One model pass per paper: field scoring pools its sentences from it,
        # and KeyBERT finds the paper vectors memoised.
        readings = read(self.embedder, documents)
        field_lists = assign_fields_batch(
            documents,
            sentence_lists,
            self.field_scorer,
            top_k=s.max_fields,
            min_score=s.min_field_score,
            readings=readings,
        )
        tables = self.candidate_tables(papers, sentence_lists, readings)
        limits = {Kind.METHOD: s.max_methods, Kind.PROBLEM: s.max_problems}
        out: dict[str, tuple[Mention, ...]] = {}
        for paper, sents, table, fields in zip(
            papers, sentence_lists, tables, field_lists, strict=True
        ):
            scored = self.scored(table)
            links = select_links(scored, sents, limits, s.min_relevance)
            mentions = [m for m, _ in links]
            judged = rescored(links, scored, table, self.reader) if self.reader else mentions
            field_mentions = [
                Mention(text=key, role=Role.IN_FIELD, score=round(score, 4), sentence=sentence)
                for key, score, sentence in fields
            ]
            kept = with_named_fields(judged, field_mentions, self._field_names)
            weak = with_named_fields(
                weak_mentions(scored, sents, mentions, self._weak_floor), [], {}
            )
            out[paper.id] = tuple(placed(kept + weak, self.topics, self.embedder))
        return out

    def scored(self, table: CandidateTable) -> list[Scored]:
        """Each candidate of ``table`` typed, with how likely its kind is (row for row)."""
        if self.classifier is not None:
            return classified(table, self.classifier)
        return self._fill_missing_kinds(
            [
                Scored(c, r, None if is_general_word(c.text) else c.cue)
                for c, r in zip(table.candidates, table.relevance, strict=True)
            ]
        )

    def candidate_tables(
        self,
        papers: Sequence[Paper],
        sentence_lists: Sequence[list[str]],
        readings: Sequence[TextVectors] | None = None,
    ) -> list[CandidateTable]:
        """Each paper's selectable candidates, KeyBERT relevance and classifier features.

        ``readings`` are the papers' documents read (:func:`kg.extract.embed.read`),
        read here when not given.
        """
        if readings is None:
            readings = read(self.embedder, [_document(p) for p in papers])
        found = (
            keyword_candidates(
                candidates(ss, self.settings.max_words, self._terms, self._ordinary), p.keywords
            )
            for p, ss in zip(papers, sentence_lists, strict=True)
        )
        cand_lists = [[c for c in merge_acronyms(cs) if _selectable(c)] for cs in found]
        relevances = self._relevance(papers, cand_lists)
        tables = []
        for paper, sents, cands, rel, reading in zip(
            papers, sentence_lists, cand_lists, relevances, readings, strict=True
        ):
            # An acronym's embedding says little; its expansion speaks for it.
            scores = [max(rel.get(c.text, 0.0), rel.get(c.expansion or "", 0.0)) for c in cands]
            vectors = self.embedder.embed([c.expansion or c.text for c in cands])
            context = in_context(reading, [c.text for c in cands])
            X = features(cands, scores, vectors, context, paper.text, len(sents))
            titled = bool(paper.title) and sents[0] == clean(paper.title or "")
            tables.append(CandidateTable(cands, scores, X, titled))
        return tables

    def candidate_phrases(self, papers: Sequence[Paper]) -> list[list[str]]:
        """Every phrase each paper's candidates offer (and expansions), before any is chosen."""
        out = []
        for p in papers:
            found = candidates(
                paper_sentences(p), self.settings.max_words, self._terms, self._ordinary
            )
            out.append(sorted({t for c in found for t in (c.text, c.expansion) if t}))
        return out

    def _relevance(
        self, papers: Sequence[Paper], cand_lists: list[list[Candidate]]
    ) -> list[dict[str, float]]:
        """KeyBERT's similarity of each candidate to its paper (title and abstract)."""
        by_doc: dict[str, list[str]] = {}
        for p, cs in zip(papers, cand_lists, strict=True):
            # Two papers with one text (a duplicate record) rank the same candidates.
            words = by_doc.setdefault(_document(p), [])
            words.extend(t for c in cs for t in (c.text, c.expansion) if t)
        by_doc = {doc: sorted(set(words)) for doc, words in by_doc.items()}
        docs = [doc for doc, words in by_doc.items() if words]
        if not docs:
            return [{} for _ in papers]
        ranked = keywords(
            self.keybert,
            docs,
            vectorizer=_vocabulary(by_doc),
            top_n=max(len(v) for v in by_doc.values()),  # every candidate, ranked
        )
        scores = dict(zip(docs, ranked, strict=True))
        return [dict(scores.get(_document(p), [])) for p in papers]

    def _fill_missing_kinds(self, scored: list[Scored]) -> list[Scored]:
        """Type the best uncued phrase for a kind the paper has no cue for (rules only)."""
        missing = [k for k in _PROTOTYPES if not any(s.kind is k for s in scored)]
        pool = [s for s in scored if s.kind is None and len(s.candidate.text.split()) > 1]
        pool = sorted(pool, key=lambda s: -s.relevance)[:_FALLBACK_POOL]
        if not missing or not pool:
            return scored
        vectors = self.embedder.embed([s.candidate.text for s in pool])
        typed = {id(s): s for s in scored}
        for kind in missing:
            affinity = vectors @ self._prototypes[kind]
            best = int(np.argmax(affinity + np.array([s.relevance for s in pool])))
            chosen = pool[best]
            typed[id(chosen)] = Scored(
                chosen.candidate, chosen.relevance * _FALLBACK_DISCOUNT, kind
            )
        return [typed[id(s)] for s in scored]


def _vocabulary(by_doc: dict[str, list[str]]) -> Any:
    """A vectorizer whose vocabulary of each document is exactly its candidates."""
    from sklearn.feature_extraction.text import CountVectorizer

    return CountVectorizer(analyzer=lambda doc: by_doc[doc], lowercase=False)


def _document(paper: Paper) -> str:
    """The text a paper is embedded as, once: its title, then its abstract.

    KeyBERT ranks candidates against this vector and field scoring reads the
    same one, so an abstract with a title costs one long model pass, not two.
    """
    return f"{paper.title}. {paper.text}" if paper.title else paper.text


def paper_sentences(paper: Paper) -> list[str]:
    """What a paper's concepts are found in: its title, then the sentences of its abstract.

    A title names the paper's main concepts more often than any sentence does.
    """
    body = split_sentences(paper.text) or [paper.text]
    title = clean(paper.title) if paper.title else ""
    return [title, *body] if title and title not in body else body


def _selectable(c: Candidate) -> bool:
    """Whether a candidate can end up chosen, so is worth embedding at all.

    A single word needs a cue or at least four letters ("sparsity", "grokking"):
    shorter ones that are not names are mostly fragments.
    """
    return c.cue is not None or c.proposed or c.keyword or " " in c.text or len(c.text) >= 4
