"""RDF at scale: triples, store load, every shipped query on rdflib and Oxigraph, SHACL, memory.

    .venv/bin/python bench/rdf_scale.py [INPUT ...] [--reuse DIR] [--copies N]

Builds INPUT (default: the ICLR dev and ICML 2024 files in ../shared/data) with
``kg build`` and the real model, unless ``--reuse DIR`` names a build already
made. Then, on that build and on a synthetic graph of ``--copies`` renamed
copies of it (see :func:`synthetic_lines`), each step runs in a child process
of its own so that its peak resident memory is its own (``os.wait4``):

- the Oxigraph store: ``bulk_load`` of the Turtle (or N-Triples) into a new
  on-disk store, as ``kg build`` does;
- every query in ``queries/`` on the store (one child per query, stopped after
  ``--query-timeout`` seconds) and on rdflib (one child that parses ``kg.ttl``
  and runs them in turn, each stopped by an alarm); rdflib is skipped on the
  synthetic graph unless ``--rdflib-synthetic``, because parsing it alone
  takes many minutes and tens of GB;
- SHACL (``kg.validate``) by sample and by batch over the store, and in
  full on rdflib for the real build.

Prints one JSON object per measurement, then a Markdown summary. Timings
depend on what else runs on the machine.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
QUERIES = sorted((ROOT / "queries").glob("*.rq"))
KG = "https://w3id.org/kg/"
#: Namespaces whose IRIs are made anew in every synthetic copy.
RENAMED = ("paper/", "link/", "overlap/")


# ---- the synthetic graph -------------------------------------------------------------------


def _fresh(key: str, copy: int, share: float) -> bool:
    """Whether concept ``key`` gets its own IRI in ``copy`` (else it stays shared)."""
    import hashlib

    digest = hashlib.sha256(f"{copy}\0{key}".encode()).digest()
    return int.from_bytes(digest[:4], "big") / 2**32 >= share


def _rename(iri: str, copy: int, share: float) -> str:
    rest = iri[len(KG) :]
    for space in RENAMED:
        if rest.startswith(space):
            return f"{KG}{space}c{copy}-{rest[len(space) :]}"
    if rest.startswith("concept/") and _fresh(rest, copy, share):
        return f"{iri}-c{copy}"
    return iri


def synthetic_lines(nt_lines: list[str], copies: int, share: float = 0.5) -> Any:
    """N-Triples lines of ``copies`` copies of a build, shaped like a larger kg graph.

    In every copy, papers, their link nodes and their shared-concept overlap
    nodes get new IRIs; each concept keeps its IRI (shared with the other
    copies) with probability ``share``, else gets one of its own in that copy,
    so the vocabulary grows with the corpus and concepts gather papers from
    several copies. The field taxonomy, the ontology terms and the
    provenance are written once. Shared-concept edges stay within a copy.
    """
    import re

    iri = re.compile(r"<(https://w3id\.org/kg/[^>]*)>")
    kept: set[str] = set()  # lines no copy changes (ontology, taxonomy, shared concepts)
    for copy in range(copies):

        def renamed(m: re.Match[str], copy: int = copy) -> str:
            return f"<{_rename(m.group(1), copy, share)}>"

        for line in nt_lines:
            out = iri.sub(renamed, line)
            if out != line:
                yield out
            elif line not in kept:
                kept.add(line)
                yield line


# ---- children: one measurement each ----------------------------------------------------------


def _materialise(result: Any) -> int:
    import pyoxigraph

    if isinstance(result, pyoxigraph.QueryBoolean):
        return 1
    return sum(1 for _ in result)


def child_load(store_dir: str, rdf_file: str) -> dict[str, Any]:
    import pyoxigraph

    fmt = (
        pyoxigraph.RdfFormat.N_TRIPLES if rdf_file.endswith(".nt") else pyoxigraph.RdfFormat.TURTLE
    )
    start = time.perf_counter()
    store = pyoxigraph.Store(store_dir)
    store.bulk_load(path=rdf_file, format=fmt)
    store.flush()
    seconds = time.perf_counter() - start
    return {"seconds": round(seconds, 2), "triples": len(store)}


def child_open(store_dir: str) -> dict[str, Any]:
    import pyoxigraph

    start = time.perf_counter()
    store = pyoxigraph.Store.read_only(store_dir)
    opened = time.perf_counter() - start
    return {"seconds": round(opened, 3), "triples": len(store)}


def child_oxigraph_query(store_dir: str, query_file: str) -> dict[str, Any]:
    import pyoxigraph

    store = pyoxigraph.Store.read_only(store_dir)
    text = Path(query_file).read_text(encoding="utf-8")
    start = time.perf_counter()
    rows = _materialise(store.query(text))
    return {"seconds": round(time.perf_counter() - start, 3), "rows": rows}


def child_rdflib(ttl: str, timeout: str, *query_files: str) -> dict[str, Any]:
    from rdflib import Graph

    start = time.perf_counter()
    graph = Graph().parse(ttl, format="turtle" if ttl.endswith(".ttl") else "nt")
    parsed = time.perf_counter() - start
    print(json.dumps({"parse_seconds": round(parsed, 2), "triples": len(graph)}), flush=True)

    def stop(signum: int, frame: Any) -> None:
        raise TimeoutError

    signal.signal(signal.SIGALRM, stop)
    for query_file in query_files:
        text = Path(query_file).read_text(encoding="utf-8")
        signal.alarm(int(float(timeout)))
        start = time.perf_counter()
        try:
            result = graph.query(text)
            rows = 1 if result.type == "ASK" else sum(1 for _ in result)
            record: dict[str, Any] = {"rows": rows}
        except TimeoutError:
            record = {"rows": None, "timeout": True}
        except Exception as exc:  # rdflib's engine fails on some queries: say which and how
            record = {"rows": None, "error": _described(exc)}
        finally:
            signal.alarm(0)
        record.update(query=Path(query_file).name, seconds=round(time.perf_counter() - start, 2))
        print(json.dumps(record), flush=True)
    return {"done": True}


def _described(exc: BaseException) -> str:
    try:
        return f"{type(exc).__name__}: {exc}"[:300]
    except Exception:  # some exceptions cannot even be printed
        return type(exc).__name__


class _Enough(Exception):
    """Raised from the progress callback when a batch run has had its time."""


def child_shacl(source: str, mode: str, limit: str = "0") -> dict[str, Any]:
    """Validate by ``mode``; a ``batch`` run stops after ``limit`` seconds (0: never) and
    reports its rate, from which the time of a whole run is extrapolated."""
    sys.path.insert(0, str(ROOT))
    import pyoxigraph

    from kg.query import StoreTriples, load_rdf
    from kg.validate import TripleList, validate

    start = time.perf_counter()
    if mode == "full":
        data: Any = load_rdf(source)
    elif mode == "sample":  # as kg validate --mode sample: the store's triples, read in passes
        data = TripleList([q.triple for q in pyoxigraph.Store.read_only(source)])
    else:
        data = StoreTriples(pyoxigraph.Store.read_only(source))
    loaded = time.perf_counter() - start
    seen = {"done": 0, "total": 0}

    def progress(done: int, total: int) -> None:
        seen.update(done=done, total=total)
        if float(limit) and time.perf_counter() - start - loaded > float(limit) and done < total:
            raise _Enough

    try:
        report = validate(data, mode, progress=progress)  # type: ignore[arg-type]
    except _Enough:
        seconds = time.perf_counter() - start - loaded
        return {
            "load_seconds": round(loaded, 2),
            "seconds": round(seconds, 2),
            "checked": seen["done"],
            "of": seen["total"],
            "stopped": True,
            "extrapolated_seconds": round(seconds * seen["total"] / seen["done"]),
        }
    return {
        "load_seconds": round(loaded, 2),
        "seconds": round(time.perf_counter() - start - loaded, 2),
        "checked": report.checked,
        "conforms": report.conforms,
        "summary": report.summary(),
    }


def child_fake_build(out: str, *inputs: str) -> dict[str, Any]:
    """``kg build`` with the tests' hashed bag-of-words embedder in place of MiniLM.

    The same pipeline and a graph of the same shape and size, in a fraction of
    the time; only the choice of concepts differs (it is worse).
    """
    sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
    from conftest import FakeEmbedder

    from kg.build import BuildRequest, build

    result = build(BuildRequest(inputs), out, embedder=FakeEmbedder())
    return {"papers": result.papers, "links": result.links, "edges": result.edges}


CHILDREN = {
    "fake-build": child_fake_build,
    "load": child_load,
    "open": child_open,
    "oxigraph-query": child_oxigraph_query,
    "rdflib": child_rdflib,
    "shacl": child_shacl,
}


def run_child(args: list[str], timeout: float | None = None) -> dict[str, Any]:
    """Run ``args`` (a kg command or one of this script's children); wall time, peak RSS, output."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        process = subprocess.Popen(args, stdout=out, stderr=err, text=True)
        deadline = None if timeout is None else start + timeout
        timed_out = False
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if deadline is not None and time.perf_counter() > deadline:
                process.kill()
                timed_out = True
                pid, status, usage = os.wait4(process.pid, 0)
                break
            time.sleep(0.05)
        process.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - start
        out.seek(0)
        lines = [json.loads(line) for line in out.read().splitlines() if line.startswith("{")]
        err.seek(0)
        tail = err.read()[-1500:] if process.returncode and not timed_out else ""
    done = {
        "wall_seconds": round(wall, 2),
        "peak_rss_mb": round(usage.ru_maxrss / 1024),
        "exit": process.returncode,
        "timed_out": timed_out,
        "lines": lines,
    }
    return {**done, "stderr": tail} if tail else done


def me(*args: str) -> list[str]:
    return [sys.executable, str(Path(__file__).resolve()), "_child", *args]


# ---- the measurements ------------------------------------------------------------------------


def report(record: dict[str, Any]) -> dict[str, Any]:
    print(json.dumps(record), flush=True)
    return record


def measure(name: str, ttl: Path, nt: Path, work: Path, args: argparse.Namespace, rdflib: bool):
    results: dict[str, Any] = {"graph": name}
    store = work / f"{name}.oxigraph"
    load = run_child(me("load", str(store), str(ttl)))
    results["load"] = report({"graph": name, "step": "oxigraph load", **load})
    results["open"] = report(
        {"graph": name, "step": "oxigraph open", **run_child(me("open", str(store)))}
    )
    results["oxigraph"] = {}
    for query in QUERIES:
        done = run_child(me("oxigraph-query", str(store), str(query)), timeout=args.query_timeout)
        results["oxigraph"][query.name] = report(
            {"graph": name, "step": "oxigraph query", "query": query.name, **done}
        )
    if rdflib:
        done = run_child(
            me("rdflib", str(ttl), str(args.query_timeout), *map(str, QUERIES)),
            timeout=args.query_timeout * (len(QUERIES) + 2),
        )
        results["rdflib"] = report({"graph": name, "step": "rdflib parse + queries", **done})
    results["shacl"] = {}
    for mode in ("sample", "batch") + (("full",) if rdflib and args.shacl_full else ()):
        source = ttl if mode == "full" else store
        limit = str(args.batch_seconds) if mode == "batch" else "0"
        done = run_child(me("shacl", str(source), mode, limit), timeout=args.shacl_timeout)
        results["shacl"][mode] = report({"graph": name, "step": f"shacl {mode}", **done})
    return results


def summary(all_results: list[dict[str, Any]]) -> str:
    out = []
    for r in all_results:
        load = r["load"]
        out.append(f"\n## {r['graph']}: {load['lines'][0]['triples']:,} triples")
        out.append(
            f"oxigraph load {load['lines'][0]['seconds']} s, peak RSS {load['peak_rss_mb']} MB; "
            f"open read-only {r['open']['lines'][0]['seconds']} s"
        )
        rdf: dict[str, Any] = {}
        if "rdflib" in r:
            lines = r["rdflib"]["lines"]
            if lines:
                out.append(
                    f"rdflib parse {lines[0]['parse_seconds']} s, "
                    f"peak RSS {r['rdflib']['peak_rss_mb']} MB (parse and all queries)"
                )
            rdf = {line["query"]: line for line in lines if "query" in line}
        out.append("\n| query | Oxigraph s | rows | rdflib s | rows |\n|---|---|---|---|---|")
        for name, ox in r["oxigraph"].items():
            if ox["timed_out"]:
                ox_cell = f"> {ox['wall_seconds']:.0f} (stopped) | "
            else:
                ox_cell = f"{ox['lines'][0]['seconds']} | {ox['lines'][0]['rows']}"
            line = rdf.get(name)
            rd_cell = "not run | "
            if line and line.get("timeout"):
                rd_cell = f"> {line['seconds']:.0f} (stopped) | "
            elif line and line.get("error"):
                rd_cell = f"{line['seconds']} (failed: {line['error'][:60]}) | "
            elif line:
                rd_cell = f"{line['seconds']} | {line['rows']}"
            out.append(f"| {name} | {ox_cell} | {rd_cell} |")
        peak = max(q["peak_rss_mb"] for q in r["oxigraph"].values())
        out.append(f"\npeak RSS of an Oxigraph query child: {peak} MB")
        for mode, s in r["shacl"].items():
            if s["timed_out"] or not s["lines"]:
                out.append(f"SHACL {mode}: stopped after {s['wall_seconds']:.0f} s")
            elif s["lines"][0].get("stopped"):
                v = s["lines"][0]
                out.append(
                    f"SHACL {mode}: {v['checked']:,} of {v['of']:,} focus nodes in "
                    f"{v['seconds']} s, so about {v['extrapolated_seconds']:,} s for all; "
                    f"peak RSS {s['peak_rss_mb']} MB"
                )
            else:
                v = s["lines"][0]
                out.append(
                    f"SHACL {mode}: {v['seconds']} s (+ {v['load_seconds']} s opening), "
                    f"{v['checked']:,} focus nodes, peak RSS {s['peak_rss_mb']} MB; {v['summary']}"
                )
    return "\n".join(out)


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "_child":
        print(json.dumps(CHILDREN[sys.argv[2]](*sys.argv[3:])), flush=True)
        return
    if len(sys.argv) == 3 and sys.argv[1] == "--summary":  # again, from a results.json
        print(summary(json.loads(Path(sys.argv[2]).read_text(encoding="utf-8"))))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "inputs",
        nargs="*",
        default=[str(DATA / "iclr2024_dev.jsonl"), str(DATA / "icml2024.jsonl")],
    )
    parser.add_argument("--reuse", type=Path, help="a build directory made already")
    parser.add_argument(
        "--fake-embedder",
        action="store_true",
        help="build with the tests' hashed embedder instead of MiniLM (minutes, not an hour)",
    )
    parser.add_argument("--work", type=Path, help="where to put the builds and stores")
    parser.add_argument(
        "--papers", type=int, default=50_000, help="papers of the synthetic graph (0: none)"
    )
    parser.add_argument("--share", type=float, default=0.5, help="concepts shared between copies")
    parser.add_argument("--query-timeout", type=float, default=300)
    parser.add_argument("--shacl-timeout", type=float, default=1800)
    parser.add_argument(
        "--batch-seconds",
        type=float,
        default=300,
        help="stop SHACL by batch after this long and extrapolate (0: run it all)",
    )
    parser.add_argument("--rdflib-synthetic", action="store_true")
    parser.add_argument(
        "--no-shacl-full",
        dest="shacl_full",
        action="store_false",
        help="skip SHACL in full on rdflib (pyshacl needs hours for millions of triples)",
    )
    parser.add_argument("--skip-real", action="store_true", help="measure the synthetic graph only")
    args = parser.parse_args()

    work = args.work or Path(tempfile.mkdtemp(prefix="kg-rdf-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    if args.reuse:
        out = args.reuse
    else:
        out = work / "build"
        kg = str(Path(sys.executable).with_name("kg"))
        command = [kg, "build", *args.inputs, "--out", str(out)]
        if args.fake_embedder:
            command = me("fake-build", str(out), *args.inputs)
        built = run_child(command)
        report({"step": "kg build", **built})
    ttl, nt = out / "kg.ttl", out / "kg.nt"
    paper_type = "<https://w3id.org/kg/ns#Paper> .\n"
    with nt.open(encoding="utf-8") as f:  # streamed: children forked now inherit no big memory
        papers = sum(1 for line in f if line.endswith(paper_type))
    results = []
    if not args.skip_real:
        results.append(measure(f"build ({papers:,} papers)", ttl, nt, work, args, rdflib=True))

    if not args.papers:
        (work / "results.json").write_text(json.dumps(results, indent=1), encoding="utf-8")
        print(summary(results))
        return
    copies = math.ceil(args.papers / papers)
    lines = nt.read_text(encoding="utf-8").splitlines(keepends=True)
    big = work / "synthetic.nt"
    start = time.perf_counter()
    with big.open("w", encoding="utf-8") as f:
        f.writelines(synthetic_lines(lines, copies, args.share))
    report(
        {
            "step": "synthetic graph written",
            "copies": copies,
            "papers": copies * papers,
            "seconds": round(time.perf_counter() - start, 1),
            "bytes": big.stat().st_size,
        }
    )
    del lines
    results.append(
        measure(
            f"synthetic ({copies * papers:,} papers)", big, big, work, args, args.rdflib_synthetic
        )
    )
    (work / "results.json").write_text(json.dumps(results, indent=1), encoding="utf-8")
    print(summary(results))


if __name__ == "__main__":
    main()
