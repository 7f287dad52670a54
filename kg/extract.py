"""Papers -> typed concept mentions, with KeyBERT ranking kg's own candidates.

For each paper the result is a pure function of the paper's text, the
settings and the model: batching papers together (one KeyBERT call embeds
every distinct candidate phrase once) changes speed, not results, so builds
can later be split, cached or distributed per paper.

Pipeline for one abstract:
1. :func:`kg.candidates.candidates` proposes phrases that never cross
   punctuation, function words or verbs, with lexical type cues and acronym
   definitions;
2. KeyBERT (with all-MiniLM-L6-v2, offline) scores every candidate by
   similarity to the abstract;
3. methods and problems are chosen by cue, role and relevance; a paper with no
   cued phrase of a kind falls back to the phrase most similar to that kind's
   prototype; fields come from the taxonomy (:mod:`kg.fields`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from keybert import KeyBERT
from keybert.backend import BaseEmbedder
from sklearn.feature_extraction.text import CountVectorizer

from kg import fields as fieldmod
from kg.candidates import (
    PROBLEM_HEADS,
    Candidate,
    candidates,
    head,
    looks_like_name,
    lower_case_words,
    names_quantity,
)
from kg.classify import CLASSES, CandidateClassifier, features, load_classifier
from kg.embed import Embedder, Memo
from kg.model import Kind, Mention, Paper, Role
from kg.text import sentences as split_sentences

__all__ = ["Settings", "Extractor", "select_mentions"]

# What a method and a problem "sound like", for phrases without a lexical cue.
_PROTOTYPES = {
    Kind.METHOD: "a method, algorithm, model or technique",
    Kind.PROBLEM: "a problem, task or challenge to solve",
}


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
        min_field_score: An area after the best is kept when its probability
            is at least this (the best area is always kept).
    """

    max_methods: int = 8
    max_problems: int = 5
    max_fields: int = 3
    max_words: int = 4
    min_relevance: float = 0.15
    min_field_score: float = 0.05


class _Backend(BaseEmbedder):
    """Lets KeyBERT embed through any kg :class:`Embedder` (real or fake)."""

    def __init__(self, embedder: Embedder) -> None:
        super().__init__()
        self.embedder = embedder

    def embed(self, documents: list[str], verbose: bool = False) -> np.ndarray:
        return self.embedder.embed(list(documents))


@dataclass(frozen=True)
class _Scored:
    candidate: Candidate
    relevance: float
    kind: Kind | None
    prob: float | None = None  # the classifier's probability of ``kind``


@dataclass(frozen=True)
class CandidateTable:
    """A paper's selectable candidates with their relevance and feature rows."""

    candidates: list[Candidate]
    relevance: list[float]
    features: np.ndarray


class Extractor:
    """Holds the loaded model and taxonomy; everything else is per paper."""

    def __init__(
        self,
        embedder: Embedder,
        taxonomy: fieldmod.Taxonomy | None = None,
        settings: Settings | None = None,
        classifier: CandidateClassifier | None | Literal["default"] = "default",
    ) -> None:
        self.embedder = embedder = Memo(embedder)
        self.settings = settings or Settings()
        self.classifier = load_classifier() if classifier == "default" else classifier
        self.keybert = KeyBERT(model=_Backend(embedder))
        self.taxonomy = taxonomy or fieldmod.load_taxonomy()
        self.field_scorer = fieldmod.FieldScorer.from_taxonomy(self.taxonomy, embedder)
        # Multi-word field names are established terms: "large language models"
        # keeps its "large".
        labels = [label for f in self.taxonomy.fields for label in (f.label, *f.alt_labels)]
        self._terms = frozenset(label.lower() for label in labels if " " in label)
        # Words the field labels write in lower case are ordinary words: "Neural
        # networks" at the start of a sentence is "neural networks".
        self._ordinary = lower_case_words(labels)
        self._prototypes = dict(
            zip(_PROTOTYPES, embedder.embed(list(_PROTOTYPES.values())), strict=True)
        )

    def extract(
        self,
        papers: Sequence[Paper],
        progress: Callable[[int], None] | None = None,
        batch_size: int = 64,
    ) -> dict[str, tuple[Mention, ...]]:
        """Mentions for each paper id, in input order."""
        result: dict[str, tuple[Mention, ...]] = {}
        for start in range(0, len(papers), batch_size):
            batch = papers[start : start + batch_size]
            result.update(self._extract_batch(batch))
            if progress:
                progress(len(batch))
        return result

    def _extract_batch(self, papers: Sequence[Paper]) -> dict[str, tuple[Mention, ...]]:
        sentence_lists = [split_sentences(p.text) or [p.text] for p in papers]
        tables = self.candidate_tables(papers, sentence_lists)
        field_lists = fieldmod.assign_fields_batch(
            [f"{p.title}. {p.text}" if p.title else p.text for p in papers],
            sentence_lists,
            self.field_scorer,
            top_k=self.settings.max_fields,
            min_score=self.settings.min_field_score,
        )
        out: dict[str, tuple[Mention, ...]] = {}
        for paper, sents, table, fields in zip(
            papers, sentence_lists, tables, field_lists, strict=True
        ):
            if self.classifier is not None:
                scored = _classified(table, self.classifier)
            else:
                scored = self._fill_missing_kinds(
                    [
                        _Scored(c, r, c.cue)
                        for c, r in zip(table.candidates, table.relevance, strict=True)
                    ]
                )
            mentions = select_mentions(scored, sents, self.settings)
            mentions += [
                Mention(text=key, role=Role.IN_FIELD, score=round(score, 4), sentence=sentence)
                for key, score, sentence in fields
            ]
            out[paper.id] = tuple(mentions)
        return out

    def candidate_tables(
        self, papers: Sequence[Paper], sentence_lists: Sequence[list[str]]
    ) -> list[CandidateTable]:
        """Each paper's selectable candidates, KeyBERT relevance and classifier features."""
        found = (
            candidates(ss, self.settings.max_words, self._terms, self._ordinary)
            for ss in sentence_lists
        )
        cand_lists = [[c for c in _merge_acronyms(cs) if _selectable(c)] for cs in found]
        relevances = self._relevance(papers, cand_lists)
        tables = []
        for paper, sents, cands, rel in zip(
            papers, sentence_lists, cand_lists, relevances, strict=True
        ):
            # An acronym's embedding says little; its expansion speaks for it.
            scores = [max(rel.get(c.text, 0.0), rel.get(c.expansion or "", 0.0)) for c in cands]
            vectors = self.embedder.embed([c.expansion or c.text for c in cands])
            tables.append(
                CandidateTable(
                    cands, scores, features(cands, scores, vectors, paper.text, len(sents))
                )
            )
        return tables

    def _relevance(
        self, papers: Sequence[Paper], cand_lists: list[list[Candidate]]
    ) -> list[dict[str, float]]:
        """KeyBERT's similarity of each candidate to its abstract."""
        by_doc = {
            p.text: sorted({t for c in cs for t in (c.text, c.expansion) if t})
            for p, cs in zip(papers, cand_lists, strict=True)
        }
        docs = [p.text for p in papers if by_doc[p.text]]
        if not docs:
            return [{} for _ in papers]
        vectorizer = CountVectorizer(analyzer=lambda doc: by_doc[doc], lowercase=False)
        ranked = self.keybert.extract_keywords(docs, vectorizer=vectorizer, top_n=10_000)
        if docs and ranked and isinstance(ranked[0], tuple):  # KeyBERT unwraps a single doc
            ranked = [ranked]
        scores = dict(zip(docs, ranked, strict=True))
        return [dict(scores.get(p.text, [])) for p in papers]

    def _fill_missing_kinds(self, scored: list[_Scored]) -> list[_Scored]:
        """Type the best uncued phrase for a kind the paper has no cue for."""
        missing = [k for k in _PROTOTYPES if not any(s.kind is k for s in scored)]
        pool = [s for s in scored if s.kind is None and len(s.candidate.text.split()) > 1]
        pool = sorted(pool, key=lambda s: -s.relevance)[:10]
        if not missing or not pool:
            return scored
        vectors = self.embedder.embed([s.candidate.text for s in pool])
        typed = {id(s): s for s in scored}
        for kind in missing:
            affinity = vectors @ self._prototypes[kind]
            best = int(np.argmax(affinity + np.array([s.relevance for s in pool])))
            chosen = pool[best]
            typed[id(chosen)] = _Scored(chosen.candidate, chosen.relevance * 0.8, kind)
        return [typed[id(s)] for s in scored]


# A phrase the classifier finds this likely to be a concept keeps the kind its wording gives.
_CUED_ENTITY = 0.5
# How often a name the paper says it proposes ("we propose GINOP") is a gold
# Method when the classifier doubts it (probability < 0.5): 21 of 30 on the
# first 350 SciERC training abstracts (bench/proposed_names.py). The
# classifier's own probability there averages 0.30, so it is the floor.
_PROPOSED_NAME = 0.7


def _classified(table: CandidateTable, classifier: CandidateClassifier) -> list[_Scored]:
    """Type candidates by the classifier; a kind nobody passes gets its likeliest phrase.

    A phrase the paper says it proposes stays a method whatever the classifier
    thinks of its kind, with the probability that it is a concept at all; for
    a name (GINOP, Dual-MTP) that is at least how often such names are methods.
    """
    cands = table.candidates
    if not cands:
        return []
    P = classifier.probabilities(table.features)
    kinds = {Kind.METHOD: CLASSES.index("method"), Kind.PROBLEM: CLASSES.index("problem")}
    quantity = [names_quantity(c.text) for c in cands]
    scored: list[_Scored] = []
    for i, c in enumerate(cands):
        entity = float(1.0 - P[i, 0])
        likeliest, column = max(kinds.items(), key=lambda kv: P[i, kv[1]])
        prob = float(P[i, column])
        kind: Kind | None = likeliest
        if c.proposed and c.cue is Kind.METHOD:
            named = any(looks_like_name(w) for w in c.text.split())
            kind, prob = Kind.METHOD, max(entity, _PROPOSED_NAME) if named else entity
        elif quantity[i]:
            kind = None  # a bound, rate or assumption is neither method nor problem
        elif c.cue is not None and entity >= _CUED_ENTITY:
            kind, prob = c.cue, entity  # a concept the wording types: trust the wording
        elif prob < classifier.thresholds[likeliest.value]:
            kind = None
        scored.append(_Scored(c, table.relevance[i], kind, prob))
    for kind, column in kinds.items():
        if not any(s.kind is kind for s in scored):
            free = [i for i, s in enumerate(scored) if s.kind is None and not quantity[i]]
            spare = [
                i for i, s in enumerate(scored) if not s.candidate.proposed and not quantity[i]
            ]
            cued = [i for i in free if cands[i].cue is kind] or free or spare
            if cued:
                best = max(cued, key=lambda i: P[i, column])
                scored[best] = _Scored(
                    cands[best], table.relevance[best], kind, float(P[best, column])
                )
    return scored


def _selectable(c: Candidate) -> bool:
    """Whether a candidate can end up chosen, so is worth embedding at all."""
    return c.cue is not None or c.proposed or " " in c.text


def _merge_acronyms(cands: list[Candidate]) -> list[Candidate]:
    """One candidate per defined acronym: drop its expansion and the expansion's parts."""
    expansions = {c.expansion.lower(): c for c in cands if c.expansion}
    if not expansions:
        return cands
    kept = []
    for c in cands:
        low = c.text.lower()
        owner = next((a for e, a in expansions.items() if low in e and a is not c), None)
        if owner is not None:
            continue
        if c.expansion and not c.proposed:  # a proposed name is a method whatever its head
            c = Candidate(c.text, c.sentence, _acronym_kind(c.expansion), c.proposed, c.expansion)
        kept.append(c)
    return kept


# Problem-sounding heads that, in a named and abbreviated technique, mean a method:
# "Proximal Policy Optimization (PPO)", "Stochastic Variational Inference (SVI)".
_METHOD_NAME_HEADS = frozenset(
    [
        "optimization",
        "optimisation",
        "inference",
        "decoding",
        "estimation",
        "approximation",
        "matching",
        "selection",
        "compression",
        "transfer",
        "calibration",
        "sampling",
        "search",
    ]
)


def _acronym_kind(expansion: str) -> Kind:
    """An abbreviated name is a method unless its expansion names a task."""
    h = head(expansion)
    if h in PROBLEM_HEADS and h not in _METHOD_NAME_HEADS:
        return Kind.PROBLEM
    return Kind.METHOD


def _overlaps(a: str, b: str) -> bool:
    wa, wb = set(a.lower().split()), set(b.lower().split())
    return wa <= wb or wb <= wa


def _inside(short: str, long: str) -> bool:
    """A plain phrase that is a strict part of another (names stand on their own)."""
    if any(looks_like_name(w) for w in short.split()):
        return False
    return f" {short.lower()} " in f" {long.lower()} " and short.lower() != long.lower()


def select_mentions(
    scored: list[_Scored], sentences: list[str], settings: Settings
) -> list[Mention]:
    """Pick the methods and problems of one paper from its scored candidates.

    Proposed names come first, then phrases by the classifier's probability
    (by relevance without a classifier); a phrase that is part of (or
    contains) one already chosen of the same kind is skipped, and so is a
    plain phrase inside a chosen phrase of the other kind.
    """
    if not scored:
        return []
    top = max(s.relevance for s in scored) or 1.0
    mentions: list[Mention] = []
    for kind, limit in ((Kind.METHOD, settings.max_methods), (Kind.PROBLEM, settings.max_problems)):
        pool = [s for s in scored if s.kind is kind]
        strong = [s for s in pool if s.relevance >= settings.min_relevance] or pool
        strong.sort(
            key=lambda s: (
                -int(s.candidate.proposed),
                -(s.prob or 0.0),
                -int(any(looks_like_name(w) for w in s.candidate.text.split())),
                -int(s.candidate.expansion is not None),
                -s.relevance,
                s.candidate.text,
            )
        )
        chosen: list[_Scored] = []
        for s in strong:
            if len(chosen) >= limit:
                break
            if any(_overlaps(s.candidate.text, c.candidate.text) for c in chosen):
                continue
            if any(_inside(s.candidate.text, m.text) for m in mentions):
                continue  # "heavy-tailed gradient" inside the problem "heavy-tailed gradient noise"
            chosen.append(s)
        if not chosen and strong:  # every paper names at least one of each kind
            chosen.append(strong[0])
        for s in chosen:
            c = s.candidate
            role = (
                Role.ADDRESSES
                if kind is Kind.PROBLEM
                else (Role.PROPOSES if c.proposed else Role.USES)
            )
            if s.prob is not None:
                confidence = s.prob
            else:  # rules only: relevance, and whether wording agrees with the kind
                confidence = 0.5 * (s.relevance / top) + 0.5 * (1.0 if c.cue is kind else 0.5)
            mentions.append(
                Mention(
                    text=c.text,
                    role=role,
                    score=round(min(1.0, max(0.0, confidence)), 4),
                    sentence=sentences[c.sentence],
                    expansion=c.expansion,
                )
            )
    return _without_fragments(mentions)


def _without_fragments(mentions: list[Mention]) -> list[Mention]:
    """Drop a phrase that is part of another chosen one, if its kind keeps a mention."""
    kept = list(mentions)
    for m in mentions:
        if any(_inside(m.text, other.text) for other in kept) and (
            sum(k.kind is m.kind for k in kept) > 1
        ):
            kept.remove(m)
    return kept
