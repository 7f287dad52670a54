"""Field assignment: zero-shot scores, the area model, evidence sentences."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kg.extract.fields import FieldScorer, _Term, assign_fields, assign_fields_batch
from kg.taxonomy import Field, Taxonomy, load_taxonomy


@pytest.fixture(scope="module")
def taxonomy() -> Taxonomy:
    return load_taxonomy()


@pytest.fixture(scope="module")
def fake_scorer(taxonomy: Taxonomy, fake_embedder) -> FieldScorer:  # type: ignore[no-untyped-def]
    return FieldScorer.from_taxonomy(taxonomy, fake_embedder)


def test_user_taxonomy_from_turtle(user_taxonomy, fake_embedder) -> None:  # type: ignore[no-untyped-def]
    tax = load_taxonomy(user_taxonomy)
    assert {f.key for f in tax.top_level()} == {"Vision", "Language"}
    det = tax.children("Vision")[0]
    assert det.key == "Detection-20Stuff"
    assert det.description == "Boxes around objects."
    assert tax.by_key("Vision").alt_labels == ("images",)
    scorer = FieldScorer.from_taxonomy(tax, fake_embedder)
    out = assign_fields("We detect objects in images.", ["We detect objects in images."], scorer)
    assert out and {k for k, _, _ in out} <= {"Vision", "Detection-20Stuff", "Language"}


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
    # A narrower topic comes before its broad area, unless the text names it,
    # and scores at most its area's probability.
    tax = fake_scorer.taxonomy
    score = dict((k, s) for k, s, _ in out)
    for i, key in enumerate(keys):
        f = tax.by_key(key)
        named = fake_scorer.lexical_hits(text)[tax.fields.index(f)] > 0
        if f.broader is not None and not named:
            assert f.broader in keys[i + 1 :] and score[key] <= score[f.broader]


def test_an_abstract_outside_the_taxonomy_gets_no_field(fake_scorer: FieldScorer) -> None:
    text = "Brass bands rehearse marches for the harbour festival in the old town square."
    assert assign_fields(text, [text], fake_scorer) == []


def test_an_abstract_inside_the_taxonomy_always_gets_its_best_area(
    fake_scorer: FieldScorer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kg.extract import fields

    monkeypatch.setattr(fields, "_OUTSIDE_RAW", -1.0)  # everything is inside
    out = assign_fields("", [], fake_scorer, top_k=1, min_score=1.0)
    assert len(out) == 1 and out[0][2] == ""


def test_batch_equals_single(fake_scorer: FieldScorer) -> None:
    texts = [" ".join(ABSTRACT), "Diffusion models generate images from noise."]
    sents = [ABSTRACT, ["Diffusion models generate images from noise."]]
    batch = assign_fields_batch(texts, sents, fake_scorer)
    assert batch == [assign_fields(t, s, fake_scorer) for t, s in zip(texts, sents, strict=True)]


# --- the real model ---------------------------------------------------------


@pytest.mark.model
def test_real_model_obvious_cases(taxonomy: Taxonomy) -> None:
    from kg.extract import load_model

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
    from kg.extract.fields import PaperScores, _choose

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
    # its own score: its area's probability times its share of it, below the area's
    area = float(scorer.area_probabilities(scores.doc, scores.raw)[1])
    assert 0 < score < area
    # under a floor the named field is dropped: no field link scores below it
    floor = _choose(scorer, scores, top_k=1, min_score=score + 1e-6)
    assert "fl" not in [k for k, _, _ in floor]
    assert all(s >= score + 1e-6 for k, s, _ in floor if k != "vision")


# --- label matching ---------------------------------------------------------

# Letters whose case-insensitive matches differ between re and str.casefold
# ("İ", "ı", the Kelvin sign, long s, sharp s), spaces, hyphens and word ends.
_TRICKY = "aiksIKS\u0130\u0131\u212a\u017f\u00df\u1e9eGAN -.é"


@given(
    label=st.text(alphabet=_TRICKY, min_size=1, max_size=8).filter(str.strip),
    text=st.text(alphabet=_TRICKY, max_size=30),
)
def test_the_substring_test_never_skips_a_match(label: str, text: str) -> None:
    term = _Term.of(label)
    assert term.search(text) == (term.pattern.search(text) is not None)


def test_labels_match_across_case_hyphens_and_plurals() -> None:
    gan = _Term.of("GAN")
    assert gan.search("two GANs") and not gan.search("organ") and not gan.search("a gan")
    rl = _Term.of("reinforcement learning")
    assert rl.search("Reinforcement-Learning agents")
    assert rl.search("İnverse reinforcement learning")
    assert not rl.search("reinforcement of learning")
    assert _Term.of("İmage").search("İMAGE") and _Term.of("kin").search("\u212aIN")
    # re matches "i" with both Turkish i's; the substring test must let them through.
    assert _Term.of("bandit").search("BANDİT") and _Term.of("bandit").search("bandıt")
