"""The commands that read a built graph: ``kg query``, ``validate``, ``serve`` and ``stats``."""

from __future__ import annotations

import signal
import sys
from pathlib import Path
from typing import Any

import click

from kg import defaults
from kg.cli.app import SECONDS, ProgressLine, UserError, cli, graph_argument


@cli.command()
@click.argument("query_or_file")
@click.option(
    "--graph",
    "graph_path",
    default=defaults.OUT_DIR,
    show_default=True,
    type=click.Path(path_type=Path),
    help="A build directory, its kg.ttl (or any .ttl/.nt file), or a kg.oxigraph store.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(defaults.RESULT_FORMATS),
    default=defaults.RESULT_FORMAT,
    show_default=True,
    help="table: IRIs with prefixes, long values wrapped; csv/tsv/json: full IRIs; "
    "turtle/ntriples: CONSTRUCT and DESCRIBE results.",
)
@click.option(
    "--timeout",
    type=SECONDS,
    default=defaults.QUERY_TIMEOUT,
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
    if result.hint:
        click.echo(f"kg: hint: {result.hint}", err=True)


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


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:  # a long query string is not a valid file name
        return False


@cli.command()
@graph_argument("FILE")
@click.option(
    "--mode",
    type=click.Choice(defaults.VALIDATIONS),
    default=defaults.VALIDATION,
    show_default=True,
    help="full: one pyshacl run; batch: every node, in bounded memory; sample: some nodes of "
    f"each class (auto: full up to {defaults.FULL_LIMIT:,} triples, else sample).",
)
@click.option(
    "--sample-size",
    type=click.IntRange(min=1),
    default=defaults.SAMPLE_SIZE,
    show_default=True,
    help="Focus nodes per class for --mode sample.",
)
@click.option(
    "--batch-size",
    type=click.IntRange(min=1),
    default=defaults.VALIDATE_BATCH,
    show_default=True,
    help="Focus nodes per pyshacl run for --mode batch and sample.",
)
def validate(graph_path: Path, mode: str, sample_size: int, batch_size: int) -> None:
    """Check a graph (a build directory, kg.ttl or a store) against ontology/shapes.ttl."""
    from kg.query import StoreTriples, load_rdf, open_store
    from kg.validate import TripleList, chosen_mode
    from kg.validate import validate as run_validate

    opened = open_store(graph_path)
    if opened.note:
        click.echo(f"kg: note: {opened.note}", err=True)
    chosen = chosen_mode(mode, len(opened.store))  # type: ignore[arg-type]
    if chosen == "full":
        source: Any = load_rdf(graph_path)
    elif chosen == "sample":  # read in passes: quicker than a lookup per node
        source = TripleList([quad.triple for quad in opened.store])
    else:  # every node, a batch at a time, in bounded memory
        source = StoreTriples(opened.store)
    progress = ProgressLine()

    def step(done: int, total: int) -> None:
        progress("validating", done, total)

    try:
        report = run_validate(
            source,
            chosen,
            sample_size=sample_size,
            batch_size=batch_size,
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
@graph_argument("DIR")
@click.option(
    "--host",
    default=defaults.HOST,
    show_default=True,
    help="The address to listen on; any other than loopback lets other machines query it.",
)
@click.option("--port", type=click.IntRange(1, 65535), default=defaults.PORT, show_default=True)
@click.option(
    "--timeout",
    type=SECONDS,
    default=300,
    show_default=True,
    help="Seconds after which the server stops a query and answers 503 (0: no limit).",
)
@click.option(
    "--allow-service",
    is_flag=True,
    help="Let clients' SERVICE clauses make the server query other endpoints over the "
    "network (refused by default).",
)
def serve(graph_path: Path, host: str, port: int, timeout: float, allow_service: bool) -> None:
    """Serve the built graph as a read-only SPARQL 1.1 endpoint (on 127.0.0.1 by default)."""
    from kg.query import is_loopback, open_endpoint

    endpoint = open_endpoint(
        graph_path, host=host, port=port, timeout=timeout or None, allow_service=allow_service
    )
    if not is_loopback(host):
        click.echo(
            f"kg: warning: listening on {host}, not only this machine: the endpoint is "
            "read-only but unauthenticated, so anyone who can reach the port can query the "
            "graph",
            err=True,
        )
    # Ctrl-C and a plain kill (SIGTERM) both stop the server, even when kg serve was
    # started with SIGINT ignored (a background job of a script).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        click.echo(
            f"kg: serving {endpoint.store} read-only at {endpoint.url} (SPARQL 1.1 Protocol); "
            "Ctrl-C stops it",
            err=True,
        )
        endpoint.serve_forever()
    except KeyboardInterrupt:
        click.echo("\nkg: server stopped", err=True)
    finally:
        endpoint.close()


@cli.command()
@graph_argument("DIR")
@click.option("--top", type=click.IntRange(min=1), default=defaults.STATS_TOP, show_default=True)
@click.option(
    "--neighbours",
    type=click.IntRange(min=1),
    default=defaults.STATS_NEIGHBOURS,
    show_default=True,
    help="Nearest neighbours shown per paper.",
)
def stats(graph_path: Path, top: int, neighbours: int) -> None:
    """Top concepts by degree and betweenness, communities, each paper's nearest neighbours."""
    from kg.query import format_stats, graph_stats, load_graph

    click.echo(
        format_stats(graph_stats(load_graph(graph_path), top=top, neighbours=neighbours)), nl=False
    )
