"""The interactive views of a build: three pages, the index that links them, and the papers'
details the pages load from the folder beside them.

Each view is one module that decides what to draw (``paper_map``,
``concept_map``, ``paper_concept``); they share the graph's indexes
(``corpus``), the precomputed layout (``layout``), the budgets of large inputs
(``bounds``), the panel data (``panel``) and the page template (``page``).
:func:`render_views` returns every page as text; writing them is the caller's.

>>> g = nx.Graph()
>>> g.add_node("paper:1", type="paper", label="Smith 2020", title="On <b>SGD</b>",
...            abstract="", year=2020, venue=None, authors=["A. Smith"])
>>> pages = render_views(g, "Demo & test")
>>> sorted(pages)
['concept-map.html', 'index.html', 'paper-concept.html', 'paper-details/0000.js', 'paper-map.html']
>>> "<h1>Demo &amp; test</h1>" in pages["paper-map.html"], "<b>SGD</b>" in pages["index.html"]
(True, False)
"""

from __future__ import annotations

from collections.abc import Callable

import networkx as nx

from kg.defaults import INDEX, VIEWS
from kg.export.views.concept_map import concept_map
from kg.export.views.corpus import Corpus, default_heading, heading, read_corpus
from kg.export.views.index import render_index
from kg.export.views.page import Drawn, json_block, render_page
from kg.export.views.panel import (
    DETAILS_DIR,
    detail_files,
    details_names,
    is_details_file,
    panel_data,
)
from kg.export.views.paper_concept import paper_concept
from kg.export.views.paper_map import paper_map

__all__ = [
    "render_views",
    "heading",
    "is_details_file",
    "VIEW_FILES",
    "VIEWS",
    "INDEX",
    "DETAILS_DIR",
    "details_names",
]

#: View key (:data:`kg.defaults.VIEWS`) -> the function that decides what it draws.
_DRAW: dict[str, Callable[[Corpus], Drawn]] = {
    "paper-map": paper_map,
    "concept-map": concept_map,
    "paper-concept": paper_concept,
}
#: View key -> file name, index included.
VIEW_FILES = {"index": INDEX} | {v.key: v.file for v in VIEWS}


def render_views(graph: nx.Graph, heading: str | None = None) -> dict[str, str]:
    """Every page of a build, by file name, from the graph of :func:`kg.graph.to_networkx`,
    and the papers' details files by their path beside the pages (``paper-details/0000.js``).

    Args:
        graph: Papers, concepts, ``mentions``, ``shares`` and ``broader`` edges.
        heading: The pages' title, shown as text; by default "kg: N papers"
            with the venues when there are at most three.

    Returns:
        The same pages for the same graph, byte for byte.

    Raises:
        KGError: A node or an edge of the graph has an unknown type.
    """
    corpus = read_corpus(graph)
    title = heading if heading is not None else default_heading(corpus)
    details = detail_files(corpus)
    panel = json_block(panel_data(corpus, details.build))
    pages = {}
    drawn = []
    for v in VIEWS:
        view = _DRAW[v.key](corpus)
        drawn.append(view)
        pages[v.file] = render_page(view, title, panel)
    return {INDEX: render_index(corpus, title, drawn)} | pages | details.files
