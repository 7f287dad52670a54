"""Every input format researchers have, read from a small fixture written for these tests.

Each fixture (``tests/fixtures/formats/``) holds the same two papers as the
tool in question exports them, plus one record that is skipped; the tests
check what kg makes of each field, that the right format is recognised, and
that the skip is counted with its line.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from reexport import WRITERS, write_as

from kg.errors import InputError
from kg.ingest import FORMATS, NO_ABSTRACT, NOT_FOUND, read_inputs

FIXTURES = Path(__file__).parent / "fixtures" / "formats"
SEEDS = Path(__file__).parents[1] / "seeds"
NOISE = "We study heavy-tailed gradient noise in stochastic gradient descent"

# fixture, format recognised, skipped (line, reason), then per paper:
# (id, title, authors, year, venue, keywords)
CASES = [
    (
        "library.bib",
        "BibTeX",
        [(25, NO_ABSTRACT)],
        [
            (
                "muller2024graph",
                "GraphMix: Message Passing für Moleküle",
                ("Müller, Jörg", "García, Ana", "The Graph Team"),
                2024,
                "Advances in Neural Information Processing Systems",
                ("graph neural networks", "molecules"),
            ),
            ("lee2023noise", "Heavy-Tailed Noise in SGD", ("Lee, Ann", "Li, Bo"), 2023,
             "Journal of Machine Learning Research", ()),
        ],
    ),
    (
        "endnote.ris",
        "RIS",
        [(22, NO_ABSTRACT)],
        [
            ("10.1234-graphmix.2024", "GraphMix: Message Passing for Molecules",
             ("Müller, Jörg", "García, Ana"), 2024, "Journal of Graph Learning",
             ("graph neural networks", "molecules")),
            (None, "Heavy-Tailed Noise in SGD", ("Lee, Ann",), 2023, None, ()),
        ],
    ),
    (
        "zotero.csv",
        "CSV/TSV",
        [(5, NO_ABSTRACT)],
        [
            ("ABCD1234", "GraphMix: Message Passing for Molecules", ("Müller, Jörg", "García, Ana"),
             2024, "Journal of Graph Learning", ("graph neural networks", "molecules")),
            ("EFGH5678", "Heavy-Tailed Noise in SGD", ("Lee, Ann", "Li, Bo"), 2023, None, ()),
        ],
    ),
    (
        "savedrecs.txt",
        "CSV/TSV",
        [],
        [
            ("WOS-000123456700001", "GraphMix: Message Passing for Molecules",
             ("Muller, J", "Garcia, A"), 2024, "JOURNAL OF GRAPH LEARNING",
             ("graph neural networks", "molecules")),
            ("WOS-000123456700002", "Heavy-Tailed Noise in SGD", ("Lee, A", "Li, B"), 2023,
             "JOURNAL OF MACHINE LEARNING RESEARCH", ()),
        ],
    ),
    (
        "wos-plain.txt",
        "Web of Science plain text",
        [(19, NO_ABSTRACT)],
        [
            ("WOS-000123456700001", "GraphMix: Message Passing for Molecules",
             ("Muller, Jorg", "Garcia, Ana"), 2024, "JOURNAL OF GRAPH LEARNING",
             ("graph neural networks", "molecules")),
        ],
    ),
    (
        "semicolons.csv",
        "CSV/TSV",
        [],
        [
            (None, "GraphMix: Message Passing for Molecules", ("Müller, J.", "García, A."), 2024,
             None, ()),
            (None, "Heavy-Tailed Noise in SGD", ("Lee, A.",), 2023, None, ()),
        ],
    ),
    (
        "zotero-csl.json",
        "CSL-JSON",
        [(21, NO_ABSTRACT)],
        [
            ("10.1234-graphmix.2024", "GraphMix: Message Passing for Molecules",
             ("Jörg Müller", "Ana García"), 2024, "Journal of Graph Learning",
             ("graph neural networks", "molecules")),
            ("lee2023noise", "Heavy-Tailed Noise in SGD", ("The SGD Group",), 2023, None, ()),
        ],
    ),
    (
        "openalex-works.json",
        "OpenAlex works",
        [(34, NO_ABSTRACT)],
        [
            ("W4000000001", "GraphMix: Message Passing for Molecules",
             ("Jörg Müller", "Ana García"), 2024, "Journal of Graph Learning",
             ("graph neural networks",)),
            ("W4000000002", "Heavy-Tailed Noise in SGD", ("Ann Lee",), 2023, None, ()),
        ],
    ),
    (
        "arxiv-metadata-oai-snapshot.json",
        "arXiv metadata snapshot",
        [],
        [
            ("2401.00001", "GraphMix: Message Passing for Molecules", ("Jörg Müller", "Ana García"),
             2024, "arXiv", ("cs.LG", "q-bio.BM")),
            ("math-0601001", "Heavy-Tailed Noise in SGD", ("Ann Lee",), 2006, "arXiv",
             ("math.OC",)),
        ],
    ),
    (
        "semantic-scholar-search.json",
        "Semantic Scholar results",
        [(24, NO_ABSTRACT)],
        [
            ("649def34f8be52c8b66281af98ae884c09aef38b", "GraphMix: Message Passing for Molecules",
             ("Jörg Müller", "Ana García"), 2024, "Journal of Graph Learning", ()),
            ("0000000000000000000000000000000000000002", "Heavy-Tailed Noise in SGD", ("Ann Lee",),
             2023, "Conference on Learning Theory", ()),
        ],
    ),
    (
        "semantic-scholar-batch.json",
        "Semantic Scholar results",
        [(3, NOT_FOUND)],
        [
            ("649def34f8be52c8b66281af98ae884c09aef38b", "GraphMix: Message Passing for Molecules",
             (), 2024, None, ()),
            ("0000000000000000000000000000000000000002", "Heavy-Tailed Noise in SGD", (), 2023,
             None, ()),
        ],
    ),
    (
        "openreview-notes.json",
        "OpenReview notes",
        [],
        [
            ("aBcDeFgH12", "GraphMix: Message Passing for Molecules", ("Jörg Müller", "Ana García"),
             2024, "ICLR 2024 poster", ("graph neural networks", "molecules")),
            ("iJkLmNoP34", "Heavy-Tailed Noise in SGD", ("Ann Lee",), 2023, None, ()),
        ],
    ),
]  # fmt: skip


@pytest.mark.parametrize("name, fmt, skipped, expected", CASES, ids=[c[0] for c in CASES])
def test_each_format_reads_its_fixture(name, fmt, skipped, expected):
    path = FIXTURES / name
    reading = read_inputs([path])
    assert [(f.name, n) for f, n in [(p, k) for p, _, k in reading.files]] == [
        (name, len(expected) + len(skipped))
    ]
    assert reading.files[0][1] == fmt
    assert [(s.source, s.reason) for s in reading.skipped] == [
        (f"{path}:{line}", reason) for line, reason in skipped
    ]
    got = [(p.title, p.authors, p.year, p.venue, p.keywords) for p in reading.papers]
    assert got == [tuple(e[1:]) for e in expected]
    for paper, (given_id, *_rest) in zip(reading.papers, expected, strict=True):
        if given_id is not None:
            assert paper.id == given_id
        else:
            assert paper.id.startswith("p-")  # no id in the file: a hash of the abstract
    if len(reading.papers) == 1:  # the Web of Science fixture's second record has no abstract
        return
    graphmix, noise = (p.abstract for p in reading.papers)
    assert re.sub(r"[^\w ]", "", graphmix).startswith("We propose GraphMix a graph transformer")
    assert "GraphMix outperforms message passing networks" in " ".join(graphmix.split())
    assert noise.startswith(NOISE)


def test_bibtex_latex_is_decoded_and_formulas_kept():
    (graphmix, _) = read_inputs([FIXTURES / "library.bib"]).papers
    assert "$\\mathcal{O}(n \\log n)$" in graphmix.abstract
    assert "by 5% on molecular benchmarks & scales" in graphmix.abstract
    assert "{" not in graphmix.abstract.replace("\\mathcal{O}", "")
    assert "cite" not in graphmix.abstract and "smith2020" not in graphmix.abstract


def test_openalex_abstract_is_rebuilt_in_position_order():
    _, noise = read_inputs([FIXTURES / "openalex-works.json"]).papers
    assert noise.abstract == (
        "We study heavy-tailed gradient noise in stochastic gradient descent."
    )


def test_csv_quoted_line_breaks_and_doubled_quotes_survive():
    first, second = read_inputs([FIXTURES / "zotero.csv"]).papers
    assert "\nGraphMix outperforms message passing networks, by a wide margin," in first.abstract
    assert 'prove "last-iterate" convergence' in second.abstract
    assert second.source.endswith(":4")  # the quoted line break counts as a line


def test_same_papers_from_two_tools_are_one_paper_each():
    reading = read_inputs([FIXTURES / "endnote.ris", FIXTURES / "openalex-works.json"])
    # GraphMix (the same abstract twice), the SGD paper (a shorter abstract from OpenAlex,
    # merged: same title, year and first author, "Lee, Ann" and "Ann Lee")
    assert len(reading.papers) == 2
    assert {s.reason for s in reading.skipped} == {NO_ABSTRACT}  # no exact duplicate skipped
    duplicate, merged = sorted(reading.merged, key=lambda s: s.detail)
    assert duplicate.detail.startswith("same abstract as ")
    assert merged.detail.startswith("same title, year and first author")
    sgd = reading.papers[1]
    assert sgd.ids == (("openalex", "W4000000002"),) and sgd.other_sources


def test_every_format_is_in_the_table_and_the_manual():
    page = Path(__file__).parents[1] / "docs" / "reference" / "inputs.md"
    text = page.read_text(encoding="utf-8")
    for fmt in FORMATS:
        assert fmt.name in text, f"format {fmt.name!r} is not documented in {page}"
        for suffix in fmt.suffixes:
            assert f"`{suffix}`" in text, f"suffix {suffix} is not documented in {page}"


# --- the seeds, re-exported into every format ----------------------------------


def _concepts(built):
    """What extraction made, by paper position: concept key, kind, label, role, score, sentence."""
    labels = {c.key: (c.kind.value, c.label, c.alt_labels) for c in built.kg.concepts}
    order = {p.id: i for i, p in enumerate(built.kg.papers)}
    return sorted(
        (order[link.paper_id], link.concept_key, *labels[link.concept_key], link.role.value,
         round(link.score, 6), link.sentence)
        for link in built.kg.links
    )  # fmt: skip


@pytest.fixture(scope="module")
def plain_seeds(fake_embedder):
    from kg.build import BuildRequest, assemble

    return assemble(BuildRequest([SEEDS]), embedder=fake_embedder)


@pytest.mark.parametrize("fmt", sorted(WRITERS))
def test_seeds_in_every_format_give_the_same_concepts(fmt, plain_seeds, fake_embedder, tmp_path):
    from kg.build import BuildRequest, assemble

    path = write_as(fmt, plain_seeds.kg.papers, tmp_path)
    built = assemble(BuildRequest([path]), embedder=fake_embedder)
    assert built.reading.skipped == ()
    assert len(built.kg.papers) == len(plain_seeds.kg.papers)
    assert [p.text for p in built.kg.papers] == [p.text for p in plain_seeds.kg.papers]
    assert _concepts(built) == _concepts(plain_seeds)
    venue = (lambda p: "arXiv") if fmt.startswith("arXiv") else (lambda p: p.venue)
    assert [(p.venue, p.year) for p in built.kg.papers] == [
        (venue(p), p.year) for p in plain_seeds.kg.papers
    ]


@pytest.mark.model
def test_seeds_as_bibtex_give_the_same_concepts_with_the_real_model(real_model, tmp_path):
    from kg.build import BuildRequest, assemble

    plain = assemble(BuildRequest([SEEDS]), embedder=real_model)
    built = assemble(
        BuildRequest([write_as("BibTeX", plain.kg.papers, tmp_path)]), embedder=real_model
    )
    assert _concepts(built) == _concepts(plain)


def test_a_header_of_a_million_columns_is_refused_at_once_with_a_short_message(tmp_path):
    """A 50 MB header line of delimiters took minutes to check, and a header without an
    abstract column was echoed whole: a message of megabytes."""
    from kg.ingest import delimited

    wide = tmp_path / "wide.csv"
    wide.write_text("title,abstract" + ",x" * 1_000_000 + "\nT,An abstract.\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        read_inputs([wide])
    assert str(caught.value) == (
        f"{wide}:1: the header row has 1,000,002 columns, more than the "
        f"{delimited.MAX_COLUMNS:,} kg reads; a table of papers has a column per field "
        "(title, abstract, ...), so check that this file is one"
    )
    names = [f"c{i}" for i in range(delimited.MAX_COLUMNS)]
    plain = tmp_path / "plain.csv"
    plain.write_text(",".join(names) + "\n" + ",".join(names) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        read_inputs([plain])
    shown = ", ".join(names[:20])
    assert f"no abstract column (found: {shown}, … (10,000 columns)); name it" in str(caught.value)
    assert len(str(caught.value)) < 1000
