"""``kg eval``: extraction and links measured against gold annotations."""

from __future__ import annotations

from pathlib import Path

import click

from kg import defaults
from kg.cli.app import ProgressLine, cli, taxonomy_option


@cli.command(name="eval")
@click.argument("gold", type=click.Path(path_type=Path))
@click.option(
    "--limit", type=click.IntRange(min=1), default=None, help="Score only the first N records."
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@taxonomy_option()
@click.option(
    "--baseline",
    type=click.Choice(defaults.BASELINES),
    default=None,
    help="keybert: score plain KeyBERT (untyped top-10 1-3-grams) instead of kg; tfidf, "
    "embedding: also measure that similarity's links at kg's edge count.",
)
def eval_(
    gold: Path, limit: int | None, as_json: bool, taxonomy: Path | None, baseline: str | None
) -> None:
    """Measure extraction against GOLD annotations (JSONL; SciERC and ICLR records too)."""
    from kg.evaluate import evaluate_file, format_report, report_json

    progress = ProgressLine()
    try:
        report = evaluate_file(
            gold, baseline=baseline, taxonomy_path=taxonomy, limit=limit, progress=progress
        )
    finally:
        progress.close()
    click.echo(report_json(report) if as_json else format_report(report), nl=False)
