"""The graph stage: shared-concept edges, paper labels, RDF and NetworkX from one record."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rdflib import Graph
from rdflib.compare import graph_diff, isomorphic, to_isomorphic
from rdflib.namespace import SKOS

import kg.graph.edges as edges_module
from kg.graph import (
    EdgeRule,
    knowledge_graph,
    paper_iri,
    paper_labels,
    shares_graph,
    to_networkx,
    to_rdf,
)
from kg.model import Concept, How, Kind, KnowledgeGraph, Link, Paper, Role
from kg.taxonomy import load_taxonomy
from kg.vocab import KG

ROLE = {Kind.METHOD: Role.USES, Kind.PROBLEM: Role.ADDRESSES, Kind.FIELD: Role.IN_FIELD}


def small_kg(memberships, kinds=None, titles=None, rule=None, broader=None):
    """A KnowledgeGraph from {paper_id: set of concept keys} (links at confidence 0.5)."""
    taxonomy = load_taxonomy()
    keys = sorted(set().union(*memberships.values())) if memberships else []
    kinds = kinds or {}
    broader = broader or {}
    concepts = tuple(
        Concept(k, k.upper(), kinds.get(k, Kind.METHOD), broader=broader.get(k, ())) for k in keys
    )
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
    return knowledge_graph(papers, concepts, links, taxonomy, rule)


memberships = st.dictionaries(
    st.sampled_from([f"p{i}" for i in range(8)]),
    st.sets(st.sampled_from([f"c{i}" for i in range(6)]), max_size=4),
    min_size=1,
)
EVERY_PAIR = EdgeRule(min_weight=0, max_neighbours=100)


@settings(max_examples=60, deadline=None)
@given(memberships)
def test_without_bounds_the_edges_are_the_pairs_that_share_a_specific_concept(member):
    kg = small_kg(member, rule=EVERY_PAIR)
    edges = {(e.a, e.b): e for e in kg.edges}
    assert all(a < b for a, b in edges)  # each pair once, never a self-loop
    df = {k: sum(k in s for s in member.values()) for k in set().union(*member.values())}
    n = len(member)
    for a, b in itertools.combinations(sorted(member), 2):
        common = {k for k in member[a] & member[b] if df[k] < n}  # a concept all share says nothing
        edge = edges.get((a, b))
        if common:
            assert edge is not None
            assert [s.concept_key for s in edge.shared] == sorted(
                common, key=lambda k: (df[k], k)
            )  # the rarer a shared concept, the more it counts
            assert all(s.how is How.EXACT for s in edge.shared)
            assert edge.weight == pytest.approx(sum(s.weight for s in edge.shared), abs=1e-3)
        else:
            assert edge is None


@settings(max_examples=40, deadline=None)
@given(memberships, st.integers(1, 3), st.floats(0, 2))
def test_the_rule_bounds_density(member, cap, floor):
    built = small_kg(member, rule=EdgeRule(max_neighbours=cap, min_weight=floor))
    free = small_kg(member, rule=EVERY_PAIR)
    weight = {(e.a, e.b): e.weight for e in free.edges}
    for e in built.edges:
        assert e.weight >= floor and weight[(e.a, e.b)] == pytest.approx(e.weight)
    for p in member:  # each paper keeps its strongest `cap` edges, whichever ties are broken
        mine = sorted(((w, ab) for ab, w in weight.items() if p in ab and w >= floor), reverse=True)
        if not mine:
            continue
        kept = {(e.a, e.b) for e in built.edges if p in (e.a, e.b)}
        last = mine[min(cap, len(mine)) - 1][0]  # the weakest weight among the strongest `cap`
        stronger = {ab for w, ab in mine if w > last + 1e-9}
        at_least_as_strong = {ab for w, ab in mine if w >= last - 1e-9}
        assert stronger <= kept
        assert len(kept & at_least_as_strong) >= min(cap, len(mine))


@settings(max_examples=40, deadline=None)
@given(memberships, st.integers(1, 20), st.sampled_from([EdgeRule(), EVERY_PAIR]))
def test_the_edges_do_not_depend_on_how_many_papers_are_weighed_at_a_time(member, block, rule):
    whole = small_kg(member, rule=rule).edges
    with pytest.MonkeyPatch.context() as mp:  # ``block`` entries: often one paper at a time
        mp.setattr(edges_module, "BLOCK_ENTRIES", block)
        assert small_kg(member, rule=rule).edges == whole
    commonest = EdgeRule(max_pairs=1)  # every concept but the rarest adds weight only
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(edges_module, "BLOCK_ENTRIES", block)
        blocked = small_kg(member, rule=commonest).edges
    assert blocked == small_kg(member, rule=commonest).edges


def test_a_shared_broader_concept_joins_papers_for_less():
    member = {"a": {"clipped"}, "b": {"sgd"}, "c": {"sgd"}, "d": {"adam"}}
    kg = small_kg(member, rule=EVERY_PAIR, broader={"clipped": ("sgd",)})
    edges = {(e.a, e.b): e for e in kg.edges}
    via = edges[("a", "b")].shared[0]
    assert (via.concept_key, via.how, via.via) == ("sgd", How.BROADER, ("clipped", "sgd"))
    assert edges[("b", "c")].weight > edges[("a", "b")].weight  # exact beats via broader
    assert ("a", "d") not in edges
    # In RDF the first paper's own concept is named, the second's (the shared one) is not.
    from kg.graph import overlap_iri

    g = to_rdf(kg)
    (record,) = g.objects(overlap_iri("a", "b"), KG.sharedConcept)
    assert g.value(g.value(record, KG.viaFirst), SKOS.prefLabel) is not None
    assert str(g.value(g.value(record, KG.viaFirst), SKOS.prefLabel)).lower() == "clipped"
    assert g.value(record, KG.viaSecond) is None


@settings(max_examples=30, deadline=None)
@given(memberships)
def test_rdf_and_networkx_carry_the_same_edges(member):
    kg = small_kg(member, rule=EVERY_PAIR)
    P = shares_graph(kg)
    assert {tuple(sorted(e)) for e in P.edges} == {
        (f"paper:{e.a}", f"paper:{e.b}") for e in kg.edges
    }
    for e in kg.edges:
        data = P.edges[f"paper:{e.a}", f"paper:{e.b}"]
        assert data["shared"] == [s.concept_key.upper() for s in e.shared]
        assert data["weight"] == e.weight and data["how"] == [s.how.value for s in e.shared]
    g = to_rdf(kg)
    pairs = {(str(s), str(o)) for s, o in g.subject_objects(KG.sharesConceptWith)}
    expected = {(str(paper_iri(e.a)), str(paper_iri(e.b))) for e in kg.edges}
    assert pairs == expected | {(b, a) for a, b in expected}
    G = to_networkx(kg)
    assert sum(d["type"] == "shares" for _, _, d in G.edges(data=True)) == len(kg.edges)


def test_fields_do_not_make_papers_related():
    kg = small_kg({"a": {"x"}, "b": {"x"}}, kinds={"x": Kind.FIELD})
    assert kg.edges == ()


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


def test_a_named_baseline_does_not_name_an_untitled_paper():
    concepts = (
        Concept("dclm", "DCLM", Kind.METHOD),
        Concept("curation", "data curation pipeline", Kind.METHOD),
        Concept("scaling", "scaling laws", Kind.PROBLEM),
    )
    links = (
        Link("p", "dclm", Role.USES, 0.5, "s"),  # a baseline, named by an acronym
        Link("p", "curation", Role.USES, 0.8, "s"),
        Link("p", "scaling", Role.ADDRESSES, 0.7, "s"),
    )
    paper = Paper(id="p", abstract="x", text="x")
    assert paper_labels([paper], concepts, links)["p"] == "data curation pipeline: scaling laws"


def test_rdf_round_trips_through_turtle():
    kg = small_kg({"a": {"m"}, "b": {"m", "q"}}, kinds={"q": Kind.PROBLEM})
    g = to_rdf(kg)
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


@settings(max_examples=30, deadline=None)
@given(memberships)
def test_overlap_nodes_carry_the_edges_weights_and_reasons(member):
    from decimal import Decimal

    from kg.graph import overlap_iri

    kg = small_kg(member, rule=EVERY_PAIR, broader=_c1_under_c0(member))
    g = to_rdf(kg)
    overlaps = set(g.subjects(None, KG.ConceptOverlap))
    assert overlaps == {overlap_iri(e.a, e.b) for e in kg.edges}
    label = {c.key: c.label for c in kg.concepts}
    P = shares_graph(kg)
    for e in kg.edges:
        node = overlap_iri(e.a, e.b)
        assert g.value(node, KG.firstPaper) == paper_iri(e.a)
        assert g.value(node, KG.secondPaper) == paper_iri(e.b)
        assert Decimal(str(g.value(node, KG.weight))) == Decimal(f"{e.weight:.4f}")
        data = P.edges[f"paper:{e.a}", f"paper:{e.b}"]
        assert str(g.value(node, KG.explanation)) == data["explanation"]
        reasons = {
            (
                str(g.value(g.value(s, KG.concept), SKOS.prefLabel)),
                str(g.value(s, KG.how)),
                float(g.value(s, KG.weight)),
                # a paper's own concept is written only where it is not the shared one
                str(g.value(g.value(s, KG.viaFirst, default=c), SKOS.prefLabel)),
                str(g.value(g.value(s, KG.viaSecond, default=c), SKOS.prefLabel)),
            )
            for s in g.objects(node, KG.sharedConcept)
            for c in [g.value(s, KG.concept)]
        }
        assert not any(
            (s, prop, g.value(s, KG.concept)) in g
            for s in g.objects(node, KG.sharedConcept)
            for prop in (KG.viaFirst, KG.viaSecond)
        )
        assert reasons == {
            (
                label[s.concept_key],
                s.how.value,
                round(s.weight, 4),
                label[s.via[0] or s.concept_key],
                label[s.via[1] or s.concept_key],
            )
            for s in e.shared
        }


@settings(max_examples=30, deadline=None)
@given(memberships)
def test_every_link_node_has_its_direct_triple_and_back(member):
    from kg.graph import ROLE_PROPERTY

    kg = small_kg(member)
    g = to_rdf(kg)
    qualified = {
        (g.value(n, KG.paper), g.value(n, KG.role), g.value(n, KG.concept))
        for n in g.subjects(None, KG.ConceptLink)
    }
    direct = {t for p in ROLE_PROPERTY.values() for t in g.triples((None, p, None))}
    assert qualified == direct
    assert len(qualified) == len(kg.links)


def _c1_under_c0(member):
    """A concept hierarchy for the generated graphs, when both concepts occur."""
    keys = set().union(*member.values())
    return {"c1": ("c0",)} if {"c0", "c1"} <= keys else {}


@settings(max_examples=4, deadline=None)
@given(memberships)
def test_small_graphs_conform_to_the_shapes(member):
    from kg.validate import validate

    kg = small_kg(member, rule=EVERY_PAIR, kinds={"c5": Kind.PROBLEM}, broader=_c1_under_c0(member))
    report = validate(to_rdf(kg), "full")
    assert report.conforms, [str(v) for v in report.violations]


def test_papers_sharing_a_title_are_told_apart_by_author_and_year():
    def paper(pid: str, authors: tuple[str, ...], year: int | None) -> Paper:
        return Paper(pid, "abstract", "abstract", "Attention", authors, year)

    papers = [
        paper("a", ("Vaswani, Ashish",), 2017),
        paper("b", ("Bo Li",), 2017),
        paper("c", ("Bo Li",), 2017),
        paper("d", (), None),
    ]
    assert paper_labels(papers, (), ()) == {
        "a": "Attention (Vaswani 2017)",
        "b": "Attention (Li 2017) [b]",
        "c": "Attention (Li 2017) [c]",
        "d": "Attention",
    }


def test_authors_are_persons_across_papers_with_their_order_kept():
    from rdflib import Literal, Namespace
    from rdflib.namespace import DCTERMS

    from kg.taxonomy import load_taxonomy
    from kg.vocab import KG, SCHEMA

    papers = (
        Paper("a", "abstract a", "abstract a", "A", ("Hayou, Soufiane", "Bin Yu")),
        Paper("b", "abstract b", "abstract b", "B", ("Soufiane  Hayou",)),
        Paper("c", "abstract c", "abstract c", "C", ("S. Hayou", "!!")),
    )
    record = KnowledgeGraph(papers, (), (), {p.id: p.title for p in papers}, load_taxonomy())
    g = to_rdf(record)
    person = Namespace("https://w3id.org/kg/person/")
    hayou = person["soufiane-hayou"]
    assert set(g.subjects(SCHEMA.author, hayou)) == {paper_iri("a"), paper_iri("b")}
    assert set(g.objects(hayou, SCHEMA.name)) == {
        Literal("Hayou, Soufiane"),
        Literal("Soufiane  Hayou"),
    }
    assert (paper_iri("c"), SCHEMA.author, person["s-hayou"]) in g  # another form, another person
    order = {
        int(g.value(a, KG.authorPosition)): g.value(a, KG.person)
        for a in g.objects(paper_iri("a"), DCTERMS.creator)
    }
    assert order == {1: hayou, 2: person["bin-yu"]}
    nameless = [
        a for a in g.objects(paper_iri("c"), DCTERMS.creator) if g.value(a, KG.person) is None
    ]
    assert [str(g.value(a, SCHEMA.name)) for a in nameless] == ["!!"]


def test_venues_are_entities_shared_by_their_papers():
    from rdflib import RDF, Literal, URIRef

    from kg.taxonomy import load_taxonomy
    from kg.vocab import KG, SCHEMA

    papers = (
        Paper("a", "abstract a", "abstract a", "A", venue="ICML"),
        Paper("b", "abstract b", "abstract b", "B", venue="icml."),
        Paper("c", "abstract c", "abstract c", "C", venue="NeurIPS"),
        Paper("d", "abstract d", "abstract d", "D"),
    )
    g = to_rdf(KnowledgeGraph(papers, (), (), {p.id: p.title for p in papers}, load_taxonomy()))
    icml = URIRef("https://w3id.org/kg/venue/icml")
    assert set(g.subjects(SCHEMA.isPartOf, icml)) == {paper_iri("a"), paper_iri("b")}
    assert (icml, RDF.type, KG.Venue) in g
    assert set(g.objects(icml, SCHEMA.name)) == {Literal("ICML"), Literal("icml.")}
    assert g.value(paper_iri("d"), SCHEMA.isPartOf) is None


def test_paper_nodes_carry_their_authors_and_venue_ids_as_the_rdf_names_them(formats_build):
    """One author written "Müller, Jörg" (BibTeX) and "Jörg Müller" (OpenAlex) has one id."""
    import networkx as nx

    import kg
    from kg.attrs import AUTHOR_IDS, AUTHORS, PAPER, TYPE, VENUE, VENUE_ID
    from kg.graph.iris import person_iri, venue_iri

    G = kg.load_graph(formats_build.out / "graph.json")
    papers = {n: d for n, d in G.nodes(data=True) if d[TYPE] == PAPER}
    for d in papers.values():  # one id per name, in the list's order; the RDF's IRIs
        assert d[AUTHOR_IDS] == [str(person_iri(a)) for a in d[AUTHORS]]
        assert d[VENUE_ID] == (str(venue_iri(d[VENUE])) if d[VENUE] else None)
    pairs = [
        (a, i, n) for n, d in papers.items() for a, i in zip(d[AUTHORS], d[AUTHOR_IDS], strict=True)
    ]
    forms = {a: i for a, i, _ in pairs}
    muller = "https://w3id.org/kg/person/jorg-muller"
    assert forms["Müller, Jörg"] == forms["Jörg Müller"] == muller
    # an analytics user finds the other papers of an author
    of_muller = sorted(n for n, d in papers.items() if muller in d[AUTHOR_IDS])
    assert of_muller == ["paper:W4000000001", "paper:muller2024graph"]
    assert {(a, n) for a, i, n in pairs if i == muller} == {
        ("Jörg Müller", "paper:W4000000001"),
        ("Müller, Jörg", "paper:muller2024graph"),
    }
    # GraphML joins the list with "; ", as every list attribute
    H = nx.read_graphml(formats_build.out / "graph.graphml")
    assert H.nodes["paper:muller2024graph"][AUTHOR_IDS] == "; ".join(
        papers["paper:muller2024graph"][AUTHOR_IDS]
    )
    assert H.nodes["paper:muller2024graph"][VENUE_ID] == papers["paper:muller2024graph"][VENUE_ID]


def test_an_exact_link_reaches_its_concept_as_strongly_as_the_paper_makes_it_its_own():
    """The edges weigh a link by its salience; the reader's confidence does not move them."""
    kinds = {"sgd": Kind.METHOD}
    sure = Link("p", "sgd", Role.USES, 0.9, "s", salience=0.4)
    doubted = Link("p", "sgd", Role.USES, 0.1, "s", salience=0.4)
    rule = EdgeRule()
    a, b = (
        edges_module.reached([link], kinds, {}, load_taxonomy(), rule) for link in (sure, doubted)
    )
    assert a == b and a["sgd"][0] == pytest.approx(rule.exact_base + (1 - rule.exact_base) * 0.4)
    plain = Link("p", "sgd", Role.USES, 0.4, "s")  # no salience: the confidence is both
    assert edges_module.reached([plain], kinds, {}, load_taxonomy(), rule) == a
