"""The views' precomputed layout: every node placed, groups apart, nodes apart, reproducible."""

from __future__ import annotations

import math
import random

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kg.export.views.layout import SPACING, community_layout


def planted(groups: int, size: int, isolated: int = 0, seed: int = 3) -> nx.Graph:
    g = nx.random_partition_graph([size] * groups, 0.3, 0.01, seed=seed)
    rnd = random.Random(seed)
    for u, v in g.edges:
        g[u][v]["weight"] = round(0.5 + 4 * rnd.random(), 3)
    g.add_nodes_from(range(10_000, 10_000 + isolated))
    return nx.relabel_nodes(g, {n: f"paper:{n}" for n in g})


def test_every_node_is_placed_once_and_groups_do_not_overlap():
    g = planted(8, 30, isolated=5)
    layout = community_layout(g)
    assert sorted(layout.positions) == sorted(g)
    members = [m for group in layout.groups for m in group.members]
    assert sorted(members) == sorted(g)
    for i, a in enumerate(layout.groups):
        for b in layout.groups[i + 1 :]:
            assert math.dist((a.x, a.y), (b.x, b.y)) >= a.r + b.r, (a.r, b.r)
        for m in a.members:  # each member inside its group's disk
            assert math.dist(layout.positions[m], (a.x, a.y)) <= a.r + 1e-6


def test_communities_are_found_and_isolated_nodes_sit_apart():
    g = planted(6, 25, isolated=7)
    layout = community_layout(g)
    grid = [group for group in layout.groups if group.isolated]
    assert len(grid) == 1 and sorted(grid[0].members) == sorted(n for n in g if g.degree(n) == 0)
    others = [group for group in layout.groups if not group.isolated]
    assert 5 <= len(others) <= 8  # the six planted groups, give or take a split
    lowest = max(group.y + group.r for group in others)
    assert all(layout.positions[n][1] > lowest for n in grid[0].members)  # below the rest


def test_nodes_keep_a_distance():
    layout = community_layout(planted(3, 60))
    xy = np.array(list(layout.positions.values()))
    d = np.hypot(*(xy[:, None, :] - xy[None, :, :]).transpose(2, 0, 1))
    np.fill_diagonal(d, np.inf)
    assert d.min() >= 0.75 * SPACING


def test_same_graph_same_layout_whatever_the_insertion_order():
    g = planted(4, 20, isolated=2)
    shuffled = nx.Graph()
    shuffled.add_nodes_from(reversed(list(g.nodes)))
    shuffled.add_edges_from(reversed(list(g.edges(data=True))))
    assert community_layout(g) == community_layout(shuffled)


@pytest.mark.parametrize("n", [0, 1, 2])
def test_tiny_graphs(n):
    g = nx.path_graph(n)
    layout = community_layout(g)
    assert sorted(layout.positions) == sorted(g)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30), st.floats(0, 10)), max_size=80))
def test_any_graph_gets_finite_positions(edges):
    g = nx.Graph()
    g.add_nodes_from(range(31))
    g.add_weighted_edges_from(edges)
    layout = community_layout(g)
    assert sorted(layout.positions) == list(range(31))
    assert all(math.isfinite(c) for xy in layout.positions.values() for c in xy)
