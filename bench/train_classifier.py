"""Train kg's candidate classifier on SciERC's training split.

    .venv/bin/python bench/train_classifier.py [--data ../shared/data/scierc_train.jsonl]

Labels: a candidate is a *method* when it matches a gold Method entity of its
abstract under kg eval's matching rule, a *problem* when it matches a gold
Task, else *none*. The model is a multinomial logistic regression; the
decision thresholds are chosen by 5-fold cross-validation on the training
split to maximise document-level Method+Task F1. SciERC's development split
is never read here: it is what ``kg eval`` reports on. Writes
``kg/extract/models/candidate_classifier.json``.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kg.evaluate.gold import load_gold  # noqa: E402
from kg.evaluate.matching import Predicted, match, same_concept  # noqa: E402
from kg.extract import Extractor, load_model  # noqa: E402
from kg.extract.classify import _HAND_FEATURES, CLASSES, CandidateClassifier  # noqa: E402
from kg.model import Paper  # noqa: E402
from kg.text import clean, sentences  # noqa: E402

GRID = (0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6)
MAX_PER_DOC = 7


def label(forms: list[str], methods: tuple[str, ...], tasks: tuple[str, ...]) -> int:
    for kind, gold in ((1, methods), (2, tasks)):
        if any(same_concept(f, g) for f in forms for g in gold):
            return kind
    return 0


def table(extractor: Extractor, gold) -> list[dict]:
    """Candidates, features and labels of every gold abstract."""
    papers = [Paper(id=g.id, abstract=g.text, text=clean(g.text)) for g in gold]
    rows = []
    for start in range(0, len(papers), 64):
        batch = papers[start : start + 64]
        tables = extractor.candidate_tables(batch, [sentences(p.text) or [p.text] for p in batch])
        for g, t in zip(gold[start : start + 64], tables, strict=True):
            forms = [[c.text] + ([c.expansion] if c.expansion else []) for c in t.candidates]
            rows.append(
                {
                    "X": t.features,
                    "y": np.array([label(f, g.methods or (), g.problems or ()) for f in forms]),
                    "forms": forms,
                    "gold": list(g.methods or ()) + list(g.problems or ()),
                    "proposed": [c.proposed for c in t.candidates],
                }
            )
    return rows


def fit(rows: list[dict], C: float) -> CandidateClassifier:
    X = np.vstack([r["X"] for r in rows])
    y = np.concatenate([r["y"] for r in rows])
    k = len(_HAND_FEATURES)
    mean = X[:, :k].mean(axis=0)
    scale = X[:, :k].std(axis=0) + 1e-6
    Xs = X.copy()
    Xs[:, :k] = (Xs[:, :k] - mean) / scale
    model = LogisticRegression(C=C, max_iter=3000).fit(Xs, y)
    order = [list(model.classes_).index(i) for i in range(len(CLASSES))]
    return CandidateClassifier(
        coef=model.coef_[order].astype(np.float32),
        intercept=model.intercept_[order].astype(np.float32),
        mean=mean.astype(np.float32),
        scale=scale.astype(np.float32),
        thresholds={"method": 0.5, "problem": 0.5},
        trained_on="",
    )


def predictions(clf: CandidateClassifier, row: dict, tm: float, tp: float) -> list[Predicted]:
    """What extraction would output for one abstract at these thresholds (untyped)."""
    if not len(row["forms"]):
        return []
    P = clf.probabilities(row["X"])
    chosen = []
    for i in np.argsort(-(P[:, 1] + P[:, 2]), kind="stable"):
        if P[i, 1] >= tm or P[i, 2] >= tp or row["proposed"][i]:
            chosen.append(Predicted(tuple(row["forms"][i])))
    return chosen[:MAX_PER_DOC]


def f1(clf: CandidateClassifier, rows: list[dict], tm: float, tp: float) -> tuple[float, ...]:
    matched = predicted = gold = 0
    for r in rows:
        preds = predictions(clf, r, tm, tp)
        matched += match(preds, r["gold"])
        predicted += len(preds)
        gold += len({g.casefold() for g in r["gold"]})
    p = matched / predicted if predicted else 0.0
    rec = matched / gold if gold else 0.0
    return (2 * p * rec / (p + rec) if p + rec else 0.0), p, rec


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--data", default=str(ROOT.parent / "shared" / "data" / "scierc_train.jsonl")
    )
    parser.add_argument(
        "--out", default=str(ROOT / "kg" / "extract" / "models" / "candidate_classifier.json")
    )
    parser.add_argument("--C", type=float, default=0.5)
    args = parser.parse_args()

    start = time.time()
    gold = [g for g in load_gold(args.data) if g.methods is not None]
    extractor = Extractor(load_model(), classifier=None)
    rows = table(extractor, gold)
    print(
        f"{len(gold)} abstracts, {sum(len(r['y']) for r in rows)} candidates, "
        f"{time.time() - start:.0f}s",
        file=sys.stderr,
    )

    scores: dict[tuple[float, float], list[float]] = {}
    folds = KFold(5, shuffle=True, random_state=0).split(rows)
    for train_idx, test_idx in folds:
        clf = fit([rows[i] for i in train_idx], args.C)
        for tm, tp in itertools.product(GRID, GRID):
            scores.setdefault((tm, tp), []).append(f1(clf, [rows[i] for i in test_idx], tm, tp)[0])
    (tm, tp), best = max(scores.items(), key=lambda kv: (np.mean(kv[1]), -kv[0][0] - kv[0][1]))
    print(
        f"cross-validated F1 {np.mean(best):.3f} at thresholds method {tm}, problem {tp}",
        file=sys.stderr,
    )

    final = fit(rows, args.C)
    final = CandidateClassifier(
        final.coef,
        final.intercept,
        final.mean,
        final.scale,
        thresholds={"method": tm, "problem": tp},
        trained_on=(
            f"SciERC train split ({len(gold)} abstracts, Method/Task entities), "
            f"logistic regression C={args.C}, thresholds by 5-fold CV (F1 {np.mean(best):.3f})"
        ),
    )
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(final.to_json() + "\n", encoding="utf-8")
    print(f"wrote {out} in {time.time() - start:.0f}s", file=sys.stderr)


if __name__ == "__main__":
    main()
