"""MkDocs hook: the query catalogue, read from ``queries/*.rq`` at every build.

The catalogue page (``reference/queries.md``) holds one section per query, headed by the
file's name in backticks, with the transcript of running it on the seeds (checked against
kg by ``tests/test_readme.py``). This hook adds what comes from the file itself, so it is
never out of step: the table of every query and the question it answers (``<!-- queries -->``),
and under each heading the question and the query's text. A query without a section, or a
section without a query, fails the build.
"""

from __future__ import annotations

import re
from pathlib import Path

from mkdocs.exceptions import PluginError

ROOT = Path(__file__).resolve().parents[2]
QUERIES = ROOT / "queries"
PAGE = "reference/queries.md"
TABLE = "<!-- queries -->"
_HEADING = re.compile(r"^### `([\w.-]+\.rq)`$", re.M)


def question(text: str) -> str:
    """The query's opening comment up to its first question mark (or full stop)."""
    comment = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        comment.append(line.lstrip("#").strip())
    words = " ".join(comment)
    end = re.search(r"[?.](\s|$)", words)
    return words[: end.end()].strip() if end else words


def catalogue(markdown: str, queries: dict[str, str]) -> str:
    """``markdown`` with the table and each query's question and text put in."""
    named = _HEADING.findall(markdown)
    if missing := sorted(set(queries) - set(named)):
        raise PluginError(f"{PAGE} has no section for {', '.join(missing)} (### `name.rq`)")
    if unknown := sorted(set(named) - set(queries)):
        raise PluginError(f"{PAGE} has a section for {', '.join(unknown)}, not in queries/")
    if TABLE not in markdown:
        raise PluginError(f"{PAGE} has no {TABLE} line for the table of queries")
    rows = ["| file | the question it answers |", "|---|---|"]
    rows += [f"| [`{name}`](#{_anchor(name)}) | {question(queries[name])} |" for name in named]
    markdown = markdown.replace(TABLE, "\n".join(rows))

    def section(match: re.Match[str]) -> str:
        text = queries[match.group(1)]
        return (
            f"{match.group(0)}\n\n{question(text)}\n\n"
            f'??? note "The query: `queries/{match.group(1)}`"\n\n'
            "    ```sparql\n" + "".join(f"    {line}\n" for line in text.splitlines()) + "    ```\n"
        )

    return _HEADING.sub(section, markdown)


def _anchor(name: str) -> str:
    """The id MkDocs' toc extension gives the heading `` `name.rq` ``."""
    return re.sub(r"[^\w-]", "", name.lower())


def on_page_markdown(markdown: str, page, config, files) -> str:  # noqa: ARG001 (MkDocs' hook)
    if page.file.src_uri != PAGE:
        return markdown
    queries = {p.name: p.read_text(encoding="utf-8") for p in sorted(QUERIES.glob("*.rq"))}
    return catalogue(markdown, queries)
