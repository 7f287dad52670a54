"""The offline HTML view: self-contained, escaped, deterministic, and usable in Chromium."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import time
from itertools import combinations
from pathlib import Path

import networkx as nx
import pytest

from kg.export.html import BIG_GRAPH, MAX_SHARES_PER_PAPER, render_html

CHROMIUM = "/usr/bin/chromium"
SCRIPT = "<script>window.__pwned=1</script>"
IMG = '<img src=x onerror="window.__pwned=1">'
PAYLOAD = f'{SCRIPT}{IMG} <a href="javascript:window.__pwned=1">href</a>'
KINDS = ("method", "problem", "field")
ROLES = {"method": "usesMethod", "problem": "addressesProblem", "field": "inField"}


def _add_paper(g: nx.Graph, pid: str, **attrs) -> None:
    label = attrs.pop("label", pid.title())
    defaults = {
        "title": f"{label}: a study",
        "abstract": f"{label} studies things.",
        "year": 2021,
        "venue": "ICML",
        "authors": ["A. Author", "B. Author"],
    }
    g.add_node(f"paper:{pid}", type="paper", label=label, **(defaults | attrs))


def _add_concept(g: nx.Graph, key: str, kind: str, label: str, alt=()) -> None:
    g.add_node(f"concept:{key}", type="concept", kind=kind, label=label, alt_labels=list(alt))


def _link(g: nx.Graph, pid: str, key: str, score: float, role: str | None = None) -> None:
    concept = f"concept:{key}"
    role = role or ROLES[g.nodes[concept]["kind"]]
    evidence = f"{g.nodes[f'paper:{pid}']['label']} relies on {g.nodes[concept]['label']}."
    g.add_edge(f"paper:{pid}", concept, type="mentions", role=role, score=score, evidence=evidence)


def _finish(g: nx.Graph) -> nx.Graph:
    """Set concept paper counts and add the shared-concept projection."""
    for c in [n for n, d in g.nodes(data=True) if d["type"] == "concept"]:
        g.nodes[c]["papers"] = g.degree(c)
        for a, b in combinations(sorted(g[c]), 2):
            if g.has_edge(a, b):
                g[a][b]["weight"] += 1
                g[a][b]["shared"].append(g.nodes[c]["label"])
            else:
                g.add_edge(a, b, type="shares", weight=1, shared=[g.nodes[c]["label"]])
    return g


def small_graph() -> nx.Graph:
    g = nx.Graph()
    _add_paper(g, "a", label="Adam revisited", venue="NeurIPS", year=2020)
    _add_paper(g, "b", label="Noise in SGD", venue=None, year=None, authors=[])
    _add_paper(g, "c", label="Tails", title="Heavy tails everywhere")
    _add_concept(g, "sgd", "method", "SGD", alt=["stochastic gradient descent"])
    _add_concept(g, "adam", "method", "Adam")
    _add_concept(g, "noise", "problem", "gradient noise")
    _add_concept(g, "ml", "field", "machine learning")
    _link(g, "a", "adam", 0.9, role="proposes")
    _link(g, "a", "sgd", 0.6)
    _link(g, "a", "ml", 0.4)
    _link(g, "b", "sgd", 0.8)
    _link(g, "b", "noise", 0.7)
    _link(g, "c", "noise", 0.5)
    _link(g, "c", "ml", 0.3)
    return _finish(g)


def hostile_graph() -> nx.Graph:
    """User text everywhere a page shows text, with script, img/onerror and href."""
    g = nx.Graph()
    _add_paper(
        g,
        "x",
        label=f"evil {PAYLOAD}",
        title=f"title {PAYLOAD}",
        abstract=f"abstract {PAYLOAD}",
        venue=f"venue {PAYLOAD}",
        authors=[f"author {PAYLOAD}"],
    )
    _add_paper(g, "y", label="plain paper")
    _add_concept(g, "evil", "method", f"concept {PAYLOAD}", alt=[f"alt {PAYLOAD}"])
    _link(g, "x", "evil", 0.9)
    _link(g, "y", "evil", 0.5)
    g["paper:x"]["concept:evil"]["evidence"] = f"evidence {PAYLOAD}"
    return _finish(g)


def synthetic_graph(n_papers: int, n_concepts: int, per_paper: int = 8, seed: int = 7) -> nx.Graph:
    """A reproducible graph with a long tail of concepts, like real extractions."""
    rnd = random.Random(seed)
    g = nx.Graph()
    for i in range(n_concepts):
        _add_concept(g, f"c{i}", KINDS[i % 3], f"concept {i}", alt=[f"c{i}"])
    for p in range(n_papers):
        _add_paper(g, f"p{p}", label=f"Paper {p}", year=2000 + p % 25)
        popular = [int(rnd.paretovariate(1.2)) - 1 for _ in range(per_paper // 2)]
        rare = [rnd.randrange(n_concepts) for _ in range(per_paper - len(popular))]
        for c in sorted({min(c, n_concepts - 1) for c in popular + rare}):
            _link(g, f"p{p}", f"c{c}", round(rnd.random(), 3))
    g.remove_nodes_from([n for n in list(g) if g.degree(n) == 0])
    return _finish(g)


def page_data(page: str) -> tuple[list[dict], list[dict]]:
    """The node and edge lists the page hands to vis-network."""
    nodes = re.search(r"var nodes = new vis\.DataSet\((.*?)\);\n", page, re.S)
    edges = re.search(r"var edges = new vis\.DataSet\((.*?)\);\n", page, re.S)
    assert nodes and edges, "node/edge data not found in the page"
    return json.loads(nodes.group(1)), json.loads(edges.group(1))


# --- the HTML string -------------------------------------------------------------------------


def test_page_fetches_nothing_from_outside():
    page = render_html(small_graph(), "Small")
    fetches = re.findall(r"""(?:src|href|action)\s*=\s*["']?\s*(?:https?:)?//""", page, re.I)
    css = re.findall(r"""(?:@import\s*["']?|url\(\s*["']?)\s*(?:https?:)?//""", page, re.I)
    assert fetches == [] and css == []
    assert not re.search(r"<(?:link|iframe)\b|<script[^>]*\bsrc=", page, re.I)
    assert "vis.Network" in page and "div.vis-tooltip" in page  # vis JS and CSS inlined


def test_user_text_is_escaped_everywhere():
    page = render_html(hostile_graph(), f"Heading {PAYLOAD}")
    assert "<script>window.__pwned" not in page
    assert "<img src=x" not in page and '<a href="javascript' not in page
    assert f"<h1>Heading {SCRIPT.replace('<', '&lt;').replace('>', '&gt;')}" in page
    nodes, edges = page_data(page)
    by_id = {n["id"]: n for n in nodes}
    assert by_id["paper:x"]["label"] == f"evil {PAYLOAD}"  # intact once decoded, as data
    assert by_id["paper:x"]["kg"]["abstract"] == f"abstract {PAYLOAD}"
    assert any(PAYLOAD in e["title"] for e in edges if e["kgType"] == "mentions")


def test_view_script_never_uses_html_sinks():
    js = (Path(__file__).parents[1] / "kg" / "export" / "assets" / "view.js").read_text()
    assert not re.search(r"innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(", js)


def test_same_graph_same_bytes():
    g = small_graph()
    shuffled = nx.Graph()
    shuffled.add_nodes_from(reversed(list(g.nodes(data=True))))
    shuffled.add_edges_from(reversed(list(g.edges(data=True))))
    assert render_html(g, "T") == render_html(g, "T") == render_html(shuffled, "T")
    assert '"randomSeed"' in render_html(g, "T")


def test_nodes_edges_and_details():
    nodes, edges = page_data(render_html(small_graph(), "T"))
    by_id = {n["id"]: n for n in nodes}
    assert sorted(by_id) == sorted(small_graph().nodes)
    assert (
        by_id["concept:sgd"]["color"]
        != by_id["concept:noise"]["color"]
        != by_id["paper:a"]["color"]
    )
    a = by_id["paper:a"]
    assert (
        a["title"] == "Adam revisited\nAdam revisited: a study\nNeurIPS, 2020\nA. Author, B. Author"
    )
    assert [c["label"] for c in a["kg"]["concepts"]] == ["Adam", "SGD", "machine learning"]
    assert a["kg"]["concepts"][0]["role"] == "proposes"
    sgd = by_id["concept:sgd"]
    assert "stochastic gradient descent" in sgd["title"] and "2 papers" in sgd["title"]
    assert [p["id"] for p in sgd["kg"]["papers"]] == ["paper:a", "paper:b"]
    mentions = [e for e in edges if e["kgType"] == "mentions"]
    shares = [e for e in edges if e["kgType"] == "shares"]
    assert len(mentions) == 7 and all(e["from"].startswith("paper:") for e in mentions)
    assert "Adam revisited relies on SGD." in next(
        e["title"] for e in mentions if e["to"] == "concept:sgd"
    )
    assert len(shares) == 3 and all(e["hidden"] and e["physics"] is False for e in shares)


def test_big_graphs_leave_one_paper_concepts_off_the_canvas():
    g = synthetic_graph(BIG_GRAPH + 1, 2000)
    singles = {n for n, d in g.nodes(data=True) if d["type"] == "concept" and d["papers"] == 1}
    assert singles
    nodes, edges = page_data(render_html(g, "Big"))
    ids = {n["id"] for n in nodes}
    assert ids == set(g) - singles
    assert all(e["to"] in ids for e in edges)
    # ...but each paper's panel still lists them
    listed = {c["id"] for n in nodes if n["kg"]["type"] == "paper" for c in n["kg"]["concepts"]}
    assert singles <= listed
    kept, _ = page_data(render_html(g, "Big", min_concept_papers=1))
    assert len(kept) == g.number_of_nodes()


def test_shared_links_are_capped_per_paper():
    g = synthetic_graph(60, 40)
    _, edges = page_data(render_html(g, "T"))
    kept = {(e["from"], e["to"]) for e in edges if e["kgType"] == "shares"}
    papers = [n for n in g if n.startswith("paper:")]
    assert len(kept) <= MAX_SHARES_PER_PAPER * len(papers) < g.number_of_edges()
    for p in papers:
        own = [m for m in g[p] if g[p][m]["type"] == "shares"]
        mine = [k for k in kept if p in k]
        assert len(mine) >= min(len(own), MAX_SHARES_PER_PAPER), p
        if own:  # its strongest link is always drawn
            best = max(g[p][m]["weight"] for m in own)
            assert any(g[a][b]["weight"] == best for a, b in mine), p


def test_unknown_node_type_is_rejected():
    g = small_graph()
    g.add_node("author:x", type="author", label="X")
    with pytest.raises(ValueError, match="author:x"):
        render_html(g, "T")


# --- in Chromium -----------------------------------------------------------------------------


def _unavailable(reason: str):
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason}; CI must run the browser tests")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists() or not shutil.which(CHROMIUM):
        _unavailable(f"{CHROMIUM} is missing (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("playwright is not installed (pip install -e '.[test]')")
    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        yield b
        b.close()


class Opened:
    """A page loaded from disk, with every non-file request and error recorded."""

    def __init__(self, browser, html: str, tmp_path: Path, name: str = "view.html"):
        path = tmp_path / name
        path.write_text(html, encoding="utf-8")
        self.outside: list[str] = []
        self.errors: list[str] = []
        self.page = browser.new_page(viewport={"width": 1400, "height": 900})
        self.page.route("**/*", self._route)
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.goto(path.as_uri())

    def _route(self, route):
        if route.request.url.startswith("file:"):
            route.continue_()
        else:
            self.outside.append(route.request.url)
            route.abort()

    def settle(self, seconds: float) -> float:
        start = time.perf_counter()
        self.page.wait_for_function("window.kgStabilized === true", timeout=seconds * 1000)
        return time.perf_counter() - start

    def point(self, node_id: str) -> tuple[float, float]:
        """Page coordinates of a node's centre."""
        xy = self.page.evaluate(
            "id => network.canvasToDOM(network.getPositions([id])[id])", node_id
        )
        box = self.page.locator("#mynetwork").bounding_box()
        return box["x"] + xy["x"], box["y"] + xy["y"]

    def node_at(self, x: float, y: float) -> str | None:
        box = self.page.locator("#mynetwork").bounding_box()
        return self.page.evaluate(
            "p => network.getNodeAt(p) ?? null", {"x": x - box["x"], "y": y - box["y"]}
        )

    def panel(self) -> str:
        return self.page.locator("#kg-detail").inner_text()


@pytest.mark.browser
def test_offline_page_settles_and_shows_details(browser, tmp_path):
    g = synthetic_graph(40, 1000, per_paper=16)  # like today's 37 papers / ~300 concepts
    assert 300 <= g.number_of_nodes() <= 350
    nodes, edges = page_data(html := render_html(g, "Synthetic papers"))
    view = Opened(browser, html, tmp_path)
    took = view.settle(30)
    page = view.page
    assert view.outside == [] and view.errors == []
    assert page.evaluate("network.body.data.nodes.length") == len(nodes) == g.number_of_nodes()
    assert page.evaluate("network.body.data.edges.length") == len(edges)
    assert page.evaluate("network.physics.options.enabled") is False, "physics left running"
    assert page.locator("#kg-loading").is_hidden()
    print(f"stabilised {len(nodes)} nodes / {len(edges)} edges in {took:.1f}s")

    # the first paper whose centre no other node covers
    paper, (x, y) = next(
        (p, view.point(p))
        for p in sorted(g)
        if p.startswith("paper:") and view.node_at(*view.point(p)) == p
    )
    label = g.nodes[paper]["label"]
    page.mouse.click(x, y)
    assert page.locator("#kg-detail").get_attribute("data-node") == paper
    text = view.panel()
    assert f"{label}: a study" in text and f"{label} studies things." in text
    first = next(n for n in nodes if n["id"] == paper)["kg"]["concepts"][0]
    assert first["label"] in text and first["evidence"] in text and first["kind"] in text

    page.locator("#kg-detail a.kg-link").first.click()  # concept links focus that concept
    assert page.locator("#kg-detail").get_attribute("data-node") == first["id"]
    assert label in view.panel()

    page.fill("#kg-search", "paper 17")
    page.press("#kg-search", "Enter")
    assert page.evaluate("network.getSelectedNodes()") == ["paper:p17"]
    assert page.locator("#kg-detail").get_attribute("data-node") == "paper:p17"

    hidden = "network.body.data.edges.get({filter: e => e.kgType === 'shares' && !e.hidden}).length"
    assert page.evaluate(hidden) == 0
    page.check("#kg-shares")
    assert page.evaluate(hidden) == sum(e["kgType"] == "shares" for e in edges) > 0
    page.uncheck("#kg-shares")
    page.fill("#kg-search", "")
    page.evaluate("network.fit({animation: false})")
    page.mouse.click(*view.point(paper))
    page.mouse.move(5, 5)
    page.wait_for_timeout(300)
    page.screenshot(path=str(tmp_path / "view.png"))
    page.screenshot(path="/tmp/kg_view.png")
    assert view.errors == [] and view.outside == []


@pytest.mark.browser
def test_payloads_render_as_text_and_never_run(browser, tmp_path):
    heading = f"Heading {PAYLOAD}"
    view = Opened(browser, render_html(hostile_graph(), heading), tmp_path)
    view.settle(30)
    page = view.page
    assert page.evaluate("window.__pwned") is None
    assert page.title() == heading
    assert page.locator("h1").inner_text() == heading
    assert (
        page.locator("img").count() == 0 and page.locator("main a[href^=javascript]").count() == 0
    )

    x, y = view.point("paper:x")
    page.mouse.move(x, y)
    tooltip = page.locator("div.vis-tooltip")
    tooltip.wait_for(state="visible", timeout=5000)
    assert f"evil {PAYLOAD}" in tooltip.inner_text()
    assert tooltip.locator(":not(br)").count() == 0  # plain text: innerText only adds <br>

    page.mouse.click(x, y)
    text = view.panel()
    for shown in ("title", "abstract", "venue", "author", "concept", "evidence"):
        assert f"{shown} {PAYLOAD}" in text, shown
    cx, cy = view.point("concept:evil")
    page.mouse.click(cx, cy)
    assert f"alt {PAYLOAD}" in view.panel()
    page.wait_for_timeout(300)
    assert page.evaluate("window.__pwned") is None
    assert page.locator("#kg-detail img, #kg-detail script").count() == 0
    assert view.errors == [] and view.outside == []


@pytest.mark.browser
def test_thousand_nodes_settle_in_bounded_time(browser, tmp_path):
    g = synthetic_graph(200, 1200, per_paper=12)
    nodes, _ = page_data(html := render_html(g, "Thousand"))
    assert len(nodes) >= 900
    view = Opened(browser, html, tmp_path)
    took = view.settle(60)
    print(f"stabilised {len(nodes)} nodes in {took:.1f}s")
    assert view.page.evaluate("network.physics.options.enabled") is False
    assert view.errors == [] and view.outside == []
