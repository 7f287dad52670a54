"""Train kg's area model (``kg/extract/models/area_model.json``) on ICLR 2024 primary areas.

    .venv/bin/python bench/train_fields.py [--data ../shared/data/iclr2024_dev.jsonl]

Each paper's ICLR ``primary_area`` is mapped to kg's broad areas through the
taxonomy's SKOS mappings (``ontology/fields.ttl``). Several kg areas can map
to one ICLR area (computer vision, NLP, audio and time series are all ICLR's
"representation learning for computer vision, audio, language, and other
modalities"); the paper's label is then the one of those kg areas the
zero-shot scores prefer. The model (see :mod:`kg.area_model`) is two
logistic regressions, on the paper embedding and on the zero-shot field
scores, multiplied with the zero-shot area distribution.

Before training on every paper, the same procedure is cross-validated
(5 folds, stratified, fixed seed): the figures printed and stored in the
model's ``info`` are on papers the fold's model never saw. The calibration
temperature is fitted on those out-of-fold scores. The regularisation
strength is a round default (C=4), not searched.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from scipy.optimize import minimize_scalar
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scipy.special import softmax  # noqa: E402

from kg.evaluate.gold import GoldPaper, load_gold  # noqa: E402
from kg.extract import fields as fieldmod  # noqa: E402
from kg.extract import load_model  # noqa: E402
from kg.extract.area_model import DEFAULT_AREA_MODEL, AreaModel  # noqa: E402
from kg.model import Paper  # noqa: E402
from kg.taxonomy import Taxonomy, load_taxonomy  # noqa: E402
from kg.text import clean, sentences  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "iclr2024_dev.jsonl"
C = 4.0
FOLDS = 5
SEED = 0


def _fit(
    x: np.ndarray, y: np.ndarray, n_areas: int, weight: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    lr = LogisticRegression(C=C, max_iter=5000)
    lr.fit(x, y, sample_weight=weight)
    weights = np.zeros((n_areas, x.shape[1]), dtype=np.float32)
    bias = np.full(n_areas, -30.0, dtype=np.float32)  # an area never seen in training
    weights[lr.classes_] = lr.coef_
    bias[lr.classes_] = lr.intercept_
    return weights, bias


def train(
    doc: np.ndarray,
    raw: np.ndarray,
    y: np.ndarray,
    areas: tuple[str, ...],
    weight: np.ndarray | None = None,
) -> AreaModel:
    """The area model on papers' embeddings, zero-shot scores and kg-area labels."""
    n = len(areas)
    dw, db = _fit(doc, y, n, weight)
    rw, rb = _fit(raw, y, n, weight)
    temp = fieldmod._TEMPERATURE
    return AreaModel(areas, dw, db, rw, rb, zero_shot_temperature=temp, temperature=1.0)


def accuracy(scores: np.ndarray, truth: list[str], iclr_of: list[str]) -> tuple[float, float]:
    top1 = top3 = 0
    for row, gold in zip(scores, truth, strict=True):
        distinct: list[str] = []
        for a in np.argsort(-row, kind="stable"):
            if iclr_of[a] not in distinct:
                distinct.append(iclr_of[a])
        top1 += distinct[0] == gold
        top3 += gold in distinct[:3]
    return top1 / len(truth), top3 / len(truth)


def kg_areas(taxonomy: Taxonomy) -> tuple[tuple[str, ...], list[str]]:
    """kg's broad areas, and the ICLR area each maps to ("" if none)."""
    labels = taxonomy.targets
    areas, iclr_of = [], []
    for t in taxonomy.top_level():
        matches = taxonomy.effective_matches(t.key)
        areas.append(t.key)
        iclr_of.append(labels.get(matches[0][1], "") if matches else "")
    return tuple(areas), iclr_of


def features(
    gold: Sequence[GoldPaper | Paper], scorer: fieldmod.FieldScorer, keywords: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each paper's embedding, zero-shot field scores and zero-shot area scores.

    The text is what ``kg eval`` scores: title, then abstract; with ``keywords``
    the paper's author keywords go between them (an ablation, not what kg does).
    """
    texts, sentence_lists = [], []
    for g in gold:
        text = clean(g.text)
        lead = [g.title or "", "; ".join(g.keywords or ()) if keywords else ""]
        texts.append(". ".join([*(x for x in lead if x), text]))
        sentence_lists.append(sentences(text) or [text])
    scores = fieldmod.paper_scores(texts, sentence_lists, scorer)
    raw = np.stack([s.raw for s in scores])
    return np.stack([s.doc for s in scores]), raw, scorer.area_raw(raw)


def kg_labels(truth: list[str], area_raw: np.ndarray, iclr_of: list[str]) -> np.ndarray:
    """Per paper, of the kg areas that map to its ICLR area, the one zero-shot ranks highest."""
    return np.array(
        [
            max((a for a in range(len(iclr_of)) if iclr_of[a] == t), key=lambda a: area_raw[i, a])
            for i, t in enumerate(truth)
        ]
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--out", type=Path, default=DEFAULT_AREA_MODEL)
    args = ap.parse_args()

    gold = [g for g in load_gold(args.data) if g.area]
    taxonomy = load_taxonomy()
    areas, iclr_of = kg_areas(taxonomy)
    unmapped = sorted({g.area or "" for g in gold} - set(iclr_of))
    if unmapped:
        print(f"no kg area maps to {unmapped}; fix ontology/fields.ttl", file=sys.stderr)
        return 1

    print(f"embedding {len(gold)} papers ...", file=sys.stderr)
    scorer = fieldmod.FieldScorer.from_taxonomy(taxonomy, load_model(), area_model=None)
    doc, raw, area_raw = features(gold, scorer)
    truth = [g.area or "" for g in gold]
    y = kg_labels(truth, area_raw, iclr_of)

    folds = StratifiedKFold(FOLDS, shuffle=True, random_state=SEED)
    oof = np.zeros((len(gold), len(areas)))
    for fit, held in folds.split(doc, truth):
        model = train(doc[fit], raw[fit], y[fit], areas)
        oof[held] = model.log_scores(doc[held], raw[held], area_raw[held])
    zero_shot = accuracy(area_raw, truth, iclr_of)
    top1, top3 = accuracy(oof, truth, iclr_of)

    # Calibration: probability of the true ICLR area (summed over its kg areas).
    member = np.array([[iclr_of[a] == t for a in range(len(areas))] for t in truth])

    def nll(temperature: float) -> float:
        p = softmax(oof / temperature, axis=-1)
        return float(-np.log(np.maximum((p * member).sum(axis=1), 1e-12)).mean())

    temperature = float(minimize_scalar(nll, bounds=(0.2, 10.0), method="bounded").x)
    p = softmax(oof / temperature, axis=-1)
    best = p.max(axis=1)
    right = member[np.arange(len(gold)), p.argmax(axis=1)]
    bins = [(lo, hi) for lo, hi in ((0, 0.4), (0.4, 0.6), (0.6, 0.8), (0.8, 1.01))]

    print(f"{len(gold)} papers, {FOLDS}-fold cross-validation (top-3: distinct ICLR areas)")
    print(f"  zero-shot only      top-1 {zero_shot[0]:.3f}  top-3 {zero_shot[1]:.3f}")
    print(f"  with the area model top-1 {top1:.3f}  top-3 {top3:.3f}")
    print(f"  calibration temperature {temperature:.2f}; top area's probability vs accuracy:")
    for lo, hi in bins:
        sel = (best >= lo) & (best < hi)
        if sel.any():
            print(
                f"    p in [{lo:.1f}, {min(hi, 1):.1f}): {sel.sum():4d} papers, "
                f"mean p {best[sel].mean():.2f}, accuracy {right[sel].mean():.2f}"
            )

    model = train(doc, raw, y, areas)
    digest = hashlib.sha256(args.data.read_bytes()).hexdigest()
    info = {
        "trained_on": args.data.name,
        "trained_on_sha256": digest,
        "papers": len(gold),
        "trained": datetime.date.today().isoformat(),
        "cv_top1": round(top1, 4),
        "cv_top3": round(top3, 4),
        "cv_zero_shot_top1": round(zero_shot[0], 4),
        "cv_zero_shot_top3": round(zero_shot[1], 4),
        "C": C,
        "script": "bench/train_fields.py",
    }
    model = AreaModel(
        model.areas,
        model.doc_weights,
        model.doc_bias,
        model.raw_weights,
        model.raw_bias,
        zero_shot_temperature=model.zero_shot_temperature,
        temperature=round(temperature, 4),
        info=info,
    )
    args.out.write_text(model.to_json() + "\n", encoding="utf-8")
    print(f"wrote {args.out} ({args.out.stat().st_size // 1024} KiB)")
    print(json.dumps(info))
    return 0


if __name__ == "__main__":
    sys.exit(main())
