"""The built graph -> files: Turtle, GraphML, node-link JSON and the HTML view.

Each ``*_text`` function (and :func:`render_html`) returns a file's content;
:func:`write_files` is the only code that writes into the output directory.
"""

from kg.export.atomic import write_files
from kg.export.html import render_html
from kg.export.serialize import graphml_text, json_text, turtle_text

__all__ = ["turtle_text", "graphml_text", "json_text", "render_html", "write_files"]
