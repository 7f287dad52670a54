"""Candidate concept phrases in an abstract, with the lexical cues that type them.

Pure text logic, no model: :mod:`kg.extract.phrases` cuts sentences into
phrases, :mod:`kg.extract.acronyms` finds acronym definitions, and this
module says what each phrase's wording and context suggest (a method's head
noun, "we propose X", "we address X"). The extractor ranks what comes out of
here with KeyBERT and the learned classifier decides the final types.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace

from kg.extract.acronyms import acronyms
from kg.extract.phrases import chunks, is_generic, spans, trim
from kg.lexicon import (
    GENERIC_NOUNS,
    METHOD_HEADS,
    PROBLEM_HEADS,
    head,
    looks_like_name,
    lower_case_words,
)
from kg.model import Kind

__all__ = ["Candidate", "candidates"]

_PROPOSE_CUE = re.compile(
    r"\b(?:we|this (?:paper|work)|our (?:paper|work))\s+(?:\w+\s+){0,3}?"
    r"(?:propose|proposes|introduce|introduces|present|presents|develop|develops|design|"
    r"designs|devise|devises|contribute|contributes|build|builds)\b",
    re.IGNORECASE,
)
_NAMING_CUE = re.compile(
    r"\b(?:call|calls|called|coin|coined|dub|dubbed|name|named|term|termed)\b", re.IGNORECASE
)
_PROBLEM_CUE = re.compile(
    r"\b(?:address|addresses|addressing|tackle|tackles|tackling|solve|solves|solving|"
    r"mitigate|mitigates|mitigating|overcome|overcomes|alleviate|alleviates|study|studies|"
    r"investigate|investigates|consider|considers|focus on|focuses on|challenge of|"
    r"problem of|task of|issue of|suffer from|suffers from|vulnerable to)\b",
    re.IGNORECASE,
)
_NAME_SLOT = re.compile(
    r"(?:propose[sd]?|introduce[sd]?|present[sd]?|call(?:ed)?|name[sd]?|dub(?:bed)?|term(?:ed)?)"
    r"\s+(?:(?:a|an|the|our|it|this|them)\s+)?(?:(?:new|novel|simple)\s+)?"
    r"([A-Z][\w\-]*(?:\s+[A-Z][\w\-]*){0,3})",
)
_WINDOW_STOP = re.compile(
    r"\s(?:based on|that|which|to|for|of|in|on|with|by|from|using|where|whose|and)\s|[;:()]"
)


@dataclass(frozen=True)
class Candidate:
    """A phrase as written in one sentence, with its typing cues.

    Attributes:
        text: The phrase as written.
        sentence: Index of the sentence it occurs in (first occurrence).
        cue: The kind its wording or context suggests, or None.
        proposed: True when the sentence says the paper introduces it.
        expansion: The long form, when the paper defines ``text`` as an acronym.
    """

    text: str
    sentence: int
    cue: Kind | None = None
    proposed: bool = False
    expansion: str | None = None


@dataclass(frozen=True)
class _Abstract:
    """What every sentence's candidates need to know about the whole abstract."""

    defined: dict[str, str]  # acronym -> expansion
    expansions: dict[str, str]  # lower-case expansion -> acronym
    terms: frozenset[str]  # established multi-word terms (lower case)
    lower_words: frozenset[str]  # words written in lower case somewhere


@dataclass(frozen=True)
class _Context:
    """Where in one sentence its cues put a phrase."""

    sentence: str
    propose: tuple[int, int] | None  # what a propose verb introduces
    naming: tuple[int, int] | None  # what "called"/"dubbed" introduces
    problem_from: int | None  # after "we address", "the problem of"

    @classmethod
    def of(cls, sentence: str) -> _Context:
        propose = naming = None
        if m := _PROPOSE_CUE.search(sentence):
            propose = (m.end() + 1, _window_end(sentence, m.end()))
        if m := _NAMING_CUE.search(sentence):
            naming = (m.end(), _window_end(sentence, m.end()))
        problem = _PROBLEM_CUE.search(sentence)
        return cls(sentence, propose, naming, problem.start() + 1 if problem else None)

    def introduces(self, position: int) -> bool:
        """Whether a phrase at ``position`` is what the sentence says the paper introduces."""
        return any(w is not None and w[0] <= position < w[1] for w in (self.propose, self.naming))


def candidates(
    sentences: list[str],
    max_words: int = 4,
    terms: frozenset[str] = frozenset(),
    ordinary: frozenset[str] = frozenset(),
) -> list[Candidate]:
    """Every candidate phrase of an abstract, first occurrence first.

    A phrase that starts with a weak modifier ("large", "deep") is normally
    trimmed away, but not when the whole phrase is an established term: one
    of ``terms`` (lower-case; kg passes its field labels, such as "large
    language models") or the expansion of an acronym the abstract defines.
    A capital at the start of a sentence is dropped from a word the abstract
    also writes in lower case, or that is one of ``ordinary`` (kg passes the
    words its field labels write in lower case, such as "neural").

    >>> [c.text for c in candidates(["SGD provably achieves last-iterate convergence."])]
    ['SGD', 'last-iterate', 'last-iterate convergence']
    """
    defined: dict[str, str] = {}
    for sentence in sentences:
        for short, long in acronyms(sentence).items():
            defined.setdefault(short, long)
    abstract = _Abstract(
        defined,
        {e.lower(): a for a, e in defined.items()},
        terms,
        lower_case_words(sentences) | ordinary,
    )
    seen: dict[str, Candidate] = {}
    for index, sentence in enumerate(sentences):
        context = _Context.of(sentence)
        for words in _phrases(sentence, max_words, abstract):
            key = " ".join(words).lower()
            if key not in seen:
                seen[key] = _candidate(words, index, context, abstract)
    return _share_proposal(seen, defined)


def _phrases(sentence: str, max_words: int, abstract: _Abstract) -> Iterator[list[str]]:
    """The sentence's phrases that survive trimming whole and are not generic."""
    for run in chunks(sentence):
        for span in spans(run, max_words):
            whole = " ".join(span).lower()
            fixed = whole in abstract.terms or whole in abstract.expansions
            words = span if fixed else trim(span)
            if words and len(words) == len(span) and not is_generic(" ".join(words)):
                yield words


def _candidate(words: list[str], index: int, context: _Context, abstract: _Abstract) -> Candidate:
    text = " ".join(words)
    sentence = context.sentence
    position = sentence.find(text)
    cue = _cue(text)
    if cue is None and _introduced_name(sentence, text):
        cue = Kind.METHOD
    if (
        cue is None
        and context.problem_from is not None
        and position >= context.problem_from
        and head(text) not in GENERIC_NOUNS
    ):
        cue = Kind.PROBLEM if len(words) > 1 else None
    acronym = text if text in abstract.defined else abstract.expansions.get(text.lower())
    introduced = context.introduces(position)
    if introduced and (acronym or looks_like_name(text)):
        cue = Kind.METHOD  # "a framework called Component-wise Replacement ..."
    in_naming = context.naming is not None and context.naming[0] <= position < context.naming[1]
    proposed = introduced and (cue is Kind.METHOD or acronym is not None or in_naming)
    first = words[0]
    if position == 0 and first[1:].islower() and first.lower() in abstract.lower_words:
        text = first.lower() + text[len(first) :]
    return Candidate(text, index, cue, proposed, abstract.defined.get(" ".join(words)))


def _cue(phrase: str) -> Kind | None:
    h = head(phrase)
    last = phrase.split()[-1]
    if h in GENERIC_NOUNS and h not in METHOD_HEADS | PROBLEM_HEADS:
        return None
    if h in PROBLEM_HEADS:
        return Kind.PROBLEM
    if h in METHOD_HEADS or any(looks_like_name(w) for w in phrase.split()):
        return Kind.METHOD
    if "-" in last and head(last.split("-")[-1]) in METHOD_HEADS:
        return Kind.METHOD
    return None


def _share_proposal(seen: dict[str, Candidate], defined: dict[str, str]) -> list[Candidate]:
    """An acronym is proposed when its expansion is, and the reverse."""
    for acr, exp in defined.items():
        pair = [seen.get(acr.lower()), seen.get(exp.lower())]
        if any(c and c.proposed for c in pair):
            for c in pair:
                if c and not c.proposed:
                    seen[c.text.lower()] = replace(c, proposed=True, cue=Kind.METHOD)
    return list(seen.values())


def _introduced_name(sentence: str, text: str) -> bool:
    """Whether the sentence introduces ``text`` by name: "we propose Curio, ..."."""
    return any(m.group(1) == text for m in _NAME_SLOT.finditer(sentence))


def _window_end(sentence: str, start: int) -> int:
    """End of what a propose verb introduces: the name and its appositive, not the rest.

    In "we propose Curio, an intrinsic reward based on the prediction error of a
    dynamics model", Curio and "intrinsic reward" are proposed, the model is not.
    """
    stop = _WINDOW_STOP.search(sentence, start)
    return stop.start() if stop else len(sentence)
