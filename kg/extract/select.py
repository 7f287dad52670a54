"""A paper's scored candidates -> its methods and problems (the mentions it keeps).

The classifier's probabilities decide each candidate's kind; the wording can
overrule it where it is explicit ("we propose GINOP", a problem's head noun),
and every paper keeps at least one method and one problem.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from kg.extract.candidates import Candidate
from kg.extract.classify import CLASSES, CandidateClassifier
from kg.extract.phrases import names_quantity
from kg.lexicon import METHOD_NAME_HEADS, PROBLEM_HEADS, head, looks_like_name
from kg.model import Kind, Mention, Role

__all__ = ["Scored", "CandidateTable", "classified", "merge_acronyms", "select_mentions"]

# A phrase the classifier finds this likely to be a concept keeps the kind its wording gives.
_CUED_ENTITY = 0.5
# How often a name the paper says it proposes ("we propose GINOP") is a gold
# Method when the classifier doubts it (probability < 0.5): 21 of 30 on the
# first 350 SciERC training abstracts (bench/proposed_names.py). The
# classifier's own probability there averages 0.30, so it is the floor.
_PROPOSED_NAME = 0.7
# Without a classifier (rules only), a confidence is this blend of the phrase's
# relevance (relative to the paper's best) and whether its wording agrees with
# its kind (1) or says nothing (0.5).
_RELEVANCE_SHARE = 0.5
_NO_CUE = 0.5


@dataclass(frozen=True)
class Scored:
    """A candidate with its relevance, the kind it is given and how likely that kind is."""

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


def classified(table: CandidateTable, classifier: CandidateClassifier) -> list[Scored]:
    """Type candidates by the classifier; a kind nobody passes gets its likeliest phrase.

    A phrase the paper says it proposes stays a method whatever the classifier
    thinks of its kind, with the probability that it is a concept at all; for
    a name (GINOP, Dual-MTP) that is at least how often such names are methods.
    """
    cands = table.candidates
    if not cands:
        return []
    P = classifier.probabilities(table.features)
    columns = {Kind.METHOD: CLASSES.index("method"), Kind.PROBLEM: CLASSES.index("problem")}
    quantity = [names_quantity(c.text) for c in cands]
    scored = [
        _typed(c, table.relevance[i], P[i], columns, quantity[i], classifier)
        for i, c in enumerate(cands)
    ]
    for kind, column in columns.items():
        if not any(s.kind is kind for s in scored):
            free = [i for i, s in enumerate(scored) if s.kind is None and not quantity[i]]
            spare = [
                i for i, s in enumerate(scored) if not s.candidate.proposed and not quantity[i]
            ]
            cued = [i for i in free if cands[i].cue is kind] or free or spare
            if cued:
                best = max(cued, key=lambda i: P[i, column])
                scored[best] = Scored(
                    cands[best], table.relevance[best], kind, float(P[best, column])
                )
    return scored


def _typed(
    c: Candidate,
    relevance: float,
    p: np.ndarray,
    columns: dict[Kind, int],
    quantity: bool,
    classifier: CandidateClassifier,
) -> Scored:
    """One candidate's kind and probability, from the classifier and the wording."""
    entity = float(1.0 - p[0])
    likeliest, column = max(columns.items(), key=lambda kv: p[kv[1]])
    prob = float(p[column])
    kind: Kind | None = likeliest
    if c.proposed and c.cue is Kind.METHOD:
        named = any(looks_like_name(w) for w in c.text.split())
        kind, prob = Kind.METHOD, max(entity, _PROPOSED_NAME) if named else entity
    elif quantity:
        kind = None  # a bound, rate or assumption is neither method nor problem
    elif c.cue is not None and entity >= _CUED_ENTITY:
        kind, prob = c.cue, entity  # a concept the wording types: trust the wording
    elif prob < classifier.thresholds[likeliest.value]:
        kind = None
    return Scored(c, relevance, kind, prob)


def merge_acronyms(cands: list[Candidate]) -> list[Candidate]:
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


def _acronym_kind(expansion: str) -> Kind:
    """An abbreviated name is a method unless its expansion names a task."""
    h = head(expansion)
    if h in PROBLEM_HEADS and h not in METHOD_NAME_HEADS:
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
    scored: list[Scored],
    sentences: Sequence[str],
    limits: dict[Kind, int],
    min_relevance: float,
) -> list[Mention]:
    """Pick the methods and problems of one paper from its scored candidates.

    Proposed names come first, then phrases by the classifier's probability
    (by relevance without a classifier); a phrase that is part of (or
    contains) one already chosen of the same kind is skipped, and so is a
    plain phrase inside a chosen phrase of the other kind.

    Args:
        limits: Most mentions kept per kind (methods, problems).
        min_relevance: Candidates less similar than this to the abstract are
            dropped unless nothing else of their kind is left.
    """
    if not scored:
        return []
    top = max(s.relevance for s in scored) or 1.0
    mentions: list[Mention] = []
    for kind, limit in limits.items():
        pool = [s for s in scored if s.kind is kind]
        strong = [s for s in pool if s.relevance >= min_relevance] or pool
        for s in _chosen(sorted(strong, key=_priority), limit, mentions):
            mentions.append(_mention(s, kind, sentences, top))
    return _without_fragments(mentions)


def _priority(s: Scored) -> tuple[int, float, int, int, float, str]:
    c = s.candidate
    return (
        -int(c.proposed),
        -(s.prob or 0.0),
        -int(any(looks_like_name(w) for w in c.text.split())),
        -int(c.expansion is not None),
        -s.relevance,
        c.text,
    )


def _chosen(ranked: list[Scored], limit: int, mentions: list[Mention]) -> list[Scored]:
    """The best ``limit`` phrases that do not repeat each other or an earlier mention."""
    chosen: list[Scored] = []
    for s in ranked:
        if len(chosen) >= limit:
            break
        if any(_overlaps(s.candidate.text, c.candidate.text) for c in chosen):
            continue
        if any(_inside(s.candidate.text, m.text) for m in mentions):
            continue  # "heavy-tailed gradient" inside the problem "heavy-tailed gradient noise"
        chosen.append(s)
    if not chosen and ranked:  # every paper names at least one of each kind
        chosen.append(ranked[0])
    return chosen


def _mention(s: Scored, kind: Kind, sentences: Sequence[str], top: float) -> Mention:
    c = s.candidate
    role = Role.PROPOSES if c.proposed else Role.USES
    if kind is Kind.PROBLEM:
        role = Role.ADDRESSES
    if s.prob is not None:
        confidence = s.prob
    else:  # rules only: relevance, and whether wording agrees with the kind
        agrees = 1.0 if c.cue is kind else _NO_CUE
        confidence = _RELEVANCE_SHARE * (s.relevance / top) + (1 - _RELEVANCE_SHARE) * agrees
    return Mention(
        text=c.text,
        role=role,
        score=round(min(1.0, max(0.0, confidence)), 4),
        sentence=sentences[c.sentence],
        expansion=c.expansion,
    )


def _without_fragments(mentions: list[Mention]) -> list[Mention]:
    """Drop a phrase that is part of another chosen one, if its kind keeps a mention."""
    kept = list(mentions)
    for m in mentions:
        if any(_inside(m.text, other.text) for other in kept) and (
            sum(k.kind is m.kind for k in kept) > 1
        ):
            kept.remove(m)
    return kept
