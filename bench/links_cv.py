"""Link figures on ICLR 2024 with out-of-fold fields: what kg eval cannot say honestly.

    .venv/bin/python bench/links_cv.py [--data ../shared/data/iclr2024_dev.jsonl]
        [--rule broader=0.3,topic=3 ...] [--min-field-score 0.1 ...] [--weak-floor 0.3 ...]

kg's area model is trained on ``iclr2024_dev.jsonl``, so the fields of those
papers, and every link figure that uses them, are in-sample when ``kg eval``
builds their graph. Here each paper's fields come from an area model trained
(as ``bench/train_fields.py`` trains the shipped one) on the other four of
five folds, calibrated on those folds alone; everything else is kg's build:
extraction (without the author keywords), canonical concepts, the concept
hierarchy, the shared-concept edges by the default rule (or ``--rule``).

With ``--min-field-score`` (repeatable) the fields are chosen at each floor
in turn instead of the extractor's own, and with ``--weak-floor`` the weak
mentions kept at each floor (one extraction at the lowest). It prints kg's
link figures, keyword recall, and the TF-IDF and MiniLM baselines at the same
number of edges, on all papers and on each half (even and odd positions), so
a rule chosen on one half can be read on the other.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.special import softmax
from sklearn.model_selection import StratifiedKFold

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import train_fields  # noqa: E402

from kg.concepts import canonicalize  # noqa: E402
from kg.evaluate.gold import load_gold  # noqa: E402
from kg.evaluate.links import (  # noqa: E402
    embedding_similarity,
    knn_edges,
    link_figures,
    tfidf_similarity,
)
from kg.evaluate.matching import match, unique_gold  # noqa: E402
from kg.evaluate.predictors import KgPredictor  # noqa: E402
from kg.extract import Extractor, load_model  # noqa: E402
from kg.extract import fields as fieldmod  # noqa: E402
from kg.extract.classify import load_classifier  # noqa: E402
from kg.graph import EdgeRule, knowledge_graph  # noqa: E402
from kg.model import Mention, Paper, Role  # noqa: E402
from kg.text import clean, sentences  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "iclr2024_dev.jsonl"
FOLDS = 5


def field_scores(gold, scorer):  # type: ignore[no-untyped-def]
    """Each paper's zero-shot field scores, as the extractor computes them."""
    texts, sentence_lists = [], []
    for g in gold:
        text = clean(g.text)
        texts.append(f"{g.title}. {text}" if g.title else text)
        sentence_lists.append(sentences(text) or [text])
    return fieldmod.paper_scores(texts, sentence_lists, scorer)


def out_of_fold_fields(gold, scores, scorer, settings) -> list[list[tuple[str, float, str]]]:  # type: ignore[no-untyped-def]
    """Each paper's fields from an area model that never saw it."""
    areas, iclr_of = train_fields.kg_areas(scorer.taxonomy)
    doc = np.stack([s.doc for s in scores])
    raw = np.stack([s.raw for s in scores])
    area_raw = scorer.area_raw(raw)
    truth = [g.area for g in gold]
    y = train_fields.kg_labels(truth, area_raw, iclr_of)
    out: list[list[tuple[str, float, str]]] = [[] for _ in gold]
    folds = StratifiedKFold(FOLDS, shuffle=True, random_state=train_fields.SEED)
    for train, test in folds.split(doc, truth):
        model = train_fields.train(doc[train], raw[train], y[train], areas)
        inner = np.zeros((len(train), len(areas)))
        inner_folds = StratifiedKFold(FOLDS, shuffle=True, random_state=train_fields.SEED + 1)
        for a, b in inner_folds.split(doc[train], [truth[i] for i in train]):
            m = train_fields.train(doc[train][a], raw[train][a], y[train][a], areas)
            inner[b] = m.log_scores(doc[train][b], raw[train][b], area_raw[train][b])
        member = np.array([[iclr_of[k] == truth[i] for k in range(len(areas))] for i in train])

        def nll(t: float, inner: np.ndarray = inner, member: np.ndarray = member) -> float:
            p = softmax(inner / t, axis=-1)
            return float(-np.log(np.maximum((p * member).sum(axis=1), 1e-12)).mean())

        t = float(minimize_scalar(nll, bounds=(0.2, 10.0), method="bounded").x)
        fold_scorer = dataclasses.replace(
            scorer, area_model=dataclasses.replace(model, temperature=t)
        )
        for i in test:
            out[i] = fieldmod._choose(
                fold_scorer, scores[i], settings.max_fields, settings.min_field_score
            )
    return out


def parse_rule(text: str) -> EdgeRule:
    values = dict(part.split("=") for part in text.split(",") if part)
    fields = {f.name: f.type for f in dataclasses.fields(EdgeRule)}
    return EdgeRule(
        **{k: (int if fields[k] in (int, "int") else float)(v) for k, v in values.items()}
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--rule", action="append", default=[], help="EdgeRule fields, k=v,...")
    ap.add_argument(
        "--min-field-score",
        action="append",
        type=float,
        default=[],
        help="choose fields at this floor (Settings.min_field_score); repeatable",
    )
    ap.add_argument(
        "--weak-floor",
        action="append",
        type=float,
        default=[],
        help="keep weak mentions at least this likely (the classifier's 'weak'); repeatable",
    )
    args = ap.parse_args()

    gold = [g for g in load_gold(args.data) if g.area]
    papers = [
        Paper(id=f"p{i:05d}", abstract=g.text, text=clean(g.text), title=g.title)
        for i, g in enumerate(gold)
    ]
    model = load_model()
    classifier = load_classifier()
    weak_floors = args.weak_floor or [classifier.thresholds["weak"]]
    # Extract once at the lowest floor; a higher one keeps a subset of the same mentions.
    lowest = {**classifier.thresholds, "weak": min(weak_floors)}
    extractor = Extractor(model, classifier=dataclasses.replace(classifier, thresholds=lowest))
    print(f"extracting {len(papers)} papers ...", file=sys.stderr)
    mentions = extractor.extract(papers)
    # Fields out of fold: neither shipped model that learned from ICLR reads these papers.
    scorer = dataclasses.replace(extractor.field_scorer, area_model=None, domain_model=None)
    scores = field_scores(gold, scorer)
    areas = {p.id: g.area for p, g in zip(papers, gold, strict=True)}
    keywords = {p.id: g.keywords for p, g in zip(papers, gold, strict=True) if g.keywords}
    similarity = {
        "tfidf": tfidf_similarity([p.text for p in papers]),
        "embedding": embedding_similarity(model.embed([p.text for p in papers])),
    }
    floors = args.min_field_score or [extractor.settings.min_field_score]
    for floor in floors:
        settings = dataclasses.replace(extractor.settings, min_field_score=floor)
        print(f"out-of-fold fields at min_field_score {floor} ...", file=sys.stderr)
        oof = out_of_fold_fields(gold, scores, scorer, settings)
        for weak in weak_floors:
            chosen = {
                p.id: tuple(
                    [
                        m
                        for m in mentions[p.id]
                        if m.role is not Role.IN_FIELD and (m.selected or m.score >= weak)
                    ]
                    + [Mention(k, Role.IN_FIELD, round(s, 4), sent) for k, s, sent in fields]
                )
                for p, fields in zip(papers, oof, strict=True)
            }
            concepts, links = canonicalize(chosen, extractor.taxonomy)
            print(
                f"\nmin_field_score {floor}, weak floor {weak}: "
                f"{sum(len(f) for f in oof) / len(oof):.2f} fields/paper, "
                f"{len(links) / len(papers):.2f} links/paper"
            )
            _keyword_recall(papers, gold, chosen, concepts, links, extractor)
            for text in args.rule or [""]:
                _print_links(
                    papers,
                    concepts,
                    links,
                    extractor,
                    parse_rule(text),
                    similarity,
                    areas,
                    keywords,
                )
    return 0


def _print_links(papers, concepts, links, extractor, rule, similarity, areas, keywords) -> None:  # type: ignore[no-untyped-def]
    ids = [p.id for p in papers]
    graph = knowledge_graph(papers, concepts, links, extractor.taxonomy, rule)
    edges = [(e.a, e.b, e.weight) for e in graph.edges]
    print(f"rule {rule}")
    graphs = {"kg": edges}
    graphs |= {f"{k} (same edges)": knn_edges(s, ids, len(edges)) for k, s in similarity.items()}
    for half, chosen in (("all", ids), ("even", ids[0::2]), ("odd", ids[1::2])):
        keep = set(chosen)
        for name, es in graphs.items():
            sub = [e for e in es if e[0] in keep and e[1] in keep]
            f = link_figures(
                name,
                chosen,
                sub if half != "all" else es,
                {k: v for k, v in areas.items() if k in keep},
                {k: v for k, v in keywords.items() if k in keep},
            )
            print(
                f"  {half:4} {name:22} edges {f.edges:6d} coverage {f.coverage:.3f} "
                f"area P@5 {f.area_precision:.3f} kw-pair recall {f.keyword_pair_recall:.3f} "
                f"({f.keyword_pairs}) density {f.density:.4f}"
            )


def _keyword_recall(papers, gold, mentions, concepts, links, extractor) -> None:  # type: ignore[no-untyped-def]
    """Author keywords among each paper's predictions, as ``kg eval`` makes them."""
    predictions = KgPredictor(extractor).predictions(papers, mentions, concepts, links)
    matched = total = 0
    for pred, g in zip(predictions, gold, strict=True):
        matched += match(pred.concepts + pred.fields, g.keywords or ())
        total += len(unique_gold(g.keywords or ()))
    print(f"keyword recall with out-of-fold fields: {matched / total:.3f} ({matched} of {total})")


if __name__ == "__main__":
    sys.exit(main())
