"""Where extraction runs: this process, or a real ``distributed.LocalCluster``.

The unit tests drive :func:`extract_cached` with executors that finish batches
out of order. The integration tests run ``kg build --executor dask`` as users
do, on a LocalCluster of two worker processes with the real model, and compare
every output file byte for byte with the local build of the same input.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import SEEDS, FakeEmbedder

from kg.build import OUTPUT_FILES
from kg.cli import cli
from kg.extract import BATCH_SIZE, Extractor, LocalExecutor, extract_cached
from kg.ingest import read_papers
from kg.taxonomy import load_taxonomy

distributed = pytest.importorskip("distributed", reason="the Dask extra is not installed")


class Reversed:
    """An executor whose batches finish last-first, as a cluster's may."""

    def __init__(self, inner: LocalExecutor) -> None:
        self.inner = inner
        self.sizes: list[int] = []

    def map(self, batches):
        self.sizes = [len(b) for b in batches]
        yield from reversed(list(self.inner.map(batches)))


@pytest.fixture(scope="module")
def papers():
    return read_papers([SEEDS])


def local(embedder=None) -> LocalExecutor:
    taxonomy = load_taxonomy()
    return LocalExecutor(lambda: Extractor(embedder or FakeEmbedder(), taxonomy))


def test_results_come_back_in_input_order_whatever_order_batches_finish(papers):
    in_order, _ = extract_cached(papers, local(), None, "key", batch_size=5)
    executor = Reversed(local())
    shuffled, stats = extract_cached(papers, executor, None, "key", batch_size=5)
    assert list(shuffled) == [p.id for p in papers]
    assert shuffled == in_order
    assert executor.sizes == [5] * 7 + [2]
    assert stats.extracted == len(papers)


def test_the_local_executor_makes_no_extractor_when_nothing_is_missing():
    made = []
    executor = LocalExecutor(lambda: made.append(1))  # type: ignore[arg-type,return-value]
    assert list(executor.map([])) == []
    assert made == []


def test_the_command_line_batch_size_is_the_library_default():
    build = cli.commands["build"]
    [option] = [p for p in build.params if p.name == "batch_size"]
    assert option.default == BATCH_SIZE


def kg(*argv: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "kg.cli", *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=1800,
    )


def contents(out: Path) -> dict[str, bytes]:
    return {name: (out / name).read_bytes() for name in OUTPUT_FILES if not name.endswith("/")}


def seed_subset(tmp_path: Path, n: int) -> Path:
    records = [
        {"id": p.id, "title": p.title, "abstract": p.abstract, "keywords": list(p.keywords)}
        for p in read_papers([SEEDS])[:n]
    ]
    path = tmp_path / "papers.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.mark.timeout(1800)
def test_a_dask_build_on_a_local_cluster_writes_the_local_build_byte_for_byte(tmp_path):
    source = seed_subset(tmp_path, 16)
    # Batches of 3 papers: six tasks, shared by the two workers.
    common = ("build", str(source), "--no-cache", "--batch-size", "3")
    here = kg(*common, "--out", str(tmp_path / "local"), cwd=tmp_path)
    assert here.returncode == 0, here.stderr
    there = kg(
        *common,
        "--out",
        str(tmp_path / "dask"),
        "--executor",
        "dask",
        "--workers",
        "2",
        cwd=tmp_path,
    )
    assert there.returncode == 0, there.stderr
    assert "Traceback" not in there.stderr
    assert contents(tmp_path / "dask") == contents(tmp_path / "local")
    assert there.stdout.partition("; wrote")[0] == here.stdout.partition("; wrote")[0]


@pytest.mark.timeout(600)
def test_a_dask_build_fills_the_cache_a_local_build_then_reuses(tmp_path):
    source = seed_subset(tmp_path, 6)
    cache = tmp_path / "cache"
    common = ("build", str(source), "--cache-dir", str(cache), "--batch-size", "2")
    there = kg(*common, "--out", str(tmp_path / "dask"), "--executor", "dask", cwd=tmp_path)
    assert there.returncode == 0, there.stderr
    here = kg(*common, "--out", str(tmp_path / "local"), cwd=tmp_path)
    assert here.returncode == 0, here.stderr
    assert "reused the extraction of 6 of 6 papers" in here.stdout
    assert contents(tmp_path / "dask") == contents(tmp_path / "local")


def test_an_unreachable_scheduler_is_one_clear_error_and_the_output_stays(tmp_path, fake_model):
    out = tmp_path / "out"
    out.mkdir()
    (out / "kg.ttl").write_text("previous\n", encoding="utf-8")
    result = CliRunner().invoke(
        cli,
        [
            "build",
            str(SEEDS),
            "--out",
            str(out),
            "--no-cache",
            "--executor",
            "dask",
            "--scheduler",
            "tcp://127.0.0.1:9",
        ],
    )
    assert result.exit_code == 1, result.output
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in result.output
    assert "Traceback" not in result.output
    assert (out / "kg.ttl").read_text(encoding="utf-8") == "previous\n"


def test_a_scheduler_without_the_dask_executor_is_a_usage_error(tmp_path):
    result = CliRunner().invoke(
        cli, ["build", str(SEEDS), "--out", str(tmp_path / "o"), "--scheduler", "tcp://h:8786"]
    )
    assert result.exit_code == 2
    assert "--scheduler needs --executor dask" in result.output
    assert not (tmp_path / "o").exists()
