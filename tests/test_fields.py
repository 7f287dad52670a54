"""Tests for kg.fields: the shipped SKOS taxonomy, user taxonomies, assignment."""

from __future__ import annotations

import re

import numpy as np
import pytest

from kg.embed import Embedder
from kg.errors import TaxonomyError
from kg.fields import (
    DEFAULT_TAXONOMY,
    Field,
    FieldScorer,
    Taxonomy,
    assign_fields,
    assign_fields_batch,
    load_taxonomy,
)

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


@pytest.fixture(scope="module")
def fake_scorer(taxonomy: Taxonomy, fake_embedder) -> FieldScorer:  # type: ignore[no-untyped-def]
    return FieldScorer.from_taxonomy(taxonomy, fake_embedder)


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
    import rdflib
    from rdflib.namespace import SKOS

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

USER_TTL = """\
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix ex: <https://example.org/topics#> .
ex:s a skos:ConceptScheme .
ex:Vision a skos:Concept ; skos:prefLabel "vision"@en ; skos:topConceptOf ex:s ;
    skos:altLabel "images" ; skos:definition "Seeing with cameras." .
ex:Detection%20Stuff a skos:Concept ; skos:prefLabel "object detection" ;
    skos:broader ex:Vision ; skos:scopeNote "Boxes around objects." .
ex:Language a skos:Concept ; skos:prefLabel "language"@en ; skos:topConceptOf ex:s .
"""


def test_user_taxonomy_from_turtle(tmp_path, fake_embedder) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "mine.ttl"
    path.write_text(USER_TTL)
    tax = load_taxonomy(path)
    assert {f.key for f in tax.top_level()} == {"Vision", "Language"}
    det = tax.children("Vision")[0]
    assert det.key == "Detection-20Stuff"
    assert det.description == "Boxes around objects."
    assert tax.by_key("Vision").alt_labels == ("images",)
    scorer = FieldScorer.from_taxonomy(tax, fake_embedder)
    out = assign_fields("We detect objects in images.", ["We detect objects in images."], scorer)
    assert out and {k for k, _, _ in out} <= {"Vision", "Detection-20Stuff", "Language"}


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


# --- assignment with the fake embedder --------------------------------------

ABSTRACT = [
    "We study policy gradient methods for reinforcement learning in Markov decision processes.",
    "Our agent learns from sparse rewards and improves sample efficiency on Atari.",
]


def test_assign_fields_returns_scored_fields_with_input_sentences(fake_scorer: FieldScorer) -> None:
    text = " ".join(ABSTRACT)
    out = assign_fields(text, ABSTRACT, fake_scorer)
    assert out
    keys = [k for k, _, _ in out]
    assert "reinforcement-learning" in keys
    for key, score, sentence in out:
        fake_scorer.taxonomy.by_key(key)
        assert 0.0 <= score <= 1.0
        assert sentence in ABSTRACT
    # A narrower topic comes right before its broad area, unless the text names it.
    tax = fake_scorer.taxonomy
    for i, key in enumerate(keys):
        f = tax.by_key(key)
        named = fake_scorer.lexical_hits(text)[tax.fields.index(f)] > 0
        assert f.broader is None or keys[i + 1 : i + 2] == [f.broader] or named


def test_assign_fields_always_returns_something(fake_scorer: FieldScorer) -> None:
    out = assign_fields("", [], fake_scorer, top_k=1)
    assert len(out) >= 1
    assert out[0][2] == ""


def test_batch_equals_single(fake_scorer: FieldScorer) -> None:
    texts = [" ".join(ABSTRACT), "Diffusion models generate images from noise."]
    sents = [ABSTRACT, ["Diffusion models generate images from noise."]]
    batch = assign_fields_batch(texts, sents, fake_scorer)
    assert batch == [assign_fields(t, s, fake_scorer) for t, s in zip(texts, sents, strict=True)]


def test_fake_embedder_is_an_embedder(fake_embedder) -> None:  # type: ignore[no-untyped-def]
    assert isinstance(fake_embedder, Embedder)


# --- the real model ---------------------------------------------------------


@pytest.mark.model
def test_real_model_obvious_cases(taxonomy: Taxonomy) -> None:
    from kg.embed import load_model

    scorer = FieldScorer.from_taxonomy(taxonomy, load_model())
    papers = {
        "reinforcement-learning": [
            "A robot arm learns to stack blocks by trial and error.",
            "We train the control policy with an actor-critic algorithm that maximises "
            "discounted return, and a learned value function reduces variance.",
            "Across simulated tasks the agent needs three times fewer environment steps.",
        ],
        "generative-models": [
            "We synthesise photographs from short captions.",
            "A denoising network reverses a gradual noising process in the latent space "
            "of an autoencoder, guided by the caption.",
            "Samples reach a lower FID than earlier text-conditioned generators.",
        ],
    }
    texts = [" ".join(s) for s in papers.values()]
    results = assign_fields_batch(texts, list(papers.values()), scorer)
    for expected, sents, out in zip(papers, papers.values(), results, strict=True):
        keys = [k for k, _, _ in out]
        assert expected in keys, (expected, out)
        assert all(sentence in sents for _, _, sentence in out)


def test_a_field_the_text_names_is_kept_even_when_its_area_ranks_low(
    fake_embedder,  # type: ignore[no-untyped-def]
) -> None:
    from kg.fields import PaperScores, _choose

    tax = Taxonomy(
        (
            Field("vision", "https://x.org/vision", "computer vision"),
            Field("detection", "https://x.org/detection", "object detection", broader="vision"),
            Field("systems", "https://x.org/systems", "ML systems"),
            Field("fl", "https://x.org/fl", "federated learning", broader="systems"),
        )
    )
    scorer = FieldScorer.from_taxonomy(tax, fake_embedder)
    sentences = ("Detectors find objects in photos.", "Clients train with federated learning.")
    text = " ".join(sentences)
    scores = PaperScores(
        doc=np.zeros(384),
        raw=np.array([0.5, 0.9, 0.0, 0.1], dtype=np.float32),  # vision far ahead
        best_sentence=np.zeros(4, dtype=int),
        sentences=sentences,
        hits=scorer.lexical_hits(text),
    )
    out = _choose(scorer, scores, top_k=1, min_score=0.0)
    keys = [k for k, _, _ in out]
    assert keys[:2] == ["detection", "vision"]  # the ranked area, with its best topic
    assert keys[2:] == ["fl"]  # named by the text, after the ranked areas
    _, score, sentence = out[2]
    assert sentence == sentences[1]  # the evidence is where it is named
    assert score == pytest.approx(float(scorer.area_probabilities(scores.doc, scores.raw)[1]))
