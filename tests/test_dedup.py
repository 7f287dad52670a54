"""One paper, once: records of the same paper from several sources are merged, others never."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from kg.cli import cli
from kg.ingest import MERGED, family_name, read_inputs, title_key
from kg.ingest.dedup import same_papers
from kg.ingest.records import Record

ABSTRACT = "We propose LoRA+, which sets different learning rates for the adapter matrices A and B."
REWORDED = "LoRA+ sets the learning rates of the adapter matrices A and B apart, and is faster."


def rec(i: int, **fields) -> Record:
    return Record(**({"abstract": f"abstract {i}", "source": f"f:{i}"} | fields))


def groups(*records: Record) -> list[list[int]]:
    return [[i for i, _ in g] for g in same_papers(list(records))]


def test_titles_compare_without_case_latex_punctuation_or_version():
    key = title_key("LoRA+: Efficient Low Rank Adaptation of Large Models")
    for variant in (
        "{LoRA}+: efficient low rank adaptation of large models (v2)",
        "LORA+ -- Efficient Low-Rank Adaptation of Large Models v3",
        "LoRA+: Efficient Low Rank Adaptation of Large Models.",
    ):
        assert title_key(variant) == key, variant
    assert title_key('Na\\"{i}ve Bayes') == title_key("Naïve Bayes") == "naive bayes"
    assert title_key("Attention in 2 versions") == "attention in 2 versions"


def test_family_names_from_both_name_orders():
    assert family_name("Hayou, Soufiane") == family_name("Soufiane Hayou") == "hayou"
    assert family_name("van der Berg, Ann") == family_name("Ann van der Berg") == "berg"
    assert family_name("Martin Luther King Jr.") == "king"


def test_same_doi_or_arxiv_id_is_one_paper_whatever_the_title():
    a = rec(0, title="One", ids=(("doi", "10.1/x"),))
    b = rec(1, title="Other", ids=(("doi", "10.1/x"), ("arxiv", "2402.12354")))
    c = rec(2, title="Third", ids=(("arxiv", "2402.12354"),))
    assert groups(a, b, c) == [[0, 1, 2]]


def test_same_title_year_and_first_author_is_one_paper():
    a = rec(0, title="LoRA+: Efficient Adaptation", year=2024, authors=("Hayou, Soufiane",))
    b = rec(1, title="lora+ efficient adaptation (v2)", year=2024, authors=("Soufiane Hayou", "X"))
    (group,) = same_papers([a, b])
    assert group == [(0, ""), (1, "same title, year and first author")]


def test_a_subtitle_added_still_matches_but_two_subtitles_do_not():
    base = {"year": 2024, "authors": ("Ann Lee",)}
    plain = rec(0, title="Deep Sets", **base)
    longer = rec(1, title="Deep Sets: A Study of Permutation Invariance", **base)
    assert groups(plain, longer) == [[0, 1]]
    one = rec(0, title="Deep Learning: Part I", **base)
    two = rec(1, title="Deep Learning: Part II", **base)
    assert groups(one, two) == [[0], [1]]


def test_papers_sharing_only_a_title_stay_apart():
    a = rec(0, title="Attention Is All You Need", year=2017, authors=("Ashish Vaswani",))
    other_author = rec(1, title="Attention is all you need", year=2017, authors=("Bo Li",))
    other_year = rec(2, title="Attention Is All You Need", year=2021, authors=("Ashish Vaswani",))
    no_year = rec(3, title="Attention Is All You Need", authors=("Ashish Vaswani",))
    no_author = rec(4, title="Attention Is All You Need", year=2017)
    assert groups(a, other_author, other_year, no_year, no_author) == [[0], [1], [2], [3], [4]]


def test_different_dois_keep_same_titled_records_apart():
    base = {"title": "A Survey", "year": 2020, "authors": ("Ann Lee",)}
    a = rec(0, ids=(("doi", "10.1/a"),), **base)
    b = rec(1, ids=(("doi", "10.1/b"),), **base)
    preprint = rec(2, ids=(("doi", "10.48550/arxiv.2001.00001"),), **base)
    assert groups(a, b, preprint) == [[0, 2], [1]]


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    return path


def test_merged_paper_keeps_every_id_and_location_and_prefers_the_published_venue(tmp_path):
    _write(
        tmp_path / "a_arxiv.jsonl",
        [
            {
                "id": "2402.12354",
                "title": "LoRA+: Efficient Low Rank Adaptation of Large Models",
                "abstract": REWORDED,
                "authors": ["Soufiane Hayou", "Nikhil Ghosh", "Bin Yu"],
                "year": 2024,
                "venue": "arXiv",
                "arxiv": "2402.12354v2",
            }
        ],
    )
    (tmp_path / "b_zotero.bib").write_text(
        "@inproceedings{hayou24, title={{LoRA}+: Efficient Low Rank Adaptation of Large Models},\n"
        " author={Hayou, Soufiane and Ghosh, Nikhil and Yu, Bin}, year={2024},\n"
        " booktitle={International Conference on Machine Learning},\n"
        f" abstract={{{ABSTRACT}}}, url={{https://proceedings.mlr.press/v235/hayou24a.html}}}}\n",
        encoding="utf-8",
    )
    reading = read_inputs([tmp_path])
    (paper,) = reading.papers
    assert paper.id == "hayou24" and paper.venue == "International Conference on Machine Learning"
    assert paper.abstract == ABSTRACT and paper.ids == (("arxiv", "2402.12354"),)
    assert paper.url == "https://proceedings.mlr.press/v235/hayou24a.html"
    assert paper.source.endswith("b_zotero.bib:1")
    assert [s.rsplit("/", 1)[-1] for s in paper.other_sources] == ["a_arxiv.jsonl:1"]
    (merged,) = reading.merged
    assert merged.reason == MERGED and merged.source.endswith("a_arxiv.jsonl:1")
    assert merged.detail.startswith("same title, year and first author as ")
    assert reading.skipped == ()


def test_an_exact_duplicate_is_merged_like_any_record_of_the_same_paper(tmp_path):
    src = _write(
        tmp_path / "a.jsonl", [{"abstract": ABSTRACT}, {"abstract": ABSTRACT, "doi": "10.5555/x"}]
    )
    reading = read_inputs([tmp_path])
    (paper,) = reading.papers
    assert paper.ids == (("doi", "10.5555/x"),)
    assert {paper.source, *paper.other_sources} == {f"{src}:1", f"{src}:2"}
    assert reading.skipped == ()
    assert [(s.reason, s.detail.split(" as ")[0]) for s in reading.merged] == [
        (MERGED, "same abstract")
    ]


def test_the_summary_counts_an_exact_duplicate_as_merged(tmp_path, fake_model):
    src = _write(tmp_path / "in.jsonl", [{"abstract": ABSTRACT}, {"abstract": ABSTRACT}])
    result = CliRunner().invoke(cli, ["build", str(src), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    (first,) = [line for line in result.output.splitlines() if line.startswith("1 paper, ")]
    assert "; merged 1 record; SHACL: " in first
    assert "skipped" not in result.output
    assert "merged 1 record into the papers they repeat (in.jsonl:2: same abstract as " in (
        result.output.replace(str(tmp_path) + "/", "")
    )


def test_the_summary_says_what_was_merged(tmp_path, fake_model):
    rows = [
        {"abstract": ABSTRACT, "doi": "10.5555/x", "title": "T"},
        {"abstract": REWORDED, "doi": "https://doi.org/10.5555/X", "title": "T"},
    ]
    src = _write(tmp_path / "in.jsonl", rows)
    result = CliRunner().invoke(cli, ["build", str(src), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert "merged 1 record" in result.output
    assert "in.jsonl:2: same DOI as " in result.output


def test_one_library_in_three_formats_gives_each_paper_once_with_every_id(tmp_path):
    """The issue's target: arXiv lines, a BibTeX export and OpenAlex works of the same papers."""
    papers = [
        ("LoRA+: Efficient Low Rank Adaptation of Large Models", "Soufiane Hayou", "2402.12354"),
        ("Position: Graph Foundation Models Are Already Here", "Haitao Mao", "2402.02216"),
        ("Stealing Part of a Production Language Model", "Nicholas Carlini", "2403.06634"),
    ]

    def text(n: int, where: str) -> str:
        return f"We study problem number {n} and propose method {n}, as the {where} copy says."

    arxiv, bib, works = [], [], []
    for n, (title, author, arxiv_id) in enumerate(papers):
        given, family = author.split()
        arxiv.append(
            {
                "id": arxiv_id,
                "submitter": author,
                "title": title.replace(" ", "\n  ", 1),
                "abstract": text(n, "arXiv"),
                "authors_parsed": [[family, given, ""]],
                "versions": [{"version": "v1", "created": "Mon, 19 Feb 2024 18:33:49 GMT"}],
            }
        )
        if n == 0:  # only the first paper is in all three
            bib.append(
                f"@inproceedings{{key{n}, title={{{title}}}, author={{{family}, {given}}},\n"
                f" year={{2024}}, booktitle={{ICML}}, doi={{10.5555/ICML.{n}}},\n"
                f" abstract={{{text(n, 'proceedings')}}}}}\n"
            )
            works.append(
                {
                    "id": f"https://openalex.org/W{n + 100}",
                    "doi": f"https://doi.org/10.5555/icml.{n}",
                    "title": title,
                    "publication_year": 2024,
                    "authorships": [{"author": {"display_name": author}}],
                    "abstract_inverted_index": {
                        w: [i] for i, w in enumerate(text(n, "OpenAlex").split())
                    },
                }
            )
    _write(tmp_path / "arxiv.jsonl", arxiv)
    (tmp_path / "library.bib").write_text("".join(bib), encoding="utf-8")
    (tmp_path / "works.json").write_text(json.dumps({"results": works}), encoding="utf-8")
    reading = read_inputs([tmp_path])
    assert len(reading.papers) == 3 and len(reading.merged) == 2
    lora = next(p for p in reading.papers if p.title and p.title.startswith("LoRA+"))
    assert lora.venue == "ICML" and lora.id == "key0"
    assert dict(lora.ids) == {"doi": "10.5555/icml.0", "arxiv": "2402.12354", "openalex": "W100"}
    assert len(lora.other_sources) == 2
