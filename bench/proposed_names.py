"""How often a name a paper says it proposes is a gold Method, against the classifier's belief.

    .venv/bin/python bench/proposed_names.py [--data ../shared/data/scierc_train.jsonl]
                                             [--limit 350]

kg types a phrase after "we propose/introduce/call ..." as a method it
proposes. Its confidence is the candidate classifier's probability that the
phrase is a concept at all; for names (GINOP, Dual-MTP) that probability is
too low, and ``kg/extract/select.py`` raises it to the rate printed here for the
doubted ones (classifier probability < 0.5). Reads SciERC's training split,
which the classifier was trained on; the development split stays unread.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kg.evaluate.gold import load_gold  # noqa: E402
from kg.evaluate.matching import same_concept  # noqa: E402
from kg.extract import Extractor, load_model  # noqa: E402
from kg.lexicon import looks_like_name  # noqa: E402
from kg.model import Kind, Paper  # noqa: E402
from kg.text import clean, sentences  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared/data/scierc_train.jsonl")
    ap.add_argument("--limit", type=int, default=350)
    args = ap.parse_args()

    gold = load_gold(args.data, limit=args.limit)
    extractor = Extractor(load_model())
    classifier = extractor.classifier
    assert classifier is not None, "the shipped classifier is missing"
    papers = [Paper(f"g{i}", g.text, clean(g.text), title=g.title) for i, g in enumerate(gold)]
    tables = extractor.candidate_tables(papers, [sentences(p.text) or [p.text] for p in papers])
    rows = []  # (is a name, classifier's concept probability, matches a gold Method)
    for g, table in zip(gold, tables, strict=True):
        entity = 1.0 - classifier.probabilities(table.features)[:, 0]
        for c, p in zip(table.candidates, entity, strict=True):
            if c.proposed and c.cue is Kind.METHOD:
                forms = [c.text] + ([c.expansion] if c.expansion else [])
                hit = any(same_concept(f, m) for f in forms for m in g.methods or ())
                rows.append((any(looks_like_name(w) for w in c.text.split()), p, hit))

    print(f"{len(gold)} abstracts of {args.data.name}: proposed phrases typed as methods")
    print(f"{'':10} {'probability':12} {'n':>4} {'mean prob':>9} {'gold Method':>11}")
    for name in (True, False):
        for low, high in ((0.0, 0.5), (0.5, 1.01)):
            sel = [(p, h) for n, p, h in rows if n is name and low <= p < high]
            if sel:
                probs, hits = np.array(sel).T
                print(
                    f"{'names' if name else 'others':10} [{low:.1f}, {min(high, 1):.1f}){'':3} "
                    f"{len(sel):4d} {probs.mean():9.2f} {hits.mean():11.2f}"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
