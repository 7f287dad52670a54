"""How the views stay readable and fast on large inputs: the budgets and the choices they force.

Measured in headless Chromium on this project's machine: a precomputed layout
with physics off is responsive within 4.6 s up to 10,700 nodes, and about
5,000 visible edges keep pan and zoom near 30 ms a frame. Each view ships at
most :data:`MAX_EDGES` edges and shows at most :data:`VISIBLE_EDGES` of them
at first (the weight control shows the rest), and draws at most a budget of
concepts; every cut is stated on the page.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

__all__ = [
    "VISIBLE_EDGES",
    "MAX_EDGES",
    "MAX_PAPERS",
    "MAX_CONCEPTS",
    "strongest_per_node",
    "weight_control",
    "weight_steps",
    "top_by_count",
    "shown_weight",
]

#: Edges visible when a page opens; the weight control starts at the lowest
#: threshold that keeps at most this many.
VISIBLE_EDGES = 5000
#: Edges a page carries at all (the weight control can show them all).
MAX_EDGES = 15000
#: Papers a view draws; beyond it, the best-connected ones.
MAX_PAPERS = 8000
#: Concepts the concept map draws.
MAX_CONCEPTS = 1500
_STEPS = 60

K = TypeVar("K")


def strongest_per_node(
    edges: dict[tuple[str, str], float], per_node: int, limit: int = MAX_EDGES
) -> list[tuple[str, str]]:
    """Each node's ``per_node`` strongest edges (kept if either end keeps it), at most ``limit``.

    Under the limit, every node's strongest edge comes first, then every
    node's second strongest, and so on, so that a node loses all its edges
    only if there are more nodes than ``limit``. Ties break by the other
    node's id, so the choice is deterministic.
    """
    by_node: dict[str, list[tuple[float, str]]] = defaultdict(list)
    for (a, b), w in edges.items():
        by_node[a].append((-w, b))
        by_node[b].append((-w, a))
    place: dict[tuple[str, str], int] = {}  # the best rank an edge has at either end
    for node, links in by_node.items():
        for rank, (_, other) in enumerate(sorted(links)[:per_node]):
            edge = (min(node, other), max(node, other))
            place[edge] = min(rank, place.get(edge, rank))
    ranked = sorted(place, key=lambda e: (place[e], -edges[e], e))
    return sorted(ranked[:limit])


def shown_weight(w: float) -> float:
    """A weight as the page shows and compares it: two decimals, three significant digits below 1.

    Shared-concept weights may be cosines in [0, 1] crowded near zero, or sums
    of specificities above 1; either way neighbouring weights stay apart.

    >>> shown_weight(2.7927), shown_weight(0.30549), shown_weight(0.034512), shown_weight(0.0)
    (2.79, 0.305, 0.0345, 0.0)
    """
    if w == 0 or not math.isfinite(w):
        return float(w)
    return round(w, max(2, 2 - math.floor(math.log10(abs(w)))))


def weight_steps(weights: Sequence[float], visible: int = VISIBLE_EDGES) -> tuple[list[float], int]:
    """Thresholds for the weight control and the one it starts at.

    The thresholds are the distinct weights as shown (:func:`shown_weight`;
    quantiles when there are many); the start is the lowest one that shows at
    most ``visible`` edges.
    """
    weights = [shown_weight(w) for w in weights]
    distinct = sorted(set(weights))
    if not distinct:
        return [0.0], 0
    if len(distinct) > _STEPS:
        ordered = sorted(weights)
        picks = {ordered[i * (len(ordered) - 1) // (_STEPS - 1)] for i in range(_STEPS)}
        distinct = sorted(picks)
    ordered = sorted(weights)
    start = 0
    for i, t in enumerate(distinct):
        shown = len(ordered) - bisect_left(ordered, t)
        start = i
        if shown <= visible:
            break
    return distinct, start


def weight_control(label: str, kind: str, weights: Sequence[float]) -> dict[str, Any]:
    """The page's minimum-weight control over the edges of ``kind``: label, steps, start."""
    steps, start = weight_steps(weights)
    return {"label": label, "kind": kind, "steps": steps, "start": start}


def top_by_count(items: Iterable[K], count: Callable[[K], int], budget: int) -> tuple[list[K], int]:
    """The items whose count reaches the lowest threshold that keeps at most ``budget``.

    Returns the kept items (in input order) and that threshold, so a page can
    say "concepts in at least 3 papers" rather than an arbitrary top N.
    """
    items = list(items)
    if len(items) <= budget:
        return items, min((count(i) for i in items), default=0)
    counts = sorted((count(i) for i in items), reverse=True)
    threshold = (
        counts[budget - 1] + 1 if counts[budget] == counts[budget - 1] else counts[budget - 1]
    )
    return [i for i in items if count(i) >= threshold], threshold
