"""The whole build: input files -> papers -> concepts -> graphs -> output files.

Plain orchestration of the stages; :mod:`kg.cli` only wraps :func:`build`
with progress on stderr and a summary line.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import networkx as nx
from rdflib import Graph

from kg import export
from kg.concepts import canonicalize
from kg.extract import Embedder, Extractor, Settings, load_model
from kg.graph import knowledge_graph, to_networkx, to_rdf
from kg.ingest import read_papers
from kg.model import Kind, KnowledgeGraph
from kg.taxonomy import load_taxonomy

__all__ = ["Built", "BuildResult", "assemble", "build", "OUTPUT_FILES"]

OUTPUT_FILES = ("kg.ttl", "graph.graphml", "graph.json", *export.VIEW_FILES.values())

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class Built:
    """A knowledge graph in memory: the hand-off record and the two graphs made from it."""

    kg: KnowledgeGraph
    rdf: Graph
    graph: nx.Graph  # papers, concepts, mentions and shared-concept edges


@dataclass(frozen=True)
class BuildResult:
    """What a build made; the CLI prints it as one line."""

    papers: int
    concepts: dict[str, int]
    links: int
    edges: int
    files: tuple[Path, ...]


def assemble(
    inputs: Sequence[str | Path],
    *,
    embedder: Embedder | None = None,
    taxonomy_path: str | Path | None = None,
    settings: Settings | None = None,
    progress: Progress | None = None,
) -> Built:
    """Read, extract and build the graphs of ``inputs`` without writing anything."""
    report = progress or (lambda stage, done, total: None)
    papers = read_papers(inputs)
    taxonomy = load_taxonomy(taxonomy_path)
    report("loading model", 0, 1)
    extractor = Extractor(embedder or load_model(), taxonomy, settings)
    report("extracting", 0, len(papers))
    done = 0

    def step(n: int) -> None:
        nonlocal done
        done += n
        report("extracting", done, len(papers))

    mentions = extractor.extract(papers, progress=step)
    concepts, links = canonicalize(mentions, taxonomy)
    kg = knowledge_graph(papers, concepts, links, taxonomy)
    return Built(kg, to_rdf(kg), to_networkx(kg))


def build(
    inputs: Sequence[str | Path],
    out_dir: str | Path,
    *,
    embedder: Embedder | None = None,
    taxonomy_path: str | Path | None = None,
    settings: Settings | None = None,
    progress: Progress | None = None,
) -> BuildResult:
    """Build the knowledge graph of ``inputs`` into ``out_dir``.

    Nothing is written unless every stage succeeds and every file's content
    has been generated; then :func:`kg.export.write_files` stages the files
    and moves each into place (atomic per file, not yet for the directory).

    Args:
        inputs: Files or directories (plain-text lists, JSONL, JSON, CSV).
        out_dir: Where ``kg.ttl``, ``graph.graphml``, ``graph.json``, the three
            views and their ``index.html`` go.
        embedder: The embedding model; the packaged MiniLM by default.
        taxonomy_path: A SKOS field taxonomy; ``ontology/fields.ttl`` by default.
        settings: Extraction settings.
        progress: Called as ``progress(stage, done, total)``.
    """
    built = assemble(
        inputs,
        embedder=embedder,
        taxonomy_path=taxonomy_path,
        settings=settings,
        progress=progress,
    )
    if progress:
        progress("writing", 0, 1)
    files = {
        "kg.ttl": export.turtle_text(built.rdf),
        "graph.graphml": export.graphml_text(built.graph),
        "graph.json": export.json_text(built.graph),
    }
    files.update(export.render_views(built.graph))  # headed "kg: 37 NeurIPS 2026 papers"
    written = export.write_files(Path(out_dir), files)
    concepts = built.kg.concepts
    kinds = {k.value: sum(1 for c in concepts if c.kind is k) for k in Kind}
    return BuildResult(
        len(built.kg.papers), kinds, len(built.kg.links), len(built.kg.edges), tuple(written)
    )
