"""kg.load_graph and kg stats: the README's analytics script as written, figures that agree with
the record the graph was built from, and the same output whatever Python's hash seed."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import kg
from kg.model import Role
from kg.query import graph_stats

ROOT = Path(__file__).resolve().parents[1]


def readme_script() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Analytics from Python") :]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, "the README's analytics section has no python block"
    return match.group(1)


def edges_of(build) -> dict[str, list[tuple[float, str]]]:
    """Each paper's shared-concept edges in the record, as (weight, other paper)."""
    out = defaultdict(list)
    for e in build.kg.edges:
        out[e.a].append((e.weight, e.b))
        out[e.b].append((e.weight, e.a))
    return out


def test_readme_analytics_script_runs_as_written(fake_build, tmp_path):
    script = readme_script()
    code = [line for line in script.splitlines() if line.strip()]
    assert len(code) <= 10 and "kg.load_graph(" in script
    (tmp_path / "output").symlink_to(fake_build.out)
    run = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    groups = [line for line in lines if re.match(r"\d+ papers, first: ", line)]
    hops = [line for line in lines if " -> " in line]
    assert 1 <= len(groups) <= 3 and 1 <= len(hops) <= 3
    assert len(lines) == len(groups) + len(hops)

    # The paper it picks has the most shared-concept edges; its neighbours are its strongest.
    edges = edges_of(fake_build)
    title = {v: k for k, v in fake_build.kg.labels.items()}
    paper = title[hops[0].split(" -> ")[0]]
    assert len(edges[paper]) == max(len(v) for v in edges.values())
    strongest = sorted((w for w, _ in edges[paper]), reverse=True)[:3]
    printed = [float(re.search(r" (\d+(?:\.\d+)?) \[", line).group(1)) for line in hops]
    assert printed == [round(w, 4) for w in strongest]
    assert sum(int(g.split()[0]) for g in groups) <= len(edges)


def test_stats_agree_with_the_record(fake_build):
    stats = graph_stats(kg.load_graph(fake_build.out), top=5, neighbours=2)
    record = fake_build.kg
    papers = defaultdict(set)
    for link in record.links:
        if link.role is not Role.IN_FIELD:
            papers[link.concept_key].add(link.paper_id)
    label = {c.key: c.label for c in record.concepts}
    most = sorted((len(ps) for ps in papers.values()), reverse=True)[:5]
    assert [n for _, _, n in stats.by_degree] == most
    for name, _, n in stats.by_degree:
        assert n in {len(ps) for k, ps in papers.items() if label[k] == name}

    edges = edges_of(fake_build)
    assert stats.papers == len(record.papers) and stats.shares == len(record.edges)
    assert stats.unconnected == sum(1 for p in record.papers if p.id not in edges)
    members = [p for c in stats.communities for p in c.papers]
    assert len(members) == len(set(members))  # a partition
    assert set(members) <= {record.labels[p] for p in edges}
    title = {v: k for k, v in record.labels.items()}
    assert len(stats.neighbours) == len(edges)
    for paper, near in stats.neighbours:
        strongest = sorted((w for w, _ in edges[title[paper]]), reverse=True)[:2]
        assert [round(w, 4) for _, w, _ in near] == [round(w, 4) for w in strongest]


def test_stats_are_the_same_whatever_the_hash_seed(fake_build):
    outputs = set()
    for seed in ("1", "2"):
        run = subprocess.run(
            [sys.executable, "-m", "kg.cli", "stats", str(fake_build.out)],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
            timeout=120,
        )
        assert run.returncode == 0, run.stderr
        outputs.add(run.stdout)
    assert len(outputs) == 1


def test_graph_json_reads_with_plain_networkx_as_the_readme_says(fake_build):
    """The README's networkx one-liner for this version gives the graph kg.load_graph does."""
    import json

    import networkx as nx

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("**Reading `graph.json` without kg.**") :]
    call = re.search(r"`(nx\.node_link_graph\(data, edges=\"edges\"\))`", section)
    assert call and 'nx.node_link_graph(data, link="edges")' in section  # networkx < 3.4
    data = json.loads((fake_build.out / "graph.json").read_text(encoding="utf-8"))
    assert "edges" in data and "links" not in data
    G = eval(call.group(1), {"nx": nx, "data": data})
    H = kg.load_graph(fake_build.out)
    assert sorted(G.nodes) == sorted(H.nodes)
    assert sorted(G.edges(data="type")) == sorted(H.edges(data="type"))


def test_stats_list_the_authors_with_most_papers_and_the_merged_papers():
    import networkx as nx

    from kg.query import format_stats

    G = nx.Graph()
    names = {
        "a": ["Hayou, Soufiane", "Ghosh, Nikhil"],
        "b": ["Soufiane Hayou", "Bin Yu"],
        "c": ["S. Hayou"],
        "d": ["Nikhil Ghosh"],
    }
    for p, authors in names.items():
        sources = ["x.bib:1", "y.json:3"] if p == "a" else [f"{p}.bib:1"]
        G.add_node(f"paper:{p}", type="paper", label=p.upper(), authors=authors, sources=sources)
    stats = graph_stats(G)
    assert stats.authors == (("Hayou, Soufiane", 2, 2), ("Ghosh, Nikhil", 2, 1))
    assert stats.merged == (("A", ("x.bib:1", "y.json:3")),)
    text = format_stats(stats)
    assert "2  Hayou, Soufiane  (2 co-authors)" in text and "A: x.bib:1, y.json:3" in text
