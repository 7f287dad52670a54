"""Train the reader model: how likely a reader judges a kept method or problem link right.

    .venv/bin/python bench/reader_sample.py ../shared/data/icml2024.jsonl \
        --sample 300 --seed 7 --out ICML
    .venv/bin/python bench/reader_sample.py seeds --out SEEDS
    .venv/bin/python bench/train_reader.py ICML --test SEEDS [--out FILE]

Each directory is a ``bench/reader_sample.py`` output (``rows.jsonl``,
``features.npy``); its links' verdicts are read from ``bench/reader_labels/``
(``icml-sample.jsonl``: 2,030 links of those 300 ICML 2024 papers;
``seeds-sample.jsonl``: the seeds' links), a reader's verdict on each by
``bench/reader_rubric.md`` (right, generic or wrong). A verdict names its
phrase by :func:`phrase_key`, so the project's git holds no text of the
shared data. A link is right when the reader says so; generic
and wrong are not. A link no label file judges is left out.

Prints the out-of-fold figures (5 folds grouped by paper, so no paper is
scored by a model that saw it): the area under the ROC curve of the model's
probability and of the classifier's probability (the salience), and for each floor the share of
links kept and the share of them right. ``--test DIR`` scores a held-out
labelled directory the same way (never trained on). ``--out`` writes the
weights trained on all of LABELLED as JSON (no pickle).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kg.extract.reader import ReaderModel  # noqa: E402

LABELS = Path(__file__).resolve().parent / "reader_labels"
C_GRID = (0.003, 0.01, 0.03, 0.1, 0.3)
FLOORS = tuple(round(0.2 + 0.025 * i, 3) for i in range(13))  # 0.2 ... 0.5


def phrase_key(text: str) -> str:
    """What a verdict calls a phrase: the first 16 hex digits of its lower case's sha256."""
    return hashlib.sha256(text.lower().encode()).hexdigest()[:16]


def load(directory: Path) -> tuple[np.ndarray, np.ndarray, list[str], np.ndarray]:
    """Features, labels (1 right), paper ids and classifier probabilities of one labelled sample."""
    rows = [json.loads(line) for line in (directory / "rows.jsonl").open(encoding="utf-8")]
    X = np.load(directory / "features.npy")
    verdicts = {}
    for path in sorted(LABELS.glob("*-sample.jsonl")):
        for line in path.open(encoding="utf-8"):
            if line.strip():
                v = json.loads(line)
                verdicts[(v["paper"], v["phrase"], v["role"])] = v["verdict"]
    keep, y = [], []
    for i, r in enumerate(rows):
        v = verdicts.get((r["paper"], phrase_key(r["text"]), r["role"]))
        if v in ("right", "wrong", "generic"):
            keep.append(i)
            y.append(int(v == "right"))
    papers = [rows[i]["paper"] for i in keep]
    scores = np.array([rows[i]["score"] for i in keep])
    return X[keep], np.array(y), papers, scores


def fit(X: np.ndarray, y: np.ndarray, c: float) -> ReaderModel:
    from sklearn.linear_model import LogisticRegression

    mean, scale = X.mean(axis=0), X.std(axis=0) + 1e-6
    lr = LogisticRegression(C=c, max_iter=5000).fit((X - mean) / scale, y)
    return ReaderModel(lr.coef_[0].astype(np.float32), float(lr.intercept_[0]), mean, scale)


def out_of_fold(X: np.ndarray, y: np.ndarray, papers: list[str], c: float) -> np.ndarray:
    from sklearn.model_selection import GroupKFold

    p = np.zeros(len(y))
    for train, test in GroupKFold(n_splits=5).split(X, y, papers):
        p[test] = fit(X[train], y[train], c).probability(X[test])
    return p


def chosen_floor(y: np.ndarray, p: np.ndarray) -> float:
    """The floor whose kept links best balance precision and recall (F1) of the right ones."""

    def f1(floor: float) -> float:
        kept = p >= floor
        right = (y & kept).sum()
        return 2 * right / (kept.sum() + y.sum()) if right else 0.0

    return max(FLOORS, key=f1)


def report(name: str, y: np.ndarray, p: np.ndarray, classifier: np.ndarray) -> None:
    from sklearn.metrics import roc_auc_score

    print(
        f"{name}: {len(y)} links, {y.mean():.3f} right; AUC model {roc_auc_score(y, p):.3f}, "
        f"classifier {roc_auc_score(y, classifier):.3f}"
    )
    for floor in FLOORS:
        kept = p >= floor
        share = y[kept].mean() if kept.any() else float("nan")
        print(
            f"  floor {floor:.3f}: keeps {kept.mean():.3f} of links, {share:.3f} of them right, "
            f"{(y & kept).sum() / max(1, y.sum()):.3f} of the right ones"
        )
    for low in np.arange(0.0, 1.0, 0.1):
        inside = (p >= low) & (p < low + 0.1)
        if inside.sum() >= 10:
            n, share = inside.sum(), y[inside].mean()
            print(f"  probability {low:.1f}-{low + 0.1:.1f}: {n} links, {share:.3f} right")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("samples", nargs="+", type=Path)
    parser.add_argument("--test", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    parts = [load(d) for d in args.samples]
    X = np.concatenate([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    papers = [paper for p in parts for paper in p[2]]
    classifier = np.concatenate([p[3] for p in parts])
    from sklearn.metrics import log_loss

    best = min(C_GRID, key=lambda c: log_loss(y, out_of_fold(X, y, papers, c)))
    p = out_of_fold(X, y, papers, best)
    report(f"out of fold (C={best})", y, p, classifier)
    print(f"the floor a reader's F1 would choose, out of fold: {chosen_floor(y, p)}")
    model = fit(X, y, best)
    if args.test:
        Xt, yt, _, st = load(args.test)
        report(f"held out {args.test}", yt, model.probability(Xt), st)
    if args.out:
        args.out.write_text(
            model.to_json(
                f"{len(y)} reader-judged links of {len(set(papers))} papers "
                f"(bench/reader_labels), C={best}"
            ),
            encoding="utf-8",
        )


if __name__ == "__main__":
    main()
