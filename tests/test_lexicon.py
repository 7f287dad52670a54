"""The word lists and the tests on them (more cases in the module's doctests)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import kg.lexicon as lexicon
from kg.lexicon import (
    abbreviates,
    acronym_letters,
    is_acronym,
    is_defined_acronym,
    is_subsequence,
    looks_like_name,
    spells,
    spelt_from,
)

LISTS = sorted(p.stem for p in Path(lexicon.__file__).parent.glob("*.txt"))


@pytest.mark.parametrize("name", LISTS)
def test_every_word_list_is_lower_case_words_each_listed_once(name):
    text = (Path(lexicon.__file__).parent / f"{name}.txt").read_text(encoding="utf-8")
    body = [w for line in text.splitlines() if not line.startswith("#") for w in line.split()]
    assert body, f"{name}.txt is empty"
    assert len(body) == len(set(body)), f"{name}.txt lists a word twice"
    assert all(w == w.lower() for w in body), name
    assert text.startswith("# "), f"{name}.txt should say what the class is for"


def test_every_list_file_is_loaded_by_the_lexicon():
    source = Path(lexicon.__file__).read_text(encoding="utf-8")
    assert all(f'words("{name}")' in source for name in LISTS)


def test_the_word_classes_that_break_phrases_do_not_overlap():
    assert not lexicon.FUNCTION_WORDS & lexicon.PHRASE_BREAKS
    assert not lexicon.QUANTITY_WORDS & (lexicon.FUNCTION_WORDS | lexicon.PHRASE_BREAKS)
    assert not lexicon.STOP_WORDS & (lexicon.METHOD_HEADS | lexicon.PROBLEM_HEADS)
    # a gerund that names a method ("flow matching") is never a verb that ends a phrase
    assert not lexicon.VERBS & lexicon.NOMINAL_ING


@pytest.mark.parametrize(
    "text, acronym, defined, name",
    [
        ("SGD", True, True, True),
        ("LLMs", True, True, True),
        ("Dual-MTP", True, True, True),
        ("GPT-4", True, True, True),
        ("BERT-base", True, True, True),
        ("k-NN", True, True, True),
        ("x1", False, False, False),
        ("Transformer", False, False, False),
        ("post hoc OOD detection", False, False, True),
        ("a-very-long-NAME-indeed", True, False, True),
    ],
)
def test_acronym_and_name_tests(text, acronym, defined, name):
    assert (is_acronym(text), is_defined_acronym(text), looks_like_name(text)) == (
        acronym,
        defined,
        name,
    )


def test_spelling_skips_function_words_and_at_most_one_other_word():
    assert spells("ism", "Importance Weights for Shifting Means".split())
    assert not spells("ism", "Importance Weights Wide Shifting Means".split())
    assert abbreviates("LoRA", "low-rank adaptation")
    assert not abbreviates("LoRA", "low-rank matrix adaptation")  # no skipped word


_WORDS = st.sampled_from(
    [
        "low",
        "rank",
        "Adaptation",
        "of",
        "the",
        "for",
        "ΑΣ",
        "İst",
        "state-of",
        "a/b",
        "LoRA",
        "x-y-z",
    ]
)


@settings(max_examples=500)
@given(words=st.lists(_WORDS, min_size=2, max_size=5), take=st.lists(st.integers(0, 3), max_size=5))
@example(words=["low-rank", "adaptation"], take=[1, 1, 1])
def test_an_acronym_a_phrase_spells_is_a_subsequence_of_what_it_spells_from(words, take):
    """The quick pre-test of acronym inference never rules out a phrase abbreviates accepts."""
    phrase = " ".join(words)
    parts = [p for w in words for p in w.replace("/", "-").split("-") if p]
    acronym = "".join(
        p[:k] for p, k in zip(parts, (take + [1] * len(parts))[: len(parts)], strict=True)
    ).upper()
    if abbreviates(acronym, phrase):
        assert is_subsequence(acronym_letters(acronym), spelt_from(phrase))


def test_is_subsequence_keeps_order():
    assert is_subsequence("lra", "lowrankadaptation") and not is_subsequence("arl", "lowrank")


def test_the_background_shares_are_measured_and_umbrellas_follow_them():
    from kg.lexicon import UMBRELLA_SHARE, background_share, class_member, is_umbrella

    # Shares come from a table of abstracts, not from the papers being built.
    assert background_share("language models") >= UMBRELLA_SHARE
    assert background_share("Language-Models") == background_share("language model")
    assert background_share("Thompson sampling") == 0.0
    assert is_umbrella("neural networks") and not is_umbrella("spiking neural networks")
    # A plural class names its member when the member is a phrase or a name.
    assert class_member("nearest neighbor search algorithms") == "nearest neighbor search"
    assert class_member("NeRF methods") == "NeRF"
    assert class_member("first-order methods") is None and is_umbrella("first-order methods")
    assert class_member("first-order method") == "first-order method"  # one method, not a class
