"""Build throughput and peak memory, stage by stage.

    .venv/bin/python bench/speed.py [INPUT ...] [--limit N]

Default input: the seeds. For scale, pass ../shared/data/icml2024.jsonl
(2,610 abstracts). Prints seconds per stage, papers/second of extraction and
of the whole build, and the peak resident memory of the process. Numbers
depend on what else runs on the machine: measure on an idle one.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kg import export  # noqa: E402
from kg.build import BuildRequest, assemble  # noqa: E402
from kg.ingest import read_papers  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("inputs", nargs="*", default=[str(ROOT / "seeds")])
    parser.add_argument("--limit", type=int, default=None)
    args = parser.parse_args()

    papers = read_papers(args.inputs)[: args.limit]
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "papers.jsonl"
        source.write_text(
            "".join(
                json.dumps(
                    {
                        "id": p.id,
                        "title": p.title,
                        "abstract": p.abstract,
                        "authors": list(p.authors),
                        "year": p.year,
                        "venue": p.venue,
                        "keywords": list(p.keywords),
                    }
                )
                + "\n"
                for p in papers
            ),
            encoding="utf-8",
        )
        marks: dict[str, float] = {"start": time.perf_counter()}

        def progress(stage: str, done: int, total: int) -> None:
            marks.setdefault(stage, time.perf_counter())
            if stage == "extracting" and done == total:
                marks["extracted"] = time.perf_counter()

        built = assemble(BuildRequest([source]), progress=progress)
        marks["assembled"] = time.perf_counter()
        G = built.graph
        files = {
            "kg.ttl": export.turtle_text(built.rdf),
            "graph.graphml": export.graphml_text(G),
            "graph.json": export.json_text(G),
            **export.render_views(G, "bench"),
        }
        export.write_files(Path(tmp) / "out", files)
        marks["written"] = time.perf_counter()

    stages = {
        "read + taxonomy": marks["loading model"] - marks["start"],
        "load model": marks["extracting"] - marks["loading model"],
        "extract": marks["extracted"] - marks["extracting"],
        "concepts + graphs": marks["assembled"] - marks["extracted"],
        "serialise + write": marks["written"] - marks["assembled"],
    }
    total = marks["written"] - marks["start"]
    extract = stages["extract"]
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    n = len(papers)
    kg = built.kg
    print(
        f"{n} papers, {len(kg.concepts)} concepts, {len(kg.links)} links, "
        f"{len(built.kg.edges)} shared-concept edges, {len(built.rdf)} triples"
    )
    for name, seconds in stages.items():
        print(f"  {name:<18} {seconds:8.1f} s")
    print(
        f"extraction {n / extract:.2f} papers/s; whole build {total:.1f} s "
        f"({n / total:.2f} papers/s); peak memory {peak_mb:.0f} MB"
    )


if __name__ == "__main__":
    main()
