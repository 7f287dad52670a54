"""Errors kg raises for problems a user can fix.

Library code raises these; only :mod:`kg.cli` turns them into a message and an
exit status. Every message says what failed, where, and what to do about it.
"""

from __future__ import annotations

__all__ = [
    "KGError",
    "InputError",
    "SkippedError",
    "ModelError",
    "OutputError",
    "BusyError",
    "QueryError",
    "TaxonomyError",
    "ValidationError",
]


class KGError(Exception):
    """Base class: a problem with the user's input or set-up, not a kg bug.

    ``exit_code`` is the status ``kg`` exits with (docs/reference/cli.md, "Exit status").
    """

    exit_code = 1


class InputError(KGError):
    """An input file is missing, unreadable or not in a supported format."""


class ModelError(KGError):
    """The embedding model is missing, altered, or cannot be loaded offline."""


class QueryError(KGError):
    """A SPARQL query is malformed or the graph to query is missing."""


class TaxonomyError(KGError):
    """A field taxonomy file is not a usable SKOS concept scheme."""


class SkippedError(InputError):
    """``--strict`` was given and some records would have been skipped."""

    exit_code = 3


class OutputError(KGError):
    """The output directory cannot be written, is not kg's, or another build holds it."""


class BusyError(OutputError):
    """Another build is writing into the same output directory."""

    exit_code = 4


class ValidationError(KGError):
    """A graph does not conform to kg's SHACL shapes (``ontology/shapes.ttl``)."""
