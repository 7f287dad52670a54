"""A readable label for every paper: its title, else one made from its concepts."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from kg.lexicon import looks_like_name
from kg.model import Concept, Kind, Link, Paper, Role

__all__ = ["paper_labels"]

_Rank = tuple[int, int, int, float]
#: Words of the abstract that name a paper with neither a title nor concepts.
_FIRST_WORDS = 8


def paper_labels(
    papers: Sequence[Paper], concepts: Sequence[Concept], links: Sequence[Link]
) -> dict[str, str]:
    """A human-readable label per paper: its title, else one made from its concepts.

    An untitled paper is called by the method it proposes (a name such as
    "Dual-MTP" first, else its strongest method) and its strongest problem:
    "Dual-MTP: error accumulation".
    Records of one paper are merged before (:mod:`kg.ingest`), so a label two
    papers share names two papers: each gets its first author's last name and
    year, "Attention (Vaswani 2017)", and the paper id if that is not enough,
    so every label is unique.
    """
    ranked = _ranked_labels(concepts, links)
    labels = {}
    for p in papers:
        if p.title:
            labels[p.id] = p.title
            continue
        method = _best(ranked.get((p.id, Kind.METHOD), []))
        problem = _best(ranked.get((p.id, Kind.PROBLEM), []), unlike=method)
        area = _best(ranked.get((p.id, Kind.FIELD), []))
        parts = [x for x in (method, problem or area) if x]
        labels[p.id] = ": ".join(parts) if parts else _first_words(p.text)
    counts = Counter(labels.values())
    by_id = {p.id: p for p in papers}
    labels = {
        pid: (_told_apart(lab, by_id[pid]) if counts[lab] > 1 else lab)
        for pid, lab in labels.items()
    }
    counts = Counter(labels.values())
    return {pid: (f"{lab} [{pid}]" if counts[lab] > 1 else lab) for pid, lab in labels.items()}


def _told_apart(label: str, paper: Paper) -> str:
    """``label (Family Year)`` from what the record gives, or ``label`` without either."""
    family = paper.authors[0].partition(",")[0].split()[-1:] if paper.authors else []
    year = [str(paper.year)] if paper.year is not None else []
    who = " ".join(family + year)
    return f"{label} ({who})" if who else label


def _ranked_labels(
    concepts: Sequence[Concept], links: Sequence[Link]
) -> dict[tuple[str, Kind], list[tuple[_Rank, str]]]:
    """Per paper and kind, each concept label with how well it would name the paper."""
    by_key = {c.key: c for c in concepts}
    methods: dict[str, set[str]] = {}
    typed = [link for link in links if link.role.typed]  # what the paper itself says
    for link in typed:
        if link.role.kind is Kind.METHOD:
            methods.setdefault(link.paper_id, set()).add(by_key[link.concept_key].label.casefold())
    ranked: dict[tuple[str, Kind], list[tuple[_Rank, str]]] = {}
    for link in typed:
        concept = by_key[link.concept_key]
        named = " " not in concept.label and looks_like_name(concept.label)
        if concept.kind is Kind.METHOD:
            # A variant is more telling than what it varies: "Clipped-SGD" over "SGD".
            pieces = set(concept.label.casefold().split("-")) - {concept.label.casefold()}
            variant = named and bool(pieces & methods[link.paper_id])
            # What the paper proposes, then a variant it studies, then its strongest
            # method: a name alone (a baseline such as "LLaVA") earns no precedence.
            rank = (int(link.role is Role.PROPOSES), int(variant), 0, link.strength)
        else:  # a spelled-out problem reads better in a title than an acronym
            rank = (0, int(not named), 0, link.strength)
        ranked.setdefault((link.paper_id, concept.kind), []).append((rank, concept.label))
    return ranked


def _best(options: list[tuple[_Rank, str]], unlike: str = "") -> str:
    """The top-ranked label not already part of ``unlike`` ("MTP" in "Dual-MTP")."""
    for _, label in sorted(options, key=lambda o: (tuple(-x for x in o[0]), o[1])):
        if not unlike or label.casefold() not in unlike.casefold():
            return label
    return ""


def _first_words(text: str, n: int = _FIRST_WORDS) -> str:
    words = text.split()
    return " ".join(words[:n]) + ("…" if len(words) > n else "")
