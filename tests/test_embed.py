"""The model loader: offline, hash-checked; the memo embeds each text once."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

import kg.extract.embed
from kg.errors import ModelError
from kg.extract.embed import INSTALL, Memo, MiniLM, embed_parts, locate, verify_model


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


@pytest.fixture
def model_copy(tmp_path) -> Path:
    """A copy of the packaged model's directory (the weights linked, not copied)."""
    source = kg.extract.embed.model_dir()
    copy = tmp_path / "model"
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns("model.safetensors"))
    (copy / "model.safetensors").symlink_to(source / "model.safetensors")
    return copy


def _edit_json(path: Path, **changes) -> None:
    data = json.loads(path.read_text())
    data.update(changes)
    path.write_text(json.dumps(data, indent=2))


def _replace_weights(copy: Path) -> None:
    (copy / "model.safetensors").unlink()
    (copy / "model.safetensors").write_bytes(b"\0" * 1024)


@pytest.mark.parametrize(
    "change, named",
    [
        (lambda m: _edit_json(m / "config.json", hidden_act="relu"), "config.json"),
        (
            lambda m: _edit_json(
                m / "1_Pooling" / "config.json",
                pooling_mode_mean_tokens=False,
                pooling_mode_cls_token=True,
            ),
            "1_Pooling/config.json",
        ),
        (lambda m: (m / "tokenizer.json").write_text('{"version": '), "tokenizer.json"),
        (lambda m: (m / "tokenizer_config.json").unlink(), "tokenizer_config.json"),
        (lambda m: (m / "vocab.txt").write_text("[PAD]\n"), "vocab.txt"),
        (lambda m: (m / "added_tokens.json").write_text('{"sgd": 30522}'), "added_tokens.json"),
        (_replace_weights, "model.safetensors"),
        (lambda m: shutil.rmtree(m), "is missing"),
    ],
    ids=["config", "pooling", "tokenizer", "tokenizer-config", "vocab", "extra", "weights", "gone"],
)
def test_any_changed_model_file_is_refused_before_loading(model_copy, change, named, monkeypatch):
    import socket

    def no_network(*args, **kwargs):
        raise AssertionError("kg tried to open a network connection")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    change(model_copy)
    with pytest.raises(ModelError) as error:
        MiniLM(path=model_copy)
    message = str(error.value)
    assert named in message and INSTALL in message and "\n" not in message


def test_the_pinned_hashes_are_those_of_the_installed_model():
    verify_model(kg.extract.embed.model_dir())
    assert kg.extract.embed.MODEL_FILES["model.safetensors"] == kg.extract.embed.MODEL_SHA256


@pytest.mark.model
def test_real_model_loads_offline_and_embeds(real_model):
    assert os.environ["HF_HUB_OFFLINE"] == "1"
    vectors = real_model.embed(["stochastic gradient descent", "SGD", "protein folding"])
    assert vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]


def test_locate_finds_parts_in_order_and_says_which_are_missing():
    text = "Graphs help. We use graphs. Graphs help."
    assert locate(text, ["Graphs help.", "We use graphs.", "Graphs help.", "Trees."]) == [
        (0, 12),
        (13, 27),
        (28, 40),
        None,
    ]
    assert locate(text, ["", "We use graphs."]) == [None, (13, 27)]


def test_without_token_vectors_each_part_is_embedded_alone(fake_embedder):
    texts = ["one two. three four.", "five six."]
    parts = [["one two.", "three four."], []]
    vectors, pooled = embed_parts(fake_embedder, texts, parts)
    assert np.allclose(vectors, fake_embedder.embed(texts))
    assert np.allclose(pooled[0], fake_embedder.embed(parts[0]))
    assert pooled[1].shape == (0, 384)


def test_the_memo_keeps_the_text_vectors_a_parts_pass_made(fake_embedder):
    counting = Counting(fake_embedder)
    memo = Memo(counting)
    memo.embed_parts(["a b. c d."], [["a b.", "c d."]])
    calls = len(counting.calls)
    memo.embed(["a b. c d."])
    assert len(counting.calls) == calls


class _Spy(MiniLM):
    """The real model, counting the texts it embeds on their own."""

    def __init__(self):
        super().__init__()
        self.alone: list[str] = []

    def embed(self, texts):
        self.alone += list(texts)
        return super().embed(texts)


@pytest.mark.model
def test_one_pass_gives_the_text_vector_and_pools_every_part_found():
    model = _Spy()
    sentences = [
        f"Sentence {i} studies {topic} with stochastic gradient methods on large graphs."
        for i, topic in enumerate(["protein folding", "robot control", "image retrieval"] * 12)
    ]
    long_text = " ".join(sentences)  # several hundred tokens: more than one window
    short = "Diffusion models generate images. They denoise step by step."
    texts = [long_text, short]
    parts = [sentences, ["Diffusion models generate images.", "A sentence it does not have."]]
    vectors, pooled = model.embed_parts(texts, parts)
    assert model.alone == ["A sentence it does not have."]
    # The text vector is what embed gives: the first window's mean, normalised.
    assert np.allclose(vectors, model.embed(texts), atol=1e-5)
    assert [len(p) for p in pooled] == [len(sentences), 2]
    assert np.allclose(np.linalg.norm(np.concatenate(pooled), axis=1), 1.0, atol=1e-5)
    assert np.allclose(pooled[1][1], model.embed(["A sentence it does not have."])[0], atol=1e-6)
    # A part far past the first window is read in context: closer to its own
    # sentence than to another topic's.
    last, other = pooled[0][-1], model.embed([sentences[-2], sentences[-1]])
    assert last @ other[1] > last @ other[0]
