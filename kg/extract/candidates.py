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
from kg.extract.cues import Context, compared_only, cue_of, introduced_name, prior_only
from kg.extract.phrases import (
    LOOSE_MAX_WORDS,
    after_term_adverb,
    chunks,
    is_generic,
    is_weak,
    kind_word,
    loose_chunks,
    names_quantity,
    span_bounds,
    tokens,
    trim,
    verb_after,
    written,
)
from kg.extract.subjects import studied_subject
from kg.lexicon import (
    GENERIC_NOUNS,
    NOMINAL_ING,
    head,
    is_fixed_term,
    looks_like_name,
    lower_case_words,
)
from kg.model import Kind

__all__ = ["Candidate", "candidates", "LOOSE_MAX_WORDS"]


@dataclass(frozen=True)
class Candidate:
    """A phrase as written in one sentence, with its typing cues.

    Attributes:
        text: The phrase as written.
        sentence: Index of the sentence it occurs in (first occurrence; where it is
            proposed, when that is later).
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
        compared: True when the text only writes it as what the paper compares
            against ("outperforms X", "faster than X"): a baseline, not a
            method the paper uses (:func:`kg.extract.cues.compared_only`).
        prior: True when every sentence that writes it is about prior work
            ("Existing methods rely on X"): not a method of this paper
            (:func:`kg.extract.cues.prior_only`).
        studied: True when it is what the paper says it studies ("We study the
            complexity of smoothed agnostic learning of halfspaces"): the
            subject of an analysis paper, a phrase that may hold "of".
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
    compared: bool = False
    prior: bool = False
    studied: bool = False


@dataclass(frozen=True)
class _Abstract:
    """What every sentence's candidates need to know about the whole abstract."""

    defined: dict[str, str]  # acronym -> expansion
    expansions: dict[str, str]  # lower-case expansion -> acronym
    terms: frozenset[str]  # established multi-word terms (lower case)
    lower_words: frozenset[str]  # words written in lower case somewhere


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
    heads: set[str] = set()  # phrases that end their noun run somewhere
    contexts = [Context.of(sentence) for sentence in sentences]
    for index, (sentence, context) in enumerate(zip(sentences, contexts, strict=True)):
        for words, ends in _phrases(sentence, max_words, abstract):
            key = " ".join(words).lower()
            if ends:
                heads.add(key)
            if key not in seen:
                seen[key] = _candidate(words, index, context, abstract)
            elif not seen[key].proposed and _proposed_by_name(" ".join(words), context):
                # Named first (in the title, say) and proposed later: "Quillon: Sparse
                # Retrieval ...", then "we propose Quillon, a retriever that ...".
                # The proposal is its evidence.
                seen[key] = replace(seen[key], sentence=index, proposed=True, cue=Kind.METHOD)
    for index, (sentence, context) in enumerate(zip(sentences, contexts, strict=True)):
        for c in _bridged(sentence, index, context, abstract):
            if c.text.lower() not in seen:
                seen[c.text.lower()] = c
                heads.add(c.text.lower())
    for index, (sentence, context) in enumerate(zip(sentences, contexts, strict=True)):
        subject = studied_subject(sentence, lambda p: _fixed(p.lower(), abstract), abstract.defined)
        if subject:
            key = " ".join(subject).lower()
            found = seen.get(key) or _candidate(subject, index, context, abstract)
            seen[key] = replace(found, studied=True)
            heads.add(key)
    loose_heads = set(heads)  # the same rule for the wider runs
    for index, (sentence, context) in enumerate(zip(sentences, contexts, strict=True)):
        runs = loose_chunks(sentence)
        loose_heads |= _run_heads(runs, LOOSE_MAX_WORDS)
        for words in _loose_phrases(runs, seen):
            if _opening_verb(words, index, sentences):
                continue
            key = " ".join(words).lower()
            free = is_weak(words[0]) and not _fixed(key, abstract)
            candidate = _candidate(words, index, context, abstract)
            seen[key] = replace(candidate, loose=True, free_modifier=free)
    for key, c in seen.items():  # a name stays: "LoRA" of "the LoRA regime", "Statistical Query"
        if (
            key not in (loose_heads if c.loose else heads)
            and not c.expansion
            and (
                not _named(c, sentences)
                or _cut_name(c, sentences)
                or _before_quantity(c, sentences)
                or _written_lower(c.text, abstract)
            )
        ):
            seen[key] = c if _fixed(key, abstract) else replace(c, modifier=True)
    for key, c in seen.items():
        if compared_only(c.text, sentences):
            seen[key] = replace(c, compared=True)
        elif prior_only(c.text, sentences):
            seen[key] = replace(c, prior=True)
    return _share_proposal(seen, defined)


def _bridged(
    sentence: str, index: int, context: Context, abstract: _Abstract
) -> Iterator[Candidate]:
    """Defined phrases whose noun phrase runs on past the acronym.

    In "we introduce Optimal Lookahead (OL) policy gradients" the paper
    introduces policy gradients of a kind, not "Optimal Lookahead": the
    phrase is the expansion with the nouns that follow the parenthesis.

    >>> def bridged(sentence, acronym, expansion):
    ...     abstract = _Abstract({acronym: expansion}, {}, frozenset(), frozenset())
    ...     found = _bridged(sentence, 0, Context.of(sentence), abstract)
    ...     return [(c.text, c.proposed) for c in found]
    >>> bridged("We introduce Optimal Lookahead (OL) policy gradients.", "OL", "Optimal Lookahead")
    [('Optimal Lookahead policy gradients', True)]
    >>> bridged("Sharpness-Aware Minimization (SAM) perturbs the weights.", "SAM",
    ...         "Sharpness-Aware Minimization")
    []
    """
    for acronym, expansion in abstract.defined.items():
        written = f"{expansion} ({acronym}) "
        for position in (m.start() for m in re.finditer(re.escape(written), sentence)):
            words = _bridge(expansion, sentence[position + len(written) :])
            if words:
                proposed = context.introduces(position)
                cue = Kind.METHOD if proposed else cue_of(" ".join(words))
                yield Candidate(" ".join(words), index, cue, proposed)


def _bridge(expansion: str, rest: str) -> list[str]:
    """The expansion and the nouns of its phrase that follow its parenthesis (``rest``), or []."""
    # Read on past the parenthesis: a verb ("(SAM) perturbs the") ends the run.
    words = expansion.split()
    runs = chunks(f"{expansion} {rest}")
    if not runs or runs[0][: len(words)] != words:
        return []  # the expansion is no phrase of its own ("Weights for Shifting Means")
    run = runs[0]
    tail = run[len(words) : _run_end(run)]
    if not tail or trim(tail) != tail or len(words) + len(tail) > LOOSE_MAX_WORDS:
        return []  # nothing runs on, or only a kind noun ("(OL) framework")
    return [*words, *tail]


def _written_lower(text: str, abstract: _Abstract) -> bool:
    """Whether every capitalised word of ``text`` is written in lower case elsewhere (in the
    abstract, or among the words kg's field labels write in lower case): a title's capitals
    ("Last-Iterate" of "On the Last-Iterate Convergence") make no name."""
    return all(w.lower() == w or w.lower() in abstract.lower_words for w in text.split()) and any(
        w.lower() != w for w in text.split()
    )


def _cut_name(c: Candidate, sentences: list[str]) -> bool:
    """Whether a name is only ever written as the start of a longer one: "Graded Non-convex"
    of "Graded Non-convex Functions", "Thompson" of "Thompson Sampling"."""
    pattern = written(c.text, r"(\s+[A-Z])?")  # the capital after it is case-sensitive
    found = [m.group(1) for s in sentences for m in pattern.finditer(s)]
    return bool(found) and all(found)


def _before_quantity(c: Candidate, sentences: list[str]) -> bool:
    """Whether a name is only ever written as the start of a phrase that names a quantity
    (:func:`kg.extract.phrases.names_quantity`): "perfect Littlestone" of "perfect
    Littlestone dimension", "Lyapunov" of "Lyapunov function". Its part names nothing.

    >>> _before_quantity(Candidate("perfect Littlestone", 0), ["The perfect Littlestone "
    ...     "dimension of a class.", "A perfect Littlestone dimension bounds it."])
    True
    >>> _before_quantity(Candidate("PatchTST", 0), ["PatchTST time series forecasting."])
    False
    >>> _before_quantity(Candidate("LoRA", 0), ["the LoRA regime and LoRA adapters"])
    False
    """
    if names_quantity(c.text):
        return False  # no concept either way ("Statistical Query complexity" of its bound)
    pattern = written(c.text)
    wholes = []
    for sentence in sentences:
        for m in pattern.finditer(sentence):
            rest = sentence[m.end() :]
            runs, found = chunks(rest), tokens(rest)
            if not re.match(r"\s+[\w-]", rest) or not runs or runs[0][0] != found[0][0]:
                return False  # written on its own here
            wholes.append(f"{m.group()} {' '.join(runs[0])}")
    return bool(wholes) and all(names_quantity(w) for w in wholes)


def _named(c: Candidate, sentences: list[str]) -> bool:
    """A name or capitalised term; a capital that only ever opens a sentence is none
    ("Identifying molecular" of "Identifying molecular structures ...")."""
    words = c.text.split()
    if any(looks_like_name(w) for w in words) or any(w[:1].isupper() for w in words[1:]):
        return True
    if not words[0][:1].isupper():
        return False
    written = re.compile(rf"(?<!\w){re.escape(c.text)}(?!\w)")
    return any(m.start() > 0 for s in sentences for m in written.finditer(s))


def _phrases(
    sentence: str, max_words: int, abstract: _Abstract
) -> Iterator[tuple[list[str], bool]]:
    """The sentence's phrases that survive trimming whole and are not generic, each with
    whether it ends its noun run: nothing follows it but generic nouns or words trimming
    drops ("object recognition" of "object recognition tasks", not "structured adapter"
    of "structured adapter manifold")."""
    for run in chunks(sentence):
        last = _run_end(run)
        for start, end in span_bounds(len(run), max_words):
            if after_term_adverb(run, start, end, max_words):
                continue
            span = run[start:end]
            fixed = _fixed(" ".join(span).lower(), abstract)
            words = span if fixed else trim(span)
            if words and len(words) == len(span) and not is_generic(" ".join(words)):
                yield words, end >= last


def _run_end(run: list[str]) -> int:
    """Where a run's own nouns end (generic nouns and words trimming drops don't count, but a
    capitalised one after a capitalised word is part of a name: "Lattice Heat Network").

    >>> _run_end(["lattice", "heat", "network"]), _run_end(["Lattice", "Heat", "Network"])
    (2, 3)
    """
    last = len(run)
    while last > 0 and (
        (kind_word(run[last - 1]) and not _in_name(run, last - 1)) or not trim(run[last - 1 :])
    ):
        last -= 1
    return last


def _in_name(run: list[str], i: int) -> bool:
    """Whether the word at ``i`` continues a capitalised name: it and the word before it
    start with a capital ("Lattice Heat Network"), and that word is no name of
    its own ("BERT Models" are BERT's).

    >>> _in_name(["Heat", "Network"], 1), _in_name(["BERT", "Models"], 1)
    (True, False)
    """
    before = run[i - 1] if i > 0 else ""
    return run[i][:1].isupper() and before[:1].isupper() and not looks_like_name(before)


def _loose_phrases(runs: list[list[str]], seen: dict[str, Candidate]) -> Iterator[list[str]]:
    """The loose phrases of a sentence's runs (:func:`loose_chunks`) that no strict one
    already gave.

    None ends in a participle, an adjective or a weak word; a weak modifier
    may lead ("natural language processing", "standard optimisers"), and
    :func:`_fixed` tells a term from a free modifier.
    """
    for run in runs:
        for start, end in span_bounds(len(run), LOOSE_MAX_WORDS):
            if after_term_adverb(run, start, end, LOOSE_MAX_WORDS):
                continue
            span = run[start:end]
            tail = span[1:] or span
            text = " ".join(span)
            if trim(tail) == tail and text.lower() not in seen and not is_generic(text):
                yield span


def _opening_verb(words: list[str], index: int, sentences: list[str]) -> bool:
    """Whether a loose phrase of sentence ``index`` opens it, or the first sentence's part
    after a colon (a title's: "Compute Better Spent: Replacing Dense Layers ..."), with an
    -ing word that is a verb there: "Accelerating Training and Inference of Neural ODEs".

    A gerund that names nothing (not in :data:`~kg.lexicon.NOMINAL_ING`) and opens a clause
    takes an object, unless the paper also writes the same words inside a sentence, where
    no preposition or adverb before them makes the word a verb (:func:`_written_inside`).

    >>> title = "Projecting Molecules into Synthesizable Chemical Spaces"
    >>> _opening_verb(["Projecting", "Molecules"], 0, [title])
    True
    >>> spiking = ["Spiking neural networks save energy.", "We train spiking neural networks."]
    >>> _opening_verb(["Spiking", "neural", "networks"], 0, spiking)
    False
    """
    if len(words) < 2:
        return False
    first, second = words[0].lower(), words[1]
    if not first.endswith("ing") or first in NOMINAL_ING:
        return False
    opens = r"(?:.*:\s+)?" if index == 0 else ""  # past any colon of the first sentence
    phrase = rf"{re.escape(words[0])}\s+{re.escape(second)}(?!\w)"
    if not re.match(opens + phrase, sentences[index]):
        return False
    return not any(_written_inside(first, second, s) for s in sentences)


def _written_inside(first: str, second: str, sentence: str) -> bool:
    """Whether ``sentence`` writes ``first second`` as a term: neither opening it nor its
    part after a colon, nor after a word that makes ``first`` a verb (:func:`verb_after`:
    "for accelerating training").

    >>> _written_inside("spiking", "neural", "We train spiking neural networks (SNNs).")
    True
    >>> _written_inside("accelerating", "training", "A method for accelerating training.")
    False
    """
    pair = re.compile(rf"(?<![\w-]){re.escape(first)}\s+{re.escape(second)}(?![\w-])", re.I)
    for m in pair.finditer(sentence):
        before = sentence[: m.start()].rstrip()
        found = tokens(before[-40:])  # the word before them
        previous = found[-1][0].lower() if found else ""
        if before and not before.endswith(":") and not verb_after(previous, first):
            return True
    return False


def _run_heads(runs: list[list[str]], max_len: int) -> set[str]:
    """The phrases of ``runs`` (lower case) that end their run's own nouns (:func:`_run_end`)."""
    out: set[str] = set()
    for run in runs:
        last = _run_end(run)
        out.update(
            " ".join(run[start:end]).lower()
            for start, end in span_bounds(len(run), max_len)
            if end >= last
        )
    return out


def _fixed(phrase: str, abstract: _Abstract) -> bool:
    """A term whose leading weak modifier is part of it: a field's name, a defined
    expansion, or a fixed term of ML writing (:func:`kg.lexicon.is_fixed_term`)."""
    return phrase in abstract.terms or phrase in abstract.expansions or is_fixed_term(phrase)


def _candidate(words: list[str], index: int, context: Context, abstract: _Abstract) -> Candidate:
    text = " ".join(words)
    sentence = context.sentence
    position = _whole_at(sentence, text)
    cue = cue_of(text)
    if not any(looks_like_name(w) for w in words):  # a name keeps the cue its wording gives
        cue = context.listed_as(position, len(text)) or cue
    if cue is None and introduced_name(sentence, text):
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


def _proposed_by_name(text: str, context: Context) -> bool:
    """Whether the sentence proposes ``text`` as the name of what it introduces: "we propose
    Quillon, ...", "dubbed Zappa", "our sampler (GLIMR)"; not a name it only mentions
    inside the proposal ("we propose Twin-BDD, which pairs two BDD drafters": not BDD).
    """
    position = _whole_at(context.sentence, text)
    by_name = introduced_name(context.sentence, text) or context.in_naming(position)
    return (context.introduces(position) and by_name) or context.in_own_name(position)


def _whole_at(sentence: str, text: str) -> int:
    """Where ``sentence`` first writes ``text`` as a whole phrase ("LoRA", not the start of
    "LoRA-Curve"); else where it first writes it at all.

    >>> _whole_at("Ada-Q extends Ada to queues.", "Ada")
    14
    """
    start = sentence.find(text)
    while start >= 0:
        end = start + len(text)
        if not (start and _joined(sentence[start - 1])) and not (
            end < len(sentence) and _joined(sentence[end])
        ):
            return start
        start = sentence.find(text, start + 1)
    return sentence.find(text)


def _joined(char: str) -> bool:
    return char.isalnum() or char in "-_"


def _share_proposal(seen: dict[str, Candidate], defined: dict[str, str]) -> list[Candidate]:
    """An acronym is proposed when its expansion is, and the reverse."""
    for acr, exp in defined.items():
        pair = [seen.get(acr.lower()), seen.get(exp.lower())]
        if any(c and c.proposed for c in pair):
            for c in pair:
                if c and not c.proposed:
                    seen[c.text.lower()] = replace(c, proposed=True, cue=Kind.METHOD)
    return list(seen.values())
