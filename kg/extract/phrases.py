"""Words into phrases: tokens, the runs of content words between breaks, trimming.

Pure text logic over the word classes of :mod:`kg.lexicon`: a phrase never
crosses punctuation, a function word, a verb or an adverb ("sgd provably
achieves" cannot come out), unless the adverb makes a term with the adjective
after it ("partially observable"); generic phrases ("extensive experiments")
name no concept.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from kg.lexicon import (
    ADJECTIVE_HEADS,
    GENERIC_NOUNS,
    INFINITIVES,
    KIND_NOUNS,
    MEASURE_NOUNS,
    NOMINAL_ING,
    NOT_ADVERBS_LY,
    NOT_VERBS_ISE,
    NOUN_VERBS,
    NOUNS_LIKE_ADJECTIVES,
    PLAIN_ADJECTIVES,
    QUANTITY_HEADS,
    STOP_WORDS,
    TERM_ADVERBS,
    TIME_ADVERBS,
    TOO_BROAD,
    VERB_FOLLOWERS,
    VERBS,
    WEAK_MODIFIERS,
    head,
    is_general_word,
    looks_like_name,
    singular,
)

__all__ = [
    "LOOSE_MAX_WORDS",
    "written",
    "tokens",
    "chunks",
    "loose_chunks",
    "span_bounds",
    "after_term_adverb",
    "trim",
    "is_weak",
    "is_adverb",
    "verb_after",
    "is_generic",
    "kind_word",
    "names_quantity",
    "occurrences",
    "spans",
]

#: The longest phrase taken from the wider, loose runs (:func:`loose_chunks`).
LOOSE_MAX_WORDS = 5
# A token: letters/digits, joined by inner hyphens, slashes, apostrophes or
# decimal points ("Clipped-SGD", "BG-0", "GPT-3.5", "vision-language").
_TOKEN = re.compile(r"[^\W_]+(?:(?:[-/'’+]|(?<=\d)\.(?=\d))[^\W_]+)*\+*", re.UNICODE)
# Citation keys such as "LWZ25b" or "Smith2020" are not concepts.
_CITATION = re.compile(r"^(?:[A-Z]{2,5}\d{2}[a-z]?|[A-Z][a-z]+\d{4}[a-z]?)$")
# After these words an -ing word that names nothing (not in NOMINAL_ING) is a
# verb taking an object: "by relating dynamic programming to ...".
_GERUND_VERB_AFTER = frozenset(
    "by for of in on when while after before via without through towards toward".split()
)
# Words that open a noun phrase: a word right before one ends the phrase before it.
DETERMINERS = frozenset("a an the this these those its their our".split())
# Endings of -s words that are not verb forms ("class", "status", "analysis", "physics").
_NOT_VERB_S = ("ss", "us", "is", "ics")
# Endings of the adjectives and participles a term's adverb qualifies ("fully connected",
# "partially observable", "conditionally independent", "locally linear", "strongly convex").
_QUALIFIED = re.compile(r"(?:ed|able|ible|ent|ant|ar|al|ic|ive|ous|ex)$")
# Adjective endings (nouns that share them are listed in the lexicon).
_ADJ_ENDING = re.compile(r"(?:ous|ical|ive|able|ible|ic|al|ful|less|ary)$")


def tokens(text: str) -> list[tuple[str, int, int]]:
    """Tokens with their character offsets.

    >>> [t for t, _, _ in tokens("Clipped-SGD, under heavy-tailed noise.")]
    ['Clipped-SGD', 'under', 'heavy-tailed', 'noise']
    """
    return [(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(text)]


def written(phrase: str, after: str = "") -> re.Pattern[str]:
    """Where a text writes ``phrase`` as a whole phrase, its first letter in either case (a
    sentence's start may capitalise or lower it), followed by ``after`` (a pattern).

    >>> bool(written("beam search").search("Beam search decodes.")), written("SGD").search("SGDA")
    (True, None)
    """
    first, rest = re.escape(phrase[:1]), re.escape(phrase[1:])
    return re.compile(rf"(?<![\w-])(?i:{first}){rest}(?![\w-]){after}")


def is_weak(word: str) -> bool:
    """A weak modifier ("novel", "large") or a stop word: nothing a concept starts with."""
    return word.lower() in WEAK_MODIFIERS or word.lower() in STOP_WORDS


def names_quantity(phrase: str) -> bool:
    """Whether a phrase names a quantity or property rather than a method or problem.

    A name's head stays a name ("RB-Bound"); a name as a modifier does not make a
    measure of it a method ("GPT-4 accuracy", "Action-Driven Contrastive Loss").

    >>> names_quantity("first-order regret bound"), names_quantity("Clipped-SGD")
    (True, False)
    >>> names_quantity("RB-Bound"), names_quantity("Temporal Action-Driven Contrastive Loss")
    (False, True)

    A listed abbreviation is one in capitals, too ("MDPs", "linear MDP"); a name that
    spells a listed word in capitals stays a name ("STEP").

    >>> names_quantity("linear MDPs"), names_quantity("MDPO"), names_quantity("STEP")
    (True, False, False)
    """
    words = phrase.split()
    if not words or head(phrase) not in QUANTITY_HEADS:
        return False
    return not looks_like_name(words[-1]) or not is_general_word(head(phrase))


def kind_word(word: str) -> bool:
    """A noun that says only what kind of thing the words before it name ("tasks"), not a
    measure of it ("time" of "query time", :data:`kg.lexicon.MEASURE_NOUNS`)."""
    low = singular(word.lower())
    return low in KIND_NOUNS or (low in GENERIC_NOUNS and low not in MEASURE_NOUNS)


def occurrences(phrase: str, text: str) -> int:
    """How often ``phrase`` occurs in ``text`` as whole words, without overlaps.

    What ``re.findall(rf"(?<!\\w){re.escape(phrase)}(?!\\w)", text)`` counts,
    without compiling a pattern for each of a paper's hundreds of candidates.
    """
    return sum(1 for _ in spans(phrase, text))


def spans(phrase: str, text: str) -> Iterator[tuple[int, int]]:
    """Where ``phrase`` occurs in ``text`` as whole words, without overlaps: (start, end)."""
    start, n = 0, len(phrase)
    while phrase and (i := text.find(phrase, start)) >= 0:
        j = i + n
        if (i == 0 or not _word_char(text[i - 1])) and (j == len(text) or not _word_char(text[j])):
            yield i, j
            start = j
        else:
            start = i + 1


def _word_char(c: str) -> bool:
    return c.isalnum() or c == "_"  # what re's \w matches in a str pattern


def is_generic(phrase: str) -> bool:
    """True for phrases that name no concept ("theoretical results", "recent work").

    >>> [is_generic(p) for p in ["extensive experiments", "novel framework", "gradient clipping"]]
    [True, True, False]
    """
    words = [w.lower() for w in phrase.split()]
    if not words:
        return True
    if all(is_weak(w) or singular(w).lower() in GENERIC_NOUNS for w in words):
        return True
    if len(words) == 1:
        word = words[0]
        return len(word) < 3 or word.isdigit() or singular(word).lower() in TOO_BROAD
    return False


def _adjective(word: str) -> bool:
    """An adjective by its ending, or a hyphenated one ("probability-based", "training-free")."""
    low = word.lower().split("-")[-1]
    if "-" in word and not word.isupper() and (low in ADJECTIVE_HEADS or low.endswith("ed")):
        return True
    return bool(_ADJ_ENDING.search(low)) and low not in NOUNS_LIKE_ADJECTIVES and not word.isupper()


def _breaks(word: str) -> bool:
    low = word.lower()
    if low in STOP_WORDS or low in VERBS or _CITATION.match(word) or len(word) == 1:
        return True
    if is_adverb(low):
        return True  # adverbs: "provably", "consistently"
    if word.islower() and len(low) > 6 and low.endswith(("ize", "izes", "ise", "ises")):
        return not low.endswith("wise") and low not in NOT_VERBS_ISE  # "incentivize"
    return bool(re.fullmatch(r"[\d.+\-/]+", low))  # bare numbers


def _plural_noun(word: str) -> bool:
    """A lower-case plural ends a noun phrase ("methods outperform ...")."""
    return word.islower() and singular(word) != word and "-" not in word


# A web or e-mail address holds no phrase ("github.com/lab/Tool-X"), and a possessive ends one.
_ADDRESS = re.compile(
    r"(?:https?://|www\.)\S+|\b[\w.-]+\.(?:com|org|net|io|ai|edu)/\S*|\S+@\S+\.\w+"
)
_POSSESSIVE = re.compile(r"['’]s\b")


def _breaks_marked(sentence: str) -> str:
    """``sentence`` with each address and possessive ending a phrase (written as a comma).

    >>> _breaks_marked("Code: https://github.com/lab/Tool-X. Tool's rank.")
    'Code: , Tool, rank.'
    """
    return _POSSESSIVE.sub(",", _ADDRESS.sub(",", sentence))


def chunks(sentence: str) -> list[list[str]]:
    """Maximal runs of content tokens not separated by punctuation or break words.

    >>> chunks("SGD provably achieves last-iterate convergence.")
    [['SGD'], ['last-iterate', 'convergence']]
    >>> chunks("model size and token budget track hardware efficiency")
    [['model', 'size'], ['token', 'budget'], ['hardware', 'efficiency']]
    """
    sentence = _breaks_marked(sentence)
    runs: list[list[str]] = []
    current: list[str] = []
    last_end = 0
    found = tokens(sentence)
    after_and = False  # the current run follows "and": it may close a coordinated subject
    for k, (tok, start, end) in enumerate(found):
        gap = sentence[last_end:start]
        if not current:
            after_and = k > 0 and found[k - 1][0].lower() == "and" and not gap.strip()
        following = found[k + 1][0].lower() if k + 1 < len(found) else ""
        attached = _attached(sentence, found, k)
        if (
            not current
            and k > 0
            and not gap.strip()
            and (verb_after(found[k - 1][0], tok) or _infinitive(found[k - 1][0], tok, attached))
        ):
            last_end = end
            continue  # "nearly matching X", "to train X": a verb, not the start of a phrase
        if _term_adverb(tok, attached):
            if current and (gap.strip() or not is_adverb(current[-1])):
                runs.append(current)  # it qualifies the words after it, not those before
                current = []
            current.append(tok)
            last_end = end
            continue
        if current and _verb_here(tok, following, after_and):
            runs.append(current)
            current = []
            last_end = end
            continue
        verb_ing = tok.lower().endswith("ing") and tok.lower() not in NOMINAL_ING
        if (
            current
            and current[-1].lower().endswith("ing")
            and len(current) == 1
            and (is_weak(tok) or _adjective(tok))
        ):
            current = []  # "Training powerful AI": a gerund before an adjective is a verb
        if current and (gap.strip() or _breaks(tok) or verb_ing or _plural_noun(current[-1])):
            runs.append(current)
            current = []
        if not _breaks(tok) and not verb_ing:
            current.append(tok)
        last_end = end
    if current:
        runs.append(current)
    return runs


def loose_chunks(sentence: str) -> list[list[str]]:
    """Runs of tokens broken only by punctuation, function words, verbs, adverbs and plurals.

    Wider than :func:`chunks`: a participle or gerund may stand inside
    ("simulated annealing", "sliding mode control"), so these runs hold the
    noun phrases the stricter chunking cuts, and some that are not phrases at
    all; the learned ranker tells them apart.

    >>> loose_chunks("We use simulated annealing, which provably converges.")
    [['simulated', 'annealing']]
    """
    sentence = _breaks_marked(sentence)
    runs: list[list[str]] = []
    current: list[str] = []
    last_end = 0
    previous = ""
    found = tokens(sentence)
    for k, (tok, start, end) in enumerate(found):
        gap = sentence[last_end:start]
        attached = _attached(sentence, found, k)
        term = _term_adverb(tok, attached)
        if current and (gap.strip() or (_breaks(tok) and not term) or _plural_noun(current[-1])):
            runs.append(current)
            current = []
        verb = verb_after(previous, tok) or _infinitive(previous, tok, attached)
        if term:
            if current and not is_adverb(current[-1]):
                runs.append(current)
                current = []
            current.append(tok)
        elif not _breaks(tok) and not (not current and verb):
            current.append(tok)
        last_end = end
        previous = tok.lower()
    if current:
        runs.append(current)
    return runs


def verb_after(previous: str, word: str) -> bool:
    """Whether an -ing word is a verb by the word before it.

    After a preposition, one that names nothing is ("by relating X", "for
    solving X"); after an adverb, any is ("a nearly matching lower bound").

    >>> verb_after("by", "relating"), verb_after("nearly", "matching")
    (True, True)
    >>> verb_after("for", "matching"), verb_after("early", "stopping")
    (False, False)
    """
    low = word.lower()
    if not low.endswith("ing"):
        return False
    return is_adverb(previous) or (previous in _GERUND_VERB_AFTER and low not in NOMINAL_ING)


def _attached(sentence: str, found: list[tuple[str, int, int]], k: int) -> str:
    """The token after token ``k`` if only spaces come between them, else ""."""
    if k + 1 >= len(found) or sentence[found[k][2] : found[k + 1][1]].strip():
        return ""
    return found[k + 1][0]


def _infinitive(previous: str, word: str, following: str) -> bool:
    """Whether a base form that is also a noun is a verb because "to" comes before it and
    more words of its phrase after it ("to train sparse models", not "robust to shift",
    nor "applied to change point detection": only :data:`~kg.lexicon.INFINITIVES` are).

    >>> _infinitive("to", "train", "sparse"), _infinitive("to", "train", "")
    (True, False)
    >>> _infinitive("to", "change", "point")
    False
    """
    return previous.lower() == "to" and word.lower() in INFINITIVES and bool(following)


def _term_adverb(word: str, following: str) -> bool:
    """Whether an adverb starts a term with the adjective or participle after it
    ("partially observable", "weakly supervised", "differentially private"; not
    "stochastically perturbing", "uniformly samples" or "linearly interpolate": verbs).

    >>> _term_adverb("partially", "observable"), _term_adverb("uniformly", "samples")
    (True, False)
    """
    low, after = word.lower(), following.lower()
    if low not in TERM_ADVERBS:
        return False
    return after in TERM_ADVERBS or (
        after not in VERBS
        and (
            bool(_QUALIFIED.search(after)) or after in PLAIN_ADJECTIVES or after in ADJECTIVE_HEADS
        )
    )


def is_adverb(word: str) -> bool:
    """An -ly adverb ("provably", "partially"), not a noun or adjective in -ly ("family")."""
    low = word.lower()
    return low.endswith("ly") and len(low) > 4 and low not in NOT_ADVERBS_LY


def _verb_here(word: str, following: str, after_and: bool) -> bool:
    """Whether a word after a noun is the verb ("debate run into", "budget track").

    A base form that is also a noun (:data:`~kg.lexicon.NOUN_VERBS`) is, before
    a particle or determiner; so is any lower-case -s form right before a
    determiner, which no noun phrase goes on to ("the tool indicates a
    rise", "the Internet offers the ...").

    >>> _verb_here("indicates", "a", False), _verb_here("methods", "for", False)
    (True, False)
    """
    low = word.lower()
    if low not in NOUN_VERBS:
        return (
            following in DETERMINERS
            and word.islower()
            and low.endswith("s")
            and not low.endswith(_NOT_VERB_S)
        )
    return following in VERB_FOLLOWERS or (
        after_and and bool(following) and following not in STOP_WORDS
    )


def span_bounds(n: int, max_len: int) -> Iterable[tuple[int, int]]:
    """The ``(start, end)`` of every run of 1 to ``max_len`` of ``n`` words, left to right."""
    for i in range(n):
        for j in range(i + 1, min(n, i + max_len) + 1):
            yield i, j


def after_term_adverb(run: list[str], start: int, end: int, max_len: int) -> bool:
    """Whether ``run[start:end]`` starts right after an adverb of its term and would fit
    with it: "observable Markov" of "partially observable Markov" is cut short of it."""
    return start > 0 and is_adverb(run[start - 1]) and end - start < max_len


def trim(words: list[str]) -> list[str]:
    """Drop weak modifiers at the start and participles/adjectives at the end."""
    while words and (
        is_weak(words[0]) or (is_adverb(words[0]) and (len(words) == 1 or is_weak(words[1])))
    ):
        words = words[1:]
    while words and (
        is_weak(words[-1])
        or is_adverb(words[-1])
        or (words[-1].lower().endswith("ed") and "-" not in words[-1])
        or _adjective(words[-1])
        or words[-1].lower() in TIME_ADVERBS
    ):
        words = words[:-1]
    return words
