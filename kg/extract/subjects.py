"""What an analysis paper says it studies: "We study the complexity of X".

A paper that proposes nothing names its subject where it says what it studies,
investigates, analyzes, examines, characterizes, revisits or focuses on. The subject starts
past what names an aspect of it ("the sample complexity of", "the problem of",
"the existence of") and takes the object of a process noun ("smoothed agnostic
learning of halfspaces"). Pure text logic, used by :mod:`kg.extract.candidates`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection

from kg.extract.phrases import (
    DETERMINERS,
    LOOSE_MAX_WORDS,
    chunks,
    is_adverb,
    is_generic,
    kind_word,
    tokens,
    trim,
)
from kg.lexicon import GENERIC_NOUNS, STOP_WORDS, looks_like_name, singular

__all__ = ["studied_at", "studied_subject", "names_process"]

# What an analysis paper is about: "We study X", "this paper investigates X", "we then
# analyze X", "we focus on X". Its subject is the paper's problem (or the method it examines).
_STUDY_CUE = re.compile(
    r"\b(?:we|this (?:paper|work|study)|our (?:paper|work))\s+(?:(?!not\b|never\b)\w+\s+){0,2}?"
    r"(?:study|studies|investigate|investigates|analy[sz]e|analy[sz]es|examine|examines|"
    r"characteri[sz]e|characteri[sz]es|revisit|revisits|focus\s+on|focuses\s+on)\s+",
    re.IGNORECASE,
)
# Endings of nouns that name a process ("learning", "optimization", "alignment"): what
# follows their "of" is their object, part of the term ("learning of halfspaces").
_PROCESS_ENDINGS = ("ing", "tion", "sion", "ment", "sis")


def _no_term(phrase: str) -> bool:
    """No phrase is a fixed term (the default of :func:`studied_subject`)."""
    return False


def studied_at(sentence: str) -> int | None:
    """Where the subject of "we study ..." starts: past determiners, and past what names an
    aspect of it, with its "of" ("the complexity of", "the sample complexity of", "the
    problem of"; not a process: "the learning of X" is the subject).

    >>> s = "We study the complexity of smoothed agnostic learning of halfspaces."
    >>> s[studied_at(s):]
    'smoothed agnostic learning of halfspaces.'
    >>> studied_at("These models study nothing.") is None
    True
    """
    cue = _STUDY_CUE.search(sentence)
    if cue is None:
        return None
    found = tokens(sentence[cue.end() :])
    i = 0
    while i < len(found) and found[i][0].lower() in DETERMINERS:
        i += 1
    words = [t.lower() for t, _, _ in found]
    of = next((j for j in range(i + 1, min(i + 4, len(words))) if words[j] == "of"), None)
    if of is not None and not set(words[i:of]) & STOP_WORDS and not names_process(words[of - 1]):
        i = of + 1  # "the (sample) complexity of X", "the brittleness of X": X
        while i < len(found) and words[i] in DETERMINERS:
            i += 1
    return cue.end() + found[i][1] if i < len(found) else None


def names_process(noun: str) -> bool:
    """Whether a noun names a process, whose "of" takes its object ("estimation of X"), not
    an aspect of what follows ("the complexity of X", "the problem of X").

    >>> [names_process(w) for w in ("learning", "optimization", "brittleness", "problem")]
    [True, True, False, False]
    """
    low = noun.lower()
    return low.endswith(_PROCESS_ENDINGS) and singular(low) not in GENERIC_NOUNS


def studied_subject(
    sentence: str, fixed: Callable[[str], bool] = _no_term, defined: Collection[str] = ()
) -> list[str] | None:
    """The words of what the sentence says the paper studies, with the object of a process
    ("learning of halfspaces"); ``fixed`` tells a term whose weak modifier stays ("optimal
    transport"), ``defined`` the acronyms the abstract defines.

    >>> studied_subject("We study the complexity of smoothed agnostic learning of halfspaces.")
    ['smoothed', 'agnostic', 'learning', 'of', 'halfspaces']
    >>> studied_subject("We study the existence of uniformly optimal stationary policies.")
    ['uniformly', 'optimal', 'stationary', 'policies']
    >>> studied_subject("We study fairness in ranking.") is None
    True
    >>> studied_subject("We then investigate the finite case.") is None
    True
    >>> studied_subject("We study the stochastic multi-armed bandit problem.")
    ['stochastic', 'multi-armed', 'bandit']
    >>> studied_subject("We study fully connected, convolutional and recurrent networks.") is None
    True
    """
    start = studied_at(sentence)
    if start is None:
        return None
    subject, whole, end = _subject(sentence[start:], fixed)
    if len(subject) > LOOSE_MAX_WORDS:
        return None  # a run of nouns this long is no keyword
    process = len(subject) > 1 and names_process(subject[-1])  # not "the optimization of X"
    if whole and process and (of := re.match(r"\s+of\s+", sentence[start + end :])):
        tail, _, _ = _subject(sentence[start + end + of.end() :], fixed)
        joined = " ".join([*subject, "of", *tail])
        if tail and len(tail) <= LOOSE_MAX_WORDS and joined in sentence:  # as written
            subject = joined.split()
    while len(subject) > 1 and kind_word(subject[-1]):
        subject = subject[:-1]  # "the stochastic multi-armed bandit problem"
    named = any(looks_like_name(w) or w in defined for w in subject)
    if (
        not subject
        or is_generic(" ".join(subject))
        or " ".join(subject) not in sentence
        or not (named or len(subject) > 1)
        or (is_adverb(subject[0]) and len(subject) < 3)
    ):
        return None  # "fairness", "the finite case", "fully connected", no phrase as written
    return subject


def _subject(text: str, fixed: Callable[[str], bool]) -> tuple[list[str], bool, int]:
    """The noun phrase ``text`` starts with: its words (trimmed as a candidate is, but a
    leading term adverb stays: "uniformly optimal policies"), whether they run to its end,
    and where in ``text`` it ends."""
    runs, found = chunks(text), tokens(text)
    if not runs or not found or runs[0][0] != found[0][0]:
        return [], False, 0
    run = runs[0]
    if is_adverb(run[0]):  # "uniformly optimal policies": trimmed at its end only
        words = run[:1] + _trim_end(run[1:])
    else:
        words = run if fixed(" ".join(run)) else trim(run)
    whole = bool(words) and words[-1] == run[-1]
    return words, whole, found[len(run) - 1][2]


def _trim_end(words: list[str]) -> list[str]:
    """``words`` less what :func:`trim` drops at the end ("fully connected": "fully")."""
    while words and not trim(words[-1:]):
        words = words[:-1]
    return words
