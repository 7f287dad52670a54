"""A paper's candidate list made ready for ranking.

:func:`kg.extract.candidates.candidates` reads the text; the two steps here
use the whole list: the record's author keywords mark their candidates (and
join as candidates of their own when the text lacks them), and a defined
acronym stands for its expansion and the expansion's parts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from kg.extract.candidates import Candidate
from kg.extract.cues import cue_of
from kg.extract.phrases import is_generic
from kg.lexicon import METHOD_NAME_HEADS, PROBLEM_HEADS, head, variant_key
from kg.model import Kind

__all__ = ["keyword_candidates", "merge_acronyms"]


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
    out += [Candidate(k, -1, cue_of(k), keyword=True) for k in wanted.values() if not is_generic(k)]
    return out


def merge_acronyms(cands: list[Candidate]) -> list[Candidate]:
    """One candidate per defined acronym: drop its expansion and the expansion's parts.

    An acronym is what the paper studies when its expansion is ("We investigate Masked
    Image Modeling (MIM) for ...": MIM is the subject).
    """
    expansions = {c.expansion.lower(): c for c in cands if c.expansion}
    if not expansions:
        return cands
    subjects = {c.text.lower() for c in cands if c.studied}
    studied = {c.text for c in cands if c.expansion and c.expansion.lower() in subjects}
    kept = []
    for c in cands:
        low = c.text.lower()
        owner = next((a for e, a in expansions.items() if low in e and a is not c), None)
        if owner is not None:
            continue
        if c.expansion and not c.proposed:  # a proposed name is a method whatever its head
            c = replace(c, cue=_acronym_kind(c.expansion))
        if c.text in studied:
            c = replace(c, studied=True)
        kept.append(c)
    return kept


def _acronym_kind(expansion: str) -> Kind:
    """An abbreviated name is a method unless its expansion names a task."""
    h = head(expansion)
    if h in PROBLEM_HEADS and h not in METHOD_NAME_HEADS:
        return Kind.PROBLEM
    return Kind.METHOD
