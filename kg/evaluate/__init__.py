"""Measure extraction against gold annotations (``kg eval``).

The gold format is in :mod:`kg.evaluate.gold`, the matching rule in
:mod:`kg.evaluate.matching`; predictors (:mod:`kg.evaluate.predictors`: kg
itself, or plain KeyBERT as a baseline) turn papers into predictions, and
:func:`~kg.evaluate.scoring.score` counts them against the gold.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from kg.errors import InputError
from kg.evaluate.gold import GoldPaper, load_gold
from kg.evaluate.predictors import KeyBERTBaseline, KgPredictor, Prediction, Predictor
from kg.evaluate.report import format_report, report_json
from kg.evaluate.scoring import Report, score
from kg.extract import BATCH_SIZE, Extractor, load_model
from kg.model import Paper
from kg.taxonomy import load_taxonomy
from kg.text import clean

__all__ = [
    "evaluate_file",
    "evaluate",
    "evaluate_papers",
    "format_report",
    "report_json",
    "Report",
]


def evaluate_papers(
    gold: Sequence[GoldPaper],
    predictor: Predictor,
    progress: Callable[[str, int, int], None] | None = None,
    gold_path: str | Path = "",
) -> Report:
    """Run ``predictor`` on the gold papers' texts and score the result.

    Only the prediction time is in ``Report.seconds`` (not model loading).
    """
    papers = [
        Paper(id=f"gold-{i}", abstract=g.text, text=clean(g.text), title=g.title)
        for i, g in enumerate(gold)
    ]
    predictions: list[Prediction] = []
    start = time.perf_counter()
    for i in range(0, len(papers), BATCH_SIZE):
        predictions += predictor.predict(papers[i : i + BATCH_SIZE])
        if progress:
            progress(f"extracting ({predictor.name})", len(predictions), len(papers))
    seconds = time.perf_counter() - start
    report = score(predictions, gold, typed=predictor.typed, system=predictor.name)
    return replace(report, seconds=seconds, gold_path=str(gold_path))


def evaluate(
    path: str | Path,
    extractor: Any,
    limit: int | None = None,
    *,
    areas: Mapping[str, str] | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> Report:
    """Evaluate a :class:`kg.extract.Extractor` on a gold file.

    Args:
        areas: ``{IRI: label}`` of the areas fields map to; by default the
            targets of the extractor's taxonomy.
    """
    return evaluate_papers(load_gold(path, limit), KgPredictor(extractor, areas), progress, path)


def evaluate_file(
    path: str | Path,
    *,
    baseline: str | None = None,
    taxonomy_path: str | Path | None = None,
    limit: int | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> Report:
    """What ``kg eval`` does: read the gold first, then load the model and score.

    Args:
        baseline: ``"keybert"`` for plain KeyBERT instead of kg.
        taxonomy_path: Field taxonomy for kg (and its area labels).
    """
    gold = load_gold(path, limit)
    if progress:
        progress("loading model", 0, 1)
    model = load_model()
    predictor: Predictor
    if baseline == "keybert":
        # The SentenceTransformer itself, as a plain KeyBERT user would pass it.
        predictor = KeyBERTBaseline(getattr(model, "model", model))
    elif baseline is None:
        predictor = KgPredictor(Extractor(model, load_taxonomy(taxonomy_path)))
    else:
        raise InputError(f"unknown baseline {baseline!r}; the one baseline is 'keybert'")
    report = evaluate_papers(gold, predictor, progress, path)
    if isinstance(predictor, KgPredictor):
        note = _training_data_note(path, predictor.extractor.field_scorer.area_model)
        if note:
            report = replace(report, notes=(*report.notes, note))
    return report


def _training_data_note(path: str | Path, area_model: Any) -> str | None:
    """A warning when the gold file is the one kg's area model was trained on."""
    info = getattr(area_model, "info", None) or {}
    digest = info.get("trained_on_sha256")
    if not digest or hashlib.sha256(Path(path).read_bytes()).hexdigest() != digest:
        return None
    return (
        f"kg's area model was trained on this file ({info.get('script', 'bench/')}), so the "
        "area accuracy above is in-sample; on papers it did not see (5-fold cross-validation) "
        f"it scored top-1 {info.get('cv_top1')}, top-3 {info.get('cv_top3')} over its ranking"
    )
