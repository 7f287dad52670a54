"""The head-word kind table the candidate classifier reads, from SciERC train.

    .venv/bin/python bench/head_kinds.py [--data ../shared/data]

Counts, for every annotated span of SciERC train (Generic spans left out), how
often its head word (:func:`kg.extract.head_prior.span_head`) was a Method, a
Task or another kind of term (Metric, Material, OtherScientificTerm), and
writes ``kg/extract/models/head_kinds.tsv``. ``bench/train_classifier.py``
builds the same counts inside each fold of its cross-validation, so its
figures never see an abstract's own spans.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kg.extract.head_prior import DEFAULT_TABLE, HeadPrior, write_table  # noqa: E402

DATA = ROOT.parent / "shared" / "data"
KIND_OF_TYPE = {
    "Method": "method",
    "Task": "problem",
    "Metric": "other",
    "Material": "other",
    "OtherScientificTerm": "other",
}


def spans_by_doc(path: Path) -> dict[str, list[tuple[str, str]]]:
    """Each SciERC abstract's typed spans, ``(text, kind)``, by document key."""
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            record = json.loads(line)
            out[str(record["doc_key"])] = [
                (e["text"], KIND_OF_TYPE[e["type"]])
                for e in record.get("entities", [])
                if e["type"] in KIND_OF_TYPE
            ]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--out", type=Path, default=DEFAULT_TABLE)
    args = parser.parse_args()
    docs = spans_by_doc(args.data / "scierc_train.jsonl")
    prior = HeadPrior.from_spans(s for spans in docs.values() for s in spans)
    n = sum(len(s) for s in docs.values())
    write_table(
        prior,
        args.out,
        f"Head words of {n} typed spans of SciERC train ({len(docs)} abstracts; Luan et al., "
        "EMNLP 2018, research use): how often each was a method, a problem (Task) or another "
        "term; written by bench/head_kinds.py.",
    )
    print(f"wrote {args.out}: {len(prior.counts)} heads from {n} spans", file=sys.stderr)


if __name__ == "__main__":
    main()
