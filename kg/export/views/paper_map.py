"""The paper map: papers joined by shared-concept edges, grouped into named communities.

Nodes are papers, coloured by their main broad area and sized by their number
of links; edge width follows the shared-concept weight. Communities of the
layout are named after the concepts most particular to them (a concept many of
a community's papers mention and few others do), and those names are what a
reader sees first.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Sequence

import networkx as nx

from kg.attrs import PAPER, SHARES
from kg.export.views.bounds import (
    MAX_EDGES,
    MAX_PAPERS,
    strongest_per_node,
    weight_control,
)
from kg.export.views.corpus import Corpus, weight_of
from kg.export.views.layout import Layout, community_layout
from kg.export.views.page import (
    AREA_COLORS,
    OTHER_AREA,
    Drawn,
    node,
    percentile_widths,
    shares_edge,
)

__all__ = ["paper_map", "SHARES_PER_PAPER"]

#: Past :data:`MAX_EDGES`, each paper keeps this many of its strongest shared-concept edges.
SHARES_PER_PAPER = 8


def paper_map(corpus: Corpus) -> Drawn:
    weights = {pair: weight_of(d) for pair, d in corpus.shares.items()}
    papers, paper_note = _papers(corpus, weights)
    drawn = set(papers)
    inside = {pair: w for pair, w in weights.items() if pair[0] in drawn and pair[1] in drawn}
    if len(inside) <= MAX_EDGES:
        kept = sorted(inside)
    else:  # the strongest few of each paper, so no paper loses all its links
        kept = strongest_per_node(inside, SHARES_PER_PAPER, MAX_EDGES)

    G = nx.Graph()
    G.add_nodes_from(papers)
    G.add_weighted_edges_from((a, b, weights[a, b]) for a, b in kept)
    layout = community_layout(G)
    areas, area_color = _areas(corpus, papers)

    strength = {p: sum(d["weight"] for d in G[p].values()) for p in papers}
    nodes = []
    for p in papers:
        area = corpus.main_area[p] or ""
        area = area if area in area_color else ""  # "": the legend's "other areas"
        drawn_node = node(
            p,
            PAPER,
            layout.positions[p],
            7 + 2.6 * math.sqrt(G.degree(p)),
            round(strength[p], 3),
            color=area_color.get(area, OTHER_AREA),
        )
        nodes.append(drawn_node | {"area": area})
    widths = percentile_widths([weights[e] for e in kept])
    edges = [
        shares_edge(f"s{i}", a, b, corpus.shares[a, b], widths[i]) for i, (a, b) in enumerate(kept)
    ]
    bounds = list(paper_note)
    if len(kept) < len(inside):
        bounds.append(
            f"Each paper keeps up to its {SHARES_PER_PAPER} strongest shared-concept links, and "
            "at least its strongest: "
            f"{len(kept):,} of {len(inside):,} links are in this page."
        )
    return Drawn(
        view="paper-map",
        nodes=nodes,
        edges=edges,
        settings={
            "types": [PAPER],
            "areas": areas,
            "width_legend": "shared-concept weight",
            "weight": weight_control("shared-concept weight", SHARES, [weights[e] for e in kept]),
            "groups": _groups(corpus, layout),
            "edge_kinds": [SHARES],
        },
        bounds=bounds,
    )


def _papers(corpus: Corpus, weights: dict[tuple[str, str], float]) -> tuple[list[str], list[str]]:
    if len(corpus.papers) <= MAX_PAPERS:
        return list(corpus.papers), []
    strength: dict[str, float] = dict.fromkeys(corpus.papers, 0.0)
    for (a, b), w in weights.items():
        strength[a] += w
        strength[b] += w
    best = sorted(corpus.papers, key=lambda p: (-strength[p], p))[:MAX_PAPERS]
    note = (
        f"This map draws the {MAX_PAPERS:,} best-connected of {len(corpus.papers):,} papers; "
        "search and the panel reach every paper."
    )
    return sorted(best), [note]


def _areas(corpus: Corpus, papers: list[str]) -> tuple[list[list], dict[str, str]]:
    """Legend rows ``[area, colour, papers]``; the biggest areas get their own colour."""
    count = Counter(corpus.main_area[p] for p in papers)
    ranked = sorted((a for a in count if a), key=lambda a: (-count[a], corpus.label(a), a))
    colors = {a: AREA_COLORS[i] for i, a in enumerate(ranked[: len(AREA_COLORS)])}
    rows: list[list] = [[a, colors[a], count[a]] for a in ranked[: len(AREA_COLORS)]]
    rest = sum(count[a] for a in ranked[len(AREA_COLORS) :]) + count[None]
    if rest:
        rows.append(["", OTHER_AREA, rest])
    return rows, colors


def _groups(corpus: Corpus, layout: Layout) -> list[dict]:
    """Each community's disk and name (its two most particular concepts)."""
    n = max(len(corpus.papers), 1)
    out = []
    for g in layout.groups:
        if g.isolated:
            name = "no shared-concept links"
        elif len(g.members) < 3:
            continue
        else:
            name = " · ".join(corpus.label(c) for c in _particular(corpus, g.members, n)[:2])
        out.append({"x": g.x, "y": g.y, "r": g.r, "members": list(g.members), "label": name})
    return out


def _particular(corpus: Corpus, members: Sequence[Hashable], n: int) -> list[str]:
    """Concepts by how particular they are to ``members``: count inside times log-rarity."""
    inside: Counter[str] = Counter()
    for p in members:
        inside.update(list(corpus.mentions[str(p)]))
    need = 2 if len(members) >= 4 else 1
    scored = [
        (-(k * math.log(n / max(len(corpus.papers_of[c]), 1))), corpus.label(c), c)
        for c, k in inside.items()
        if k >= need
    ]
    picked: list[str] = []
    for _, label, c in sorted(scored):
        if all(label.lower() != corpus.label(o).lower() for o in picked):
            picked.append(c)
    return picked
