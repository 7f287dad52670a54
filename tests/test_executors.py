"""Where extraction runs: this process, or a real ``distributed.LocalCluster``.

The unit tests drive :func:`extract_cached` with executors that finish batches
out of order. The integration tests (marked ``model``) run ``kg build --executor dask`` as
users do, on a LocalCluster of two worker processes with the real model, and
compare every output file byte for byte with the local build of the same input.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import SEEDS, FakeEmbedder

from kg.build import OUTPUT_FILES
from kg.cli import cli
from kg.errors import KGError
from kg.export import DETAILS_DIR
from kg.extract import Extractor, LocalExecutor, Settings, executors, extract_cached
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


def kg(*argv: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "kg.cli", *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=1800,
    )


def contents(out: Path) -> dict[str, bytes]:
    details = sorted((out / DETAILS_DIR).iterdir())  # the views' papers' details
    return {name: (out / name).read_bytes() for name in OUTPUT_FILES if not name.endswith("/")} | {
        f"{DETAILS_DIR}/{d.name}": d.read_bytes() for d in details
    }


def seed_subset(tmp_path: Path, n: int) -> Path:
    records = [
        {"id": p.id, "title": p.title, "abstract": p.abstract, "keywords": list(p.keywords)}
        for p in read_papers([SEEDS])[:n]
    ]
    path = tmp_path / "papers.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.mark.model  # both builds load the real model, in subprocesses
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


@pytest.mark.model
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


class _Quiet(http.server.BaseHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 (the base class's name)
        pass


@contextlib.contextmanager
def no_scheduler(kind: str) -> Iterator[str]:
    """An address on 127.0.0.1 where no Dask scheduler is: a closed port, a listener that
    accepts and says nothing, an HTTP server, or one that greets in another protocol."""
    if kind == "http":
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Quiet)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            yield f"tcp://127.0.0.1:{server.server_address[1]}"
        finally:
            server.shutdown()
            server.server_close()
        return
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        port = listening.getsockname()[1]
        if kind == "closed":
            listening.close()
            yield f"tcp://127.0.0.1:{port}"
            return
        listening.listen()
        accepted: list[socket.socket] = []

        def accept() -> None:
            with contextlib.suppress(OSError):
                while True:
                    conn, _ = listening.accept()
                    accepted.append(conn)
                    if kind == "ssh":
                        conn.sendall(b"SSH-2.0-OpenSSH_9.6\r\n")

        threading.Thread(target=accept, daemon=True).start()
        try:
            yield f"tcp://127.0.0.1:{port}"
        finally:
            for conn in accepted:
                conn.close()


@pytest.mark.timeout(60)
@pytest.mark.parametrize("kind", ["closed", "silent", "http", "ssh"])
def test_an_address_without_a_dask_scheduler_is_one_clear_error_in_bounded_time(
    kind, tmp_path, fake_model, monkeypatch
):
    """A listener that accepts and says nothing, or an HTTP server, made the build wait for
    ever: distributed bounds the connection by its timeout but not the handshake after it."""
    monkeypatch.setattr(executors, "CONNECT_TIMEOUT", 2)
    out = tmp_path / "out"
    out.mkdir()
    (out / "kg.ttl").write_text("previous\n", encoding="utf-8")
    args = ["build", str(SEEDS), "--out", str(out), "--no-cache", "--executor", "dask"]
    with no_scheduler(kind) as address:
        start = time.monotonic()
        result = CliRunner().invoke(cli, [*args, "--scheduler", address])
        took = time.monotonic() - start
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and result.stdout == ""
    errors = [line for line in result.stderr.splitlines() if line.startswith("kg: ")]
    assert len(errors) == 1, result.stderr
    assert errors[0].startswith(f"kg: error: cannot reach the Dask scheduler at {address} (")
    assert errors[0].endswith(
        "; check the address (tcp://HOST:8786) and that the scheduler is running"
    )
    assert took < 2 + 20  # the timeout, and reading the seeds on a busy machine
    assert (out / "kg.ttl").read_text(encoding="utf-8") == "previous\n"


def test_a_scheduler_without_the_dask_executor_is_a_usage_error(tmp_path):
    result = CliRunner().invoke(
        cli, ["build", str(SEEDS), "--out", str(tmp_path / "o"), "--scheduler", "tcp://h:8786"]
    )
    assert result.exit_code == 2
    assert "--scheduler needs --executor dask" in result.output
    assert not (tmp_path / "o").exists()


@pytest.mark.timeout(120)
def test_a_scheduler_that_dies_mid_build_is_one_clear_error(tmp_path, fake_model):
    """A scheduler killed while its tasks ran ended the build in distributed's traceback
    (FutureCancelledError: scheduler-connection-lost); the previous output is kept."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "kg.ttl").write_text("previous\n", encoding="utf-8")
    log = tmp_path / "scheduler.log"
    with log.open("w") as sink:
        scheduler = subprocess.Popen(
            [Path(sys.executable).parent / "dask", "scheduler", "--host", "127.0.0.1"]
            + ["--port", "0", "--dashboard-address", ":0"],
            stderr=sink,
            stdout=sink,
        )
    try:
        address = None
        for _ in range(300):  # no worker ever joins: the tasks wait until it dies
            found = [w for w in log.read_text().split() if w.startswith("tcp://127.0.0.1:")]
            if found:
                address = found[0]
                break
            time.sleep(0.1)
        assert address, log.read_text()

        def kill_once_a_client_is_in() -> None:
            while "Receive client connection" not in log.read_text():
                time.sleep(0.1)
            time.sleep(1)
            scheduler.kill()

        threading.Thread(target=kill_once_a_client_is_in, daemon=True).start()
        args = ["build", str(SEEDS), "--out", str(out), "--no-cache", "--executor", "dask"]
        result = CliRunner().invoke(cli, [*args, "--scheduler", address])
    finally:
        scheduler.kill()
        scheduler.wait()
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit), result.exception  # no traceback
    assert result.stdout == ""
    errors = [line for line in result.stderr.splitlines() if line.startswith("kg: ")]
    assert errors == [
        f"kg: error: lost the connection to the Dask scheduler at {address} part-way through "
        "extraction; the batches finished before are in the extraction cache, so run the "
        "build again once the scheduler is back (or without --executor dask)"
    ]
    assert (out / "kg.ttl").read_text(encoding="utf-8") == "previous\n"


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_workers_that_die_on_a_batch_are_one_clear_error(papers):
    """A worker killed by its task (out of memory, say) ended the build in
    distributed's KilledWorker traceback."""
    import dask

    class Dying:
        def embed(self, texts):
            os._exit(1)  # as the kernel's OOM killer would end the worker

    spec = executors.ExtractorSpec("key", load_taxonomy(), Settings(), Dying())
    executor = executors.DaskExecutor(spec, executors.Cluster(workers=1))
    with (
        dask.config.set({"distributed.scheduler.allowed-failures": 0}),
        pytest.raises(KGError, match=r"^Dask workers died while extracting a batch of papers"),
    ):
        list(executor.map([papers[:2]]))
