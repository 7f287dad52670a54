"""kg's English word knowledge: word classes as data, and the few tests built on them.

Every word list lives once, in a text file beside this module (one file per
class, words separated by white space, ``#`` comments), and every stage reads
it from here: phrase chunking, concept keys, paper labels and kg eval's
matching all agree on what a function word, a plural or an acronym is.

>>> "the" in FUNCTION_WORDS, "estimator" in METHOD_HEADS
(True, True)
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

__all__ = [
    "spelt_from",
    "is_subsequence",
    "FUNCTION_WORDS",
    "QUANTITY_WORDS",
    "PHRASE_BREAKS",
    "STOP_WORDS",
    "VERBS",
    "WEAK_MODIFIERS",
    "GENERIC_NOUNS",
    "METHOD_HEADS",
    "PROBLEM_HEADS",
    "QUANTITY_HEADS",
    "METHOD_NAME_HEADS",
    "TOO_BROAD",
    "NOMINAL_ING",
    "NOUNS_LIKE_ADJECTIVES",
    "NOT_VERBS_ISE",
    "NOT_ADVERBS_LY",
    "TIME_ADVERBS",
    "TERM_ADVERBS",
    "INFINITIVES",
    "PLAIN_ADJECTIVES",
    "ABBREVIATIONS",
    "KIND_NOUNS",
    "MEASURE_NOUNS",
    "COMPOUND_PARTICLES",
    "ESTABLISHED",
    "is_fixed_term",
    "words",
    "singular",
    "head",
    "is_acronym",
    "is_defined_acronym",
    "looks_like_name",
    "acronym_letters",
    "spells",
    "abbreviates",
    "lower_case_words",
    "variant_key",
    "FIELD_HEADS",
    "NOUN_VERBS",
    "VERB_FOLLOWERS",
    "ADJECTIVE_HEADS",
    "zipf",
    "is_general_word",
    "GENERAL_ZIPF",
    "UMBRELLA_SHARE",
    "CLASS_NOUNS",
    "background_share",
    "is_umbrella",
    "class_member",
]

#: A plain word at least this common in general English (Zipf scale: "model" 4.9,
#: "space" 5.2, "token" 3.8, "sparsity" 1.9) names no concept on its own.
GENERAL_ZIPF = 3.8

_HERE = Path(__file__).resolve().parent


def words(name: str) -> frozenset[str]:
    """The word class stored in ``kg/lexicon/<name>.txt``."""
    text = (_HERE / f"{name}.txt").read_text(encoding="utf-8")
    return frozenset(
        w for line in text.splitlines() if not line.startswith("#") for w in line.split()
    )


FUNCTION_WORDS = words("function_words")
QUANTITY_WORDS = words("quantity_words")
PHRASE_BREAKS = words("phrase_breaks")
VERBS = words("verbs")
WEAK_MODIFIERS = words("weak_modifiers")
GENERIC_NOUNS = words("generic_nouns")
METHOD_HEADS = words("method_heads")
PROBLEM_HEADS = words("problem_heads")
QUANTITY_HEADS = words("quantity_heads")
METHOD_NAME_HEADS = words("method_name_heads")
TOO_BROAD = words("too_broad")
NOMINAL_ING = words("nominal_ing")
NOUNS_LIKE_ADJECTIVES = words("nouns_like_adjectives")
NOT_VERBS_ISE = words("not_verbs_ise")
NOT_ADVERBS_LY = words("not_adverbs_ly")
TIME_ADVERBS = words("time_adverbs")
TERM_ADVERBS = words("term_adverbs")
INFINITIVES = words("infinitives")
PLAIN_ADJECTIVES = words("plain_adjectives")
ABBREVIATIONS = words("abbreviations")
KIND_NOUNS = words("kind_nouns")
MEASURE_NOUNS = words("measure_nouns")
COMPOUND_PARTICLES = words("compound_particles")
ESTABLISHED = words("established")
FIELD_HEADS = words("field_heads")
NOUN_VERBS = words("noun_verbs")
VERB_FOLLOWERS = words("verb_followers")
ADJECTIVE_HEADS = words("adjective_heads")
_NOT_PLURAL = words("not_plural")
#: A phrase at least this share of machine-learning abstracts use ("language models"
#: 16%, "gradient descent" 3.8%, "federated learning" 2.1%) is an umbrella over many
#: papers' concepts, not one paper's: measured on ICML 2024 (bench/common_phrases.py).
UMBRELLA_SHARE = 0.03
#: Plural kind nouns that make a phrase a class of methods or problems ("bandit algorithms",
#: "graph-based methods"), not one method or problem.
CLASS_NOUNS = words("class_nouns")
#: Words a concept phrase never contains as written: "two methods", "the novel approach".
STOP_WORDS = FUNCTION_WORDS | PHRASE_BREAKS | QUANTITY_WORDS

# --- plurals and heads -------------------------------------------------------


@lru_cache(maxsize=1)
def _common_phrases() -> dict[str, float]:
    text = (_HERE / "common_phrases.tsv").read_text(encoding="utf-8")
    rows = (line.split("\t") for line in text.splitlines() if not line.startswith("#"))
    return {key: float(share) for share, key in rows}


@lru_cache(maxsize=1)
def _fixed_terms() -> frozenset[str]:
    text = (_HERE / "fixed_terms.tsv").read_text(encoding="utf-8")
    return frozenset(line for line in text.splitlines() if line and not line.startswith("#"))


def is_fixed_term(phrase: str) -> bool:
    """Whether ML abstracts use a phrase led by a weak modifier as a term of its own.

    The modifier is bound ("optimal transport", "natural language processing"),
    not free ("standard optimisers"); measured on ICML 2024 (bench/common_phrases.py).

    >>> is_fixed_term("Optimal Transport"), is_fixed_term("standard optimisers")
    (True, False)
    """
    words = phrase.split()
    if not words or words[0].lower() not in WEAK_MODIFIERS:
        return False  # every fixed term is led by one (most phrases checked are not)
    return " ".join(variant_key(w) for w in words) in _fixed_terms()


def background_share(phrase: str) -> float:
    """The share of ML abstracts that use ``phrase`` (0 below :data:`UMBRELLA_SHARE`)."""
    return _common_phrases().get(variant_key(phrase), 0.0)


def class_member(phrase: str) -> str | None:
    """What a plural class of methods or problems is named after, when a concept of its own.

    "X algorithms" names a class; its concept is X when X is a name or a
    phrase of two or more words (weak modifiers such as "multiple" left
    out). A lone common modifier ("bandit algorithms", "graph-based
    methods") names none (:func:`is_umbrella`).

    >>> [class_member(p) for p in ["gradient boosting algorithms", "RANSAC techniques",
    ...                            "bandit algorithms", "gradient boosting"]]
    ['gradient boosting', 'RANSAC', None, 'gradient boosting']
    """
    words = phrase.split()
    if len(words) < 2 or words[-1].lower() not in CLASS_NOUNS:
        return phrase
    modifier = words[:-1]
    while modifier and modifier[0].lower() in WEAK_MODIFIERS:
        modifier = modifier[1:]  # "multiple parsing strategies": parsing, one word
    if not modifier or modifier[-1].lower() in WEAK_MODIFIERS:
        return None
    if len(modifier) >= 2 or looks_like_name(modifier[0]):
        return " ".join(modifier)
    return None


def is_umbrella(phrase: str) -> bool:
    """A phrase over many papers' concepts, not one paper's.

    Either common across machine-learning abstracts (:func:`background_share`),
    or a plural class of methods or problems with nothing naming which ones
    (:func:`class_member`).

    >>> [is_umbrella(p) for p in ["LLMs", "bandit algorithms", "Thompson sampling"]]
    [True, True, False]
    """
    return class_member(phrase) is None or background_share(phrase) >= UMBRELLA_SHARE


@lru_cache(maxsize=262144)
def zipf(word: str) -> float:
    """How common a word is in general English, on the Zipf scale (0 unseen, ~7.7 for "the").

    From ``wordfreq``'s English frequencies (Wikipedia, subtitles, news, books,
    the web, ...), so how general a word is does not depend on the papers built.

    >>> zipf("the") > zipf("algorithm") > zipf("backpropagation")
    True
    """
    from wordfreq import zipf_frequency

    return float(zipf_frequency(word.lower(), "en"))


def is_general_word(phrase: str) -> bool:
    """A single plain word of general English: a fragment or too broad to be a concept alone.

    Only a lower-case word is plain: "Adam", "BERT" and "GPT-4" are names.

    >>> [is_general_word(w) for w in ["space", "token", "sparsity", "Adam", "trade-off"]]
    [True, True, False, False, True]
    """
    if " " in phrase.strip() or not phrase.islower() or looks_like_name(phrase):
        return False
    parts = [p for p in re.split(r"[-/]", phrase) if p]
    return bool(parts) and min(zipf(p) for p in parts) >= GENERAL_ZIPF


def singular(word: str) -> str:
    """A conservative singular for a phrase's last word.

    >>> [singular(w) for w in ["LoRAs", "LLMs", "models", "dynamics", "analysis", "policies"]]
    ['LoRA', 'LLM', 'model', 'dynamics', 'analysis', 'policy']
    """
    low = word.lower()
    if low in _NOT_PLURAL:
        return word
    if len(word) > 3 and word[-1] == "s" and word[-2].isupper():
        return word[:-1]  # LLMs, LoRAs, GNNs
    if len(low) <= 3 or not low.endswith("s") or low.endswith(("ss", "us", "is", "ics", "ous")):
        return word
    if low.endswith("ies") and len(low) > 4:
        return word[:-3] + ("Y" if word[-3].isupper() else "y")
    if low.endswith(("ches", "shes", "xes", "sses", "zes")):
        return word[:-2]
    return word[:-1]


def head(phrase: str) -> str:
    """The lower-cased singular last word: English noun phrases end with their head.

    >>> head("heavy-tailed gradient noises")
    'noise'
    """
    parts = phrase.split()
    return singular(parts[-1]).lower() if parts else ""


def variant_key(text: str) -> str:
    """The identity of a phrase up to case, hyphens, spacing and plural.

    >>> variant_key("Non-convex optimizations") == variant_key("nonconvex optimization")
    True
    >>> variant_key("LoRAs") == variant_key("LoRA")
    True
    """
    parts = text.split()
    if parts:
        parts[-1] = singular(parts[-1])
    return re.sub(r"[\W_]+", "", " ".join(parts).casefold())


def lower_case_words(texts: Iterable[str]) -> frozenset[str]:
    """The words ``texts`` write in lower case (hyphenated words whole).

    >>> sorted(lower_case_words(["Neural nets", "spiking neural networks"]))
    ['nets', 'networks', 'neural', 'spiking']
    """
    return frozenset(w for t in texts for w in re.findall(r"(?<![\w-])[a-z][a-z-]*", t))


# --- acronyms and names ------------------------------------------------------

# The shape of an acronym a paper defines in parentheses: short, letters,
# digits and hyphens, an optional plural s ("GINOP", "BG-0", "LLMs").
_DEFINED_ACRONYM = re.compile(r"[A-Za-z0-9][A-Za-z0-9\-]{0,14}s?")


def is_acronym(text: str) -> bool:
    """One word with at least two capitals: "SGD", "NeRF", "MoE", "Dual-MTP".

    >>> [is_acronym(t) for t in ["SGD", "NeRF", "Transformer", "Large Language Models"]]
    [True, True, False, False]
    """
    return " " not in text and sum(ch.isupper() for ch in text) >= 2


def is_defined_acronym(token: str) -> bool:
    """An acronym as papers define one in parentheses: "(GINOP)", "(LLMs)".

    >>> is_defined_acronym("GINOP"), is_defined_acronym("a-very-long-NAME-indeed")
    (True, False)
    """
    return bool(_DEFINED_ACRONYM.fullmatch(token)) and is_acronym(token)


def looks_like_name(word: str) -> bool:
    """Acronyms and mixed-case names: SGD, LoRA, Dual-MTP, GPT-4, BG-0.

    Given a phrase, it says whether the phrase holds such a name: two capitals
    anywhere ("post hoc OOD detection") are enough.

    >>> [looks_like_name(w) for w in ["SGD", "LoRA", "Dual-MTP", "Transformer", "2-sub"]]
    [True, True, True, False, False]
    """
    if not word[:1].isalpha():
        return False
    core = word.rstrip("s") if len(word) > 2 else word
    upper = sum(c.isupper() for c in core)
    return (
        upper >= 2
        or (upper >= 1 and any(c.isdigit() for c in core))
        or (upper == 1 and not core[0].isupper())
    )


def acronym_letters(acronym: str) -> str:
    """The letters an acronym spells, lower case, without a plural s.

    >>> acronym_letters("LLMs"), acronym_letters("BG-0")
    ('llm', 'bg0')
    """
    core = acronym[:-1] if acronym.endswith("s") and acronym[-2:-1].isupper() else acronym
    return "".join(c for c in core if c.isalnum()).lower()


def spells(letters: str, phrase_words: list[str], skips: int = 1, first: bool = True) -> bool:
    """Whether the words, in order, supply the letters (each word a prefix).

    Stop words may give no letter; so may at most ``skips`` other words
    after the first ("Importance Weights for Shifting Means" spells ISM).

    >>> spells("ism", "Importance Weights for Shifting Means".split())
    True
    """
    if not letters:
        return all(w.lower() in STOP_WORDS for w in phrase_words)
    if not phrase_words:
        return False
    word, rest = phrase_words[0], phrase_words[1:]
    parts = [p for p in re.split(r"[-/]", word) if p]
    if len(parts) > 1:  # each part of a hyphenated word spells on its own
        return spells(letters, parts + rest, skips, first)
    low = word.lower()
    if not first and low in STOP_WORDS and spells(letters, rest, skips, False):
        return True
    if any(
        low[:k] == letters[:k] and spells(letters[k:], rest, skips, False)
        for k in range(min(len(low), len(letters)), 0, -1)
    ):
        return True
    return not first and skips > 0 and bool(rest) and spells(letters, rest, skips - 1, False)


def spelt_from(phrase: str) -> str:
    """Every character :func:`spells` may read a letter from, in order.

    The letters of any acronym that ``phrase`` spells are a subsequence of this
    text (each word as written and as its hyphen parts, lower case), so a
    quick subsequence test rules out most phrases before :func:`abbreviates`.

    >>> spelt_from("Low-Rank Adaptation")
    'low-ranklowrankadaptationadaptation'
    """
    return "".join(
        w.lower() + "".join(p.lower() for p in re.split(r"[-/]", w)) for w in phrase.split()
    )


def is_subsequence(letters: str, text: str) -> bool:
    """Whether ``letters`` occur in ``text`` in order (not necessarily together)."""
    rest = iter(text)
    return all(c in rest for c in letters)


def abbreviates(acronym: str, phrase: str) -> bool:
    """Whether ``acronym`` can stand for ``phrase``, with no word skipped.

    Stricter than a definition in the text ("Low-Rank Adaptation (LoRA)"): used
    to join an acronym and a phrase that no paper explicitly connects.

    >>> abbreviates("LoRA", "low-rank adaptation"), abbreviates("GAN", "graph attention")
    (True, False)
    """
    letters = acronym_letters(acronym)
    parts = phrase.split()
    if len(letters) < 3 or len(parts) < 2 or parts[0][:1].lower() != letters[:1]:
        return False
    return spells(letters, parts, skips=0)
