"""Serialise a built graph to text, then write the files atomically.

Generating and writing are separate, as in networkx's readwrite: each
``*_text`` function returns the file's content, and :func:`write_files`
stages every file next to the target directory and moves them into place
only once all of them were generated, so a failed build never leaves a
half-written file or clobbers the previous output.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import networkx as nx
from rdflib import Graph

from kg.errors import KGError

__all__ = ["turtle_text", "graphml_text", "json_text", "write_files"]


def turtle_text(g: Graph) -> str:
    """Turtle with kg's prefixes (rdflib's serializer sorts subjects, so output is stable)."""
    return g.serialize(format="turtle")


def _scalar(value: Any) -> Any:
    if isinstance(value, (list, tuple, set)):
        return "; ".join(str(v) for v in value)
    return value


def graphml_text(G: nx.Graph) -> str:
    """GraphML (lists joined with "; ", missing values left out), for Gephi, igraph, networkx."""
    H = nx.Graph()
    for n, data in sorted(G.nodes(data=True)):
        H.add_node(n, **{k: _scalar(v) for k, v in data.items() if v is not None})
    for u, v, data in sorted(G.edges(data=True)):
        H.add_edge(u, v, **{k: _scalar(x) for k, x in data.items() if x is not None})
    return "\n".join(nx.generate_graphml(H, prettyprint=True)) + "\n"


def json_text(G: nx.Graph) -> str:
    """networkx node-link JSON with every attribute (lists stay lists)."""
    H = nx.Graph()
    H.add_nodes_from(sorted(G.nodes(data=True)))
    H.add_edges_from(sorted((min(u, v), max(u, v), d) for u, v, d in G.edges(data=True)))
    data = nx.node_link_data(H, edges="edges")
    return json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


def write_files(out_dir: Path, files: Mapping[str, str]) -> list[Path]:
    """Write all files into ``out_dir``: staged first, then each moved into place.

    Raises:
        KGError: ``out_dir`` exists but is not a directory, or is not writable.
    """
    if out_dir.exists() and not out_dir.is_dir():
        raise KGError(f"output path {out_dir} exists and is not a directory; pass --out DIR")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(dir=out_dir, prefix=".kg-staging-"))
    except OSError as exc:
        raise KGError(f"cannot write to output directory {out_dir}: {exc.strerror}") from exc
    written = []
    try:
        for name, text in files.items():
            staged = staging / name
            staged.write_text(text, encoding="utf-8", newline="\n")
        for name in files:
            target = out_dir / name
            os.replace(staging / name, target)
            written.append(target)
    except OSError as exc:
        raise KGError(f"cannot write to output directory {out_dir}: {exc}") from exc
    finally:
        for leftover in staging.iterdir():
            leftover.unlink()
        staging.rmdir()
    return written
