"""Keys that say two phrases are one concept, and IRI-safe names for concepts."""

from __future__ import annotations

import re
import unicodedata

from kg.lexicon import singular

__all__ = ["variant_key", "slug"]


def variant_key(text: str) -> str:
    """The identity of a phrase up to case, hyphens, spacing and plural.

    >>> variant_key("Non-convex optimizations") == variant_key("nonconvex optimization")
    True
    >>> variant_key("LoRAs") == variant_key("LoRA")
    True
    """
    words = text.split()
    if words:
        words[-1] = singular(words[-1])
    return re.sub(r"[\W_]+", "", " ".join(words).casefold())


def slug(text: str) -> str:
    """An IRI-safe, readable local name.

    >>> slug("Clipped-SGD"), slug("heavy-tailed noise"), slug("Über-Netz")
    ('clipped-sgd', 'heavy-tailed-noise', 'uber-netz')
    """
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
