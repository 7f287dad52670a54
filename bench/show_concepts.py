"""Print each paper's abstract beside the concepts kg links it to, for reading by eye.

    .venv/bin/python bench/show_concepts.py [INPUT ...] > concepts.txt

For every paper: its label, its abstract, then each link (role, confidence,
concept label and kind), strongest first, and its fields. This is what a
reader checks the concepts against: is each link right, specific enough, of
the right kind, and is the paper's central contribution there?
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kg.concepts import canonicalize  # noqa: E402
from kg.extract import Extractor, load_model  # noqa: E402
from kg.graph import knowledge_graph  # noqa: E402
from kg.ingest import read_papers  # noqa: E402
from kg.model import Kind  # noqa: E402


def main() -> None:
    inputs = sys.argv[1:] or [str(ROOT / "seeds")]
    papers = read_papers(inputs)
    extractor = Extractor(load_model())
    mentions = extractor.extract(papers)
    concepts, links = canonicalize(mentions, extractor.taxonomy)
    graph = knowledge_graph(papers, concepts, links, extractor.taxonomy)
    by_key = {c.key: c for c in graph.concepts}
    for n, paper in enumerate(papers, start=1):
        print(f"=== {n}. {graph.labels[paper.id]}")
        print(textwrap.fill(paper.text, 100))
        own = sorted(
            (link for link in graph.links if link.paper_id == paper.id),
            key=lambda link: (by_key[link.concept_key].kind is Kind.FIELD, -link.score),
        )
        for link in own:
            c = by_key[link.concept_key]
            print(f"  {link.role.value:17} {link.score:.2f}  {c.label}  [{c.kind.value}]")
        print()


if __name__ == "__main__":
    main()
