"""The whole build: input files -> papers -> concepts -> graphs -> output files.

Plain orchestration of the stages; :mod:`kg.cli` only wraps :func:`build`
with progress on stderr and a summary.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path

import networkx as nx
from rdflib import Graph

from kg import export
from kg.concepts import canonicalize
from kg.extract import (
    CacheStats,
    Embedder,
    ExtractionCache,
    Extractor,
    Settings,
    extract_cached,
    extraction_key,
    load_model,
)
from kg.graph import knowledge_graph, to_networkx, to_rdf
from kg.ingest import MAX_FILE_BYTES, Reading, Skip, check_outside, read_inputs
from kg.model import Kind, KnowledgeGraph, Paper
from kg.taxonomy import load_taxonomy

__all__ = [
    "Built",
    "BuildResult",
    "ReadOptions",
    "assemble",
    "build",
    "output_texts",
    "OUTPUT_FILES",
]

OUTPUT_FILES = ("kg.ttl", "kg.nt", "kg.jsonld", "graph.graphml", "graph.json", "index.html")

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class ReadOptions:
    """How to read the inputs (``kg build --column/--encoding/--max-file-size/--strict``)."""

    columns: Mapping[str, str] = field(default_factory=dict)
    encoding: str | None = None
    max_file_bytes: int = MAX_FILE_BYTES
    strict: bool = False


@dataclass(frozen=True)
class Built:
    """A knowledge graph in memory: the hand-off record and the two graphs made from it."""

    kg: KnowledgeGraph
    rdf: Graph
    graph: nx.Graph  # papers, concepts, mentions and shared-concept edges
    reading: Reading | None = None  # what the input files held, skips included
    cache: CacheStats = field(default_factory=CacheStats)
    # Seconds per stage: ingest, model, extract, concepts, graph (and export, by build).
    seconds: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class BuildResult:
    """What a build made; the CLI prints it as a summary."""

    papers: int
    concepts: dict[str, int]
    links: int
    edges: int
    files: tuple[Path, ...]
    skipped: tuple[Skip, ...] = ()
    replaced: Mapping[str, int] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    reused: int = 0  # papers whose extraction came from the cache
    seconds: Mapping[str, float] = field(default_factory=dict)  # per stage, as Built's


def assemble(
    inputs: Sequence[str | Path],
    *,
    embedder: Embedder | None = None,
    taxonomy_path: str | Path | None = None,
    settings: Settings | None = None,
    progress: Progress | None = None,
    options: ReadOptions | None = None,
    exclude: Path | None = None,
    cache_dir: str | Path | None = None,
) -> Built:
    """Read, extract and build the graphs of ``inputs`` without writing anything.

    With ``cache_dir``, each paper's extraction is reused from the cache there
    when it holds it and stored there when it does not (:mod:`kg.extract.cache`).
    """
    report = progress or (lambda stage, done, total: None)
    clock = _Clock()
    opts = options or ReadOptions()
    reading = read_inputs(
        inputs,
        columns=opts.columns,
        encoding=opts.encoding,
        max_file_bytes=opts.max_file_bytes,
        strict=opts.strict,
        exclude=exclude,
    )
    papers = list(reading.papers)
    taxonomy = load_taxonomy(taxonomy_path)
    clock.lap("ingest")
    report("loading model", 0, 1)
    model = embedder or load_model()
    clock.lap("model")
    knobs = settings or Settings()
    report("extracting", 0, len(papers))
    done = 0

    def step(n: int) -> None:
        nonlocal done
        done += n
        report("extracting", done, len(papers))

    def extractor() -> Extractor:
        return Extractor(model, taxonomy, knobs)

    key = extraction_key(model, taxonomy, knobs)
    with ExtractionCache(cache_dir) if cache_dir is not None else nullcontext() as cache:
        mentions, stats = extract_cached(papers, extractor, cache, key, progress=step)
    clock.lap("extract")
    concepts, links = canonicalize(mentions, taxonomy)
    clock.lap("concepts")
    kg = knowledge_graph(papers, concepts, links, taxonomy)
    rdf, graph = to_rdf(kg), to_networkx(kg)
    clock.lap("graph")
    return Built(kg, rdf, graph, reading, stats, clock.seconds)


def output_texts(built: Built) -> dict[str, str]:
    """Every output file's content, by name (:data:`OUTPUT_FILES`)."""
    return {
        "kg.ttl": export.turtle_text(built.rdf),
        "kg.nt": export.ntriples_text(built.rdf),
        "kg.jsonld": export.jsonld_text(built.rdf),
        "graph.graphml": export.graphml_text(built.graph),
        "graph.json": export.json_text(built.graph),
        "index.html": export.render_html(built.graph, _heading(built.kg.papers)),
    }


def build(
    inputs: Sequence[str | Path],
    out_dir: str | Path,
    *,
    embedder: Embedder | None = None,
    taxonomy_path: str | Path | None = None,
    settings: Settings | None = None,
    progress: Progress | None = None,
    options: ReadOptions | None = None,
    cache_dir: str | Path | None = None,
) -> BuildResult:
    """Build the knowledge graph of ``inputs`` into ``out_dir``.

    ``out_dir`` is checked and locked before anything is read; nothing is
    written unless every stage succeeds and every file's content has been
    generated, and then the whole directory is swapped in one step
    (:func:`kg.export.output_dir`). ``progress("written", 1, 1)`` reports
    that the new output is in place.

    Args:
        inputs: Files or directories in any supported format.
        out_dir: Where the :data:`OUTPUT_FILES` go; it must hold nothing else.
        embedder: The embedding model; the packaged MiniLM by default.
        taxonomy_path: A SKOS field taxonomy; ``ontology/fields.ttl`` by default.
        settings: Extraction settings.
        progress: Called as ``progress(stage, done, total)``.
        options: How to read the inputs.
        cache_dir: Where each paper's extraction is cached (none if None).
    """
    check_outside(inputs, out_dir)
    with export.output_dir(out_dir, OUTPUT_FILES) as target:
        built = assemble(
            inputs,
            embedder=embedder,
            taxonomy_path=taxonomy_path,
            settings=settings,
            progress=progress,
            options=options,
            exclude=target.real,
            cache_dir=cache_dir,
        )
        clock = _Clock()
        if progress:
            progress("writing", 0, 1)
        files = {name: text.encode("utf-8") for name, text in output_texts(built).items()}
        warnings = export.size_warnings({name: len(data) for name, data in files.items()})
        committed = (lambda: progress("written", 1, 1)) if progress else None
        written = target.write(files, on_commit=committed)
        clock.lap("export")
    concepts = built.kg.concepts
    kinds = {k.value: sum(1 for c in concepts if c.kind is k) for k in Kind}
    reading = built.reading
    return BuildResult(
        len(built.kg.papers),
        kinds,
        len(built.kg.links),
        len(built.kg.edges),
        tuple(written),
        skipped=reading.skipped if reading else (),
        replaced=reading.replaced if reading else {},
        warnings=(*built.cache.problems, *warnings),
        reused=built.cache.reused,
        seconds={**built.seconds, **clock.seconds},
    )


class _Clock:
    """Wall seconds of consecutive stages."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._last = time.perf_counter()

    def lap(self, stage: str) -> None:
        now = time.perf_counter()
        self.seconds[stage] = now - self._last
        self._last = now


def _heading(papers: Sequence[Paper]) -> str:
    """ "kg: 37 NeurIPS 2026 papers" when the input names at most three venues."""
    venues = sorted({f"{p.venue or ''} {p.year or ''}".strip() for p in papers} - {""})
    where = f" {', '.join(venues)}" if 0 < len(venues) <= 3 else ""
    return f"kg: {len(papers)}{where} papers"
