"""Mentions across papers -> canonical concepts and paper-concept links.

The only stage that looks across papers: variants and acronyms become one
:class:`~kg.model.Concept`, and each paper gets one :class:`~kg.model.Link`
per concept it mentions.
"""

from kg.concepts.keys import slug, variant_key
from kg.concepts.merge import canonicalize

__all__ = ["canonicalize", "variant_key", "slug"]
