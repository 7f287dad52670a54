"""Shared fixtures: a fast fake embedder for unit tests, real data paths when present."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"
SEEDS = ROOT / "seeds"


class FakeEmbedder:
    """Hashed bag of words: deterministic, instant, and similar texts get similar vectors.

    Stands in for MiniLM in unit tests only; tests marked ``model`` use the real one.
    """

    dim = 384  # as MiniLM, so the shipped classifier accepts the vectors
    # What the extraction cache knows it by: subclasses that only watch it share it.
    fingerprint = "tests.FakeEmbedder: hashed bag of words, 384"

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), np.float32)
        for i, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=4).digest(), "big")
                out[i, h % self.dim] += 1.0
            out[i, 0] += 1e-3  # no zero vectors
        return out / np.linalg.norm(out, axis=1, keepdims=True)


class Counting:
    """An embedder that records the texts of each call it passes on."""

    def __init__(self, inner):
        self.inner, self.calls = inner, []

    def embed(self, texts):
        self.calls.append(list(texts))
        return self.inner.embed(texts)


_USER_TAXONOMY = """\
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix ex: <https://example.org/topics#> .
ex:s a skos:ConceptScheme .
ex:Vision a skos:Concept ; skos:prefLabel "vision"@en ; skos:topConceptOf ex:s ;
    skos:altLabel "images" ; skos:definition "Seeing with cameras." .
ex:Detection%20Stuff a skos:Concept ; skos:prefLabel "object detection" ;
    skos:broader ex:Vision ; skos:scopeNote "Boxes around objects." .
ex:Language a skos:Concept ; skos:prefLabel "language"@en ; skos:topConceptOf ex:s .
"""


@pytest.fixture
def user_taxonomy(tmp_path) -> Path:
    """A small SKOS taxonomy of a user's own: two areas, one narrower topic."""
    path = tmp_path / "mine.ttl"
    path.write_text(_USER_TAXONOMY, encoding="utf-8")
    return path


@pytest.fixture(autouse=True, scope="session")
def _session_cache_dir(tmp_path_factory):
    """Builds made by session and module fixtures cache outside the user's ~/.cache."""
    saved = os.environ.get("KG_CACHE_DIR")
    os.environ["KG_CACHE_DIR"] = str(tmp_path_factory.mktemp("session-cache"))
    yield
    if saved is None:
        del os.environ["KG_CACHE_DIR"]
    else:
        os.environ["KG_CACHE_DIR"] = saved


@pytest.fixture(autouse=True)
def _cache_dir(monkeypatch, tmp_path_factory):
    """Each test's `kg build` caches in an empty directory of its own."""
    monkeypatch.setenv("KG_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


@pytest.fixture(scope="session")
def fake_embedder() -> FakeEmbedder:
    return FakeEmbedder()


@pytest.fixture
def fake_model(monkeypatch, fake_embedder):
    """Commands that load the model (kg build, kg eval) get the fake embedder instead."""
    import kg.build
    import kg.evaluate

    for module in (kg.build, kg.evaluate):
        monkeypatch.setattr(module, "load_model", lambda: fake_embedder)


@pytest.fixture(scope="session")
def real_model():
    """The packaged MiniLM, loaded once per test session."""
    from kg.extract import load_model

    return load_model()


@pytest.fixture(scope="session")
def large_views():
    """A synthetic corpus as large as ICML 2024 (2,600 papers) and its rendered views."""
    from view_graphs import synthetic_graph

    from kg.export import render_views

    g = synthetic_graph(2600, 9000, per_paper=14)
    return g, render_views(g)


@pytest.fixture
def shared_data() -> Path:
    """``../shared/data`` when it exists; the test is skipped otherwise."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"{SHARED_DATA} not present (evaluation data lives outside the repo)")
    return SHARED_DATA


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


class Build:
    """A build in memory (``built``: record, RDF, NetworkX) and on disk (``out``)."""

    def __init__(self, built, out: Path) -> None:
        self.built = built
        self.kg = built.kg
        self.rdf = built.rdf
        self.triples = built.triples
        self.graph = built.graph
        self.out = out


def _build(embedder, out: Path) -> Build:
    from kg.build import BuildRequest, assemble, write

    built = assemble(BuildRequest([SEEDS]), embedder=embedder)
    write(built, out)
    return Build(built, out)


@pytest.fixture(scope="session")
def fake_build(tmp_path_factory, fake_embedder) -> Build:
    """The seeds built with the fake embedder (fast; concepts are rough, the graph is real)."""
    return _build(fake_embedder, tmp_path_factory.mktemp("fake-build"))


@pytest.fixture(scope="session")
def formats_build(tmp_path_factory, fake_embedder) -> Build:
    """tests/fixtures/formats/ built together with the fake embedder: papers with authors,
    venues and identifiers, some of them in several files."""
    from kg.build import BuildRequest, assemble, write

    out = tmp_path_factory.mktemp("formats-build")
    built = assemble(
        BuildRequest([Path(__file__).parent / "fixtures" / "formats"]), embedder=fake_embedder
    )
    write(built, out)
    return Build(built, out)


@pytest.fixture(scope="session")
def seed_build(tmp_path_factory, real_model) -> Build:
    """The seeds built with the real KeyBERT + MiniLM pipeline, once per session."""
    return _build(real_model, tmp_path_factory.mktemp("seed-build"))
