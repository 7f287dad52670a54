"""Identifiers in other systems: read from every format that carries them, normalised,
written to RDF (dcterms:identifier, schema:sameAs, schema:url), NetworkX and the views."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rdflib import Literal, URIRef
from rdflib.namespace import DCTERMS

from kg.attrs import IDENTIFIERS, LINK, URL
from kg.graph import paper_iri, to_networkx, to_rdf
from kg.ingest import read_inputs, resolvable
from kg.ingest.identifiers import identifiers, normalised, source_url
from kg.model import KnowledgeGraph, Paper
from kg.taxonomy import load_taxonomy
from kg.vocab import SCHEMA

ABSTRACT = "We propose LoRA+, which sets different learning rates for the adapter matrices."
DOI = "10.48550/arXiv.2402.12354"


def read_one(path: Path, text: str) -> Paper:
    path.write_text(text, encoding="utf-8")
    (paper,) = read_inputs([path]).papers
    return paper


@pytest.mark.parametrize(
    ("scheme", "given", "expected"),
    [
        ("doi", "https://doi.org/10.1145/ABC.1", "10.1145/abc.1"),
        ("doi", "doi: 10.1145/abc.1", "10.1145/abc.1"),
        ("doi", "http://dx.doi.org/10.1145/abc.1/", "10.1145/abc.1"),
        ("doi", "978-3-16-148410-0", None),
        ("doi", "", None),
        ("arxiv", "2402.12354v3", "2402.12354"),
        ("arxiv", "https://arxiv.org/abs/2402.12354v1", "2402.12354"),
        ("arxiv", "https://arxiv.org/pdf/2402.12354.pdf", "2402.12354"),
        ("arxiv", "math.GT/0309136v2", "math.GT/0309136"),
        ("arxiv", "not an id", None),
        ("openalex", "https://openalex.org/W4392", "W4392"),
        ("openalex", "A123", None),
        ("s2", "https://www.semanticscholar.org/paper/" + "ab" * 20, "ab" * 20),
        ("s2", "123", None),
        ("openreview", "https://openreview.net/forum?id=NEv8YqBROO", "NEv8YqBROO"),
        ("pmid", "PMID: 31452104", "31452104"),
        ("pmid", 31452104, "31452104"),
        ("pmid", True, None),
    ],
)
def test_identifiers_are_normalised_or_dropped(scheme, given, expected):
    assert normalised(scheme, given) == expected


def test_an_arxiv_doi_also_gives_the_arxiv_id_and_each_id_is_kept_once():
    found = identifiers({"doi": [DOI, DOI.upper()], "arxiv": "arXiv:2402.12354v2"})
    assert found == (("doi", "10.48550/arxiv.2402.12354"), ("arxiv", "2402.12354"))


@pytest.mark.parametrize(
    "url", ["javascript:alert(1)", "file:///etc/passwd", "https://a b", "n/a", "https://"]
)
def test_only_http_urls_are_source_links(url):
    assert source_url(url) is None


@given(st.text(max_size=60))
def test_any_text_gives_a_valid_iri_or_nothing(text):
    for scheme in ("doi", "arxiv", "openalex", "s2", "openreview", "pmid"):
        value = normalised(scheme, text)
        if value is not None:
            URIRef(resolvable(scheme, value))  # resolvable IRIs hold no space or '<'
            assert " " not in resolvable(scheme, value)
    url = source_url(text)
    assert url is None or url.lower().startswith(("http://", "https://"))


def test_bibtex_doi_url_and_arxiv_eprint(tmp_path):
    paper = read_one(
        tmp_path / "refs.bib",
        "@inproceedings{hayou24, title={LoRA+}, abstract={" + ABSTRACT + "},\n"
        " doi={https://doi.org/10.5555/ICML.2024.1}, url={https://proceedings.mlr.press/v235/x.html},\n"
        " eprint={2402.12354v2}, archivePrefix={arXiv}}\n",
    )
    assert paper.ids == (("doi", "10.5555/icml.2024.1"), ("arxiv", "2402.12354"))
    assert paper.url == "https://proceedings.mlr.press/v235/x.html"


def test_ris_do_and_ur(tmp_path):
    paper = read_one(
        tmp_path / "refs.ris",
        f"TY  - CONF\nTI  - LoRA+\nAB  - {ABSTRACT}\nDO  - {DOI}\nUR  - n/a\n"
        "UR  - https://arxiv.org/abs/2402.12354\nER  - \n",
    )
    assert paper.ids == (("doi", DOI.lower()), ("arxiv", "2402.12354"))
    assert paper.url == "https://arxiv.org/abs/2402.12354"


def test_csv_columns(tmp_path):
    paper = read_one(
        tmp_path / "zotero.csv",
        "Key,Title,Abstract Note,DOI,Url\n"
        f'K1,LoRA+,"{ABSTRACT}",10.5555/X,https://example.org/lora\n',
    )
    assert paper.id == "K1"
    assert paper.ids == (("doi", "10.5555/x"),)
    assert paper.url == "https://example.org/lora"


def test_openalex_work(tmp_path):
    work = {
        "id": "https://openalex.org/W4392",
        "doi": "https://doi.org/10.5555/X",
        "ids": {"pmid": "https://pubmed.ncbi.nlm.nih.gov/31452104"},
        "title": "LoRA+",
        "abstract_inverted_index": {w: [i] for i, w in enumerate(ABSTRACT.split())},
        "primary_location": {"landing_page_url": "https://example.org/lora"},
    }
    paper = read_one(tmp_path / "works.json", json.dumps({"results": [work]}))
    assert paper.ids == (("doi", "10.5555/x"), ("openalex", "W4392"), ("pmid", "31452104"))
    assert paper.url == "https://example.org/lora"


def test_arxiv_snapshot_line(tmp_path):
    line = {
        "id": "2402.12354",
        "submitter": "S",
        "authors": "Soufiane Hayou",
        "title": "LoRA+",
        "abstract": ABSTRACT,
        "versions": [{"version": "v1", "created": "Mon, 19 Feb 2024 18:33:49 GMT"}],
        "doi": None,
    }
    paper = read_one(tmp_path / "arxiv.jsonl", json.dumps(line))
    assert paper.ids == (("arxiv", "2402.12354"),)


def test_semantic_scholar_paper(tmp_path):
    item = {
        "paperId": "ab" * 20,
        "externalIds": {"DOI": "10.5555/X", "ArXiv": "2402.12354", "CorpusId": 1},
        "url": "https://www.semanticscholar.org/paper/" + "ab" * 20,
        "title": "LoRA+",
        "abstract": ABSTRACT,
    }
    paper = read_one(tmp_path / "s2.json", json.dumps({"data": [item]}))
    assert paper.ids == (("doi", "10.5555/x"), ("arxiv", "2402.12354"), ("s2", "ab" * 20))


def test_openreview_note(tmp_path):
    note = {
        "id": "NEv8YqBROO",
        "forum": "NEv8YqBROO",
        "content": {"title": {"value": "LoRA+"}, "abstract": {"value": ABSTRACT}},
    }
    paper = read_one(tmp_path / "notes.json", json.dumps([note]))
    assert paper.ids == (("openreview", "NEv8YqBROO"),)


def test_an_exact_duplicate_adds_its_identifiers(tmp_path):
    (tmp_path / "a.ris").write_text(f"TY  - CONF\nAB  - {ABSTRACT}\nDO  - 10.5555/X\nER  - \n")
    (tmp_path / "b.jsonl").write_text(json.dumps({"abstract": ABSTRACT, "arxiv": "2402.12354"}))
    (paper,) = read_inputs([tmp_path]).papers
    assert paper.ids == (("doi", "10.5555/x"), ("arxiv", "2402.12354"))


def _graph(paper: Paper) -> KnowledgeGraph:
    return KnowledgeGraph(
        papers=(paper,),
        concepts=(),
        links=(),
        edges=(),
        labels={paper.id: "LoRA+"},
        taxonomy=load_taxonomy(),
    )


PAPER = Paper(
    id="hayou24",
    abstract=ABSTRACT,
    text=ABSTRACT,
    title="LoRA+",
    ids=(("doi", "10.5555/x<1>"), ("arxiv", "2402.12354")),
    url="https://proceedings.mlr.press/v235/x.html",
)


def test_identifiers_in_rdf_under_standard_terms():
    g = to_rdf(_graph(PAPER))
    node = paper_iri(PAPER.id)
    assert set(g.objects(node, DCTERMS.identifier)) == {
        Literal("hayou24"),
        Literal("doi:10.5555/x<1>"),
        Literal("arxiv:2402.12354"),
    }
    assert set(g.objects(node, SCHEMA.sameAs)) == {
        URIRef("https://doi.org/10.5555/x%3C1%3E"),
        URIRef("https://arxiv.org/abs/2402.12354"),
    }
    assert list(g.objects(node, SCHEMA.url)) == [URIRef(PAPER.url)]


def test_identifiers_in_networkx():
    d = to_networkx(_graph(PAPER)).nodes["paper:hayou24"]
    assert d[IDENTIFIERS] == ["doi:10.5555/x<1>", "arxiv:2402.12354"]
    assert d[URL] == d[LINK] == PAPER.url
    bare = Paper(id="p", abstract=ABSTRACT, text=ABSTRACT, ids=(("arxiv", "2402.12354"),))
    d = to_networkx(_graph(bare)).nodes["paper:p"]
    assert d[URL] is None and d[LINK] == "https://arxiv.org/abs/2402.12354"
