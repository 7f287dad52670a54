"""The extraction cache: warm builds write what cold ones do, and miss exactly what changed.

Which papers a build extracted is read off a counting embedder (every
extraction embeds the paper's cleaned abstract), never off timing. The
killed-build tests stop a real child process with SIGKILL.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import SEEDS, FakeEmbedder

from kg.build import OUTPUT_FILES, BuildRequest, build
from kg.cli import cli
from kg.export import DETAILS_DIR
from kg.extract import CACHE_FILE, Settings, default_cache_dir, model_identity
from kg.extract.cache import extraction_key, paper_key
from kg.extract.extractor import _PROTOTYPES, _document
from kg.ingest import read_papers
from kg.model import Kind, Paper
from kg.taxonomy import load_taxonomy

ROOT = Path(__file__).resolve().parents[1]


class Other(FakeEmbedder):
    fingerprint = "another model"


class Counting(FakeEmbedder):
    """The fake embedder, remembering every text it was asked to embed."""

    def __init__(self) -> None:
        self.seen: set[str] = set()

    def embed(self, texts):
        self.seen.update(texts)
        return super().embed(texts)

    def extracted(self, papers: list[Paper]) -> set[str]:
        """Ids of the papers whose title and abstract were embedded, i.e. that were extracted."""
        return {p.id for p in papers if _document(p) in self.seen}


@pytest.fixture(scope="module")
def seed_papers() -> list[Paper]:
    return read_papers([SEEDS])


def write_jsonl(path: Path, papers: list[Paper], **changed: str) -> Path:
    """The papers as JSONL records; ``changed`` maps an id to its new abstract."""
    records = [
        {
            "id": p.id,
            "title": f"Paper {i}" if i % 3 == 0 else None,
            "abstract": changed.get(p.id, p.abstract),
            "keywords": ["gradient clipping"] if i % 4 == 0 else [],
        }
        for i, p in enumerate(papers)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def files(out: Path) -> dict[str, bytes]:
    """Every output file (the Oxigraph store, a database loaded from kg.ttl, is left out)."""
    details = sorted((out / DETAILS_DIR).iterdir())  # the views' papers' details
    return {name: (out / name).read_bytes() for name in OUTPUT_FILES if not name.endswith("/")} | {
        f"{DETAILS_DIR}/{d.name}": d.read_bytes() for d in details
    }


def run(source: Path, out: Path, cache: Path | None, **kw) -> tuple[Counting, object]:
    embedder = Counting()
    result = build(BuildRequest([source], cache_dir=cache, **kw), out, embedder=embedder)
    return embedder, result


def test_cold_warm_and_uncached_builds_write_the_same_bytes(tmp_path, fake_model):
    runner = CliRunner()
    out = {how: tmp_path / how for how in ("cold", "warm", "nocache")}
    cold = runner.invoke(cli, ["build", str(SEEDS), "--out", str(out["cold"])])
    warm = runner.invoke(cli, ["build", str(SEEDS), "--out", str(out["warm"])])
    nocache = runner.invoke(cli, ["build", str(SEEDS), "--out", str(out["nocache"]), "--no-cache"])
    for result in (cold, warm, nocache):
        assert result.exit_code == 0, result.output
    assert "reused" not in cold.stdout and "reused" not in nocache.stdout
    assert "reused the extraction of 37 of 37 papers" in warm.stdout
    assert files(out["cold"]) == files(out["warm"]) == files(out["nocache"])
    assert (default_cache_dir() / CACHE_FILE).is_file()


def test_no_cache_neither_reads_nor_writes(tmp_path, fake_model):
    cache = tmp_path / "c"
    args = ["build", str(SEEDS), "--out", str(tmp_path / "o"), "--cache-dir", str(cache)]
    assert CliRunner().invoke(cli, [*args, "--no-cache"]).exit_code == 0
    assert not cache.exists()
    assert CliRunner().invoke(cli, args).exit_code == 0
    again = CliRunner().invoke(cli, [*args, "--no-cache"])
    assert again.exit_code == 0 and "reused" not in again.stdout


def test_a_changed_abstract_is_the_only_paper_extracted_again(tmp_path, seed_papers):
    cache = tmp_path / "cache"
    source = write_jsonl(tmp_path / "a.jsonl", seed_papers)
    first, result = run(source, tmp_path / "o1", cache)
    papers = read_papers([source])
    assert first.extracted(papers) == {p.id for p in papers} and result.reused == 0

    again, result = run(source, tmp_path / "o2", cache)
    assert again.extracted(papers) == set() and result.reused == len(papers)
    assert files(tmp_path / "o1") == files(tmp_path / "o2")

    target = seed_papers[5]
    edited = write_jsonl(
        tmp_path / "a.jsonl", seed_papers, **{target.id: target.abstract + " We also prune."}
    )
    changed, result = run(edited, tmp_path / "o3", cache)
    new_papers = read_papers([edited])
    assert changed.extracted(new_papers) == {target.id}
    assert result.reused == len(papers) - 1
    # The same as a build of the edited input that never saw the cache.
    _, _ = run(edited, tmp_path / "o4", None)
    assert files(tmp_path / "o3") == files(tmp_path / "o4")


def test_a_changed_setting_or_taxonomy_extracts_every_paper_again(
    tmp_path, seed_papers, user_taxonomy
):
    cache = tmp_path / "cache"
    source = write_jsonl(tmp_path / "a.jsonl", seed_papers[:6])
    papers = read_papers([source])
    everyone = {p.id for p in papers}
    run(source, tmp_path / "o1", cache)
    fewer, _ = run(source, tmp_path / "o2", cache, settings=Settings(max_methods=2))
    assert fewer.extracted(papers) == everyone
    mine, _ = run(source, tmp_path / "o3", cache, taxonomy_path=user_taxonomy)
    assert mine.extracted(papers) == everyone
    # Each setting's entries stay: going back to one reuses it.
    back, result = run(source, tmp_path / "o4", cache, settings=Settings(max_methods=2))
    assert back.extracted(papers) == set() and result.reused == len(papers)
    assert files(tmp_path / "o2") == files(tmp_path / "o4")


def test_the_key_is_what_extraction_reads():
    key = extraction_key(model_identity(FakeEmbedder()), load_taxonomy(), Settings())
    paper = Paper(id="a", abstract="Some $x$ text.", text="Some x text.", title="T")
    same = [
        Paper(id="b", abstract="Some x text.", text="Some x text.", title="T", authors=("Ann",)),
        Paper(id="a", abstract="Some $x$ text.", text="Some x text.", title="T", year=2024),
    ]
    different = [
        Paper(id="a", abstract="Some $x$ text.", text="Some y text.", title="T"),
        Paper(id="a", abstract="Some $x$ text.", text="Some x text.", title="U"),
        Paper(id="a", abstract="Some $x$ text.", text="Some x text.", title="T", keywords=("k",)),
    ]
    assert all(paper_key(key, p) == paper_key(key, paper) for p in same)
    assert all(paper_key(key, p) != paper_key(key, paper) for p in different)
    others = [
        extraction_key(
            model_identity(FakeEmbedder()), load_taxonomy(), Settings(min_relevance=0.2)
        ),
        extraction_key(model_identity(Other()), load_taxonomy(), Settings()),
    ]
    assert key == extraction_key(model_identity(Counting()), load_taxonomy(), Settings())
    assert all(other != key for other in others)


def _cached_build(tmp_path: Path, seed_papers) -> tuple[Path, Path, list]:
    """Six seed papers built once into ``o1`` with a cache: (cache, source, papers)."""
    cache = tmp_path / "cache"
    source = write_jsonl(tmp_path / "a.jsonl", seed_papers[:6])
    run(source, tmp_path / "o1", cache)
    return cache, source, read_papers([source])


def test_the_extractors_set_up_vectors_are_stored_once_and_reused(tmp_path, seed_papers):
    """The field labels, definitions and kind prototypes are embedded by the first build
    that extracts; a later one that extracts a new paper reads them from the cache and writes
    the same bytes as a build that never saw it."""
    label = _PROTOTYPES[Kind.METHOD]
    cache, source, _ = _cached_build(tmp_path, seed_papers)
    with sqlite3.connect(cache / CACHE_FILE) as db:
        assert db.execute("SELECT count(*) FROM prepared").fetchone() == (1,)
    more = write_jsonl(tmp_path / "b.jsonl", seed_papers[:8])
    again, result = run(more, tmp_path / "o2", cache)
    assert result.reused == 6 and len(again.extracted(read_papers([more]))) == 2
    assert label not in again.seen
    uncached, _ = run(more, tmp_path / "o3", None)
    assert label in uncached.seen
    assert files(tmp_path / "o2") == files(tmp_path / "o3")


@pytest.mark.parametrize("damage", ["flipped byte", "not a blob", "no table"])
def test_damaged_set_up_vectors_are_embedded_again(tmp_path, seed_papers, damage):
    cache, _, _ = _cached_build(tmp_path, seed_papers)
    with sqlite3.connect(cache / CACHE_FILE) as db:
        (blob,) = db.execute("SELECT vectors FROM prepared").fetchone()
        if damage == "flipped byte":
            blob = blob[:-1] + bytes([blob[-1] ^ 1])
            db.execute("UPDATE prepared SET vectors = ?", (blob,))
        elif damage == "not a blob":
            db.execute("UPDATE prepared SET vectors = ?", ("text",))
        else:  # a cache written before the table existed
            db.execute("DROP TABLE prepared")
    label = _PROTOTYPES[Kind.METHOD]
    more = write_jsonl(tmp_path / "b.jsonl", seed_papers[:8])
    again, _ = run(more, tmp_path / "o2", cache)
    assert label in again.seen
    run(more, tmp_path / "o3", None)
    assert files(tmp_path / "o2") == files(tmp_path / "o3")
    from kg.extract.cache import _vectors_decoded

    with sqlite3.connect(cache / CACHE_FILE) as db:  # stored again, whole
        (blob,) = db.execute("SELECT vectors FROM prepared").fetchone()
    assert label in _vectors_decoded(blob)


def test_set_up_vectors_read_back_as_stored():
    from kg.extract.cache import _vectors_decoded, _vectors_encoded

    rng = np.random.default_rng(0)
    for dtype in (np.float32, np.float64):
        vectors = {t: rng.normal(size=5).astype(dtype) for t in ("a", "β label", "x y")}
        back = _vectors_decoded(_vectors_encoded(vectors))
        assert list(back) == list(vectors)
        assert all(back[t].dtype == dtype and (back[t] == v).all() for t, v in vectors.items())
    with pytest.raises(ValueError):
        _vectors_decoded(_vectors_encoded(vectors)[:-8])


def test_an_unreadable_entry_is_a_miss(tmp_path, seed_papers):
    cache, source, papers = _cached_build(tmp_path, seed_papers)
    with sqlite3.connect(cache / CACHE_FILE) as db:
        keys = [k for (k,) in db.execute("SELECT key FROM entries ORDER BY key")]
        db.execute("UPDATE entries SET mentions = ? WHERE key = ?", ("{not json", keys[0]))
        db.execute("UPDATE entries SET mentions = ? WHERE key = ?", ('[["x", "nope"]]', keys[1]))
    again, result = run(source, tmp_path / "o2", cache)
    assert len(again.extracted(papers)) == 2 and result.reused == len(papers) - 2
    assert files(tmp_path / "o1") == files(tmp_path / "o2")
    # The bad entries were replaced.
    third, _ = run(source, tmp_path / "o3", cache)
    assert third.extracted(papers) == set()


def test_an_entry_changed_on_disk_but_still_json_is_a_miss(tmp_path, seed_papers):
    """SQLite checks no content: a score's digit changed by bit rot must not reach the graph."""
    cache, source, papers = _cached_build(tmp_path, seed_papers)
    with sqlite3.connect(cache / CACHE_FILE) as db:
        key, value = db.execute("SELECT key, mentions FROM entries ORDER BY key").fetchone()
        # The first digit of the first score: the text is still JSON, the mention still valid.
        bump = lambda m: m[1] + str((int(m[2]) + 1) % 10)  # noqa: E731
        changed = re.sub(r'(", 0\.)(\d)', bump, value, count=1)
        assert changed != value
        db.execute("UPDATE entries SET mentions = ? WHERE key = ?", (changed, key))
    again, result = run(source, tmp_path / "o2", cache)
    assert len(again.extracted(papers)) == 1 and result.reused == len(papers) - 1
    assert files(tmp_path / "o1") == files(tmp_path / "o2")


@pytest.mark.parametrize("damage", ["garbage", "not-a-directory"])
def test_a_broken_cache_warns_and_the_build_goes_on(tmp_path, seed_papers, damage, fake_model):
    source = write_jsonl(tmp_path / "a.jsonl", seed_papers[:4])
    cache = tmp_path / "cache"
    if damage == "garbage":
        cache.mkdir()
        (cache / CACHE_FILE).write_bytes(b"this is not a database\n" * 200)
    else:
        cache.write_text("a file where the cache directory should be")
    args = ["build", str(source), "--out", str(tmp_path / "o"), "--cache-dir", str(cache)]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.stderr
    warning = [line for line in result.stderr.splitlines() if "extraction cache" in line]
    assert len(warning) == 1 and warning[0].startswith("kg: warning: "), result.stderr
    assert "building without it" in warning[0] and str(cache) in warning[0]
    uncached = CliRunner().invoke(
        cli, ["build", str(source), "--out", str(tmp_path / "n"), "--no-cache"]
    )
    assert uncached.exit_code == 0
    assert files(tmp_path / "o") == files(tmp_path / "n")


def permissions_apply(tmp_path: Path) -> bool:
    """Whether this process is held to file permissions (root, with CAP_DAC_OVERRIDE, is not)."""
    probe = tmp_path / "read-only-probe"
    probe.write_text("")
    probe.chmod(0o444)
    try:
        with probe.open("a"):
            return False
    except PermissionError:
        return True
    finally:
        probe.unlink()


@pytest.mark.parametrize("read_only", ["file", "directory", "both"])
def test_a_read_only_cache_is_read_and_warns_once_that_new_results_are_not_stored(
    tmp_path, seed_papers, read_only, fake_model
):
    if not permissions_apply(tmp_path):
        pytest.skip(f"file permissions do not apply to this process (euid {os.geteuid()})")
    cache = tmp_path / "cache"
    first = write_jsonl(tmp_path / "first.jsonl", seed_papers[:4])
    run(first, tmp_path / "o1", cache)
    file = cache / CACHE_FILE
    if read_only in ("file", "both"):
        file.chmod(0o444)
    if read_only in ("directory", "both"):
        cache.chmod(0o555)
    stored = file.read_bytes()
    try:
        source = write_jsonl(tmp_path / "more.jsonl", seed_papers[:7])
        args = ["build", str(source), "--out", str(tmp_path / "o"), "--cache-dir", str(cache)]
        result = CliRunner().invoke(cli, [*args, "--batch-size", "1"])  # three stores refused
        assert file.read_bytes() == stored
    finally:
        cache.chmod(0o755)
        file.chmod(0o644)
    assert result.exit_code == 0, result.output
    assert "reused the extraction of 4 of 7 papers (cache)" in result.stdout
    warnings = [line for line in result.stderr.splitlines() if line.startswith("kg: ")]
    assert warnings == [
        f"kg: warning: the extraction cache {file} cannot be written (attempt to write a readonly "
        "database); its entries are used, but the papers this build extracted are not stored "
        "(make it writable, or pass --cache-dir for one that is)"
    ]
    uncached = CliRunner().invoke(
        cli, ["build", str(source), "--out", str(tmp_path / "n"), "--no-cache"]
    )
    assert uncached.exit_code == 0
    assert files(tmp_path / "o") == files(tmp_path / "n")


# --- a killed build: real process, SIGKILL -------------------------------------

# Builds 12 papers in batches of 4 with the fake embedder, pausing at POINT:
# after the first batch was stored, or inside the transaction storing the second
# (after one of its four entries was inserted).
_CHILD = """
import sys, time
sys.path.insert(0, {root!r}); sys.path.insert(0, {tests!r})
from conftest import FakeEmbedder
import kg.build, kg.extract.cache as cache
point, puts, encoded = {point!r}, [0], [0]
put, encode = cache.ExtractionCache.put, cache._encode

def pause():
    print("PAUSED", flush=True)
    time.sleep(30)

def paused_put(self, entries):
    put(self, entries)
    puts[0] += 1
    if point == "after-first-batch" and puts[0] == 1:
        pause()

def paused_encode(mentions):
    encoded[0] += 1
    if point == "inside-second-batch" and encoded[0] == 6:
        pause()
    return encode(mentions)

cache.ExtractionCache.put, cache._encode = paused_put, paused_encode
request = kg.build.BuildRequest([{source!r}], cache_dir={cache!r}, batch_size=4)
kg.build.build(request, {out!r}, embedder=FakeEmbedder())
"""


@pytest.mark.slow
@pytest.mark.parametrize("point", ["after-first-batch", "inside-second-batch"])
def test_a_killed_build_leaves_the_entries_stored_before_it(tmp_path, seed_papers, point):
    source = write_jsonl(tmp_path / "a.jsonl", seed_papers[:12])
    cache = tmp_path / "cache"
    code = _CHILD.format(
        root=str(ROOT),
        tests=str(ROOT / "tests"),
        point=point,
        source=str(source),
        out=str(tmp_path / "killed"),
        cache=str(cache),
    )
    child = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    line = child.stdout.readline()
    assert line.strip() == "PAUSED", child.communicate()
    child.send_signal(signal.SIGKILL)
    child.communicate(timeout=60)
    assert child.returncode == -signal.SIGKILL
    assert not (tmp_path / "killed").exists()

    papers = read_papers([source])
    rebuilt, result = run(source, tmp_path / "o", cache)
    # Only the first batch was committed; the second's inserted entry was rolled back.
    assert result.reused == 4 and len(rebuilt.extracted(papers)) == 8
    _, _ = run(source, tmp_path / "n", None)
    assert files(tmp_path / "o") == files(tmp_path / "n")


@pytest.mark.model
def test_the_real_model_writes_the_same_bytes_cold_warm_and_uncached(
    tmp_path, real_model, seed_papers
):
    """Built from the cache (every paper, or 7 new papers with the set-up vectors it keeps) or
    without it, the seeds' files are the same bytes."""
    cache = tmp_path / "cache"
    first = write_jsonl(tmp_path / "first.jsonl", seed_papers[:30])
    every = write_jsonl(tmp_path / "every.jsonl", seed_papers)

    def built(source: Path, out: str, cache: Path | None = cache):
        return build(BuildRequest([source], cache_dir=cache), tmp_path / out, embedder=real_model)

    assert built(first, "first").reused == 0
    assert built(every, "added").reused == 30
    assert built(every, "warm").reused == 37
    built(every, "nocache", None)
    assert files(tmp_path / "added") == files(tmp_path / "warm") == files(tmp_path / "nocache")


def test_an_entry_keeps_every_field_of_its_mentions():
    from kg.extract.cache import _decode, _encode
    from kg.model import Mention, Role

    mentions = (
        Mention(
            "Clipped-SGD", Role.PROPOSES, 0.41, "We propose Clipped-SGD.", None, True, None, 0.9
        ),
        Mention("SGD", Role.USES, 0.3, "s", "stochastic gradient descent", False, "optim", None),
    )
    assert _decode(_encode(mentions)) == mentions
