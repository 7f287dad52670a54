"""The NetworkX graphs' vocabulary: node and edge types, and the attributes read back.

:mod:`kg.graph` writes these names (``graph.json`` and ``graph.graphml`` carry
them); the views (:mod:`kg.export`) and analytics (:mod:`kg.query`) read them
here, so a renamed attribute is one change. The full list of attributes is
in :func:`kg.graph.concept_graph` and :func:`kg.graph.shares_graph`.
"""

from __future__ import annotations

__all__ = [
    "TYPE",
    "PAPER",
    "CONCEPT",
    "MENTIONS",
    "SHARES",
    "BROADER",
    "LABEL",
    "KIND",
    "SCORE",
    "WEIGHT",
    "SHARED",
    "EXPLANATION",
    "EVIDENCE",
    "ROLE",
    "TITLE",
    "DERIVED_TITLE",
    "AUTHORS",
    "AUTHOR_IDS",
    "VENUE",
    "VENUE_ID",
    "YEAR",
    "KEYWORDS",
    "ABSTRACT",
    "ALT_LABELS",
    "IDENTIFIERS",
    "URL",
    "LINK",
    "SOURCES",
]

#: Every node's and edge's type: one of the five below.
TYPE = "type"
PAPER = "paper"  # a node: ``paper:<id>``
CONCEPT = "concept"  # a node: ``concept:<key>``
MENTIONS = "mentions"  # an edge: a paper and a concept it links to
SHARES = "shares"  # an edge: two papers and what they share
#: An edge from a concept to a broader one, and a concept's list of broader concept nodes.
BROADER = "broader"

LABEL = "label"  # a node's readable name
KIND = "kind"  # a concept's kind: method, problem or field
SCORE = "score"  # a mentions edge's confidence
WEIGHT = "weight"  # a shares edge's weight
SHARED = "shared"  # a shares edge's shared concepts' labels, strongest first
EXPLANATION = "explanation"  # a shares edge's one-line account of what is shared
EVIDENCE = "evidence"  # a mentions edge's sentence
ROLE = "role"  # a mentions edge's role: proposes, uses, addresses, in field, mentions

# A paper's record, as the views' side panel shows it.
TITLE = "title"
DERIVED_TITLE = "derived_title"  # true when the record had no title and kg made one
AUTHORS = "authors"
#: A paper's authors' ids, one per name of ``authors`` in its order: the IRI of the
#: schema:Person the RDF gives the name, the same however the name is written
#: ("Hayou, Soufiane", "Soufiane Hayou"), None for a name without a letter or digit.
AUTHOR_IDS = "author_ids"
VENUE = "venue"
#: A paper's venue's id: the IRI of its kg:Venue in the RDF, or None.
VENUE_ID = "venue_id"
YEAR = "year"
KEYWORDS = "keywords"
ABSTRACT = "abstract"
ALT_LABELS = "alt_labels"  # a concept's other names
#: A paper's identifiers in other systems, each ``"scheme:value"`` ("doi:10.1145/…").
IDENTIFIERS = "identifiers"
URL = "url"  # the source's link to a paper (http or https), or None
#: Where to read a paper: its source's link, else the IRI its first identifier resolves at, or None.
LINK = "link"
#: Every ``file:line`` a paper was read from: its record's, then those merged into it.
SOURCES = "sources"
