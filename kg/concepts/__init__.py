"""Mentions across papers -> canonical concepts and paper-concept links.

The only stage that looks across papers: variants and acronyms become one
:class:`~kg.model.Concept`, each paper gets one :class:`~kg.model.Link` per
concept it mentions, and concepts get their broader concepts.
"""

from kg.concepts.hierarchy import broader_forms, with_broader
from kg.concepts.keys import slug, variant_key
from kg.concepts.merge import MIN_PAPERS, canonicalize

__all__ = ["canonicalize", "with_broader", "broader_forms", "variant_key", "slug", "MIN_PAPERS"]
