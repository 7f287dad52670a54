"""Acronyms an abstract defines: "Stochastic Gradient Descent (SGD)", "LoRA (low-rank ...)"."""

from __future__ import annotations

import re

from kg.extract.phrases import tokens
from kg.lexicon import STOP_WORDS, acronym_letters, is_defined_acronym, spells

__all__ = ["acronyms"]

_PAREN = re.compile(r"\(([^()]{1,80})\)")
# How many words before a parenthesis may hold an expansion.
_LOOKBACK = 12
# An expansion may have this many more words than its acronym has letters
# (function words give none: "Importance Weights for Shifting Means").
_EXTRA_WORDS = 4


def acronyms(sentence: str) -> dict[str, str]:
    """Acronyms a sentence defines, mapped to their expansions.

    Both orders are recognised, and letters may come from inside words
    ("INformative" gives IN) or skip function words.

    >>> acronyms("Stochastic Gradient Descent (SGD) is simple.")
    {'SGD': 'Stochastic Gradient Descent'}
    >>> acronyms("we propose LoRA (low-rank adaptation) for fine-tuning")
    {'LoRA': 'low-rank adaptation'}
    >>> acronyms("Generic INformative OPtimism (GINOP) works")
    {'GINOP': 'Generic INformative OPtimism'}
    """
    found: dict[str, str] = {}
    for match in _PAREN.finditer(sentence):
        inside = match.group(1).strip()
        before = [t for t, _, _ in tokens(sentence[: match.start()])][-_LOOKBACK:]
        if is_defined_acronym(inside) and before:
            expansion = _expansion(inside, before)
            if expansion:
                found[inside] = expansion
            continue
        inner = [t for t, _, _ in tokens(inside)]
        if before and len(inner) >= 2 and is_defined_acronym(before[-1]):
            expansion = _expansion(before[-1], inner)
            if expansion and expansion == " ".join(inner[-len(expansion.split()) :]):
                found[before[-1]] = expansion
    return found


def _expansion(acronym: str, words: list[str]) -> str | None:
    """The shortest run of trailing ``words`` whose initials spell ``acronym``."""
    letters = acronym_letters(acronym)
    if len(letters) < 2:
        return None
    for n in range(1, min(len(words), len(letters) + _EXTRA_WORDS) + 1):
        span = words[-n:]
        if span[0].lower() in STOP_WORDS:
            continue
        if spells(letters, span):
            return " ".join(span)
    return None
