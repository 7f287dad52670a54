"""What the side panel, the search box and the field filter know: every paper and concept.

The same data goes into each view, whatever the view draws, so a search finds
every paper and concept and the panel can show one that a bounded view leaves
off its canvas. What only an opened paper shows (its abstract, the sentences its
links cite, its nearest papers and identifiers) is its *details*: written once
for all three views, :data:`PER_FILE` papers to a script in :data:`DETAILS_DIR`,
and loaded by a page when a paper is opened, so a page's weight grows with what
search needs of each paper, not with its abstract (at 10,000 papers the pages
were 61-68 MB with the details inline). Evidence sentences are stored once per
paper and referred to by index (a paper's links often cite the same sentence).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

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
from kg.export.views.page import json_block

__all__ = [
    "panel_data",
    "Details",
    "detail_files",
    "details_name",
    "details_names",
    "is_details_file",
    "ROLES",
    "NEAREST",
    "DETAILS_DIR",
    "PER_FILE",
]

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
#: The folder beside the pages that holds the papers' details, and papers per file there.
DETAILS_DIR = "paper-details"
PER_FILE = 500
#: What a details file calls: the page defines it (kg/export/assets/view-panel.js).
_CALLBACK = "kgDetails"
_T = TypeVar("_T")
#: The names :func:`details_name` gives.
_DETAILS_FILE = re.compile(r"[0-9]{4,}\.js")


def panel_data(corpus: Corpus, build: str) -> dict[str, Any]:
    """What the page's script knows of every paper and concept, compactly:

    - ``concepts``: ``[{"id": iri, "label", "kind", "alt", "broader", "narrower"}, ...]``
      in the order of ``corpus.concepts``; elsewhere a concept is its number in this list;
    - ``roles``: the names of the link roles; a link names its role by number;
    - ``papers``: ``{iri: {..., "concepts": [[concept, role, confidence, sentence], ...],
      "fields": [concept, ...], "file": n}}``, ``title`` left out where it is the label,
      ``derived`` and ``link`` where they are false and none;
    - ``fields``, ``shown_authors`` (a paper's panel lists its first ``n`` authors; search
      reads them all), ``details`` (the folder of the details files; a paper's ``file`` is
      the number of its file there) and ``build`` (:attr:`Details.build`: the page takes
      only details of its own build).

    A link names its concept and role by number: at 25,000 papers the concepts' IRIs and
    the role names were most of a page's weight. The page's script reads them back
    (kg/export/assets/view-network.js).
    """
    number = {c: i for i, c in enumerate(corpus.concepts)}
    roles: dict[str, int] = {}  # numbered as first met
    papers = {
        p: _paper(corpus, p, n, number, roles)
        for n, chunk in enumerate(_files(corpus.papers))
        for p in chunk
    }
    return {
        "shown_authors": _MAX_AUTHORS,
        "details": DETAILS_DIR,
        "build": build,
        "roles": list(roles),
        "papers": papers,
        "concepts": [{"id": c, **_concept(corpus, c)} for c in corpus.concepts],
        "fields": _field_tree(corpus),
    }


def _files(papers: Sequence[_T]) -> list[Sequence[_T]]:
    """The papers of each details file, in order: :data:`PER_FILE` to a file."""
    return [papers[start : start + PER_FILE] for start in range(0, len(papers), PER_FILE)]


def details_names(papers: int) -> list[str]:
    """The details files of a build of ``papers`` papers, by path relative to the pages.

    >>> details_names(1001)
    ['paper-details/0000.js', 'paper-details/0001.js', 'paper-details/0002.js']
    """
    return [details_name(number) for number in range(len(_files(range(papers))))]


def is_details_file(name: str) -> bool:
    """Whether a file of this name in :data:`DETAILS_DIR` is kg's (not a user's).

    >>> is_details_file("0012.js"), is_details_file("notes.js")
    (True, False)
    """
    return _DETAILS_FILE.fullmatch(name) is not None


def details_name(number: int) -> str:
    """The path, relative to the pages, of details file ``number``.

    >>> details_name(3)
    'paper-details/0003.js'
    """
    return f"{DETAILS_DIR}/{number:04d}.js"


@dataclass(frozen=True)
class Details:
    """The papers' details files, by path relative to the pages, and the build they belong to:
    a digest of their data, which the pages carry too, so a page never shows another build's
    details (a folder copied from elsewhere, or pages kept from an older build)."""

    build: str
    files: dict[str, str]


def detail_files(corpus: Corpus) -> Details:
    """The papers' details as scripts: each file calls ``kgDetails(number, build, {paper:
    details})`` for its :data:`PER_FILE` papers (in the order of ``corpus.papers``), with the
    data as JSON (a JavaScript expression), ``<``, ``>``, ``&`` and ``'`` escaped as in the
    pages, so no file holds markup whatever the papers say (and the line separators U+2028 and
    U+2029, which older browsers do not take inside a script's strings)."""
    data = [
        str(json_block({p: _details(corpus, p) for p in papers}))
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
        for papers in _files(corpus.papers)
    ]
    digest = hashlib.sha256()
    for chunk in data:
        digest.update(chunk.encode())
        digest.update(b"\n")
    build = digest.hexdigest()[:16]
    return Details(
        build,
        {
            details_name(number): f'{_CALLBACK}({number},"{build}",{chunk});\n'
            for number, chunk in enumerate(data)
        },
    )


def _kind_rank(kind: str) -> int:
    return KINDS.index(kind) if kind in KINDS else len(KINDS)


def _paper(
    corpus: Corpus, paper: str, file: int, number: dict[str, int], roles: dict[str, int]
) -> dict[str, Any]:
    """What every page knows of a paper: what search, filters, tooltips and export read
    (concepts by ``number``, roles by ``roles``, which numbers a role when first met)."""
    d = corpus.attrs[paper]
    label = corpus.label(paper)
    sentences = _sentences(corpus, paper)
    links: list[tuple[str, str, float, int]] = []
    for c, m in corpus.mentions[paper].items():
        evidence = str(m.get(EVIDENCE) or "")
        at = sentences[evidence] if evidence else -1
        role = str(m.get(ROLE) or "")
        links.append((c, ROLES.get(role, role), round(float(m.get(SCORE) or 0.0), 2), at))
    links.sort(key=lambda x: (_kind_rank(corpus.kind(x[0])), -x[2], corpus.label(x[0]), x[0]))
    for _, role, _, _ in links:
        roles.setdefault(role, len(roles))  # numbered when first met
    title = str(d.get(TITLE) or label)
    link = _web_link(d.get(LINK))
    return {
        "label": label,
        **({"title": title} if title != label else {}),
        **({"derived": True} if d.get(DERIVED_TITLE) else {}),
        "meta": " · ".join(str(x) for x in (d.get(VENUE), d.get(YEAR)) if x),
        "venue": str(d.get(VENUE) or ""),
        "year": year_of(d.get(YEAR)),
        "authors": [str(a) for a in d.get(AUTHORS) or ()],
        **({"link": link} if link else {}),
        "concepts": [[number[c], roles[r], w, at] for c, r, w, at in links],
        "fields": sorted(number[f] for f in corpus.paper_fields[paper]),
        "links": len(corpus.neighbours[paper]),
        "file": file,
    }


def _sentences(corpus: Corpus, paper: str) -> dict[str, int]:
    """The sentences a paper's links cite, each once, numbered in the order of its links."""
    out: dict[str, int] = {}
    for m in corpus.mentions[paper].values():
        evidence = str(m.get(EVIDENCE) or "")
        if evidence:
            out.setdefault(evidence, len(out))
    return out


def _details(corpus: Corpus, paper: str) -> dict[str, Any]:
    """What a page loads when a paper is opened: its abstract, the sentences its links cite
    (by the numbers of :func:`_paper`), its nearest papers, keywords and identifiers."""
    d = corpus.attrs[paper]
    near = []
    for other, w in corpus.neighbours[paper][:NEAREST]:
        edge = corpus.shares[min(paper, other), max(paper, other)]
        why = edge.get(EXPLANATION) or ", ".join(str(s) for s in edge.get(SHARED) or ())
        near.append([other, shown_weight(w), str(why)])
    return {
        "abstract": str(d.get(ABSTRACT) or ""),
        "sentences": list(_sentences(corpus, paper)),
        "near": near,
        "keywords": [str(k) for k in d.get(KEYWORDS) or ()],
        "ids": [str(i) for i in d.get(IDENTIFIERS) or ()],
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
    """A concept as the page knows it; its papers are its papers' links read backwards (the
    page's script lists them once loaded: at 25,000 papers they were 7 MB of each page)."""
    d = corpus.attrs[concept]
    return {
        "label": corpus.label(concept),
        "kind": corpus.kind(concept),
        "alt": [str(a) for a in d.get(ALT_LABELS) or ()],
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
