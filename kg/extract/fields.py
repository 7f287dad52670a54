"""Assigning fields of the taxonomy to papers, with a score and an evidence sentence.

Assignment starts zero-shot: every field is embedded once from its labels and
definition, and each field is scored by how close its embeddings are to the
abstract (as a whole and sentence by sentence), nudged up when the abstract
literally names a field or one of its alt labels. For the shipped taxonomy a
learned model (:mod:`kg.extract.area_model`) then ranks the broad areas from
the paper embedding and those scores, with calibrated probabilities, after a
second one (:mod:`kg.extract.domain_model`) has found the paper to be about
machine learning at all; a user's own taxonomy is ranked zero-shot. The
result for one paper depends only on its text and the scorer, so builds can
run in parallel and incrementally.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

import numpy as np
from scipy.special import softmax

from kg.errors import ModelError
from kg.extract.area_model import AreaModel, load_area_model
from kg.extract.domain_model import DEFAULT_DOMAIN_MODEL, DomainModel, load_domain_model
from kg.extract.embed import PACKAGED, Embedder, TextVectors, model_identity, read, unit
from kg.extract.pooling import sentence_vectors
from kg.lexicon import is_acronym
from kg.taxonomy import Taxonomy

__all__ = ["FieldScorer", "PaperScores", "assign_fields", "assign_fields_batch", "paper_scores"]

# Weights of the evidence combined into a field's raw score, set by hand on one
# half of the ICLR 2024 dev set before the area model existed (not learned);
# bench/field_ablations.py reports what the zero-shot ranking scores with them.
_W_DOC = 0.5  # abstract vs field definition
_W_SENT = 0.3  # best single sentence vs field definition
_W_LABEL = 0.2  # abstract vs field labels
_W_LEX = 0.08  # per distinct label literally present, up to _LEX_CAP
_LEX_CAP = 2
_CHILD_WEIGHT = 0.7  # how much an area's score follows its best topic rather than itself
_TEMPERATURE = 0.05  # softmax temperature that turns raw scores into [0, 1]
_MAX_NAMED = 3  # fields added because the text names them, besides the ranked areas
_TOPICS_PER_AREA = 2  # an area's topics kept, best first, if they clear the floor
# An abstract outside the taxonomy's reach gets no field: when the domain model finds it not
# about machine learning (the shipped taxonomy), or when no field's raw score reaches
# _OUTSIDE_RAW and no area is _OUTSIDE_PROB likely (any taxonomy). The second, measured on
# 250 abstracts each (not the data the area model learned from): 2.4% of ICML
# 2024 papers and 43% of Inspec's (computing and engineering, 1998-2002) fall
# below both; the Inspec abstracts above them are mostly about AI or computing.
_OUTSIDE_RAW = 0.30
_OUTSIDE_PROB = 0.30


@dataclass(frozen=True)
class _Term:
    """A field label as a pattern, with a cheap test that comes first.

    Acronyms ("GAN", "NeRF", "MoE") match case-sensitively, words do not;
    spaces and hyphens are interchangeable and a plural s is allowed. Every
    match contains the label's longest part, so an abstract without it is
    passed over without running the pattern (the patterns of all labels over
    every abstract were half of extraction's own work).
    """

    pattern: re.Pattern[str]
    needle: str | None  # in every match (case-folded unless an acronym); None: no test
    folded: bool

    @classmethod
    @lru_cache(maxsize=4096)  # a build sets up ~900 labels: more than re's own cache keeps
    def of(cls, term: str) -> _Term:
        acronym = is_acronym(term)
        parts = re.split(r"[-\s]+", term)
        body = r"[-\s]?".join(re.escape(part) for part in parts)
        pattern = re.compile(rf"(?<![\w-]){body}(?:e?s)?(?![\w])", 0 if acronym else re.I)
        longest = max(parts, key=len)
        # Case-insensitive matching of non-ASCII letters has cases casefold
        # does not share; such a label always runs its pattern.
        needle = longest if acronym else longest.casefold() if longest.isascii() else None
        return cls(pattern, needle or None, not acronym)

    def search(self, text: str, folded: str | None = None) -> bool:
        """Whether the label occurs in ``text`` (``folded``: :func:`fold` of it)."""
        if self.needle is not None:
            haystack = (fold(text) if folded is None else folded) if self.folded else text
            if self.needle not in haystack:
                return False
        return self.pattern.search(text) is not None


def _domain_model(embedder: Embedder, dim: int) -> DomainModel | None:
    """The shipped domain model, if ``embedder`` is the packaged model whose vectors it reads."""
    if model_identity(embedder) != PACKAGED:
        return None
    model = load_domain_model()
    if model.model != PACKAGED.key or model.weights.shape != (dim,):
        raise ModelError(
            f"{DEFAULT_DOMAIN_MODEL} was trained for another version of the packaged model; "
            "retrain it with bench/train_domain.py"
        )
    return model


def fold(text: str) -> str:
    """``text`` case-folded so that every case-insensitive match of an ASCII part is in it.

    ``re.IGNORECASE`` also matches "i" with dotted "İ" (which case-folds to
    "i" and a combining dot) and with dotless "ı".
    """
    return text.casefold().replace("\u0307", "").replace("\u0131", "i")


@dataclass(frozen=True, eq=False)
class FieldScorer:
    """Field embeddings, label patterns, the area and domain models, set up once per taxonomy.

    Build with :meth:`from_taxonomy`; pass to :func:`assign_fields`.
    """

    taxonomy: Taxonomy
    embedder: Embedder
    definitions: np.ndarray  # (n_fields, dim), centred, unit rows
    labels: np.ndarray  # (n_fields, dim), centred, unit rows
    center: np.ndarray  # (dim,), mean of the field definition embeddings
    patterns: tuple[tuple[_Term, ...], ...] = field(repr=False)
    area_model: AreaModel | None = field(default=None, repr=False)
    domain_model: DomainModel | None = field(default=None, repr=False)

    @classmethod
    def from_taxonomy(
        cls,
        taxonomy: Taxonomy,
        embedder: Embedder,
        area_model: AreaModel | None | str = "default",
    ) -> FieldScorer:
        """Embed every field's definition and labels (one embedder call).

        Args:
            area_model: A learned area ranking, None for zero-shot only, or
                "default": kg's shipped model when ``taxonomy`` has exactly
                the broad areas it was trained for (the shipped taxonomy),
                else none. With the shipped area model and the packaged
                embedder comes the shipped :class:`~kg.extract.area_model.DomainModel`:
                a paper it finds not about machine learning gets no field.
        """
        fs = taxonomy.fields
        defs = [f"{f.label}: {f.description or f.label}" for f in fs]
        labs = ["; ".join((f.label, *f.alt_labels)) for f in fs]
        vecs = np.asarray(embedder.embed(defs + labs), dtype=np.float32)
        # Centring removes what all ML fields share, so cosines measure what
        # sets one field apart from the others.
        center = vecs[: len(fs)].mean(axis=0)
        vecs = unit(vecs - center)
        patterns = tuple(
            tuple(_Term.of(t) for t in dict.fromkeys((f.label, *f.alt_labels))) for f in fs
        )
        if area_model == "default":
            area_model = load_area_model()
            fits = area_model.areas == tuple(t.key for t in taxonomy.top_level()) and (
                area_model.raw_weights.shape[1] == len(fs)
                and area_model.doc_weights.shape[1] == vecs.shape[1]
            )
            area_model = area_model if fits else None
            domain = _domain_model(embedder, vecs.shape[1]) if fits else None
        else:
            domain = None
        assert not isinstance(area_model, str)
        return cls(
            taxonomy,
            embedder,
            vecs[: len(fs)],
            vecs[len(fs) :],
            center,
            patterns,
            area_model,
            domain,
        )

    def lexical_hits(self, text: str) -> np.ndarray:
        """Number of distinct labels of each field that occur in ``text``."""
        folded = fold(text)
        return np.array(
            [sum(1 for p in pats if p.search(text, folded)) for pats in self.patterns],
            dtype=np.float32,
        )

    def raw_scores(
        self, doc: np.ndarray, sents: np.ndarray, hits: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Raw field scores of one paper and, per field, the index of its best sentence."""
        doc = unit(doc - self.center)
        sents = unit(sents - self.center)
        sent_sims = sents @ self.definitions.T  # (n_sents, n_fields)
        raw = (
            _W_DOC * (self.definitions @ doc)
            + _W_SENT * sent_sims.max(axis=0)
            + _W_LABEL * (self.labels @ doc)
            + _W_LEX * np.minimum(hits, _LEX_CAP)
        )
        return raw, sent_sims.argmax(axis=0)

    def area_raw(self, raw: np.ndarray) -> np.ndarray:
        """Zero-shot score of each broad area: a blend of its own and its best topic's.

        A broad area is as strong as its best topic: papers name topics more
        often than areas. Works on one paper's scores or a batch (rows).
        """
        columns = [
            (1 - _CHILD_WEIGHT) * raw[..., group[0]] + _CHILD_WEIGHT * raw[..., group].max(axis=-1)
            for group in self._area_groups
        ]
        return np.stack(columns, axis=-1)

    @cached_property
    def _index(self) -> dict[str, int]:
        """Field key -> row in the taxonomy order."""
        return {f.key: i for i, f in enumerate(self.taxonomy.fields)}

    @cached_property
    def _area_groups(self) -> list[list[int]]:
        """Per broad area, its own row followed by its topics' rows."""
        tax = self.taxonomy
        return [[self._index[c.key] for c in (t, *tax.children(t.key))] for t in tax.top_level()]

    def area_probabilities(self, doc: np.ndarray, raw: np.ndarray) -> np.ndarray:
        """Probability of each broad area (``taxonomy.top_level()`` order)."""
        area_raw = self.area_raw(raw)
        if self.area_model is not None:
            return self.area_model.probabilities(doc, raw, area_raw)
        return np.asarray(softmax(area_raw / _TEMPERATURE, axis=-1))


@dataclass(frozen=True)
class PaperScores:
    """What field assignment computed for one paper (see :func:`paper_scores`)."""

    doc: np.ndarray  # the paper's embedding
    raw: np.ndarray  # zero-shot raw score per field, taxonomy order
    best_sentence: np.ndarray  # per field, index of its most similar sentence
    sentences: tuple[str, ...]
    hits: np.ndarray  # per field, how many of its labels the text uses


def paper_scores(
    texts: Sequence[str],
    sentence_lists: Sequence[Sequence[str]],
    scorer: FieldScorer,
    readings: Sequence[TextVectors] | None = None,
) -> list[PaperScores]:
    """Score every field for many papers.

    A sentence's vector is pooled from its paper's one model pass
    (:func:`~kg.extract.pooling.sentence_vectors`): the sentence in context,
    at no further model cost. ``readings`` are the papers' passes when the
    caller has made them already (else they are made here).
    """
    if len(texts) != len(sentence_lists):
        raise ValueError("texts and sentence_lists must have the same length")
    sents = [tuple(s) if s else (t,) for t, s in zip(texts, sentence_lists, strict=True)]
    if readings is None:
        readings = read(scorer.embedder, list(texts))
    sent_vecs = sentence_vectors(scorer.embedder, readings, sents)
    out = []
    for text, reading, vectors, group in zip(texts, readings, sent_vecs, sents, strict=True):
        hits = scorer.lexical_hits(text)
        raw, best = scorer.raw_scores(reading.vector, vectors, hits)
        out.append(PaperScores(reading.vector, raw, best, group, hits))
    return out


def _topic_shares(raw: np.ndarray, group: list[int]) -> np.ndarray:
    """How an area's probability divides among the area itself and each of its topics.

    A softmax over the zero-shot scores of the area and its topics, at the
    temperature the zero-shot area ranking uses: a topic that fits much better
    than its siblings takes most of its area's probability, and the area
    itself keeps the share no topic claims.
    """
    return np.asarray(softmax(raw[group] / _TEMPERATURE))


def _choose(
    scorer: FieldScorer, scores: PaperScores, top_k: int, min_score: float
) -> list[tuple[str, float, str]]:
    """The paper's fields: its likeliest areas, their likeliest topics, fields it names.

    An area scores its probability; a topic its area's probability times its
    share of it (:func:`_topic_shares`), so topics have their own scores. Every
    field kept scores at least ``min_score``, except the best area, which is
    kept unless the abstract lies outside the taxonomy: the domain model finds it not
    about machine learning, or it is far from every field (``_OUTSIDE_RAW``,
    ``_OUTSIDE_PROB``).
    """
    tax = scorer.taxonomy
    raw, best_sent, sentences = scores.raw, scores.best_sentence, scores.sentences
    if scorer.domain_model is not None and not scorer.domain_model.inside(scores.doc):
        return []  # not about machine learning: no area of the taxonomy applies
    probs = scorer.area_probabilities(scores.doc, raw)
    if raw.max(initial=0.0) < _OUTSIDE_RAW and probs.max(initial=0.0) < _OUTSIDE_PROB:
        return []  # outside every field of the taxonomy: better none than a wrong one
    score = np.zeros(len(tax.fields))
    for a, group in enumerate(scorer._area_groups):
        score[group] = probs[a] * _topic_shares(raw, group)
        score[group[0]] = probs[a]
    out: list[tuple[str, float, str]] = []
    for rank, a in enumerate(np.argsort(-probs, kind="stable")[: max(1, top_k)]):
        if rank > 0 and probs[a] < min_score:
            break
        area, *topics = scorer._area_groups[a]
        for i in sorted(topics, key=lambda i: (-score[i], i))[:_TOPICS_PER_AREA]:
            if score[i] >= min_score:
                out.append((tax.fields[i].key, float(score[i]), sentences[best_sent[i]]))
        out.append((tax.fields[area].key, float(probs[a]), sentences[best_sent[area]]))
    # A field the abstract names ("we study federated learning") is a field of
    # the paper when its own score clears the floor, even if its area ranks low.
    chosen = {key for key, _, _ in out}
    named = [
        i
        for i, f in enumerate(tax.fields)
        if scores.hits[i] > 0 and f.key not in chosen and score[i] >= min_score
    ]
    for i in sorted(named, key=lambda i: (-raw[i], i))[:_MAX_NAMED]:
        said = next(
            (s for s in sentences if any(p.search(s) for p in scorer.patterns[i])),
            sentences[best_sent[i]],
        )
        out.append((tax.fields[i].key, float(score[i]), said))
    return out


def assign_fields_batch(
    texts: Sequence[str],
    sentence_lists: Sequence[Sequence[str]],
    scorer: FieldScorer,
    top_k: int = 3,
    min_score: float = 0.0,
    readings: Sequence[TextVectors] | None = None,
) -> list[list[tuple[str, float, str]]]:
    """:func:`assign_fields` for many papers, one model pass each.

    Args:
        texts: Each paper's text (title and abstract).
        sentence_lists: Each paper's sentences, the candidates for evidence;
            an empty list means the whole text is the only sentence.
        scorer: From :meth:`FieldScorer.from_taxonomy`.
        top_k: Most broad areas per paper.
        min_score: Areas after the first need at least this probability.
        readings: The texts' model passes, if made already.

    Returns:
        Per paper, ``(field_key, score, sentence)`` best first; see
        :func:`assign_fields`.
    """
    return [
        _choose(scorer, s, top_k, min_score)
        for s in paper_scores(texts, sentence_lists, scorer, readings)
    ]


def assign_fields(
    text: str,
    sentences: Sequence[str],
    scorer: FieldScorer,
    top_k: int = 3,
    min_score: float = 0.0,
) -> list[tuple[str, float, str]]:
    """The fields of one paper, best first.

    Returns up to ``top_k`` broad areas, each preceded by its best narrower
    topic when that topic matches at least as well as the area itself, then
    up to three more fields (areas or topics) that the text names by a label
    or alt label. Each
    item is ``(field_key, score, sentence)``: the score in [0, 1] is the
    area's probability (a topic carries its area's score), and the sentence
    is the one most similar to that field. The best area is returned unless the
    abstract lies outside the taxonomy (then nothing is); the others only with a
    probability of at least ``min_score``.
    """
    return assign_fields_batch([text], [sentences], scorer, top_k, min_score)[0]
