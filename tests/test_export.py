"""File formats round-trip, and writing is all-or-nothing."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import networkx as nx
import pytest

from kg.errors import KGError, OutputError, ValidationError
from kg.export import (
    Beside,
    Later,
    exchange_supported,
    graphml_text,
    json_text,
    output_dir,
    write_files,
)


@pytest.fixture
def graph() -> nx.Graph:
    G = nx.Graph()
    G.add_node("paper:a", type="paper", label="A", authors=["X", "Y"], year=None)
    G.add_node("concept:sgd", type="concept", kind="method", label="SGD", alt_labels=[])
    G.add_edge(
        "paper:a",
        "concept:sgd",
        type="mentions",
        role="usesMethod",
        score=0.5,
        evidence='A "quoted" <sentence> & more.',
    )
    return G


def test_graphml_reads_back_with_networkx(graph, tmp_path):
    path = tmp_path / "g.graphml"
    path.write_text(graphml_text(graph))
    H = nx.read_graphml(path)
    assert H.nodes["paper:a"]["authors"] == "X; Y"
    assert "year" not in H.nodes["paper:a"]
    assert H.edges["paper:a", "concept:sgd"]["evidence"] == 'A "quoted" <sentence> & more.'


def test_json_reads_back_with_lists(graph):
    H = nx.node_link_graph(json.loads(json_text(graph)), edges="edges")
    assert H.nodes["paper:a"]["authors"] == ["X", "Y"]
    assert H.edges["paper:a", "concept:sgd"]["score"] == 0.5


@pytest.mark.parametrize("items", [1, 2, 2000])
def test_json_in_pieces_is_networkx_node_link_json_byte_for_byte(fake_build, items, monkeypatch):
    """graph.json is written a few nodes or edges at a time; its text is what json.dumps
    of networkx's node_link_data gives for the whole graph at once."""
    import kg.export.serialize as serialize

    monkeypatch.setattr(serialize, "JSON_ITEMS", items)
    looped = nx.Graph([("b", "b"), ("c", "a"), ("b", "a")], name="kept out")  # a self-loop
    karate = nx.relabel_nodes(nx.karate_club_graph(), str)
    for G in (fake_build.built.graph, nx.Graph(), karate, looped):
        H = nx.Graph()
        H.add_nodes_from(sorted(G.nodes(data=True)))
        H.add_edges_from(sorted((min(u, v), max(u, v), d) for u, v, d in G.edges(data=True)))
        data = nx.node_link_data(H, edges="edges")
        whole = json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n"
        pieces = list(serialize.json_chunks(G))
        assert "".join(pieces) == whole
        if items == 1:  # one node or edge a piece: never the whole text at once
            assert len(pieces) > G.number_of_nodes() + G.number_of_edges()


def test_output_is_independent_of_insertion_order(graph):
    reordered = nx.Graph()
    reordered.add_nodes_from(reversed(list(graph.nodes(data=True))))
    reordered.add_edges_from((v, u, d) for u, v, d in graph.edges(data=True))
    assert json_text(reordered) == json_text(graph)
    assert graphml_text(reordered) == graphml_text(graph)


def test_write_files_flushes_every_folder_it_wrote_entries_in(tmp_path, monkeypatch):
    from kg.export import swap

    flushed = []
    real_fsync_dir = swap.fsync_path

    def recording(path):
        flushed.append(path)
        real_fsync_dir(path)

    monkeypatch.setattr(swap, "fsync_path", recording)
    write_files(tmp_path / "out", {"a.txt": "a", "paper-details/0000.js": "b"})
    staged = [p for p in flushed if ".kg-new-" in str(p)]  # before the swap, in the staging
    assert [p.name for p in staged][:1] == ["paper-details"]  # a folder before its parent
    assert staged[1].name.startswith(".out.kg-new-") and staged[0].parent == staged[1]


def test_write_files_replaces_all_and_leaves_no_staging(tmp_path):
    out = tmp_path / "out"
    write_files(out, {"a.txt": "old a", "b.txt": "old b"})
    write_files(out, {"a.txt": "new a", "b.txt": "new b"})
    assert sorted(os.listdir(out)) == ["a.txt", "b.txt"]
    assert (out / "a.txt").read_text() == "new a"


def test_a_file_made_later_may_come_in_pieces(tmp_path):
    def pieces():
        yield "é, "
        yield "then more\n"

    out = tmp_path / "out"
    write_files(out, {"a.txt": Later(pieces), "b.bin": Later(lambda: b"\x00\xff")})
    assert (out / "a.txt").read_text(encoding="utf-8") == "é, then more\n"
    assert (out / "b.bin").read_bytes() == b"\x00\xff"


def test_an_entry_made_beside_is_made_while_the_next_files_are_written(tmp_path):
    started, written = threading.Event(), threading.Event()

    def store(path, stop):
        started.set()
        assert written.wait(10)  # the file after it was written meanwhile
        path.mkdir()
        (path / "data").write_text("loaded")

    def after(path):
        assert started.wait(10)
        path.write_text("after")
        written.set()

    out = tmp_path / "out"
    write_files(out, {"store": Beside(store), "after.txt": after})
    assert (out / "store" / "data").read_text() == "loaded"
    assert (out / "after.txt").read_text() == "after"


@pytest.mark.parametrize("fails", ["beside", "after"])
def test_a_failure_beside_or_after_leaves_the_old_output_and_no_thread(tmp_path, fails):
    out = tmp_path / "out"
    write_files(out, {"after.txt": "old"})
    stopped = threading.Event()

    def store(path, stop):
        path.mkdir()
        if fails == "beside":
            raise OSError(28, "No space left on device")
        assert stop.wait(10)  # asked to end because a later file failed
        (path / "late").write_text("written before the staging directory is removed")
        stopped.set()

    def after(path):
        if fails == "after":
            raise RuntimeError("a later file failed")
        path.write_text("after")

    with pytest.raises(KGError if fails == "beside" else RuntimeError, match="space|later"):
        write_files(out, {"store": Beside(store), "after.txt": after})
    assert os.listdir(out) == ["after.txt"] and (out / "after.txt").read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".out.kg-lock", "out"]
    assert stopped.is_set() == (fails == "after")
    assert not [t for t in threading.enumerate() if t.name.startswith("kg-write-")]


def test_a_check_before_the_commit_that_fails_leaves_the_old_output(tmp_path):
    out = tmp_path / "out"
    write_files(out, {"a.txt": "old"})
    checked = []

    def check():
        checked.append(sorted(os.listdir(next(tmp_path.glob(".out.kg-new-*")))))
        raise ValidationError("does not conform")

    with output_dir(out, ["a.txt", "b.txt"]) as target, pytest.raises(ValidationError):
        target.write({"a.txt": "new", "b.txt": "new"}, before_commit=check)
    assert checked == [["a.txt", "b.txt"]]  # called once every file was written
    assert os.listdir(out) == ["a.txt"] and (out / "a.txt").read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".out.kg-lock", "out"]


def test_a_failed_write_stops_what_writes_beside_it_before_its_directory_goes(tmp_path):
    """``on_abort`` runs while the new directory still exists, and only on failure."""
    out = tmp_path / "out"
    seen: list[list[str]] = []

    def stop() -> None:
        seen.append(sorted(p.name for p in tmp_path.iterdir() if ".kg-new-" in p.name))

    def broken(path: Path) -> None:
        raise OSError(28, "No space left on device")

    with output_dir(out, ["a.txt", "b.txt"]) as target:
        target.write({"a.txt": "one"}, on_abort=stop)
        assert seen == []
        with pytest.raises(OutputError):
            target.write({"a.txt": "two", "b.txt": broken}, on_abort=stop)
    assert len(seen) == 1 and len(seen[0]) == 1  # the new directory, still there
    assert [p.name for p in tmp_path.iterdir() if ".kg-new-" in p.name] == []
    assert (out / "a.txt").read_text() == "one"


def test_a_child_forked_during_a_build_does_not_hold_its_lock(tmp_path):
    """A build's forked check closes its copy of the lock before it starts its work: once
    the build has ended, the next one starts, even while that child still runs (a killed
    build's, on a system that does not kill it with its parent)."""
    from kg.build import forked

    out = tmp_path / "out"
    with output_dir(out, ["a.txt"]):
        child = forked.start(lambda: time.sleep(60))
    try:
        with output_dir(out, ["a.txt"]) as target:  # no BusyError
            target.write({"a.txt": "next"})
    finally:
        child.stop()
    assert (out / "a.txt").read_text() == "next"


def test_a_forked_child_closes_its_copy_of_the_lock_at_once(tmp_path):
    out = tmp_path / "out"
    with output_dir(out, ["a.txt"]):
        lock = next(tmp_path.glob(".out.kg-lock"))
        pid = os.fork()
        if pid == 0:  # the child: exit 0 if no descriptor of it leads to the lock file
            code = 2
            try:
                held = [f for f in os.listdir("/proc/self/fd") if _leads_to(f, lock)]
                code = 1 if held else 0
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        assert [f for f in os.listdir("/proc/self/fd") if _leads_to(f, lock)]  # held here
    assert os.waitstatus_to_exitcode(status) == 0


def _leads_to(fd: str, path) -> bool:
    try:
        return os.readlink(f"/proc/self/fd/{fd}") == os.path.realpath(path)
    except OSError:
        return False


def test_unwritable_output_is_a_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(KGError, match="not a directory"):
        write_files(blocker, {"a.txt": "a"})
    with pytest.raises(KGError, match="cannot write"):
        write_files(blocker / "sub", {"a.txt": "a"})


def test_write_swaps_the_whole_directory_and_removes_files_no_longer_written(tmp_path):
    out = tmp_path / "out"
    write_files(out, {"a.txt": "old a", "b.txt": "old b"})
    inode = out.stat().st_ino
    with output_dir(out, ["a.txt", "b.txt"]) as target:  # a build that no longer writes b.txt
        target.write({"a.txt": "new a"})
    assert sorted(os.listdir(out)) == ["a.txt"] and (out / "a.txt").read_text() == "new a"
    assert out.stat().st_ino != inode  # a new directory, not files renamed one by one
    assert [p.name for p in tmp_path.iterdir() if p.name != "out"] == [".out.kg-lock"]


def test_without_an_atomic_exchange_the_fallback_swaps_too(tmp_path, monkeypatch):
    import kg.export.swap as swap

    monkeypatch.setattr(swap, "_exchange", lambda a, b: False)
    out = tmp_path / "out"
    write_files(out, {"a.txt": "old"})
    write_files(out, {"a.txt": "new"})
    assert (out / "a.txt").read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".out.kg-lock", "out"]


def test_a_build_killed_inside_the_fallback_is_undone_by_the_next(tmp_path):
    out = tmp_path / "out"
    write_files(out, {"a.txt": "previous"})
    os.rename(out, tmp_path / ".out.kg-old-123")  # killed between the fallback's renames
    (tmp_path / ".out.kg-new-456").mkdir()
    with output_dir(out, ["a.txt"]) as target:
        assert (out / "a.txt").read_text() == "previous"
        assert target.real == out.resolve()
    assert sorted(p.name for p in tmp_path.iterdir()) == [".out.kg-lock", "out"]


def test_the_exchange_is_atomic_on_this_file_system(tmp_path):
    assert exchange_supported(tmp_path)  # Linux with renameat2: the fallback is not in use
