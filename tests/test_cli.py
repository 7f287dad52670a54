"""The command line: builds, queries, errors without tracebacks, output left intact.

These use the fake embedder (fast); tests/test_build.py runs the real KeyBERT +
MiniLM pipeline on the seed files.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from rdflib import Graph

from kg.build import OUTPUT_FILES
from kg.cli import cli
from kg.query import SOURCE_STAMP, STORE_NAME

ROOT = Path(__file__).resolve().parents[1]
ABSTRACTS = [
    "We propose Graph-Mixer, a graph transformer for molecule property prediction. "
    "Graph-Mixer outperforms message passing networks on molecular benchmarks.",
    "Message passing networks suffer from oversmoothing in molecule property prediction. "
    "We introduce DropEdge-X, a regularization method that mitigates oversmoothing.",
    "We study reinforcement learning with sparse rewards. We propose Curio, an exploration "
    "bonus based on prediction error, and evaluate it on Atari games.",
]


@pytest.fixture
def inputs(tmp_path) -> Path:
    path = tmp_path / "papers.txt"
    path.write_text("ICML 2025 Papers\n\n" + "\n\n".join(ABSTRACTS) + "\n", encoding="utf-8")
    return path


def run(*argv: str) -> tuple[int, str, str]:
    """Run ``kg ARGV`` through click's test runner: exit status, stdout, stderr."""
    result = CliRunner().invoke(cli, list(argv))
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception  # a bug, not a user error: show the traceback
    return result.exit_code, result.stdout, result.stderr


def snapshot(out_dir: Path) -> dict[str, bytes]:
    """Every output file's bytes, a folder's by their path; for the Oxigraph store (a
    database), its sorted triples."""
    files = {}
    for p in sorted(out_dir.iterdir()):
        if p.name == STORE_NAME:
            files[p.name] = store_triples(p)
        elif p.is_dir():
            files.update((f"{p.name}/{q.name}", q.read_bytes()) for q in sorted(p.iterdir()))
        else:
            files[p.name] = p.read_bytes()
    return files


def store_triples(store: Path) -> bytes:
    import pyoxigraph

    data = pyoxigraph.serialize(
        pyoxigraph.Store.read_only(str(store)), format=pyoxigraph.RdfFormat.N_QUADS
    )
    stamp = json.loads((store / SOURCE_STAMP).read_text())
    return b"".join(sorted(data.splitlines(keepends=True))) + stamp["sha256"].encode()


def test_build_writes_every_output_and_a_summary(fake_model, inputs, tmp_path):
    out_dir = tmp_path / "out"
    code, out, err = run("build", str(inputs), "--out", str(out_dir))
    assert code == 0, err
    assert re.search(r"^3 papers, \d+ concepts .*shared-concept edges?; wrote ", out)
    assert sorted(p.name for p in out_dir.iterdir()) == sorted(n.rstrip("/") for n in OUTPUT_FILES)
    assert re.search(r"extracting \[#+\] 3/3 papers", err), err
    graph = json.loads((out_dir / "graph.json").read_text())
    assert sum(n["type"] == "paper" for n in graph["nodes"]) == 3
    assert len(Graph().parse(out_dir / "kg.ttl")) > 0


def test_two_builds_give_identical_files(fake_model, inputs, tmp_path):
    run("build", str(inputs), "--out", str(tmp_path / "a"))
    run("build", str(inputs), "--out", str(tmp_path / "b"))
    assert snapshot(tmp_path / "a") == snapshot(tmp_path / "b")


@pytest.mark.parametrize(
    "bad, message",
    [
        ("missing.txt", "missing.txt"),
        ("papers.pdf", "papers.pdf"),
        ("broken.jsonl", "broken.jsonl"),
    ],
)
def test_bad_input_is_one_clear_error_and_keeps_previous_output(
    fake_model, inputs, tmp_path, bad, message
):
    out_dir = tmp_path / "out"
    assert run("build", str(inputs), "--out", str(out_dir))[0] == 0
    before = snapshot(out_dir)
    (tmp_path / "papers.pdf").write_bytes(b"%PDF-1.4")
    (tmp_path / "broken.jsonl").write_text('{"abstract": "ok"}\n{not json\n')
    code, out, err = run("build", str(tmp_path / bad), "--out", str(out_dir))
    assert code == 1
    assert err.startswith("kg: error: ") and message in err
    assert "Traceback" not in err and out == ""
    assert snapshot(out_dir) == before


def test_output_path_that_is_a_file_is_an_error(fake_model, inputs, tmp_path):
    target = tmp_path / "taken"
    target.write_text("keep me")
    code, _, err = run("build", str(inputs), "--out", str(target))
    assert code == 1 and "not a directory" in err
    assert target.read_text() == "keep me"


def test_query_prints_a_table(fake_model, inputs, tmp_path):
    out_dir = tmp_path / "out"
    run("build", str(inputs), "--out", str(out_dir))
    code, out, err = run(
        "query",
        "SELECT (COUNT(?p) AS ?n) WHERE { ?p a kg:Paper }",
        "--graph",
        str(out_dir / "kg.ttl"),
    )
    assert code == 0, err
    assert out.splitlines()[0].strip() == "n" and out.splitlines()[2].strip() == "3"


@pytest.mark.parametrize(
    "query_file", sorted((ROOT / "queries").glob("*.rq")), ids=lambda p: p.name
)
def test_shipped_queries_run(fake_model, inputs, tmp_path, query_file):
    out_dir = tmp_path / "out"
    run("build", str(inputs), "--out", str(out_dir))
    code, out, err = run(
        "query", str(query_file), "--graph", str(out_dir / "kg.ttl"), "--format", "json"
    )
    assert code == 0, err
    assert isinstance(json.loads(out), list)


def test_query_errors_are_clear(tmp_path):
    code, _, err = run("query", "SELECT ?x", "--graph", str(tmp_path / "none.ttl"))
    assert code == 1 and "kg build" in err
    graph = tmp_path / "g.ttl"
    graph.write_text("<urn:a> <urn:b> <urn:c> .\n")
    code, _, err = run("query", "SELECT ?x WHERE { ?x", "--graph", str(graph))
    assert code == 1 and "SPARQL syntax error" in err and "Traceback" not in err


def _view(out_dir: Path, *argv: str, browser: Path | None = None):
    """``kg view`` in its own process, with $BROWSER a script that records what it opens.

    The standard library's webbrowser module reads $BROWSER once per process, so a
    fresh process gets exactly the browser the test sets up (and never a real one).
    """
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    if browser is not None:
        env["BROWSER"] = f"{sys.executable} {browser} %s"
    else:
        env.pop("BROWSER", None)
    return subprocess.run(
        [sys.executable, "-m", "kg.cli", "view", *argv, "--out", str(out_dir)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
    )


@pytest.fixture
def recorder(tmp_path) -> tuple[Path, Path]:
    """A stand-in browser: a script that appends the URL it is given to a file."""
    opened = tmp_path / "opened.txt"
    script = tmp_path / "browser.py"
    script.write_text(
        f"import sys\nopen({str(opened)!r}, 'a').write(sys.argv[1] + '\\n')\n",
        encoding="utf-8",
    )
    return script, opened


def test_view_regenerates_the_views_and_opens_one(fake_model, inputs, tmp_path, recorder):
    out_dir = tmp_path / "out"
    run("build", str(inputs), "--out", str(out_dir))
    built = snapshot(out_dir)
    for name in ("index.html", "paper-map.html"):
        (out_dir / name).unlink()
    script, opened = recorder
    done = _view(out_dir, browser=script)
    assert done.returncode == 0, done.stderr
    assert snapshot(out_dir) == built  # regenerated from graph.json, byte for byte
    index = (out_dir / "index.html").resolve()
    assert done.stdout.strip() == str(index)
    done = _view(out_dir, "concept-map", browser=script)
    assert done.returncode == 0, done.stderr
    assert opened.read_text().split() == [
        index.as_uri(),
        (out_dir / "concept-map.html").resolve().as_uri(),
    ]


def test_view_without_a_browser_prints_the_page(fake_model, inputs, tmp_path, recorder):
    out_dir = tmp_path / "out"
    run("build", str(inputs), "--out", str(out_dir))
    done = _view(out_dir, "paper-concept", "--no-open", browser=recorder[0])
    assert done.returncode == 0 and not recorder[1].exists()
    assert done.stdout.strip() == str((out_dir / "paper-concept.html").resolve())


def test_view_errors_are_one_line(tmp_path):
    code, out, err = run("view", "--out", str(tmp_path / "nothing"), "--no-open")
    assert code == 1 and out == ""
    assert err.strip() == (
        f"kg: error: {tmp_path / 'nothing' / 'graph.json'} not found; "
        "run kg build first (or pass --out DIR)"
    )
    (tmp_path / "graph.json").write_text('{"nodes": [\n  oops', encoding="utf-8")
    code, _, err = run("view", "--out", str(tmp_path), "--no-open")
    assert code == 1 and "graph.json:2: not valid JSON" in err and "Traceback" not in err
    code, _, err = run("view", "nonsense", "--out", str(tmp_path))
    assert code == 2 and "nonsense" in err


@pytest.mark.slow
def test_output_does_not_depend_on_the_hash_seed(tmp_path):
    """Set iteration order changes with PYTHONHASHSEED; the files must not."""
    import os
    import subprocess
    import sys

    papers = tmp_path / "papers.jsonl"
    papers.write_text(
        "\n".join(
            json.dumps({"id": f"p{i}", "abstract": text})
            for i, text in enumerate(
                [
                    "We study Markov Decision Processes (MDPs) with risk-averse objectives.",
                    "Planning in Markov decision processes is hard. We propose FastPlan.",
                    "We propose DeepPlan for markov decision processes and MDP planning.",
                ]
            )
        )
        + "\n"
    )
    script = (
        "import sys; sys.path.insert(0, {root!r}); from tests.conftest import FakeEmbedder; "
        "from kg.build import BuildRequest, build; "
        "build(BuildRequest([{src!r}]), {out!r}, embedder=FakeEmbedder())"
    )
    outputs = []
    for seed in ("1", "2"):
        out = tmp_path / f"out{seed}"
        code = script.format(root=str(ROOT), src=str(papers), out=str(out))
        env = {**os.environ, "PYTHONHASHSEED": seed}
        subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=ROOT)
        outputs.append(snapshot(out))
    assert outputs[0] == outputs[1]


def test_extraction_progress_moves_as_papers_finish_with_the_time_left(fake_model, tmp_path):
    """37 papers in one 64-paper batch: counts come in steps, not 0/37 then 37/37."""
    code, _, err = run("build", "seeds", "--out", str(tmp_path / "out"), "--no-cache")
    assert code == 0, err
    counts = re.findall(r"extracting \[[#-]{20}\] (\d+)/37 papers(, about \d+ s left)?", err)
    done = [int(n) for n, _ in counts]
    assert done == sorted(done) and done[-1] == 37
    assert len({n for n in done if 0 < n < 37}) >= 3, err
    # Once two steps are in, the line says how long the rest will take.
    assert any(left for n, left in counts if 0 < int(n) < 37), err


def test_reading_shows_once_it_takes_a_while_with_the_records_read(capsys):
    from kg.cli.app import ProgressLine

    progress = ProgressLine(refresh=0.05, heartbeat=0.05)
    progress("reading", 0, 0)  # the files are parsed: no count yet
    time.sleep(0.3)
    progress("reading", 20, 40)
    time.sleep(0.3)
    progress("reading", 40, 40)
    progress.close()
    lines = [line for line in capsys.readouterr().err.splitlines() if line]
    assert re.fullmatch(r"\[ +0\.\ds\] reading…", lines[0]), lines
    assert "reading [##########----------] 20/40 records" in "\n".join(lines)
    assert lines[-1].endswith("] reading [####################] 40/40 records"), lines


def test_quick_reading_shows_nothing_and_the_next_stage_at_once(capsys):
    """An input error found while reading stays the only line (tests/test_hostile.py)."""
    from kg.cli.app import ProgressLine

    progress = ProgressLine(refresh=5, heartbeat=5)
    progress("reading", 0, 0)
    progress("reading", 0, 3)
    progress("reading", 3, 3)
    assert capsys.readouterr().err == ""
    progress("loading model", 0, 1)
    progress.close()
    assert re.fullmatch(r"\r\[ +0\.\ds\] loading model…\n", capsys.readouterr().err)


def test_a_build_reports_its_records_read_before_it_loads_the_model(fake_embedder, inputs):
    from kg.build import BuildRequest, assemble

    calls: list[tuple[str, int, int]] = []
    assemble(
        BuildRequest([inputs]), embedder=fake_embedder, progress=lambda *call: calls.append(call)
    )
    stages = [stage for stage, _, _ in calls]
    assert calls[0] == ("reading", 0, 0) and ("reading", 3, 3) in calls
    assert stages.index("loading model") > max(i for i, s in enumerate(stages) if s == "reading")


def test_progress_redraws_on_a_clock_while_no_count_moves(capsys):
    from kg.cli.app import ProgressLine

    progress = ProgressLine(refresh=0.05, heartbeat=0.05)
    progress("extracting", 0, 37)
    progress("extracting", 8, 37)
    progress("extracting", 16, 37)
    time.sleep(0.5)
    progress.close()
    lines = [line.strip("\r") for line in capsys.readouterr().err.splitlines()]
    waiting = [line for line in lines if "16/37 papers" in line]
    assert len(waiting) >= 3, lines  # the count stood still; the line did not
    assert all(re.search(r"about \d+ s left", line) for line in waiting), lines
    assert "extracting [########------------] 16/37 papers" in waiting[0]
    # Nothing is drawn after close.
    time.sleep(0.1)
    assert capsys.readouterr().err == ""


def test_a_build_shows_loading_model_until_the_model_is_loaded(
    fake_embedder, inputs, monkeypatch, tmp_path
):
    """The model loads with the first batch; the bar showed 'extracting 0/37' all that time
    (half a minute and more), and looked stuck."""
    from kg.build import BuildRequest, assemble
    from kg.extract import executors

    calls: list[tuple[str, int, int]] = []
    made = executors.Extractor

    def making(*args, **kwargs):
        calls.append(("made", 0, 0))
        return made(*args, **kwargs)

    monkeypatch.setattr(executors, "Extractor", making)
    assemble(
        BuildRequest([inputs]), embedder=fake_embedder, progress=lambda *call: calls.append(call)
    )
    stages = [stage for stage, _, _ in calls]
    assert stages.index("made") < stages.index("extracting"), calls
    assert calls[stages.index("extracting")] == ("extracting", 0, 3)
    assert calls[-1] == ("extracting", 3, 3)

    # Two of four papers cached: the bar stood at 2/4 while the model loaded.
    cache = tmp_path / "cache"
    assemble(BuildRequest([inputs], cache_dir=cache), embedder=fake_embedder)
    more = tmp_path / "more.txt"
    more.write_text(inputs.read_text(encoding="utf-8") + "\n" + ABSTRACTS[0] + " Also graphs.\n")
    calls.clear()
    assemble(
        BuildRequest([more], cache_dir=cache),
        embedder=fake_embedder,
        progress=lambda *c: calls.append(c),
    )
    stages = [stage for stage, _, _ in calls]
    assert stages.index("made") < stages.index("extracting"), calls
    assert calls[stages.index("extracting")] == ("extracting", 3, 4)
    assert calls[-1] == ("extracting", 4, 4)
    calls.clear()
    assemble(
        BuildRequest([more], cache_dir=cache),
        embedder=fake_embedder,
        progress=lambda *c: calls.append(c),
    )
    assert "made" not in [stage for stage, _, _ in calls]  # all cached: no model
    assert calls[-1] == ("extracting", 4, 4)
