"""The built graph -> files: Turtle, N-Triples, JSON-LD, GraphML, node-link JSON, the HTML views.

Each ``*_text`` function (and :func:`render_views`) returns file contents
(the RDF ones also as bytes or pieces a writer streams);
:func:`output_dir` checks and locks the output directory before a build
starts, and its :meth:`~kg.export.atomic.Output.write` swaps in the new files
in one step. A build's RDF goes to disk first, as sorted N-Triples
(:class:`SortedNTriples`), and the other RDF files are made from that file
(:class:`NTriplesFile`). :data:`SIZE_WARNINGS` says when a file is big enough
to warn about.
"""

from kg.export.atomic import (
    Beside,
    Content,
    Later,
    Output,
    output_dir,
    output_path,
    write_entry,
    write_files,
)
from kg.export.ntriples import NTriplesFile, SortedNTriples
from kg.export.rewrite import rewrite_views
from kg.export.serialize import (
    RdfData,
    graph_from_json,
    graphml_text,
    json_chunks,
    json_text,
    jsonld_chunks,
    jsonld_text,
    ntriples_chunks,
    ntriples_text,
    turtle_bytes,
    turtle_text,
    used_prefixes,
    write_graphml,
    write_turtle,
)
from kg.export.sizes import SIZE_WARNINGS, size_warnings
from kg.export.swap import exchange_supported
from kg.export.views import (
    DETAILS_DIR,
    VIEW_FILES,
    details_names,
    heading,
    is_details_file,
    render_views,
)

__all__ = [
    "RdfData",
    "turtle_text",
    "turtle_bytes",
    "write_turtle",
    "used_prefixes",
    "SortedNTriples",
    "NTriplesFile",
    "ntriples_text",
    "ntriples_chunks",
    "jsonld_text",
    "jsonld_chunks",
    "graphml_text",
    "write_graphml",
    "json_chunks",
    "json_text",
    "graph_from_json",
    "render_views",
    "rewrite_views",
    "heading",
    "VIEW_FILES",
    "DETAILS_DIR",
    "details_names",
    "is_details_file",
    "write_entry",
    "write_files",
    "Beside",
    "Content",
    "Later",
    "output_dir",
    "output_path",
    "Output",
    "exchange_supported",
    "SIZE_WARNINGS",
    "size_warnings",
]
