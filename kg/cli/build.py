"""``kg build`` and ``kg view``: the graph from the inputs, and its views from graph.json."""

from __future__ import annotations

import os
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

from kg import defaults
from kg.cli.app import ProgressLine, UserError, cli, out_option, taxonomy_option
from kg.words import plural

#: Locations of skipped records listed per reason in the summary.
SHOWN_SKIPS = 3


@cli.command()
@click.argument("inputs", nargs=-1, type=click.Path(path_type=Path))
@out_option("Output directory, replaced as a whole by each build; it must hold only kg's files.")
@taxonomy_option()
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
    help=f"Largest input file to read, in MiB (default {defaults.MAX_FILE_BYTES >> 20}).",
)
@click.option(
    "--validate",
    "validation",
    type=click.Choice(defaults.VALIDATIONS),
    default=defaults.VALIDATION,
    show_default=True,
    help="How the graph is checked against ontology/shapes.ttl before the output is replaced "
    f"(auto: full up to {defaults.FULL_LIMIT:,} triples, else a sample).",
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
@click.option(
    "--no-cache",
    is_flag=True,
    help="Neither read nor write the extraction cache (and rebuild even if up to date).",
)
@click.option(
    "--force",
    is_flag=True,
    help="Rebuild even if the output is up to date (same inputs, settings and kg as its "
    "build, and no file changed since).",
)
@click.option(
    "--executor",
    type=click.Choice(defaults.EXECUTORS),
    default=defaults.EXECUTORS[0],
    show_default=True,
    help="Where papers are extracted: this process, or a Dask cluster (pip install 'kg[dask]').",
)
@click.option(
    "--scheduler",
    metavar="ADDRESS",
    default=None,
    help="The Dask scheduler to use (e.g. tcp://host:8786); default: a local cluster.",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=defaults.WORKERS,
    show_default=True,
    help="Worker processes of the local Dask cluster (without --scheduler).",
)
@click.option(
    "--batch-size",
    type=click.IntRange(min=1),
    default=defaults.EXTRACT_BATCH,
    show_default=True,
    help="Papers extracted together; on a cluster, the papers of one task.",
)
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
    force: bool,
    executor: str,
    scheduler: str | None,
    workers: int,
    batch_size: int,
) -> None:
    """Build the graph from INPUTS (files or directories; default: seeds/)."""
    from kg.build import BuildRequest, ReadOptions
    from kg.build import build as run_build
    from kg.extract import Cluster, default_cache_dir

    read = ReadOptions(
        columns=_columns(columns),
        encoding=_codec(encoding),
        max_file_bytes=max_file_mb * (1 << 20) if max_file_mb else defaults.MAX_FILE_BYTES,
        strict=strict,
    )
    if scheduler is not None and executor != "dask":
        raise click.UsageError("--scheduler needs --executor dask")
    request = BuildRequest(
        list(inputs) or [Path("seeds")],
        taxonomy_path=taxonomy,
        read=read,
        generated_at=_generated_at(generated_at),
        validation=validation,  # type: ignore[arg-type]
        cache_dir=None if no_cache else cache_dir or default_cache_dir(),
        cluster=Cluster(scheduler, workers) if executor == "dask" else None,
        batch_size=batch_size,
    )
    ctx.meta["kg.written"] = False
    progress = ProgressLine(ctx.meta)
    try:
        result = run_build(request, out_dir, progress=progress, keep_current=not force)
    finally:
        progress.close()
    for warning in result.warnings:
        click.echo(f"kg: warning: {warning}", err=True)
    for line in _summary(result):
        click.echo(line)


def _summary(result: Any) -> list[str]:
    """One line of what the build made and wrote, then the details indented."""
    kinds = ", ".join(plural(n, k) for k, n in result.concepts.items())
    files = ", ".join(str(f) for f in result.files)
    skipped = f"; skipped {plural(len(result.skipped), 'record')}" if result.skipped else ""
    if result.merged:
        skipped = f"; merged {plural(len(result.merged), 'record')}{skipped}"
    wrote = f"kept {files} (up to date)" if result.up_to_date else f"wrote {files}"
    lines = [
        f"{plural(result.papers, 'paper')}, {plural(sum(result.concepts.values()), 'concept')} "
        f"({kinds}), {plural(result.links, 'link')}, "
        f"{plural(result.edges, 'shared-concept edge')}; {wrote}{skipped}; "
        f"SHACL: {result.validation.summary() if result.validation else 'not checked'}"
    ]
    lines += [f"  {line}" for line in _details(result)]
    if result.up_to_date:
        lines.append(
            "  nothing changed since the build that wrote them (inputs, settings, kg and "
            "every output file); --force rebuilds"
        )
    elif result.reused:
        lines.append(
            f"  reused the extraction of {result.reused} of {result.papers} papers (cache)"
        )
    return lines


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
        lines.append(f"skipped {plural(len(skips), 'record')}: {reason} ({shown}{more})")
    merged = result.merged
    if merged:
        shown = "; ".join(f"{m.source}: {m.detail}" for m in merged[:SHOWN_SKIPS])
        more = f"; and {len(merged) - SHOWN_SKIPS} more" if len(merged) > SHOWN_SKIPS else ""
        lines.append(
            f"merged {plural(len(merged), 'record')} into the papers they repeat ({shown}{more}); "
            "each paper keeps every record's identifiers and locations"
        )
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


_VIEWS = ("index", *(v.key for v in defaults.VIEWS))


@cli.command()
@click.argument("view", required=False, default="index", type=click.Choice(_VIEWS))
@out_option("Build directory: read graph.json there, write the views there.")
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
