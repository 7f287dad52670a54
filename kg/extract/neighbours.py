"""The words either side of a phrase where the abstract writes it, as classifier features.

How a phrase is used says much of what it is: a method is written after
"using", "via" or "with" and before "to" or "for"; a problem after "for",
"address" or "solve"; a setting after "under" or "in", or before "setting"
and "model"; an application after "such as" or before "applications". The
candidate classifier (:mod:`kg.extract.classify`) learns how much each
neighbour counts from SciERC's annotations; this module only says, for each
group of neighbour words, the share of a phrase's occurrences it borders.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["NEIGHBOUR_FEATURES", "neighbour_shares", "spots"]

# Groups of the word before an occurrence, and of the word (or bracket) after it.
_BEFORE: dict[str, tuple[str, ...]] = {
    "for": ("for",),
    "of": ("of",),
    "using": ("using", "use", "uses", "used", "employ", "employs", "apply", "applying"),
    "via": ("via", "through", "by", "from"),
    "with": ("with", "without"),
    "to": ("to", "into"),
    "on": ("on", "across"),
    "in": ("in", "within", "under", "where"),
    "as": ("as", "like", "including"),
    "propose": (
        "propose",
        "proposes",
        "introduce",
        "introduces",
        "present",
        "presents",
        "develop",
        "develops",
        "design",
        "designs",
    ),
    "study": (
        "study",
        "studies",
        "consider",
        "considers",
        "analyze",
        "analyzes",
        "analyse",
        "analyses",
        "investigate",
        "investigates",
    ),
    "solve": (
        "solve",
        "solves",
        "solving",
        "address",
        "addresses",
        "addressing",
        "tackle",
        "tackles",
        "tackling",
    ),
    "improve": (
        "improve",
        "improves",
        "improving",
        "enable",
        "enables",
        "achieve",
        "achieves",
        "accelerate",
        "accelerates",
    ),
    "than": ("than", "versus", "outperforms", "outperform", "over"),
    "and": ("and", "or"),
    "the": ("the", "a", "an"),
    "our": ("our", "this", "their", "its"),
}
_AFTER: dict[str, tuple[str, ...]] = {
    "for": ("for",),
    "to": ("to",),
    "of": ("of",),
    "with": ("with",),
    "is": ("is", "are", "was", "were", "has", "have"),
    "and": ("and", "or"),
    "in": ("in", "on", "under"),
    "that": ("that", "which", "where"),
    "bracket": ("(",),
    "comma": (",",),
    "end": (".", ";", ":"),
    "setting": (
        "setting",
        "settings",
        "model",
        "models",
        "assumption",
        "assumptions",
        "regime",
        "regimes",
        "condition",
        "conditions",
        "environment",
        "environments",
    ),
    "task": ("task", "tasks", "problem", "problems", "applications", "application"),
    "method": (
        "method",
        "methods",
        "algorithm",
        "algorithms",
        "approach",
        "approaches",
        "framework",
        "technique",
        "techniques",
    ),
    "performance": ("performance", "accuracy", "time", "cost", "error", "rate", "quality"),
}
NEIGHBOUR_FEATURES = tuple(f"before_{g}" for g in _BEFORE) + tuple(f"after_{g}" for g in _AFTER)
_BEFORE_GROUP = {w: i for i, ws in enumerate(_BEFORE.values()) for w in ws}
_AFTER_GROUP = {w: len(_BEFORE) + i for i, ws in enumerate(_AFTER.values()) for w in ws}
_LAST_WORD = re.compile(r"([\w'-]+)\s*$")
_NEXT = re.compile(r"\s*\)?\s*([(,.;:]|[\w'-]+)")  # past an acronym's closing bracket


def neighbour_shares(phrase: str, text: str) -> list[float]:
    """For each group of :data:`NEIGHBOUR_FEATURES`, the share of the phrase's
    whole-word occurrences in ``text`` (both lower case) that it borders.

    >>> shares = neighbour_shares("gradient clipping", "we propose gradient clipping for sgd.")
    >>> [f for f, s in zip(NEIGHBOUR_FEATURES, shares) if s]
    ['before_propose', 'after_for']
    """
    counts = [0.0] * len(NEIGHBOUR_FEATURES)
    found = spots(phrase, text)
    for start, end in found:
        before = _LAST_WORD.search(text, max(0, start - 40), start)
        if before and (i := _BEFORE_GROUP.get(before.group(1))) is not None:
            counts[i] += 1
        after = _NEXT.match(text, end)
        if after and (i := _AFTER_GROUP.get(after.group(1))) is not None:
            counts[i] += 1
    return [c / len(found) for c in counts] if found else counts


def spots(phrase: str, text: str) -> Sequence[tuple[int, int]]:
    """Where ``phrase`` occurs in ``text`` as whole words, without overlaps."""
    out, start, n = [], 0, len(phrase)
    while phrase and (i := text.find(phrase, start)) >= 0:
        if (i == 0 or not _word_char(text[i - 1])) and (
            i + n == len(text) or not _word_char(text[i + n])
        ):
            out.append((i, i + n))
            start = i + n
        else:
            start = i + 1
    return out


def _word_char(c: str) -> bool:
    return c.isalnum() or c == "_"  # what re's \w matches in a str pattern
