"""The model loader: offline, hash-checked; the memo embeds each text once."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from conftest import Counting

import kg.extract.embed
from kg.errors import ModelError
from kg.extract.embed import INSTALL, Memo, MiniLM, read, verify_model


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
        (lambda m: (m / "onnx").symlink_to(m / "1_Pooling", target_is_directory=True), "onnx"),
        (_replace_weights, "model.safetensors"),
        (lambda m: shutil.rmtree(m), "is missing"),
    ],
    ids=[
        "config",
        "pooling",
        "tokenizer",
        "tokenizer-config",
        "vocab",
        "extra",
        "linked-directory",
        "weights",
        "gone",
    ],
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


def test_the_memo_keeps_the_text_vectors_a_reading_made(fake_embedder):
    counting = Counting(fake_embedder)
    memo = Memo(counting)
    (reading,) = memo.read(["a b. c d."])
    assert np.allclose(reading.vector, fake_embedder.embed(["a b. c d."])[0])
    calls = len(counting.calls)
    memo.embed(["a b. c d."])
    assert len(counting.calls) == calls


def test_an_embedder_without_token_vectors_is_read_word_by_word(fake_embedder):
    (reading,) = read(fake_embedder, ["Graphs, and more graphs."])
    assert reading.offsets.tolist() == [[0, 6], [8, 11], [12, 16], [17, 23]]
    assert np.allclose(reading.tokens[1], fake_embedder.embed(["and"])[0])
    empty = read(fake_embedder, [""])[0].tokens
    assert empty.shape == (0, 384) and empty.dtype == np.float32


def test_the_memo_reads_word_by_word_embedding_each_text_once(fake_embedder):
    counting = Counting(fake_embedder)
    memo = Memo(counting)
    memo.read(["Graphs help graphs."])
    memo.read(["Graphs help graphs."])
    embedded = [t for call in counting.calls for t in call]
    assert sorted(embedded) == sorted(["Graphs help graphs.", "Graphs", "help", "graphs"])


@pytest.mark.model
def test_one_pass_gives_the_text_vector_and_a_vector_for_every_token():
    model = MiniLM()
    sentences = [
        f"Sentence {i} studies {topic} with stochastic gradient methods on large graphs."
        for i, topic in enumerate(["protein folding", "robot control", "image retrieval"] * 12)
    ]
    long_text = " ".join(sentences)  # several hundred tokens: more than one window
    texts = [long_text, "Diffusion models generate images.", ""]
    readings = model.read(texts)
    # The text vector is what embed gives: the first window's mean, normalised.
    assert np.allclose([r.vector for r in readings], model.embed(texts), atol=1e-5)
    long = readings[0]
    # Every token once, in order, to the end of the text, past the first 256.
    assert len(long.tokens) > 300 and long.offsets[-1, 1] == len(long_text)
    assert (np.diff(long.offsets[:, 0]) > 0).all()
    words = model.model.tokenizer(long_text, add_special_tokens=False, return_offsets_mapping=True)
    assert len(long.tokens) == len(words["input_ids"])
    assert long.offsets.tolist() == [list(o) for o in words["offset_mapping"]]
    assert long.tokens.dtype == np.float32
    assert readings[2].tokens.shape == (0, 384)
