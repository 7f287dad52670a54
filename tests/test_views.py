"""The HTML views as text: self-contained, escaped, deterministic, and bounded on large inputs.

tests/test_views_browser.py drives the same pages in Chromium.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from itertools import combinations
from pathlib import Path
from typing import Any

import networkx as nx
import pytest
from view_graphs import PAYLOAD, SCRIPT, hostile_graph, small_graph, synthetic_graph

from kg import defaults
from kg.errors import KGError
from kg.export import graph_from_json, json_text, render_views
from kg.export.views.bounds import (
    MAX_CONCEPTS,
    MAX_EDGES,
    VISIBLE_EDGES,
    shown_weight,
    strongest_per_node,
    weight_steps,
)
from kg.export.views.concept_map import LINKS_PER_CONCEPT
from kg.export.views.corpus import heading, read_corpus
from kg.export.views.page import SCRIPT_PARTS
from kg.export.views.panel import DETAILS_DIR, NEAREST, PER_FILE
from kg.export.views.paper_concept import MAX_GRAPH_CONCEPTS
from kg.export.views.paper_map import SHARES_PER_PAPER

VIEWS = tuple(v.file for v in defaults.VIEWS)
ASSETS = Path(__file__).parents[1] / "kg" / "export" / "assets"


def raw_blocks(page: str) -> dict[str, Any]:
    """The JSON data blocks a view page hands to its script, as the page holds them."""
    found = dict(
        re.findall(r'<script type="application/json" id="kg-(\w+)">(.*?)</script>', page, re.S)
    )
    assert set(found) == {"nodes", "edges", "settings", "panel"}, sorted(found)
    return {k: json.loads(v) for k, v in found.items()}


def blocks(page: str) -> dict[str, Any]:
    """The data blocks, the panel read back as the page's script reads it."""
    data = raw_blocks(page)
    data["panel"] = read_back(data["panel"])
    return data


def raw_panel(page: str) -> dict[str, Any]:
    """The panel block as the page holds it: concepts and roles by number."""
    return raw_blocks(page)["panel"]


def read_back(panel: dict) -> dict:
    """The panel as the page's script reads it back (view-network.js): concepts by IRI, roles
    by name, a paper's title, ``derived`` and ``link`` filled in."""
    names = [c["id"] for c in panel["concepts"]]
    concepts = {c["id"]: {k: v for k, v in c.items() if k != "id"} for c in panel["concepts"]}
    papers = {}
    for p, q in panel["papers"].items():
        papers[p] = {
            **q,
            "title": q.get("title", q["label"]),
            "derived": bool(q.get("derived")),
            "link": q.get("link"),
            "concepts": [[names[c], panel["roles"][r], w, at] for c, r, w, at in q["concepts"]],
            "fields": [names[f] for f in q["fields"]],
        }
    return {**panel, "papers": papers, "concepts": concepts}


def details(pages: dict[str, str]) -> dict[str, dict[str, object]]:
    """Every paper's details, from the files the pages load them from, checking each file
    calls ``kgDetails`` with its own number and the pages' build, and the papers are
    numbered in order."""
    out: dict[str, dict[str, object]] = {}
    build = raw_panel(pages["paper-map.html"])["build"]
    files = sorted(name for name in pages if name.startswith(f"{DETAILS_DIR}/"))
    for number, name in enumerate(files):
        assert name == f"{DETAILS_DIR}/{number:04d}.js"
        call = re.fullmatch(r'kgDetails\((\d+),"([0-9a-f]{16})",(.*)\);\n', pages[name], re.S)
        assert call is not None and int(call[1]) == number and call[2] == build, name
        out |= json.loads(call[3])
    return out


def html_pages(pages: dict[str, str]) -> dict[str, str]:
    return {name: page for name, page in pages.items() if name.endswith(".html")}


@pytest.fixture(scope="module")
def small():
    return render_views(small_graph())


@pytest.fixture(scope="module")
def big(large_views):
    """Large enough that every view has to leave things out."""
    return large_views


# --- self-contained and safe -----------------------------------------------------------------


def test_pages_fetch_nothing_from_outside(small):
    for name, page in small.items():
        remote = re.findall(r"""(?:src|href|action)\s*=\s*["']?\s*(?:https?:)?//""", page, re.I)
        css = re.findall(r"""(?:@import\s*["']?|url\(\s*["']?)\s*(?:https?:)?//""", page, re.I)
        assert remote == [] and css == [], name
        assert not re.search(r"<(?:link|iframe|img|object|embed)\b|<script[^>]*\bsrc=", page, re.I)
    for name in VIEWS:
        assert "vis.Network" in small[name] and "new vis.DataView" in small[name]


def test_index_links_every_view(small):
    index = small["index.html"]
    for name in VIEWS:
        assert f'href="{name}"' in index
    for name in VIEWS:  # and every view links the others and the index
        assert 'href="index.html"' in small[name]
        assert all(f'href="{other}"' in small[name] for other in VIEWS if other != name)


def test_user_text_is_escaped_everywhere():
    heading = f"Heading {PAYLOAD}"
    pages = render_views(hostile_graph(), heading)
    escaped = heading.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    escaped = escaped.replace('"', "&#34;").replace("'", "&#39;")
    for name, page in pages.items():  # the details files too: their JSON is escaped alike
        assert SCRIPT not in page and "<img" not in page and '<a href="javascript' not in page
        assert "</script><script>window" not in page and "<" not in page[5:-5] * (".js" in name)
    for name, page in html_pages(pages).items():
        tags = re.findall(r"^<script\b[^>]*>", page, re.M)  # kg's own tags start a line
        assert len(tags) == (0 if name == "index.html" else 7), name
        assert len(re.findall(r"<script\b", page)) == len(tags) + (name != "index.html")
        assert f"<title>{escaped}" in page and f"<h1>{escaped}</h1>" in page, name
    data = blocks(pages["paper-map.html"])
    paper = data["panel"]["papers"]["paper:x"]
    assert paper["label"] == f"evil {PAYLOAD}"
    assert details(pages)["paper:x"]["abstract"] == f"abstract {PAYLOAD}"
    assert any(PAYLOAD in e.get("why", "") for e in data["edges"])  # intact once decoded


def test_template_syntax_in_input_stays_text():
    pages = render_views(hostile_graph(), "{{ 7*7 }}")
    assert "<h1>{{ 7*7 }}</h1>" in pages["paper-map.html"]
    assert "<h1>49</h1>" not in pages["paper-map.html"]


def test_view_script_never_uses_html_sinks():
    js = "".join((ASSETS / name).read_text(encoding="utf-8") for name in SCRIPT_PARTS)
    sinks = r"innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function"
    assert not re.search(sinks, js) and not re.search(r"setAttribute\(\s*[\"']on", js)


def test_nodes_carry_no_vis_titles(small):
    """pyvis switches tooltips to raw HTML when a title contains "href"; kg's have none."""
    for name in VIEWS:
        data = blocks(small[name])
        assert all("title" not in n and "label" not in n for n in data["nodes"])
        assert all("title" not in e for e in data["edges"])


# --- determinism and round trips ---------------------------------------------------------------


def test_same_graph_same_bytes():
    g = small_graph()
    shuffled = nx.Graph()
    shuffled.add_nodes_from(reversed(list(g.nodes(data=True))))
    shuffled.add_edges_from(reversed(list(g.edges(data=True))))
    assert render_views(g) == render_views(g) == render_views(shuffled)


def test_views_from_saved_graph_json_are_identical():
    g = synthetic_graph(60, 120)
    again = graph_from_json(json_text(g))
    assert render_views(again) == render_views(g)


def test_bad_graph_json_is_a_clear_error():
    with pytest.raises(KGError, match=r"out/graph.json:1: not valid JSON"):
        graph_from_json("{nope", "out/graph.json")
    with pytest.raises(KGError, match="not a kg graph"):
        graph_from_json("[1, 2]", "out/graph.json")


def test_unknown_node_type_is_rejected():
    g = small_graph()
    g.add_node("author:x", type="author", label="X")
    with pytest.raises(KGError, match="author:x"):
        render_views(g)


@pytest.mark.parametrize("ends", [("paper:a", "paper:a"), ("paper:a", "paper:b")])
def test_a_mention_that_joins_no_paper_to_a_concept_is_rejected(ends):
    g = small_graph()
    g.add_edge(*ends, type="mentions", role="usesMethod", score=0.5)
    with pytest.raises(KGError, match="joins no paper to a concept"):
        render_views(g)


def test_heading_defaults_to_papers_and_venues(small):
    assert "<h1>kg: 3 papers, 2020–2021, 2 venues</h1>" in small["paper-map.html"]


def test_heading_names_one_venue_and_counts_several():
    one = [("NeurIPS", 2026)] * 37
    assert heading(37, one) == "kg: 37 NeurIPS 2026 papers"
    mixed = [("International Conference on Machine Learning", 2024)] * 5 + [
        ("Proceedings of the 41st International Conference on Machine Learning", "2024"),
        ("arXiv", 2024),
        (None, None),
    ]
    assert heading(11, mixed) == "kg: 11 papers, 2024, 3 venues"
    assert heading(2, [("ICML", 2021), ("arXiv", None)]) == "kg: 2 papers, 2021, 2 venues"


# --- what each view draws --------------------------------------------------------------------


def test_paper_map_draws_papers_and_their_shared_concepts(small):
    g = small_graph()
    data = blocks(small["paper-map.html"])
    assert sorted(n["id"] for n in data["nodes"]) == sorted(n for n in g if n.startswith("paper:"))
    assert {n["shape"] for n in data["nodes"]} == {"dot"}
    shares = {(u, v) for u, v, d in g.edges(data=True) if d["type"] == "shares"}
    assert {tuple(sorted((e["from"], e["to"]))) for e in data["edges"]} == {
        tuple(sorted(s)) for s in shares
    }
    for e in data["edges"]:
        d = g[e["from"]][e["to"]]
        assert e["w"] == d["weight"] and e["why"] == d["explanation"] and e["n"] == len(d["shared"])


def test_edge_width_follows_weight():
    g = synthetic_graph(80, 150)
    for i, (_, _, d) in enumerate(e for e in g.edges(data=True) if e[2]["type"] == "shares"):
        d["weight"] = round(0.3 + (i * 7919 % 1000) / 97, 4)  # any scale, many distinct values
    data = blocks(render_views(g)["paper-map.html"])
    pairs = sorted((e["w"], e["width"]) for e in data["edges"])
    assert len({w for w, _ in pairs}) > 20
    assert all(a[1] <= b[1] for a, b in zip(pairs, pairs[1:], strict=False))
    assert pairs[0][1] < pairs[-1][1]


def test_sizes_follow_degree(small):
    data = blocks(small["paper-concept.html"])
    size = {n["id"]: n["size"] for n in data["nodes"]}
    assert size["concept:sgd"] > size["concept:adam"]  # two papers against one
    assert size["concept:opt"] > size["concept:ml"]


def test_node_colour_and_shape_follow_type(small):
    data = blocks(small["paper-concept.html"])
    style = {n["kind"]: (n["color"], n["shape"]) for n in data["nodes"]}
    assert set(style) == {"paper", "method", "problem", "field"}
    assert len({c for c, _ in style.values()}) == 4 and len({s for _, s in style.values()}) == 4


def test_concept_map_joins_concepts_by_papers_sharing_them():
    g = synthetic_graph(50, 60)
    data = blocks(render_views(g)["concept-map.html"])
    papers = {
        c: {p for p in g[c] if g[p][c]["type"] == "mentions"} for c in g if c[:8] == "concept:"
    }
    cooccurs = [e for e in data["edges"] if e["kind"] == "cooccurs"]
    assert cooccurs
    for e in cooccurs:
        assert e["w"] == len(papers[e["from"]] & papers[e["to"]]) > 0
    broader = {(e["from"], e["to"]) for e in data["edges"] if e["kind"] == "broader"}
    drawn = {c for c in papers if papers[c]}
    drawn |= {b for c in drawn for b in g.nodes[c]["broader"]}  # two levels here
    assert {n["id"] for n in data["nodes"]} == drawn
    expected = {(c, b) for c in drawn for b in g.nodes[c]["broader"]}
    assert broader == expected and broader


def test_paper_concept_graph_draws_everything_of_a_small_input(small):
    g = small_graph()
    data = blocks(small["paper-concept.html"])
    assert sorted(n["id"] for n in data["nodes"]) == sorted(g)
    mentions = {(e["from"], e["to"]) for e in data["edges"] if e["kind"] == "mentions"}
    assert len(mentions) == sum(d["type"] == "mentions" for *_, d in g.edges(data=True))
    assert data["settings"]["bounds"] == []


def test_the_details_carry_the_build_of_their_data_and_the_pages_expect_it(small):
    g = small_graph()
    g.nodes["paper:a"]["abstract"] = "Adam revisited studies other things."
    other = render_views(g)
    builds = {blocks(p["paper-map.html"])["panel"]["build"] for p in (small, other)}
    assert len(builds) == 2  # another abstract, another build
    assert {blocks(small[v])["panel"]["build"] for v in VIEWS} == {
        blocks(small["paper-map.html"])["panel"]["build"]
    }  # one build for the three views


def test_a_paper_names_its_concepts_and_roles_by_number(small):
    """An IRI is written in its concept's entry, not in every link to it."""
    raw = raw_panel(small["paper-map.html"])
    names = [c["id"] for c in raw["concepts"]]
    assert len(names) == len(set(names)) == len(read_corpus(small_graph()).concepts)
    assert len(raw["roles"]) == len(set(raw["roles"]))
    links = [link for q in raw["papers"].values() for link in q["concepts"]]
    assert links and all(c < len(names) and r < len(raw["roles"]) for c, r, *_ in links)
    assert "concept:" not in json.dumps(raw["papers"])
    a = raw["papers"]["paper:a"]
    assert a["title"] == "Adam revisited: a study"  # its own title: kept
    assert "link" not in raw["papers"]["paper:b"] and "derived" not in a  # none, false: left out


def test_a_change_in_any_details_file_is_another_build():
    from kg.export.views.panel import detail_files

    g = synthetic_graph(PER_FILE + 5, 40)
    corpus = read_corpus(g)
    before = detail_files(corpus)
    last = corpus.papers[-1]
    g.nodes[last]["abstract"] = "Changed."
    after = detail_files(read_corpus(g))
    assert len(after.files) == 2 and f'"{last}":' in after.files[f"{DETAILS_DIR}/0001.js"]
    assert after.build != before.build  # a change in the second file
    assert after.files[f"{DETAILS_DIR}/0000.js"] == before.files[f"{DETAILS_DIR}/0000.js"].replace(
        before.build, after.build
    )


def test_panel_has_abstract_evidence_and_nearest_papers(small):
    g = small_graph()
    panel = blocks(small["paper-map.html"])["panel"]
    a, more = panel["papers"]["paper:a"], details(small)["paper:a"]
    assert panel["details"] == DETAILS_DIR and a["file"] == 0  # the details load from there
    assert a["title"] == "Adam revisited: a study" and "abstract" not in a
    assert more["abstract"] == "Adam revisited studies things."
    assert [c[0] for c in a["concepts"]] == ["concept:adam", "concept:sgd", "concept:opt"]
    adam = a["concepts"][0]
    assert adam[1] == "proposes" and more["sentences"][adam[3]] == "Adam revisited relies on Adam."
    assert a["fields"] == ["concept:ml", "concept:opt"]  # the broader field included
    near = [n[0] for n in more["near"]]
    assert (
        near
        == sorted(
            (b for b in g["paper:a"] if g["paper:a"][b]["type"] == "shares"),
            key=lambda b: -g["paper:a"][b]["weight"],
        )[:NEAREST]
    )
    sgd = panel["concepts"]["concept:sgd"]
    assert sgd["alt"] == ["stochastic gradient descent"] and "papers" not in sgd  # read backwards
    assert sgd["narrower"] == ["concept:adam"] and panel["concepts"]["concept:adam"]["broader"] == [
        "concept:sgd"
    ]
    assert [f[0] for f in panel["fields"]] == ["concept:ml", "concept:opt"]  # area, then topic
    assert [f[1] for f in panel["fields"]] == [0, 1]


def test_panel_links_only_to_web_pages():
    pages = render_views(hostile_graph())
    panel = blocks(pages["paper-map.html"])["panel"]["papers"]
    assert panel["paper:x"]["link"] is None and panel["paper:z"]["link"] is None
    assert details(pages)["paper:x"]["ids"] == [f"doi:10.1/{PAYLOAD}"]
    assert panel["paper:y"]["link"] == "https://example.org/y"


def test_labels_are_human_names_never_iris():
    g = small_graph()
    del g.nodes["concept:noise"]["label"]
    g.nodes["concept:noise"]["iri"] = "https://w3id.org/kg/concept/noise"
    panel = blocks(render_views(g)["concept-map.html"])["panel"]
    labels = [x["label"] for x in (*panel["papers"].values(), *panel["concepts"].values())]
    assert "noise" in labels and not any(":" in x[:6] or "//" in x for x in labels)


# --- bounded on large inputs -----------------------------------------------------------------


def test_weight_steps_start_at_most_the_visible_budget():
    weights = [i / 10 for i in range(20000)]
    steps, start = weight_steps(weights)
    assert len(steps) <= 60 and steps == sorted(steps)
    assert sum(w >= steps[start] for w in weights) <= VISIBLE_EDGES
    assert start == 0 or sum(w >= steps[start - 1] for w in weights) > VISIBLE_EDGES


def test_weight_control_suits_cosines_crowded_near_zero():
    """Weights in [0, 1], most of them close together: the control still has fine steps."""
    weights = [0.04 + (i * 7919 % 20000) / 1_000_000 for i in range(20000)]  # 0.04 to 0.06
    steps, start = weight_steps(weights)
    assert steps[0] >= 0 and steps[-1] <= 1 and len(steps) > 30
    shown = sum(shown_weight(w) >= steps[start] for w in weights)
    assert VISIBLE_EDGES / 2 < shown <= VISIBLE_EDGES  # close to the budget, not a coarse jump


def test_cosine_weights_reach_the_page_with_their_resolution():
    g = synthetic_graph(60, 120)
    for i, (_, _, d) in enumerate(e for e in g.edges(data=True) if e[2]["type"] == "shares"):
        d["weight"] = round(0.02 + (i * 37 % 100) / 2500, 6)  # cosines between 0.02 and 0.06
    pages = render_views(g)
    data = blocks(pages["paper-map.html"])
    ws = [e["w"] for e in data["edges"]]
    assert all(0 < w < 0.07 for w in ws) and len(set(ws)) > 20
    steps = data["settings"]["weight"]["steps"]
    assert len(steps) > 20 and set(steps) <= set(ws)
    near = [n[1] for p in details(pages).values() for n in p["near"]]
    assert near and all(0 < w < 0.07 for w in near) and len(set(near)) > 10


@pytest.mark.slow
def test_large_views_stay_within_budgets_and_say_what_they_hide(big):
    g, pages = big
    corpus = read_corpus(g)
    for name in VIEWS:
        data = blocks(pages[name])
        assert len(data["edges"]) <= MAX_EDGES + len(corpus.concepts), name
        steps = data["settings"]["weight"]
        weighted = [e["w"] for e in data["edges"] if "w" in e]
        assert sum(w >= steps["steps"][steps["start"]] for w in weighted) <= VISIBLE_EDGES
        # the panel still knows every paper and concept
        assert len(data["panel"]["papers"]) == len(corpus.papers)
        assert len(data["panel"]["concepts"]) == len(corpus.concepts)
    # each paper's details are in the file the pages look for, PER_FILE papers to a file
    files = blocks(pages["paper-map.html"])["panel"]["papers"]
    for paper in details(pages):
        number = files[paper]["file"]
        assert f'"{paper}":' in pages[f"{DETAILS_DIR}/{number:04d}.js"], paper
    assert set(details(pages)) == set(corpus.papers)
    assert Counter(f["file"] for f in files.values()) == {
        i: min(PER_FILE, len(corpus.papers) - i * PER_FILE)
        for i in range(-(-len(corpus.papers) // PER_FILE))
    }
    assert len(corpus.papers) > PER_FILE  # so the details are in more than one file

    concepts = blocks(pages["concept-map.html"])
    drawn = {n["id"] for n in concepts["nodes"]}
    count = {c: len(corpus.papers_of[c]) for c in corpus.concepts}
    said = " ".join(concepts["settings"]["bounds"])
    found = re.search(r"draws the ([\d,]+) concepts found in at least (\d+) papers", said)
    assert found, said
    least = int(found.group(2))
    top = {c for c in count if count[c] >= least}
    assert len(top) == int(found.group(1).replace(",", "")) <= MAX_CONCEPTS
    assert sum(1 for c in count if count[c]) > MAX_CONCEPTS  # so the map had to choose
    assert top <= drawn  # the most-mentioned concepts, and the others only as broader ones
    broader = {b for c in drawn for b in corpus.broader[c]}
    assert drawn - top <= broader

    graph = blocks(pages["paper-concept.html"])
    kinds = Counter(n["kind"] for n in graph["nodes"])
    assert sum(kinds[k] for k in ("method", "problem", "field")) <= MAX_GRAPH_CONCEPTS
    mentions = [e for e in graph["edges"] if e["kind"] == "mentions"]
    assert len(mentions) <= VISIBLE_EDGES
    said = " ".join(graph["settings"]["bounds"])
    assert f"({len(mentions):,} of" in said and "panel lists all of them" in said
    assert not re.search(r"\b1 (?:most confident )?methods", said), said  # "1 methods" reads badly

    papers = blocks(pages["paper-map.html"])
    drawn_shares = {(e["from"], e["to"]) for e in papers["edges"]}
    assert len(drawn_shares) < len(corpus.shares)
    for p in corpus.papers:  # every linked paper keeps its strongest link
        if corpus.neighbours[p]:
            best = corpus.neighbours[p][0][0]
            assert (min(p, best), max(p, best)) in drawn_shares, p
    said = " ".join(papers["settings"]["bounds"])
    assert f"Each paper keeps up to its {SHARES_PER_PAPER} strongest" in said
    assert f"{len(drawn_shares):,} of {len(corpus.shares):,} links" in said
    for line in concepts["settings"]["bounds"] + graph["settings"]["bounds"]:
        assert line.replace("–", "–") in pages["index.html"]  # the index says it too


@pytest.mark.slow
def test_concepts_keep_their_strongest_links(big):
    g, pages = big
    data = blocks(pages["concept-map.html"])
    ends = Counter(
        x for e in data["edges"] if e["kind"] == "cooccurs" for x in (e["from"], e["to"])
    )
    # each drawn concept keeps up to LINKS_PER_CONCEPT of its own; others may add theirs
    assert ends and min(ends.values()) >= 1
    assert sum(ends.values()) <= 2 * LINKS_PER_CONCEPT * len(ends)


def test_cooccurrence_is_symmetric_and_counts_papers():
    g = synthetic_graph(30, 40)
    corpus = read_corpus(g)
    pages = render_views(g)
    data = blocks(pages["concept-map.html"])
    for e in data["edges"]:
        if e["kind"] == "cooccurs":
            both = set(corpus.papers_of[e["from"]]) & set(corpus.papers_of[e["to"]])
            assert e["w"] == len(both)
            assert e["from"] < e["to"]
    assert not any(a == b for a, b in combinations([e["id"] for e in data["edges"]], 2))


def test_a_bounded_edge_list_keeps_every_nodes_strongest_edge_first():
    # A clique of 12 strongly linked nodes, and 10 leaves with one weak edge each:
    # cut to 30 edges by weight alone, the leaves would lose their only edge.
    clique = [f"c{i:02d}" for i in range(12)]
    edges = {
        (a, b): 1.0 + i + j / 100
        for i, a in enumerate(clique)
        for j, b in enumerate(clique)
        if a < b
    }
    edges |= {(clique[i], f"leaf{i}"): 0.01 for i in range(10)}
    kept = strongest_per_node(edges, per_node=8, limit=30)
    assert len(kept) == 30
    ends = {end for edge in kept for end in edge}
    assert ends == set(clique) | {f"leaf{i}" for i in range(10)}
    # Past every node's first choice, the strongest edges fill the budget.
    strongest = max(edges, key=edges.__getitem__)
    assert strongest in kept


def test_paper_map_legend_rows_count_the_papers_of_their_colour(small):
    data = blocks(small["paper-map.html"])
    areas = data["settings"]["areas"]
    assert data["settings"]["width_legend"] == "shared-concept weight"
    shown = Counter(n["area"] for n in data["nodes"])
    assert {row[0]: row[2] for row in areas} == dict(shown)
    colour = {row[0]: row[1] for row in areas}
    assert all(n["color"] == colour[n["area"]] for n in data["nodes"])
