"""A paper's scored candidates -> its methods and problems (the mentions it keeps).

The classifier's probabilities decide each candidate's kind; the wording can
overrule it where it is explicit ("we propose GINOP", a problem's head noun),
and every paper keeps at least one method and one problem.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from kg.extract.candidates import Candidate
from kg.extract.classify import CLASSES, CandidateClassifier
from kg.extract.phrases import is_generic, names_quantity, occurrences, trim
from kg.lexicon import (
    CLASS_NOUNS,
    KIND_NOUNS,
    class_member,
    head,
    is_general_word,
    is_umbrella,
    looks_like_name,
    singular,
    variant_key,
)
from kg.model import AUTHOR_KEYWORD, Kind, Mention, Role

__all__ = [
    "Scored",
    "CandidateTable",
    "classified",
    "select_mentions",
    "weak_mentions",
    "WEAK_FLOOR",
    "folded",
    "select_links",
]

# Heads that say what kind of thing a phrase is: "framework", "method", "strategy".
_KINDS_OF_THING = KIND_NOUNS | {singular(w) for w in CLASS_NOUNS}
# A phrase the classifier finds this likely to be a concept keeps the kind its wording gives.
_CUED_ENTITY = 0.5
# ... unless the kind model gives the other kind at least this share of method and problem
# ("X accelerates decoding" reads like a task where X is a method). Not for what the paper
# says it proposes or studies. 0.8 types more links as the reader's index lists them than 0.9
# on each of its three parts (and than 0.7 on the third), and SciERC's methods too
# (measurement-log, 2026-12-07).
_CUE_OVERRULED = 0.8
# How often a name the paper says it proposes ("we propose GINOP") is a gold
# Method when the classifier doubts it (probability < 0.5): 21 of 30 on the
# first 350 SciERC training abstracts (bench/proposed_names.py). The
# classifier's own probability there averages 0.30, so it is the floor.
_PROPOSED_NAME = 0.7
# An author keyword the paper uses, or lists, is a concept of the paper at
# least this likely: its authors say so (the kind may still be wrong).
_AUTHOR_KEYWORD = 0.8
# A phrase of the title is a concept of the paper if the classifier finds it at
# least this likely a concept at all, whatever it thinks of its kind: titles
# name a paper's main concepts. On Inspec train the title phrases this adds
# are as often keyphrases as the phrases kept without them (0.46 at 10).
_TITLE_FLOOR = 0.1
# What a paper says it studies ("We study the complexity of X") is a concept of the paper
# if the classifier finds it at least this likely a concept at all (as a title's phrase).
_STUDIED_FLOOR = _TITLE_FLOOR
# A phrase the paper mentions but does not keep is passed on as a weak mention
# (a link only if other papers mention it too) when it is at least this likely
# a method or problem.
WEAK_FLOOR = 0.05
# A kind no phrase passes still gets its likeliest phrase, but only if the
# classifier gives it at least this probability: below it, the phrase is more
# likely a wrong concept than a right one ("human judgements" at 0.03).
_FALLBACK_FLOOR = 0.1
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
    entity: float = 0.0  # the classifier's probability that it is a method or problem
    likeliest: Kind | None = None  # the kind it would be, were it a concept


@dataclass(frozen=True)
class CandidateTable:
    """A paper's selectable candidates with their relevance and feature rows."""

    candidates: list[Candidate]
    relevance: list[float]
    features: np.ndarray
    titled: bool = False  # the paper's first sentence is its title


def classified(table: CandidateTable, classifier: CandidateClassifier) -> list[Scored]:
    """Type candidates by the classifier; a kind nobody passes gets its likeliest phrase.

    That likeliest phrase is kept only above :data:`_FALLBACK_FLOOR`, so a paper that
    names no problem gets none rather than a wrong one.

    A phrase the paper says it proposes stays a method whatever the classifier thinks of
    its kind, with the probability that it is a concept at all; for a name (GINOP,
    Dual-MTP) that is at least how often such names are methods; a proposed quantity, loss
    or objective is no method. What the paper says it studies ("we study X") is its
    subject, typed by its wording, above :data:`_STUDIED_FLOOR`.
    """
    cands = table.candidates
    if not cands:
        return []
    P = classifier.probabilities(table.features)
    columns = {Kind.METHOD: CLASSES.index("method"), Kind.PROBLEM: CLASSES.index("problem")}
    quantity = [names_quantity(c.text) for c in cands]
    scored = [
        _typed(c, table.relevance[i], P[i], columns, quantity[i], classifier, table.titled)
        for i, c in enumerate(cands)
    ]
    for kind, column in columns.items():
        if not any(s.kind is kind for s in scored):
            free = [i for i, s in enumerate(scored) if s.kind is None and not quantity[i]]
            spare = [
                i for i, s in enumerate(scored) if not s.candidate.proposed and not quantity[i]
            ]
            cued = [i for i in free if cands[i].cue is kind] or free or spare
            best = max(cued, key=lambda i: P[i, column], default=None)
            if best is not None and P[best, column] >= _FALLBACK_FLOOR:
                s = scored[best]
                scored[best] = Scored(
                    s.candidate, s.relevance, kind, float(P[best, column]), s.entity, kind
                )
    return scored


def _typed(
    c: Candidate,
    relevance: float,
    p: np.ndarray,
    columns: dict[Kind, int],
    quantity: bool,
    classifier: CandidateClassifier,
    titled: bool = False,
) -> Scored:
    """One candidate's kind and probability, from the classifier and the wording.

    An umbrella (:func:`kg.lexicon.is_umbrella`) is a concept of the paper only
    where the paper makes it one: it says it proposes it, or its authors list it. A
    title that names one ("… in Large Language Models") does not.
    """
    entity = float(1.0 - p[0])
    likeliest, column = max(columns.items(), key=lambda kv: p[kv[1]])
    prob = float(p[column])
    kind: Kind | None = likeliest
    worded = c.cue  # the kind the wording gives, unless the kind model is sure of the other
    proposed = c.proposed and c.cue is Kind.METHOD
    if worded is not None and not (c.studied or proposed) and prob >= _CUE_OVERRULED * entity:
        worded = likeliest  # (also the kind a weak mention takes)
    if quantity:
        kind = None  # a bound, loss or assumption is neither method nor problem, proposed or not
    elif proposed:
        named = any(looks_like_name(w) for w in c.text.split())
        kind, prob = Kind.METHOD, max(entity, _PROPOSED_NAME) if named else entity
    elif c.studied and entity >= _STUDIED_FLOOR:
        kind, prob = worded or likeliest, entity  # what the paper studies: its subject
    elif worded is not None and entity >= _CUED_ENTITY:
        kind, prob = worded, entity  # a concept the wording types: trust the wording
    elif prob < classifier.thresholds[likeliest.value]:
        if titled and c.sentence == 0 and entity >= _TITLE_FLOOR:
            prob = entity  # the title names it: a concept as likely as it is one at all
        else:
            kind = None
    if (c.free_modifier or c.modifier) and not c.keyword:
        kind = None  # "standard optimisers": its rest may be a concept, it is not
    if c.compared and not (c.proposed or c.keyword):
        kind = None  # "outperforms beam search": a baseline, at most a weak mention
    if c.prior and kind is Kind.METHOD and not (c.proposed or c.keyword):
        kind = None  # "existing methods rely on X": others' method, at most a weak mention
    if _kind_then_name(c.text):
        kind = None  # "a framework Kite-2": the name is the concept, "framework" says what
    if kind is not None and " " not in c.text and c.cue is None and not c.proposed:
        kind = None  # a lone word with nothing typing it ("sparsity"): at most a weak mention
    if is_general_word(c.text) and not c.keyword:
        kind = None  # "space", "token": general English, never a concept alone
    member = class_member(c.text)  # "gradient boosting algorithms": gradient boosting
    if member is not None and member != c.text:
        if trim(member.split()) != member.split():
            member = None  # "core statistical mechanisms": "core statistical" names nothing
        else:
            c = replace(c, text=member)
    own = c.keyword or c.proposed
    if (member is None or is_umbrella(c.expansion or c.text)) and not own:
        kind = None  # "LLMs", "bandit algorithms": over many papers' concepts, not this one's
    if c.keyword and not quantity:  # the authors say it is a concept of their paper
        kind = kind or c.cue or likeliest
        prob = max(prob, _AUTHOR_KEYWORD)
    return Scored(c, relevance, kind, prob, entity, worded or likeliest)


def _kind_then_name(text: str) -> bool:
    """A kind noun and a name: "framework Kite-2", "algorithm Zappa"."""
    words = text.split()
    return (
        len(words) == 2 and singular(words[0]).lower() in KIND_NOUNS and looks_like_name(words[1])
    )


def _overlaps(a: str, b: str) -> bool:
    """One phrase's words (singular) are all in the other ("generative model(s)", "SGD
    noise"), or the two are one phrase written two ways ("non-convex" and "nonconvex",
    "data-curation" and "data curation")."""
    wa, wb = ({singular(w).lower() for w in x.split()} for x in (a, b))
    return wa <= wb or wb <= wa or variant_key(a) == variant_key(b)


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

    Proposed names come first, then phrases by the classifier's probability (by relevance
    without a classifier); a phrase that is part of (or contains) one already chosen of the
    same kind is skipped, and so is a plain phrase inside a chosen phrase of the other kind.

    Args:
        limits: Most mentions kept per kind (methods, problems).
        min_relevance: Candidates less similar than this to the abstract are dropped unless
            nothing else of their kind is left.
    """
    return [m for m, _ in select_links(scored, sentences, limits, min_relevance)]


def select_links(
    scored: list[Scored],
    sentences: Sequence[str],
    limits: dict[Kind, int],
    min_relevance: float,
) -> list[tuple[Mention, int]]:
    """:func:`select_mentions`, each with the row of ``scored`` it was made from.

    A mention's phrase may be no candidate's ("model merging" of "model merging approaches"),
    and one phrase may be a method in one row and a problem in another, so the row is what
    tells which candidate it is.
    """
    if not scored:
        return []
    top = max(s.relevance for s in scored) or 1.0
    low = " ".join(sentences).lower()
    row = {id(s): i for i, s in enumerate(scored)}
    made_from: dict[int, int] = {}  # id of a mention -> its row
    mentions: list[Mention] = []
    for kind, limit in limits.items():
        pool = [s for s in scored if s.kind is kind and not _cut_before_of(s.candidate.text, low)]
        strong = [s for s in pool if s.relevance >= min_relevance or _proposed_name(s)] or pool
        for s in _chosen(sorted(strong, key=_priority), limit, mentions):
            mention = _mention(s, kind, sentences, top)
            made_from[id(mention)] = row[id(s)]
            mentions.append(mention)
    kept = folded(_without_descriptors(_without_fragments(mentions)), [], " ".join(sentences))
    return [(m, made_from[id(m)]) for m in kept]


def _proposed_name(s: Scored) -> bool:
    """A name the paper says it proposes ("we propose Zorblax"): its contribution however
    little the model's vector of a new word says (a new name's relevance is noise)."""
    text = s.candidate.text
    return s.candidate.proposed and (" " not in text or any(map(looks_like_name, text.split())))


def _cut_before_of(phrase: str, low: str) -> bool:
    """Whether the text only ever writes ``phrase`` as the start of "``phrase`` of ...".

    "hierarchical mixture" in a text that only says "hierarchical mixture of
    experts", or "principled estimation" of "principled estimation of
    epistemic uncertainty": the phrase is cut short of what it names.
    """
    found = [
        m.group(1)
        for m in re.finditer(rf"(?<![\w-]){re.escape(phrase.lower())}(?![\w-])( of\b)?", low)
    ]
    return bool(found) and all(found)


def _without_descriptors(mentions: list[Mention]) -> list[Mention]:
    """Drop a proposed kind of thing beside the proposed thing that says which one.

    In "we propose Dual-MTP, a novel MTP training framework", the paper's
    method is Dual-MTP; "MTP training framework" only says what kind of thing
    it is (its head is a kind noun: framework, method, model, strategy).
    """

    def descriptor(m: Mention) -> bool:
        return m.role is Role.PROPOSES and head(m.text) in _KINDS_OF_THING

    which = {m.sentence for m in mentions if m.role is Role.PROPOSES and not descriptor(m)}
    return [m for m in mentions if not (descriptor(m) and m.sentence in which)]


def _priority(s: Scored) -> tuple[int, int, int, float, int, int, float, str]:
    """Proposed phrases first, the whole phrase before its parts, author keywords; then by
    probability."""
    c = s.candidate
    return (
        -int(c.proposed),
        -int(c.keyword),
        -len(c.text.split()) if c.proposed else 0,
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
        sentence=sentences[c.sentence] if c.sentence >= 0 else AUTHOR_KEYWORD,
        expansion=c.expansion,
    )


def weak_mentions(
    scored: list[Scored],
    sentences: Sequence[str],
    chosen: Sequence[Mention],
    floor: float = WEAK_FLOOR,
) -> list[Mention]:
    """The phrases a paper mentions but did not keep, if at least ``floor`` likely concepts.

    Each carries the kind it would most likely have and its probability of being a method
    or problem at all; :mod:`kg.concepts` links it only when another paper mentions it too.
    """
    taken = {variant_key(m.text) for m in chosen} | {
        variant_key(m.expansion) for m in chosen if m.expansion
    }
    out = []
    low = " ".join(sentences).lower()
    for s in scored:
        c = s.candidate
        if s.entity < floor or s.likeliest is None or c.sentence < 0:
            continue
        if variant_key(c.text) in taken or names_quantity(c.text) or is_generic(c.text):
            continue
        if c.free_modifier or c.modifier:
            continue
        if _cut_before_of(c.text, low):
            continue
        taken.add(variant_key(c.text))
        if is_general_word(c.text) or is_umbrella(c.expansion or c.text):
            continue
        role = Role.ADDRESSES if s.likeliest is Kind.PROBLEM else Role.USES
        out.append(
            Mention(c.text, role, round(s.entity, 4), sentences[c.sentence], c.expansion, False)
        )
    return folded(out, chosen, " ".join(sentences))


def folded(mentions: list[Mention], longer: Sequence[Mention], text: str) -> list[Mention]:
    """``mentions`` less the fragments: phrases the text only uses inside a longer one.

    "Thompson" in an abstract that only ever writes "Thompson Sampling" is part
    of that concept, not one of its own; the longer phrases are the other
    ``mentions`` and ``longer``. A phrase the text also uses on its own stays.
    """
    low = text.lower()
    pool = [*mentions, *longer]
    out = []
    for m in mentions:
        short = m.text.lower()
        hosts = {o.text.lower() for o in pool if _contains(o.text.lower(), short)}
        inside = sum(occurrences(h, low) for h in hosts)
        if not hosts or occurrences(short, low) > inside:
            out.append(m)
    return out


def _contains(long: str, short: str) -> bool:
    return long != short and f" {short} " in f" {long} "


def _without_fragments(mentions: list[Mention]) -> list[Mention]:
    """Drop a phrase that is part of another chosen one, if its kind keeps a mention."""
    kept = list(mentions)
    for m in mentions:
        if any(_inside(m.text, other.text) for other in kept) and (
            sum(k.kind is m.kind for k in kept) > 1
        ):
            kept.remove(m)
    return kept
