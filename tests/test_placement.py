"""Concepts placed under the taxonomy topic their names mean (kg.extract.placement)."""

from __future__ import annotations

import numpy as np
import pytest

from kg.concepts import canonicalize, with_broader
from kg.extract.placement import PLACE_SIMILARITY, TopicIndex, placed
from kg.model import Concept, Kind, Mention, Role
from kg.taxonomy import load_taxonomy


@pytest.fixture(scope="module")
def taxonomy():
    return load_taxonomy()


def test_a_phrase_close_to_a_topic_label_is_placed_under_it(user_taxonomy, fake_embedder):
    mine = load_taxonomy(user_taxonomy)
    index = TopicIndex.from_taxonomy(mine, fake_embedder)
    (topic,) = (f.key for f in mine.fields if f.label == "object detection")
    assert set(index.keys) == {topic}  # topics only, not the broad areas
    mentions = [
        Mention("detection object methods", Role.ADDRESSES, 0.6, "s."),  # not the label: near
        Mention("ODS", Role.USES, 0.5, "s.", expansion="detection object"),  # read as expanded
        Mention("protein folding", Role.ADDRESSES, 0.6, "s."),  # shares no word: far
        Mention(topic, Role.IN_FIELD, 0.4, "s."),  # fields pass through
    ]
    assert [m.topic for m in placed(mentions, index, fake_embedder)] == [topic, topic, None, None]


def test_only_cosines_at_the_threshold_place(fake_embedder):
    index = TopicIndex(("t",), np.array([[1.0, 0.0]], dtype=np.float32))
    at = np.array([[PLACE_SIMILARITY, np.sqrt(1 - PLACE_SIMILARITY**2)]])
    assert index.nearest(at) == ["t"]  # at least the threshold, not more than it
    below = np.array([[PLACE_SIMILARITY - 0.01, 1.0]])
    below[0, 1] = np.sqrt(1 - below[0, 0] ** 2)
    assert index.nearest(np.array([[1.0, 0.0], [0.0, 1.0]])) == ["t", None]
    assert index.nearest(below) == [None]
    assert index.nearest(below, least=PLACE_SIMILARITY - 0.02) == ["t"]


@pytest.mark.model
def test_real_model_places_names_that_do_not_contain_a_topic_label(real_model, taxonomy):
    index = TopicIndex.from_taxonomy(taxonomy, real_model)
    phrases = ["3D content", "learned representations", "released models"]
    # their names alone place them under no field
    by_name = with_broader(
        [Concept(f"c{i}", p, Kind.METHOD) for i, p in enumerate(phrases)], taxonomy
    )
    assert all(c.broader == () for c in by_name if c.key.startswith("c"))
    mentions = [Mention(p, Role.USES, 0.5, "s.") for p in phrases]
    topics = [m.topic for m in placed(mentions, index, real_model)]
    assert topics[0] is not None and "3D" in taxonomy.by_key(topics[0]).label
    assert topics[1] is not None and "representations" in taxonomy.by_key(topics[1]).label
    assert topics[2] is None  # a generic phrase is near no topic


def test_merged_concept_takes_the_topic_most_mentions_give(taxonomy):
    topic, other = _two(taxonomy)
    mentions = {
        "a": [Mention("Hedgehog estimator", Role.USES, 0.6, "s.", topic=topic)],
        "b": [Mention("Hedgehog estimators", Role.USES, 0.6, "s.", topic=topic)],
        "c": [Mention("Hedgehog estimator", Role.USES, 0.6, "s.", topic=other)],
    }
    concepts, _ = canonicalize(mentions, taxonomy)
    by_label = {c.label: c for c in concepts}
    assert by_label["Hedgehog estimator"].broader == (topic,)
    assert topic in {c.key for c in concepts}  # the topic is a concept of the graph too
    assert {c.key for c in concepts} >= {b for c in concepts for b in c.broader}


def test_placement_gives_way_to_the_name_and_to_broader_concepts(taxonomy):
    topic, other = _two(taxonomy)
    named = taxonomy.by_key(other)
    concepts = [
        Concept("zeta", "ZetaNet", Kind.METHOD),
        Concept("zeta-merging", "ZetaNet merging", Kind.METHOD),
        Concept("x", f"{named.label} methods", Kind.METHOD),  # its name says its field
    ]
    topics = {"zeta": topic, "zeta-merging": topic, "x": topic}
    out = {c.key: c for c in with_broader(concepts, taxonomy, topics)}
    assert out["zeta"].broader == (topic,)
    assert out["zeta-merging"].broader == ("zeta",)  # ZetaNet already leads to the topic
    assert topic not in out["x"].broader and other in out["x"].broader


def _two(taxonomy) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    topics = [f.key for f in taxonomy.fields if f.broader]
    return topics[0], topics[1]


def test_a_topic_the_taxonomy_lacks_is_not_a_broader_key(taxonomy):
    out = with_broader([Concept("z", "ZetaNet", Kind.METHOD)], taxonomy, {"z": "no-such-topic"})
    assert [c.broader for c in out if c.key == "z"] == [()]
