"""RDF and NetworkX graphs: the projection's invariants, labels, RDF round trip."""

from __future__ import annotations

import itertools

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rdflib import Graph
from rdflib.compare import graph_diff, isomorphic, to_isomorphic

from kg.fields import load_taxonomy
from kg.graph import KnowledgeGraph, concept_graph, paper_labels, shared_concept_graph, to_rdf
from kg.model import Concept, Kind, Link, Paper, Role

ROLE = {Kind.METHOD: Role.USES, Kind.PROBLEM: Role.ADDRESSES, Kind.FIELD: Role.IN_FIELD}


def small_kg(memberships, kinds=None, titles=None):
    """A KnowledgeGraph from {paper_id: set of concept keys}."""
    taxonomy = load_taxonomy()
    keys = sorted(set().union(*memberships.values())) if memberships else []
    kinds = kinds or {}
    concepts = tuple(Concept(k, k.upper(), kinds.get(k, Kind.METHOD)) for k in keys)
    kind_of = {c.key: c.kind for c in concepts}
    papers = tuple(
        Paper(id=p, abstract=f"Abstract {p}.", text=f"Abstract {p}.", title=(titles or {}).get(p))
        for p in sorted(memberships)
    )
    links = tuple(
        Link(p, k, ROLE[kind_of[k]], 0.5, "A sentence.")
        for p in sorted(memberships)
        for k in sorted(memberships[p])
    )
    labels = paper_labels(papers, concepts, links)
    return KnowledgeGraph(papers, concepts, links, labels, taxonomy)


memberships = st.dictionaries(
    st.sampled_from([f"p{i}" for i in range(8)]),
    st.sets(st.sampled_from([f"c{i}" for i in range(6)]), max_size=4),
    min_size=1,
)


@settings(max_examples=60, deadline=None)
@given(memberships)
def test_projection_invariants(member):
    B = concept_graph(small_kg(member))
    P = shared_concept_graph(B)
    assert nx.number_of_selfloops(P) == 0
    assert not P.is_directed()  # symmetric by construction
    for a, b in itertools.combinations(sorted(member), 2):
        common = member[a] & member[b]
        edge = P.get_edge_data(f"paper:{a}", f"paper:{b}")
        if common:
            assert edge["weight"] == len(common)
            assert edge["shared"] == sorted(c.upper() for c in common)
        else:
            assert edge is None


def test_fields_do_not_make_papers_related():
    kg = small_kg({"a": {"x"}, "b": {"x"}}, kinds={"x": Kind.FIELD})
    # a field concept key must exist in the taxonomy for RDF, but the projection ignores it
    assert shared_concept_graph(concept_graph(kg)).number_of_edges() == 0


def test_untitled_papers_get_unique_readable_labels():
    kg = small_kg(
        {"a": {"m", "q"}, "b": {"m", "q"}, "c": {"n"}},
        kinds={"q": Kind.PROBLEM},
        titles={"c": "A Real Title"},
    )
    assert kg.labels["c"] == "A Real Title"
    assert kg.labels["a"] != kg.labels["b"]
    assert kg.labels["a"].startswith("M: Q")


def test_an_untitled_paper_is_named_by_the_variant_it_studies():
    concepts = (
        Concept("adam", "Adam", Kind.METHOD),
        Concept("warm-adam", "Warm-Adam", Kind.METHOD),
        Concept("drift", "sensor drift", Kind.PROBLEM),
    )
    links = (
        Link("p", "adam", Role.USES, 0.9, "s"),
        Link("p", "warm-adam", Role.USES, 0.4, "s"),
        Link("p", "drift", Role.ADDRESSES, 0.5, "s"),
    )
    paper = Paper(id="p", abstract="x", text="x")
    assert paper_labels([paper], concepts, links)["p"] == "Warm-Adam: sensor drift"


def test_rdf_round_trips_through_turtle():
    kg = small_kg({"a": {"m"}, "b": {"m", "q"}}, kinds={"q": Kind.PROBLEM})
    g = to_rdf(kg, shared_concept_graph(concept_graph(kg)))
    again = Graph().parse(data=g.serialize(format="turtle"), format="turtle")
    if not isomorphic(g, again):
        _, only_a, only_b = graph_diff(to_isomorphic(g), to_isomorphic(again))
        pytest.fail(f"lost {sorted(only_a)[:5]}, gained {sorted(only_b)[:5]}")


def test_rdf_link_nodes_reachable_by_sparql():
    kg = small_kg({"a": {"m"}})
    g = to_rdf(kg)
    rows = list(
        g.query(
            """SELECT ?label ?conf ?ev WHERE {
             ?l a kg:ConceptLink ; kg:paper ?p ; kg:concept ?c ; kg:role kg:usesMethod ;
                kg:confidence ?conf ; kg:evidence ?ev .
             ?c skos:prefLabel ?label }"""
        )
    )
    assert [(str(r[0]), float(r[1]), str(r[2])) for r in rows] == [("M", 0.5, "A sentence.")]
