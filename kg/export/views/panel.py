"""What the side panel, the search box and the field filter know: every paper and concept.

The same data goes into each view, whatever the view draws, so a search finds
every paper and concept and the panel can show one that a bounded view leaves
off its canvas. Evidence sentences are stored once per paper and referred to by
index (a paper's links often cite the same sentence).
"""

from __future__ import annotations

import re
from typing import Any

from kg.attrs import (
    ABSTRACT,
    ALT_LABELS,
    AUTHORS,
    DERIVED_TITLE,
    EVIDENCE,
    EXPLANATION,
    IDENTIFIERS,
    KEYWORDS,
    LINK,
    ROLE,
    SCORE,
    SHARED,
    TITLE,
    VENUE,
    YEAR,
)
from kg.export.views.bounds import shown_weight
from kg.export.views.corpus import KINDS, Corpus, year_of

__all__ = ["panel_data", "ROLES", "NEAREST"]

#: How a role reads in the panel and tooltips.
ROLES = {
    "proposes": "proposes",
    "usesMethod": "uses",
    "addressesProblem": "addresses",
    "inField": "in field",
    "mentionsConcept": "mentions",
}
#: Nearest papers listed in a paper's panel.
NEAREST = 8
_MAX_AUTHORS = 12


def panel_data(corpus: Corpus) -> dict[str, Any]:
    """``{"papers": {...}, "concepts": {...}, "fields": [...], "shown_authors": n}`` for the
    page's script (a paper's panel lists its first ``n`` authors; search reads them all)."""
    return {
        "shown_authors": _MAX_AUTHORS,
        "papers": {p: _paper(corpus, p) for p in corpus.papers},
        "concepts": {c: _concept(corpus, c) for c in corpus.concepts},
        "fields": _field_tree(corpus),
    }


def _kind_rank(kind: str) -> int:
    return KINDS.index(kind) if kind in KINDS else len(KINDS)


def _paper(corpus: Corpus, paper: str) -> dict[str, Any]:
    d = corpus.attrs[paper]
    label = corpus.label(paper)
    authors = [str(a) for a in d.get(AUTHORS) or ()]
    sentences: dict[str, int] = {}
    links: list[tuple[str, str, float, int]] = []
    for c, m in corpus.mentions[paper].items():
        evidence = str(m.get(EVIDENCE) or "")
        at = sentences.setdefault(evidence, len(sentences)) if evidence else -1
        role = str(m.get(ROLE) or "")
        links.append((c, ROLES.get(role, role), round(float(m.get(SCORE) or 0.0), 2), at))
    links.sort(key=lambda x: (_kind_rank(corpus.kind(x[0])), -x[2], corpus.label(x[0]), x[0]))
    near = []
    for other, w in corpus.neighbours[paper][:NEAREST]:
        edge = corpus.shares[min(paper, other), max(paper, other)]
        why = edge.get(EXPLANATION) or ", ".join(str(s) for s in edge.get(SHARED) or ())
        near.append([other, shown_weight(w), str(why)])
    return {
        "label": label,
        "title": str(d.get(TITLE) or label),
        "derived": bool(d.get(DERIVED_TITLE)),
        "meta": " · ".join(str(x) for x in (d.get(VENUE), d.get(YEAR)) if x),
        "venue": str(d.get(VENUE) or ""),
        "year": year_of(d.get(YEAR)),
        "authors": authors,
        "keywords": [str(k) for k in d.get(KEYWORDS) or ()],
        "ids": [str(i) for i in d.get(IDENTIFIERS) or ()],
        "link": _web_link(d.get(LINK)),
        "abstract": str(d.get(ABSTRACT) or ""),
        "sentences": list(sentences),
        "concepts": [list(x) for x in links],
        "near": near,
        "fields": sorted(corpus.paper_fields[paper]),
        "links": len(corpus.neighbours[paper]),
    }


def _web_link(value: object) -> str | None:
    """An http(s) link, or None: a graph from elsewhere could hold ``javascript:`` URLs.

    >>> _web_link("https://doi.org/10.1/x"), _web_link(" JavaScript:alert(1)"), _web_link(3)
    ('https://doi.org/10.1/x', None, None)
    """
    if not isinstance(value, str) or not re.match(r"https?://[^\s/]", value, re.IGNORECASE):
        return None
    return value if not re.search(r"[\s<>\"\\]", value) else None


def _concept(corpus: Corpus, concept: str) -> dict[str, Any]:
    d = corpus.attrs[concept]
    papers = corpus.papers_of[concept]
    return {
        "label": corpus.label(concept),
        "kind": corpus.kind(concept),
        "alt": [str(a) for a in d.get(ALT_LABELS) or ()],
        "papers": list(papers),
        "broader": list(corpus.broader[concept]),
        "narrower": list(corpus.narrower[concept]),
    }


def _field_tree(corpus: Corpus) -> list[list[Any]]:
    """``[field, depth, papers]`` in tree order: areas by paper count, each then its topics."""
    count: dict[str, int] = {f: 0 for f in corpus.fields}
    for fields in corpus.paper_fields.values():
        for f in fields:
            count[f] += 1
    children: dict[str | None, list[str]] = {}
    for f in corpus.fields:
        children.setdefault(corpus.field_parent[f], []).append(f)
    out: list[list[Any]] = []

    def walk(parent: str | None, depth: int, seen: frozenset[str]) -> None:
        kids = [f for f in children.get(parent, ()) if count[f] > 0 and f not in seen]
        for f in sorted(kids, key=lambda f: (-count[f], corpus.label(f), f)):
            out.append([f, depth, count[f]])
            walk(f, depth + 1, seen | {f})

    walk(None, 0, frozenset())
    return out
