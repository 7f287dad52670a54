"""kg's command line: thin commands over :mod:`kg.build`, :mod:`kg.query`, :mod:`kg.evaluate`.

The only module that prints or exits. Data goes to stdout; progress, warnings
and errors go to stderr; a user mistake is one line of explanation and exit
status 1, never a traceback.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import click

from kg.errors import KGError

__all__ = ["main", "cli"]

#: Exit status of a run stopped by Ctrl-C (128 + SIGINT), as shells report it.
INTERRUPTED = 130


class UserError(click.ClickException):
    """A :class:`~kg.errors.KGError` at the command line: one line on stderr, status 1."""

    def show(self, file: Any = None) -> None:
        click.echo(f"kg: error: {self.message}", err=True)


class _Interrupted(click.ClickException):
    exit_code = INTERRUPTED

    def show(self, file: Any = None) -> None:
        click.echo("\nkg: interrupted; previous output left as it was", err=True)


class _Group(click.Group):
    """Turns kg's errors into click's, so they print the same however the CLI is run."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KGError as exc:
            raise UserError(str(exc)) from exc
        except (KeyboardInterrupt, click.exceptions.Abort) as exc:
            raise _Interrupted("interrupted") from exc


class _Progress:
    """One self-overwriting stderr line per stage (plain lines when not a TTY)."""

    def __init__(self) -> None:
        self.tty = sys.stderr.isatty()
        self.last = ("", -1)
        self.start = time.monotonic()

    def __call__(self, stage: str, done: int, total: int) -> None:
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
@_out_option("Directory for kg.ttl, graph.graphml, graph.json, the views and index.html.")
@click.option(
    "--taxonomy",
    type=click.Path(path_type=Path),
    default=None,
    help="SKOS field taxonomy (Turtle); default: ontology/fields.ttl.",
)
def build(inputs: tuple[Path, ...], out_dir: Path, taxonomy: Path | None) -> None:
    """Build the graph from INPUTS (files or directories; default: seeds/)."""
    from kg.build import build as run_build

    progress = _Progress()
    try:
        result = run_build(
            list(inputs) or [Path("seeds")], out_dir, taxonomy_path=taxonomy, progress=progress
        )
    finally:
        progress.close()
    kinds = ", ".join(f"{n} {k}s" for k, n in result.concepts.items())
    files = ", ".join(str(f) for f in result.files)
    click.echo(
        f"{result.papers} papers, {sum(result.concepts.values())} concepts ({kinds}), "
        f"{result.links} links, {result.edges} shared-concept edges; wrote {files}"
    )


_VIEWS = ("index", "paper-map", "concept-map", "paper-concept")


@cli.command()
@click.argument("view", required=False, default="index", type=click.Choice(_VIEWS))
@_out_option("Build directory: read graph.json there, write the views there.")
@click.option("--no-open", is_flag=True, help="Write the views but do not open a browser.")
def view(view: str, out_dir: Path, no_open: bool) -> None:
    """Regenerate the views from a build's graph.json and open VIEW (default: index)."""
    import webbrowser

    from kg.export import VIEW_FILES, graph_from_json, render_views, write_files

    source = out_dir / "graph.json"
    try:
        text = source.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError(f"{source} not found; run kg build first (or pass --out DIR)") from None
    except OSError as exc:
        raise UserError(f"cannot read {source}: {exc.strerror}") from exc
    write_files(out_dir, render_views(graph_from_json(text, str(source))))
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
    type=click.Choice(["keybert"]),
    default=None,
    help="Score plain KeyBERT (untyped top-10 1-3-grams) instead of kg.",
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


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``kg`` command."""
    cli.main(args=argv, prog_name="kg")


if __name__ == "__main__":
    main()
