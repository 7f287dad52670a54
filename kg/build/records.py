"""What a build is asked for and what it gives back: the records :mod:`kg.build` passes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field
from datetime import datetime
from functools import cached_property
from pathlib import Path

import networkx as nx
import pyoxigraph as ox
from rdflib import Graph

from kg.defaults import EXTRACT_BATCH, MAX_FILE_BYTES, VALIDATION, Validation
from kg.extract import CacheStats, Cluster, Settings
from kg.graph import Provenance, rdf_triples
from kg.ingest import Reading, Skip
from kg.model import KnowledgeGraph
from kg.terms import rdflib_graph
from kg.validate import ValidationReport

__all__ = ["ReadOptions", "BuildRequest", "Built", "BuildResult"]


@dataclass(frozen=True)
class ReadOptions:
    """How to read the inputs (``kg build --column/--encoding/--max-file-size/--strict``)."""

    columns: Mapping[str, str] = field(default_factory=dict)
    encoding: str | None = None
    max_file_bytes: int = MAX_FILE_BYTES
    strict: bool = False


@dataclass(frozen=True)
class BuildRequest:
    """What to build, and every setting a build's output depends on (``kg build``'s options).

    Made once (by the CLI, or by a script) and handed down through :func:`build` and
    :func:`assemble` to the stages.

    Attributes:
        inputs: Files or directories in any supported format.
        taxonomy_path: A SKOS field taxonomy; ``ontology/fields.ttl`` by default.
        read: How to read the inputs.
        settings: Extraction settings.
        generated_at: Recorded as ``prov:generatedAtTime`` (None: no time, so
            two builds of the same input are byte-identical).
        validation: How the RDF is checked against ``ontology/shapes.ttl``
            (see :mod:`kg.validate`); ``auto`` checks graphs of up to
            :data:`~kg.defaults.FULL_LIMIT` triples in full, larger ones by sample.
        cache_dir: Where each paper's extraction is cached (none if None).
        cluster: The Dask cluster that extracts the papers (None: this process).
        batch_size: Papers extracted together (one task each on a cluster).
    """

    inputs: Sequence[str | Path]
    _: KW_ONLY
    taxonomy_path: str | Path | None = None
    read: ReadOptions = field(default_factory=ReadOptions)
    settings: Settings = field(default_factory=Settings)
    generated_at: datetime | None = None
    validation: Validation = VALIDATION
    cache_dir: str | Path | None = None
    cluster: Cluster | None = None
    batch_size: int = EXTRACT_BATCH


@dataclass(frozen=True)
class Built:
    """A knowledge graph in memory: the hand-off record and the NetworkX graph made from it.

    Its RDF is made when asked for (:attr:`triples`); a build writes it to disk
    instead, sorted there, without the millions of triples in memory
    (:class:`kg.export.SortedNTriples`).
    """

    kg: KnowledgeGraph
    graph: nx.Graph  # papers, concepts, mentions and shared-concept edges
    _: KW_ONLY  # the rest by name, so a field added or moved cannot shift a caller's values
    provenance: Provenance | None = None  # what the RDF records about the build
    reading: Reading | None = None  # what the input files held, skips included
    cache: CacheStats = field(default_factory=CacheStats)
    # Seconds per stage: ingest, model, extract, concepts, graph (rdf, validate, export: by build).
    seconds: dict[str, float] = field(default_factory=dict)

    @cached_property
    def triples(self) -> list[ox.Triple]:
        """The RDF as pyoxigraph triples, in the order the files are written in."""
        return rdf_triples(self.kg, self.provenance)

    @cached_property
    def rdf(self) -> Graph:
        """The RDF as an rdflib graph, made when first asked for (a build does not need it)."""
        return rdflib_graph(self.triples)


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
    merged: tuple[Skip, ...] = ()  # records merged into another record of the same paper
    warnings: tuple[str, ...] = ()
    validation: ValidationReport | None = None
    reused: int = 0  # papers whose extraction came from the cache
    seconds: Mapping[str, float] = field(default_factory=dict)  # per stage, as Built's
    up_to_date: bool = False  # nothing changed since the build that wrote the output: kept
