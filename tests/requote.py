"""Refit the quoted outputs of README.md and docs/ to what kg prints now.

    make quotes        # = .venv/bin/python tests/requote.py

Builds the seeds into a temporary directory, runs every transcript and
analytics script that ``tests/test_readme.py`` checks, and rewrites each quote
that no longer matches, keeping its shape: a quote's ``…`` lines and the
lines cut with ``…`` stay where the new output still fits them, and a
``(N rows)`` line takes the new count. Review the diff: it is what a change
did to the outputs a reader sees.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parent))

import test_readme as pages  # noqa: E402

from kg.cli import cli  # noqa: E402

Edit = tuple[int, int, list[str]]  # first quoted line (1-based), lines quoted, new lines


def fit_line(quote: str, line: str) -> str:
    """``quote`` if it still matches ``line``; else ``line``, cut where ``quote`` was cut."""
    if pages.quoted_line(quote, line):
        return quote
    if "…" not in quote:
        return line
    keep = len(quote.split("…")[0].rstrip())
    cut = line[:keep]
    if len(line) > keep and " " in cut:
        cut = cut[: cut.rfind(" ")]
    return f"{cut} …" if len(line) > len(cut) else line


def fit(quoted: tuple[str, ...], output: list[str]) -> list[str]:
    """The quote of ``output`` shaped like ``quoted``: the same parts between ``…`` lines."""
    parts: list[list[str]] = [[]]
    for line in quoted:
        if line.strip() == "…":
            parts.append([])
        else:
            parts[-1].append(line)
    if len(parts) == 1:
        return list(output)
    first, *middle, last = parts
    new = [fit_line(q, line) for q, line in zip(first, output, strict=False)]
    i, end = len(first), max(len(first), len(output) - len(last))
    for part in middle:
        new.append("…")
        start = part[0].split("…")[0].strip()[:12]
        at = next((k for k in range(i, end) if output[k].strip().startswith(start)), None)
        if at is not None:
            new += [fit_line(q, line) for q, line in zip(part, output[at:], strict=False)]
            i = at + len(part)
    return [*new, "…", *(fit_line(q, line) for q, line in zip(last, output[end:], strict=False))]


def refit(directory: Path) -> dict[str, tuple[list[Edit], list[tuple[int, int]]]]:
    """The edits of each page: its quotes to rewrite and its row counts to change."""
    edits: dict[str, tuple[list[Edit], list[tuple[int, int]]]] = {}
    shell = pages.Shell(directory)
    try:
        for transcript in pages.SEED_TRANSCRIPTS:
            for command in transcript.commands:
                quotes, rows = edits.setdefault(command.page, ([], []))
                output = shell.run(command.text)
                try:
                    pages.check_quote(command, output)
                except AssertionError:
                    lines = pages.PAGES[command.page].splitlines()
                    at = command.line
                    while lines[at - 1].endswith("\\"):
                        at += 1
                    quotes.append((at + 1, len(command.quoted), fit(command.quoted, output)))
                if command.rows is not None:
                    counted = shell.rows(command.text)
                    if counted != command.rows:
                        rows.append((command.rows, counted))
    finally:
        shell.close()
    for script in pages.scripts():
        run = subprocess.run(
            [sys.executable, "-c", script.code], cwd=directory, capture_output=True, text=True
        )
        if run.returncode:
            raise SystemExit(f"{script.page}:{script.line}: the script failed:\n{run.stderr}")
        output = run.stdout.splitlines()
        command = pages.Command(script.line, "python", script.quoted, page=script.page)
        try:
            pages.check_quote(command, output)
        except AssertionError:
            quotes, _ = edits.setdefault(script.page, ([], []))
            quotes.append((script.line, len(script.quoted), fit(script.quoted, output)))
    return edits


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        directory = Path(scratch)
        result = CliRunner().invoke(
            cli, ["build", str(pages.ROOT / "seeds"), "--out", str(directory / "output")]
        )
        if result.exit_code:
            raise SystemExit(result.output)
        (directory / "queries").symlink_to(pages.ROOT / "queries")
        here = Path.cwd()
        os.chdir(directory)  # the commands read output/ and queries/ from where they run
        try:
            edits = refit(directory)
        finally:
            os.chdir(here)
    for page, (quotes, rows) in sorted(edits.items()):
        if not quotes and not rows:
            continue
        path = pages.ROOT / page
        lines = path.read_text(encoding="utf-8").split("\n")
        for first, count, new in sorted(quotes, reverse=True):
            lines[first - 1 : first - 1 + count] = new
        text = "\n".join(lines)
        for old, new_rows in rows:
            text = text.replace(f"({old} rows)", f"({new_rows} rows)", 1)
        path.write_text(text, encoding="utf-8")
        print(f"{page}: {len(quotes)} quotes, {len(rows)} row counts refitted")


if __name__ == "__main__":
    main()
