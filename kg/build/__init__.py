"""The whole build: input files -> papers -> concepts -> graphs -> output files.

Plain orchestration of the stages; :mod:`kg.cli` wraps :func:`build` with progress and a summary.
The records it passes are in ``records``, the table of output files in ``outputs``.
"""

from __future__ import annotations

import ctypes
import gc
import time
from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import asdict
from pathlib import Path
from typing import Any, NamedTuple

import pyoxigraph as ox
from rdflib import Graph

from kg import export, freshness, query
from kg.build import forked, outputs
from kg.build.outputs import (
    OUTPUT_FILES,
    OUTPUT_INSIDE,
    heading,
    in_output_order,
    output_texts,
    rewrite_views,
)
from kg.build.records import BuildRequest, BuildResult, Built, ReadOptions
from kg.concepts import canonicalize
from kg.defaults import VALIDATION, Validation
from kg.digest import InputDigest, input_digest
from kg.errors import ValidationError
from kg.extract import (
    Embedder,
    ExtractionCache,
    executor_for,
    extract_cached,
    extraction_key,
    load_model,
    model_identity,
)
from kg.graph import EdgeRule, emit, knowledge_graph, make_provenance, to_networkx
from kg.ingest import SUPPORTED_SUFFIXES, Reading, check_outside, input_files, read_inputs
from kg.model import Kind, Progress
from kg.taxonomy import load_taxonomy
from kg.validate import TripleList, ValidationReport, chosen_mode, validate

__all__ = [
    "Built",
    "BuildRequest",
    "BuildResult",
    "ReadOptions",
    "assemble",
    "build",
    "output_texts",
    "rewrite_views",
    "write",
    "check",
    "OUTPUT_FILES",
    "Validation",
]


def assemble(
    request: BuildRequest,
    *,
    embedder: Embedder | None = None,
    progress: Progress | None = None,
    exclude: Path | None = None,
    inputs: InputDigest | None = None,
) -> Built:
    """Read, extract and build the graphs of ``request.inputs`` without writing anything.

    ``request.generated_at`` is recorded as the graph's ``prov:generatedAtTime``;
    without it the output is a function of the input alone. With
    ``request.cache_dir``, each paper's extraction is reused from the cache there
    when it holds it and stored there when it does not (:mod:`kg.extract.cache`).
    With ``request.cluster``, the papers not in the cache are extracted on that
    Dask cluster (:mod:`kg.extract.executors`); the rest of the build runs here.
    ``exclude`` is a directory reading skips (the output being written). ``inputs`` is
    the input files and taxonomy hashed (:func:`kg.digest.input_digest`), when the caller has them.
    """
    report = progress or (lambda stage, done, total: None)
    clock = _Clock()
    reading = _read(request.inputs, request.read, exclude, report)
    papers = list(reading.papers)
    taxonomy = load_taxonomy(request.taxonomy_path)
    clock.lap("ingest")
    report("loading model", 0, 1)
    model = embedder or load_model()
    clock.lap("model")
    knobs = request.settings
    # "loading model" stays up until the executor has loaded it (its first call of step)
    # or the cache has given papers: a bar at 0 while the model loads looks stuck.
    done = 0

    def step(n: int) -> None:
        nonlocal done
        done += n
        report("extracting", done, len(papers))

    identity = model_identity(model)
    key = extraction_key(identity, taxonomy, knobs)
    inputs = inputs or _hashed_inputs(request, exclude)
    cache_dir = request.cache_dir
    with ExtractionCache(cache_dir) if cache_dir is not None else nullcontext() as cache:
        executor = executor_for(model, taxonomy, knobs, key, request.cluster, cache)
        mentions, stats = extract_cached(
            papers, executor, cache, key, progress=step, batch_size=request.batch_size
        )
    del executor  # and its memo of phrase vectors
    _give_back_memory(len(papers))
    clock.lap("extract")
    concepts, links = canonicalize(mentions, taxonomy)
    clock.lap("concepts")
    rule = EdgeRule()
    record = knowledge_graph(papers, concepts, links, taxonomy, rule)
    provenance = make_provenance(
        papers,
        identity,
        inputs,
        asdict(knobs),
        rule,
        request.generated_at,
        heading(papers),
    )
    graph = to_networkx(record)
    clock.lap("graph")
    return Built(
        record, graph, provenance=provenance, reading=reading, cache=stats, seconds=clock.seconds
    )


def _hashed_inputs(request: BuildRequest, exclude: Path | None) -> InputDigest:
    """The request's input files (as reading lists them) and taxonomy, hashed once: the
    freshness record and the provenance both read them."""
    files = input_files(request.inputs, SUPPORTED_SUFFIXES, exclude=exclude)
    return input_digest(files, request.taxonomy_path, request.read.max_file_bytes)


def _read(
    inputs: Sequence[str | Path], opts: ReadOptions, exclude: Path | None, report: Progress
) -> Reading:
    return read_inputs(
        inputs,
        columns=opts.columns,
        encoding=opts.encoding,
        max_file_bytes=opts.max_file_bytes,
        strict=opts.strict,
        exclude=exclude,
        progress=lambda done, total: report("reading", done, total),
    )


def check(
    data: Graph | Sequence[ox.Triple] | export.NTriplesFile, mode: Validation = VALIDATION
) -> ValidationReport:
    """Validate a graph kg built; raise :class:`ValidationError` if it violates the shapes."""
    report = validate(
        data if isinstance(data, Graph) else TripleList(data), chosen_mode(mode, len(data))
    )
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
    request: BuildRequest,
    out_dir: str | Path,
    *,
    embedder: Embedder | None = None,
    progress: Progress | None = None,
    keep_current: bool = False,
) -> BuildResult:
    """Build the knowledge graph that ``request`` asks for into ``out_dir``.

    ``out_dir`` is checked and locked before anything is read; nothing is
    written unless every stage succeeds, the RDF conforms to kg's SHACL
    shapes and every file's content has been generated; then the whole
    directory, the Oxigraph store included, is swapped in one step
    (:func:`kg.export.output_dir`), and ``progress("written", 1, 1)`` says so.

    Args:
        request: The inputs and the settings.
        out_dir: Where the :data:`OUTPUT_FILES` go; it must hold nothing else.
        embedder: The embedding model; the packaged MiniLM by default.
        progress: Called as ``progress(stage, done, total)``.
        keep_current: Keep an up-to-date output as it is (:mod:`kg.freshness`).

    Raises:
        ValidationError: The RDF violates the shapes (a bug in kg); nothing is written.
    """
    export.output_path(out_dir)  # a link loop or a link to nothing: refused first
    check_outside(request.inputs, out_dir)
    cache_dir, at = request.cache_dir, request.generated_at
    records = Path(cache_dir) if cache_dir is not None and at is None else None
    with export.output_dir(out_dir, OUTPUT_FILES, OUTPUT_INSIDE) as target:
        key: str | None = None
        inputs = _hashed_inputs(request, target.real)
        if records is not None:
            embedder = model = embedder or load_model()
            taxonomy = load_taxonomy(request.taxonomy_path)
            extraction = extraction_key(model_identity(model), taxonomy, request.settings)
            what = {"read": asdict(request.read), "validation": request.validation}
            key = freshness.request_key(inputs, extraction, what)
            kept = freshness.current(records, target.real, key) if key else None
            if keep_current and kept is not None:
                files = tuple(target.path / name.rstrip("/") for name in OUTPUT_FILES)
                return BuildResult(**kept, files=files, up_to_date=True)
        built = assemble(
            request, embedder=embedder, progress=progress, exclude=target.real, inputs=inputs
        )
        result = _write(built, target, request.validation, progress)
        if records is not None and key:
            freshness.record(records, target.real, key, asdict(result))
        return result


def write(
    built: Built,
    out_dir: str | Path,
    *,
    validation: Validation = VALIDATION,
    progress: Progress | None = None,
) -> BuildResult:
    """Validate a graph built in memory and write it into ``out_dir`` (as :func:`build` does)."""
    with export.output_dir(out_dir, OUTPUT_FILES, OUTPUT_INSIDE) as target:
        return _write(built, target, validation, progress)


def _write(
    built: Built, target: export.Output, validation: Validation, progress: Progress | None
) -> BuildResult:
    clock = _Clock()
    say = progress or (lambda stage, done, total: None)
    say("writing", 0, 1)
    checked: list[_Checked] = []  # kg.nt once written, and its check started

    def rdf_then_check(path: Path) -> None:
        """kg.nt first, sorted on disk; then its check starts, in a child process beside
        the other files (:mod:`kg.build.forked`): they are swapped in only if it conforms."""
        sink = export.SortedNTriples(path.parent)
        emit(built.kg, built.provenance, sink)
        data = export.NTriplesFile(path, sink.write(path), sink.blank_nodes)
        clock.lap("rdf")
        prefixes = export.used_prefixes(data)
        checked.append(_Checked(data, forked.start(lambda: check(data, validation)), prefixes))

    def conforms() -> None:
        _answered(drawn[0], "the writing of the graph files and views")
        say("validating", 0, 1)
        _answered(checked[0].check, "the SHACL check of the graph")

    # Each file made when written: one at a time is in memory (in each process).
    makers = outputs.makers(built)
    graph_side = [name for name in makers if not name.startswith("kg.")]
    drawn: list[forked.Handle[None]] = []  # the child writing graph_side, once started

    def graph_and_views(path: Path) -> None:
        """The NetworkX files and the views, written into the staging directory by a child
        process beside the RDF (they need only ``built.graph``)."""

        def write_all() -> None:
            export.write_graphml(built.graph, path)
            for name in graph_side:
                if name != path.name:
                    export.write_entry(path.parent, name, export.Later(makers[name]))

        drawn.append(forked.start(write_all))

    files: dict[str, export.Content] = {
        # First, so that its child has the second core while kg.nt is made on the first.
        "graph.graphml": graph_and_views,
        "kg.nt": rdf_then_check,
        "kg.ttl": lambda path: export.write_turtle(checked[0].rdf, path, checked[0].prefixes),
        # Loaded from kg.nt while the files after it are written (it needs kg.ttl's stamp).
        query.STORE_NAME: export.Beside(
            lambda path, stop: query.write_store(
                path,
                path.parent / "kg.ttl",
                None if checked[0].rdf.blank_nodes else checked[0].rdf.path,
                stop,
            )
        ),
    }
    # Written by the child started at graph.graphml: listed here, as the output's entries.
    files.update((name, _written_beside) for name in graph_side if name not in files)
    # Last, the longest writer: the check and the store finish beside it.
    files["kg.jsonld"] = export.Later(
        lambda: export.jsonld_chunks(checked[0].rdf, checked[0].prefixes)
    )

    def stop_children() -> None:
        children: list[forked.Handle[Any]] = [started.check for started in checked]
        for handle in [*children, *drawn]:
            handle.stop()

    committed = (lambda: progress("written", 1, 1)) if progress else None
    try:
        written = target.write(
            files, on_commit=committed, before_commit=conforms, on_abort=stop_children
        )
    finally:
        stop_children()
    clock.lap("export")
    report = checked[0].check.result()
    warnings = export.size_warnings({n: (target.real / n).stat().st_size for n in makers})
    concepts = built.kg.concepts
    kinds = {k.value: sum(1 for c in concepts if c.kind is k) for k in Kind}
    reading = built.reading
    return BuildResult(
        len(built.kg.papers),
        kinds,
        len(built.kg.links),
        len(built.kg.edges),
        tuple(sorted(written, key=in_output_order)),
        skipped=reading.skipped if reading else (),
        replaced=reading.replaced if reading else {},
        merged=reading.merged if reading else (),
        warnings=(*built.cache.problems, *warnings),
        validation=report,
        reused=built.cache.reused,
        # the check's own time, beside the export's (they overlap)
        seconds={
            **built.seconds,
            **clock.seconds,
            "validate": checked[0].check.seconds,
            "graph files": drawn[0].seconds,
        },
    )


def _answered(child: forked.Handle[Any], what: str) -> None:
    """Wait for a child of :func:`_write`; its exception is raised here."""
    try:
        child.result()
    except forked.ChildError as exc:
        raise forked.ChildError(
            f"{what} stopped: {exc} (out of memory?); nothing was written"
        ) from None


def _written_beside(path: Path) -> None:
    """An output entry another process writes (:func:`_write`)."""


class _Checked(NamedTuple):
    """kg.nt as a build wrote it: its SHACL check (running or done), and the prefixes kg.ttl
    and kg.jsonld use."""

    rdf: export.NTriplesFile
    check: forked.Handle[ValidationReport]
    prefixes: dict[str, str]


#: Builds of fewer papers keep their memory for the next stage: a full collection walks
#: every object of the process (half a million once the libraries are imported: 0.2 to 0.5 s)
#: to free the little that a small build leaves behind.
_GIVE_BACK_FROM = 200


def _give_back_memory(papers: int) -> None:
    """Free what is unreachable and hand the C heap's free pages back to the system.

    glibc keeps the memory of freed small objects (a build frees millions)
    for reuse; ``malloc_trim`` returns it, so the next stage's peak is not
    added to the last one's (500 papers extracted: 1.03 GB resident, 0.61 GB
    after). Elsewhere only the collection runs. Nothing is done for fewer than
    :data:`_GIVE_BACK_FROM` papers.
    """
    if papers < _GIVE_BACK_FROM:
        return
    gc.collect()
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:  # not glibc
        return
    trim = getattr(libc, "malloc_trim", None)
    if trim is not None:
        trim(0)


class _Clock:
    """Wall seconds of consecutive stages."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._last = time.perf_counter()

    def lap(self, stage: str) -> None:
        now = time.perf_counter()
        self.seconds[stage] = now - self._last
        self._last = now
