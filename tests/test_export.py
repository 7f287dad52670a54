"""File formats round-trip, and writing is all-or-nothing."""

from __future__ import annotations

import json
import os

import networkx as nx
import pytest

from kg.errors import KGError
from kg.export import graphml_text, json_text, write_files


@pytest.fixture
def graph() -> nx.Graph:
    G = nx.Graph()
    G.add_node("paper:a", type="paper", label="A", authors=["X", "Y"], year=None)
    G.add_node("concept:sgd", type="concept", kind="method", label="SGD", alt_labels=[])
    G.add_edge(
        "paper:a",
        "concept:sgd",
        type="mentions",
        role="usesMethod",
        score=0.5,
        evidence='A "quoted" <sentence> & more.',
    )
    return G


def test_graphml_reads_back_with_networkx(graph, tmp_path):
    path = tmp_path / "g.graphml"
    path.write_text(graphml_text(graph))
    H = nx.read_graphml(path)
    assert H.nodes["paper:a"]["authors"] == "X; Y"
    assert "year" not in H.nodes["paper:a"]
    assert H.edges["paper:a", "concept:sgd"]["evidence"] == 'A "quoted" <sentence> & more.'


def test_json_reads_back_with_lists(graph):
    H = nx.node_link_graph(json.loads(json_text(graph)), edges="edges")
    assert H.nodes["paper:a"]["authors"] == ["X", "Y"]
    assert H.edges["paper:a", "concept:sgd"]["score"] == 0.5


def test_output_is_independent_of_insertion_order(graph):
    reordered = nx.Graph()
    reordered.add_nodes_from(reversed(list(graph.nodes(data=True))))
    reordered.add_edges_from((v, u, d) for u, v, d in graph.edges(data=True))
    assert json_text(reordered) == json_text(graph)
    assert graphml_text(reordered) == graphml_text(graph)


def test_write_files_replaces_all_and_leaves_no_staging(tmp_path):
    out = tmp_path / "out"
    write_files(out, {"a.txt": "old a", "b.txt": "old b"})
    write_files(out, {"a.txt": "new a", "b.txt": "new b"})
    assert sorted(os.listdir(out)) == ["a.txt", "b.txt"]
    assert (out / "a.txt").read_text() == "new a"


def test_unwritable_output_is_a_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(KGError, match="not a directory"):
        write_files(blocker, {"a.txt": "a"})
    with pytest.raises(KGError, match="cannot write"):
        write_files(blocker / "sub", {"a.txt": "a"})
