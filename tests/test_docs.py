"""The README and the manual: short, linked, complete, and built offline.

The manual (docs/, mkdocs.yml) is built once here, in strict mode (a broken link, anchor or
nav entry fails) and with every network connection refused, into a temporary directory; the
built pages must load nothing from outside the site. Every command and option of the click
group appears in the manual's pages, and in the generated command-line reference. The
README stays a five-minute read: under 12 KB, every relative link and picture resolving.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import click
import pytest

from kg.cli import cli

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = sorted((ROOT / "docs").rglob("*.md"))
#: The README's size limit, in bytes: a newcomer reads it in five minutes.
README_LIMIT = 12 * 1024
PICTURE_LIMIT = 300 * 1024

#: Runs MkDocs with every connection refused: the manual must build offline.
_OFFLINE_MKDOCS = """
import runpy, socket, sys

def refuse(*args, **kwargs):
    raise OSError("the manual's build tried the network")

socket.socket.connect = refuse
socket.create_connection = refuse
socket.getaddrinfo = refuse
sys.argv = ["mkdocs", *sys.argv[1:]]
runpy.run_module("mkdocs", run_name="__main__", alter_sys=True)
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The manual built as ``make docs`` builds it, into a temporary directory."""
    out = tmp_path_factory.mktemp("site")
    run = subprocess.run(
        [sys.executable, "-c", _OFFLINE_MKDOCS, "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return out


def _options(command: click.Command) -> list[str]:
    """The long option names of a command, --help left out."""
    return [
        name
        for param in command.params
        if isinstance(param, click.Option)
        for name in param.opts + param.secondary_opts
        if name.startswith("--") and name != "--help"
    ]


def test_every_command_and_option_is_in_the_manual():
    """Each is written about in some page, not only listed by the generated reference."""
    text = "\n".join(p.read_text(encoding="utf-8") for p in [README, *PAGES])
    missing = [option for option in _options(cli) if option not in text]
    for name, command in cli.commands.items():
        if f"kg {name}" not in text:
            missing.append(f"kg {name}")
        missing += [f"kg {name} {o}" for o in _options(command) if o not in text]
    assert missing == [], f"not in README.md or docs/: {missing}"


def test_the_command_line_reference_lists_every_command_and_option(site):
    page = (site / "reference" / "cli.html").read_text(encoding="utf-8")
    for name, command in cli.commands.items():
        section = page[page.index(f'id="kg-{name}"') :]
        section = section[: section.find('<h3 id="kg-', 1)]
        for option in _options(command):
            assert option in section, f"kg {name} {option} is not in the CLI reference"


def test_the_readme_is_short_and_says_the_two_commands():
    text = README.read_text(encoding="utf-8")
    assert len(text.encode("utf-8")) <= README_LIMIT, len(text.encode("utf-8"))
    assert "make run" in text and "make test" in text


def test_the_readmes_relative_links_and_picture_resolve():
    text = README.read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)\s]+)\)", text)
    local = [t for t in targets if not re.match(r"[a-z]+:", t)]
    assert local, "the README links to no page of the manual"
    for target in local:
        path = target.split("#")[0]
        assert path and (ROOT / path).exists(), f"README.md links to {target}, which is missing"
    pictures = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    assert len(pictures) == 1, pictures
    assert (ROOT / pictures[0]).stat().st_size < PICTURE_LIMIT


class _References(HTMLParser):
    """What a page loads: scripts, styles, pictures, frames and the like, by tag."""

    LOADS = {
        "script": "src",
        "link": "href",
        "img": "src",
        "iframe": "src",
        "source": "src",
        "video": "src",
        "audio": "src",
        "embed": "src",
        "object": "data",
    }

    def __init__(self) -> None:
        super().__init__()
        self.loaded: list[str] = []
        self.styles: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in self.LOADS and attrs.get(self.LOADS[tag]):
            self.loaded.append(attrs[self.LOADS[tag]])
        if tag == "img" and attrs.get("srcset"):
            self.loaded.append(attrs["srcset"])
        if attrs.get("style"):
            self.styles.append(attrs["style"])

    def handle_data(self, data):
        if self.lasttag == "style":
            self.styles.append(data)


def _outside(reference: str) -> bool:
    return re.match(r"\s*(https?:)?//", reference) is not None


def test_the_built_manual_loads_nothing_from_outside(site):
    pages = sorted(site.rglob("*.html"))
    assert len(pages) >= len(PAGES)
    found, without_shim = [], []
    for page in pages:
        refs = _References()
        refs.feed(page.read_text(encoding="utf-8"))
        found += [f"{page.name}: {r}" for r in refs.loaded if _outside(r)]
        for style in refs.styles:
            found += [f"{page.name}: {u}" for u in re.findall(r"url\(([^)]*)\)", style)]
        if not any(r.endswith("file-worker.js") for r in refs.loaded):
            without_shim.append(page.name)  # search from disk needs it
    for sheet in site.rglob("*.css"):
        text = sheet.read_text(encoding="utf-8")
        urls = re.findall(r"url\(\s*['\"]?([^)'\"]*)", text)
        urls += re.findall(r"@import\s+['\"]([^'\"]+)", text)
        found += [f"{sheet.name}: {u}" for u in urls if _outside(u)]
    assert found == []
    assert without_shim == []


def test_search_works_from_disk(site):
    """The index is a script (the offline plugin) and pages link pages, not directories."""
    index = (site / "search" / "search_index.js").read_text(encoding="utf-8")
    assert index.startswith("var __index = ") and "Query catalogue" in index
    home = (site / "index.html").read_text(encoding="utf-8")
    assert 'href="getting-started.html"' in home


def _hook():
    spec = importlib.util.spec_from_file_location("queries_hook", ROOT / "docs/hooks/queries.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_query_catalogue_is_made_from_the_files(site):
    page = (site / "reference" / "queries.html").read_text(encoding="utf-8")
    hook = _hook()
    queries = sorted((ROOT / "queries").glob("*.rq"))
    for path in queries:
        question = hook.question(path.read_text(encoding="utf-8"))
        assert question.endswith(("?", ".")) and f"<p>{question}</p>" in page.replace("&#39;", "'")
        assert f"<summary>The query: <code>queries/{path.name}</code></summary>" in page
    assert page.count("<summary>The query: ") == len(queries)


def test_a_query_without_a_section_fails_the_build():
    from mkdocs.exceptions import PluginError

    hook = _hook()
    markdown = "<!-- queries -->\n\n### `a.rq`\n"
    queries = {"a.rq": "# What is a?\nSELECT * {}\n", "b.rq": "# And b?\nASK {}\n"}
    with pytest.raises(PluginError, match="no section for b.rq"):
        hook.catalogue(markdown, queries)
    with pytest.raises(PluginError, match="not in queries/"):
        hook.catalogue(markdown + "\n### `c.rq`\n", {"a.rq": queries["a.rq"]})
    made = hook.catalogue(markdown, {"a.rq": queries["a.rq"]})
    assert "| [`a.rq`](#arq) | What is a? |" in made and "    SELECT * {}" in made
