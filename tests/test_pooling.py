"""Sentence vectors pooled from one model pass per abstract."""

from __future__ import annotations

import re

import numpy as np
import pytest
from conftest import Counting

from kg.extract.embed import MiniLM, TextVectors, read
from kg.extract.pooling import in_context, locate, sentence_vectors


def test_locate_finds_parts_in_order_and_says_which_are_missing():
    text = "Graphs help. We use graphs. Graphs help."
    assert locate(text, ["Graphs help.", "We use graphs.", "Graphs help.", "Trees."]) == [
        (0, 12),
        (13, 27),
        (28, 40),
        None,
    ]
    assert locate(text, ["", "We use graphs."]) == [None, (13, 27)]


def test_sentences_a_text_has_are_pooled_and_the_rest_embedded_alone_in_one_call(fake_embedder):
    counting = Counting(fake_embedder)
    texts = ["Sparse graph kernels. Dense graph kernels help.", "Nothing here."]
    readings = read(fake_embedder, texts)
    parts = [["Dense graph kernels help.", "Quantum walks."], ["Quantum walks."]]
    vectors = sentence_vectors(counting, readings, parts)
    assert counting.calls == [["Quantum walks."]]
    # The fake's words are its tokens: a pooled sentence is its words' bag (up
    # to the 1e-3 the fake adds to every vector).
    bag = fake_embedder.embed(["Dense graph kernels help."])[0]
    assert np.allclose(vectors[0][0], bag, atol=3e-3)
    assert np.allclose(vectors[0][1], vectors[1][0])
    assert np.allclose(np.linalg.norm(vectors[0], axis=1), 1.0)
    assert sentence_vectors(counting, readings, [[], []])[1].shape == (0, 384)


def test_a_phrase_in_context_pools_its_tokens_wherever_the_text_writes_it():
    text = "Graph kernels help. We use graph kernels, not kernels alone."
    offsets = np.array([m.span() for m in re.finditer(r"\w+", text)])  # a token a word
    tokens = np.eye(len(offsets), 384, dtype=np.float32)  # token i: the i-th unit vector
    reading = TextVectors(text, tokens[0], tokens, offsets)
    got = in_context(reading, ["graph kernels", "Kernels", "trees", "graph kernel"])
    # "graph kernels" twice, in either case: tokens 0, 1, 5 and 6, never "kernels" alone.
    assert np.allclose(got[0], unit_of([0, 1, 5, 6]))
    assert np.allclose(got[1], unit_of([1, 6, 8]))  # whole words only
    assert not got[2].any() and not got[3].any()  # not written: no context


def unit_of(tokens: list[int]) -> np.ndarray:
    v = np.zeros(384, np.float32)
    v[tokens] = 1.0
    return v / np.linalg.norm(v)


@pytest.mark.model
def test_real_pooled_vectors_keep_the_meaning_of_what_they_pool():
    model = MiniLM()
    text = (
        "We train a graph neural network on molecules. Separately, a convolutional "
        "network classifies images of cats. The graph neural network predicts toxicity."
    )
    (reading,) = model.read([text])
    sentences = [
        "We train a graph neural network on molecules.",
        "Separately, a convolutional network classifies images of cats.",
        "The graph neural network predicts toxicity.",
    ]
    counting = Counting(model)
    pooled = sentence_vectors(counting, [reading], [sentences])[0]
    assert counting.calls == []  # every sentence pooled, none embedded alone
    # Each sentence read in context is nearest the same sentence embedded alone.
    assert ((pooled @ model.embed(sentences).T).argmax(axis=1) == [0, 1, 2]).all()
