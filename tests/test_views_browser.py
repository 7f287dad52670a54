"""The views in real headless Chromium (Debian's, through Playwright), with the network blocked.

The seed views are those of the real build of seeds/ (KeyBERT + MiniLM, built
once per session); the hostile graph puts markup in every text a page shows
and every node and edge is hovered and clicked.
"""

from __future__ import annotations

import csv
import io
import os
import re
import shutil
from pathlib import Path

import networkx as nx
import pytest
from view_graphs import PAYLOAD, add_concept, add_paper, finish, hostile_graph, link, small_graph

from kg import defaults
from kg.export import DETAILS_DIR, is_details_file, render_views
from kg.export.views.bounds import VISIBLE_EDGES
from kg.export.views.corpus import read_corpus
from kg.export.views.panel import NEAREST

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
VIEWS = tuple(v.file for v in defaults.VIEWS)
pytestmark = pytest.mark.browser


#: The ids of the nodes whose centres are inside the canvas.
# Nodes with room on screen for a label: centred at least half a long label's width
# (130 px) from the left and right edges; a node at the very edge has none.
_ON_SCREEN = """() => {
  const pos = network.getPositions(), c = network.canvas.frame.canvas;
  return Object.keys(pos).filter(id => {
    const p = network.canvasToDOM(pos[id]);
    return p.x >= 130 && p.x <= c.clientWidth - 130 && p.y >= 20 && p.y <= c.clientHeight - 20;
  });
}"""


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
        # headless=True adds --headless; Playwright gives every launch a new, empty profile.
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        yield b
        b.close()


class Opened:
    """A page loaded from disk; every request, console error and page error is recorded."""

    def __init__(self, browser, path: Path):
        self.url = path.resolve().as_uri()
        self.requests: list[str] = []
        self.blocked: list[str] = []
        self.errors: list[str] = []
        self.context = browser.new_context(viewport={"width": 1400, "height": 900})
        self.page = self.context.new_page()
        self.page.route("**/*", self._route)
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.goto(self.url)
        if path.name != "index.html":
            self.page.wait_for_function("window.kgReady === true", timeout=60_000)

    def _route(self, route):
        if route.request.url.startswith("file:"):
            route.continue_()
        else:
            self.blocked.append(route.request.url)
            route.abort()

    def clean(self) -> None:
        """Nothing but the page itself was requested, and nothing went wrong."""
        assert self.errors == []
        beside = self.url.rsplit("/", 1)[0] + f"/{DETAILS_DIR}/"  # the papers' details files
        others = {r for r in self.requests if r != self.url}
        assert self.blocked == [] and self.url in self.requests, self.requests
        assert all(r.startswith(beside) and is_details_file(r[len(beside) :]) for r in others)

    def js(self, script: str, arg=None):
        return self.page.evaluate(script, arg)

    def point(self, node: str) -> tuple[float, float]:
        """Page coordinates of a node's centre."""
        xy = self.js("id => network.canvasToDOM(network.getPositions([id])[id])", node)
        box = self.page.locator("#mynetwork").bounding_box()
        return box["x"] + xy["x"], box["y"] + xy["y"]

    def clickable(self, node: str) -> tuple[float, float] | None:
        """The node's centre if a click there reaches it (on screen, on top, not under a note)."""
        x, y = self.point(node)
        box = self.page.locator("#mynetwork").bounding_box()
        inside = box["x"] < x < box["x"] + box["width"] and box["y"] < y < box["y"] + box["height"]
        if not inside:
            return None
        on_canvas = self.js(
            "p => document.elementFromPoint(p[0], p[1])?.tagName === 'CANVAS'", [x, y]
        )
        at = self.js("p => network.getNodeAt(p) ?? null", {"x": x - box["x"], "y": y - box["y"]})
        return (x, y) if on_canvas and at == node else None

    def edge_point(self, edge: dict) -> tuple[float, float] | None:
        """Page coordinates of an edge's midpoint if hovering there reaches that edge."""
        (ax, ay), (bx, by) = self.point(edge["from"]), self.point(edge["to"])
        box = self.page.locator("#mynetwork").bounding_box()
        rel = {"x": (ax + bx) / 2 - box["x"], "y": (ay + by) / 2 - box["y"]}
        if self.js("p => network.getNodeAt(p) ?? null", rel) is not None:
            return None
        if self.js("p => network.getEdgeAt(p) ?? null", rel) != edge["id"]:
            return None
        return rel["x"] + box["x"], rel["y"] + box["y"]

    def panel(self) -> str:
        """The panel's text, once the details of the paper it shows have loaded."""
        self.page.wait_for_function("!document.getElementById('kg-detail').dataset.loading")
        return self.page.locator("#kg-detail").inner_text()

    def shown(self) -> list[str]:
        return sorted(self.js("kgView.visibleNodes()"))

    def close(self) -> None:
        self.context.close()


def open_view(browser, path: Path) -> Opened:
    return Opened(browser, path)


def on_disk(out: Path, pages: dict[str, str]) -> None:
    """Write rendered pages into ``out``, as a build's output holds them."""
    for name, text in pages.items():
        (out / name).parent.mkdir(exist_ok=True)
        (out / name).write_text(text, encoding="utf-8")


def views_on_disk(factory, name: str, g: nx.Graph, pages: dict[str, str] | None = None):
    """``g``'s pages (rendered, unless given) in a new directory, and the indexes the
    checks compare against."""
    out = factory.mktemp(name)
    on_disk(out, render_views(g) if pages is None else pages)
    return out, read_corpus(g)


@pytest.fixture(scope="session")
def seed_views(seed_build, tmp_path_factory):
    """The seed build's pages on disk, and the indexes the checks compare against."""
    return views_on_disk(tmp_path_factory, "seed-views", seed_build.graph)


def expected_nodes(view: str, corpus) -> set[str]:
    """What each view draws of an input as small as the seeds: everything it is about."""
    with_papers = {c for c in corpus.concepts if corpus.papers_of[c]}
    if view == "paper-map.html":
        return set(corpus.papers)
    if view == "concept-map.html":  # with their broader concepts, all the way up
        drawn, stack = set(with_papers), list(with_papers)
        while stack:
            up = set(corpus.broader[stack.pop()]) - drawn
            drawn |= up
            stack += up
        return drawn
    return set(corpus.papers) | with_papers


def lora(corpus) -> str:
    found = [c for c in corpus.concepts if corpus.label(c) == "LoRA"]
    assert found, "the seed build has no concept labelled LoRA"
    return found[0]


# --- the seed views --------------------------------------------------------------------------


@pytest.mark.model
@pytest.mark.parametrize("view", VIEWS)
def test_seed_view_opens_offline_with_every_node(browser, seed_views, view):
    out, corpus = seed_views
    v = open_view(browser, out / view)
    expected = expected_nodes(view, corpus)
    assert v.js("network.body.data.nodes.length") == len(expected)
    assert set(v.shown()) == expected
    assert v.js("network.physics.options.enabled") is False
    count = v.page.locator("#kg-count").inner_text()
    assert (
        count.startswith("Showing ")
        and f"{len(corpus.papers)} papers" in count
        or (view == "concept-map.html")
    )
    v.clean()
    v.close()


@pytest.mark.model
@pytest.mark.parametrize("view", VIEWS)
def test_search_suggests_lora_after_two_letters_and_focuses_it(browser, seed_views, view):
    out, corpus = seed_views
    target = lora(corpus)
    v = open_view(browser, out / view)
    v.page.locator("#kg-search").press_sequentially("Lo", delay=30)
    options = v.page.locator("#kg-suggest .kg-option")
    options.first.wait_for(state="visible")
    labels = [t.strip() for t in v.page.locator("#kg-suggest .kg-option-label").all_inner_texts()]
    assert "LoRA" in labels, labels
    exact = v.page.locator(".kg-option-label", has_text=re.compile(r"^LoRA$"))
    v.page.locator("#kg-suggest .kg-option").filter(has=exact).click()
    v.page.wait_for_timeout(700)  # the focus animation
    assert v.page.locator("#kg-detail").get_attribute("data-node") == target
    assert v.page.locator("#kg-detail h2").inner_text() == "LoRA"
    selected = sorted(v.js("network.getSelectedNodes()"))
    if view == "paper-map.html":  # no concept nodes: its papers are chosen and highlighted
        assert selected == sorted(corpus.papers_of[target])
        assert sorted(v.js("kgView.highlighted()")) == selected
        focus_on = selected
    else:
        assert selected == [target] and v.js("kgView.focused()") == target
        neighbours = set(v.js("id => network.getConnectedNodes(id)", target))
        assert set(v.js("kgView.highlighted()")) == neighbours | {target}
        assert set(corpus.papers_of[target]) <= neighbours or view != "paper-concept.html"
        focus_on = [target]
    box = v.page.locator("#mynetwork").bounding_box()
    for node in focus_on:  # focused: on screen
        x, y = v.point(node)
        assert (
            box["x"] <= x <= box["x"] + box["width"] and box["y"] <= y <= box["y"] + box["height"]
        )
    assert target in [x["id"] for x in v.js("kgView.labels()")] or view == "paper-map.html"
    v.clean()
    v.close()


def _nearest(corpus, paper: str) -> list[str]:
    return [corpus.label(q) for q, _ in corpus.neighbours[paper][:NEAREST]]


@pytest.mark.model
@pytest.mark.parametrize("view", VIEWS)
def test_clicking_a_paper_shows_its_abstract_and_nearest_papers(browser, seed_views, view):
    out, corpus = seed_views
    v = open_view(browser, out / view)
    if view == "concept-map.html":  # papers are not nodes here: through a concept's panel
        concept = max(corpus.concepts, key=lambda c: (len(corpus.papers_of[c]), c))
        xy = v.clickable(concept)
        assert xy, concept
        v.page.mouse.click(*xy)
        assert v.page.locator("#kg-detail").get_attribute("data-node") == concept
        papers = v.page.locator("#kg-detail a.kg-link[data-node^='paper:']")
        assert papers.count() == len(corpus.papers_of[concept])
        paper = papers.first.get_attribute("data-node")
        papers.first.click()
    else:
        paper, xy = next(
            (p, xy)
            for p in sorted(corpus.papers, key=lambda p: -len(corpus.neighbours[p]))
            if (xy := v.clickable(p))
        )
        v.page.mouse.click(*xy)
    assert v.page.locator("#kg-detail").get_attribute("data-node") == paper
    text = v.panel()
    d = corpus.attrs[paper]
    assert d["title"] in text and " ".join(d["abstract"].split()) in " ".join(text.split())
    near = v.page.locator("#kg-detail li.kg-near > a.kg-link")
    assert near.all_inner_texts() == _nearest(corpus, paper) != []
    for concept in list(corpus.mentions[paper])[:3]:  # concepts with their evidence
        evidence = corpus.mentions[paper][concept]["evidence"]
        assert corpus.label(concept) in text and evidence in text
    other = near.first.get_attribute("data-node")
    near.first.click()  # each nearest paper is clickable
    assert v.page.locator("#kg-detail").get_attribute("data-node") == other
    if view != "concept-map.html":
        assert v.js("network.getSelectedNodes()") == [other]
    v.clean()
    v.close()


@pytest.mark.model
@pytest.mark.parametrize("view", VIEWS)
def test_field_filter_hides_other_fields_papers(browser, seed_views, view):
    out, corpus = seed_views
    v = open_view(browser, out / view)
    in_field = {f: {p for p in corpus.papers if f in corpus.paper_fields[p]} for f in corpus.fields}
    field = max(
        (f for f in in_field if 1 < len(in_field[f]) < len(corpus.papers)),
        key=lambda f: (len(in_field[f]), f),
    )
    before = set(v.shown())
    v.page.select_option("#kg-field", field)
    shown = set(v.shown())
    if view == "concept-map.html":  # the concepts the field's papers mention
        mentioned = {c for p in in_field[field] for c in corpus.mentions[p]}
        assert shown == before & mentioned and shown < before
    else:
        papers = {n for n in shown if n.startswith("paper:")}
        assert papers == in_field[field]
        hidden = before - shown
        assert {p for p in corpus.papers if p not in in_field[field]} <= hidden
    count = v.page.locator("#kg-count").inner_text()
    assert "hidden:" in count and f"{len(before) - len(shown)} node" in count
    edges = v.js("kgView.visibleEdges()")
    assert all(e["from"] in shown and e["to"] in shown for e in edges)
    v.page.select_option("#kg-field", "")
    assert set(v.shown()) == before
    v.clean()
    v.close()


@pytest.mark.model
@pytest.mark.parametrize("view", ("paper-map.html", "concept-map.html"))
def test_weight_control_hides_weaker_links(browser, seed_views, view):
    out, _ = seed_views
    v = open_view(browser, out / view)
    weighted = lambda: [e["w"] for e in v.js("kgView.visibleEdges()") if e["w"] is not None]  # noqa: E731
    before = weighted()
    steps = int(v.page.locator("#kg-weight").get_attribute("max"))
    assert steps > 0 and before
    v.page.locator("#kg-weight").fill(str(steps))
    after = weighted()
    threshold = max(before)
    assert after and all(w >= threshold - 0.005 for w in after) and len(after) < len(before)
    assert v.page.locator("#kg-weight-value").inner_text().startswith("≥")
    v.clean()
    v.close()


def _panel_of(v: Opened) -> tuple[str, list[str], list[str]]:
    """The node the panel shows, its section headings (upper case) and the nodes it links."""
    detail = v.page.locator("#kg-detail")
    heads = [h.upper() for h in detail.locator("h3").all_inner_texts()]
    links = detail.locator("a.kg-link").evaluate_all("as => as.map(a => a.dataset.node)")
    return detail.get_attribute("data-node"), heads, links


@pytest.mark.model
def test_clicking_a_concept_lists_its_papers_broader_and_narrower(browser, seed_views):
    out, corpus = seed_views
    v = open_view(browser, out / "concept-map.html")
    linked = [c for c in corpus.concepts if corpus.broader[c] and corpus.papers_of[c]]
    assert linked, "the seed build has no concept hierarchy"
    concept = max(linked, key=lambda c: (len(corpus.papers_of[c]), c))
    xy = v.clickable(concept)
    if xy is None:  # hidden under another node: reach it as the search does
        v.js("id => kgView.choose(id)", concept)
    else:
        v.page.mouse.click(*xy)
    node, heads, links = _panel_of(v)
    assert node == concept and f"BROADER ({len(corpus.broader[concept])})" in heads
    assert set(corpus.broader[concept]) | set(corpus.papers_of[concept]) <= set(links)
    broader = corpus.broader[concept][0]
    v.page.locator(f"#kg-detail a.kg-link[data-node='{broader}']").first.click()
    node, heads, links = _panel_of(v)
    assert node == broader and f"NARROWER ({len(corpus.narrower[broader])})" in heads
    assert concept in links and set(corpus.narrower[broader]) <= set(links)
    v.clean()
    v.close()


@pytest.mark.model
def test_weight_control_waits_for_the_links_it_filters(browser, seed_views):
    """In the paper–concept graph it filters shared-concept links, which start switched off."""
    out, _ = seed_views
    v = open_view(browser, out / "paper-concept.html")
    weight = v.page.locator("#kg-weight")
    shares = lambda: [e["w"] for e in v.js("kgView.visibleEdges()") if e["kind"] == "shares"]  # noqa: E731
    assert weight.is_disabled() and shares() == []
    v.page.locator("#kg-edges-shares").check()
    assert weight.is_enabled()
    before = shares()
    weight.fill(weight.get_attribute("max"))
    after = shares()
    assert before and after and len(after) < len(before)
    assert all(w >= max(before) for w in after)
    v.page.locator("#kg-edges-shares").uncheck()
    assert weight.is_disabled() and shares() == []
    v.clean()
    v.close()


@pytest.mark.model
@pytest.mark.parametrize("view", VIEWS)
def test_labels_are_readable_do_not_overlap_and_multiply_when_zoomed(browser, seed_views, view):
    out, corpus = seed_views
    v = open_view(browser, out / view)
    labels = v.js("kgView.labels()")
    assert len(labels) >= 10
    assert all(x["px"] >= 12 and x["text"] and "://" not in x["text"] for x in labels)
    _no_overlap(labels + v.js("kgView.groups()"))
    ranks = v.js("Object.fromEntries(network.body.data.nodes.get().map(n => [n.id, n.rank]))")
    top = max(ranks, key=lambda n: (ranks[n], n))
    assert top in {x["id"] for x in labels}, "the most important node is not labelled"
    texts = {x["id"]: x["text"] for x in labels}
    for node, text in texts.items():
        assert text.rstrip("…") in corpus.label(node)
    # zoom into the most important node without a label: its label appears, no overlaps
    hidden = max((n for n in ranks if n not in texts), key=lambda n: (ranks[n], n))
    v.js(
        "id => network.moveTo({position: network.getPositions([id])[id], "
        "scale: kgView.fitScale() * 6})",
        hidden,
    )
    v.page.wait_for_timeout(200)
    zoomed = v.js("kgView.labels()")
    assert hidden in {x["id"] for x in zoomed}
    # more labels than at first, where there are more nodes on screen to label
    on_screen = set(v.js(_ON_SCREEN)) - set(texts)
    assert len({x["id"] for x in zoomed} - set(texts)) >= min(2, len(on_screen))
    _no_overlap(zoomed)
    v.clean()
    v.close()


def _no_overlap(boxes: list[dict]) -> None:
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            apart = (
                a["x"] + a["w"] <= b["x"]
                or b["x"] + b["w"] <= a["x"]
                or a["y"] + a["h"] <= b["y"]
                or b["y"] + b["h"] <= a["y"]
            )
            assert apart, (a, b)


@pytest.mark.model
def test_hovering_shows_summaries_of_nodes_and_shared_concepts(browser, seed_views):
    out, corpus = seed_views
    v = open_view(browser, out / "paper-map.html")
    paper, xy = next((p, xy) for p in corpus.papers if (xy := v.clickable(p)))
    v.page.mouse.move(*xy)
    tip = v.page.locator("#kg-tip")
    tip.wait_for(state="visible")
    assert corpus.attrs[paper]["title"] in tip.inner_text()
    v.page.mouse.move(5, 5)
    tip.wait_for(state="hidden")
    # an edge: hover its midpoint where no node is
    e, mid = next((e, xy) for e in v.js("kgView.visibleEdges()") if (xy := v.edge_point(e)))
    v.page.mouse.move(*mid)
    tip.wait_for(state="visible")
    text = tip.inner_text()
    d = corpus.shares[min(e["from"], e["to"]), max(e["from"], e["to"])]
    assert corpus.label(e["from"]) in text and corpus.label(e["to"]) in text
    for shared in d["shared"]:
        assert shared in text
    v.clean()
    v.close()


def evidence_edge(v: Opened, corpus) -> tuple[dict, tuple[float, float]]:
    """A drawn concept link whose paper cites a sentence for it, and where to hover it."""
    return next(
        (e, xy)
        for e in v.js("kgView.visibleEdges()")
        if e["kind"] == "mentions"
        and corpus.mentions[e["from"]][e["to"]].get("evidence")
        and (xy := v.edge_point(e))
    )


@pytest.mark.model
def test_hovering_a_concept_link_shows_its_evidence_once_loaded(browser, seed_views):
    """The sentence a link cites is in its paper's details file, loaded when first needed."""
    out, corpus = seed_views
    v = open_view(browser, out / "paper-concept.html")
    e, mid = evidence_edge(v, corpus)
    v.page.mouse.move(*mid)
    evidence = corpus.mentions[e["from"]][e["to"]]["evidence"]
    v.page.wait_for_function(
        "text => document.getElementById('kg-tip').textContent.includes(text)", arg=evidence
    )
    assert any(f"/{DETAILS_DIR}/" in r for r in v.requests)
    v.clean()
    v.close()


def test_a_page_without_its_details_folder_says_where_they_are(browser, tmp_path):
    pages = render_views(small_graph())
    (tmp_path / "paper-map.html").write_text(pages["paper-map.html"], encoding="utf-8")
    v = open_view(browser, tmp_path / "paper-map.html")
    v.js("id => kgView.choose(id)", "paper:a")
    text = v.panel()
    assert "Adam revisited: a study" in text  # what the page itself knows is shown
    assert f"{DETAILS_DIR}/0000.js, which was not found beside this page" in text
    assert "Adam revisited studies things." not in text
    assert len(v.errors) == 1 and "ERR_FILE_NOT_FOUND" in v.errors[0], v.errors
    v.close()


def test_a_papers_panel_names_each_link_by_its_concept_and_role(browser, tmp_path):
    """The page holds links as numbers; the panel reads them back as names."""
    on_disk(tmp_path, render_views(small_graph()))
    v = open_view(browser, tmp_path / "paper-map.html")
    v.js("id => kgView.choose(id)", "paper:a")
    text = v.panel()
    assert "Adam — proposes, confidence 0.90" in text
    assert "SGD — uses, confidence 0.60" in text
    assert "optimization — in field, confidence 0.40" in text
    assert v.errors == []
    v.close()


def test_a_page_beside_another_builds_details_says_so_and_shows_none_of_them(browser, tmp_path):
    g = small_graph()
    on_disk(tmp_path, render_views(g))
    g.nodes["paper:a"]["abstract"] = "Adam revisited, rebuilt."
    (tmp_path / "paper-map.html").write_text(render_views(g)["paper-map.html"], encoding="utf-8")
    v = open_view(browser, tmp_path / "paper-map.html")  # a new page, the old folder
    v.js("id => kgView.choose(id)", "paper:a")
    text = v.panel()
    assert "Adam revisited: a study" in text
    assert f"{DETAILS_DIR}/0000.js, which is from another build than this page" in text
    assert "studies things" not in text and "rebuilt" not in text
    assert v.errors == []
    v.close()


def test_concept_links_without_the_details_folder_still_show_their_tooltip(browser, tmp_path):
    g = small_graph()
    corpus = read_corpus(g)
    pages = render_views(g)
    (tmp_path / "paper-concept.html").write_text(pages["paper-concept.html"], encoding="utf-8")
    v = open_view(browser, tmp_path / "paper-concept.html")
    tip = v.page.locator("#kg-tip")
    e, mid = evidence_edge(v, corpus)
    for _ in range(2):  # the second time, its file is known to be missing
        v.page.mouse.move(*mid)
        tip.wait_for(state="visible")
        v.page.wait_for_timeout(300)
        assert corpus.label(e["to"]) in tip.inner_text()
        box = v.page.locator("#mynetwork").bounding_box()  # off the edge, on the canvas
        v.page.mouse.move(box["x"] + 5, box["y"] + box["height"] - 5)
        tip.wait_for(state="hidden")
    assert [x for x in v.errors if "ERR_FILE_NOT_FOUND" not in x] == []
    v.close()


def test_choosing_papers_while_details_load_shows_one_panel(browser, tmp_path):
    on_disk(tmp_path, render_views(small_graph()))
    v = open_view(browser, tmp_path / "paper-map.html")
    for chosen in (["paper:a", "paper:a"], ["paper:a", "paper:b", "paper:a"]):
        v.js("ids => ids.forEach(id => kgView.choose(id))", chosen)
        text = v.panel()
        assert v.page.locator("#kg-detail h2").count() == 1, text
        assert v.page.locator("#kg-detail").get_attribute("data-node") == chosen[-1]
        assert text.count("Adam revisited studies things.") == 1
        v.page.reload()
        v.page.wait_for_function("window.kgReady === true")
    v.clean()
    v.close()


@pytest.mark.model
def test_index_links_all_three_views(browser, seed_views):
    out, _ = seed_views
    v = open_view(browser, out / "index.html")
    hrefs = v.page.locator("a.card").evaluate_all("as => as.map(a => a.getAttribute('href'))")
    assert hrefs == list(VIEWS)
    v.page.locator("a.card").first.click()
    v.page.wait_for_function("window.kgReady === true")
    assert v.page.url.endswith("/paper-map.html")
    assert v.errors == [] and v.blocked == []
    v.close()


# --- hostile input ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def hostile_pages(tmp_path_factory):
    out = tmp_path_factory.mktemp("hostile")
    heading = f"Heading {PAYLOAD}"
    on_disk(out, render_views(hostile_graph(), heading))
    return out, heading


@pytest.mark.parametrize("view", (*VIEWS, "index.html"))
def test_hostile_text_is_shown_and_never_runs(browser, hostile_pages, view):
    out, heading = hostile_pages
    v = open_view(browser, out / view)
    page = v.page
    title = {"index.html": heading}.get(view)
    if view != "index.html":
        title = page.title()
        assert title.startswith(heading + " · ")
        assert page.locator("h1").inner_text() == heading
    assert page.title() == title

    def untouched() -> None:
        assert page.evaluate("window.__pwned") is None
        assert page.title() == title
        assert page.locator("img, iframe, object, embed").count() == 0
        assert page.locator("a[href^='javascript']").count() == 0
        assert page.locator("script").count() == (0 if view == "index.html" else 7)

    untouched()
    if view == "index.html":
        v.clean()
        v.close()
        return
    tip = page.locator("#kg-tip")
    nodes = v.js("network.body.data.nodes.getIds()")
    assert len(nodes) >= 3
    for node in nodes:
        v.js("() => network.moveTo({position: {x: 0, y: 0}, scale: kgView.fitScale()})")
        xy = v.clickable(node)
        assert xy, node
        page.mouse.move(*xy)
        tip.wait_for(state="visible")
        assert tip.locator("*:not(div)").count() == 0  # only kg's own text lines
        assert "{{ 7*7 }}" in tip.inner_text() or node == "paper:z"
        page.mouse.click(*xy)
        assert page.locator("#kg-detail").get_attribute("data-node") == node
        v.panel()  # its details loaded
        assert page.locator("#kg-detail img, #kg-detail script, #kg-detail iframe").count() == 0
        page.mouse.move(3, 3)
        untouched()
    page.locator("#kg-detail a.kg-link").first.click()  # links in the panel are kg's
    v.panel()
    hrefs = page.locator("#kg-detail a").evaluate_all("as => as.map(a => a.getAttribute('href'))")
    assert set(hrefs) <= {"#", "https://example.org/y"}  # kg's own, and paper y's web link
    for out in page.locator("#kg-detail a.kg-out").all():
        assert out.get_attribute("rel") == "noopener noreferrer"
    text = v.panel()
    assert PAYLOAD in text  # shown literally
    page.locator("#kg-search").fill("evil <")
    page.locator("#kg-suggest .kg-option").first.wait_for(state="visible")
    assert PAYLOAD in page.locator("#kg-suggest").inner_text()
    page.keyboard.press("Enter")
    page.wait_for_timeout(300)
    untouched()
    v.clean()
    v.close()


@pytest.mark.parametrize("view", VIEWS)
def test_hostile_edges_show_their_text_as_text(browser, hostile_pages, view):
    out, _ = hostile_pages
    v = open_view(browser, out / view)
    tip = v.page.locator("#kg-tip")
    hovered = 0
    for e in v.js("kgView.visibleEdges()"):
        if xy := v.edge_point(e):
            v.page.mouse.move(*xy)
            tip.wait_for(state="visible")
            assert tip.locator("*:not(div)").count() == 0
            hovered += 1
            v.page.mouse.move(3, 3)
    assert hovered >= 1
    assert v.page.evaluate("window.__pwned") is None
    v.clean()
    v.close()


# --- a large input ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def large_pages(large_views, tmp_path_factory):
    g, pages = large_views
    return views_on_disk(tmp_path_factory, "large", g, pages)


@pytest.mark.parametrize("view", VIEWS)
def test_large_views_open_bounded_and_say_what_they_hide(browser, large_pages, view):
    out, corpus = large_pages
    v = open_view(browser, out / view)
    ready = v.js("window.kgReadyAt")
    print(f"{view}: ready after {ready:.0f} ms")  # figures for the manual come from bench/views.py
    shipped = v.js("network.body.data.edges.getDataSet().length")
    assert v.js("kgView.visibleEdges().length") <= VISIBLE_EDGES < shipped
    note = v.page.locator("#kg-bounds")
    assert note.is_visible() and note.inner_text().strip()
    labels = v.js("kgView.labels()")
    assert 10 <= len(labels) <= 60
    _no_overlap(labels + v.js("kgView.groups()"))
    if view == "paper-map.html":
        assert len(v.js("kgView.groups()")) >= 3  # named communities at first sight
    v.page.locator("#kg-search").fill("concept 1")
    v.page.locator("#kg-suggest .kg-option").first.wait_for(state="visible")
    v.page.keyboard.press("Enter")
    assert v.page.locator("#kg-detail").get_attribute("data-node").startswith("concept:")
    v.clean()
    v.close()


def test_a_popular_concepts_papers_are_listed_a_page_at_a_time(browser, large_pages):
    """The surest 200 first, then 200 more at each click, until every paper is listed."""
    out, corpus = large_pages
    concept = max(corpus.papers_of, key=lambda c: (len(corpus.papers_of[c]), c))
    assert len(corpus.papers_of[concept]) > 400, concept
    v = open_view(browser, out / "concept-map.html")
    v.js("id => kgView.choose(id)", concept)
    papers = v.page.locator("#kg-detail a.kg-link[data-node^='paper:']")
    more = v.page.locator("#kg-detail .kg-show-more")
    assert papers.count() == 200 and more.count() == 1
    clicks = 0
    while more.count():
        more.click()
        clicks += 1
    listed = papers.evaluate_all("as => as.map(a => a.dataset.node)")
    assert sorted(listed) == sorted(corpus.papers_of[concept])
    assert clicks == -(-len(listed) // 200) - 1
    v.clean()
    v.close()


# --- a mixed build: several venues, years and areas -------------------------------------------


def mixed_graph() -> nx.Graph:
    """Four papers of three venues and years (one without), two areas, a concept of no paper."""
    g = nx.Graph()
    add_paper(
        g,
        "p1",
        label="Low-rank adapters",
        venue="arXiv",
        year=2024,
        authors=["Soufiane Hayou", "N. Ghosh"],
        link="https://example.org/p1",
    )
    add_paper(g, "p2", label="Exploration bonuses", venue="ICML", year=2019)
    add_paper(g, "p3", label='Undated, "quoted"', venue=None, year=None, authors=[])
    add_paper(g, "p4", label="Adapters again", venue="ICML", year=2021)
    add_paper(g, "p5", label="=Fieldless", venue="NeurIPS", year=2022)
    add_concept(g, "lora", "method", "LoRA")
    add_concept(g, "explore", "problem", "exploration")
    add_concept(g, "lorazepam", "method", "Lorazepam")  # no paper mentions it
    add_concept(g, "opt", "field", "optimization")
    add_concept(g, "rl", "field", "reinforcement learning")
    for p, c, s in [
        ("p1", "lora", 0.9),
        ("p3", "lora", 0.8),
        ("p4", "lora", 0.7),
        ("p2", "explore", 0.9),
        ("p3", "explore", 0.6),
        ("p1", "opt", 0.8),
        ("p3", "opt", 0.7),
        ("p4", "opt", 0.3),
        ("p4", "rl", 0.9),
        ("p2", "rl", 0.8),
    ]:
        link(g, p, c, s)
    link(g, "p5", "lora", 0.5)
    return finish(g)


@pytest.fixture(scope="module")
def mixed_pages(tmp_path_factory):
    return views_on_disk(tmp_path_factory, "mixed-views", mixed_graph())


@pytest.mark.parametrize("view", VIEWS)
def test_search_ranks_word_starts_first_and_finds_authors_and_venues(browser, mixed_pages, view):
    out, _ = mixed_pages
    v = open_view(browser, out / view)
    found = v.js("kgView.find('LoRA')")
    assert found[0] == "concept:lora"
    assert "concept:lorazepam" not in found  # no paper mentions it
    assert set(found[1:]) == {"concept:explore", "paper:p2"}  # inside a word: after
    assert v.js("kgView.find('lor')")[:1] == ["concept:lora"]
    assert v.js("kgView.find('Hayou')") == ["paper:p1"]
    assert v.js("kgView.find('arxiv')") == ["paper:p1"]
    assert set(v.js("kgView.find('ICML')")) == {"paper:p2", "paper:p4"}
    v.page.locator("#kg-search").press_sequentially("Hayou", delay=20)
    option = v.page.locator("#kg-suggest .kg-option").first
    option.wait_for(state="visible")
    assert option.locator(".kg-option-label").inner_text() == "Low-rank adapters"
    assert "by Soufiane Hayou" in option.locator(".kg-option-sub").inner_text()
    v.clean()
    v.close()


def _shown_papers(v) -> list[str]:
    return [n for n in v.shown() if n.startswith("paper:")]


@pytest.mark.parametrize("view", ["paper-map.html", "paper-concept.html"])
def test_year_range_filters_papers_and_keeps_undated_ones(browser, mixed_pages, view):
    out, corpus = mixed_pages
    v = open_view(browser, out / view)
    control = v.page.locator("#kg-years")
    assert "without a year stay visible" in control.get_attribute("title")
    assert "undated kept" in control.inner_text()
    assert v.page.locator("#kg-year-from").input_value() == "2019"
    assert v.page.locator("#kg-year-to").input_value() == "2024"
    assert _shown_papers(v) == sorted(corpus.papers)
    v.page.locator("#kg-year-from").fill("2020")
    assert _shown_papers(v) == ["paper:p1", "paper:p3", "paper:p4", "paper:p5"]
    v.page.locator("#kg-year-to").fill("2021")
    assert _shown_papers(v) == ["paper:p3", "paper:p4"]  # p3 has no year
    v.clean()
    v.close()


def test_year_range_is_hidden_where_no_paper_is_drawn(browser, mixed_pages):
    out, _ = mixed_pages
    v = open_view(browser, out / "concept-map.html")
    assert not v.page.locator("#kg-years").is_visible()
    v.close()


@pytest.mark.parametrize("view", VIEWS)
def test_export_downloads_the_papers_shown_as_quoted_csv(browser, mixed_pages, view):
    out, corpus = mixed_pages
    v = open_view(browser, out / view)
    if view != "concept-map.html":
        v.page.locator("#kg-year-to").fill("2021")
    with v.page.expect_download() as info:
        v.page.locator("#kg-export").click()
    download = info.value
    text = Path(download.path()).read_text(encoding="utf-8")
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ["id", "title", "authors", "year", "venue", "link"]
    ids = [r[0] for r in rows[1:]]
    if view == "concept-map.html":
        assert ids == [p.removeprefix("paper:") for p in corpus.papers]
    else:
        assert ids == ["p2", "p3", "p4"]
    by_id = {r[0]: r for r in rows[1:]}
    assert by_id["p3"][1] == 'Undated, "quoted": a study' and by_id["p3"][3] == ""
    assert by_id["p2"][2:5] == ["A. Author; B. Author", "2019", "ICML"]
    assert all(text.count(f'"{r[0]}"') for r in rows[1:])  # every cell quoted
    with v.page.expect_download() as info:
        v.page.locator("#kg-export-keys").click()
    keys = Path(info.value.path()).read_text(encoding="utf-8")
    assert keys.splitlines() == ids  # the same papers, as their citation keys
    v.clean()
    v.close()


def test_export_of_a_search_is_what_it_found(browser, mixed_pages):
    out, _ = mixed_pages
    v = open_view(browser, out / "paper-map.html")
    v.js("kgView.choose('concept:lora')")
    found = list(csv.reader(io.StringIO(v.js("kgView.csv()"))))
    assert [r[0] for r in found[1:]] == ["p1", "p3", "p4", "p5"]
    assert found[-1][1] == "'=Fieldless: a study"  # no spreadsheet formula
    v.clean()
    v.close()


def test_legend_counts_are_what_a_click_shows(browser, mixed_pages):
    out, _ = mixed_pages
    v = open_view(browser, out / "paper-map.html")
    buttons = v.page.locator(".kg-area-button")
    texts = buttons.all_inner_texts()
    assert any(t.startswith("other areas") for t in texts), texts
    for i, text in enumerate(texts):
        n = int(re.search(r"\((\d+)\)$", text.strip()).group(1))
        buttons.nth(i).click()
        assert buttons.nth(i).get_attribute("aria-pressed") == "true"
        assert len(_shown_papers(v)) == n, text
        buttons.nth(i).click()  # again: all papers
        assert len(_shown_papers(v)) == 5
    width = v.page.locator("#kg-legend .kg-width")
    assert width.inner_text() == "line width: shared-concept weight"
    v.clean()
    v.close()
