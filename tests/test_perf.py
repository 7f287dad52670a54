"""bench/perf.py: the synthetic corpus it makes, and one small run of all its builds."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import SEEDS

from kg.ingest import read_papers
from kg.text import sentences

ROOT = Path(__file__).resolve().parents[1]
PERF = ROOT / "bench" / "perf.py"


@pytest.fixture(scope="module")
def perf():
    spec = importlib.util.spec_from_file_location("perf", PERF)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def seed_records(perf):
    records = perf._records([str(SEEDS)])
    # Two groups, as ICLR's primary areas would make.
    for i, r in enumerate(records):
        r["primary_area"] = "even" if i % 2 == 0 else "odd"
    return records


def test_synthetic_abstracts_are_distinct_variants_of_real_ones(perf, seed_records, tmp_path):
    n = 3 * len(seed_records) + 5
    made = perf.synthesize(seed_records, n, seed=1)
    assert len(made) == n
    assert len({r["id"] for r in made}) == len({r["title"] for r in made}) == n
    assert len({r["abstract"] for r in made}) == n
    real = {r["abstract"] for r in seed_records}
    assert not real & {r["abstract"] for r in made}
    by_group = {
        g: {s for r in seed_records if r["primary_area"] == g for s in sentences(r["abstract"])}
        for g in ("even", "odd")
    }
    for i, r in enumerate(made):
        base = seed_records[i % len(seed_records)]
        assert r["primary_area"] == base["primary_area"]
        assert sentences(r["abstract"])[0] == sentences(base["abstract"])[0]
        assert set(sentences(r["abstract"])) <= by_group[base["primary_area"]]
    assert perf.synthesize(seed_records, n, seed=1) == made
    assert perf.synthesize(seed_records, n, seed=2) != made
    # kg reads every one of them as its own paper: none merges with another.
    path = perf._write_jsonl(tmp_path / "s" / "papers.jsonl", made)
    assert len(read_papers([path])) == n


@pytest.mark.model
def test_a_small_benchmark_runs_every_build(tmp_path):
    run = subprocess.run(
        [sys.executable, str(PERF), str(SEEDS), "--limit", "3", "--added", "2", "--json"],
        capture_output=True,
        text=True,
        check=False,
        timeout=1200,
    )
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    runs = report["runs"]
    assert list(runs) == ["naive", "kg cold", "kg warm", "kg no change", "kg +2"]
    assert [runs[r]["papers"] for r in runs] == [3, 3, 3, 3, 5]
    assert [runs[r].get("reused") for r in runs] == [None, 0, 3, 3, 3]
    stages = set(runs["kg cold"]["seconds"])
    assert {
        "ingest",
        "model",
        "extract",
        "concepts",
        "graph",
        "rdf",
        "validate",
        "export",
    } <= stages
    assert all(r["peak_mb"] > 50 and r["wall"] > 0 for r in runs.values())
    assert report["kg/naive"] == pytest.approx(
        runs["naive"]["wall"] / runs["kg cold"]["wall"], 0.01
    )


@pytest.mark.model
def test_a_benchmark_runs_only_the_builds_asked_for():
    command = [sys.executable, str(PERF), str(SEEDS), "--limit", "2", "--added", "1", "--json"]
    run = subprocess.run(
        [*command, "--runs", "cold,added"], capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert list(report["runs"]) == ["kg cold", "kg +1"]
    assert report["runs"]["kg +1"]["reused"] == 2  # the cold run's cache
    assert "kg/naive" not in report  # no naive run to compare with
    wrong = subprocess.run([*command, "--runs", "cold,hot"], capture_output=True, text=True)
    assert wrong.returncode == 2 and "--runs: choose among" in wrong.stderr
    alone = subprocess.run([*command, "--runs", "warm"], capture_output=True, text=True)
    assert alone.returncode == 2 and "add cold" in alone.stderr  # it would be a cold build


def test_the_incremental_papers_are_the_next_records_or_variants_when_none_are_left(
    perf, seed_records
):
    base, extra = perf.base_and_added(seed_records, 30, 5)
    assert base == seed_records[:30] and extra == seed_records[30:35]
    base, extra = perf.base_and_added(seed_records, len(seed_records), 4, seed=3)
    assert base == seed_records and len(extra) == 4
    assert extra == perf.synthesize(seed_records, 4, seed=3)  # variants of the first papers
    abstracts = {r["abstract"] for r in base}
    assert not abstracts & {r["abstract"] for r in extra}  # new papers, not repeats
    base, extra = perf.base_and_added(seed_records, 35, 4)  # two left: two, then variants
    assert extra[:2] == seed_records[35:] and extra[2:] == perf.synthesize(base, 4)[2:]


@pytest.mark.model
def test_the_int8_wrapper_runs_a_script_with_a_quantised_model(tmp_path):
    """bench/int8.py's figures are of the int8 model: its vectors are near the fp32 ones,
    not equal (a wrapper that quantised nothing would print 1.0)."""
    from kg.extract import load_model

    phrases = ["graph neural networks", "stochastic gradient descent"]
    script = tmp_path / "vectors.py"
    script.write_text(
        "import json\nfrom kg.extract import load_model\n"
        f"print(json.dumps(load_model().embed({phrases!r}).tolist()))\n",
        encoding="utf-8",
    )
    run = subprocess.run(
        [sys.executable, str(PERF.parent / "int8.py"), str(script)],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr
    quantised = json.loads(run.stdout.splitlines()[-1])
    fp32 = np.asarray(load_model().embed(phrases))
    cosines = np.sum(np.asarray(quantised) * fp32, axis=1)
    assert all(0.8 < c < 0.99999 for c in cosines), cosines
