"""What the links a reader judged wrong are, and whether kg's link features can tell.

    .venv/bin/python bench/reader_sample.py ../shared/data/icml2024.jsonl \
        --sample 300 --seed 7 --out ICML
    .venv/bin/python bench/reader_sample.py seeds --out SEEDS
    .venv/bin/python bench/reader_kinds.py ICML --test SEEDS

A reader judged each wrong link's phrase again by what it is in its paper
(``bench/reader_labels/*-kinds.jsonl``, keyed like the verdicts): a *method* or
*problem* of the paper (so the link has the other kind), a *setting* or model
class, *other* (an objective, property, quantity, dataset, benchmark, metric
or application area), a *side* remark or baseline, *generic*, or a *fragment*.

Prints, for each sample, the wrong links by kind and role; then, out of fold
(5 folds grouped by paper) and on ``--test``, how well a logistic regression
over the reader model's link features finds the swapped kinds and the
settings and other terms (area under the ROC curve), and what its most
confident calls are by the reader's labels: whether retyping or dropping them
would gain more right links than it loses.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from train_reader import LABELS, phrase_key  # noqa: E402

_ROLE_KIND = {"proposes": "method", "usesMethod": "method", "addressesProblem": "problem"}
_OTHER_KIND = {"method": "problem", "problem": "method"}
_C = 0.1
TOP = (20, 40, 80)


def _read(pattern: str) -> dict[tuple[str, str, str], str]:
    out = {}
    for path in sorted(LABELS.glob(pattern)):
        for line in path.open(encoding="utf-8"):
            if line.strip():
                v = json.loads(line)
                out[(v["paper"], v["phrase"], v["role"])] = v.get("kind") or v["verdict"]
    return out


def load(directory: Path) -> tuple[np.ndarray, list[str], list[str], list[str]]:
    """Features, the reader's label of each judged link (right, generic or a wrong kind),
    its role's kind and its paper."""
    verdicts, kinds = _read("*-sample.jsonl"), _read("*-kinds.jsonl")
    rows = [json.loads(line) for line in (directory / "rows.jsonl").open(encoding="utf-8")]
    X = np.load(directory / "features.npy")
    keep, labels, role_kinds, papers = [], [], [], []
    for i, r in enumerate(rows):
        key = (r["paper"], phrase_key(r["text"]), r["role"])
        verdict = verdicts.get(key)
        label = kinds.get(key) if verdict == "wrong" else verdict
        if label:
            keep.append(i)
            labels.append(label)
            role_kinds.append(_ROLE_KIND[r["role"]])
            papers.append(r["paper"])
    return X[keep], labels, role_kinds, papers


def _fit(X: np.ndarray, y: np.ndarray):  # type: ignore[no-untyped-def]
    from sklearn.linear_model import LogisticRegression

    mean, scale = X.mean(axis=0), X.std(axis=0) + 1e-6
    model = LogisticRegression(C=_C, max_iter=5000).fit((X - mean) / scale, y)
    return lambda Z: model.predict_proba((Z - mean) / scale)[:, 1]


def _report(name: str, y: np.ndarray, p: np.ndarray, labels: list[str]) -> None:
    from sklearn.metrics import roc_auc_score

    print(f"  {name}: {y.sum()} of {len(y)}, AUC {roc_auc_score(y, p):.3f}")
    order = np.argsort(-p)
    for k in TOP:
        if k <= len(order):
            top = Counter(labels[i] for i in order[:k])
            print(f"    top {k} (p >= {p[order[k - 1]]:.2f}): {dict(top.most_common())}")


def main() -> None:
    from sklearn.model_selection import GroupKFold

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("sample", type=Path)
    parser.add_argument("--test", type=Path, default=None)
    args = parser.parse_args()
    samples = [args.sample, *([args.test] if args.test else [])]
    data = {d: load(d) for d in samples}
    for d, (_, labels, role_kinds, _) in data.items():
        wrong = Counter(
            (kind, "swapped" if label == _OTHER_KIND[kind] else label)
            for label, kind in zip(labels, role_kinds, strict=True)
            if label not in ("right", "generic")
        )
        print(f"{d}: {len(labels)} judged links, {Counter(labels).most_common()}")
        print(f"  wrong links by role kind and what they are: {dict(wrong.most_common())}")
    X, labels, role_kinds, papers = data[args.sample]
    targets = {
        "swapped kind": lambda ls, ks: np.array(
            [label == _OTHER_KIND[k] for label, k in zip(ls, ks, strict=True)], int
        ),
        "setting or other": lambda ls, ks: np.array(
            [label in ("setting", "other") for label in ls], int
        ),
    }
    for name, target in targets.items():
        y = target(labels, role_kinds)
        p = np.zeros(len(y))
        for train, test in GroupKFold(n_splits=5).split(X, y, papers):
            p[test] = _fit(X[train], y[train])(X[test])
        print(f"{name}, out of fold on {args.sample}:")
        _report(name, y, p, labels)
        if args.test:
            Xt, lt, kt, _ = data[args.test]
            print(f"{name}, trained on {args.sample}, on {args.test}:")
            _report(name, target(lt, kt), _fit(X, y)(Xt), lt)


if __name__ == "__main__":
    main()
