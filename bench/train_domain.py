"""Train kg's domain model (``kg/extract/models/domain_model.json``): is a paper about AI?

    .venv/bin/python bench/train_domain.py [--data ../shared/data]

The shipped taxonomy's areas are areas of machine learning, and an abstract
on anything else is still nearest to one of them. This model says when no
area applies (:class:`kg.extract.domain_model.DomainModel`): a logistic
regression on the paper embedding (title and abstract, as ``kg build`` embeds
them), with abstracts of AI venues as one class (ICLR and ICML 2024, and
SciERC's training abstracts from AI conferences of earlier decades) and
Inspec's training abstracts (computing and engineering journals, 1998-2002)
as the other. The 2024 abstracts, SciERC's and Inspec's weigh 1/4, 1/4 and
1/2 of the total, so neither the decade nor the size of a set decides.

Some Inspec abstracts are about AI themselves (neural networks, fuzzy
control), so they are noise in the second class; the regularisation
strength is a round default (C=1), not searched. Five folds, stratified by
set (seed 0): the floor is the highest probability, in steps of 0.05, at
which each AI set keeps at least ``KEEP`` of its abstracts out of fold; the
figures printed and stored in the model's ``info`` are out of fold.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import sys
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kg.evaluate.gold import load_gold  # noqa: E402
from kg.extract import load_model, model_identity  # noqa: E402
from kg.extract.domain_model import DEFAULT_DOMAIN_MODEL, DomainModel  # noqa: E402
from kg.extract.extractor import _document  # noqa: E402
from kg.ingest import read_papers  # noqa: E402
from kg.model import Paper  # noqa: E402
from kg.text import clean  # noqa: E402

C = 1.0
FOLDS = 5
SEED = 0
KEEP = 0.98  # of each AI set's abstracts, out of fold
# name: (class, share of the total weight, its files under --data, read as kg eval's gold)
SETS = {
    "ICLR and ICML 2024": (1, 0.25, ("iclr2024_dev.jsonl", "icml2024.jsonl"), False),
    "SciERC train": (1, 0.25, ("scierc_train.jsonl",), True),
    "Inspec train": (0, 0.5, ("inspec_train.jsonl",), True),
}


def _documents(data: Path, files: tuple[str, ...], gold: bool) -> list[str]:
    """The texts ``kg build`` embeds (title and abstract) of a set's files."""
    if not gold:
        return [_document(p) for p in read_papers([data / f for f in files])]
    return [
        _document(Paper(id=g.id, abstract=g.text, text=clean(g.text), title=g.title))
        for f in files
        for g in load_gold(data / f)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--out", type=Path, default=DEFAULT_DOMAIN_MODEL)
    args = parser.parse_args()
    embedder = load_model()
    vectors, group = [], []
    for g, (_, _, files, gold) in enumerate(SETS.values()):
        texts = _documents(args.data, files, gold)
        vectors.append(np.asarray(embedder.embed(texts), dtype=np.float32))
        group += [g] * len(texts)
    X, group = np.vstack(vectors), np.array(group)
    label = np.array([label for label, _, _, _ in SETS.values()])
    share = np.array([share for _, share, _, _ in SETS.values()])
    y = label[group]
    w = share[group] / np.bincount(group)[group] * len(y)

    p = np.zeros(len(y))
    for train, test in StratifiedKFold(FOLDS, shuffle=True, random_state=SEED).split(X, group):
        fold = LogisticRegression(C=C, max_iter=5000).fit(X[train], y[train], w[train])
        p[test] = fold.predict_proba(X[test])[:, 1]
    ai = [g for g in range(len(SETS)) if label[g] == 1]
    floors = [
        f
        for f in np.arange(0.05, 0.96, 0.05)
        if all(np.mean(p[group == g] >= f) >= KEEP for g in ai)
    ]
    if not floors:
        sys.exit(f"no floor keeps {KEEP:.0%} of every AI set out of fold")
    floor = round(float(max(floors)), 2)
    sizes = {name: int(n) for name, n in zip(SETS, np.bincount(group), strict=True)}
    kept = {name: round(float(np.mean(p[group == g] >= floor)), 4) for g, name in enumerate(SETS)}
    for name, part in kept.items():
        print(f"{name}: {sizes[name]} abstracts, {part:.2%} get fields (out of fold)")
    print(f"floor {floor}")

    final = LogisticRegression(C=C, max_iter=5000).fit(X, y, w)
    model = DomainModel(
        weights=final.coef_[0].astype(np.float32),
        bias=float(final.intercept_[0]),
        floor=floor,
        model=model_identity(embedder).key,
        info={
            "trained": datetime.date.today().isoformat(),
            "data": sizes,
            "data_sha256": {
                f: hashlib.sha256((args.data / f).read_bytes()).hexdigest()
                for _, _, files, _ in SETS.values()
                for f in files
            },
            "kept_out_of_fold": kept,
            "C": C,
        },
    )
    args.out.write_text(model.to_json() + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
