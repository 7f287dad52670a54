"""kg's build against the notebook baseline, on the same input in one run.

    .venv/bin/python bench/perf.py [INPUT ...] [--limit N] [--synthetic N] [--added K] [--json]

INPUT is files or directories kg reads (default: seeds/), or ``data`` for
``../shared/data/iclr2024_dev.jsonl`` and ``icml2024.jsonl`` (3,676 abstracts).
``--limit N`` keeps the first N papers; ``--synthetic N`` builds N abstracts
made from the input's (see docs/explanation/performance.md, "Synthetic corpora").

Each run is its own child process, one after the other, so that its wall time
includes starting Python, importing the libraries and loading the model, and
its peak RSS is its own:

1. ``naive``: the notebook. Plain KeyBERT over each abstract with the same
   MiniLM object kg loads (offline, hash-checked), 1-3-grams, English stop
   words, top 10; then an rdflib graph of paper -> keyword triples written as
   Turtle, a networkx graph, and a pyvis HTML page.
2. ``kg cold``: ``kg build``'s code path with an empty extraction cache.
3. ``kg warm``: the same build again into a new directory, every paper's
   extraction cached: everything after extraction is done again.
4. ``kg no change``: ``kg build`` run again into the warm run's directory with
   nothing changed: it finds the output up to date and keeps it
   (:mod:`kg.freshness`).
5. ``kg +K``: the input plus the next K papers (``--added``, default 100),
   with the cache of the runs before; when the input has no K papers after the
   ones built, the K are variants of its first papers (:func:`synthesize`).

It prints papers/second, the seconds of each stage, peak RSS (and that of the
build's forked SHACL check, which runs beside it), and the kg/naive
ratio of papers per second. Numbers depend on what else runs on the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
DATA_FILES = ("iclr2024_dev.jsonl", "icml2024.jsonl")
NAIVE_STAGES = ("load", "keybert", "rdflib", "networkx", "pyvis")
RUNS = ("naive", "cold", "warm", "same", "added")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("inputs", nargs="*", default=[str(ROOT / "seeds")])
    parser.add_argument("--limit", type=int, default=None, help="the first N papers")
    parser.add_argument("--synthetic", type=int, default=None, metavar="N")
    parser.add_argument("--added", type=int, default=100, metavar="K")
    parser.add_argument("--seed", type=int, default=0, help="of the synthetic corpus")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--runs",
        default=",".join(RUNS),
        help=f"which runs, comma-separated (default: all of {','.join(RUNS)}); warm, same and "
        "added reuse the cache the cold run fills",
    )
    parser.add_argument("--child", choices=["kg", "kg-same", "naive"], help=argparse.SUPPRESS)
    parser.add_argument("--source", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("--cache", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        source, out = Path(args.source), Path(args.out)
        if args.child == "naive":
            print(json.dumps(_run_naive(source, out, args.cache)))
        else:
            print(json.dumps(_run_kg(source, out, args.cache, keep=args.child == "kg-same")))
        return

    chosen = set(args.runs.split(","))
    if not chosen <= set(RUNS):
        parser.error(f"--runs: choose among {', '.join(RUNS)}")
    if chosen & {"warm", "same", "added"} and "cold" not in chosen:
        parser.error("--runs: warm, same and added reuse the cache a cold run fills: add cold")
    records = _records(args.inputs)
    wanted = args.synthetic or args.limit or len(records)
    if args.synthetic:
        records = synthesize(records, args.synthetic + args.added, args.seed)
    base, extra = base_and_added(records, wanted, args.added, args.seed)
    load_before = os.getloadavg()[1]
    with tempfile.TemporaryDirectory(prefix="kg-perf-") as tmp:
        work = Path(tmp)
        source = _write_jsonl(work / "base" / "papers.jsonl", base)
        cache = work / "cache"
        runs = {}
        if "naive" in chosen:
            runs["naive"] = _child("naive", source, work / "naive")
        if "cold" in chosen:
            runs["kg cold"] = _child("kg", source, work / "cold", cache)
        if "warm" in chosen or "same" in chosen:
            runs["kg warm"] = _child("kg", source, work / "warm", cache)
        if "same" in chosen:
            runs["kg no change"] = _child("kg-same", source, work / "warm", cache)
        if extra and "added" in chosen:
            more = _write_jsonl(work / "more" / "papers.jsonl", base + extra)
            runs[f"kg +{len(extra)}"] = _child("kg", more, work / "more-out", cache)
    report: dict[str, Any] = {"papers": len(base), "added": len(extra), "runs": runs}
    # Other processes on the machine slow every run; the 5-minute load average says how busy.
    report["load average"] = [round(load_before, 2), round(os.getloadavg()[1], 2)]
    cold, naive = (
        runs.get("kg cold", {"failed": "not run"}),
        runs.get("naive", {"failed": "not run"}),
    )
    if "failed" not in cold and "failed" not in naive:
        report["kg/naive"] = round(naive["wall"] / cold["wall"], 2)
    print(json.dumps(report, indent=2) if args.json else _table(report))


def _records(inputs: list[str]) -> list[dict[str, Any]]:
    """The papers of the inputs as JSON records, read by kg's own ingest."""
    sys.path.insert(0, str(ROOT))
    from kg.ingest import read_papers

    paths = [p for i in inputs for p in ([DATA / f for f in DATA_FILES] if i == "data" else [i])]
    out = []
    for p in read_papers(paths):
        record: dict[str, Any] = {"id": p.id, "title": p.title, "abstract": p.abstract}
        if p.keywords:
            record["keywords"] = list(p.keywords)
        out.append({**record, "authors": list(p.authors), "year": p.year, "venue": p.venue})
    # The area of an ICLR paper groups the synthetic variants; kg ignores the key.
    areas = _areas(paths)
    for record in out:
        if record["id"] in areas:
            record["primary_area"] = areas[record["id"]]
    return out


def _areas(paths: list[Any]) -> dict[str, str]:
    areas = {}
    for path in paths:
        if str(path).endswith(".jsonl"):
            for line in Path(path).read_text(encoding="utf-8").splitlines():
                r = json.loads(line) if line.strip() else {}
                if r.get("primary_area") and r.get("id"):
                    areas[str(r["id"])] = str(r["primary_area"])
    return areas


def base_and_added(
    records: list[dict[str, Any]], wanted: int, added: int, seed: int = 0
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The first ``wanted`` records, and the ``added`` papers of the incremental run: the
    records after them, or, when the input has fewer left, variants of its first papers
    (:func:`synthesize`), so that a whole real corpus (``data``) has a ``+K`` run too."""
    base, extra = records[:wanted], records[wanted : wanted + added]
    if len(extra) < added and base:
        made = synthesize(base, added, seed)
        extra += made[len(extra) :]
    return base, extra


def synthesize(records: list[dict[str, Any]], n: int, seed: int = 0) -> list[dict[str, Any]]:
    """``n`` distinct abstracts, each a real one with a third of its sentences replaced.

    Variant ``i`` starts from real paper ``i mod len(records)``; it keeps that
    paper's first sentence, replaces every other sentence with probability
    1/3 by a random sentence of another paper of the same group (the ICLR
    primary area, else the venue), and shuffles the sentences after the first.
    Its id and title get a suffix ``~i``. An abstract equal to a real one or
    to one already made is drawn again (an abstract too short to vary gains
    sentences of its group), so no two papers merge in kg's ingest.
    """
    sys.path.insert(0, str(ROOT))
    from kg.text import sentences

    rng = random.Random(seed)
    split = [sentences(r["abstract"]) or [r["abstract"]] for r in records]
    groups: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(records):
        groups[str(r.get("primary_area") or r.get("venue") or "")].append(i)
    seen = {r["abstract"] for r in records}
    out = []
    for i in range(n):
        j = i % len(records)
        group = groups[str(records[j].get("primary_area") or records[j].get("venue") or "")]
        abstract, extra = records[j]["abstract"], []
        for attempt in range(1000):
            donor = split[rng.choice(group)]
            if attempt >= 10:  # too short to vary: one more sentence of the group each time
                extra.append(rng.choice(donor))
            body = [s if rng.random() > 1 / 3 else rng.choice(donor) for s in split[j][1:]]
            body += extra
            rng.shuffle(body)
            abstract = " ".join([split[j][0], *body])
            if abstract not in seen:
                break
        seen.add(abstract)
        title = records[j].get("title") or "Untitled"
        out.append({**records[j], "id": f"{records[j]['id']}~{i}", "title": f"{title} ~{i}",
                    "abstract": abstract})  # fmt: skip
    return out


def _write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _child(kind: str, source: Path, out: Path, cache: Path | None = None) -> dict[str, Any]:
    out.mkdir(exist_ok=kind == "kg-same")
    command = [sys.executable, __file__, "--child", kind, "--source", str(source)]
    command += ["--out", str(out / "output"), "--cache", str(cache or "")]
    start = time.perf_counter()
    # pyvis writes its lib/ folder into the working directory.
    done = subprocess.run(command, cwd=out, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if done.returncode != 0:  # reported, and the other runs still count
        lines = done.stderr.strip().splitlines() or ["no message"]
        print(f"bench/perf.py: a {kind} run failed:\n{done.stderr[-3000:]}", file=sys.stderr)
        return {"wall": round(wall, 2), "failed": lines[-1]}
    figures = json.loads(done.stdout.splitlines()[-1])
    return {"wall": round(wall, 2), **figures}


def _peak_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def _child_peak_mb() -> float:
    """The peak RSS of the largest child the run forked (the build's SHACL check, or the child
    writing the graph files and views), which ran beside it. Two run at once, so the run's
    own peak plus this is no bound of their sum; the process tree's PSS, sampled, is."""
    return round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1)


def _run_kg(source: Path, out: Path, cache: str | None, keep: bool = False) -> dict[str, Any]:
    start = time.perf_counter()
    sys.path.insert(0, str(ROOT))
    from kg.build import BuildRequest, build

    imports = time.perf_counter() - start
    result = build(BuildRequest([source], cache_dir=cache or None), out, keep_current=keep)
    if keep and not result.up_to_date:
        raise SystemExit("bench/perf.py: the no-change build rebuilt: the output was not kept")
    seconds = {"imports": imports, **result.seconds}
    return {
        "papers": result.papers,
        "reused": result.reused,
        "seconds": {k: round(v, 2) for k, v in seconds.items()},
        "peak_mb": _peak_mb(),
        "child_peak_mb": _child_peak_mb(),
    }


def _run_naive(source: Path, out: Path, cache: str | None) -> dict[str, Any]:
    start = time.perf_counter()
    sys.path.insert(0, str(ROOT))
    import networkx as nx
    from keybert import KeyBERT
    from pyvis.network import Network
    from rdflib import RDF, RDFS, Graph, Literal, Namespace, URIRef

    from kg.extract import load_model

    marks = {"start": start}

    def lap(stage: str) -> None:
        marks[stage] = time.perf_counter()

    records = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines()]
    keybert = KeyBERT(model=load_model().model)  # the SentenceTransformer kg loads
    lap("load")
    found = [
        keybert.extract_keywords(
            r["abstract"], keyphrase_ngram_range=(1, 3), stop_words="english", top_n=10
        )
        for r in records
    ]
    lap("keybert")
    ex = Namespace("https://example.org/")
    rdf = Graph()
    for i, (r, keywords) in enumerate(zip(records, found, strict=True)):
        paper = URIRef(ex[f"paper/{i}"])
        rdf.add((paper, RDF.type, ex.Paper))
        rdf.add((paper, RDFS.label, Literal(r.get("title") or r["id"])))
        for phrase, _ in keywords:
            keyword = URIRef(ex["keyword/" + phrase.replace(" ", "_")])
            rdf.add((paper, ex.hasKeyword, keyword))
            rdf.add((keyword, RDFS.label, Literal(phrase)))
    out.mkdir(parents=True)
    rdf.serialize(out / "kg.ttl", format="turtle")
    lap("rdflib")
    graph = nx.Graph()
    for r, keywords in zip(records, found, strict=True):
        graph.add_node(r["id"], label=r.get("title") or r["id"], group="paper")
        for phrase, score in keywords:
            graph.add_node(phrase, label=phrase, group="keyword")
            graph.add_edge(r["id"], phrase, weight=float(score))
    lap("networkx")
    net = Network(height="800px", width="100%")
    net.from_nx(graph)
    net.write_html(str(out / "graph.html"))
    lap("pyvis")
    names = ["start", *NAIVE_STAGES]
    seconds = {b: round(marks[b] - marks[a], 2) for a, b in zip(names, names[1:], strict=False)}
    return {"papers": len(records), "seconds": seconds, "peak_mb": _peak_mb()}


def _table(report: dict[str, Any]) -> str:
    busy = " to ".join(str(x) for x in report["load average"])
    lines = [
        f"{report['papers']} papers (+{report['added']} for the incremental run); "
        f"5-minute load average {busy} on {os.cpu_count()} CPUs",
        "",
    ]
    lines.append(
        f"{'run':<10} {'wall s':>8} {'papers/s':>9} {'peak MB':>8} {'child':>8}  stages (s)"
    )
    for name, run in report["runs"].items():
        if "failed" in run:
            lines.append(f"{name:<10} failed after {run['wall']:.1f} s: {run['failed']}")
            continue
        rate = run["papers"] / run["wall"]
        stages = ", ".join(f"{k} {v:.1f}" for k, v in run["seconds"].items())
        reused = f" [reused {run['reused']}]" if run.get("reused") else ""
        child = f"{run['child_peak_mb']:8.0f}" if run.get("child_peak_mb") else f"{'':8}"
        lines.append(
            f"{name:<10} {run['wall']:8.1f} {rate:9.2f} {run['peak_mb']:8.0f} {child}  "
            f"{stages}{reused}"
        )
    if "kg/naive" in report:
        lines += ["", f"kg/naive papers per second: {report['kg/naive']:.2f}x"]
    cold_run = report["runs"].get("kg cold", {})
    cold = None if "failed" in cold_run else cold_run.get("wall")
    for name, run in report["runs"].items():
        if cold and name.startswith("kg ") and name != "kg cold" and "failed" not in run:
            lines.append(f"{name} rebuild: {100 * run['wall'] / cold:.0f}% of the cold build")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
