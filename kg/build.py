"""The whole build: input files -> papers -> concepts -> graphs -> output files.

Plain orchestration of the stages; :mod:`kg.cli` only wraps :func:`build`
with progress on stderr and a summary line.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import Literal

import networkx as nx
from rdflib import Graph

import kg as _kg
from kg import export, query
from kg.concepts import canonicalize
from kg.errors import ValidationError
from kg.extract import MODEL_NAME, MODEL_SHA256, Embedder, Extractor, MiniLM, Settings, load_model
from kg.graph import (
    FULL_LIMIT,
    EdgeRule,
    Provenance,
    ValidationReport,
    knowledge_graph,
    to_networkx,
    to_rdf,
    validate,
)
from kg.ingest import read_papers
from kg.model import Kind, KnowledgeGraph, Paper
from kg.taxonomy import DEFAULT_TAXONOMY, load_taxonomy

__all__ = [
    "Built",
    "BuildResult",
    "assemble",
    "build",
    "write",
    "check",
    "OUTPUT_FILES",
    "Validation",
]

OUTPUT_FILES = ("kg.ttl", "graph.graphml", "graph.json", "index.html", query.STORE_NAME)
#: How a build checks its graph: ``auto`` is ``full`` up to FULL_LIMIT triples, else ``sample``.
Validation = Literal["auto", "full", "batch", "sample"]

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
    validation: ValidationReport


def assemble(
    inputs: Sequence[str | Path],
    *,
    embedder: Embedder | None = None,
    taxonomy_path: str | Path | None = None,
    settings: Settings | None = None,
    progress: Progress | None = None,
    generated_at: datetime | None = None,
) -> Built:
    """Read, extract and build the graphs of ``inputs`` without writing anything.

    ``generated_at`` is recorded as the graph's ``prov:generatedAtTime``;
    without it the output is a function of the input alone.
    """
    report = progress or (lambda stage, done, total: None)
    papers = read_papers(inputs)
    taxonomy = load_taxonomy(taxonomy_path)
    report("loading model", 0, 1)
    model = embedder or load_model()
    extractor = Extractor(model, taxonomy, settings)
    report("extracting", 0, len(papers))
    done = 0

    def step(n: int) -> None:
        nonlocal done
        done += n
        report("extracting", done, len(papers))

    mentions = extractor.extract(papers, progress=step)
    concepts, links = canonicalize(mentions, taxonomy)
    rule = EdgeRule()
    kg = knowledge_graph(papers, concepts, links, taxonomy, rule)
    provenance = _provenance(papers, model, taxonomy_path, extractor.settings, rule, generated_at)
    return Built(kg, to_rdf(kg, provenance), to_networkx(kg))


def _provenance(
    papers: Sequence[Paper],
    model: Embedder,
    taxonomy_path: str | Path | None,
    settings: Settings,
    rule: EdgeRule,
    generated_at: datetime | None,
) -> Provenance:
    """What the graph is a function of: kg, the model, the input files, the taxonomy, the knobs."""
    files = dict.fromkeys(p.source.rpartition(":")[0] or p.source for p in papers if p.source)
    inputs = tuple((name, _sha256(Path(name))) for name in files if Path(name).is_file())
    taxonomy_file = Path(taxonomy_path) if taxonomy_path else DEFAULT_TAXONOMY
    shown = str(taxonomy_path) if taxonomy_path else "ontology/fields.ttl (shipped with kg)"
    knobs = [(f"extract.{k}", v) for k, v in asdict(settings).items()]
    knobs += [(f"edges.{k}", v) for k, v in asdict(rule).items()]
    if isinstance(model, MiniLM):  # its weights were checked against this digest on load
        name, digest = MODEL_NAME, MODEL_SHA256
    else:
        name, digest = getattr(model, "name", type(model).__qualname__), None
    return Provenance(
        kg_version=_kg.__version__,
        model=str(name),
        model_sha256=digest,
        inputs=inputs,
        taxonomy=(shown, _sha256(taxonomy_file)),
        settings=tuple(sorted(knobs)),
        generated_at=generated_at,
        title=_heading(papers),
    )


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check(graph: Graph, mode: Validation = "auto") -> ValidationReport:
    """Validate a graph kg built; raise :class:`ValidationError` if it violates the shapes."""
    chosen = ("full" if len(graph) <= FULL_LIMIT else "sample") if mode == "auto" else mode
    report = validate(graph, chosen)
    if not report.conforms:
        shown = "\n".join(f"  {v}" for v in report.violations[:10])
        more = len(report.violations) - 10
        raise ValidationError(
            f"the graph does not conform to kg's SHACL shapes ({report.summary()}), so "
            f"nothing was written:\n{shown}"
            + (f"\n  ... and {more} more" if more > 0 else "")
            + "\nthis is a bug in kg: please report it with the input that caused it"
        )
    return report


def build(
    inputs: Sequence[str | Path],
    out_dir: str | Path,
    *,
    embedder: Embedder | None = None,
    taxonomy_path: str | Path | None = None,
    settings: Settings | None = None,
    progress: Progress | None = None,
    generated_at: datetime | None = None,
    validation: Validation = "auto",
) -> BuildResult:
    """Build the knowledge graph of ``inputs`` into ``out_dir``.

    Nothing is written unless every stage succeeds, the RDF conforms to kg's
    SHACL shapes and every file's content has been generated; then
    :func:`kg.export.write_files` stages the files and moves each into place
    (atomic per file, not yet for the directory), and the Oxigraph store,
    loaded from the same Turtle, replaces the old one.

    Args:
        inputs: Files or directories (plain-text lists, JSONL, JSON, CSV).
        out_dir: Where ``kg.ttl``, ``graph.graphml``, ``graph.json`` and
            ``index.html`` go.
        embedder: The embedding model; the packaged MiniLM by default.
        taxonomy_path: A SKOS field taxonomy; ``ontology/fields.ttl`` by default.
        settings: Extraction settings.
        progress: Called as ``progress(stage, done, total)``.
        generated_at: Recorded as ``prov:generatedAtTime`` (None: no time, so
            two builds of the same input are byte-identical).
        validation: How the RDF is checked against ``ontology/shapes.ttl``
            (see :mod:`kg.graph.shapes`); ``auto`` checks graphs of up to
            :data:`~kg.graph.FULL_LIMIT` triples in full, larger ones by sample.

    Raises:
        ValidationError: The RDF violates the shapes (a bug in kg); nothing is written.
    """
    built = assemble(
        inputs,
        embedder=embedder,
        taxonomy_path=taxonomy_path,
        settings=settings,
        progress=progress,
        generated_at=generated_at,
    )
    return write(built, out_dir, validation=validation, progress=progress)


def write(
    built: Built,
    out_dir: str | Path,
    *,
    validation: Validation = "auto",
    progress: Progress | None = None,
) -> BuildResult:
    """Validate a built graph and write its files and store into ``out_dir`` (see :func:`build`)."""
    if progress:
        progress("validating", 0, 1)
    report = check(built.rdf, validation)
    if progress:
        progress("writing", 0, 1)
    out = Path(out_dir)
    files = {
        "kg.ttl": export.turtle_text(built.rdf),
        "graph.graphml": export.graphml_text(built.graph),
        "graph.json": export.json_text(built.graph),
        "index.html": export.render_html(built.graph, _heading(built.kg.papers)),
    }
    staged = query.stage_store(out, files["kg.ttl"])
    try:
        written = export.write_files(out, files)
    except BaseException:
        query.discard_store(staged)
        raise
    written.append(query.commit_store(staged, out))
    concepts = built.kg.concepts
    kinds = {k.value: sum(1 for c in concepts if c.kind is k) for k in Kind}
    return BuildResult(
        len(built.kg.papers),
        kinds,
        len(built.kg.links),
        len(built.kg.edges),
        tuple(written),
        report,
    )


def _heading(papers: Sequence[Paper]) -> str:
    """ "kg: 37 NeurIPS 2026 papers" when the input names at most three venues."""
    venues = sorted({f"{p.venue or ''} {p.year or ''}".strip() for p in papers} - {""})
    where = f" {', '.join(venues)}" if 0 < len(venues) <= 3 else ""
    return f"kg: {len(papers)}{where} papers"
