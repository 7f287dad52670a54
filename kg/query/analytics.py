"""Graph analytics over a build: the NetworkX graph back from disk, and what ``kg stats`` shows.

:func:`load_graph` reads ``graph.json`` (node-link JSON, lists kept as lists)
into the ``networkx.Graph`` that :func:`kg.graph.to_networkx` made; the
manual's docs/reference/graph-model.md ("NetworkX") lists its attributes.
:func:`graph_stats` computes, with networkx's own algorithms:

- the concepts (methods and problems) with the most papers, and those with
  the highest betweenness in the paper-concept graph (the concepts that
  bridge otherwise separate groups of papers; sampled over ``k`` sources
  when the graph is large, seeded, so the figures are reproducible);
- the communities of the shared-concept graph (Louvain, weighted, seeded),
  each with the concepts that define it: those its papers name far more
  often than the rest of the corpus (count in the community times
  ``ln(N / papers naming it)``);
- each paper's nearest neighbours by shared-concept weight, and why.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from kg.attrs import (
    AUTHORS,
    BROADER,
    CONCEPT,
    EXPLANATION,
    KIND,
    LABEL,
    MENTIONS,
    PAPER,
    SHARES,
    SOURCES,
    TYPE,
    WEIGHT,
)
from kg.defaults import OUT_DIR, STATS_NEIGHBOURS, STATS_TOP
from kg.errors import KGError, QueryError
from kg.words import plural

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["load_graph", "graph_stats", "Stats", "format_stats", "EXACT_BETWEENNESS"]

#: Graphs with more nodes than this get betweenness from a seeded sample of sources.
EXACT_BETWEENNESS = 2_000


def load_graph(path: str | Path = OUT_DIR) -> nx.Graph:
    """The NetworkX graph of a build: a build directory or its ``graph.json``.

    Node ids are ``paper:<id>`` and ``concept:<key>``; ``type`` is ``paper``
    or ``concept``, a concept's ``kind`` is ``method``, ``problem`` or
    ``field``; edges have ``type`` ``mentions`` (paper-concept, with role,
    score, evidence), ``shares`` (paper-paper, with weight, shared, how,
    contribution, explanation) or ``broader`` (concept hierarchy, fields'
    taxonomy included, with ``narrower`` and ``broader`` naming the ends).

    Raises:
        QueryError: No ``graph.json`` at ``path``, or it is not node-link JSON.
    """
    from kg.export import graph_from_json

    path = Path(path)
    file = path / "graph.json" if path.is_dir() else path
    if not file.is_file():
        raise QueryError(f"no graph at {file}; run `kg build` first or pass the build directory")
    try:
        return graph_from_json(file.read_text(encoding="utf-8"), source=str(file))
    except (OSError, UnicodeDecodeError) as exc:
        raise QueryError(f"{file}: cannot read it ({exc})") from exc
    except KGError as exc:
        raise QueryError(str(exc)) from exc


@dataclass(frozen=True)
class Community:
    """A group of papers that share concepts among themselves more than with the rest."""

    papers: tuple[str, ...]  # labels
    concepts: tuple[tuple[str, int], ...]  # defining concepts: (label, papers in the community)
    area: str | None  # the broad area most of its papers are in


@dataclass(frozen=True)
class Stats:
    """What ``kg stats`` prints (see the module docstring)."""

    papers: int
    concepts: int
    shares: int
    by_degree: tuple[tuple[str, str, int], ...]  # (label, kind, papers)
    by_betweenness: tuple[tuple[str, str, float], ...]  # (label, kind, betweenness)
    betweenness_sources: int | None  # None: exact; else the sample size
    communities: tuple[Community, ...]
    unconnected: int  # papers without any shared-concept edge
    neighbours: tuple[tuple[str, tuple[tuple[str, float, str], ...]], ...]
    #: (name as first written, papers, co-authors) of the authors with the most papers
    authors: tuple[tuple[str, int, int], ...] = ()
    #: (label, its records' locations) of each paper merged from several records
    merged: tuple[tuple[str, tuple[str, ...]], ...] = ()


def _subgraph(G: nx.Graph, kind: str) -> nx.Graph:
    """A new graph of the edges of ``kind``, nodes and edges in sorted order.

    Not a subgraph view: a view's nodes iterate in the order of a set of
    strings, which changes with Python's hash seed, and Louvain and sampled
    betweenness depend on node order even when seeded.
    """
    import networkx as nx

    H = nx.Graph()
    edges = (sorted((u, v)) + [d] for u, v, d in G.edges(data=True) if d.get(TYPE) == kind)
    H.add_edges_from(sorted(edges, key=lambda e: (e[0], e[1])))
    return H


def graph_stats(
    G: nx.Graph, *, top: int = STATS_TOP, neighbours: int = STATS_NEIGHBOURS, seed: int = 0
) -> Stats:
    """Degree, betweenness, communities and nearest neighbours of a kg graph."""
    import networkx as nx

    papers = sorted(n for n, d in G.nodes(data=True) if d.get(TYPE) == PAPER)
    label = {n: str(d.get(LABEL, n)) for n, d in G.nodes(data=True)}
    kind = {n: str(d.get(KIND, "")) for n, d in G.nodes(data=True)}
    extracted = {n for n, k in kind.items() if k in ("method", "problem")}
    mentions = _subgraph(G, MENTIONS)
    degree = {c: mentions.degree(c) for c in extracted if c in mentions}
    by_degree = sorted(degree, key=lambda c: (-degree[c], label[c], c))[:top]
    # Betweenness over papers and their methods and problems: fields would join everything.
    keep = extracted | set(papers)
    bipartite = nx.Graph()
    bipartite.add_nodes_from(sorted(n for n in mentions if n in keep))
    bipartite.add_edges_from((u, v) for u, v in mentions.edges if u in keep and v in keep)
    k = None if bipartite.number_of_nodes() <= EXACT_BETWEENNESS else EXACT_BETWEENNESS // 4
    between = nx.betweenness_centrality(bipartite, k=k, seed=seed) if len(bipartite) else {}
    ranked = sorted((c for c in between if c in extracted), key=lambda c: (-between[c], c))[:top]
    shares = _subgraph(G, SHARES)
    return Stats(
        papers=len(papers),
        concepts=sum(1 for d in G.nodes.values() if d.get(TYPE) == CONCEPT),
        shares=shares.number_of_edges(),
        by_degree=tuple((label[c], kind[c], degree[c]) for c in by_degree),
        by_betweenness=tuple((label[c], kind[c], round(between[c], 4)) for c in ranked),
        betweenness_sources=k,
        communities=_communities(G, shares, papers, label, kind, seed),
        unconnected=sum(1 for p in papers if p not in shares),
        neighbours=tuple(
            (label[p], _nearest(shares, p, label, neighbours)) for p in papers if p in shares
        ),
        authors=_authors(G, papers, top),
        merged=tuple(
            (label[p], tuple(G.nodes[p][SOURCES]))
            for p in papers
            if len(G.nodes[p].get(SOURCES) or ()) > 1
        ),
    )


def _authors(G: nx.Graph, papers: Sequence[str], top: int) -> tuple[tuple[str, int, int], ...]:
    """The authors with the most papers, one person per name however written.

    Names are compared as :func:`kg.ingest.author_key` does for merging
    records, but on the whole name ("Hayou, Soufiane" and "Soufiane Hayou" are
    one; "S. Hayou" another), so two people of one name are counted as one.
    """
    from kg.ingest import person_key

    written: dict[str, str] = {}
    works: Counter[str] = Counter()
    peers: dict[str, set[str]] = {}
    for p in papers:
        keys = []
        for name in G.nodes[p].get(AUTHORS) or ():
            key = person_key(str(name))
            if key and key not in keys:
                written.setdefault(key, str(name))
                keys.append(key)
        for key in keys:
            works[key] += 1
            peers.setdefault(key, set()).update(k for k in keys if k != key)
    ranked = sorted(works, key=lambda k: (-works[k], -len(peers[k]), k))[:top]
    return tuple((written[k], works[k], len(peers[k])) for k in ranked if works[k] > 1)


def _communities(
    G: nx.Graph,
    shares: nx.Graph,
    papers: Sequence[str],
    label: dict[str, str],
    kind: dict[str, str],
    seed: int,
) -> tuple[Community, ...]:
    import networkx as nx

    if not shares.number_of_edges():
        return ()
    groups = nx.community.louvain_communities(shares, weight=WEIGHT, seed=seed)
    groups = sorted((sorted(g) for g in groups if len(g) > 1), key=lambda g: (-len(g), g))
    named: dict[str, set[str]] = {p: set() for p in papers}
    areas: dict[str, set[str]] = {p: set() for p in papers}
    for u, v, d in G.edges(data=True):
        if d.get(TYPE) != MENTIONS:
            continue
        paper, concept = (u, v) if u in named else (v, u)
        if kind.get(concept) in ("method", "problem"):
            named[paper].add(concept)
        elif kind.get(concept) == "field" and not G.nodes[concept].get(BROADER):
            areas[paper].add(concept)
    df = Counter(c for p in papers for c in named[p])
    out = []
    for group in groups:
        count = Counter(c for p in group for c in named[p])
        score = {c: n * math.log(len(papers) / df[c]) for c, n in count.items() if n > 1}
        best = sorted(score, key=lambda c: (-score[c], label[c]))[:5]
        area = Counter(a for p in group for a in areas[p]).most_common(1)
        out.append(
            Community(
                papers=tuple(sorted(label[p] for p in group)),
                concepts=tuple((label[c], count[c]) for c in best),
                area=label[area[0][0]] if area else None,
            )
        )
    return tuple(out)


def _nearest(
    shares: nx.Graph, paper: str, label: dict[str, str], n: int
) -> tuple[tuple[str, float, str], ...]:
    near = sorted(shares[paper].items(), key=lambda kv: (-kv[1][WEIGHT], label[kv[0]], kv[0]))[:n]
    return tuple((label[q], d[WEIGHT], d.get(EXPLANATION, "")) for q, d in near)


def format_stats(s: Stats) -> str:
    """The stats as text for the terminal."""
    lines = [
        f"{plural(s.papers, 'paper')}, {plural(s.concepts, 'concept')}, "
        f"{plural(s.shares, 'shared-concept edge')}",
        "",
        "Concepts with the most papers (methods and problems):",
    ]
    lines += [f"  {n:5d}  {label}  ({kind})" for label, kind, n in s.by_degree]
    how = (
        "exact"
        if s.betweenness_sources is None
        else f"estimated from {s.betweenness_sources} sampled sources"
    )
    lines += ["", f"Concepts that bridge groups of papers (betweenness, {how}):"]
    lines += [f"  {b:.4f}  {label}  ({kind})" for label, kind, b in s.by_betweenness]
    lines += [
        "",
        f"Communities of papers (Louvain on shared-concept weights): {len(s.communities)}",
    ]
    for i, c in enumerate(s.communities, start=1):
        area = f", mostly {c.area}" if c.area else ""
        lines.append(f"  {i}. {plural(len(c.papers), 'paper')}{area}")
        if c.concepts:
            defining = ", ".join(f"{label} ({n})" for label, n in c.concepts)
            lines.append(f"     defined by: {defining}")
        lines.append(f"     papers: {'; '.join(c.papers)}")
    lines += [f"  ({plural(s.unconnected, 'paper')} share no concept with another)", ""]
    if s.authors:
        lines.append("Authors with the most papers (papers, co-authors):")
        lines += [f"  {n:5d}  {name}  ({peers} co-authors)" for name, n, peers in s.authors]
        lines.append("")
    if s.merged:
        lines.append(f"Papers merged from several records: {len(s.merged)}")
        lines += [f"  {label}: {', '.join(where)}" for label, where in s.merged[:STATS_TOP]]
        more = len(s.merged) - STATS_TOP
        lines += [f"  and {more} more"] if more > 0 else []
        lines.append("")
    lines.append("Nearest neighbours by shared concepts:")
    for paper, near in s.neighbours:
        lines.append(f"  {paper}")
        lines += [f"    {w:8.4f}  {q}  ({why})" for q, w, why in near]
    return "\n".join(lines) + "\n"
