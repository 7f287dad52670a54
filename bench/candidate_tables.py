"""The candidate tables the candidate classifier is trained and cross-validated on.

    .venv/bin/python bench/candidate_tables.py [--out /tmp/kg-tables.pkl]

For every abstract of SciERC train and Inspec train (``../shared/data``), the
candidates kg's extractor offers, their feature rows and their labels:

- SciERC: ``method`` (1) when a candidate (or its expansion) matches a gold
  Method entity under kg eval's matching rule, ``problem`` (2) for a gold Task,
  ``other`` (3) for another entity (Metric, Material, OtherScientificTerm: a
  property, a dataset, a quantity), else none (0);
- Inspec: a keyphrase when its Porter-stemmed form equals a gold keyphrase's
  (the benchmark's protocol); untyped.

Embedding every candidate takes a while (about 10 minutes on 2 cores), so the
tables are written once and ``bench/train_classifier.py`` reads them. SciERC's
dev split and Inspec's test split are never read here.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kg.evaluate.gold import load_gold  # noqa: E402
from kg.evaluate.keyphrases import stemmed  # noqa: E402
from kg.evaluate.matching import same_concept  # noqa: E402
from kg.extract import Extractor, load_model  # noqa: E402
from kg.extract.extractor import paper_sentences  # noqa: E402
from kg.model import Paper  # noqa: E402
from kg.text import clean  # noqa: E402

DATA = ROOT.parent / "shared" / "data"
BATCH = 64


OTHER_TYPES = ("Metric", "Material", "OtherScientificTerm")


def scierc_label(forms: list[str], *gold: Sequence[str]) -> int:
    """1 method, 2 problem, 3 another entity, 0 none (``gold``: those three lists)."""
    for kind, names in enumerate(gold, start=1):
        if any(same_concept(f, g) for f in forms for g in names):
            return kind
    return 0


def other_entities(path: Path) -> dict[str, list[str]]:
    """SciERC's entities of the other types, by document key."""
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            record = json.loads(line)
            out[str(record["doc_key"])] = [
                e["text"] for e in record.get("entities", []) if e["type"] in OTHER_TYPES
            ]
    return out


def tables(extractor: Extractor, path: Path, dataset: str) -> list[dict]:
    """One row set per abstract: features, labels, candidate forms and the gold."""
    gold = load_gold(path)
    others = other_entities(path) if dataset == "scierc" else {}
    if dataset == "scierc":
        gold = [g for g in gold if g.methods is not None]
    papers = [Paper(id=g.id, abstract=g.text, text=clean(g.text), title=g.title) for g in gold]
    rows = []
    for start in range(0, len(papers), BATCH):
        batch = papers[start : start + BATCH]
        sentence_lists = [paper_sentences(p) for p in batch]
        found = extractor.candidate_tables(batch, sentence_lists)
        for g, sents, t in zip(gold[start : start + BATCH], sentence_lists, found, strict=True):
            forms = [[c.text] + ([c.expansion] if c.expansion else []) for c in t.candidates]
            if dataset == "scierc":
                y = [
                    scierc_label(f, g.methods or (), g.problems or (), others.get(g.id, []))
                    for f in forms
                ]
                wanted = list(g.methods or ()) + list(g.problems or ())
            else:
                keys = {stemmed(k) for k in g.keyphrases or ()}
                y = [int(any(stemmed(x) in keys for x in f)) for f in forms]
                wanted = list(g.keyphrases or ())
            rows.append(
                {
                    "dataset": dataset,
                    "id": g.id,
                    "table": t,
                    "sentences": sents,
                    "y": np.array(y),
                    "forms": forms,
                    "gold": wanted,
                    "text": f"{g.title}. {g.text}" if g.title else g.text,
                }
            )
        print(f"{dataset}: {start + len(batch)}/{len(papers)}", file=sys.stderr, flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=str(DATA))
    parser.add_argument("--out", default="/tmp/kg-tables.pkl")
    args = parser.parse_args()
    start = time.time()
    extractor = Extractor(load_model(), classifier=None)
    data = Path(args.data)
    rows = tables(extractor, data / "scierc_train.jsonl", "scierc")
    rows += tables(extractor, data / "inspec_train.jsonl", "inspec")
    with open(args.out, "wb") as f:
        pickle.dump(rows, f)
    print(f"wrote {args.out}: {len(rows)} abstracts in {time.time() - start:.0f}s", file=sys.stderr)


if __name__ == "__main__":
    main()
