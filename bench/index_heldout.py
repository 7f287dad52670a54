"""kg's kept links against the part of the reader's index no model was trained on.

    .venv/bin/python bench/index_heldout.py [--data ../shared/data/icml2024.jsonl]
        [--index bench/reader_labels/icml-index3.jsonl]

The reader's index lists, for each ICML 2024 abstract, the methods and problems a strict
researcher would (``bench/index_rubric.md``), as hashes of their :func:`index_key`. The
first two parts (1,600 abstracts) train the candidate classifier; the third (710) is held
out. This extracts those abstracts as ``kg build`` does (title and abstract) and counts,
over the links each paper keeps, how many name a phrase the index lists as that kind:
typed precision, recall and F1, the papers pooled. Weak mentions are left out, as a strict
reader would not list them.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from candidate_tables import index_gold  # noqa: E402
from train_classifier import index_counts  # noqa: E402

from kg.evaluate.counts import Counts  # noqa: E402
from kg.extract import Extractor, load_model  # noqa: E402
from kg.ingest import read_papers  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared/data/icml2024.jsonl")
    parser.add_argument(
        "--index", type=Path, default=ROOT / "bench/reader_labels/icml-index3.jsonl"
    )
    args = parser.parse_args()
    rows = [json.loads(line) for line in args.index.open(encoding="utf-8") if line.strip()]
    gold = {row["paper"]: index_gold(row) for row in rows}
    papers = [p for p in read_papers([args.data]) if p.id in gold]
    mentions = Extractor(load_model()).extract(papers)
    total = Counts()
    for paper in papers:
        kept = [m for m in mentions[paper.id] if m.selected]
        total += index_counts(kept, gold[paper.id])
    print(
        f"{args.index.name}: {len(papers)} papers, {total.gold} listed, {total.predicted} kept "
        f"links, {total.matched} listed as that kind: P {total.precision:.3f}, "
        f"R {total.recall:.3f}, F1 {total.f1:.3f}"
    )


if __name__ == "__main__":
    main()
