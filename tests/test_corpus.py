"""bench/corpus.py: the composed corpus and the statistics it is compared by."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from conftest import SEEDS

from kg.text import sentences

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def corpus():
    spec = importlib.util.spec_from_file_location("corpus", ROOT / "bench" / "corpus.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_composed_abstracts_are_new_and_made_of_related_papers_sentences(corpus):
    records = corpus._records([str(SEEDS)])
    records[0]["keywords"] = ["Clipped-SGD", "heavy-tailed noise"]
    near = corpus.neighbours([r["abstract"] for r in records], 3)
    made = corpus.compose(records, 2 * len(records) + 3, k=3, seed=1)
    openers = [sentences(m["abstract"])[0] for m in made]
    first = {sentences(r["abstract"])[0] for r in records}
    assert set(openers) == first  # every real paper opens composed ones, in turn
    assert len(made) == 2 * len(records) + 3
    assert len({m["abstract"] for m in made}) == len(made)
    assert not {m["abstract"] for m in made} & {r["abstract"] for r in records}
    assert len({m["id"] for m in made}) == len(made)
    owner = {s: i for i, r in enumerate(records) for s in sentences(r["abstract"])}
    for m in made:
        donors = {owner[s] for s in sentences(m["abstract"])}  # every sentence is a real one
        opener = owner[sentences(m["abstract"])[0]]
        groups = [{i, *near[i]} for i in range(len(records))]
        assert any(donors <= g for g in groups)  # all from one paper's related group
        title = records[opener]["title"]
        assert m["title"].startswith(title) if title else "title" not in m
        assert m.get("keywords") == records[opener].get("keywords")  # the opener's record


def test_a_composed_abstract_is_runs_of_sentences_from_as_many_papers_as_asked(corpus):
    records = corpus._records([str(SEEDS)])
    owner = {s: i for i, r in enumerate(records) for s in sentences(r["abstract"])}
    for donors in (2, 3):
        made = corpus.compose(records, len(records), k=3, seed=2, donors=donors)
        for m in made:
            sources = [owner[s] for s in sentences(m["abstract"])]
            runs = [d for i, d in enumerate(sources) if i == 0 or d != sources[i - 1]]
            assert len(runs) == len(set(runs)) <= donors  # each paper in one run
        assert any(len(set(owner[s] for s in sentences(m["abstract"]))) == donors for m in made)
    with pytest.raises(ValueError, match="at least 2"):
        corpus.compose(records, 3, k=3, donors=1)


def test_the_statistics_of_a_build(corpus, tmp_path):
    nodes = [{"id": f"paper:{i}", "type": "paper"} for i in range(4)]
    nodes += [{"id": f"concept:{c}", "type": "concept"} for c in "abc"]
    mentions = [("a", 0), ("a", 1), ("a", 2), ("b", 0), ("b", 1), ("c", 3)]
    edges = [
        {"source": f"concept:{c}", "target": f"paper:{p}", "type": "mentions"} for c, p in mentions
    ]
    edges += [
        {"source": "paper:0", "target": "paper:1", "type": "shares", "shared": ["a", "b"]},
        {"source": "paper:0", "target": "paper:2", "type": "shares", "shared": ["a"]},
        {"source": "paper:1", "target": "paper:2", "type": "shares", "shared": ["a"]},
    ]
    (tmp_path / "graph.json").write_text(json.dumps({"nodes": nodes, "edges": edges}))
    got = corpus.stats(tmp_path)
    assert got["papers"] == 4
    assert got["links per paper"] == pytest.approx(6 / 4)
    assert got["papers per concept"] == pytest.approx(6 / 3)
    assert got["edges per paper"] == pytest.approx(2 * 3 / 4)
    assert got["shared concepts per edge"] == pytest.approx(4 / 3)
