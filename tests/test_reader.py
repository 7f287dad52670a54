"""The reader model: a kept link's confidence is how likely a reader judges it right."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from kg.errors import ModelError
from kg.extract import Extractor
from kg.extract.candidates import Candidate
from kg.extract.classify import FEATURE_NAMES
from kg.extract.reader import (
    DEFAULT_READER,
    EXTRA_FEATURES,
    LINK_ROLES,
    ReaderModel,
    link_features,
    load_reader,
    rescored,
)
from kg.extract.select import CandidateTable, Scored, select_links
from kg.model import Kind, Link, Mention, Paper, Role
from kg.text import clean

LABELS = Path(__file__).resolve().parents[1] / "bench" / "reader_labels"
WIDTH = len(EXTRA_FEATURES) + FEATURE_NAMES.index("e0")


def _constant(probability: float) -> ReaderModel:
    """A reader model that gives every link ``probability``."""
    logit = float(np.log(probability / (1 - probability)))
    return ReaderModel(np.zeros(WIDTH, np.float32), logit, np.zeros(WIDTH), np.ones(WIDTH))


def _table(
    texts: list[str], counting: bool = True, problems: tuple[str, ...] = ("reward shaping",)
) -> tuple[CandidateTable, list[Scored]]:
    """Candidates typed methods (``problems`` problems) whose feature rows count up
    (0, 1, 2, ...), or are all zero."""
    cands = [Candidate(t, 0) for t in texts]
    X = np.arange(len(texts) * len(FEATURE_NAMES), dtype=np.float32).reshape(len(texts), -1)
    X = X if counting else np.zeros_like(X)
    kinds = [Kind.PROBLEM if t in problems else Kind.METHOD for t in texts]
    scored = [Scored(c, 0.5, k, 0.6, entity=0.7) for c, k in zip(cands, kinds, strict=True)]
    return CandidateTable(cands, [0.5] * len(texts), X), scored


def _extracted(extractor: Extractor, text: str) -> tuple[Mention, ...]:
    """The mentions of one paper with this (cleaned) abstract."""
    return extractor.extract([Paper(id="p", abstract=text, text=text)])["p"]


def test_the_shipped_model_reads_the_features_a_link_is_given():
    model = load_reader()
    table, scored = _table(["policy gradients", "reward shaping"], counting=False)
    links = [
        (Mention("policy gradients", Role.USES, 0.8, "s"), 0),
        (Mention("reward shaping", Role.ADDRESSES, 0.4, "s"), 1),
    ]
    vectors = np.stack([v for _, v, _ in link_features(links, scored, table)])
    assert vectors.shape == (2, len(model.coef)) == (2, WIDTH)
    p = model.probability(vectors)
    assert ((p > 0.01) & (p < 0.99)).all() and p[0] != p[1]


def test_a_link_row_says_its_role_rank_and_candidate_features():
    table, scored = _table(["policy gradients", "reward shaping", "Atari"])
    links = [
        (Mention("reward shaping", Role.ADDRESSES, 0.4, "s"), 1),
        (Mention("policy gradients", Role.PROPOSES, 0.9, "s"), 0),
        (Mention("deep learning", Role.IN_FIELD, 0.9, "s"), 2),
    ]
    rows = {m.text: (row, v) for row, v, m in link_features(links, scored, table)}
    assert set(rows) == {"reward shaping", "policy gradients"}  # a field is not rescored
    best, other = rows["policy gradients"], rows["reward shaping"]
    assert best[0]["rank"] == 0 and other[0]["rank"] == 1
    roles = slice(1, 1 + len(LINK_ROLES))
    assert list(best[1][roles]) == [1.0, 0.0, 0.0] and list(other[1][roles]) == [0.0, 0.0, 1.0]
    # The candidate's own hand features follow the link's, its embedding does not.
    own = len(EXTRA_FEATURES)
    assert np.array_equal(best[1][own:], table.features[0, : WIDTH - own])


def test_rescoring_replaces_method_and_problem_confidences_and_drops_nothing():
    table, scored = _table(["policy gradients", "reward shaping"])
    links = [
        (Mention("policy gradients", Role.USES, 0.8, "s"), 0),
        (Mention("reward shaping", Role.ADDRESSES, 0.1, "s"), 1),
        (Mention("reinforcement-learning", Role.IN_FIELD, 0.9, "s"), 0),
    ]
    out = rescored(links, scored, table, _constant(0.3))
    assert [m.text for m in out] == [m.text for m, _ in links]
    assert [m.score for m in out] == [0.3, 0.3, 0.9]
    assert [m.salience for m in out] == [0.8, 0.1, None]  # the classifier's, kept


def test_a_paper_is_named_by_what_it_makes_its_own_not_by_the_surest_link():
    """A baseline a reader is sure of ("DCLM") does not name a data-curation paper."""
    from kg.graph.labels import paper_labels
    from kg.model import Concept

    concepts = [
        Concept("curation", "data curation", kind=Kind.METHOD),
        Concept("dclm", "DCLM", kind=Kind.METHOD),
    ]
    links = [
        Link("p", "curation", Role.USES, 0.4, "s", salience=0.9),
        Link("p", "dclm", Role.USES, 0.8, "s", salience=0.3),
    ]
    paper = Paper(id="p", abstract="x", text="x")
    assert paper_labels([paper], concepts, links)["p"] == "data curation"


def test_the_extractor_gives_links_the_reader_models_probability(fake_embedder):
    text = clean(
        "Exploration with sparse rewards remains difficult. We propose Curio, an intrinsic "
        "reward from the prediction error of a dynamics model, and train it with Proximal "
        "Policy Optimization (PPO)."
    )
    plain = _extracted(Extractor(fake_embedder), text)
    read = _extracted(Extractor(fake_embedder, reader=_constant(0.25)), text)
    assert [m.text for m in read] == [m.text for m in plain]
    for m in read:  # a weak mention (not selected) keeps the classifier's probability
        assert m.score == 0.25 if m.role in LINK_ROLES and m.selected else m.score != 0.25
    assert any(m.role in LINK_ROLES and m.selected for m in read)


def test_rules_only_extraction_has_no_reader(fake_embedder):
    assert Extractor(fake_embedder, classifier=None).reader is None


def test_a_reader_model_for_other_features_is_a_clear_error(tmp_path):
    data = json.loads(DEFAULT_READER.read_text(encoding="utf-8"))
    data["coef"] = data["coef"][:-1]
    data["features"] = data["features"][:-1]
    path = tmp_path / "reader.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ModelError, match="retrain it with bench/train_reader.py"):
        load_reader(path)
    with pytest.raises(ModelError, match="cannot read the reader model"):
        load_reader(tmp_path / "missing.json")


@pytest.mark.parametrize("name", sorted(p.name for p in LABELS.glob("*-sample.jsonl")))
def test_every_reader_label_is_one_verdict_on_one_link(name):
    seen = set()
    for line in (LABELS / name).read_text(encoding="utf-8").splitlines():
        label = json.loads(line)
        assert label["verdict"] in {"right", "generic", "wrong"}
        assert label["role"] in {r.value for r in LINK_ROLES} | {"mentionsConcept"}
        assert len(label["phrase"]) == 16 and int(label["phrase"], 16) >= 0  # a key, no text
        key = (label["paper"], label["phrase"], label["role"])
        assert key not in seen, key
        seen.add(key)


def test_the_readers_index_lists_each_paper_once_by_keys_not_text():
    papers = set()
    # three parts (800 and 800 the shipped classifier learned from, 710 tried), none in two
    for part in ("icml-index.jsonl", "icml-index2.jsonl", "icml-index3.jsonl"):
        for line in (LABELS / part).read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            assert entry["paper"].startswith("icml2024-") and entry["paper"] not in papers
            papers.add(entry["paper"])
            for key in entry["methods"] + entry["problems"]:
                assert re.fullmatch("[0-9a-f]{16}", key), key  # a key, no text
    assert len(papers) == 2310
    judged = {
        json.loads(line)["paper"]
        for path in [*LABELS.glob("icml*-sample.jsonl"), *LABELS.glob("icml*-kinds.jsonl")]
        for line in path.read_text(encoding="utf-8").splitlines()
    }
    assert judged and not papers & judged  # the links judged are of papers the index never saw


def test_each_link_reads_the_row_it_was_made_from():
    """A phrase shortened from its candidate, one typed a method in one row and a problem in
    another, and two rows shortened to one phrase: each link names the row it was made from."""
    sentences = [
        "We study model merging approaches and model merging methods with trust region steps."
    ]
    table, scored = _table(["model merging approaches", "trust region", "trust region", "x"])
    shortened = Candidate("model merging", 0)
    scored[0] = Scored(shortened, 0.5, Kind.METHOD, 0.6, entity=0.7)
    scored[2] = Scored(table.candidates[2], 0.5, Kind.PROBLEM, 0.6, entity=0.7)
    scored[3] = Scored(shortened, 0.5, Kind.METHOD, 0.9, entity=0.9)  # the surer row
    limits = {Kind.METHOD: 8, Kind.PROBLEM: 5}
    links = select_links(scored, sentences, limits, 0.0)
    assert [(m.text, m.role, row) for m, row in links] == [
        ("model merging", Role.USES, 3),
        ("trust region", Role.USES, 1),
        ("trust region", Role.ADDRESSES, 2),
    ]
    own = len(EXTRA_FEATURES)
    for (_, vector, _), (_, row) in zip(link_features(links, scored, table), links, strict=True):
        assert np.array_equal(vector[own:], table.features[row, : WIDTH - own])


def test_the_extractor_rescores_every_method_and_problem_link(fake_embedder):
    text = clean(
        "We study model merging approaches, which combine fine-tuned large language models "
        "without data. Task arithmetic and trust region merging are compared for multi-task "
        "learning, and merging conflicts are the main problem of weight averaging methods."
    )
    found = _extracted(Extractor(fake_embedder), text)
    links = [m for m in found if m.role in LINK_ROLES and m.selected]
    assert links and all(m.salience is not None for m in links)


def test_a_field_named_by_a_method_is_as_sure_as_the_paper_makes_the_method_its_own():
    from kg.extract.named_fields import with_named_fields
    from kg.lexicon import variant_key

    rl = Mention("reinforcement learning", Role.USES, 0.3, "s", salience=0.8)
    (field,) = with_named_fields([rl], [], {variant_key("reinforcement learning"): "rl"})
    assert (field.text, field.role, field.score) == ("rl", Role.IN_FIELD, 0.8)


@pytest.mark.parametrize("name", ["icml", "seeds", "icml2", "seeds2"])
def test_every_kind_label_names_one_link_judged_wrong(name):
    """The kinds (bench/reader_kinds.py) say what a wrong link is; every one has a verdict."""
    verdicts = {
        (v["paper"], v["phrase"], v["role"]): v["verdict"]
        for v in map(
            json.loads, (LABELS / f"{name}-sample.jsonl").read_text(encoding="utf-8").splitlines()
        )
    }
    kinds = {"method", "problem", "setting", "other", "side", "generic", "fragment"}
    seen = set()
    for line in (LABELS / f"{name}-kinds.jsonl").read_text(encoding="utf-8").splitlines():
        label = json.loads(line)
        assert set(label) == {"paper", "phrase", "role", "kind"}  # a key, no text
        assert label["kind"] in kinds
        key = (label["paper"], label["phrase"], label["role"])
        assert verdicts.get(key) == "wrong", key
        assert key not in seen, key
        seen.add(key)
