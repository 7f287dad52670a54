"""Graphs shaped like :func:`kg.graph.to_networkx` output, for the view tests.

Small hand-made ones, a hostile one with markup in every text a page shows, and
reproducible synthetic ones of any size with a long tail of concepts, a field
hierarchy and weighted shared-concept edges.
"""

from __future__ import annotations

import random
from itertools import combinations

import networkx as nx

SCRIPT = "<script>window.__pwned=1</script>"
CLOSE = "</script><script>window.__pwned=2</script>"
IMG = '<img src=x onerror="window.__pwned=3">'
LINK = '<a href="javascript:window.__pwned=4">href</a>'
TEMPLATE = "{{ 7*7 }}{% if 1 %}x{% endif %}"
PAYLOAD = f"{SCRIPT}{CLOSE}{IMG} {LINK} {TEMPLATE}"
ROLES = {"method": "usesMethod", "problem": "addressesProblem", "field": "inField"}
KINDS = ("method", "problem", "field")


def add_paper(g: nx.Graph, pid: str, **attrs) -> str:
    label = attrs.pop("label", pid.title())
    defaults = {
        "title": f"{label}: a study",
        "abstract": f"{label} studies things.",
        "year": 2021,
        "venue": "ICML",
        "authors": ["A. Author", "B. Author"],
        "keywords": [],
        "derived_title": False,
    }
    g.add_node(f"paper:{pid}", type="paper", label=label, **(defaults | attrs))
    return f"paper:{pid}"


def add_concept(g: nx.Graph, key: str, kind: str, label: str, alt=(), broader=()) -> str:
    g.add_node(
        f"concept:{key}",
        type="concept",
        kind=kind,
        label=label,
        alt_labels=list(alt),
        broader=[f"concept:{b}" for b in broader],
    )
    return f"concept:{key}"


def link(g: nx.Graph, pid: str, key: str, score: float, role: str | None = None) -> None:
    concept = f"concept:{key}"
    role = role or ROLES[g.nodes[concept]["kind"]]
    evidence = f"{g.nodes[f'paper:{pid}']['label']} relies on {g.nodes[concept]['label']}."
    g.add_edge(f"paper:{pid}", concept, type="mentions", role=role, score=score, evidence=evidence)


def finish(g: nx.Graph) -> nx.Graph:
    """Paper counts, ``broader`` edges, and shared-concept edges (one per shared method/problem)."""
    concepts = sorted(n for n, d in g.nodes(data=True) if d["type"] == "concept")
    for c in concepts:
        papers = sorted(p for p in g[c] if g[p][c].get("type") == "mentions")
        g.nodes[c]["papers"] = len(papers)
        for b in g.nodes[c]["broader"]:
            g.add_edge(c, b, type="broader", narrower=c, broader=b)
        if g.nodes[c]["kind"] == "field" or len(papers) > 40:
            continue  # as kg's rule: fields and very common concepts do not join papers
        for a, b in combinations(papers, 2):
            label = g.nodes[c]["label"]
            if g.has_edge(a, b):
                e = g[a][b]
                e["weight"] = round(e["weight"] + 1.25, 4)
                e["shared"].append(label)
                e["how"].append("exact")
                e["contribution"].append(1.25)
                e["explanation"] = "; ".join(e["shared"])
            else:
                g.add_edge(
                    a,
                    b,
                    type="shares",
                    weight=1.25,
                    shared=[label],
                    how=["exact"],
                    contribution=[1.25],
                    explanation=label,
                )
    return g


def small_graph() -> nx.Graph:
    g = nx.Graph()
    add_paper(g, "a", label="Adam revisited", venue="NeurIPS", year=2020)
    add_paper(g, "b", label="Noise in SGD", venue=None, year=None, authors=[])
    add_paper(g, "c", label="Tails", title="Heavy tails everywhere")
    add_concept(g, "sgd", "method", "SGD", alt=["stochastic gradient descent"])
    add_concept(g, "adam", "method", "Adam", broader=["sgd"])
    add_concept(g, "noise", "problem", "gradient noise")
    add_concept(g, "ml", "field", "machine learning")
    add_concept(g, "opt", "field", "optimization", broader=["ml"])
    link(g, "a", "adam", 0.9, role="proposes")
    link(g, "a", "sgd", 0.6)
    link(g, "a", "opt", 0.4)
    link(g, "b", "sgd", 0.8)
    link(g, "b", "noise", 0.7)
    link(g, "b", "opt", 0.6)
    link(g, "c", "noise", 0.5)
    link(g, "c", "ml", 0.3)
    return finish(g)


def hostile_graph() -> nx.Graph:
    """User text everywhere a page shows text: script, a closing tag, img/onerror, href, {{ }}."""
    g = nx.Graph()
    add_paper(
        g,
        "x",
        label=f"evil {PAYLOAD}",
        title=f"title {PAYLOAD}",
        abstract=f"abstract {PAYLOAD}",
        venue=f"venue {PAYLOAD}",
        authors=[f"author {PAYLOAD}"],
        keywords=[f"keyword {PAYLOAD}"],
        identifiers=[f"doi:10.1/{PAYLOAD}"],
        link="javascript:alert(1)",
    )
    add_paper(g, "y", label=f"plain {LINK}", title="plain paper", link="https://example.org/y")
    add_paper(g, "z", label="third paper")
    add_concept(g, "field", "field", f"field {PAYLOAD}")
    add_concept(g, "evil", "method", f"concept {PAYLOAD}", alt=[f"alt {PAYLOAD}"], broader=["up"])
    add_concept(g, "up", "method", f"broader {PAYLOAD}")
    add_concept(g, "problem", "problem", f"problem {PAYLOAD}")
    for p in ("x", "y", "z"):
        link(g, p, "evil", 0.9)
        link(g, p, "field", 0.5)
    link(g, "x", "problem", 0.7)
    link(g, "y", "problem", 0.6)
    link(g, "z", "up", 0.4)
    g["paper:x"]["concept:evil"]["evidence"] = f"evidence {PAYLOAD}"
    finish(g)
    g["paper:x"]["paper:y"]["explanation"] = f"explanation {PAYLOAD}"
    return g


def synthetic_graph(
    n_papers: int, n_concepts: int, per_paper: int = 8, n_areas: int = 6, seed: int = 7
) -> nx.Graph:
    """A reproducible corpus: popular and rare concepts, areas with topics, shared-concept edges."""
    rnd = random.Random(seed)
    g = nx.Graph()
    for a in range(n_areas):
        add_concept(g, f"area{a}", "field", f"area {a}")
        for t in range(2):
            add_concept(g, f"topic{a}-{t}", "field", f"topic {a}.{t}", broader=[f"area{a}"])
    for i in range(n_concepts):
        kind = KINDS[i % 2]  # methods and problems; fields are the areas and topics
        broader = [f"c{i // 10}"] if i >= 10 and i % 7 == 0 else []
        add_concept(g, f"c{i}", kind, f"concept {i}", alt=[f"alias {i}"], broader=broader)
    for p in range(n_papers):
        add_paper(g, f"p{p}", label=f"Paper {p}", year=2000 + p % 25)
        area = p % n_areas
        link(g, f"p{p}", f"topic{area}-{p % 2}", round(0.4 + 0.5 * rnd.random(), 3))
        popular = [int(rnd.paretovariate(1.2)) - 1 for _ in range(per_paper // 2)]
        rare = [rnd.randrange(n_concepts) for _ in range(per_paper - len(popular))]
        for c in sorted({min(c, n_concepts - 1) for c in popular + rare}):
            link(g, f"p{p}", f"c{c}", round(rnd.random(), 3))
    g.remove_nodes_from([n for n in list(g) if g.degree(n) == 0 and n.startswith("concept:c")])
    for _, d in g.nodes(data=True):
        if d["type"] == "concept":
            d["broader"] = [b for b in d["broader"] if b in g]
    return finish(g)
