"""Candidate concept phrases in an abstract, with the lexical cues that type them.

Pure text logic, no model: :mod:`kg.extract.phrases` cuts sentences into
phrases, :mod:`kg.extract.acronyms` finds acronym definitions, and this
module says what each phrase's wording and context suggest (a method's head
noun, "we propose X", "we address X"). The extractor ranks what comes out of
here with KeyBERT and the learned classifier decides the final types.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from kg.extract.acronyms import acronyms
from kg.extract.phrases import (
    chunks,
    is_generic,
    is_weak,
    loose_chunks,
    span_bounds,
    spans,
    tokens,
    trim,
)
from kg.lexicon import (
    ESTABLISHED,
    GENERIC_NOUNS,
    KIND_NOUNS,
    METHOD_HEADS,
    METHOD_NAME_HEADS,
    PROBLEM_HEADS,
    STOP_WORDS,
    VERBS,
    head,
    is_fixed_term,
    looks_like_name,
    lower_case_words,
    singular,
    variant_key,
)
from kg.model import Kind

__all__ = ["Candidate", "candidates", "keyword_candidates", "merge_acronyms", "LOOSE_MAX_WORDS"]

#: The longest phrase taken from the wider, loose runs (:func:`loose_chunks`).
LOOSE_MAX_WORDS = 5

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
# How a proposed method is reached when the proposal names only a generic
# object: "a new framework for X via Y", "results using Y".
_MEANS = re.compile(r"\b(?:via|using|based on|by means of|through)\s", re.IGNORECASE)
_CLAUSE_END = re.compile(r"[;.]|,\s(?:which|where|in which|and we)\b")
# "Dropout is a technique for ...": a definition that presents the paper's method.
_DEFINITION = re.compile(
    r"^(?P<subject>[^,;:()]{2,60}?)\s+(?:is|are)\s+(?:an?|the)\s+(?P<adjectives>(?:[\w-]+\s+){0,3}?)"
    r"(?:technique|method|approach|framework|algorithm|procedure|strategy|scheme|architecture|"
    r"paradigm|model|regularizer|optimizer)s?\s+(?:for|that|to|which)\b",
    re.IGNORECASE,
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
        keyword: True when the phrase is one of the record's author keywords
            (``sentence`` is -1 when the text does not use it).
        loose: True when only the wider runs of :func:`loose_chunks` yield
            it: it may hold a participle ("simulated annealing") or be no
            phrase at all, which the learned ranker weighs.
        free_modifier: True when it starts with a weak modifier that is free
            here ("standard optimisers", not "optimal transport"): offered to
            the ranker, never a concept itself (its rest may be).
        modifier: True when every time the abstract writes it, more nouns of its
            phrase follow ("structured adapter" of "a structured adapter
            manifold"): it is cut short of what it names, so it is offered to the
            ranker, never a concept itself.
    """

    text: str
    sentence: int
    cue: Kind | None = None
    proposed: bool = False
    expansion: str | None = None
    keyword: bool = False
    loose: bool = False
    free_modifier: bool = False
    modifier: bool = False


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
    means: tuple[int, int] | None  # how a generic proposal works: "via Y", "using Y"
    definition: tuple[int, int] | None  # the subject of "X is a technique for ..."
    problem_from: int | None  # after "we address", "the problem of"

    @classmethod
    def of(cls, sentence: str) -> _Context:
        propose = naming = means = definition = None
        if m := _PROPOSE_CUE.search(sentence):
            propose = (m.end() + 1, _window_end(sentence, m.end()))
            if _generic_object(sentence[propose[0] : propose[1]]):
                means = _means_window(sentence, propose[1])
        if m := _NAMING_CUE.search(sentence):
            naming = (m.end(), _window_end(sentence, m.end(), naming=True))
        if (m := _DEFINITION.match(sentence)) and not (
            set(m.group("adjectives").lower().split()) & ESTABLISHED
        ):
            definition = (0, m.end("subject"))
        problem = _PROBLEM_CUE.search(sentence)
        return cls(
            sentence, propose, naming, means, definition, problem.start() + 1 if problem else None
        )

    def introduces(self, position: int) -> bool:
        """Whether a phrase at ``position`` is what the sentence says the paper introduces."""
        return any(
            w is not None and w[0] <= position < w[1]
            for w in (self.propose, self.naming, self.means)
        )

    def in_naming(self, position: int) -> bool:
        return self.naming is not None and self.naming[0] <= position < self.naming[1]

    def in_means(self, position: int) -> bool:
        return self.means is not None and self.means[0] <= position < self.means[1]

    def defines(self, position: int, length: int) -> bool:
        """Whether a phrase is the whole subject of a definition ("Dropout is a technique")."""
        return self.definition is not None and position == 0 and length == self.definition[1]


def _generic_object(window: str) -> bool:
    """Whether what a sentence proposes is only a generic noun: "a new framework", "results"."""
    words = [t for t, _, _ in tokens(window) if t.lower() not in STOP_WORDS]
    return not words or head(words[-1]) in GENERIC_NOUNS | KIND_NOUNS


def _means_window(sentence: str, start: int) -> tuple[int, int] | None:
    """The phrase after "via"/"using" that says how a generic proposal works, in its clause."""
    end = _CLAUSE_END.search(sentence, start)
    means = _MEANS.search(sentence, start, end.start() if end else len(sentence))
    if means is None:
        return None
    return (means.end(), _window_end(sentence, means.end()))


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
    defined_here: list[str] = []  # subjects of "X is a technique for ..."
    heads: set[str] = set()  # phrases that end their noun run somewhere
    for index, sentence in enumerate(sentences):
        context = _Context.of(sentence)
        for words, ends in _phrases(sentence, max_words, abstract):
            key = " ".join(words).lower()
            if ends:
                heads.add(key)
            if key not in seen:
                seen[key] = _candidate(words, index, context, abstract)
                if context.defines(sentence.find(" ".join(words)), len(key)):
                    defined_here.append(key)
    for key, c in seen.items():  # a name stays: "LoRA" of "the LoRA regime", "Statistical Query"
        named = any(looks_like_name(w) or w[:1].isupper() for w in c.text.split())
        if key not in heads and not named and not _fixed(key, abstract) and not c.expansion:
            seen[key] = replace(c, modifier=True)
    for index, sentence in enumerate(sentences):
        context = _Context.of(sentence)
        for words in _loose_phrases(sentence, seen):
            key = " ".join(words).lower()
            free = is_weak(words[0]) and not _fixed(key, abstract)
            candidate = _candidate(words, index, context, abstract)
            seen[key] = replace(candidate, loose=True, free_modifier=free)
            if context.defines(sentence.find(" ".join(words)), len(key)):
                defined_here.append(key)
    if not any(c.proposed for c in seen.values()):
        # An abstract that proposes nothing in so many words presents its method
        # by defining it: "Dropout is a technique for addressing this problem."
        for key in defined_here:
            seen[key] = replace(seen[key], proposed=True, cue=Kind.METHOD)
    return _share_proposal(seen, defined)


def _phrases(
    sentence: str, max_words: int, abstract: _Abstract
) -> Iterator[tuple[list[str], bool]]:
    """The sentence's phrases that survive trimming whole and are not generic, each with
    whether it ends its noun run: nothing follows it but generic nouns or words trimming
    drops ("object recognition" of "object recognition tasks", not "structured adapter"
    of "structured adapter manifold")."""
    for run in chunks(sentence):
        last = len(run)
        while last > 0 and (_kind_word(run[last - 1]) or not trim(run[last - 1 :])):
            last -= 1
        for start, end in span_bounds(len(run), max_words):
            span = run[start:end]
            fixed = _fixed(" ".join(span).lower(), abstract)
            words = span if fixed else trim(span)
            if words and len(words) == len(span) and not is_generic(" ".join(words)):
                yield words, end >= last


def _kind_word(word: str) -> bool:
    """A noun that says only what kind of thing the words before it name ("tasks")."""
    low = singular(word.lower())
    return low in KIND_NOUNS or low in GENERIC_NOUNS


def _loose_phrases(sentence: str, seen: dict[str, Candidate]) -> Iterator[list[str]]:
    """The sentence's loose phrases (:func:`loose_chunks`) that no strict one already gave.

    None ends in a participle, an adjective or a weak word; a weak modifier
    may lead ("natural language processing", "standard optimisers"), and
    :func:`_fixed` tells a term from a free modifier.
    """
    for run in loose_chunks(sentence):
        for span in spans(run, LOOSE_MAX_WORDS):
            tail = span[1:] or span
            text = " ".join(span)
            if trim(tail) == tail and text.lower() not in seen and not is_generic(text):
                yield span


def _fixed(phrase: str, abstract: _Abstract) -> bool:
    """A term whose leading weak modifier is part of it: a field's name, a defined
    expansion, or a fixed term of ML writing (:func:`kg.lexicon.is_fixed_term`)."""
    return phrase in abstract.terms or phrase in abstract.expansions or is_fixed_term(phrase)


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
    if acronym and not introduced and text in abstract.defined:
        # "we propose Importance Weights for Shifting Means (ISM)": the proposal
        # is the definition, though its expansion runs past the window's "for".
        introduced = context.introduces(sentence.find(abstract.defined[text]))
    if introduced and (acronym or looks_like_name(text) or context.in_means(position)):
        cue = Kind.METHOD  # "a framework called Component-wise Replacement ..."
    if context.defines(position, len(text)):
        cue = Kind.METHOD
    proposed = introduced and (
        cue is Kind.METHOD or acronym is not None or context.in_naming(position)
    )
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


def _window_end(sentence: str, start: int, naming: bool = False) -> int:
    """End of what a propose verb introduces: the name and its appositive, not the rest.

    In "we propose Curio, an intrinsic reward based on the prediction error of a
    dynamics model", Curio and "intrinsic reward" are proposed, the model is not.
    A naming verb introduces only the name, up to the next comma or verb
    ("which we name Guanaco, outperforms ... models").
    """
    ends = [len(sentence)]
    if stop := _WINDOW_STOP.search(sentence, start):
        ends.append(stop.start())
    if naming and (comma := sentence.find(",", start)) >= 0:
        ends.append(comma)
    if naming:
        verb = next((s for t, s, _ in tokens(sentence[start:]) if t.lower() in VERBS), None)
        if verb is not None:
            ends.append(start + verb)
    return min(ends)


def keyword_candidates(found: list[Candidate], keywords: Sequence[str]) -> list[Candidate]:
    """``found`` with the record's author keywords marked, and those the text lacks added.

    A keyword the abstract uses marks its candidate; one it does not use is a
    candidate of its own, with sentence -1 and the cue its wording gives.
    """
    wanted = {variant_key(k): k.strip() for k in keywords if k.strip()}
    out = []
    for c in found:
        keys = {variant_key(c.text)} | ({variant_key(c.expansion)} if c.expansion else set())
        hit = keys & wanted.keys()
        out.append(replace(c, keyword=True) if hit else c)
        for k in hit:
            del wanted[k]
    out += [Candidate(k, -1, _cue(k), keyword=True) for k in wanted.values() if not is_generic(k)]
    return out


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
