"""The built graph -> files: Turtle, GraphML, node-link JSON and the HTML views.

Each ``*_text`` function (and :func:`render_views`) returns file contents;
:func:`write_files` is the only code that writes into the output directory.
"""

from kg.export.atomic import write_files
from kg.export.serialize import graph_from_json, graphml_text, json_text, turtle_text
from kg.export.views import VIEW_FILES, render_views

__all__ = [
    "turtle_text",
    "graphml_text",
    "json_text",
    "graph_from_json",
    "render_views",
    "VIEW_FILES",
    "write_files",
]
