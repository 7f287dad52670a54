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

from kg.defaults import BASELINES
from kg.errors import InputError
from kg.evaluate.gold import GoldPaper, load_gold
from kg.evaluate.links import (
    LinkFigures,
    embedding_similarity,
    knn_edges,
    link_figures,
    tfidf_similarity,
)
from kg.evaluate.predictors import KeyBERTBaseline, KgPredictor, Predictor
from kg.evaluate.report import format_report, report_json
from kg.evaluate.scoring import Report, score
from kg.extract import Extractor, load_model
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
    link_baselines: Sequence[str] = (),
    embedder: Any = None,
) -> Report:
    """Run ``predictor`` on the gold papers' texts and score the result.

    The papers are given without their gold keywords, so a figure that uses
    keywords as gold is measured on a build that does not see them. When the
    predictor builds a graph (kg) and the gold has areas or keywords, the
    graph's links are measured too, and so are the ``link_baselines`` graphs
    ("tfidf", "embedding") at the same number of edges.

    Only the prediction time is in ``Report.seconds`` (not model loading).
    """
    papers = [
        Paper(id=f"gold-{i}", abstract=g.text, text=clean(g.text), title=g.title)
        for i, g in enumerate(gold)
    ]
    start = time.perf_counter()
    predictions = predictor.predict(papers, progress)
    seconds = time.perf_counter() - start
    report = score(predictions, gold, typed=predictor.typed, system=predictor.name)
    graph = getattr(predictor, "graph", None)
    links: tuple[LinkFigures, ...] = ()
    if graph is not None and any(g.area or g.keywords for g in gold):
        links = _link_report(papers, gold, graph, link_baselines, embedder)
    return replace(report, seconds=seconds, gold_path=str(gold_path), links=links)


def _link_report(
    papers: Sequence[Paper],
    gold: Sequence[GoldPaper],
    graph: Any,
    baselines: Sequence[str],
    embedder: Any,
) -> tuple[LinkFigures, ...]:
    ids = [p.id for p in papers]
    areas = {p.id: g.area for p, g in zip(papers, gold, strict=True) if g.area}
    keywords = {p.id: g.keywords for p, g in zip(papers, gold, strict=True) if g.keywords}
    edges = [(e.a, e.b, e.weight) for e in graph.edges]
    figures = [link_figures("kg", ids, edges, areas, keywords)]
    for name in baselines:
        if name == "tfidf":
            similarity = tfidf_similarity([p.text for p in papers])
        elif name == "embedding":
            similarity = embedding_similarity(
                (embedder or load_model()).embed([p.text for p in papers])
            )
        else:
            continue
        baseline = knn_edges(similarity, ids, len(edges))
        figures.append(link_figures(f"{name} (same edges)", ids, baseline, areas, keywords))
    return tuple(figures)


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
        baseline: ``"keybert"`` for plain KeyBERT instead of kg; ``"tfidf"``
            or ``"embedding"`` to measure that baseline's links beside kg's.
        taxonomy_path: Field taxonomy for kg (and its area labels).
    """
    if baseline is not None and baseline not in BASELINES:
        raise InputError(f"unknown baseline {baseline!r}; use one of {', '.join(BASELINES)}")
    gold = load_gold(path, limit)
    if progress:
        progress("loading model", 0, 1)
    model = load_model()
    predictor: Predictor
    if baseline == "keybert":
        # The SentenceTransformer itself, as a plain KeyBERT user would pass it.
        predictor = KeyBERTBaseline(getattr(model, "model", model))
    else:
        predictor = KgPredictor(Extractor(model, load_taxonomy(taxonomy_path)))
    link_baselines = [baseline] if baseline in ("tfidf", "embedding") else []
    report = evaluate_papers(gold, predictor, progress, path, link_baselines, model)
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
        "area accuracy above is in-sample (and so are the link figures, which use the areas); "
        "on papers it did not see (5-fold cross-validation) it scored top-1 "
        f"{info.get('cv_top1')}, top-3 {info.get('cv_top3')} over its ranking; "
        "bench/links_cv.py measures the links with out-of-fold areas"
    )
