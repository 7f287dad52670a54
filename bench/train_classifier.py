"""Train kg's candidate classifier on SciERC, Inspec and the reader's index, with 5-fold CV.

    .venv/bin/python bench/candidate_tables.py --index  # once: candidates, features, labels
    .venv/bin/python bench/train_classifier.py [--tables /tmp/kg-tables.pkl]  # the shipped model

Two models over the same features (:mod:`kg.extract.classify`): *concept*, a
logistic regression (is the candidate a keyphrase of its abstract: a SciERC
Method or Task entity, an Inspec keyphrase, or a method or problem of the
reader's index), and *kind*, a network with one hidden layer of ``--hidden``
ReLUs (method, problem or another kind of term, from SciERC's entities and the
reader's index; ``--hidden 0``: a softmax regression). Each dataset weighs the
same in both models, whatever its size, the reader's index ``--index-weight``
times as much (the kind model keeps those weights on the typed candidates).

The decision thresholds (per kind, and the floor of weak mentions) are chosen
by 5-fold cross-validation over abstracts: each fold's model runs kg's own
selection (:func:`kg.extract.select.classified`, ``select_mentions``,
``weak_mentions``) on the abstracts it did not see, and the thresholds that
maximise the mean of SciERC's Method+Task F1 (every link, weak ones included)
and Inspec's keyphrase F1@10 (with ``--objective reader``, and the reader's
index's typed F1, every link counted) are kept, among those whose SciERC precision is
at least ``MIN_PRECISION`` (precision first); thresholds within ``TIE`` of the
best objective count as tied, and of those the strictest kind threshold wins
(then the one keeping fewest links).
The figures printed are out of fold.
SciERC dev and Inspec's test split are never read. The head-word kind prior
(:mod:`kg.extract.head_prior`) is rebuilt inside each fold from the training
abstracts' SciERC spans, a training abstract's own spans left out. Writes
``kg/extract/models/candidate_classifier.json``.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import pickle
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold
from sklearn.neural_network import MLPClassifier

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
sys.path.insert(0, str(ROOT))

from kg.evaluate.counts import Counts  # noqa: E402
from kg.evaluate.gold import load_gold  # noqa: E402
from kg.evaluate.keyphrases import at_k  # noqa: E402
from kg.evaluate.matching import Predicted, match, unique_gold  # noqa: E402
from kg.extract.classify import (  # noqa: E402
    FEATURE_NAMES,
    HAND,
    CandidateClassifier,
    Layer,
    features,
)
from kg.extract.embed import EMBEDDING_DIM  # noqa: E402
from kg.extract.extractor import Settings  # noqa: E402
from kg.extract.head_prior import PRIOR_FEATURES, HeadPrior  # noqa: E402
from kg.extract.select import classified, select_mentions, weak_mentions  # noqa: E402
from kg.lexicon import head  # noqa: E402
from kg.model import Kind  # noqa: E402
from kg.text import clean  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from candidate_tables import index_key  # noqa: E402
from head_kinds import spans_by_doc  # noqa: E402

KIND_GRID = (0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5)
OTHER_GRID = (0.0, 0.25, 0.5, 1.0)
WEAK_GRID = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1.01)  # 1.01: no weak mentions at all
# Precision first: thresholds are chosen among those whose out-of-fold SciERC
# precision, every link counted, is at least this (precision first: what kg aims for).
MIN_PRECISION = 0.7
# Thresholds whose objective is within this of the best are as good (the folds'
# noise: repeated variants moved it by up to 0.004); of those, the strictest kind
# threshold is chosen, then the fewest links (precision first: fewer concepts
# where the evidence is weak).
TIE = 0.005
# The kind model: a network with one hidden layer of this many ReLUs, its weight decay and
# how many epochs it is trained for (a fixed number: the result does not depend on when an
# early stop would fire).
HIDDEN = 64
KIND_ALPHA = 1e-2
KIND_EPOCHS = 60


def refeatured(rows: list[dict], data: Path) -> list[dict]:
    """The rows with their feature columns recomputed by today's :func:`features`.

    The tables keep each candidate's embedding and its vector in context (the
    slow part) as the last columns, so a change to the hand features needs no
    new tables.
    """
    texts = {
        (name, g.id): clean(g.text)
        for name in ("scierc", "inspec")
        for g in load_gold(data / f"{name}_train.jsonl")
    }
    out = []
    for r in rows:
        t = r["table"]
        vectors = t.features[:, HAND : HAND + EMBEDDING_DIM]
        context = t.features[:, HAND + EMBEDDING_DIM :]
        text = r["clean"] if "clean" in r else texts[(r["dataset"], r["id"])]
        X = features(t.candidates, t.relevance, vectors, context, text, len(r["sentences"]))
        out.append({**r, "table": dataclasses.replace(t, features=X)})
    return out


_PRIOR_COLUMNS = [FEATURE_NAMES.index(f) for f in PRIOR_FEATURES]


def with_prior(
    rows: list[dict], spans: dict[str, list[tuple[str, str]]], trained: set[str]
) -> list[dict]:
    """The rows with their head-prior columns from the SciERC spans of ``trained`` only.

    A SciERC row among ``trained`` reads the counts less its own abstract's
    spans (leave one out), so no row's features know its own labels; every
    other row reads the counts of ``trained``.
    """
    prior = HeadPrior.from_spans(s for doc in trained for s in spans[doc])
    out = []
    for r in rows:
        own = spans[r["id"]] if r["dataset"] == "scierc" and r["id"] in trained else ()
        p = prior.without(own)
        t = r["table"]
        X = t.features.copy()
        if t.candidates:
            X[:, _PRIOR_COLUMNS] = [p.features(head(c.expansion or c.text)) for c in t.candidates]
        out.append({**r, "table": dataclasses.replace(t, features=X)})
    return out


def scierc_ids(rows: list[dict]) -> set[str]:
    return {r["id"] for r in rows if r["dataset"] == "scierc"}


def kind_hits(
    clf: CandidateClassifier, rows: list[dict], dataset: str = "scierc"
) -> tuple[int, int]:
    """How many of the rows' typed candidates of ``dataset`` the kind model types right, of
    how many."""
    typed = [
        (r["table"].features[r["y"] > 0], r["y"][r["y"] > 0])
        for r in rows
        if r["dataset"] == dataset
    ]
    if not typed:
        return 0, 0
    X = np.vstack([x for x, _ in typed])
    y = np.concatenate([y for _, y in typed])
    kind = np.argmax(clf.kind_scores(clf.standardised(X)), axis=1) + 1
    return int((kind == y).sum()), len(y)


def fit(
    rows: list[dict], C: float, index_weight: float = 1.0, hidden: int = HIDDEN
) -> CandidateClassifier:
    """The concept model (a logistic regression) and the kind model (a network with
    ``hidden`` ReLUs, or a softmax regression when ``hidden`` is 0) on ``rows``."""
    X = np.vstack([r["table"].features for r in rows])
    y = np.concatenate([r["y"] for r in rows])
    dataset = np.concatenate([np.full(len(r["y"]), r["dataset"]) for r in rows])
    k = HAND
    mean = X[:, :k].mean(axis=0)
    scale = X[:, :k].std(axis=0) + 1e-6
    Xs = X.copy()
    Xs[:, :k] = (Xs[:, :k] - mean) / scale
    # Each dataset weighs the same in the concept model, the reader's index ``index_weight``
    # times as much.
    names, sizes = np.unique(dataset, return_counts=True)
    share = {n: len(dataset) / (len(names) * c) for n, c in zip(names, sizes, strict=True)}
    share["index"] = share.get("index", 0.0) * index_weight
    weight = np.array([share[d] for d in dataset])
    # A keyphrase: an Inspec keyphrase, or a SciERC Method or Task (not another entity).
    inspec = dataset == "inspec"
    positive = (y == 1) | (y == 2) | (inspec & (y > 0))
    concept = LogisticRegression(C=C, max_iter=3000).fit(Xs, positive, sample_weight=weight)
    typed = ~inspec & (y > 0)
    return CandidateClassifier(
        concept=Layer.of(concept.coef_[0][:, None], concept.intercept_[:1]),
        kind=kind_layers(Xs[typed], y[typed], weight[typed], C, hidden),
        mean=mean.astype(np.float32),
        scale=scale.astype(np.float32),
        thresholds={"method": 0.5, "problem": 0.5},
        trained_on="",
    )


def kind_layers(
    X: np.ndarray, y: np.ndarray, weight: np.ndarray, C: float, hidden: int
) -> tuple[Layer, ...]:
    """The kind model's layers, trained on the typed rows (``y`` 1 method, 2 problem, 3
    another kind of term). A network learns the kinds better than a softmax regression
    (docs/explanation/measuring.md), with weight decay ``KIND_ALPHA`` and a fixed seed."""
    if hidden == 0:
        model = LogisticRegression(C=C, max_iter=3000).fit(X, y, sample_weight=weight)
        order = [list(model.classes_).index(k) for k in (1, 2, 3)]
        return (Layer.of(model.coef_[order].T, model.intercept_[order]),)
    net = MLPClassifier(
        hidden_layer_sizes=(hidden,),
        alpha=KIND_ALPHA,
        batch_size=512,
        max_iter=KIND_EPOCHS,
        n_iter_no_change=KIND_EPOCHS,  # no stop on a flat training loss either
        random_state=0,
    )
    with warnings.catch_warnings():  # a fixed number of epochs, not convergence
        warnings.simplefilter("ignore", ConvergenceWarning)
        net.fit(X, y, sample_weight=weight)
    if net.n_iter_ != KIND_EPOCHS:
        raise ValueError(f"the kind network stopped after {net.n_iter_} epochs")
    if list(net.classes_) != [1, 2, 3]:
        raise ValueError(f"the kind model needs all three kinds, got {list(net.classes_)}")
    return tuple(Layer.of(w, b) for w, b in zip(net.coefs_, net.intercepts_, strict=True))


def linked(clf: CandidateClassifier, row: dict) -> tuple[list, list]:
    """The mentions kg would keep for one abstract, and its weak mentions."""
    s = Settings()
    scored = classified(row["table"], clf)
    limits = {Kind.METHOD: s.max_methods, Kind.PROBLEM: s.max_problems}
    kept = select_mentions(scored, row["sentences"], limits, s.min_relevance)
    return kept, weak_mentions(scored, row["sentences"], kept, floor=min(WEAK_GRID))


def figures(clf: CandidateClassifier, rows: list[dict]) -> dict[float, dict[str, Counts]]:
    """Out-of-fold counts at every weak floor of :data:`WEAK_GRID`."""
    out = {
        wf: {"scierc": Counts(), "inspec@5": Counts(), "inspec@10": Counts(), "index": Counts()}
        for wf in WEAK_GRID
    }
    for r in rows:
        kept, weak = linked(clf, r)
        for wf, acc in out.items():
            mentions = kept + [m for m in weak if m.score >= wf]
            if r["dataset"] == "scierc":
                preds = [
                    Predicted((m.text, m.expansion) if m.expansion else (m.text,)) for m in mentions
                ]
                acc["scierc"] += Counts(
                    1, len(unique_gold(r["gold"])), len(preds), match(preds, r["gold"])
                )
            elif r["dataset"] == "index":
                acc["index"] += index_counts(mentions, r["gold"])
            else:
                ranked = [m.text for m in sorted(mentions, key=lambda m: -m.score)]
                acc["inspec@5"] += at_k(ranked, r["gold"], 5)
                acc["inspec@10"] += at_k(ranked, r["gold"], 10)
    return out


def index_counts(mentions: list, gold: list[tuple[str, int]]) -> Counts:
    """Typed matches against the reader's index: a mention whose text's or expansion's key
    the reader listed as the mention's kind."""
    kinds = {Kind.METHOD: 1, Kind.PROBLEM: 2}
    wanted, found, predicted = set(gold), set(), 0
    for m in mentions:
        if m.kind in kinds:
            predicted += 1
            found |= {(index_key(f), kinds[m.kind]) for f in (m.text, m.expansion) if f} & wanted
    return Counts(1, len(wanted), predicted, len(found))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", nargs="+", default=["/tmp/kg-tables.pkl"])
    parser.add_argument(
        "--out", default=str(ROOT / "kg" / "extract" / "models" / "candidate_classifier.json")
    )
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--C", type=float, default=0.5)
    parser.add_argument(
        "--hidden", type=int, default=HIDDEN, help="the kind network's ReLUs (0: a softmax)"
    )
    parser.add_argument("--min-precision", type=float, default=MIN_PRECISION)
    parser.add_argument(
        "--index-weight", type=float, default=1.0, help="the reader's index against a dataset"
    )
    parser.add_argument(
        "--objective",
        choices=("benchmarks", "reader"),
        default="reader",
        help="thresholds by SciERC F1, Inspec F1@10 and the reader's index's F1, or by the "
        "first two only",
    )
    args = parser.parse_args()

    start = time.time()
    rows = []
    for path in args.tables:
        with open(path, "rb") as f:
            rows += refeatured(pickle.load(f), args.data)
    print(f"{len(rows)} abstracts, {sum(len(r['y']) for r in rows)} candidates", file=sys.stderr)
    if args.objective == "reader" and not any(r["dataset"] == "index" for r in rows):
        sys.exit("--objective reader needs the reader's index: candidate_tables.py --index")

    # one threshold for both kinds (they came out close whenever tried apart)
    grid = [(t, t, ow) for t, ow in itertools.product(KIND_GRID, OTHER_GRID)]
    totals: dict[tuple[float, float, float, float], dict[str, Counts]] = {}
    spans = spans_by_doc(args.data / "scierc_train.jsonl")
    folds = KFold(5, shuffle=True, random_state=0).split(rows)
    right = typed = index_right = index_typed = 0
    for n, (train_idx, test_idx) in enumerate(folds, start=1):
        trained = scierc_ids([rows[i] for i in train_idx])
        fold_rows = with_prior(rows, spans, trained)
        clf = fit([fold_rows[i] for i in train_idx], args.C, args.index_weight, args.hidden)
        held = [fold_rows[i] for i in test_idx]
        hits, n_typed = kind_hits(clf, held)
        right, typed = right + hits, typed + n_typed
        hits, n_typed = kind_hits(clf, held, "index")
        index_right, index_typed = index_right + hits, index_typed + n_typed
        for tm, tp, ow in grid:
            at = clf.with_thresholds({"method": tm, "problem": tp}, ow)
            for wf, got in figures(at, held).items():
                acc = totals.setdefault((tm, tp, wf, ow), {k: Counts() for k in got})
                for k, c in got.items():
                    acc[k] += c
        print(f"fold {n}/5 done, {time.time() - start:.0f}s", file=sys.stderr, flush=True)

    def objective(item: tuple) -> tuple[bool, float]:
        (t_kind, _, t_weak, _), t = item
        # A weak mention is one kg was less sure of than a kept one, so its floor is
        # at least the kind threshold (here every weak mention counts; in a graph
        # only those another paper also mentions are linked).
        allowed = t["scierc"].precision >= args.min_precision and t_weak >= t_kind
        scores = [t["scierc"].f1, t["inspec@10"].f1]
        if args.objective == "reader":
            scores.append(t["index"].f1)
        return allowed, sum(scores) / len(scores)

    # If no thresholds reach the precision floor, the best of all are taken.
    allowed = [item for item in totals.items() if objective(item)[0]] or list(totals.items())
    top = max(objective(item)[1] for item in allowed)
    tied = [item for item in allowed if objective(item)[1] >= top - TIE]
    (tm, tp, wf, ow), best = min(
        tied,
        key=lambda item: (
            -item[0][0],
            item[1]["scierc"].predicted + item[1]["inspec@10"].predicted,
            -objective(item)[1],
        ),
    )
    summary = (
        f"SciERC train Method+Task P {best['scierc'].precision:.3f} R {best['scierc'].recall:.3f} "
        f"F1 {best['scierc'].f1:.3f}; Inspec train F1@5 {best['inspec@5'].f1:.3f} "
        f"F1@10 {best['inspec@10'].f1:.3f}"
    )
    if index_typed:
        i = best["index"]
        summary += f"; reader's index P {i.precision:.3f} R {i.recall:.3f} F1 {i.f1:.3f}"
    print(
        f"kind accuracy out of fold: {right / typed:.3f} of {typed} typed candidates",
        file=sys.stderr,
    )
    if index_typed:
        print(
            f"kind accuracy on the reader's index: {index_right / index_typed:.3f} of "
            f"{index_typed}",
            file=sys.stderr,
        )
    print(
        f"out of fold at method {tm}, problem {tp}, weak floor {wf}, other weight {ow}: {summary}",
        file=sys.stderr,
    )
    for (a, b, c, d), t in sorted(totals.items(), key=objective, reverse=True)[:20]:
        print(
            f"  {a} {b} {c} {d}: SciERC P {t['scierc'].precision:.3f} F1 {t['scierc'].f1:.3f}, "
            f"links {t['scierc'].predicted + t['inspec@10'].predicted}, "
            f"Inspec F1@10 {t['inspec@10'].f1:.3f}, index P {t['index'].precision:.3f} "
            f"F1 {t['index'].f1:.3f}",
            file=sys.stderr,
        )

    final = fit(with_prior(rows, spans, scierc_ids(rows)), args.C, args.index_weight, args.hidden)
    n = {d: sum(r["dataset"] == d for r in rows) for d in ("scierc", "inspec", "index")}
    sources = [
        f"SciERC train ({n['scierc']} abstracts, Method/Task entities)",
        f"Inspec train ({n['inspec']} abstracts, keyphrases)",
    ]
    if n["index"]:
        sources.append(
            f"the reader's index of {n['index']} ICML 2024 abstracts (weight {args.index_weight})"
        )
    sources_text = ", ".join(sources[:-1]) + " and " + sources[-1]
    kind_model = (
        f"a network of {args.hidden} ReLUs (weight decay {KIND_ALPHA}, {KIND_EPOCHS} epochs)"
        if args.hidden
        else f"a softmax regression C={args.C}"
    )
    final = final.with_thresholds(
        {"method": tm, "problem": tp, "weak": wf},
        ow,
        trained_on=(
            f"{sources_text}; concept: a logistic regression C={args.C}, kind: {kind_model}; "
            f"thresholds by 5-fold CV ({summary})"
        ),
    )
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(final.to_json() + "\n", encoding="utf-8")
    print(f"wrote {out} in {time.time() - start:.0f}s", file=sys.stderr)


if __name__ == "__main__":
    main()
