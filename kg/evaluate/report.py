"""A :class:`~kg.evaluate.scoring.Report` as a plain-text table or as JSON."""

from __future__ import annotations

import json
from typing import Any

from kg.evaluate.scoring import Report
from kg.words import plural

__all__ = ["format_report", "report_json"]


def format_report(report: Report) -> str:
    """A plain-text table of the report."""
    rate = report.papers / report.seconds if report.seconds else 0.0
    lines = [
        f"kg eval {report.gold_path}: {plural(report.papers, 'paper')}, system {report.system}, "
        f"extraction {report.seconds:.1f} s ({rate:.2f} papers/s)",
        "",
        f"{'figure':20} {'papers':>6} {'gold':>6} {'pred':>6} {'match':>6} "
        f"{'P':>6} {'R':>6} {'F1':>6}",
    ]
    recalls = {"keyword": "keyword recall", "candidate recall": "candidate recall"}
    for name, c in report.figures.items():
        if name in recalls:
            continue
        lines.append(
            f"{name:20} {c.papers:6d} {c.gold:6d} {c.predicted:6d} {c.matched:6d} "
            f"{c.precision:6.3f} {c.recall:6.3f} {c.f1:6.3f}"
        )
    for name, title in recalls.items():
        if name in report.figures:
            c = report.figures[name]
            lines.append(
                f"{title:20} {c.papers:6d} {c.gold:6d} {c.predicted:6d} {c.matched:6d} "
                f"{'':>6} {c.recall:6.3f}"
            )
    if report.areas is not None:
        a = report.areas
        lines += [
            "",
            f"area accuracy    {a.papers} papers: top-1 {a.top1_accuracy:.3f} ({a.top1}), "
            f"top-3 {a.top3_accuracy:.3f} ({a.top3})",
        ]
    if report.links:
        lines += [
            "",
            f"{'links':22} {'papers':>6} {'edges':>7} {'coverage':>8} {'area P@5':>8} "
            f"{'kw-pair recall':>14} {'density':>7}",
        ]
        for f in report.links:
            p5 = "" if f.area_precision is None else f"{f.area_precision:.3f}"
            kw = "" if f.keyword_pair_recall is None else f"{f.keyword_pair_recall:.3f}"
            kw = f"{kw} ({f.keyword_pairs})" if kw else ""
            lines.append(
                f"{f.system:22} {f.papers:6d} {f.edges:7d} {f.coverage:8.3f} {p5:>8} {kw:>14} "
                f"{f.density:7.4f}"
            )
    lines += [f"note: {n}" for n in report.notes]
    return "\n".join(lines) + "\n"


def report_json(report: Report) -> str:
    """The report as JSON, with precision, recall, F1 and accuracies filled in."""
    data: dict[str, Any] = {
        "gold": report.gold_path,
        "system": report.system,
        "papers": report.papers,
        "seconds": round(report.seconds, 3),
        "papers_per_second": round(report.papers / report.seconds, 3) if report.seconds else None,
        "figures": {
            name: {
                "papers": c.papers,
                "gold": c.gold,
                "predicted": c.predicted,
                "matched": c.matched,
                "precision": round(c.precision, 4),
                "recall": round(c.recall, 4),
                "f1": round(c.f1, 4),
            }
            for name, c in report.figures.items()
        },
        "areas": None
        if report.areas is None
        else {
            "papers": report.areas.papers,
            "top1": report.areas.top1,
            "top3": report.areas.top3,
            "top1_accuracy": round(report.areas.top1_accuracy, 4),
            "top3_accuracy": round(report.areas.top3_accuracy, 4),
        },
        "links": [
            {
                "system": f.system,
                "papers": f.papers,
                "edges": f.edges,
                "coverage": round(f.coverage, 4),
                "area_precision_at_5": None
                if f.area_precision is None
                else round(f.area_precision, 4),
                "keyword_pairs": f.keyword_pairs,
                "keyword_pair_recall": None
                if f.keyword_pair_recall is None
                else round(f.keyword_pair_recall, 4),
                "density": round(f.density, 6),
            }
            for f in report.links
        ],
        "notes": list(report.notes),
    }
    return json.dumps(data, indent=2) + "\n"
