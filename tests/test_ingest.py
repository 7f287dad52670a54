"""Tests for kg.ingest: every input format, stable ids, duplicates and errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kg.errors import InputError, SkippedError
from kg.ingest import (
    MERGED,
    NO_ABSTRACT,
    SUPPORTED_SUFFIXES,
    paper_id,
    read_inputs,
    read_papers,
)
from kg.text import clean

ROOT = Path(__file__).parents[1]
SEEDS = ROOT / "seeds"
DATA = Path(__file__).parents[2] / "shared" / "data"
SAFE_ID = re.compile(r"^[A-Za-z0-9._-]+$")

ABSTRACT_A = "We propose $\\mathtt{FastNet}$, a network for graphs.\nIt is fast."
ABSTRACT_B = "We study heavy-tailed noise in stochastic gradient descent."


def write(path: Path, text: str, encoding: str = "utf-8") -> Path:
    path.write_text(text, encoding=encoding)
    return path


# --- plain-text lists --------------------------------------------------------


def test_seed_files_give_37_neurips_2026_papers() -> None:
    files = sorted(SEEDS.glob("*.txt"))
    assert [f.name[:3] for f in files] == ["000", "002"]
    papers = read_papers(files)
    assert len(papers) == 37
    assert {(p.venue, p.year) for p in papers} == {("NeurIPS", 2026)}
    titles = {"NeurIPS 2026 论文列表", "NeurIPS 2026 Papers"}
    assert not [p for p in papers if p.abstract in titles or "论文" in p.abstract]
    assert all(p.source.split(":")[-1] != "1" for p in papers)
    assert len({p.id for p in papers}) == 37
    assert all(SAFE_ID.match(p.id) for p in papers)


def test_seed_directory_reads_like_its_files() -> None:
    assert read_papers([SEEDS]) == read_papers(sorted(SEEDS.glob("*.txt")))


def test_seed_text_is_cleaned_and_abstract_kept() -> None:
    papers = read_papers([SEEDS])
    sgd = next(p for p in papers if "Clipped" in p.abstract)
    assert "$\\mathtt{Clipped}\\text{-}\\mathtt{SGD}$" in sgd.abstract
    assert "Clipped-SGD" in sgd.text and "mathtt" not in sgd.text
    assert all(p.text == clean(p.abstract) for p in papers)


def test_plain_text_paragraphs_and_title(tmp_path: Path) -> None:
    path = write(
        tmp_path / "list.txt",
        f"\ufeffICLR 2024 accepted papers\n\n{ABSTRACT_A}\n\n\n   \n{ABSTRACT_B}\n",
    )
    papers = read_papers([path])
    assert [p.abstract for p in papers] == [ABSTRACT_A.replace("\n", " "), ABSTRACT_B]
    assert [p.source for p in papers] == [f"{path}:3", f"{path}:8"]
    assert {(p.venue, p.year) for p in papers} == {("ICLR", 2024)}


def test_plain_text_without_title_keeps_first_paragraph(tmp_path: Path) -> None:
    path = write(tmp_path / "list.txt", f"{ABSTRACT_B}\n\n{ABSTRACT_A}\n")
    papers = read_papers([path])
    assert len(papers) == 2
    assert papers[0].abstract == ABSTRACT_B
    assert (papers[0].venue, papers[0].year) == (None, None)


def test_plain_text_title_without_year_is_not_a_paper(tmp_path: Path) -> None:
    path = write(tmp_path / "list.md", f"# Papers on graphs\n\n{ABSTRACT_B}\n")
    (paper,) = read_papers([path])
    assert (paper.abstract, paper.venue, paper.year) == (ABSTRACT_B, None, None)


# --- structured records ------------------------------------------------------


def test_jsonl_fields_and_aliases(tmp_path: Path) -> None:
    lines = [
        {"id": "a/1", "title": "Fast", "abstract": ABSTRACT_A, "authors": ["Ann Lee", "Bo Li"],
         "year": "2024", "venue": "ICLR", "keywords": "graphs; speed"},
        {"Doc_Key": "X-2", "TEXT": ABSTRACT_B, "author": "Ann Lee and Bo Li", "keyword": ["noise"],
         "year": 2023},
    ]  # fmt: skip
    path = write(tmp_path / "p.jsonl", "\n".join(json.dumps(r) for r in lines) + "\n\n")
    first, second = read_papers([path])
    assert first.id == "a-1" and first.title == "Fast" and first.year == 2024
    assert first.authors == ("Ann Lee", "Bo Li") and first.keywords == ("graphs", "speed")
    assert first.venue == "ICLR" and first.source == f"{path}:1"
    assert first.abstract == ABSTRACT_A and first.text == clean(ABSTRACT_A)
    assert second.id == "X-2" and second.abstract == ABSTRACT_B
    assert second.authors == ("Ann Lee", "Bo Li") and second.keywords == ("noise",)
    assert second.year == 2023 and second.title is None and second.source == f"{path}:2"


def test_json_list_and_papers_object_give_record_lines(tmp_path: Path) -> None:
    records = [{"abstract": ABSTRACT_A}, {"abstract": ABSTRACT_B, "summary": "ignored"}]
    listed = write(tmp_path / "list.json", json.dumps(records, indent=2))
    wrapped = write(
        tmp_path / "wrapped.json", json.dumps({"meta": {"n": [1, 2]}, "Papers": records}, indent=1)
    )
    for path in (listed, wrapped):
        papers = read_papers([path])
        assert [p.abstract for p in papers] == [ABSTRACT_A, ABSTRACT_B]
        lines = path.read_text().splitlines()
        for paper in papers:
            line = int(paper.source.rsplit(":", 1)[1])
            assert lines[line - 1].strip() == "{", paper.source


def test_csv_records_and_line_numbers(tmp_path: Path) -> None:
    path = write(
        tmp_path / "p.csv",
        'paper_id,Title,Summary,Authors,Year\n'
        f'1,Fast,"{ABSTRACT_A}","Lee, Ann; Li, Bo",2024\n'
        '\n'
        f'2,,{ABSTRACT_B},,\n',
    )  # fmt: skip
    first, second = read_papers([path])
    assert (first.id, first.title, first.abstract) == ("1", "Fast", ABSTRACT_A)
    assert first.authors == ("Lee, Ann", "Li, Bo") and first.year == 2024
    assert first.source == f"{path}:2"
    assert (second.id, second.title, second.year, second.authors) == ("2", None, None, ())
    assert second.source == f"{path}:5"


# --- ids and duplicates ------------------------------------------------------


def test_ids_are_stable_and_ignore_whitespace(tmp_path: Path) -> None:
    one = write(tmp_path / "one.txt", f"{ABSTRACT_A}\n\n{ABSTRACT_B}\n")
    two = write(
        tmp_path / "two.txt",
        "  " + ABSTRACT_A.replace(" ", "\n  ") + "\n\n" + ABSTRACT_B.replace(" ", "  "),
    )
    first_run = [p.id for p in read_papers([one])]
    assert first_run == [p.id for p in read_papers([one])]
    assert first_run == [p.id for p in read_papers([two])]
    assert all(re.fullmatch(r"p-[0-9a-f]{12}", pid) for pid in first_run)
    assert first_run[0] != first_run[1]


def test_duplicates_take_the_most_complete_record_in_first_position(tmp_path: Path) -> None:
    records = [
        {"abstract": ABSTRACT_A, "title": "First", "keywords": ["k"]},
        {"abstract": ABSTRACT_B},
        {"abstract": "  " + ABSTRACT_A.upper(), "title": "Second", "year": 2020, "authors": "A; B"},
    ]
    path = write(tmp_path / "p.jsonl", "\n".join(json.dumps(r) for r in records))
    papers = read_papers([path])
    assert [p.abstract for p in papers] == [ABSTRACT_A.upper(), ABSTRACT_B]
    first = papers[0]
    assert (first.title, first.year, first.authors) == ("Second", 2020, ("A", "B"))
    assert first.keywords == ("k",)  # what the most complete record lacks comes from the other
    assert (first.source, first.other_sources) == (f"{path}:3", (f"{path}:1",))


def test_duplicates_across_files_take_the_published_record(tmp_path: Path) -> None:
    text = write(tmp_path / "a.txt", f"NeurIPS 2026 Papers\n\n{ABSTRACT_B}\n")
    jsonl = write(tmp_path / "b.jsonl", json.dumps({"abstract": ABSTRACT_B, "title": "T"}))
    (paper,) = read_papers([tmp_path])
    assert (paper.source, paper.venue, paper.year, paper.title) == (
        f"{text}:3",
        "NeurIPS",
        2026,
        "T",
    )
    assert read_papers([jsonl, text])[0].source == f"{text}:3"  # its venue, whatever the order


def test_same_id_different_abstracts_is_an_error(tmp_path: Path) -> None:
    path = write(
        tmp_path / "p.jsonl",
        json.dumps({"id": "x1", "abstract": ABSTRACT_A})
        + "\n"
        + json.dumps({"id": "x1", "abstract": ABSTRACT_B}),
    )
    with pytest.raises(InputError, match=re.escape(f"{path}:2")) as error:
        read_papers([path])
    assert f"{path}:1" in str(error.value) and "x1" in str(error.value)


@given(st.text(min_size=1), st.text(min_size=1).filter(str.strip))
def test_ids_are_always_iri_safe(given_id: str, abstract: str) -> None:
    assert SAFE_ID.match(paper_id(abstract, given_id))
    assert SAFE_ID.match(paper_id(abstract))
    assert paper_id(abstract, given_id) == paper_id(abstract, given_id)


# --- directories ---------------------------------------------------------------


def test_directory_reads_supported_files_in_name_order(tmp_path: Path) -> None:
    write(tmp_path / "b.txt", f"{ABSTRACT_B}\n")
    write(tmp_path / "a.jsonl", json.dumps({"abstract": ABSTRACT_A}))
    write(tmp_path / ".hidden.txt", "A hidden abstract that must not be read at all.\n")
    write(tmp_path / "README.md", "# About\n\nThis folder holds abstracts.\n")
    write(tmp_path / "notes.py", "print('not data')\n")
    (tmp_path / "sub").mkdir()
    write(tmp_path / "sub" / "c.txt", "A nested abstract that is not read.\n")
    assert [p.abstract for p in read_papers([tmp_path])] == [ABSTRACT_A, ABSTRACT_B]


# --- errors ------------------------------------------------------------------


def error_for(paths: list[Path]) -> str:
    with pytest.raises(InputError) as error:
        read_papers(paths)
    return str(error.value)


def test_missing_path(tmp_path: Path) -> None:
    assert str(tmp_path / "nope.txt") in error_for([tmp_path / "nope.txt"])


def test_no_paths() -> None:
    with pytest.raises(InputError, match="no input"):
        read_papers([])


def test_unsupported_suffix_lists_supported(tmp_path: Path) -> None:
    path = write(tmp_path / "papers.xml", "<papers/>")
    message = error_for([path])
    assert str(path) in message and all(suffix in message for suffix in SUPPORTED_SUFFIXES)


def test_directory_without_inputs(tmp_path: Path) -> None:
    write(tmp_path / "notes.py", "x = 1\n")
    message = error_for([tmp_path])
    assert str(tmp_path) in message and ".jsonl" in message


def test_non_utf8_file_names_encoding(tmp_path: Path) -> None:
    path = write(
        tmp_path / "p.txt", "First line.\n\nCaf\u00e9 abstract in Latin-1.\n", encoding="latin-1"
    )
    message = error_for([path])
    assert f"{path}:3" in message and "UTF-8" in message


@pytest.mark.parametrize(
    ("name", "content", "where", "hint"),
    [
        ("empty.txt", "\n  \n", "", "paragraphs"),
        ("title-only.txt", "NeurIPS 2026 Papers\n", "", "paragraphs"),
        ("empty.jsonl", "", "", "JSON object"),
        ("bad.jsonl", '{"abstract": "Fine."}\n{"abstract": oops}\n', ":2", "not valid JSON"),
        ("list.jsonl", '["not", "an", "object"]\n', ":1", "JSON object"),
        ("blank-abstract.jsonl", '{"abstract": "   "}\n', ":1", "only record was skipped"),
        ("number-abstract.jsonl", '{"abstract": 42}\n', ":1", "a number (int), not text"),
        ("bad-year.jsonl", '{"abstract": "Fine.", "year": "next year"}\n', ":1", "4-digit"),
        ("bad-authors.jsonl", '{"abstract": "Fine.", "authors": 3}\n', ":1", "authors"),
        ("bad.json", '[{"abstract": "Fine."},\n oops]', ":2", "not valid JSON"),
        ("scalar.json", '"just text"', "", "list of objects"),
        ("other.json", '{"items": []}', "", "papers"),
        ("no-column.csv", "id,title,body\n1,T,Text\n", ":1", "id, title, body"),
        ("ragged.csv", "id,abstract\n1,Some text, with a comma\n", ":2", "quote"),
        ("empty-abstract.csv", "id,abstract\n1,\n", ":2", "1 no abstract"),
    ],
)
def test_malformed_inputs_name_file_and_line(
    tmp_path: Path, name: str, content: str, where: str, hint: str
) -> None:
    path = write(tmp_path / name, content)
    message = error_for([path])
    assert f"{path}{where}" in message
    assert hint in message


def test_records_without_abstract_are_skipped_and_exact_duplicates_merged(tmp_path: Path) -> None:
    lines = [
        # as complete as its copy (a URL, the copy a DOI): the first read wins
        {"abstract": ABSTRACT_A, "title": "First", "url": "https://example.org/a"},
        {"title": "No abstract at all"},
        {"abstract": "   ", "title": "Blank"},
        {"abstract": ABSTRACT_A.upper(), "title": "Same text", "doi": "10.5555/copy"},
        {"abstract": ABSTRACT_B},
    ]
    path = write(tmp_path / "p.jsonl", "\n".join(json.dumps(r) for r in lines))
    reading = read_inputs([path])
    assert [p.abstract for p in reading.papers] == [ABSTRACT_A, ABSTRACT_B]
    assert [(s.source, s.reason) for s in reading.skipped] == [
        (f"{path}:2", NO_ABSTRACT),
        (f"{path}:3", NO_ABSTRACT),
    ]
    # the exact duplicate is the same paper: merged into it, its id and location kept there
    (merged,) = reading.merged
    assert (merged.source, merged.reason) == (f"{path}:4", MERGED)
    assert merged.detail == f"same abstract as {path}:1"
    first = reading.papers[0]
    assert ("doi", "10.5555/copy") in first.ids and first.other_sources == (f"{path}:4",)
    with pytest.raises(SkippedError, match=re.escape(f"{path}:2")) as error:
        read_inputs([path], strict=True)
    assert "--strict" in str(error.value) and "(2 no abstract in all)" in str(error.value)


def test_reading_reports_each_record_made_into_a_paper(tmp_path: Path) -> None:
    """(0, 0) while the files are parsed, then each record of the 4 with an abstract."""
    records = [
        {"abstract": ABSTRACT_A},
        {"title": "no abstract"},
        {"abstract": ABSTRACT_B},
        {"abstract": ABSTRACT_A.upper()},  # a duplicate is a record read too
        {"abstract": "We study reading progress."},
    ]
    path = write(tmp_path / "p.jsonl", "".join(json.dumps(r) + "\n" for r in records))
    calls: list[tuple[int, int]] = []
    reading = read_inputs([path], progress=lambda done, total: calls.append((done, total)))
    assert len(reading.papers) == 3
    assert calls == [(0, 0), (0, 4), (1, 4), (2, 4), (3, 4), (4, 4)]


# --- shared evaluation data ----------------------------------------------------


def test_shared_data_reads_without_loss() -> None:
    files = sorted(DATA.glob("*.jsonl")) if DATA.is_dir() else []
    if not files:
        pytest.skip(f"shared evaluation data not found at {DATA}")
    for path in files:
        lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        papers = read_papers([path])
        assert len(papers) <= len(lines)
        assert len({p.id for p in papers}) == len(papers)
        assert all(SAFE_ID.match(p.id) and p.text for p in papers)
        given_ids = [
            json.loads(line).get("id") or json.loads(line).get("doc_key") for line in lines
        ]
        assert {p.id for p in papers} <= {paper_id("", i) for i in given_ids}
