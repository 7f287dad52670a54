"""kg build keeps an up-to-date output as it is, and rebuilds when anything it reads changed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from kg.cli import cli

ROOT = Path(__file__).resolve().parents[1]
ABSTRACTS = [
    "We propose Graph-Mixer, a graph transformer for molecule property prediction.",
    "We introduce DropEdge-X, a regularization method that mitigates oversmoothing in "
    "message passing networks.",
    "We propose Curio, an exploration bonus for reinforcement learning with sparse rewards.",
]


@pytest.fixture
def inputs(tmp_path) -> Path:
    path = tmp_path / "in" / "papers.txt"
    path.parent.mkdir()
    path.write_text("\n\n".join(ABSTRACTS) + "\n", encoding="utf-8")
    return path


def build(*args: str) -> str:
    result = CliRunner().invoke(cli, ["build", *args])
    assert result.exit_code == 0, result.output
    return result.stdout


def state(out: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``out``: size and modification time (what a rewrite changes)."""
    return {
        str(p.relative_to(out)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in sorted(out.rglob("*"))
        if p.is_file()
    }


def test_a_build_with_nothing_changed_keeps_the_output(fake_model, inputs, tmp_path):
    out = tmp_path / "out"
    first = build(str(inputs), "--out", str(out))
    before = state(out)
    again = build(str(inputs), "--out", str(out))
    assert "wrote" in first and "(up to date)" not in first
    assert "(up to date)" in again and "--force rebuilds" in again
    assert first.split(";")[0] == again.split(";")[0]  # the same counts
    assert state(out) == before


@pytest.mark.parametrize(
    "change",
    ["input byte", "new input", "output edited", "output removed", "setting", "force", "no cache"],
)
def test_anything_changed_rebuilds(fake_model, inputs, tmp_path, change):
    out = tmp_path / "out"
    args = [str(inputs.parent), "--out", str(out)]
    build(*args)
    if change == "input byte":
        inputs.write_text(inputs.read_text().replace("Curio", "Curia"))
    elif change == "new input":
        inputs.with_name("more.txt").write_text(
            "We propose Sparse-Mix, a mixture of experts for long-context language modelling.\n"
        )
    elif change == "output edited":
        page = out / "index.html"
        page.write_text(page.read_text() + " ")
    elif change == "output removed":
        (out / "graph.graphml").unlink()
    elif change == "setting":
        args += ["--validate", "batch"]
    elif change == "force":
        args.append("--force")
    else:
        args.append("--no-cache")
    again = build(*args)
    assert "(up to date)" not in again and "wrote" in again
    assert (out / "graph.graphml").is_file()
    if change == "new input":
        assert again.startswith("4 papers")


def test_an_output_with_a_time_is_always_rebuilt(fake_model, inputs, tmp_path):
    out = tmp_path / "out"
    build(str(inputs), "--out", str(out), "--generated-at", "2026-01-01T00:00:00Z")
    again = build(str(inputs), "--out", str(out), "--generated-at", "2026-01-01T00:00:00Z")
    assert "(up to date)" not in again


def test_a_cache_that_cannot_be_written_only_means_a_rebuild(fake_model, inputs, tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "builds").write_text("not a directory")
    out = tmp_path / "out"
    build(str(inputs), "--out", str(out), "--cache-dir", str(cache))
    again = build(str(inputs), "--out", str(out), "--cache-dir", str(cache))
    assert "(up to date)" not in again and (out / "kg.ttl").is_file()


def test_the_record_is_per_output_directory(fake_model, inputs, tmp_path):
    build(str(inputs), "--out", str(tmp_path / "a"))
    other = build(str(inputs), "--out", str(tmp_path / "b"))
    assert "(up to date)" not in other
    os.utime(tmp_path / "a" / "kg.ttl", ns=(1, 1))  # touched as make sees it
    assert "(up to date)" not in build(str(inputs), "--out", str(tmp_path / "a"))
