"""The paper–concept graph: papers and the methods, problems and fields they mention.

Edges are the papers' concept links (width follows confidence); the strongest
shared-concept links between papers and the concept hierarchy can be switched
on. On large inputs it draws the concepts found in the most papers and, per
paper, only its most confident links to them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import networkx as nx

from kg.attrs import BROADER, MENTIONS, PAPER, SCORE, SHARES
from kg.export.views.bounds import (
    MAX_PAPERS,
    VISIBLE_EDGES,
    strongest_per_node,
    top_by_count,
    weight_control,
)
from kg.export.views.corpus import KINDS, Corpus, weight_of
from kg.export.views.layout import community_layout
from kg.export.views.page import EDGE_COLORS, Drawn, broader_edges, node, shares_edge
from kg.model import Kind
from kg.words import plural

__all__ = ["paper_concept", "MAX_GRAPH_CONCEPTS"]

#: Concepts drawn at most (beside the papers).
MAX_GRAPH_CONCEPTS = 1200
#: Shared-concept links each paper keeps when they are switched on.
SHARES_PER_PAPER = 3
_MENTION_BUDGET = VISIBLE_EDGES


@dataclass(frozen=True)
class _Chosen:
    """What the graph draws, and what the bounds say it left out."""

    papers: list[str]
    concepts: list[str]
    mentions: list[tuple[str, str]]  # (paper, concept), sorted
    hierarchy: list[tuple[str, str]]  # (narrower, broader), sorted
    shares: list[tuple[str, str]]
    weights: dict[tuple[str, str], float]  # of the shared-concept links among drawn papers
    count: dict[str, int]  # papers per concept
    with_papers: int  # concepts found in any paper
    least: int  # papers of the least-found drawn concept
    cap: int | None  # links per paper, when bounded
    total: int  # links to drawn concepts before the cap


def paper_concept(corpus: Corpus) -> Drawn:
    chosen = _choose(corpus)
    G = nx.Graph()
    G.add_nodes_from(chosen.papers + chosen.concepts)
    G.add_weighted_edges_from((p, c, 0.5 + _score(corpus, p, c)) for p, c in chosen.mentions)
    G.add_weighted_edges_from((c, b, 0.5) for c, b in chosen.hierarchy if not G.has_edge(c, b))
    layout = community_layout(G)

    count = chosen.count
    nodes = [
        node(p, PAPER, layout.positions[p], 7 + 2.8 * math.sqrt(G.degree(p)), G.degree(p) / 2)
        for p in chosen.papers
    ] + [
        node(c, corpus.kind(c), layout.positions[c], 6 + 2.8 * math.sqrt(count[c]), count[c])
        for c in chosen.concepts
    ]
    edges = [
        {
            "id": f"m{i}",
            "from": p,
            "to": c,
            "width": round(0.5 + 2.5 * _score(corpus, p, c), 2),
            "color": {"color": EDGE_COLORS[MENTIONS], "opacity": 0.5},
            "kind": MENTIONS,
        }
        for i, (p, c) in enumerate(chosen.mentions)
    ]
    edges += [
        shares_edge(f"s{i}", a, b, corpus.shares[a, b], 1.5, dashes=True)
        for i, (a, b) in enumerate(chosen.shares)
    ]
    edges += broader_edges(chosen.hierarchy)
    present = [PAPER] + [k for k in KINDS if any(corpus.kind(c) == k for c in chosen.concepts)]
    shown_weights = [chosen.weights[e] for e in chosen.shares]
    return Drawn(
        view="paper-concept",
        nodes=nodes,
        edges=edges,
        settings={
            "types": present,
            "weight": weight_control("shared-concept weight", SHARES, shown_weights),
            "edge_kinds": [MENTIONS, SHARES, BROADER],
            "edges_off": [SHARES, BROADER],
        },
        bounds=_bounds(chosen, len(corpus.papers)),
    )


def _choose(corpus: Corpus) -> _Chosen:
    """The most-found concepts; per paper, its most confident links when there are too many."""
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
    weights = {
        pair: weight_of(d)
        for pair, d in corpus.shares.items()
        if pair[0] in drawn_papers and pair[1] in drawn_papers
    }
    return _Chosen(
        papers=papers,
        concepts=concepts,
        mentions=mentions,
        hierarchy=sorted((c, b) for c in concepts for b in corpus.broader[c] if b in linked),
        shares=strongest_per_node(weights, SHARES_PER_PAPER, VISIBLE_EDGES),
        weights=weights,
        count=count,
        with_papers=len(with_papers),
        least=least,
        cap=cap,
        total=total,
    )


def _bounds(chosen: _Chosen, n_papers: int) -> list[str]:
    """What the bounded graph leaves out, in sentences."""
    bounds = []
    if len(chosen.concepts) < chosen.with_papers:
        bounds.append(
            f"This graph draws {len(chosen.concepts):,} of {chosen.with_papers:,} concepts: "
            f"those found in at least {plural(chosen.least, 'paper')}; search and the panel "
            "reach every concept."
        )
    if chosen.cap is not None:
        cap = chosen.cap
        bounds.append(
            "Each paper shows at most its most confident field and its most confident "
            + ("method or problem" if cap == 2 else f"{cap - 1} methods or problems")
            + f" among these ({len(chosen.mentions):,} of {chosen.total:,} links); "
            "its panel lists all of them."
        )
    if len(chosen.papers) < n_papers:
        bounds.append(
            f"{plural(n_papers - len(chosen.papers), 'paper')} with no link to a drawn concept "
            "are left out."
        )
    return bounds


def _score(corpus: Corpus, paper: str, concept: str) -> float:
    return float(corpus.mentions[paper][concept].get(SCORE) or 0)


def _most_confident(corpus: Corpus, paper: str, concepts: list[str], cap: int) -> list[str]:
    """The paper's most confident field and its ``cap - 1`` most confident other concepts."""
    ranked = sorted(concepts, key=lambda c: (-_score(corpus, paper, c), c))
    fields = [c for c in ranked if corpus.kind(c) == Kind.FIELD][:1]
    others = [c for c in ranked if corpus.kind(c) != Kind.FIELD][: cap - len(fields)]
    return sorted(fields + others)


def _within(corpus: Corpus, chosen: dict[str, list[str]], budget: int) -> dict[str, list[str]]:
    """At most ``budget`` links: every paper's most confident one first, then the strongest."""

    ranked = []
    for p, cs in chosen.items():
        for i, c in enumerate(sorted(cs, key=lambda c: (-_score(corpus, p, c), c))):
            ranked.append((i > 0, -_score(corpus, p, c), p, c))
    kept = {(p, c) for *_, p, c in sorted(ranked)[:budget]}
    return {p: [c for c in cs if (p, c) in kept] for p, cs in chosen.items()}
