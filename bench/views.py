"""The HTML views at scale: build or load a graph, render the views, open each in Chromium.

    .venv/bin/python bench/views.py INPUT ... [--out DIR] [--shots DIR]
    .venv/bin/python bench/views.py --graph DIR/graph.json [--out DIR] [--shots DIR]
    .venv/bin/python bench/views.py --synthetic PAPERS [--out DIR] [--shots DIR]

With INPUT files, runs the real build (``kg build``, real model) into ``--out``;
with ``--graph``, renders the views of a saved build's graph.json instead (fast,
for iterating on the views); with ``--synthetic``, renders the views of the tests'
reproducible synthetic corpus of that many papers (``tests/view_graphs.py``: no
model, no data; its labels are "Paper 12", "concept 7", so it measures size and
speed, not what a reader sees). Then opens each view in headless Debian Chromium
(the flags of the browser tests, a new empty profile, every request outside the
file blocked) and reports, per view: file size, time until the page is
interactive (``window.kgReady``: data parsed, network drawn, labels placed, every
control wired; measured from navigation start), what is drawn and what the page
says it leaves out, and the mean frame time of a one-second animated zoom.
Screenshots at 1400x900 (the index; each view on opening and with its most
important node focused) go to
``--shots`` (not committed). Figures depend on the machine's load: measure idle.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kg import defaults  # noqa: E402
from kg.export import DETAILS_DIR, VIEW_FILES, graph_from_json, render_views, write_files  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
VIEWS = tuple(v.key for v in defaults.VIEWS)

_FRAMES = """async () => {
  const times = [];
  let on = true;
  const tick = t => { times.push(t); if (on) requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
  const s = network.getScale();
  network.moveTo({ scale: s * 3, animation: { duration: 1000, easingFunction: "linear" } });
  await new Promise(r => setTimeout(r, 1100));
  on = false;
  const gaps = times.slice(1).map((t, i) => t - times[i]);
  return gaps.reduce((a, b) => a + b, 0) / Math.max(gaps.length, 1);
}"""


def build_or_load(args: argparse.Namespace) -> tuple[Path, float]:
    out = Path(args.out)
    if args.graph or args.synthetic:
        if args.synthetic:
            sys.path.insert(0, str(ROOT / "tests"))
            from view_graphs import synthetic_graph

            n = args.synthetic
            graph = synthetic_graph(n, round(n * 3.5), per_paper=14)
            source = f"a synthetic corpus of {n:,} papers"
        else:
            graph = graph_from_json(Path(args.graph).read_text(encoding="utf-8"), args.graph)
            source = args.graph
        start = time.perf_counter()
        pages = render_views(graph)
        seconds = time.perf_counter() - start
        write_files(out, pages)
        print(f"rendered the views of {source} in {seconds:.1f} s", file=sys.stderr)
        return out, seconds
    from kg.build import BuildRequest, build

    start = time.perf_counter()
    build(BuildRequest(args.inputs), out)
    seconds = time.perf_counter() - start
    print(f"kg build {' '.join(args.inputs)}: {seconds:.0f} s", file=sys.stderr)
    graph = graph_from_json((out / "graph.json").read_text(encoding="utf-8"))
    start = time.perf_counter()
    render_views(graph)
    return out, time.perf_counter() - start


def measure(out: Path, shots: Path) -> list[dict]:
    from playwright.sync_api import sync_playwright

    shots.mkdir(parents=True, exist_ok=True)
    rows = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        index = context.new_page()
        index.goto((out / VIEW_FILES["index"]).resolve().as_uri())
        index.screenshot(path=str(shots / "index.png"))
        context.close()
        for view in VIEWS:
            path = out / VIEW_FILES[view]
            context = browser.new_context(viewport={"width": 1400, "height": 900})
            page = context.new_page()
            outside: list[str] = []
            errors: list[str] = []

            def route(r, outside=outside):
                if r.request.url.startswith("file:"):
                    r.continue_()
                else:
                    outside.append(r.request.url)
                    r.abort()

            page.route("**/*", route)
            page.on("pageerror", lambda e, errors=errors: errors.append(str(e)))
            page.on("console", lambda m, errors=errors: m.type == "error" and errors.append(m.text))
            start = time.perf_counter()
            page.goto(path.resolve().as_uri())
            page.wait_for_function("window.kgReady === true", timeout=120_000)
            wall = time.perf_counter() - start
            ready = page.evaluate("window.kgReadyAt")
            page.wait_for_timeout(300)
            page.screenshot(path=str(shots / f"{view}.png"))
            info = page.evaluate(
                """() => ({
                  nodes: network.body.data.nodes.length,
                  edges: network.body.data.edges.length,
                  shipped: JSON.parse(document.getElementById('kg-edges').textContent).length,
                  labels: kgView.labels().length,
                  groups: kgView.groups().map(g => g.text),
                  count: document.getElementById('kg-count').textContent,
                  bounds: document.getElementById('kg-bounds').innerText,
                })"""
            )
            frame = page.evaluate(_FRAMES)
            top = page.evaluate(
                "() => network.body.data.nodes.get().sort((a, b) => b.rank - a.rank)[0].id"
            )
            start = time.perf_counter()
            page.evaluate("id => kgView.choose(id)", top)  # a paper's details load from disk
            page.wait_for_function("!document.getElementById('kg-detail').dataset.loading")
            opened = time.perf_counter() - start
            page.wait_for_timeout(800)
            page.screenshot(path=str(shots / f"{view}-focused.png"))
            rows.append(
                {
                    "view": view,
                    "file": path.name,
                    "megabytes": round(path.stat().st_size / 1e6, 2),
                    "ready_ms": round(ready),
                    "wall_s": round(wall, 2),
                    "frame_ms": round(frame, 1),
                    "panel_ms": round(opened * 1000),
                    "focused": top,
                    "errors": errors,
                    "outside": outside,
                    **info,
                }
            )
            context.close()
        browser.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("inputs", nargs="*", help="input files for a real build")
    parser.add_argument("--graph", help="a saved build's graph.json instead of a build")
    parser.add_argument("--synthetic", type=int, metavar="PAPERS", help="a synthetic corpus")
    parser.add_argument("--out", default="/tmp/kg-views-bench", help="where the pages go")
    parser.add_argument("--shots", default=str(ROOT / "bench" / "shots"), help="screenshots")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args()
    if sum(map(bool, (args.inputs, args.graph, args.synthetic))) != 1:
        parser.error("give INPUT files, --graph or --synthetic: one of them")
    out, render = build_or_load(args)
    rows = measure(out, Path(args.shots))
    index = out / "index.html"
    print(f"render_views: {render:.1f} s; index.html {index.stat().st_size / 1e3:.1f} kB")
    details = sorted((out / DETAILS_DIR).glob("*.js"))
    sizes = [f.stat().st_size / 1e6 for f in details]
    print(
        f"{DETAILS_DIR}/: {len(details)} files, {sum(sizes):.1f} MB, "
        f"the largest {max(sizes):.2f} MB"
    )
    if args.json:
        print(json.dumps(rows, indent=1, ensure_ascii=False))
        return
    print(
        "| view | file MB | interactive (ms) | frame (ms) | panel (ms) | nodes "
        "| edges shown / in file |"
    )
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['view']} | {r['megabytes']} | {r['ready_ms']} | {r['frame_ms']} | "
            f"{r['panel_ms']} | {r['nodes']:,} | {r['edges']:,} / {r['shipped']:,} |"
        )
    for r in rows:
        print(f"\n{r['view']}: {r['count']}")
        print(f"  labels at first sight: {r['labels']}; group names: {r['groups'][:8]}")
        print(f"  bounds: {r['bounds'] or '(none)'}")
        if r["errors"] or r["outside"]:
            print(f"  PROBLEMS: errors {r['errors']}, outside requests {r['outside']}")


if __name__ == "__main__":
    main()
