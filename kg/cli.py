"""kg's command line: thin commands over :mod:`kg.build`, :mod:`kg.query`, :mod:`kg.evaluate`.

The only module that prints or exits. Data goes to stdout; progress, warnings
and errors go to stderr; a user mistake is one line of explanation and a
documented exit status (README, "Exit status"), never a traceback.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

from kg.errors import KGError

__all__ = ["main", "cli", "INTERRUPTED", "TERMINATED"]

#: Exit status of a run stopped by Ctrl-C (128 + SIGINT), as shells report it.
INTERRUPTED = 130
#: Exit status of a run stopped by SIGTERM (128 + 15).
TERMINATED = 143
#: Locations of skipped records listed per reason in the summary.
SHOWN_SKIPS = 3


class UserError(click.ClickException):
    """A :class:`~kg.errors.KGError` at the command line: one line on stderr."""

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code  # type: ignore[misc]  # click reads it per instance

    def show(self, file: Any = None) -> None:
        click.echo(f"kg: error: {self.message}", err=True)


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so that the same clean-up runs."""


class _Interrupted(click.ClickException):
    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code  # type: ignore[misc]

    def show(self, file: Any = None) -> None:
        click.echo(f"\nkg: {self.message}", err=True)


class _Group(click.Group):
    """Turns kg's errors into click's, so they print the same however the CLI is run."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KGError as exc:
            raise UserError(str(exc), exc.exit_code) from exc
        except (KeyboardInterrupt, click.exceptions.Abort) as exc:
            how = "terminated" if isinstance(exc, _Terminated) else "interrupted"
            code = TERMINATED if isinstance(exc, _Terminated) else INTERRUPTED
            written = ctx.meta.get("kg.written")
            if written is None:
                state = ""
            elif written:
                state = "; the new output had already been written in full"
            else:
                state = "; the previous output is left exactly as it was"
            raise _Interrupted(how + state, code) from exc


class _Progress:
    """One self-overwriting stderr line per stage (plain lines when not a TTY)."""

    def __init__(self, meta: dict[str, Any] | None = None) -> None:
        self.tty = sys.stderr.isatty()
        self.last = ("", -1)
        self.start = time.monotonic()
        self.meta = meta if meta is not None else {}

    def __call__(self, stage: str, done: int, total: int) -> None:
        if stage == "written":
            self.meta["kg.written"] = True
            return
        if total > 1:
            pct = 100 * done // total
            if (stage, pct // 10) == self.last and done != total:
                return
            self.last = (stage, pct // 10)
            unit = "focus nodes" if stage == "validating" else "papers"
            msg = f"{stage}: {done:,}/{total:,} {unit}"
        else:
            msg = f"{stage}…"
        elapsed = time.monotonic() - self.start
        click.echo(f"\r[{elapsed:6.1f}s] {msg}" + ("" if self.tty else "\n"), err=True, nl=False)

    def close(self) -> None:
        if self.tty:
            click.echo("", err=True)


def _out_option(help: str) -> Any:
    return click.option(
        "--out",
        "out_dir",
        default="output",
        show_default=True,
        type=click.Path(path_type=Path),
        help=help,
    )


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="kg")
def cli() -> None:
    """Build knowledge graphs of research papers and query them."""


@cli.command()
@click.argument("inputs", nargs=-1, type=click.Path(path_type=Path))
@_out_option("Output directory, replaced as a whole by each build; it must hold only kg's files.")
@click.option(
    "--taxonomy",
    type=click.Path(path_type=Path),
    default=None,
    help="SKOS field taxonomy (Turtle); default: ontology/fields.ttl.",
)
@click.option(
    "--column",
    "columns",
    multiple=True,
    metavar="FIELD=NAME",
    help="Read kg's FIELD (abstract, title, id, authors, year, venue, keywords) from the "
    "column or key NAME of CSV/TSV and JSON records. Repeatable.",
)
@click.option("--strict", is_flag=True, help="Fail (exit status 3) instead of skipping any record.")
@click.option(
    "--encoding",
    default=None,
    metavar="CODEC",
    help="Read every input with this encoding (e.g. cp1252) instead of detecting UTF-8/UTF-16.",
)
@click.option(
    "--max-file-size",
    "max_file_mb",
    type=click.IntRange(min=1),
    default=None,
    metavar="MB",
    help="Largest input file to read, in MiB (default 1024).",
)
@click.option(
    "--validate",
    "validation",
    type=click.Choice(["auto", "full", "batch", "sample"]),
    default="auto",
    show_default=True,
    help="How the graph is checked against ontology/shapes.ttl before anything is written "
    "(auto: full up to 150,000 triples, else a sample).",
)
@click.option(
    "--generated-at",
    "generated_at",
    default=None,
    metavar="now|ISO-8601",
    help="Record this time as prov:generatedAtTime (default: $SOURCE_DATE_EPOCH if set, "
    "else no time, so that two builds of the same input are byte-identical).",
)
@click.option(
    "--cache-dir",
    type=click.Path(path_type=Path),
    default=None,
    help="Where each paper's extraction is cached for the next build; default: $KG_CACHE_DIR, "
    "else $XDG_CACHE_HOME/kg, else ~/.cache/kg.",
)
@click.option("--no-cache", is_flag=True, help="Neither read nor write the extraction cache.")
@click.pass_context
def build(
    ctx: click.Context,
    inputs: tuple[Path, ...],
    out_dir: Path,
    taxonomy: Path | None,
    columns: tuple[str, ...],
    strict: bool,
    encoding: str | None,
    max_file_mb: int | None,
    validation: str,
    generated_at: str | None,
    cache_dir: Path | None,
    no_cache: bool,
) -> None:
    """Build the graph from INPUTS (files or directories; default: seeds/)."""
    from kg.build import ReadOptions
    from kg.build import build as run_build
    from kg.extract import default_cache_dir
    from kg.ingest import MAX_FILE_BYTES

    options = ReadOptions(
        columns=_columns(columns),
        encoding=_codec(encoding),
        max_file_bytes=max_file_mb * (1 << 20) if max_file_mb else MAX_FILE_BYTES,
        strict=strict,
    )
    ctx.meta["kg.written"] = False
    at = _generated_at(generated_at)
    progress = _Progress(ctx.meta)
    try:
        result = run_build(
            list(inputs) or [Path("seeds")],
            out_dir,
            taxonomy_path=taxonomy,
            progress=progress,
            options=options,
            generated_at=at,
            validation=validation,  # type: ignore[arg-type]
            cache_dir=None if no_cache else cache_dir or default_cache_dir(),
        )
    finally:
        progress.close()
    for warning in result.warnings:
        click.echo(f"kg: warning: {warning}", err=True)
    kinds = ", ".join(f"{n} {k}s" for k, n in result.concepts.items())
    files = ", ".join(str(f) for f in result.files)
    skipped = f"; skipped {_records(len(result.skipped))}" if result.skipped else ""
    click.echo(
        f"{result.papers} papers, {sum(result.concepts.values())} concepts ({kinds}), "
        f"{result.links} links, {result.edges} shared-concept edges; wrote {files}{skipped}; "
        f"SHACL: {result.validation.summary() if result.validation else 'not checked'}"
    )
    for line in _details(result):
        click.echo(f"  {line}")
    if result.reused:
        click.echo(f"  reused the extraction of {result.reused} of {result.papers} papers (cache)")


def _records(n: int) -> str:
    return f"{n} record{'s' if n != 1 else ''}"


def _details(result: Any) -> list[str]:
    """The summary's further lines: each reason for skipping, with the first locations."""
    from kg.text import REPLACED

    lines = []
    by_reason: dict[str, list[Any]] = {}
    for skip in result.skipped:
        by_reason.setdefault(skip.reason, []).append(skip)
    for reason, skips in by_reason.items():
        shown = ", ".join(s.source for s in skips[:SHOWN_SKIPS])
        more = f" and {len(skips) - SHOWN_SKIPS} more" if len(skips) > SHOWN_SKIPS else ""
        lines.append(f"skipped {_records(len(skips))}: {reason} ({shown}{more})")
    replaced = Counter(result.replaced)
    if replaced:
        kinds = ", ".join(
            f"{n} {kind}{'s' if n != 1 else ''} {REPLACED[kind]}" for kind, n in replaced.items()
        )
        total = sum(replaced.values())
        chars = f"{total} character{'s' if total != 1 else ''}"
        lines.append(f"cleaned {chars} no output file can carry: {kinds}")
    return lines


def _columns(pairs: tuple[str, ...]) -> dict[str, str]:
    from kg.ingest import FIELDS

    out = {}
    for pair in pairs:
        name, sep, column = pair.partition("=")
        name = name.strip().casefold()
        if not sep or not column.strip():
            raise click.BadParameter(f"{pair!r} is not FIELD=NAME", param_hint="--column")
        if name not in FIELDS:
            raise click.BadParameter(
                f"{name!r} is not one of kg's fields: {', '.join(FIELDS)}", param_hint="--column"
            )
        out[name] = column.strip()
    return out


def _codec(name: str | None) -> str | None:
    if name is None:
        return None
    import codecs

    try:
        return codecs.lookup(name).name
    except LookupError:
        raise click.BadParameter(
            f"unknown encoding {name!r}; use a name such as utf-8, cp1252, latin-1 or utf-16",
            param_hint="--encoding",
        ) from None


def _generated_at(option: str | None) -> datetime | None:
    """The build time to record: the option, else SOURCE_DATE_EPOCH, else none."""
    if option is None:
        epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
        if not epoch:
            return None
        try:
            return datetime.fromtimestamp(int(epoch), tz=UTC)
        except ValueError as exc:
            raise UserError(
                f"SOURCE_DATE_EPOCH={epoch!r} is not a number of seconds since 1970"
            ) from exc
    if option == "now":
        return datetime.now(UTC)
    try:
        at = datetime.fromisoformat(option)
    except ValueError as exc:
        raise UserError(
            f"--generated-at {option!r}: expected `now` or an ISO-8601 time such as "
            "2026-05-01T12:00:00Z"
        ) from exc
    return at if at.tzinfo else at.replace(tzinfo=UTC)


_VIEWS = ("index", "paper-map", "concept-map", "paper-concept")


@cli.command()
@click.argument("view", required=False, default="index", type=click.Choice(_VIEWS))
@_out_option("Build directory: read graph.json there, write the views there.")
@click.option("--no-open", is_flag=True, help="Write the views but do not open a browser.")
def view(view: str, out_dir: Path, no_open: bool) -> None:
    """Regenerate the views from a build's graph.json and open VIEW (default: index)."""
    import webbrowser

    from kg.build import rewrite_views
    from kg.export import VIEW_FILES

    rewrite_views(out_dir)
    page = (out_dir / VIEW_FILES[view]).resolve()
    click.echo(str(page))
    # webbrowser honours $BROWSER; with no browser it returns False and the path is enough.
    if not no_open and not webbrowser.open(page.as_uri()):
        click.echo(f"kg: no browser found; open {page.as_uri()} yourself", err=True)


@cli.command()
@click.argument("query_or_file")
@click.option(
    "--graph",
    "graph_path",
    default="output",
    show_default=True,
    type=click.Path(path_type=Path),
    help="A build directory, its kg.ttl (or any .ttl/.nt file), or a kg.oxigraph store.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "csv", "tsv", "json", "turtle", "ntriples"]),
    default="table",
    show_default=True,
    help="table: IRIs with prefixes, long values wrapped; csv/tsv/json: full IRIs; "
    "turtle/ntriples: CONSTRUCT and DESCRIBE results.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0),
    default=300,
    show_default=True,
    help="Stop the query after this many seconds (0: no limit).",
)
@click.option(
    "--bind",
    "binds",
    multiple=True,
    metavar="VAR=VALUE",
    help='Give a variable a value (a prefixed name, <IRI>, "text" or a number), '
    "e.g. --bind paper=paper:p-1; repeatable.",
)
@click.option(
    "--allow-service",
    is_flag=True,
    help="Allow SERVICE clauses, which send part of the query to other endpoints over the "
    "network (refused by default).",
)
def query(
    query_or_file: str,
    graph_path: Path,
    fmt: str,
    timeout: float,
    binds: tuple[str, ...],
    allow_service: bool,
) -> None:
    """Run a SPARQL query (text or a .rq file) over the built graph, read-only."""
    from kg.query import format_result, parse_term, run_query

    text = _query_text(query_or_file)
    bindings = {}
    for bind in binds:
        name, sep, value = bind.partition("=")
        if not sep or not name.strip().lstrip("?$"):
            raise UserError(f"--bind {bind!r}: expected VAR=VALUE, e.g. paper=paper:p-1")
        bindings[name.strip().lstrip("?$")] = parse_term(value)
    result = run_query(
        graph_path,
        text,
        timeout=timeout or None,
        allow_service=allow_service,
        bindings=bindings,
    )
    if result.note:
        click.echo(f"kg: note: {result.note}", err=True)
    click.echo(format_result(result, fmt), nl=False)


def _query_text(query_or_file: str) -> str:
    """The query: the file's text when the argument names a file, else the argument itself."""
    path = Path(query_or_file)
    if _is_file(path):
        try:
            return path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise UserError(f"{path}: cannot read the query file ({exc})") from exc
    looks_like_a_file = not any(c.isspace() for c in query_or_file) and (
        path.suffix.lower() in (".rq", ".sparql") or "/" in query_or_file
    )
    if looks_like_a_file:
        raise UserError(
            f"{query_or_file}: no such query file; pass an existing .rq file or the query text"
        )
    return query_or_file


@cli.command()
@click.argument("graph_path", metavar="[FILE]", default="output", type=click.Path(path_type=Path))
@click.option(
    "--mode",
    type=click.Choice(["auto", "full", "batch", "sample"]),
    default="auto",
    show_default=True,
    help="full: one pyshacl run; batch: every node, in bounded memory; sample: some nodes of "
    "each class (auto: full up to 150,000 triples, else sample).",
)
@click.option(
    "--sample-size",
    type=click.IntRange(min=1),
    default=200,
    show_default=True,
    help="Focus nodes per class for --mode sample.",
)
@click.option(
    "--batch-size",
    type=click.IntRange(min=1),
    default=2000,
    show_default=True,
    help="Focus nodes per pyshacl run for --mode batch and sample.",
)
def validate(graph_path: Path, mode: str, sample_size: int, batch_size: int) -> None:
    """Check a graph (a build directory, kg.ttl or a store) against ontology/shapes.ttl."""
    from kg.graph import FULL_LIMIT
    from kg.graph import validate as run_validate
    from kg.query import StoreTriples, load_rdf, open_store

    opened = open_store(graph_path)
    if opened.note:
        click.echo(f"kg: note: {opened.note}", err=True)
    chosen: Any = mode
    if mode == "auto":
        chosen = "full" if len(opened.store) <= FULL_LIMIT else "sample"
    source: Any = load_rdf(graph_path) if chosen == "full" else StoreTriples(opened.store)
    progress = _Progress()

    def step(done: int, total: int) -> None:
        progress("validating", done, total)

    try:
        report = run_validate(
            source,
            chosen,
            sample_size=sample_size,
            batch_size=batch_size,  # type: ignore[arg-type]
            progress=step,
        )
    finally:
        progress.close()
    for result in report.results:
        click.echo(f"{result.severity}: {result}")
    click.echo(f"{graph_path}: {report.summary()}")
    if not report.conforms:
        sys.exit(1)


@cli.command()
@click.argument("graph_path", metavar="[DIR]", default="output", type=click.Path(path_type=Path))
@click.option("--port", type=click.IntRange(1, 65535), default=7878, show_default=True)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0),
    default=300,
    show_default=True,
    help="Seconds after which the server stops a query (0: no limit).",
)
def serve(graph_path: Path, port: int, timeout: float) -> None:
    """Serve the built graph as a read-only SPARQL 1.1 endpoint on 127.0.0.1 (Oxigraph)."""
    from kg.query import endpoint

    server = endpoint(graph_path, port=port, timeout=timeout or None)
    click.echo(
        f"kg: serving {server.store} read-only at {server.url} (SPARQL 1.1 Protocol); "
        "Ctrl-C stops it",
        err=True,
    )
    try:
        process = subprocess.Popen(server.command)
    except OSError as exc:
        raise UserError(f"cannot start the Oxigraph server: {exc}") from exc
    try:
        code = process.wait()
    except KeyboardInterrupt:
        process.terminate()
        process.wait()
        click.echo("\nkg: server stopped", err=True)
        return
    if code:
        raise UserError(
            f"the Oxigraph server exited with status {code} (is port {port} in use? try --port)"
        )


@cli.command()
@click.argument("graph_path", metavar="[DIR]", default="output", type=click.Path(path_type=Path))
@click.option("--top", type=click.IntRange(min=1), default=10, show_default=True)
@click.option(
    "--neighbours",
    type=click.IntRange(min=1),
    default=3,
    show_default=True,
    help="Nearest neighbours shown per paper.",
)
def stats(graph_path: Path, top: int, neighbours: int) -> None:
    """Top concepts by degree and betweenness, communities, each paper's nearest neighbours."""
    from kg.query import format_stats, graph_stats, load_graph

    click.echo(
        format_stats(graph_stats(load_graph(graph_path), top=top, neighbours=neighbours)), nl=False
    )


@cli.command(name="eval")
@click.argument("gold", type=click.Path(path_type=Path))
@click.option(
    "--limit", type=click.IntRange(min=1), default=None, help="Score only the first N records."
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option(
    "--taxonomy",
    type=click.Path(path_type=Path),
    default=None,
    help="SKOS field taxonomy (Turtle); default: ontology/fields.ttl.",
)
@click.option(
    "--baseline",
    type=click.Choice(["keybert", "tfidf", "embedding"]),
    default=None,
    help="keybert: score plain KeyBERT (untyped top-10 1-3-grams) instead of kg; tfidf, "
    "embedding: also measure that similarity's links at kg's edge count.",
)
def eval_(
    gold: Path, limit: int | None, as_json: bool, taxonomy: Path | None, baseline: str | None
) -> None:
    """Measure extraction against GOLD annotations (JSONL; SciERC and ICLR records too)."""
    from kg.evaluate import evaluate_file, format_report, report_json

    progress = _Progress()
    try:
        report = evaluate_file(
            gold, baseline=baseline, taxonomy_path=taxonomy, limit=limit, progress=progress
        )
    finally:
        progress.close()
    click.echo(report_json(report) if as_json else format_report(report), nl=False)


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:  # a long query string is not a valid file name
        return False


def _terminate(signum: int, frame: Any) -> None:
    raise _Terminated()


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``kg`` command: SIGTERM stops a build as cleanly as Ctrl-C."""
    signal.signal(signal.SIGTERM, _terminate)
    cli.main(args=argv, prog_name="kg")


if __name__ == "__main__":
    main()
