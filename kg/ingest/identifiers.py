"""A paper's identifiers in other systems, normalised, and the IRIs they resolve at.

Each reader hands what its format carries (a BibTeX ``doi``, a RIS ``DO``, an
OpenAlex ``id``, a Semantic Scholar ``externalIds``...) to :func:`identifiers`
under the scheme names of :data:`SCHEMES`; a value that is not an identifier of
its scheme is dropped, never an error (exports hold "n/a", ISBNs in DOI
columns, and the like). Normalised forms compare as equal when they name the
same work: a DOI lower-cased without ``https://doi.org/`` or ``doi:``, an
arXiv id without ``arXiv:`` and without its version.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import quote

import pyoxigraph as ox

__all__ = ["SCHEMES", "RESOLVERS", "identifiers", "normalised", "resolvable", "source_url"]

#: The schemes kg keeps, in the order they are written.
SCHEMES = ("doi", "arxiv", "openalex", "s2", "openreview", "pmid")

#: Where each scheme's identifiers resolve: the prefix of the IRI of an identifier.
RESOLVERS = {
    "doi": "https://doi.org/",
    "arxiv": "https://arxiv.org/abs/",
    "openalex": "https://openalex.org/",
    "s2": "https://www.semanticscholar.org/paper/",
    "openreview": "https://openreview.net/forum?id=",
    "pmid": "https://pubmed.ncbi.nlm.nih.gov/",
}

_DOI = re.compile(r"10\.\d{4,9}/\S+")
_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)
_ARXIV_NEW = re.compile(r"(\d{4}\.\d{4,5})(?:v\d+)?")
_ARXIV_OLD = re.compile(r"([a-z][a-z.\-]*(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?")
_ARXIV_PREFIX = re.compile(
    r"^(?:arxiv:\s*|https?://(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/)", re.I
)
_ARXIV_DOI = re.compile(r"10\.48550/arxiv\.(.+)")
_S2_PREFIX = r"^https?://(?:www\.|api\.)?semanticscholar\.org/(?:graph/v1/)?paper/"
_PUBMED_PREFIX = r"^(?:pmid:\s*|https?://pubmed\.ncbi\.nlm\.nih\.gov/)"
#: scheme -> (the prefixes a value may carry, the form of the rest)
_PATTERNS = {
    "openalex": (re.compile(r"^https?://openalex\.org/", re.I), re.compile(r"W\d+")),
    "s2": (re.compile(_S2_PREFIX, re.I), re.compile(r"[0-9a-f]{40}")),
    "openreview": (
        re.compile(r"^https?://openreview\.net/(?:forum|pdf)\?id=", re.I),
        re.compile(r"[A-Za-z0-9_\-]{5,40}"),
    ),
    "pmid": (re.compile(_PUBMED_PREFIX, re.I), re.compile(r"\d{1,9}")),
}


def normalised(scheme: str, value: Any) -> str | None:
    """``value`` as the normal form of an identifier of ``scheme``, or None if it is none.

    >>> normalised("doi", "https://doi.org/10.1145/ABC.123"), normalised("doi", "n/a")
    ('10.1145/abc.123', None)
    >>> normalised("arxiv", "arXiv:2402.12354v2"), normalised("arxiv", "hep-th/9901001v1")
    ('2402.12354', 'hep-th/9901001')
    >>> normalised("openalex", "https://openalex.org/W4391"), normalised("pmid", 31452104)
    ('W4391', '31452104')
    """
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        return None
    text = value.strip().rstrip("/")
    if scheme == "doi":
        text = _DOI_PREFIX.sub("", text).strip().casefold()
        return text if _DOI.fullmatch(text) else None
    if scheme == "arxiv":
        text = _ARXIV_PREFIX.sub("", text).strip().removesuffix(".pdf")
        match = _ARXIV_NEW.fullmatch(text) or _ARXIV_OLD.fullmatch(text)
        return match.group(1) if match else None
    prefix, pattern = _PATTERNS[scheme]
    text = prefix.sub("", text).strip()
    return text if pattern.fullmatch(text) else None


def identifiers(given: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """The valid identifiers among ``given`` (scheme -> a value or a list), each once.

    An arXiv DOI (``10.48550/arXiv.2402.12354``) also gives the arXiv id, so
    that it matches the arXiv copy of the paper.

    >>> identifiers({"doi": ["10.48550/arXiv.2402.12354", "bad"], "pmid": None})
    (('doi', '10.48550/arxiv.2402.12354'), ('arxiv', '2402.12354'))
    """
    found: dict[tuple[str, str], None] = {}
    for scheme in SCHEMES:
        for value in _values(given.get(scheme)):
            norm = normalised(scheme, value)
            if norm is None:
                continue
            found[scheme, norm] = None
            arxiv = _ARXIV_DOI.fullmatch(norm) if scheme == "doi" else None
            if arxiv and (also := normalised("arxiv", arxiv.group(1))):
                found["arxiv", also] = None
    return tuple(sorted(found, key=lambda item: SCHEMES.index(item[0])))


def resolvable(scheme: str, value: str) -> str:
    """The IRI an identifier resolves at, its characters escaped as an IRI needs.

    >>> resolvable("doi", "10.1002/(sici)1097<x>"), resolvable("arxiv", "2402.12354")
    ('https://doi.org/10.1002/(sici)1097%3Cx%3E', 'https://arxiv.org/abs/2402.12354')
    """
    return RESOLVERS[scheme] + quote(value, safe="/();:.-_")


def source_url(value: Any) -> str | None:
    """An http(s) URL as an IRI can hold it, or None (a file path, "n/a", a broken URL).

    >>> source_url(" https://proceedings.mlr.press/v235/hayou24a.html "), source_url("javascript:x")
    ('https://proceedings.mlr.press/v235/hayou24a.html', None)
    """
    for text in _values(value):
        text = text.strip()
        if not re.match(r"https?://[^/\s]", text, re.IGNORECASE) or re.search(r"\s", text):
            continue
        try:
            ox.NamedNode(text)
        except ValueError:
            continue
        return text
    return None


def _values(value: Any) -> Iterable[str]:
    if isinstance(value, str | int) and not isinstance(value, bool):
        return [str(value)]
    if isinstance(value, list | tuple):
        return [str(v) for v in value if isinstance(v, str | int) and not isinstance(v, bool)]
    return []
