"""kg.export.ntriples: a build's RDF sorted on disk, and read back as often as asked."""

from __future__ import annotations

import random

import pyoxigraph as ox

from kg.export import NTriplesFile, SortedNTriples, ntriples_text
from kg.graph import emit
from kg.terms import sort_triples


def _kg_nt(fake_build, tmp_path):
    """The fake build's triples emitted and merged into tmp_path/kg.nt, as a build does."""
    sink = SortedNTriples(tmp_path)
    emit(fake_build.kg, fake_build.built.provenance, sink)
    return NTriplesFile(tmp_path / "kg.nt", sink.write(tmp_path / "kg.nt"))


def _added(sink, triples):
    for t in triples:
        sink.add((t.subject, t.predicate, t.object))


def test_runs_merge_into_the_sorted_distinct_lines(fake_build, tmp_path):
    triples = list(fake_build.triples)
    shuffled = triples + triples[::7]  # each of these twice
    random.Random(3).shuffle(shuffled)
    sink = SortedNTriples(tmp_path, run_lines=50)
    _added(sink, shuffled)
    assert len(list(tmp_path.glob(".run-*"))) == len(shuffled) // 50  # spilled as it went
    count = sink.write(tmp_path / "kg.nt")
    text = (tmp_path / "kg.nt").read_bytes().decode("utf-8")
    assert text == ntriples_text(triples) == "".join(sorted({f"{t} .\n" for t in triples}))
    assert count == len(triples)
    assert [p.name for p in tmp_path.iterdir()] == ["kg.nt"]  # the runs are gone


def test_a_build_emitted_in_runs_is_its_triples_in_order(fake_build, tmp_path):
    sink = SortedNTriples(tmp_path, run_lines=1000)
    emit(fake_build.kg, fake_build.built.provenance, sink)
    rdf = NTriplesFile(tmp_path / "kg.nt", sink.write(tmp_path / "kg.nt"))
    again = NTriplesFile(tmp_path / "kg.nt")  # counted from the file
    assert len(rdf) == len(again) == len(fake_build.triples)
    assert sort_triples(rdf) == fake_build.triples
    assert list(rdf) == list(again)  # read anew on every pass


def test_an_empty_graph_is_an_empty_file(tmp_path):
    sink = SortedNTriples(tmp_path)
    assert sink.write(tmp_path / "kg.nt") == 0
    assert (tmp_path / "kg.nt").read_bytes() == b""
    assert list(NTriplesFile(tmp_path / "kg.nt")) == []


def test_hostile_literals_survive_the_round_trip(tmp_path):
    s, p = ox.NamedNode("https://example.org/s"), ox.NamedNode("https://example.org/p")
    texts = ["a\nb", 'quote " and \\ backslash', "\u2028 line sep", "tab\there", "\x00", "é"]
    triples = [ox.Triple(s, p, ox.Literal(t)) for t in texts]
    sink = SortedNTriples(tmp_path, run_lines=2)
    _added(sink, triples)
    rdf = NTriplesFile(tmp_path / "kg.nt", sink.write(tmp_path / "kg.nt"))
    assert sorted(t.object.value for t in rdf) == sorted(texts)
    assert len(NTriplesFile(tmp_path / "kg.nt")) == len(texts)  # one line each


def test_select_finds_every_line_of_the_subjects_and_predicates_asked_for(fake_build, tmp_path):
    """Binary search by subject and a byte search by predicate miss nothing, and of the
    subjects asked for bring nothing else."""
    rdf = _kg_nt(fake_build, tmp_path)
    triples = list(rdf)
    subjects = sorted({str(t.subject) for t in triples})
    predicates = sorted({str(t.predicate) for t in triples})
    rnd = random.Random(11)
    for _ in range(40):
        wanted = set(rnd.sample(subjects, rnd.randint(0, 12))) | {"<https://example.org/none>"}
        by = set(rnd.sample(predicates, rnd.randint(0, 2)))
        got = list(rdf.select(wanted, by))
        expected = [t for t in triples if str(t.subject) in wanted or str(t.predicate) in by]
        assert set(expected) <= set(got)
        assert got == sorted(got, key=lambda t: f"{t} .\n")  # in the file's order
        extra = [t for t in got if t not in expected]
        assert all(str(t.subject) not in wanted for t in extra)
        assert all(any(p in str(t.object) for p in by) for t in extra)  # the IRI as object
        if not by:
            assert got == expected
    first, last = subjects[0], subjects[-1]  # the ends of the file
    assert [str(t.subject) for t in rdf.select({first, last}, set())] == sorted(
        [str(t.subject) for t in triples if str(t.subject) in (first, last)]
    )


def test_the_file_is_read_in_kg_order_types_first(fake_build, tmp_path):
    from kg.export.serialize import _kg_order

    rdf = _kg_nt(fake_build, tmp_path)
    assert list(_kg_order(rdf)) == fake_build.triples


def test_select_keeps_a_predicates_lines_only_for_the_objects_asked_for(fake_build, tmp_path):
    """The inverse paths of a SHACL sample: lines of a predicate pointing at given nodes."""
    rdf = _kg_nt(fake_build, tmp_path)
    triples = list(rdf)
    nodes = sorted({str(t.object) for t in triples if not isinstance(t.object, ox.Literal)})
    predicates = sorted({str(t.predicate) for t in triples})
    rnd = random.Random(5)
    for _ in range(40):
        by = set(rnd.sample(predicates, rnd.randint(1, 3)))
        objects = set(rnd.sample(nodes, rnd.randint(0, 8)))
        got = list(rdf.select(set(), by, objects))
        expected = [t for t in triples if str(t.predicate) in by and str(t.object) in objects]
        assert got == expected
    some = {str(t.predicate) for t in triples[:3]}
    assert list(rdf.select(set(), some, set())) == []  # no object asked for: no line


def test_the_sorted_file_says_whether_it_holds_blank_nodes(fake_build, tmp_path):
    """The store is loaded from kg.nt in pieces only without blank nodes (Oxigraph labels a
    blank node anew on each load, so one cut across pieces would become several)."""
    sink = SortedNTriples(tmp_path)
    emit(fake_build.kg, fake_build.built.provenance, sink)
    assert not sink.blank_nodes  # kg's own triples
    s, p = ox.NamedNode("https://example.org/s"), ox.NamedNode("https://example.org/p")
    sink.add((s, p, ox.BlankNode("b1")))
    assert sink.blank_nodes
    sink.write(tmp_path / "kg.nt")
    assert NTriplesFile(tmp_path / "kg.nt").blank_nodes  # unknown: it may


def test_select_by_subject_and_by_object_together(fake_build, tmp_path):
    """The call a sample's neighbourhoods make: the nodes' own lines and the lines of
    the inverse-path predicates pointing at them, nothing more."""
    rdf = _kg_nt(fake_build, tmp_path)
    triples = list(rdf)
    nodes = sorted({str(t.subject) for t in triples})
    predicates = sorted({str(t.predicate) for t in triples})
    rnd = random.Random(7)
    for _ in range(30):
        wanted = set(rnd.sample(nodes, rnd.randint(1, 10)))
        by = set(rnd.sample(predicates, rnd.randint(1, 3)))
        got = list(rdf.select(wanted, by, wanted))
        assert got == [
            t
            for t in triples
            if str(t.subject) in wanted or (str(t.predicate) in by and str(t.object) in wanted)
        ]


def test_select_through_small_windows_finds_what_one_window_finds(
    fake_build, tmp_path, monkeypatch
):
    """The map is searched a window at a time (and each window's pages handed back):
    a predicate cut by a window's edge is still found, and found once."""
    import kg.export.ntriples as ntriples

    rdf = _kg_nt(fake_build, tmp_path)
    triples = list(rdf)
    nodes = sorted({str(t.subject) for t in triples})
    predicates = sorted({str(t.predicate) for t in triples})
    rnd = random.Random(3)
    asks = [
        (set(rnd.sample(nodes, 4)), set(rnd.sample(predicates, 2)), objects)
        for objects in (None, set(rnd.sample(nodes, 30)))
        for _ in range(10)
    ]
    whole = [list(rdf.select(*ask)) for ask in asks]
    for window in (97, 4096):
        monkeypatch.setattr(ntriples, "WINDOW_BYTES", window)
        assert [list(rdf.select(*ask)) for ask in asks] == whole


def test_pieces_are_whole_lines_and_the_whole_file(fake_build, tmp_path, monkeypatch):
    import kg.export.ntriples as ntriples

    rdf = _kg_nt(fake_build, tmp_path)
    monkeypatch.setattr(ntriples, "PIECE_BYTES", 100)
    pieces = list(rdf.pieces())
    assert len(pieces) > 10 and all(p.endswith(b"\n") for p in pieces)
    assert b"".join(pieces) == rdf.path.read_bytes()


def _file_resident_kib() -> int:
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith("RssFile:"))


def test_a_search_of_the_whole_file_leaves_its_pages_unmapped(tmp_path):
    """A page read through a map counts as resident memory until unmapped: a search of
    kg.nt must hand its pages back, or a 3 GB file adds 3 GB to the build's peak RSS."""
    import os

    if not os.path.exists("/proc/self/status"):
        import pytest

        pytest.skip("needs Linux's /proc to read resident memory")
    s = "<https://example.org/s{:07d}> <https://example.org/p> <https://example.org/o> .\n"
    path = tmp_path / "kg.nt"
    with open(path, "w") as fh:  # 64 MB, beyond a window
        fh.writelines(s.format(i) for i in range(800_000))
    rdf = NTriplesFile(path, 800_000, blank_nodes=False)
    before = _file_resident_kib()
    asked = {"<https://example.org/s0000007>", "<https://example.org/s0799999>"}
    found = rdf.select(asked, {"<https://example.org/p>"}, {"<https://example.org/none>"})
    first = next(found)  # the whole file searched, and still mapped
    during = _file_resident_kib() - before
    assert [str(t.subject) for t in [first, *found]] == sorted(asked)
    assert during < 16 << 10  # not the file's 64 MB
