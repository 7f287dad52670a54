"""The whole build: input files -> papers -> concepts -> graphs -> output files.

Plain orchestration of the stage modules; :mod:`kg.cli` only wraps
:func:`build` with progress on stderr and a summary line.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import networkx as nx
from rdflib import Graph

from kg import export, view
from kg.concepts import canonicalize
from kg.embed import Embedder, load_model
from kg.extract import Extractor, Settings
from kg.fields import load_taxonomy
from kg.graph import (
    KnowledgeGraph,
    concept_graph,
    paper_labels,
    shared_concept_graph,
    to_rdf,
    view_graph,
)
from kg.ingest import read_papers
from kg.model import Kind, Paper

__all__ = ["Built", "BuildResult", "assemble", "build", "OUTPUT_FILES"]

OUTPUT_FILES = ("kg.ttl", "graph.graphml", "graph.json", "index.html")


@dataclass(frozen=True)
class Built:
    """A knowledge graph in memory, in every form the exports need."""

    kg: KnowledgeGraph
    concept_graph: nx.Graph  # bipartite papers-concepts
    shares: nx.Graph  # papers joined by shared methods and problems
    rdf: Graph

    @property
    def view_graph(self) -> nx.Graph:
        return view_graph(self.concept_graph, self.shares)


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
    progress: Callable[[str, int, int], None] | None = None,
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
    kg = KnowledgeGraph(
        papers=tuple(papers),
        concepts=tuple(concepts),
        links=tuple(links),
        labels=paper_labels(papers, concepts, links),
        taxonomy=taxonomy,
        field_iris={f.key: f.iri for f in taxonomy.fields},
    )
    B = concept_graph(kg)
    P = shared_concept_graph(B)
    return Built(kg, B, P, to_rdf(kg, P))


def build(
    inputs: Sequence[str | Path],
    out_dir: str | Path,
    *,
    embedder: Embedder | None = None,
    taxonomy_path: str | Path | None = None,
    settings: Settings | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> BuildResult:
    """Build the knowledge graph of ``inputs`` into ``out_dir``.

    Nothing is written unless every stage succeeds; then all files are
    replaced together (see :func:`kg.export.write_files`).

    Args:
        inputs: Files or directories (plain-text lists, JSONL, JSON, CSV).
        out_dir: Where ``kg.ttl``, ``graph.graphml``, ``graph.json`` and
            ``index.html`` go.
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
    G = built.view_graph
    files = {
        "kg.ttl": export.turtle_text(built.rdf),
        "graph.graphml": export.graphml_text(G),
        "graph.json": export.json_text(G),
        "index.html": view.render_html(G, _heading(built.kg.papers)),
    }
    written = export.write_files(Path(out_dir), files)
    concepts = built.kg.concepts
    kinds = {k.value: sum(1 for c in concepts if c.kind is k) for k in Kind}
    return BuildResult(
        len(built.kg.papers),
        kinds,
        len(built.kg.links),
        built.shares.number_of_edges(),
        tuple(written),
    )


def _heading(papers: Sequence[Paper]) -> str:
    """ "kg: 37 NeurIPS 2026 papers" when the input names at most three venues."""
    venues = sorted({f"{p.venue or ''} {p.year or ''}".strip() for p in papers} - {""})
    where = f" {', '.join(venues)}" if 0 < len(venues) <= 3 else ""
    return f"kg: {len(papers)}{where} papers"
