"""The paper–concept graph: papers and the methods, problems and fields they mention.

Edges are the papers' concept links (width follows confidence); the strongest
shared-concept links between papers and the concept hierarchy can be switched
on. On large inputs it draws the concepts found in the most papers and, per
paper, only its most confident links to them.
"""

from __future__ import annotations

import math

import networkx as nx

from kg.export.views.bounds import (
    MAX_PAPERS,
    VISIBLE_EDGES,
    plural,
    strongest_per_node,
    top_by_count,
    weight_steps,
)
from kg.export.views.corpus import KINDS, Corpus, weight_of
from kg.export.views.layout import community_layout
from kg.export.views.page import (
    COLORS,
    EDGE_COLORS,
    SHAPES,
    Drawn,
    broader_edges,
    shares_edge,
)

__all__ = ["paper_concept", "MAX_GRAPH_CONCEPTS"]

#: Concepts drawn at most (beside the papers).
MAX_GRAPH_CONCEPTS = 1200
#: Shared-concept links each paper keeps when they are switched on.
SHARES_PER_PAPER = 3
_MENTION_BUDGET = VISIBLE_EDGES


def paper_concept(corpus: Corpus) -> Drawn:
    count = {c: len(corpus.papers_of[c]) for c in corpus.concepts}
    with_papers = [c for c in corpus.concepts if count[c] > 0]
    concepts, least = top_by_count(with_papers, count.__getitem__, MAX_GRAPH_CONCEPTS)
    shown = set(concepts)

    per_paper = {p: [c for c in corpus.mentions[p] if c in shown] for p in corpus.papers}
    total = sum(len(cs) for cs in per_paper.values())
    cap = None
    if total > _MENTION_BUDGET:
        cap = max(2, _MENTION_BUDGET // max(len(corpus.papers), 1))
        per_paper = {p: _most_confident(corpus, p, cs, cap) for p, cs in per_paper.items()}
        per_paper = _within(corpus, per_paper, _MENTION_BUDGET)
    papers = [p for p in corpus.papers if per_paper[p] or cap is None]
    if len(papers) > MAX_PAPERS:
        papers = sorted(papers, key=lambda p: (-len(corpus.mentions[p]), p))[:MAX_PAPERS]
        papers.sort()
    drawn_papers = set(papers)
    mentions = sorted((p, c) for p in papers for c in per_paper[p])
    linked = {c for _, c in mentions} | (shown if cap is None else set())
    concepts = [c for c in concepts if c in linked]
    hierarchy = sorted((c, b) for c in concepts for b in corpus.broader[c] if b in linked)
    weights = {
        pair: weight_of(d)
        for pair, d in corpus.shares.items()
        if pair[0] in drawn_papers and pair[1] in drawn_papers
    }
    shares = strongest_per_node(weights, SHARES_PER_PAPER, VISIBLE_EDGES)

    G = nx.Graph()
    G.add_nodes_from(papers + concepts)
    G.add_weighted_edges_from(
        (p, c, 0.5 + float(corpus.mentions[p][c].get("score") or 0)) for p, c in mentions
    )
    G.add_weighted_edges_from((c, b, 0.5) for c, b in hierarchy if not G.has_edge(c, b))
    layout = community_layout(G)

    nodes = []
    for n in papers + concepts:
        kind = "paper" if n in drawn_papers else corpus.kind(n)
        x, y = layout.positions[n]
        degree = G.degree(n) if kind == "paper" else count[n]
        nodes.append(
            {
                "id": n,
                "x": x,
                "y": y,
                "shape": SHAPES.get(kind, "dot"),
                "size": round((7 if kind == "paper" else 6) + 2.8 * math.sqrt(degree), 1),
                "color": COLORS.get(kind, "#888888"),
                "kind": kind,
                "rank": count[n] if kind != "paper" else G.degree(n) / 2,
            }
        )
    edges = []
    for i, (p, c) in enumerate(mentions):
        score = float(corpus.mentions[p][c].get("score") or 0)
        edges.append(
            {
                "id": f"m{i}",
                "from": p,
                "to": c,
                "width": round(0.5 + 2.5 * score, 2),
                "color": {"color": EDGE_COLORS["mentions"], "opacity": 0.5},
                "kind": "mentions",
            }
        )
    edges += [
        shares_edge(f"s{i}", a, b, corpus.shares[a, b], 1.5, dashes=True)
        for i, (a, b) in enumerate(shares)
    ]
    edges += broader_edges(hierarchy)
    bounds = []
    if len(concepts) < len(with_papers):
        bounds.append(
            f"This graph draws {len(concepts):,} of {len(with_papers):,} concepts: those found "
            f"in at least {plural(least, 'paper')}; search and the panel reach every concept."
        )
    if cap is not None:
        bounds.append(
            "Each paper shows at most its most confident field and its most confident "
            + ("method or problem" if cap == 2 else f"{cap - 1} methods or problems")
            + f" among these ({len(mentions):,} of {total:,} links); "
            "its panel lists all of them."
        )
    if len(papers) < len(corpus.papers):
        bounds.append(
            f"{len(corpus.papers) - len(papers):,} papers with no link to a drawn concept "
            "are left out."
        )
    steps, start = weight_steps([weights[e] for e in shares])
    present = ["paper"] + [k for k in KINDS if any(corpus.kind(c) == k for c in concepts)]
    return Drawn(
        view="paper-concept",
        nodes=nodes,
        edges=edges,
        settings={
            "types": present,
            "weight": {
                "label": "shared-concept weight",
                "kind": "shares",
                "steps": steps,
                "start": start,
            },
            "edge_kinds": ["mentions", "shares", "broader"],
            "edges_off": ["shares", "broader"],
        },
        bounds=bounds,
    )


def _most_confident(corpus: Corpus, paper: str, concepts: list[str], cap: int) -> list[str]:
    """The paper's most confident field and its ``cap - 1`` most confident other concepts."""
    score = corpus.mentions[paper]
    ranked = sorted(concepts, key=lambda c: (-float(score[c].get("score") or 0), c))
    fields = [c for c in ranked if corpus.kind(c) == "field"][:1]
    others = [c for c in ranked if corpus.kind(c) != "field"][: cap - len(fields)]
    return sorted(fields + others)


def _within(corpus: Corpus, chosen: dict[str, list[str]], budget: int) -> dict[str, list[str]]:
    """At most ``budget`` links: every paper's most confident one first, then the strongest."""

    def score(p: str, c: str) -> float:
        return float(corpus.mentions[p][c].get("score") or 0)

    ranked = []
    for p, cs in chosen.items():
        for i, c in enumerate(sorted(cs, key=lambda c: (-score(p, c), c))):
            ranked.append((i > 0, -score(p, c), p, c))
    kept = {(p, c) for *_, p, c in sorted(ranked)[:budget]}
    return {p: [c for c in cs if (p, c) in kept] for p, cs in chosen.items()}
