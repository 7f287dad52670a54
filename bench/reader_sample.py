"""Each paper's kept methods and problems, with their feature rows, for a reader to judge.

    .venv/bin/python bench/reader_sample.py INPUT --out DIR [--sample N] [--seed S] [--parts K]
        [--classifier candidate_classifier.json]

Extracts the papers of ``INPUT`` (a random ``N`` of them with ``--sample``) as
kg does and writes, in ``DIR``:

- ``part-1.txt`` ... ``part-K.txt``: each paper's title and abstract, then its
  kept method and problem mentions (role, confidence, phrase), for a reader to
  judge with ``bench/reader_rubric.md``;
- ``rows.jsonl`` and ``features.npy``: one row per mention (paper id, phrase,
  role, confidence, rank) and its feature vector (:func:`link_features`), in
  the same order, for ``bench/train_reader.py``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import textwrap
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kg.extract import Extractor, load_model  # noqa: E402
from kg.extract.classify import load_classifier  # noqa: E402
from kg.extract.extractor import paper_sentences  # noqa: E402
from kg.extract.reader import link_features  # noqa: E402
from kg.extract.select import select_links  # noqa: E402
from kg.ingest import read_papers  # noqa: E402
from kg.model import Kind  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("inputs", nargs="+")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--sample", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--parts", type=int, default=1)
    parser.add_argument(
        "--classifier", type=Path, default=None, help="a candidate classifier to try (JSON)"
    )
    args = parser.parse_args()
    papers = read_papers(args.inputs)
    if args.sample:
        papers = random.Random(args.seed).sample(papers, min(args.sample, len(papers)))
    # A classifier on trial has no reader model yet (one is trained on its links' verdicts).
    if args.classifier:
        extractor = Extractor(
            load_model(), classifier=load_classifier(args.classifier), reader=None
        )
    else:
        extractor = Extractor(load_model())
    s = extractor.settings
    limits = {Kind.METHOD: s.max_methods, Kind.PROBLEM: s.max_problems}
    sentence_lists = [paper_sentences(p) for p in papers]
    tables = extractor.candidate_tables(papers, sentence_lists)
    rows, vectors, blocks = [], [], []
    for paper, sents, table in zip(papers, sentence_lists, tables, strict=True):
        scored = extractor.scored(table)
        links = select_links(scored, sents, limits, s.min_relevance)
        block = [f"=== {paper.id}", textwrap.fill(paper.text, 100)]
        if paper.title:
            block.insert(1, f"TITLE: {paper.title}")
        for row, vector, m in link_features(links, scored, table):
            rows.append({"paper": paper.id, **row})
            vectors.append(vector)
            block.append(f"  {m.role.value:17} {m.score:.2f}  {m.text}")
        blocks.append("\n".join(block) + "\n")
    args.out.mkdir(parents=True, exist_ok=True)
    size = -(-len(blocks) // args.parts)
    for k in range(args.parts):
        (args.out / f"part-{k + 1}.txt").write_text(
            "\n".join(blocks[k * size : (k + 1) * size]), encoding="utf-8"
        )
    (args.out / "rows.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8"
    )
    np.save(args.out / "features.npy", np.array(vectors, dtype=np.float32))
    print(f"{len(papers)} papers, {len(rows)} mentions -> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
