"""Keyphrase benchmarks scored as the literature scores them (Inspec, SemEval-2017).

Protocol (Hulth 2003; Kim et al. 2010; MDERank and PromptRank use it): every
phrase is lower-cased, split into words at anything that is not a letter or
digit, and each word Porter-stemmed (NLTK's stemmer); a prediction matches a
gold keyphrase when the stemmed phrases are equal. F1@k takes a paper's first
``k`` predictions, best first, with stemmed duplicates removed; counts are
pooled over papers (micro-averaged), and gold keyphrases that do not occur in
the text still count in recall.

*Candidate recall* asks how many of the gold keyphrases that do occur in the
text, word for word after stemming, are among a system's candidates at all:
what no ranking can recover is lost there. For typed gold (SciERC), scored by
kg eval's lenient matching rule, :func:`lenient_candidate_recall` asks the
same under that rule.

>>> stemmed("Efficient Retrieval Selection Algorithms")
'effici retriev select algorithm'
>>> at_k(["video servers", "video server", "response time"], ["Video server"], 2)
Counts(papers=1, gold=1, predicted=2, matched=1)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

from kg.evaluate.counts import Counts
from kg.text import PTB

__all__ = ["stemmed", "at_k", "verbatim", "candidate_recall", "lenient_candidate_recall"]

_WORD = re.compile(r"[^\W_]+")


@lru_cache(maxsize=1)
def _stemmer():  # type: ignore[no-untyped-def]
    from nltk.stem.porter import PorterStemmer

    return PorterStemmer()


@lru_cache(maxsize=262144)
def _stem(word: str) -> str:
    return str(_stemmer().stem(word))


@lru_cache(maxsize=262144)
def stemmed(phrase: str) -> str:
    """The form phrases are compared in: lower case, words Porter-stemmed."""
    for token, plain in PTB.items():
        phrase = phrase.replace(token, plain)
    return " ".join(_stem(w) for w in _WORD.findall(phrase.lower()))


def _unique(phrases: Iterable[str]) -> list[str]:
    seen: dict[str, None] = {}
    for p in phrases:
        s = stemmed(p)
        if s:
            seen.setdefault(s, None)
    return list(seen)


def at_k(ranked: Sequence[str], gold: Sequence[str], k: int) -> Counts:
    """One paper's counts for F1@k: its first ``k`` distinct predictions against its gold."""
    predicted = _unique(ranked)[:k]
    wanted = set(_unique(gold))
    return Counts(1, len(wanted), len(predicted), len(wanted.intersection(predicted)))


def verbatim(gold: Sequence[str], text: str) -> list[str]:
    """The stemmed gold keyphrases that occur in ``text`` word for word (after stemming)."""
    body = f" {stemmed(text)} "
    return [g for g in _unique(gold) if f" {g} " in body]


def candidate_recall(candidates: Iterable[str], gold: Sequence[str], text: str) -> Counts:
    """How many of the gold keyphrases found in ``text`` are among ``candidates``.

    ``gold`` counts the verbatim gold phrases, ``predicted`` the distinct
    candidates and ``matched`` the verbatim gold phrases among them.
    """
    found = verbatim(gold, text)
    have = set(_unique(candidates))
    return Counts(1, len(found), len(have), sum(g in have for g in found))


def lenient_candidate_recall(candidates: Iterable[str], gold: Sequence[str], text: str) -> Counts:
    """:func:`candidate_recall` under kg eval's matching rule (:mod:`kg.evaluate.matching`).

    A gold concept is in the text when its stemmed form is (as for
    :func:`verbatim`); it is among the candidates when one of them names the
    same concept.
    """
    from kg.evaluate.matching import same_concept, unique_gold

    body = f" {stemmed(text)} "
    found = [g for g, _ in unique_gold(gold) if f" {stemmed(g)} " in body]
    have = sorted(set(candidates))
    return Counts(
        1, len(found), len(have), sum(any(same_concept(c, g) for c in have) for g in found)
    )
