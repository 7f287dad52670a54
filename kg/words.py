"""Counts in words, for the messages and pages kg writes.

A module of its own on the ground floor, outside what the extraction cache's key
hashes (:mod:`kg.extract.cache`), so that wording never invalidates a cache.
"""

from __future__ import annotations

__all__ = ["plural"]


def plural(n: int, word: str, many: str | None = None) -> str:
    """ "1 paper", "2,610 papers", "1 analysis" / "2 analyses" (``many``).

    >>> plural(1, "violation"), plural(2610, "paper"), plural(0, "problem")
    ('1 violation', '2,610 papers', '0 problems')
    """
    return f"{n:,} {word if n == 1 else (many or word + 's')}"
