"""Field assignment accuracy against ICLR 2024 primary areas.

Each dev paper's predicted ICLR area is the area its best field maps to
(``skos:closeMatch``/``broadMatch`` in ``ontology/fields.ttl``, inherited from
the broad area when a topic has none); top-3 asks whether the true area is
among the areas of the first three distinct predictions. Also prints the
zero-shot baseline quoted in the data README: nearest primary-area *name* by
MiniLM cosine.

The dev file is split in two fixed halves by a salted hash of the paper id
(the ids' plain sha256 is always even, so it cannot split them). Tuning was
done on the ``tune`` half only; ``holdout`` was looked at for reporting.

Usage::

    .venv/bin/python bench/eval_fields.py [--data ../shared/data/iclr2024_dev.jsonl]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

from kg.embed import load_model
from kg.fields import FieldScorer, assign_fields_batch, load_taxonomy

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "iclr2024_dev.jsonl"
AREA_SCHEME = "https://w3id.org/kg/iclr2024-area/"


def clean(text: str) -> str:
    """Crude LaTeX and spacing clean-up, enough for embedding."""
    text = re.sub(
        r"\\(?:textbf|textit|emph|mathbf|mathcal|mathbb|text|texttt)\{([^}]*)\}", r"\1", text
    )
    text = re.sub(r"\\[A-Za-z]+", " ", text)
    text = text.replace("$", "").replace("{", "").replace("}", "")
    text = re.sub(r"(?<=[a-z0-9)][.!?])(?=[A-Z][a-z])", " ", text)  # "LLMs.To" -> "LLMs. To"
    return re.sub(r"\s+", " ", text).strip()


def sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z0-9])", text) if len(s.split()) >= 3] or [
        text
    ]


def split_of(paper_id: str) -> str:
    digest = hashlib.sha256(("kg-tune:" + paper_id).encode()).hexdigest()
    return "tune" if int(digest, 16) % 2 == 0 else "holdout"


def area_labels(path: Path | None = None) -> dict[str, str]:
    """ICLR area IRI -> primary_area string, from the taxonomy file."""
    import rdflib
    from rdflib.namespace import SKOS

    from kg.fields import DEFAULT_TAXONOMY

    g = rdflib.Graph().parse(path or DEFAULT_TAXONOMY)
    return {
        str(s): str(o)
        for s, o in g.subject_objects(SKOS.prefLabel)
        if str(s).startswith(AREA_SCHEME) and str(s) != AREA_SCHEME
    }


def predicted_areas(
    fields: list[tuple[str, float, str]], taxonomy, labels: dict[str, str]
) -> list[str]:  # type: ignore[no-untyped-def]
    out: list[str] = []
    for key, _score, _sentence in fields:
        for _rel, iri in taxonomy.effective_matches(key)[:1]:
            if iri in labels and labels[iri] not in out:
                out.append(labels[iri])
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--taxonomy", type=Path, default=None)
    ap.add_argument("--errors", type=int, default=0, help="print this many misclassified titles")
    args = ap.parse_args()

    papers = [json.loads(line) for line in args.data.open()]
    texts = [clean(f"{p['title']}. {p['abstract']}") for p in papers]
    sents = [sentences(t) for t in texts]
    truth = [p["primary_area"] for p in papers]
    halves = [split_of(p["id"]) for p in papers]

    model = load_model()
    taxonomy = load_taxonomy(args.taxonomy)
    labels = area_labels(args.taxonomy)
    scorer = FieldScorer.from_taxonomy(taxonomy, model)
    assign_fields_batch(texts[:8], sents[:8], scorer)  # warm-up
    start = time.perf_counter()
    # top_k=5 broad areas so that three distinct ICLR areas remain after CV, NLP,
    # audio and time series (all one ICLR area) collapse.
    results = assign_fields_batch(texts, sents, scorer, top_k=5)
    seconds = time.perf_counter() - start
    preds = [predicted_areas(r, taxonomy, labels) for r in results]

    names = sorted(set(labels.values()))
    name_vecs = model.embed(names)
    doc_vecs = model.embed(texts)
    base = [names[i] for i in (doc_vecs @ name_vecs.T).argmax(axis=1)]

    rate = len(papers) / seconds
    print(f"{len(papers)} papers, assign_fields_batch: {seconds:.1f} s, {rate:.1f} papers/s")
    print(f"{'split':8} {'n':>5} {'top-1':>6} {'top-3':>6} {'baseline top-1':>15}")
    for split in ("tune", "holdout", "all"):
        idx = [i for i, h in enumerate(halves) if split in ("all", h)]
        top1 = np.mean([preds[i][:1] == [truth[i]] for i in idx])
        top3 = np.mean([truth[i] in preds[i][:3] for i in idx])
        b1 = np.mean([base[i] == truth[i] for i in idx])
        print(f"{split:8} {len(idx):5d} {top1:6.3f} {top3:6.3f} {b1:15.3f}")

    print("\nper true area (all): n, top-1, top-3, most common wrong top-1", file=sys.stderr)
    for area in sorted(set(truth), key=lambda a: -truth.count(a)):
        idx = [i for i, t in enumerate(truth) if t == area]
        wrong = Counter(preds[i][0] for i in idx if preds[i][0] != area).most_common(1)
        print(
            f"  {len(idx):4d} {np.mean([preds[i][:1] == [area] for i in idx]):.2f} "
            f"{np.mean([area in preds[i][:3] for i in idx]):.2f}  {area[:55]:55} "
            f"-> {wrong[0][0][:40] if wrong else ''}",
            file=sys.stderr,
        )
    for i in [i for i in range(len(papers)) if halves[i] == "tune" and preds[i][:1] != [truth[i]]][
        : args.errors
    ]:
        print(
            f"  {papers[i]['title'][:80]!r}: {truth[i][:30]} -> {[k for k, _, _ in results[i]]}",
            file=sys.stderr,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
