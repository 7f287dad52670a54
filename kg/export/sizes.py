"""When an output file is big enough that the tools people open it with will struggle.

The thresholds are documented in docs/reference/output.md ("Big outputs"); a
build warns, with the file's size, when a file will exceed its threshold. The
density bound of shared-concept edges is what keeps files small; this only
tells the user when a large input made them large anyway.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["SIZE_WARNINGS", "DEFAULT_WARNING", "size_warnings"]

_MB = 1_000_000
#: Bytes above which a file gets a warning, and what struggles with it.
SIZE_WARNINGS: dict[str, tuple[int, str]] = {
    "index.html": (20 * _MB, "browsers take long to open and lay out the view"),
}
#: For every other file: rdflib and networkx need minutes and gigabytes to load it.
DEFAULT_WARNING = (200 * _MB, "rdflib and networkx need minutes and several GB to load it")


def size_warnings(sizes: Mapping[str, int]) -> list[str]:
    """One sentence per file above its threshold, in file order.

    >>> size_warnings({"index.html": 25_000_000, "kg.ttl": 1_000})[0][:48]
    'index.html is 25.0 MB, over the 20 MB at which b'

    """
    out = []
    for name, size in sizes.items():
        limit, why = SIZE_WARNINGS.get(name, DEFAULT_WARNING)
        if size > limit:
            out.append(f"{name} is {size / _MB:.1f} MB, over the {limit // _MB} MB at which {why}")
    return out
