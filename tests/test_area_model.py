"""The learned area ranking: arithmetic, the JSON format, and when kg uses it."""

from __future__ import annotations

import json

import numpy as np
import pytest

from kg.errors import ModelError
from kg.extract.area_model import DEFAULT_AREA_MODEL, AreaModel, load_area_model
from kg.extract.domain_model import DEFAULT_DOMAIN_MODEL, DomainModel, load_domain_model
from kg.extract.fields import FieldScorer
from kg.taxonomy import Field, Taxonomy, load_taxonomy


def toy_model(temperature: float = 1.0) -> AreaModel:
    rng = np.random.default_rng(0)
    return AreaModel(
        areas=("a", "b", "c"),
        doc_weights=rng.normal(size=(3, 4)).astype(np.float32),
        doc_bias=np.zeros(3, np.float32),
        raw_weights=rng.normal(size=(3, 5)).astype(np.float32),
        raw_bias=np.zeros(3, np.float32),
        zero_shot_temperature=0.5,
        temperature=temperature,
        info={"trained_on": "toy"},
    )


def test_probabilities_are_a_distribution_and_follow_the_zero_shot_scores() -> None:
    m = toy_model()
    doc, raw = np.ones(4), np.ones(5)
    low = m.probabilities(doc, raw, np.array([0.0, 0.0, 0.0]))
    high = m.probabilities(doc, raw, np.array([2.0, 0.0, 0.0]))
    assert low.sum() == pytest.approx(1.0) and high.sum() == pytest.approx(1.0)
    assert high[0] > low[0]
    batch = m.probabilities(np.ones((2, 4)), np.ones((2, 5)), np.zeros((2, 3)))
    assert batch.shape == (2, 3) and np.allclose(batch[0], low)


def test_temperature_flattens_without_reordering() -> None:
    args = (np.ones(4), np.ones(5), np.array([1.0, 0.5, 0.0]))
    sharp, flat = toy_model(1.0).probabilities(*args), toy_model(4.0).probabilities(*args)
    assert list(np.argsort(sharp)) == list(np.argsort(flat))
    assert flat.max() < sharp.max()


def test_json_round_trip(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "m.json"
    path.write_text(toy_model(2.0).to_json())
    back = load_area_model(path)
    assert back.areas == ("a", "b", "c") and back.temperature == 2.0
    assert back.info == {"trained_on": "toy"}
    args = (np.ones(4), np.ones(5), np.array([1.0, 0.5, 0.0]))
    assert np.allclose(back.probabilities(*args), toy_model(2.0).probabilities(*args), atol=1e-5)


def test_broken_model_files_raise_model_error(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ModelError, match="cannot read"):
        load_area_model(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ModelError, match="cannot read"):
        load_area_model(bad)
    data = json.loads(toy_model().to_json())
    data["doc_bias"] = [0.0]
    bad.write_text(json.dumps(data))
    with pytest.raises(ModelError, match="shapes"):
        load_area_model(bad)


def test_shipped_model_fits_the_shipped_taxonomy_and_says_what_it_learned_from(
    fake_embedder,  # type: ignore[no-untyped-def]
) -> None:
    model = load_area_model(DEFAULT_AREA_MODEL)
    info = model.info or {}
    assert info["trained_on"] == "iclr2024_dev.jsonl" and len(info["trained_on_sha256"]) == 64
    assert 0.0 < info["cv_top1"] <= info["cv_top3"] <= 1.0
    scorer = FieldScorer.from_taxonomy(load_taxonomy(), fake_embedder)
    assert scorer.area_model is not None
    assert scorer.area_model.areas == tuple(t.key for t in scorer.taxonomy.top_level())


def test_a_user_taxonomy_is_ranked_zero_shot(fake_embedder) -> None:  # type: ignore[no-untyped-def]
    tax = Taxonomy(
        (
            Field("vision", "https://x.org/vision", "computer vision"),
            Field("systems", "https://x.org/systems", "ML systems"),
        )
    )
    scorer = FieldScorer.from_taxonomy(tax, fake_embedder)
    assert scorer.area_model is None
    probs = scorer.area_probabilities(np.ones(384), np.array([0.3, 0.1]))
    assert probs.sum() == pytest.approx(1.0) and probs[0] > probs[1]


def toy_domain(floor: float = 0.5) -> DomainModel:
    return DomainModel(np.array([1.0, -1.0, 0.0, 0.0], np.float32), 0.0, floor, "toy", {"C": 1.0})


def test_the_domain_model_keeps_a_paper_at_or_above_its_floor(tmp_path) -> None:  # type: ignore[no-untyped-def]
    m = toy_domain(0.5)
    assert m.inside(np.array([1.0, 0.0, 0.0, 0.0]))  # expit(1) = 0.73
    assert not m.inside(np.array([0.0, 1.0, 0.0, 0.0]))  # expit(-1) = 0.27
    assert m.inside(np.zeros(4))  # exactly the floor
    path = tmp_path / "d.json"
    path.write_text(toy_domain(0.3).to_json())
    back = load_domain_model(path)
    assert back.floor == 0.3 and back.info == {"C": 1.0}
    assert np.allclose(back.weights, toy_domain().weights)


def test_broken_domain_model_files_raise_model_error(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ModelError, match="cannot read"):
        load_domain_model(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    for change in ({"floor": 1.5}, {"weights": []}, {"weights": [1.0, float("nan")]}):
        bad.write_text(json.dumps({**json.loads(toy_domain().to_json()), **change}))
        with pytest.raises(ModelError, match="not valid"):
            load_domain_model(bad)


def test_the_shipped_domain_model_reads_the_packaged_model_and_no_other(
    fake_embedder,  # type: ignore[no-untyped-def]
) -> None:
    from kg.extract import load_model, model_identity

    # Trained on the packaged model's vectors: a change of that model must retrain it (a
    # mismatch stops the build rather than drop the check unseen).
    model = load_domain_model(DEFAULT_DOMAIN_MODEL)
    assert model.model == model_identity(load_model()).key  # (loading is lazy: no weights read)
    assert set((model.info or {})["data"]) == {"ICLR and ICML 2024", "SciERC train", "Inspec train"}
    assert FieldScorer.from_taxonomy(load_taxonomy(), fake_embedder).domain_model is None


@pytest.mark.model
def test_an_abstract_outside_machine_learning_gets_no_field(real_model) -> None:  # type: ignore[no-untyped-def]
    from kg.extract.fields import assign_fields

    scorer = FieldScorer.from_taxonomy(load_taxonomy(), real_model)
    assert scorer.domain_model is not None
    mine = Taxonomy((Field("vision", "https://x.org/vision", "computer vision"),))
    assert FieldScorer.from_taxonomy(mine, real_model).domain_model is None
    outside = [
        "The council reviewed the water tariffs of twelve rural districts.",
        "Households that pay a flat fee use a third more water than metered ones, "
        "and repairs to old pipes cost the districts more than the meters would.",
        "We recommend meters for every new connection and a grant for repairs.",
    ]
    inside = [
        "We fine-tune a pretrained transformer language model with low-rank adapters.",
        "On question answering benchmarks the adapted model matches full fine-tuning "
        "while training a hundredth of the parameters.",
    ]
    assert assign_fields(" ".join(outside), outside, scorer) == []
    assert assign_fields(" ".join(inside), inside, scorer) != []


def test_a_model_file_without_its_weights_says_how_to_get_them_back(tmp_path) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"info": {}}))
    with pytest.raises(ModelError, match="lacks 'weights'.*bench/train_domain.py"):
        load_domain_model(bad)
    with pytest.raises(ModelError, match="lacks 'areas'.*bench/train_fields.py"):
        load_area_model(bad)
    bad.write_text("[1, 2]")
    with pytest.raises(ModelError, match="is not the area model"):
        load_area_model(bad)
