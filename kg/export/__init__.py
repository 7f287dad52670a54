"""The built graph -> files: Turtle, N-Triples, JSON-LD, GraphML, node-link JSON, HTML.

Each ``*_text`` function (and :func:`render_html`) returns a file's content;
:func:`output_dir` checks and locks the output directory before a build
starts, and its :meth:`~kg.export.atomic.Output.write` swaps in the new files
in one step. :data:`SIZE_WARNINGS` says when a file is big enough to warn about.
"""

from kg.export.atomic import Content, Output, exchange_supported, output_dir, write_files
from kg.export.html import render_html
from kg.export.serialize import graphml_text, json_text, jsonld_text, ntriples_text, turtle_text
from kg.export.sizes import SIZE_WARNINGS, size_warnings

__all__ = [
    "turtle_text",
    "ntriples_text",
    "jsonld_text",
    "graphml_text",
    "json_text",
    "render_html",
    "write_files",
    "Content",
    "output_dir",
    "Output",
    "exchange_supported",
    "SIZE_WARNINGS",
    "size_warnings",
]
