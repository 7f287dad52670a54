"""The words either side of a phrase's occurrences, as classifier features."""

from __future__ import annotations

from kg.extract.classify import FEATURE_NAMES, occurrences
from kg.extract.neighbours import NEIGHBOUR_FEATURES, neighbour_shares, spots


def shares(phrase: str, text: str) -> dict[str, float]:
    return {f: s for f, s in zip(NEIGHBOUR_FEATURES, neighbour_shares(phrase, text)) if s}


def test_each_occurrence_counts_its_neighbours_as_a_share_of_all_occurrences():
    text = (
        "we train parsers using beam search. beam search finds good trees; "
        "we prune the beam search for speed."
    )
    assert shares("beam search", text) == {
        "before_using": 1 / 3,
        "before_the": 1 / 3,
        "after_end": 1 / 3,
        "after_for": 1 / 3,
    }


def test_a_setting_an_application_and_an_acronym_definition_have_their_neighbours():
    text = "we study regret under the markov decision process (mdp) setting."
    assert shares("markov decision process", text) == {
        "before_the": 1.0,
        "after_bracket": 1.0,
    }
    assert shares("mdp", text) == {"after_setting": 1.0}
    text = "it helps in applications such as machine translation, and parsing tasks."
    assert shares("machine translation", text) == {"before_as": 1.0, "after_comma": 1.0}
    assert shares("parsing", text) == {"before_and": 1.0, "after_task": 1.0}


def test_only_whole_words_count_and_a_missing_phrase_has_no_shares():
    text = "subgraph matching and graph matching"
    assert spots("graph matching", text) == [(22, 36)]
    assert occurrences("graph matching", text) == 1
    assert shares("tree matching", text) == {}


def test_the_neighbour_groups_are_classifier_features():
    assert set(NEIGHBOUR_FEATURES) <= set(FEATURE_NAMES)
    assert len(set(NEIGHBOUR_FEATURES)) == len(NEIGHBOUR_FEATURES)
