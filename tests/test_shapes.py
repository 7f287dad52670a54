"""SHACL shapes with the real pyshacl: a build conforms, broken graphs are refused readably,
and batch or sample validation agrees with the full run."""

from __future__ import annotations

import multiprocessing
import os
import shutil
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.compare import isomorphic
from rdflib.namespace import DCTERMS, RDF, SKOS, XSD

from kg.cli import cli
from kg.query import StoreTriples, store_from_rdflib
from kg.terms import oxigraph_triples, rdflib_graph, sort_triples
from kg.validate import TripleList, neighbourhood, read_backwards, shapes_graph, validate
from kg.vocab import KG, SCHEMA, compact

ROOT = Path(__file__).resolve().parents[1]


def _papers(g: Graph) -> list[URIRef]:
    return sorted(s for s in g.subjects(None, KG.Paper) if isinstance(s, URIRef))


def _first(g: Graph, cls: URIRef) -> URIRef:
    node = sorted(s for s in g.subjects(None, cls) if isinstance(s, URIRef))[0]
    return node


def test_a_build_conforms_in_full(fake_build):
    report = validate(fake_build.rdf, "full")
    assert report.conforms, [str(v) for v in report.violations]
    assert report.checked == report.total > len(fake_build.kg.papers)


def test_validation_does_not_change_the_graph(fake_build):
    before = len(fake_build.rdf)
    validate(fake_build.rdf, "sample", sample_size=5)
    assert len(fake_build.rdf) == before


def _break_title(g: Graph) -> tuple[str, str, str]:
    paper = _papers(g)[0]
    g.remove((paper, DCTERMS.title, None))
    return compact(str(paper)), "dcterms:title", "exactly one dcterms:title"


def _break_kind(g: Graph) -> tuple[str, str, str]:
    paper, problem = _papers(g)[1], _first(g, KG.Problem)
    g.add((paper, KG.proposes, problem))
    return compact(str(paper)), "kg:proposes", "kg:proposes points to a kg:Method"


def _break_confidence(g: Graph) -> tuple[str, str, str]:
    link = _first(g, KG.ConceptLink)
    g.set((link, KG.confidence, Literal("1.5", datatype=XSD.decimal)))
    return compact(str(link)), "kg:confidence", "in [0, 1]"


def _break_symmetry(g: Graph) -> tuple[str, str, str]:
    a, b = sorted(g.subject_objects(KG.sharesConceptWith))[0]
    g.remove((b, KG.sharesConceptWith, a))
    return compact(str(a)), "^kg:sharesConceptWith", "both ways"


def _break_area_label(g: Graph) -> tuple[str, str, str]:
    targets = {o for o in g.objects(None, SKOS.closeMatch) if isinstance(o, URIRef)}
    target = sorted(t for t in targets if (t, SKOS.inScheme, None) not in g)[0]  # an ICLR area
    g.remove((target, SKOS.prefLabel, None))
    return compact(str(target)), "skos:prefLabel", "has a skos:prefLabel"


def _break_overlap(g: Graph) -> tuple[str, str, str]:
    overlap = _first(g, KG.ConceptOverlap)
    first = g.value(overlap, KG.firstPaper)
    g.set((overlap, KG.secondPaper, first))
    return compact(str(overlap)), "kg:firstPaper", "other than its second"


def _break_type(g: Graph) -> tuple[str, str, str]:
    paper = _papers(g)[2]
    g.remove((paper, None, SCHEMA.ScholarlyArticle))
    return compact(str(paper)), "rdf:type", "schema:ScholarlyArticle"


BREAKAGES = [
    _break_title,
    _break_kind,
    _break_confidence,
    _break_symmetry,
    _break_area_label,
    _break_overlap,
    _break_type,
]


@pytest.mark.parametrize("breakage", BREAKAGES, ids=lambda f: f.__name__[7:])
def test_a_broken_graph_is_refused_with_focus_path_and_expectation(fake_build, breakage):
    g = Graph()
    g += fake_build.rdf
    focus, path, expected = breakage(g)
    report = validate(g, "full")
    assert not report.conforms
    lines = [str(v) for v in report.violations]
    assert any(line.startswith(f"{focus} {path}:") and expected in line for line in lines), lines


def test_batches_and_store_give_the_full_answer(fake_build):
    g = Graph()
    g += fake_build.rdf
    for breakage in BREAKAGES:
        breakage(g)
    full = validate(g, "full")
    assert len(full.violations) >= len(BREAKAGES)
    by_batch = validate(g, "batch", batch_size=300)
    assert by_batch.results == full.results and by_batch.checked == full.total
    from_store = validate(StoreTriples(store_from_rdflib(g)), "batch", batch_size=1000)
    assert from_store.results == full.results


def test_a_builds_triples_give_the_answer_of_its_rdflib_graph(fake_build):
    g = Graph()
    g += fake_build.rdf
    for breakage in BREAKAGES:
        breakage(g)
    triples = TripleList(sort_triples(oxigraph_triples(g)))
    for mode in ("sample", "batch", "full"):
        expected = validate(g, mode, sample_size=3)
        assert not expected.conforms
        assert validate(triples, mode, sample_size=3) == expected, mode


def test_a_sample_of_a_builds_triples_reads_whole_neighbourhoods(fake_build):
    triples = TripleList(fake_build.triples)
    papers = _papers(fake_build.rdf)[:3]
    together = neighbourhood(triples.neighbourhoods(papers), papers)  # as validate reads them
    one_by_one = Graph()
    for paper in papers:
        one_by_one += neighbourhood(fake_build.rdf, [paper])
    assert isomorphic(together, one_by_one) and len(together) > 3 * 10


def test_a_sample_finds_a_fault_of_every_node(fake_build):
    g = Graph()
    g += fake_build.rdf
    for link in list(g.subjects(None, KG.ConceptLink)):
        g.remove((link, KG.evidence, None))  # the writer forgot the evidence everywhere
    report = validate(g, "sample", sample_size=10)
    assert report.checked < report.total
    assert report.violations and all("kg:evidence" in str(v) for v in report.violations)
    assert len(report.violations) == 10


def test_a_neighbourhood_holds_what_the_shapes_read(fake_build):
    g = fake_build.rdf
    paper = next(p for p in _papers(g) if any(g.objects(p, KG.usesMethod)))
    sub = neighbourhood(g, [paper])
    assert set(g.triples((paper, None, None))) <= set(sub)
    backward = set(read_backwards())
    assert {KG.sharesConceptWith, KG.paper} <= backward
    assert {t for t in g.triples((None, None, paper)) if t[1] in backward} <= set(sub)
    # the shapes do not read an overlap's kg:firstPaper from the paper's side
    assert not set(g.triples((None, KG.firstPaper, paper))) & set(sub)
    # of the concepts it points to, their types (what sh:class reads), not their labels
    for concept in g.objects(paper, KG.usesMethod):
        assert set(g.triples((concept, RDF.type, None))) <= set(sub)
        assert not set(g.triples((concept, SKOS.prefLabel, None))) & set(sub)


def run(*argv: str):
    result = CliRunner().invoke(cli, list(argv))
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def test_kg_validate_reports_a_build_as_conforming(fake_build):
    for mode in ("full", "batch", "sample"):
        code, out, err = run("validate", str(fake_build.out), "--mode", mode)
        assert code == 0, out + err
        assert f"conforms ({mode}:" in out


def test_kg_validate_lists_violations_and_fails(fake_build, tmp_path):
    g = Graph()
    g += fake_build.rdf
    _break_kind(g)
    _break_confidence(g)
    broken = tmp_path / "broken.ttl"
    g.serialize(broken, format="turtle")
    for mode in ("full", "batch", "sample"):  # a sample of every node finds both
        code, out, err = run("validate", str(broken), "--mode", mode, "--sample-size", "100000")
        assert code == 1, out + err
        violations = [line for line in out.splitlines() if line.startswith("Violation: ")]
        assert len(violations) == 2, out
        assert any("kg:proposes points to a kg:Method (found concept:" in v for v in violations)
        assert "2 violations" in out.splitlines()[-1] and "Traceback" not in err


def one_seed(tmp_path: Path) -> Path:
    """The first seed abstract, as a build's input."""
    inputs = tmp_path / "papers.txt"
    shutil.copy(ROOT / "seeds" / sorted(p.name for p in (ROOT / "seeds").iterdir())[0], inputs)
    return inputs


def test_a_build_refuses_to_write_an_invalid_graph(fake_model, monkeypatch, tmp_path):
    import kg.build

    inputs = one_seed(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    (out / "kg.ttl").write_text("previous\n")
    from kg.graph import rdf_triples as real

    def broken_emit(graph, provenance, sink):
        """What a build streams into kg.nt, with one paper's title written twice."""
        g = rdflib_graph(real(graph, provenance))
        _break_title(g)
        for t in oxigraph_triples(g):
            sink.add((t.subject, t.predicate, t.object))

    monkeypatch.setattr(kg.build, "emit", broken_emit)
    code, out_text, err = run("build", str(inputs), "--out", str(out))
    assert code == 1 and out_text == ""
    assert "does not conform to kg's SHACL shapes" in err and "nothing was written" in err
    assert "dcterms:title: a paper has exactly one dcterms:title" in err
    assert "Traceback" not in err
    assert sorted(p.name for p in out.iterdir()) == ["kg.ttl"]
    assert (out / "kg.ttl").read_text() == "previous\n"
    assert [p.name for p in tmp_path.iterdir() if ".kg-new-" in p.name] == []  # nor its runs
    assert not multiprocessing.active_children()  # the check's child has ended


def test_a_build_checks_its_graph_in_another_process_while_it_writes(
    fake_model, monkeypatch, tmp_path
):
    """The check runs beside the other files (the second core), in a child process."""
    import kg.build

    inputs = one_seed(tmp_path)
    seen = tmp_path / "seen.txt"
    real = kg.build.check

    def watched(data, mode):
        staging = next(tmp_path.glob(".out.kg-new-*"))
        deadline = time.monotonic() + 60
        while not (staging / "kg.ttl").exists() and time.monotonic() < deadline:
            time.sleep(0.05)  # written by the parent meanwhile
        seen.write_text(f"{os.getpid()} {(staging / 'kg.ttl').exists()}")
        return real(data, mode)

    monkeypatch.setattr(kg.build, "check", watched)
    code, out_text, err = run("build", str(inputs), "--out", str(tmp_path / "out"))
    assert code == 0, err
    pid, written = seen.read_text().split()
    assert int(pid) != os.getpid() and written == "True"
    assert "SHACL: conforms" in out_text
    assert not multiprocessing.active_children()


def test_a_build_writes_its_graph_files_and_views_in_another_process(
    fake_model, monkeypatch, tmp_path
):
    """graph.graphml, graph.json and the views are written by a child beside the RDF."""
    import kg.build

    inputs = one_seed(tmp_path)
    writers = tmp_path / "writers.txt"
    real_graphml, real_entry = kg.build.export.write_graphml, kg.build.export.write_entry

    def note(name):
        with writers.open("a") as fh:
            fh.write(f"{name} {os.getpid()}\n")

    def graphml(graph, path):
        note(path.name)
        real_graphml(graph, path)

    def entry(directory, name, content):
        note(name)
        real_entry(directory, name, content)

    monkeypatch.setattr(kg.build.export, "write_graphml", graphml)
    monkeypatch.setattr(kg.build.export, "write_entry", entry)  # not the parent's loop's
    out = tmp_path / "out"
    code, _, err = run("build", str(inputs), "--out", str(out))
    assert code == 0, err
    pids = {}
    for line in writers.read_text().splitlines():
        name, pid = line.split()
        pids[name] = int(pid)
    beside = {"graph.graphml", "graph.json", "paper-map.html", "paper-details/0000.js"}
    assert beside <= set(pids)
    assert len({pids[name] for name in beside}) == 1  # one child wrote them all
    assert pids["graph.json"] != os.getpid()
    assert all((out / name).is_file() for name in beside)
    assert not multiprocessing.active_children()


def test_a_failed_build_stops_its_children_before_it_removes_their_directory(
    fake_model, monkeypatch, tmp_path
):
    """A child still writing would put files back into the removed directory."""
    import kg.build
    import kg.export.atomic

    inputs = one_seed(tmp_path)
    real_rmtree = kg.export.atomic.shutil.rmtree
    alive_then: list[list[str]] = []

    def slow_graphml(graph, path):
        time.sleep(30)  # still at work when the parent fails

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")

    def rmtree(path, *args, **kwargs):
        alive_then.append([p.name for p in multiprocessing.active_children()])
        real_rmtree(path, *args, **kwargs)

    monkeypatch.setattr(kg.build.export, "write_graphml", slow_graphml)
    monkeypatch.setattr(kg.build.export, "write_turtle", full_disk)
    monkeypatch.setattr(kg.export.atomic.shutil, "rmtree", rmtree)
    code, _, err = run("build", str(inputs), "--out", str(tmp_path / "out"))
    assert code != 0 and "No space left on device" in err
    assert alive_then == [[]]
    assert [p.name for p in tmp_path.iterdir() if ".kg-new-" in p.name] == []


def test_a_graph_file_that_cannot_be_written_fails_the_build_and_keeps_the_output(
    fake_model, monkeypatch, tmp_path
):
    """The child's error is the build's: nothing is written, the old output stays."""
    import kg.build

    inputs = one_seed(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    (out / "kg.ttl").write_text("previous\n")

    def full_disk(graph, path):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(kg.build.export, "write_graphml", full_disk)
    code, out_text, err = run("build", str(inputs), "--out", str(out))
    assert code != 0 and out_text == ""
    assert "No space left on device" in err and "unchanged" in err
    assert "Traceback" not in err
    assert sorted(p.name for p in out.iterdir()) == ["kg.ttl"]
    assert (out / "kg.ttl").read_text() == "previous\n"
    assert [p.name for p in tmp_path.iterdir() if ".kg-new-" in p.name] == []
    assert not multiprocessing.active_children()


def test_the_store_holds_exactly_what_the_files_say(fake_embedder, tmp_path):
    """Every literal keeps its datatype in the Oxigraph store (Oxigraph keeps only the
    primitive type of a derived one: xsd:positiveInteger becomes xsd:integer), so
    validating the store gives the answer of validating the build. Lexical forms may
    be canonical there ("0.7000" is "0.7"), values not."""
    import json

    import pyoxigraph as ox

    from kg.build import BuildRequest, build

    source = tmp_path / "papers.jsonl"
    records = [
        {
            "title": f"Paper {i}",
            "abstract": f"We propose Method-{i}, a graph transformer for molecule property "
            "prediction. It outperforms message passing networks.",
            "authors": ["Ada Lovelace", "Alan Turing", "Grace Hopper"][: i + 1],
            "year": 2024,
            "keywords": ["graphs"],
        }
        for i in range(3)
    ]
    source.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    out = tmp_path / "out"
    build(BuildRequest([source]), out, embedder=fake_embedder)
    store = ox.Store.read_only(str(out / "kg.oxigraph"))

    def typed(triples):
        return {
            (str(t.subject), str(t.predicate), getattr(t.object, "datatype", None)) for t in triples
        }

    written = list(ox.parse(path=str(out / "kg.nt"), format=ox.RdfFormat.N_TRIPLES))
    assert typed(q.triple for q in store) == typed(written) and len(store) == len(written)
    assert any(t.predicate.value.endswith("#authorPosition") for t in written)
    report = validate(StoreTriples(store), "batch")
    assert report.conforms, [str(v) for v in report.violations]


def test_a_batch_of_blank_nodes_is_checked_alone(fake_build):
    """pyshacl takes no blank focus node: such a batch is checked with every node of its
    neighbourhood, and only its own results count (a neighbour there has only its type)."""
    g = Graph()
    g += fake_build.rdf
    link = sorted(s for s in g.subjects(RDF.type, KG.ConceptLink) if isinstance(s, URIRef))[0]
    blank = BNode()
    for s, p, o in list(g.triples((link, None, None))):
        g.remove((s, p, o))
        g.add((blank, p, o))
    assert not list(g.triples((None, None, link)))  # nothing pointed at the link
    assert validate(g, "full").conforms
    report = validate(g, "batch", batch_size=1)
    assert report.conforms, [str(v) for v in report.violations]
    g.remove((blank, KG.confidence, None))  # and a blank node's own violation is found
    assert ["kg:confidence" in str(v) for v in validate(g, "batch", batch_size=1).violations] == [
        True
    ]


def test_a_build_s_triples_and_its_rdflib_graph_give_the_same_sample(fake_build):
    """The same focus nodes are picked from pyoxigraph terms as from rdflib nodes."""
    from kg.validate.check import _focus_nodes, _spread

    shapes = shapes_graph()
    as_nodes = _focus_nodes(fake_build.rdf, shapes)
    every = sum(len(nodes) for nodes in as_nodes.values())
    for size in (1, 5, every):  # the drawn sample, its first nodes, and every focus node
        classes = [URIRef(c) for c in as_nodes]
        as_terms, total = TripleList(fake_build.triples).sample(classes, size, _spread)
        assert {c: [str(n.value) for n in nodes] for c, nodes in as_terms.items()} == {
            c: [str(n) for n in sorted(nodes, key=_spread)[:size]] for c, nodes in as_nodes.items()
        }
        assert total == len({n for nodes in as_nodes.values() for n in nodes})
    broken = Graph()
    broken += fake_build.rdf
    for paper in _papers(broken):
        broken.remove((paper, DCTERMS.title, None))  # every paper, so a sample finds them
    from_list = validate(
        TripleList(sort_triples(oxigraph_triples(broken))), "sample", sample_size=7
    )
    from_graph = validate(broken, "sample", sample_size=7)
    assert (from_list.checked, from_list.total) == (from_graph.checked, from_graph.total)
    assert from_list.violations == from_graph.violations and len(from_graph.violations) == 7


def test_a_sample_read_from_kg_nt_is_the_sample_of_the_graph(fake_build, tmp_path):
    """The path of every build over FULL_LIMIT triples: focus nodes and neighbourhoods found
    in the sorted file by ``select``, with the answer of the rdflib graph."""
    from kg.export import NTriplesFile, SortedNTriples

    g = Graph()
    g += fake_build.rdf
    for breakage in BREAKAGES:
        breakage(g)
    sink = SortedNTriples(tmp_path, run_lines=500)
    for t in oxigraph_triples(g):
        sink.add((t.subject, t.predicate, t.object))
    on_disk = TripleList(NTriplesFile(tmp_path / "kg.nt", sink.write(tmp_path / "kg.nt")))
    for size in (3, 25):
        expected = validate(g, "sample", sample_size=size)
        assert not expected.conforms
        assert validate(on_disk, "sample", sample_size=size) == expected, size
    typed = set(on_disk.triples((None, RDF.type, KG.Paper)))
    assert typed == set(g.triples((None, RDF.type, KG.Paper))) and typed
    untargeted = set(g.triples((None, RDF.type, KG.Setting)))
    assert set(on_disk.triples((None, RDF.type, KG.Setting))) == untargeted and untargeted
