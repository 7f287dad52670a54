"""The field taxonomy: the shipped SKOS scheme, user taxonomies, broken files."""

from __future__ import annotations

import re

import pytest
import rdflib
from rdflib.namespace import SKOS

from kg.errors import TaxonomyError
from kg.taxonomy import DEFAULT_TAXONOMY, Taxonomy, load_taxonomy

ICLR = "https://w3id.org/kg/iclr2024-area/"
ICLR_AREAS = {
    "representation learning for computer vision, audio, language, and other modalities",
    "generative models",
    "general machine learning (i.e., none of the above)",
    "unsupervised, self-supervised, semi-supervised, and supervised representation learning",
    "reinforcement learning",
    "societal considerations including fairness, safety, privacy",
    "optimization",
    "learning theory",
    "applications to physical sciences (physics, chemistry, biology, etc.)",
    "datasets and benchmarks",
    "transfer learning, meta learning, and lifelong learning",
    "learning on graphs and other geometries & topologies",
    "probabilistic methods (Bayesian methods, variational inference, sampling, UQ, etc.)",
    "visualization or interpretation of learned representations",
    "applications to neuroscience & cognitive science",
    "applications to robotics, autonomy, planning",
    "neurosymbolic & hybrid AI systems (physics-informed, logic & formal reasoning, etc.)",
    "causal reasoning",
    "infrastructure, software libraries, hardware, etc.",
    "metric learning, kernel learning, and sparse coding",
}


@pytest.fixture(scope="module")
def taxonomy() -> Taxonomy:
    return load_taxonomy()


# --- the shipped taxonomy ---------------------------------------------------


def test_shipped_taxonomy_has_two_levels(taxonomy: Taxonomy) -> None:
    tops = taxonomy.top_level()
    assert len(tops) >= 13
    assert all(taxonomy.children(t.key) for t in tops)
    assert all(taxonomy.by_key(f.broader).broader is None for f in taxonomy.fields if f.broader)
    for key in ("optimization", "reinforcement-learning", "generative-models", "diffusion-models"):
        assert taxonomy.by_key(key).label
    assert taxonomy.by_key("diffusion-models").broader == "generative-models"


def test_shipped_fields_have_labels_and_descriptions(taxonomy: Taxonomy) -> None:
    for f in taxonomy.fields:
        assert f.label and f.description, f.key
        assert re.fullmatch(r"[A-Za-z0-9._~-]+", f.key), f.key
        assert f.iri == "https://w3id.org/kg/field/" + f.key
    assert len({f.key for f in taxonomy.fields}) == len(taxonomy.fields)


def test_every_broad_area_maps_to_an_iclr_area(taxonomy: Taxonomy) -> None:
    for top in taxonomy.top_level():
        rels = {rel for rel, iri in top.matches if iri.startswith(ICLR)}
        assert rels & {"closeMatch", "broadMatch"}, top.key


def test_all_iclr_areas_are_declared_and_reachable(taxonomy: Taxonomy) -> None:

    graph = rdflib.Graph().parse(DEFAULT_TAXONOMY)
    declared = {
        str(s): str(o)
        for s, o in graph.subject_objects(SKOS.prefLabel)
        if (s, SKOS.inScheme, rdflib.URIRef(ICLR)) in graph
    }
    assert set(declared.values()) == ICLR_AREAS
    reached = {iri for f in taxonomy.fields for _, iri in f.matches}
    assert set(declared) <= reached
    # The ICLR areas are mapping targets, not fields of kg's own taxonomy.
    assert not any(f.iri.startswith(ICLR) for f in taxonomy.fields)


def test_no_broader_cycles(taxonomy: Taxonomy) -> None:
    for f in taxonomy.fields:
        chain = [a.key for a in taxonomy.ancestors(f.key)]
        assert f.key not in chain and len(chain) == len(set(chain))


# --- user taxonomies and broken files ---------------------------------------


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            "@prefix skos: <http://www.w3.org/2004/02/skos/core#> .\nex:a a skos:Concept .\n",
            "parse",
        ),
        ("@prefix ex: <https://e.org/> .\nex:a ex:b ex:c .\n", "no skos:Concept"),
        (
            "@prefix skos: <http://www.w3.org/2004/02/skos/core#> .\n"
            "<https://e.org/a> a skos:Concept .\n",
            "prefLabel",
        ),
        (
            "@prefix skos: <http://www.w3.org/2004/02/skos/core#> .\n"
            "@prefix ex: <https://e.org/> .\n"
            'ex:a a skos:Concept ; skos:prefLabel "a" ; skos:broader ex:b .\n'
            'ex:b a skos:Concept ; skos:prefLabel "b" ; skos:broader ex:a .\n',
            "cycle",
        ),
    ],
)
def test_broken_taxonomy_names_file_and_problem(tmp_path, text: str, problem: str) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "broken.ttl"
    path.write_text(text)
    with pytest.raises(TaxonomyError) as err:
        load_taxonomy(path)
    assert str(path) in str(err.value)
    assert problem in str(err.value)


def test_parse_error_names_the_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "bad.ttl"
    path.write_text('@prefix ex: <https://e.org/> .\nex:a ex:b ex:c .\nex:a ex:b "open .\n')
    with pytest.raises(TaxonomyError, match=rf"{re.escape(str(path))}:3"):
        load_taxonomy(path)


def test_missing_file(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(TaxonomyError, match="not found"):
        load_taxonomy(tmp_path / "nope.ttl")


def test_a_file_is_parsed_once_per_content(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import kg.taxonomy

    parsed = []
    parse = kg.taxonomy._parse
    monkeypatch.setattr(kg.taxonomy, "_parse", lambda path: parsed.append(path) or parse(path))
    path = tmp_path / "mine.ttl"
    one = (
        "@prefix skos: <http://www.w3.org/2004/02/skos/core#> .\n"
        '<https://e.org/a> a skos:Concept ; skos:prefLabel "{}" .\n'
    )
    path.write_text(one.format("vision"))
    first = load_taxonomy(path)
    assert load_taxonomy(path) is first and len(parsed) == 1
    path.write_text(one.format("speech"))  # same size, perhaps the same modification time
    assert [f.label for f in load_taxonomy(path).fields] == ["speech"] and len(parsed) == 2
