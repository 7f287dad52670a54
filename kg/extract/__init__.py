"""Papers -> typed concept mentions: methods, problems and fields, with evidence.

The one stateful object is the loaded model, behind the small
:class:`Embedder` protocol; :class:`Extractor` holds it with the taxonomy and
the learned classifiers, and everything else is a pure function of a paper.

Modules: ``phrases`` and ``acronyms`` (text into phrases), ``candidates``
(phrases with their cues), ``embed`` and ``keywords`` (the model and KeyBERT),
``classify`` (the learned candidate classifier), ``select`` (a paper's
mentions), ``fields`` and ``area_model`` (field scoring), ``extractor``, and
``cache`` (each paper's result on disk, for incremental builds) and ``executors``
(where the per-paper map runs: here, or on a Dask cluster).
"""

from kg.extract.cache import (
    CACHE_FILE,
    CacheStats,
    ExtractionCache,
    default_cache_dir,
    extract_cached,
    extraction_key,
)
from kg.extract.embed import (
    EMBEDDING_DIM,
    MODEL_NAME,
    MODEL_SHA256,
    Embedder,
    Memo,
    MiniLM,
    load_model,
    model_identity,
)
from kg.extract.executors import (
    DASK_EXTRA,
    Cluster,
    DaskExecutor,
    Executor,
    ExtractorSpec,
    LocalExecutor,
    executor_for,
)
from kg.extract.extractor import Extractor, Settings
from kg.extract.keywords import keybert_model, keywords

__all__ = [
    "Extractor",
    "Settings",
    "Embedder",
    "MiniLM",
    "Memo",
    "load_model",
    "model_identity",
    "MODEL_NAME",
    "MODEL_SHA256",
    "EMBEDDING_DIM",
    "keybert_model",
    "keywords",
    "ExtractionCache",
    "CacheStats",
    "CACHE_FILE",
    "default_cache_dir",
    "extract_cached",
    "extraction_key",
    "Executor",
    "LocalExecutor",
    "DaskExecutor",
    "Cluster",
    "ExtractorSpec",
    "executor_for",
    "DASK_EXTRA",
]
