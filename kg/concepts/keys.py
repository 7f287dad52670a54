"""Keys that say two phrases are one concept (:func:`variant_key`), and IRI-safe names."""

from __future__ import annotations

import re
import unicodedata

from kg.lexicon import variant_key

__all__ = ["variant_key", "slug"]


def slug(text: str) -> str:
    """An IRI-safe, readable local name.

    >>> slug("Clipped-SGD"), slug("heavy-tailed noise"), slug("Über-Netz")
    ('clipped-sgd', 'heavy-tailed-noise', 'uber-netz')
    """
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
