"""Node positions computed once in Python, so the page draws at once and nothing moves.

A force layout of a whole graph costs time quadratic in its size (networkx's
``spring_layout`` needs minutes for 2,600 nodes) and makes a hairball of a big
one. Instead the graph is split into communities (Louvain, networkx), each
community is laid out on its own with ``spring_layout``, and the communities,
as disks sized by their members, are arranged by a force layout of the
community graph and then pushed apart until no two overlap. Nodes without any
edge sit in a grid of their own. Related nodes end up together, groups are
visibly apart, and the cost grows with the size of the largest community.

>>> g = nx.Graph([(1, 2), (2, 3), (3, 1), (4, 5), (5, 6), (6, 4), (3, 4)])
>>> g.add_node(7)
>>> layout = community_layout(g, seed=1)
>>> sorted(len(group.members) for group in layout.groups)
[1, 3, 3]
>>> sorted(layout.positions) == sorted(g)
True
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import networkx as nx
import numpy as np
from scipy.spatial import cKDTree

__all__ = ["Group", "Layout", "community_layout", "SEED"]

SEED = 20240229
#: Distance between neighbouring nodes, in the page's canvas units (pixels at zoom 1).
SPACING = 42.0
#: Communities bigger than this are split again, which bounds the layout's cost.
MAX_GROUP = 700


@dataclass(frozen=True)
class Group:
    """One community as drawn: its members and the disk they occupy."""

    members: tuple[Hashable, ...]
    x: float
    y: float
    r: float
    isolated: bool = False  # the grid of nodes without edges


@dataclass(frozen=True)
class Layout:
    positions: dict[Hashable, tuple[float, float]]
    groups: tuple[Group, ...]


def community_layout(
    graph: nx.Graph, *, weight: str = "weight", spacing: float = SPACING, seed: int = SEED
) -> Layout:
    """Positions for every node of ``graph`` and the communities they were grouped in.

    Deterministic for a given graph and seed, whatever the order nodes were added in.
    """
    H = _normalised(graph, weight)
    isolated = sorted((n for n in H if H.degree(n) == 0), key=repr)
    linked = H.subgraph(n for n in H if H.degree(n) > 0).copy()
    communities = _communities(linked, seed)
    local, radii = [], []
    for members in communities:
        xy = _inner_layout(H, members, seed) * _radius(len(members), spacing)
        xy = _spread(xy, 0.8 * spacing)
        local.append(xy)
        radii.append(float(np.hypot(xy[:, 0], xy[:, 1]).max()) + spacing / 2)
    centres = _arrange(H, communities, np.asarray(radii), spacing, seed)
    if isolated:  # a grid below the rest, out of the way
        grid = _grid(len(isolated), spacing)
        communities.append(isolated)
        local.append(grid)
        radii.append(float(np.hypot(*np.abs(grid).max(axis=0))) + spacing / 2)
        below = max((y + r for (_, y), r in zip(centres, radii, strict=False)), default=0.0)
        top = float(-grid[:, 1].min()) if len(grid) else 0.0
        centres = np.vstack([centres, [[0.0, below + 2 * spacing + top]]])
    positions: dict[Hashable, tuple[float, float]] = {}
    groups = []
    for i, members in enumerate(communities):
        cx, cy = centres[i]
        for n, (x, y) in zip(members, local[i], strict=True):
            positions[n] = (round(float(cx + x), 1), round(float(cy + y), 1))
        groups.append(
            Group(
                tuple(members),
                round(float(cx), 1),
                round(float(cy), 1),
                round(float(radii[i]), 1),
                isolated=bool(isolated) and i == len(communities) - 1,
            )
        )
    return Layout(positions, tuple(groups))


def _normalised(graph: nx.Graph, weight: str) -> nx.Graph:
    """A copy with positive weights of mean 1 and nodes in a canonical order."""
    H = nx.Graph()
    H.add_nodes_from(sorted(graph, key=repr))
    edges = [
        (min(u, v, key=repr), max(u, v, key=repr), float(d.get(weight, 1.0) or 0.0))
        for u, v, d in graph.edges(data=True)
        if u != v
    ]
    positive = [w for _, _, w in edges if w > 0]
    mean = sum(positive) / len(positive) if positive else 1.0
    H.add_weighted_edges_from(
        sorted((u, v, max(w / mean, 1e-3)) for u, v, w in edges), weight="weight"
    )
    return H


def _communities(H: nx.Graph, seed: int) -> list[list[Hashable]]:
    """Louvain communities, big ones split again, biggest first (ties by first member)."""
    if H.number_of_nodes() == 0:
        return []
    found = nx.community.louvain_communities(H, weight="weight", seed=seed)
    out: list[list[Hashable]] = []
    for c in found:
        out += _split(H, sorted(c, key=repr), seed)
    return sorted(out, key=lambda m: (-len(m), repr(m[0])))


def _split(H: nx.Graph, members: list[Hashable], seed: int, resolution: float = 2.0) -> list:
    if len(members) <= MAX_GROUP or resolution > 16:
        return [members]
    parts = nx.community.louvain_communities(
        H.subgraph(members).copy(), weight="weight", seed=seed, resolution=resolution
    )
    if len(parts) == 1:
        return _split(H, members, seed, resolution * 2)
    out = []
    for c in parts:
        out += _split(H, sorted(c, key=repr), seed, resolution)
    return out


def _radius(n: int, spacing: float) -> float:
    return spacing * (0.5 + 0.62 * math.sqrt(max(n - 1, 0)))


def _inner_layout(H: nx.Graph, members: Sequence[Hashable], seed: int) -> np.ndarray:
    """Unit-disk coordinates of one community, in the order of ``members``."""
    n = len(members)
    if n == 1:
        return np.zeros((1, 2))
    inside = set(members)
    ordered = nx.Graph()
    ordered.add_nodes_from(members)
    ordered.add_weighted_edges_from(
        (u, v, w)
        for u in members
        for v, d in H.adj[u].items()
        if v in inside and repr(u) < repr(v)
        for w in (d["weight"],)
    )
    iterations = 50 if n < 300 else 30
    pos = nx.spring_layout(ordered, weight="weight", seed=seed, iterations=iterations)
    xy = np.array([pos[m] for m in members], dtype=float)
    xy -= xy.mean(axis=0)
    reach = np.hypot(xy[:, 0], xy[:, 1]).max()
    return xy / reach if reach > 0 else xy


def _spread(xy: np.ndarray, gap: float, iterations: int = 60) -> np.ndarray:
    """Push apart nodes closer than ``gap``, so none hides another (close pairs by k-d tree)."""
    xy = xy.copy()
    n = len(xy)
    if n < 2:
        return xy
    rng = np.random.default_rng(SEED)
    for _ in range(iterations):
        pairs = cKDTree(xy).query_pairs(gap * 0.999, output_type="ndarray")
        if len(pairs) == 0:
            break
        i, j = pairs[:, 0], pairs[:, 1]
        diff = xy[i] - xy[j]
        dist = np.hypot(diff[:, 0], diff[:, 1])
        same = dist < 1e-6
        if same.any():
            diff[same] = rng.normal(0, 1, (int(same.sum()), 2))
            dist[same] = np.hypot(diff[same, 0], diff[same, 1])
        move = diff / dist[:, None] * ((gap - dist) / 2)[:, None]
        delta = np.zeros_like(xy)
        np.add.at(delta, i, move)
        np.add.at(delta, j, -move)
        count = np.bincount(np.concatenate([i, j]), minlength=n)
        xy += delta / np.maximum(count, 1)[:, None]
    return xy - xy.mean(axis=0)


def _grid(n: int, spacing: float) -> np.ndarray:
    side = math.ceil(math.sqrt(n))
    xy = np.array([(i % side, i // side) for i in range(n)], dtype=float) * spacing
    return xy - xy.mean(axis=0) if n else xy.reshape(0, 2)


def _arrange(
    H: nx.Graph,
    communities: Sequence[Sequence[Hashable]],
    radii: np.ndarray,
    spacing: float,
    seed: int,
) -> np.ndarray:
    """Centres of the community disks: near the communities they link to, never overlapping."""
    k = len(communities)
    if k == 0:
        return np.zeros((0, 2))
    if k == 1:
        return np.zeros((1, 2))
    index = {n: i for i, members in enumerate(communities) for n in members}
    between: dict[tuple[int, int], float] = defaultdict(float)
    for u, v, w in H.edges(data="weight"):
        a, b = index[u], index[v]
        if a != b:
            between[min(a, b), max(a, b)] += w
    Q = nx.Graph()
    Q.add_nodes_from(range(k))
    Q.add_weighted_edges_from((a, b, w) for (a, b), w in sorted(between.items()))
    start = _sunflower(k)
    if between:
        pos = nx.spring_layout(
            Q, weight="weight", seed=seed, pos={i: start[i] for i in range(k)}, iterations=100
        )
        start = np.array([pos[i] for i in range(k)], dtype=float)
    extent = math.sqrt(float((radii**2).sum())) * 1.2
    reach = np.abs(start).max()
    centres = start / reach * extent if reach > 0 else start
    return _pack(centres, radii, 1.6 * spacing, seed)


def _sunflower(k: int) -> np.ndarray:
    """Points spread evenly over a disk, first ones at the centre (biggest groups first)."""
    i = np.arange(k, dtype=float) + 0.5
    angle = i * math.pi * (3 - math.sqrt(5))
    r = np.sqrt(i / k)
    return np.column_stack([r * np.cos(angle), r * np.sin(angle)])


def _pack(centres: np.ndarray, radii: np.ndarray, gap: float, seed: int) -> np.ndarray:
    """Pull the disks together, then push overlapping ones apart until none overlap."""
    C = centres.astype(float).copy()
    rng = np.random.default_rng(seed)
    need = radii[:, None] + radii[None, :] + gap
    np.fill_diagonal(need, 0.0)
    weights = radii**2 / max(float((radii**2).max()), 1e-9)
    for step in range(600):
        if step < 300:  # gravity towards the centre of mass, heavier disks pulled less
            C -= 0.02 * (C - C.mean(axis=0)) * (1.2 - weights[:, None])
        diff = C[:, None, :] - C[None, :, :]
        dist = np.hypot(diff[..., 0], diff[..., 1])
        np.fill_diagonal(dist, np.inf)
        over = need - dist
        np.fill_diagonal(over, 0.0)
        if step >= 300 and over.max() <= 1e-6:
            break
        over = np.clip(over, 0.0, None)
        same = dist < 1e-9
        if same.any():
            diff = diff + rng.normal(0, 1e-3, diff.shape) * same[..., None]
            dist = np.hypot(diff[..., 0], diff[..., 1])
            np.fill_diagonal(dist, np.inf)
        unit = diff / dist[..., None]
        # Lighter disks move more, so big communities stay where the layout put them.
        share = weights[None, :] / (weights[:, None] + weights[None, :])
        C += (unit * (over * share)[..., None] * 1.02).sum(axis=1)
    return C - C.mean(axis=0)
