"""The candidate tables the candidate classifier is trained and cross-validated on.

    .venv/bin/python bench/candidate_tables.py [--out /tmp/kg-tables.pkl]

For every abstract of SciERC train and Inspec train (``../shared/data``), the
candidates kg's extractor offers, their feature rows and their labels:

- SciERC: ``method`` (1) when a candidate (or its expansion) matches a gold
  Method entity under kg eval's matching rule, ``problem`` (2) for a gold Task,
  ``other`` (3) for another entity (Metric, Material, OtherScientificTerm: a
  property, a dataset, a quantity), else none (0);
- Inspec: a keyphrase when its Porter-stemmed form equals a gold keyphrase's
  (the benchmark's protocol); untyped;
- with ``--index``, the reader's index of 1,600 ICML 2024 abstracts
  (``reader_labels/icml-index.jsonl`` and ``icml-index2.jsonl``, 800 each: each
  paper's methods and problems as a strict researcher lists them, by
  ``index_rubric.md``; none of the papers is
  among the 300 whose links the reader judged): ``method`` (1) or ``problem``
  (2) when a candidate's (or its expansion's) :func:`index_key` is one the
  index lists as that kind, else none (0). A third part, 710 more abstracts
  (``icml-index3.jsonl``), was tried and not kept (docs/explanation/measuring.md);
  ``--index-file`` tables it.

Embedding every candidate takes a while (about 10 minutes on 2 cores), so the
tables are written once and ``bench/train_classifier.py`` reads them. SciERC's
dev split and Inspec's test split are never read here.
"""

from __future__ import annotations

import argparse
import hashlib
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
from kg.ingest import read_papers  # noqa: E402
from kg.lexicon import variant_key  # noqa: E402
from kg.model import Paper  # noqa: E402
from kg.text import clean  # noqa: E402

DATA = ROOT.parent / "shared" / "data"
# The reader's index, in the two parts it was written in (800 abstracts each).
INDEX = tuple(
    ROOT / "bench" / "reader_labels" / f for f in ("icml-index.jsonl", "icml-index2.jsonl")
)
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


def index_key(text: str) -> str:
    """What the reader's index calls a phrase: its :func:`variant_key`'s sha256, 16 hex
    digits (git holds no text of the shared data)."""
    return hashlib.sha256(variant_key(text).encode()).hexdigest()[:16]


def index_gold(row: dict) -> list[tuple[str, int]]:
    """One indexed paper's (key, kind) pairs, 1 method, 2 problem (a key listed as both is
    a method, as :func:`index_label` reads it)."""
    methods, problems = set(row["methods"]), set(row["problems"])
    return [(k, 1) for k in sorted(methods)] + [(k, 2) for k in sorted(problems - methods)]


def index_label(forms: list[str], methods: set[str], problems: set[str]) -> int:
    """1 method, 2 problem, 0 none: a form whose key the reader listed as that kind."""
    keys = {index_key(f) for f in forms}
    return 1 if keys & methods else 2 if keys & problems else 0


def tables(extractor: Extractor, path: Path, dataset: str) -> list[dict]:
    """One row set per abstract of SciERC or Inspec: features, labels, forms and the gold."""
    gold = load_gold(path)
    others = other_entities(path) if dataset == "scierc" else {}
    if dataset == "scierc":
        gold = [g for g in gold if g.methods is not None]

    def label(i: int, forms: list[list[str]]) -> tuple[list[int], list]:
        g = gold[i]
        if dataset == "scierc":
            gm, gp = g.methods or (), g.problems or ()
            return [scierc_label(f, gm, gp, others.get(g.id, [])) for f in forms], [*gm, *gp]
        keys = {stemmed(k) for k in g.keyphrases or ()}
        return [int(any(stemmed(x) in keys for x in f)) for f in forms], list(g.keyphrases or ())

    papers = [Paper(id=g.id, abstract=g.text, text=clean(g.text), title=g.title) for g in gold]
    return _rows(extractor, dataset, papers, label)


def index_tables(extractor: Extractor, data: Path, index: Sequence[Path] = INDEX) -> list[dict]:
    """The rows of the reader's indexed ICML abstracts; ``gold`` holds (key, kind) pairs."""
    parts = [
        [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        for path in index
    ]
    by_id = {r["paper"]: r for part in parts for r in part}
    # Part by part, each in the order of icml2024.jsonl: the rows (and so the folds of
    # train_classifier.py) are the same whether the parts are tabled together or apart.
    every = read_papers([str(data / "icml2024.jsonl")])
    ids = [{r["paper"] for r in part} for part in parts]
    papers = [p for part in ids for p in every if p.id in part]

    def label(i: int, forms: list[list[str]]) -> tuple[list[int], list]:
        r = by_id[papers[i].id]
        methods, problems = set(r["methods"]), set(r["problems"])
        return [index_label(f, methods, problems) for f in forms], index_gold(r)

    return _rows(extractor, "index", papers, label)


def _rows(extractor: Extractor, dataset: str, papers: list[Paper], label) -> list[dict]:
    rows = []
    for start in range(0, len(papers), BATCH):
        batch = papers[start : start + BATCH]
        sentence_lists = [paper_sentences(p) for p in batch]
        found = extractor.candidate_tables(batch, sentence_lists)
        for i, (p, sents, t) in enumerate(zip(batch, sentence_lists, found, strict=True)):
            forms = [[c.text] + ([c.expansion] if c.expansion else []) for c in t.candidates]
            y, wanted = label(start + i, forms)
            rows.append(
                {
                    "dataset": dataset,
                    "id": p.id,
                    "table": t,
                    "sentences": sents,
                    "y": np.array(y),
                    "forms": forms,
                    "gold": wanted,
                    "clean": p.text,
                    "text": f"{p.title}. {p.abstract}" if p.title else p.abstract,
                }
            )
        print(f"{dataset}: {start + len(batch)}/{len(papers)}", file=sys.stderr, flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=str(DATA))
    parser.add_argument("--out", default="/tmp/kg-tables.pkl")
    parser.add_argument(
        "--index", action="store_true", help="add the reader's indexed ICML abstracts"
    )
    parser.add_argument(
        "--index-file",
        type=Path,
        action="append",
        help="only these parts of the reader's index, and no SciERC or Inspec rows "
        "(tables to add to others: train_classifier.py --tables A B)",
    )
    args = parser.parse_args()
    start = time.time()
    extractor = Extractor(load_model(), classifier=None)
    data = Path(args.data)
    if args.index and args.index_file:
        parser.error(
            "--index adds the two parts the shipped model learned from; --index-file tables "
            "the parts it names alone"
        )
    if args.index_file:
        rows = index_tables(extractor, data, args.index_file)
    else:
        rows = tables(extractor, data / "scierc_train.jsonl", "scierc")
        rows += tables(extractor, data / "inspec_train.jsonl", "inspec")
    if args.index:
        rows += index_tables(extractor, data)
    with open(args.out, "wb") as f:
        pickle.dump(rows, f)
    print(f"wrote {args.out}: {len(rows)} abstracts in {time.time() - start:.0f}s", file=sys.stderr)


if __name__ == "__main__":
    main()
