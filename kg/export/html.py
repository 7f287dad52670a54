"""A standalone, offline HTML view of a paper/concept graph.

The page is drawn by pyvis (vis-network underneath) with kg's own template in
``kg/export/assets/``: pyvis's stock template links bootstrap from a CDN,
writes the heading unescaped and switches tooltips to HTML when a title
contains ``href``. Here every script and style is inlined, the template
autoescapes, node data travels as HTML-safe JSON and tooltips and the detail
panel are plain text, so abstracts cannot inject markup.

Layouts settle quickly even for thousands of nodes: straight edges,
forceAtlas2 with a bounded number of stabilisation iterations, physics off
once stable, and nodes/edges built as plain lists (pyvis's ``add_edge`` scans
every existing edge, which is quadratic).

>>> g = nx.Graph()
>>> g.add_node("paper:1", type="paper", label="Smith 2020", title="On <b>SGD</b>",
...            abstract="", year=2020, venue=None, authors=["A. Smith"])
>>> page = render_html(g, "Demo & test")
>>> "<h1>Demo &amp; test</h1>" in page, "<b>SGD</b>" in page
(True, False)
"""

from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path
from typing import Any

import networkx as nx
import pyvis
from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup
from pyvis.network import Network

__all__ = ["render_html", "COLORS", "BIG_GRAPH", "MAX_SHARES_PER_PAPER"]

#: Fill colours of the node types; the page's legend uses the same ones.
COLORS = {
    "paper": "#3b6ea8",
    "method": "#e8833a",
    "problem": "#d1495b",
    "field": "#4f9d69",
}
_KINDS = ("method", "problem", "field")
_ROLES = {
    "proposes": "proposes",
    "usesMethod": "uses method",
    "addressesProblem": "addresses problem",
    "inField": "in field",
    "mentionsConcept": "mentions",
}
#: Above this many papers, concepts only one paper mentions leave the canvas
#: (they stay in that paper's detail panel) so big graphs remain readable.
BIG_GRAPH = 300
#: Each paper keeps at most this many of its strongest shared-concept links.
MAX_SHARES_PER_PAPER = 8
_SEED = 20240229


def render_html(graph: nx.Graph, heading: str, *, min_concept_papers: int | None = None) -> str:
    """Return the complete HTML page for ``graph`` (as :func:`kg.graph.to_networkx` makes it).

    Args:
        graph: Papers, concepts, ``mentions`` and ``shares`` edges.
        heading: Page title, shown as text.
        min_concept_papers: Concepts linked to fewer papers are left off the
            canvas (not the detail panel). Defaults to 1, or 2 for graphs
            with more than :data:`BIG_GRAPH` papers.

    Returns:
        The same string for the same graph, byte for byte.
    """
    papers = sorted(n for n, d in graph.nodes(data=True) if d.get("type") == "paper")
    concepts = sorted(n for n, d in graph.nodes(data=True) if d.get("type") == "concept")
    if len(papers) + len(concepts) != graph.number_of_nodes():
        odd = sorted(set(graph) - set(papers) - set(concepts))[:3]
        raise ValueError(f"nodes without type 'paper' or 'concept': {odd}")
    if min_concept_papers is None:
        min_concept_papers = 2 if len(papers) > BIG_GRAPH else 1

    mentions, shares = _split_edges(graph)
    shown = {c for c in concepts if _paper_count(graph, c, mentions) >= min_concept_papers}

    net = Network(height="100%", width="100%", heading=heading, cdn_resources="in_line")
    net.nodes = [_paper_node(graph, p, mentions) for p in papers]
    net.nodes += [_concept_node(graph, c, mentions) for c in concepts if c in shown]
    net.edges = [
        _mention_edge(p, c, graph.nodes[c]["label"], d, f"m{i}")
        for i, (p, c, d) in enumerate(m for m in _ordered(mentions) if m[1] in shown)
    ]
    net.edges += [_share_edge(a, b, d, f"s{i}") for i, (a, b, d) in enumerate(_strongest(shares))]
    net.options = _options(len(net.nodes))
    net.templateEnv = _environment()
    net.path = "view.html"
    return net.generate_html()


def _split_edges(graph: nx.Graph) -> tuple[dict, dict]:
    """Index edges as ``{(paper, concept): attrs}`` and ``{(paper, paper): attrs}``."""
    mentions: dict[tuple[str, str], dict] = {}
    shares: dict[tuple[str, str], dict] = {}
    for u, v, d in graph.edges(data=True):
        if d.get("type") == "mentions":
            paper, concept = (u, v) if graph.nodes[u].get("type") == "paper" else (v, u)
            mentions[paper, concept] = d
        elif d.get("type") == "shares":
            shares[min(u, v), max(u, v)] = d
        elif d.get("type") == "broader":
            continue  # the concept hierarchy: shown in the detail panel's data only
        else:
            raise ValueError(f"edge {u} -- {v} has type {d.get('type')!r}, not mentions/shares")
    return mentions, shares


def _ordered(edges: dict) -> list[tuple[str, str, dict]]:
    return [(a, b, edges[a, b]) for a, b in sorted(edges)]


def _paper_count(graph: nx.Graph, concept: str, mentions: dict) -> int:
    count = graph.nodes[concept].get("papers")
    if count is None:
        count = sum(1 for n in graph[concept] if (n, concept) in mentions)
    return int(count)


def _strongest(shares: dict) -> list[tuple[str, str, dict]]:
    """Each paper's strongest shared-concept links (ties by id), so the count stays linear."""
    by_paper: dict[str, list[tuple[float, str]]] = defaultdict(list)
    for a, b in shares:
        weight = float(shares[a, b].get("weight", 1))
        by_paper[a].append((-weight, b))
        by_paper[b].append((-weight, a))
    kept = set()
    for paper, links in by_paper.items():
        for _, other in sorted(links)[:MAX_SHARES_PER_PAPER]:
            kept.add((min(paper, other), max(paper, other)))
    return [(a, b, shares[a, b]) for a, b in sorted(kept)]


def _venue_year(d: dict) -> str:
    return ", ".join(str(x) for x in (d.get("venue"), d.get("year")) if x)


def _paper_node(graph: nx.Graph, paper: str, mentions: dict) -> dict[str, Any]:
    d = graph.nodes[paper]
    authors = list(d.get("authors") or [])
    shown_authors = ", ".join(authors[:6]) + (" et al." if len(authors) > 6 else "")
    title = d.get("title") or d["label"]
    tooltip = [d["label"]] + ([title] if title != d["label"] else [])
    tooltip += [x for x in (_venue_year(d), shown_authors) if x]
    links = []
    for n in graph[paper]:
        if (paper, n) in mentions:
            m, c = mentions[paper, n], graph.nodes[n]
            links.append(
                {
                    "id": n,
                    "label": c["label"],
                    "kind": c.get("kind", ""),
                    "role": _ROLES.get(m.get("role", ""), m.get("role", "")),
                    "score": round(float(m.get("score", 0.0)), 3),
                    "evidence": m.get("evidence", ""),
                }
            )
    links.sort(key=lambda x: (_kind_rank(x["kind"]), -x["score"], x["label"], x["id"]))
    degree = graph.degree(paper)
    return {
        "id": paper,
        "label": d["label"],
        "title": "\n".join(tooltip),
        "shape": "dot",
        "size": round(10 + 2 * math.sqrt(degree), 2),
        "color": COLORS["paper"],
        "font": {"size": 16, "strokeWidth": 3, "strokeColor": "#ffffff"},
        "kg": {
            "type": "paper",
            "title": title,
            "meta": _venue_year(d),
            "authors": authors,
            "abstract": d.get("abstract") or "",
            "concepts": links,
        },
    }


def _kind_rank(kind: str) -> int:
    return _KINDS.index(kind) if kind in _KINDS else len(_KINDS)


def _concept_node(graph: nx.Graph, concept: str, mentions: dict) -> dict[str, Any]:
    d = graph.nodes[concept]
    kind = d.get("kind", "")
    alt = list(d.get("alt_labels") or [])
    count = _paper_count(graph, concept, mentions)
    tooltip = [d["label"], f"{kind} · {count} paper{'s' if count != 1 else ''}"]
    if alt:
        tooltip.append("also: " + ", ".join(alt))
    papers = sorted(
        (
            {
                "id": p,
                "label": graph.nodes[p]["label"],
                "role": _ROLES.get(mentions[p, concept].get("role", ""), ""),
            }
            for p in graph[concept]
            if (p, concept) in mentions
        ),
        key=lambda x: (x["label"], x["id"]),
    )
    return {
        "id": concept,
        "label": d["label"],
        "title": "\n".join(tooltip),
        "shape": "dot",
        "size": round(5 + 3 * math.sqrt(count), 2),
        "color": COLORS.get(kind, "#888888"),
        "font": {"size": 12, "color": "#333333"},
        "kg": {"type": "concept", "kind": kind, "alt": alt, "papers": papers},
    }


def _mention_edge(paper: str, concept: str, label: str, d: dict, edge_id: str) -> dict[str, Any]:
    role = _ROLES.get(d.get("role", ""), d.get("role", ""))
    score = float(d.get("score", 0.0))
    evidence = d.get("evidence", "")
    return {
        "id": edge_id,
        "from": paper,
        "to": concept,
        "title": f"{role} {label} (score {score:.2f})" + (f"\n“{evidence}”" if evidence else ""),
        "width": round(0.5 + 2 * score, 2),
        "color": {"color": "#9aa5b1", "opacity": 0.55},
        "kgType": "mentions",
    }


def _share_edge(a: str, b: str, d: dict, edge_id: str) -> dict[str, Any]:
    shared = list(d.get("shared") or [])
    weight = float(d.get("weight", len(shared)))
    listed = d.get("explanation") or (", ".join(shared[:12]) + (", …" if len(shared) > 12 else ""))
    return {
        "id": edge_id,
        "from": a,
        "to": b,
        "title": f"shares {len(shared)} concept{'s' if len(shared) != 1 else ''} "
        f"(weight {weight:.2f}): {listed}",
        "width": round(1 + math.log2(max(weight, 1)), 2),
        "color": {"color": "#3b6ea8", "opacity": 0.35},
        "dashes": True,
        "hidden": True,
        "physics": False,
        "kgType": "shares",
    }


def _options(n_nodes: int) -> dict[str, Any]:
    """vis-network options tuned to settle in seconds; physics stops after stabilising."""
    big = n_nodes > 100
    return {
        "layout": {"randomSeed": _SEED, "improvedLayout": not big},
        "edges": {"smooth": False, "selectionWidth": 2},
        "nodes": {"borderWidth": 1, "font": {"face": "system-ui, sans-serif"}},
        "interaction": {
            "hover": True,
            "tooltipDelay": 120,
            "hideEdgesOnDrag": big,
            "hideEdgesOnZoom": n_nodes > 1500,
        },
        "physics": {
            "enabled": True,
            "solver": "forceAtlas2Based",
            "forceAtlas2Based": {
                "gravitationalConstant": -60,
                "centralGravity": 0.012,
                "springLength": 90,
                "springConstant": 0.06,
                "damping": 0.5,
                "avoidOverlap": 0 if n_nodes > 1000 else 0.2,
            },
            "minVelocity": 1.0,
            "maxVelocity": 60,
            "timestep": 0.5,
            "stabilization": {
                "enabled": True,
                # About 40 ms an iteration at 2,000 nodes: cap the wait near 5-10 s.
                "iterations": max(100, min(600, 200_000 // max(n_nodes, 1))),
                "updateInterval": 25,
                "fit": True,
            },
        },
    }


def _environment() -> Environment:
    """kg's template, autoescaped, with vis-network and kg's assets inlined."""
    # Plain paths, not importlib.resources: both packages install as directories.
    here = Path(__file__).parent / "assets"
    vis = Path(pyvis.__file__).parent / "templates" / "lib" / "vis-9.1.2"
    env = Environment(
        loader=FileSystemLoader(str(here)),
        autoescape=select_autoescape(default=True, default_for_string=True),
        keep_trailing_newline=True,
    )
    env.globals["assets"] = {
        "vis_css": _inline(vis / "vis-network.css", "style"),
        "vis_js": _inline(vis / "vis-network.min.js", "script"),
        "kg_css": _inline(here / "view.css", "style"),
        "kg_js": _inline(here / "view.js", "script"),
    }
    env.globals["colors"] = COLORS
    env.policies["json.dumps_kwargs"] = {"sort_keys": True, "ensure_ascii": False}
    return env


def _inline(path: Path, element: str) -> Markup:
    text = path.read_text(encoding="utf-8")
    if f"</{element}" in text.lower():
        raise ValueError(f"{path} contains '</{element}' and cannot be inlined")
    return Markup(text)
