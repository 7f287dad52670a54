"""kg eval's link figures and baselines, on graphs small enough to check by hand."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from kg.cli import cli
from kg.evaluate.links import keyword_pairs, knn_edges, link_figures

PAPERS = ["a", "b", "c", "d"]
AREAS = {"a": "rl", "b": "rl", "c": "cv", "d": "cv"}


def test_figures_of_a_hand_made_graph():
    edges = [("a", "b", 2.0), ("a", "c", 1.0), ("b", "c", 0.5)]
    keywords = {"a": ["Grokking", "x"], "b": ["grokking"], "c": ["y"], "d": ["Y"]}
    f = link_figures("kg", PAPERS, edges, AREAS, keywords)
    assert (f.edges, f.coverage) == (3, 0.75)
    # a: b (same), c (other) -> 1/2; b: a (same), c -> 1/2; c: a, b -> 0; d: none -> 0
    assert f.area_precision == pytest.approx((0.5 + 0.5 + 0 + 0) / 4)
    assert (f.keyword_pairs, f.keyword_pair_recall) == (2, 0.5)  # (a, b) joined, (c, d) not
    assert f.density == pytest.approx(3 / 6)


def test_a_keyword_used_by_six_papers_is_not_rare():
    common = {p: ["LLM"] for p in "abcdef"}
    assert keyword_pairs(common) == set()
    assert len(keyword_pairs({p: ["LLM"] for p in "abcde"})) == 10


def test_knn_baseline_has_exactly_the_edges_asked_for_and_keeps_the_strongest():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 5))
    S = X @ X.T
    ids = [f"p{i:02d}" for i in range(12)]
    for n in (1, 7, 20, 40):
        edges = knn_edges(S, ids, n)
        assert len(edges) == n and len({(a, b) for a, b, _ in edges}) == n
        assert all(a < b for a, b, _ in edges)
    best = max(((i, j) for i in range(12) for j in range(i + 1, 12)), key=lambda ij: S[ij])
    assert (ids[best[0]], ids[best[1]]) in {(a, b) for a, b, _ in knn_edges(S, ids, 1)}


def test_kg_eval_prints_link_figures_and_a_baseline(fake_model, tmp_path):
    texts = [
        "We study offline reinforcement learning with pessimistic value functions.",
        "Offline reinforcement learning suffers from distribution shift in value functions.",
        "We propose a vision transformer for image segmentation of satellite images.",
        "Image segmentation of satellite images with convolutional networks.",
    ]
    gold = tmp_path / "gold.jsonl"
    gold.write_text(
        "\n".join(
            json.dumps({"abstract": t, "primary_area": a, "keywords": k})
            for t, a, k in zip(
                texts,
                ["reinforcement learning"] * 2 + ["optimization"] * 2,
                [["offline RL"], ["offline RL"], ["segmentation"], ["segmentation"]],
                strict=True,
            )
        )
        + "\n"
    )
    result = CliRunner().invoke(cli, ["eval", str(gold), "--baseline", "tfidf", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    systems = [f["system"] for f in report["links"]]
    assert systems == ["kg", "tfidf (same edges)"]
    kg, tfidf = report["links"]
    assert kg["papers"] == 4 and kg["keyword_pairs"] == 2
    assert tfidf["edges"] == kg["edges"]
