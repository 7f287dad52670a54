"""Build throughput and peak memory, stage by stage.

    .venv/bin/python bench/speed.py [INPUT ...] [--limit N]

Default input: the seeds. For scale, pass ../shared/data/icml2024.jsonl
(2,610 abstracts). Prints seconds per stage, papers/second of extraction and
of the whole build, and the peak resident memory of the process. Numbers
depend on what else runs on the machine: measure on an idle one.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kg import export, view  # noqa: E402
from kg.concepts import canonicalize  # noqa: E402
from kg.embed import load_model  # noqa: E402
from kg.extract import Extractor  # noqa: E402
from kg.fields import load_taxonomy  # noqa: E402
from kg.graph import (  # noqa: E402
    KnowledgeGraph,
    concept_graph,
    paper_labels,
    shared_concept_graph,
    to_rdf,
    view_graph,
)
from kg.ingest import read_papers  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("inputs", nargs="*", default=[str(ROOT / "seeds")])
    parser.add_argument("--limit", type=int, default=None)
    args = parser.parse_args()

    times: dict[str, float] = {}
    start = t = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal t
        now = time.perf_counter()
        times[name] = now - t
        t = now

    papers = read_papers(args.inputs)[: args.limit]
    lap("read")
    taxonomy = load_taxonomy()
    extractor = Extractor(load_model(), taxonomy)
    lap("load model")
    mentions = extractor.extract(papers)
    lap("extract")
    concepts, links = canonicalize(mentions, taxonomy)
    kg = KnowledgeGraph(
        tuple(papers),
        tuple(concepts),
        tuple(links),
        paper_labels(papers, concepts, links),
        taxonomy,
        {f.key: f.iri for f in taxonomy.fields},
    )
    lap("canonicalise")
    B = concept_graph(kg)
    P = shared_concept_graph(B)
    rdf = to_rdf(kg, P)
    lap("graphs")
    G = view_graph(B, P)
    files = {
        "kg.ttl": export.turtle_text(rdf),
        "graph.graphml": export.graphml_text(G),
        "graph.json": export.json_text(G),
        "index.html": view.render_html(G, "bench"),
    }
    lap("serialise")
    with tempfile.TemporaryDirectory() as out:
        export.write_files(Path(out), files)
    lap("write")
    total = time.perf_counter() - start

    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    n = len(papers)
    print(
        f"{n} papers, {len(concepts)} concepts, {len(links)} links, "
        f"{P.number_of_edges()} shared-concept edges, {len(rdf)} triples"
    )
    for name, seconds in times.items():
        print(f"  {name:<13} {seconds:8.1f} s")
    print(
        f"extraction {n / times['extract']:.2f} papers/s; whole build {total:.1f} s "
        f"({n / total:.2f} papers/s); peak memory {peak_mb:.0f} MB"
    )


if __name__ == "__main__":
    main()
