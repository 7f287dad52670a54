"""kg's command line: thin commands over :mod:`kg.build`, :mod:`kg.query`, :mod:`kg.evaluate`.

The only module that prints or exits. Data goes to stdout; progress, warnings
and errors go to stderr; a user mistake is one line of explanation and a
documented exit status (README, "Exit status"), never a traceback.
"""

from __future__ import annotations

import signal
import sys
import time
from collections import Counter
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
            msg = f"{stage}: {done}/{total} papers"
        else:
            msg = f"{stage}…"
        elapsed = time.monotonic() - self.start
        click.echo(f"\r[{elapsed:6.1f}s] {msg}" + ("" if self.tty else "\n"), err=True, nl=False)

    def close(self) -> None:
        if self.tty:
            click.echo("", err=True)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="kg")
def cli() -> None:
    """Build knowledge graphs of research papers and query them."""


@cli.command()
@click.argument("inputs", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--out",
    "out_dir",
    default="output",
    show_default=True,
    type=click.Path(path_type=Path),
    help="Output directory, replaced as a whole by each build; it must hold only kg's files.",
)
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
    progress = _Progress(ctx.meta)
    try:
        result = run_build(
            list(inputs) or [Path("seeds")],
            out_dir,
            taxonomy_path=taxonomy,
            progress=progress,
            options=options,
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
        f"{result.links} links, {result.edges} shared-concept edges; wrote {files}{skipped}"
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


@cli.command()
@click.argument("query_or_file")
@click.option(
    "--graph",
    "graph_path",
    default="output/kg.ttl",
    show_default=True,
    type=click.Path(path_type=Path),
    help="Turtle file to query.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "csv", "tsv", "json"]),
    default="table",
    show_default=True,
)
def query(query_or_file: str, graph_path: Path, fmt: str) -> None:
    """Run a SPARQL query (text or a .rq file) over the built graph."""
    from kg.query import format_rows, load_graph, run_query

    path = Path(query_or_file)
    text = path.read_text(encoding="utf-8") if _is_file(path) else query_or_file
    columns, rows = run_query(load_graph(graph_path), text)
    click.echo(format_rows(columns, rows, fmt), nl=False)


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
