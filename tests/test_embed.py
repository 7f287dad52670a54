"""The model loader: offline, hash-checked; the memo embeds each text once."""

from __future__ import annotations

import os

import numpy as np
import pytest

import kg.extract.embed
from kg.errors import ModelError
from kg.extract.embed import Memo, MiniLM


class Counting:
    def __init__(self, inner):
        self.inner, self.calls = inner, []

    def embed(self, texts):
        self.calls.append(list(texts))
        return self.inner.embed(texts)


def test_memo_gives_the_same_vectors_and_embeds_each_text_once(fake_embedder):
    counting = Counting(fake_embedder)
    memo = Memo(counting, capacity=3)
    texts = ["a b", "c", "a b", "d e f"]
    assert np.allclose(memo.embed(texts), fake_embedder.embed(texts))
    assert sorted(counting.calls[0]) == ["a b", "c", "d e f"]
    memo.embed(["c", "a b"])
    assert len(counting.calls) == 1
    memo.embed(["g"])  # evicts the oldest
    assert len(memo.vectors) == 3
    assert memo.embed([]).shape[0] == 0


def test_altered_weights_are_refused(monkeypatch):
    monkeypatch.setattr(kg.extract.embed, "MODEL_SHA256", "0" * 64)
    with pytest.raises(ModelError, match="sha256"):
        MiniLM()


@pytest.mark.model
def test_real_model_loads_offline_and_embeds(real_model):
    assert os.environ["HF_HUB_OFFLINE"] == "1"
    vectors = real_model.embed(["stochastic gradient descent", "SGD", "protein folding"])
    assert vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]
