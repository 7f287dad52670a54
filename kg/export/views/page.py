"""One view as a standalone HTML page: pyvis writes the vis-network data, kg's template the UI.

pyvis's stock template links bootstrap from a CDN, writes the heading
unescaped and switches tooltips to raw HTML when a title contains ``href``.
kg keeps pyvis for the network data and options but renders its own template
(``kg/export/assets/view.html``): every script and style is inlined, the
template autoescapes, all data travels as HTML-safe JSON in
``<script type="application/json">`` blocks, and the page's script writes
user text only through ``textContent``. Nodes carry no vis ``title`` at all:
tooltips are kg's own, built as text.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyvis
from jinja2 import Environment, FileSystemLoader, select_autoescape
from jinja2.utils import htmlsafe_json_dumps
from markupsafe import Markup
from pyvis.network import Network

from kg.attrs import BROADER, EXPLANATION, MENTIONS, PAPER, SHARED, SHARES
from kg.defaults import VIEWS
from kg.export.views.bounds import shown_weight
from kg.export.views.corpus import weight_of
from kg.export.views.layout import SEED
from kg.model import Kind

__all__ = [
    "node",
    "COLORS",
    "SHAPES",
    "AREA_COLORS",
    "OTHER_AREA",
    "VIEWS",
    "Drawn",
    "render_page",
    "json_block",
    "percentile_widths",
    "environment",
    "shares_edge",
    "broader_edges",
]

#: Fill colours of the node types; the legends use the same ones.
COLORS = {
    PAPER: "#3b6ea8",
    Kind.METHOD: "#e8833a",
    Kind.PROBLEM: "#c9374c",
    Kind.FIELD: "#3f8f5a",
}
#: vis-network shapes of the node types.
SHAPES = {PAPER: "dot", Kind.METHOD: "diamond", Kind.PROBLEM: "triangle", Kind.FIELD: "square"}
#: Colours of the broad areas in the paper map, biggest area first (Tableau 10).
AREA_COLORS = (
    "#4e79a7",
    "#f28e2b",
    "#e15759",
    "#76b7b2",
    "#59a14f",
    "#edc948",
    "#b07aa1",
    "#ff9da7",
    "#9c755f",
    "#86bcb6",
)
OTHER_AREA = "#b5b5b5"
#: The concept map's edge between two concepts that papers share (the views' own kind).
COOCCURS = "cooccurs"
EDGE_COLORS = {
    SHARES: "#4a6f99",
    MENTIONS: "#8995a3",
    BROADER: "#3f8f5a",
    COOCCURS: "#8995a3",
}

_ASSETS = Path(__file__).resolve().parents[1] / "assets"
#: kg's view script in parts, run in this order inside one function (they share its names).
SCRIPT_PARTS = ("view-network.js", "view-panel.js", "view-controls.js")


@dataclass
class Drawn:
    """What one view draws, as vis-network data, and what it tells the page about it.

    Attributes:
        view: The view's key in :data:`VIEWS`.
        nodes: vis-network nodes (positions fixed, no labels: the page draws them).
        edges: vis-network edges; ``kind`` is shares/mentions/broader/cooccurs.
        settings: Per-view data for the page: legend, weight control, groups.
        bounds: Sentences saying what a bounded view leaves out (empty if nothing).
    """

    view: str
    nodes: list[dict[str, Any]]
    edges: list[dict[str, Any]]
    settings: dict[str, Any] = field(default_factory=dict)
    bounds: list[str] = field(default_factory=list)


def json_block(data: Any) -> Markup:
    """JSON safe inside ``<script type="application/json">``: ``<``, ``>``, ``&``, ``'`` escaped."""
    return htmlsafe_json_dumps(
        data, dumps=json.dumps, sort_keys=True, ensure_ascii=False, separators=(",", ":")
    )


def node(
    node_id: str,
    kind: str,
    position: tuple[float, float],
    size: float,
    rank: float,
    color: str | None = None,
) -> dict[str, Any]:
    """A vis-network node at its precomputed position, shaped and coloured by its type.

    ``rank`` orders the labels the page shows first; ``color`` overrides the type's.
    """
    x, y = position
    return {
        "id": node_id,
        "x": x,
        "y": y,
        "shape": SHAPES.get(kind, "dot"),
        "size": round(size, 1),
        "color": color or COLORS.get(kind, "#888888"),
        "kind": kind,
        "rank": rank,
    }


def percentile_widths(weights: list[float], lo: float = 0.6, hi: float = 5.0) -> list[float]:
    """Edge widths that grow with weight whatever its scale: by rank, ties equal."""
    if not weights:
        return []
    ranked = sorted(set(weights))
    rank = {w: i / max(len(ranked) - 1, 1) for i, w in enumerate(ranked)}
    return [round(lo + (hi - lo) * rank[w] ** 1.5, 2) for w in weights]


def shares_edge(
    edge_id: str, a: str, b: str, d: Mapping[str, Any], width: float, **style: Any
) -> dict[str, Any]:
    """A shared-concept edge; its tooltip lists what the papers share and how."""
    shared = list(d.get(SHARED) or ())
    return {
        "id": edge_id,
        "from": a,
        "to": b,
        "width": width,
        "color": {"color": EDGE_COLORS[SHARES], "opacity": 0.45},
        "kind": SHARES,
        "w": shown_weight(weight_of(d)),
        "why": str(d.get(EXPLANATION) or ", ".join(str(s) for s in shared)),
        "how": [str(h) for h in d.get("how") or ()],
        "n": len(shared),
    } | style


def broader_edges(hierarchy: list[tuple[str, str]]) -> list[dict[str, Any]]:
    """Concept hierarchy edges, as arrows from a concept to its broader one."""
    return [
        {
            "id": f"b{i}",
            "from": narrower,
            "to": broader,
            "width": 1.2,
            "color": {"color": EDGE_COLORS[BROADER], "opacity": 0.75},
            "dashes": [6, 4],
            "arrows": {"to": {"enabled": True, "scaleFactor": 0.5}},
            "kind": BROADER,
        }
        for i, (narrower, broader) in enumerate(hierarchy)
    ]


def _options(n_nodes: int, n_edges: int) -> dict[str, Any]:
    big = n_edges > 3000 or n_nodes > 3000
    return {
        "autoResize": True,
        "layout": {"randomSeed": SEED, "improvedLayout": False},
        "physics": {"enabled": False},
        "nodes": {"borderWidth": 1, "borderWidthSelected": 3, "chosen": True},
        "edges": {"smooth": False, "selectionWidth": 1.5, "hoverWidth": 1.2},
        "interaction": {
            "hover": True,
            "hoverConnectedEdges": True,
            "tooltipDelay": 100,
            "hideEdgesOnDrag": big,
            "hideEdgesOnZoom": big,
            "multiselect": False,
            "zoomSpeed": 0.8,
        },
    }


def environment(**page: Any) -> Environment:
    """kg's templates, autoescaped, with vis-network and kg's assets inlined."""
    vis = Path(pyvis.__file__).parent / "templates" / "lib" / "vis-9.1.2"
    env = Environment(
        loader=FileSystemLoader(str(_ASSETS)),
        autoescape=select_autoescape(default=True, default_for_string=True),
        keep_trailing_newline=True,
    )
    env.globals["assets"] = {
        "vis_js": _inline(vis / "vis-network.min.js", "script"),
        "kg_css": _inline(_ASSETS / "view.css", "style"),
        "kg_js": _script(),
    }
    env.globals["colors"] = COLORS
    env.globals["views"] = VIEWS
    env.globals.update(page)
    env.policies["json.dumps_kwargs"] = {
        "sort_keys": True,
        "ensure_ascii": False,
        "separators": (",", ":"),
    }
    return env


def render_page(drawn: Drawn, heading: str, panel: Markup) -> str:
    """The page of one view; ``panel`` is :func:`panel_data` as a :func:`json_block`."""
    key, filename, title, about = next(v for v in VIEWS if v.key == drawn.view)
    net = Network(height="100%", width="100%", heading=heading, cdn_resources="in_line")
    net.nodes = drawn.nodes
    net.edges = drawn.edges
    net.options = _options(len(drawn.nodes), len(drawn.edges))
    net.templateEnv = environment(
        view={"key": key, "file": filename, "title": title, "about": about},
        settings=json_block(drawn.settings | {"view": key, "bounds": drawn.bounds}),
        panel=panel,
    )
    net.path = "view.html"
    return net.generate_html(name=filename)


def _script() -> Markup:
    """kg's view script: its parts in one strict-mode function, so that they share their names
    and leak none into the page."""
    parts = "".join(_inline(_ASSETS / name, "script") for name in SCRIPT_PARTS)
    return Markup('(function () {\n  "use strict";\n' + parts + "})();\n")


def _inline(path: Path, element: str) -> Markup:
    text = path.read_text(encoding="utf-8")
    if f"</{element}" in text.lower():
        raise ValueError(f"{path} contains '</{element}' and cannot be inlined")
    return Markup(text)
