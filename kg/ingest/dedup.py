"""Records of one paper from several sources, found so that the paper is built once.

Two records are the same paper when (the first that holds):

1. their abstracts are the same text once normalised (an exact duplicate);
2. they share a DOI or an arXiv id (:mod:`kg.ingest.identifiers`);
3. their titles agree once normalised (:func:`title_key`), or one title is the
   other with a subtitle added ("X" and "X: a study"), **and** they have the
   same year **and** the same first author (family name and first initial,
   :func:`author_key`),
   and they hold no conflicting identifiers (two different DOIs other than
   arXiv's, or two different arXiv ids).

Rule 3 needs a year and a first author on both records: a title alone never
merges, so two papers that only share a title (other authors, another year) stay two.
Merging is transitive: a record that matches any record of a group joins it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from kg.ingest.records import Record
from kg.text import latex_decoded, normalise

__all__ = ["same_papers", "title_key", "family_name", "author_key", "person_key", "is_preprint"]

# Words that end a name but are no family name: "Martin Luther King Jr."
_SUFFIXES = {"jr", "sr", "ii", "iii", "iv", "phd"}
_PREPRINT = re.compile(r"\b(?:arxiv|corr|biorxiv|medrxiv|preprints?|ssrn)\b", re.IGNORECASE)
_VERSION = re.compile(r"[\s,;:.\-]*[(\[]?\s*v(?:ersion)?\s*\d+\s*[)\]]?\s*$", re.IGNORECASE)
_ARXIV_DOI = "10.48550/"


def _folded(text: str) -> str:
    """The words of ``text`` as compared: LaTeX and accents resolved, case folded, one space apart.

    Every script's letters are kept ("Иванов" stays a name; "Straße" is "strasse"): a key
    that says two names or titles are the same, unlike :func:`kg.concepts.keys.slug`, an
    ASCII-only IRI name that drops the letters it cannot spell.
    """
    text = unicodedata.normalize("NFKD", latex_decoded(text))
    text = "".join(c for c in text if not unicodedata.combining(c)).casefold()
    return " ".join(re.sub(r"[^\w\s]|_", " ", text).split())


def title_key(title: str | None) -> str | None:
    """A title as compared: case, LaTeX, accents, punctuation and a version suffix ignored.

    >>> title_key("{LoRA}+: Efficient Low Rank Adaptation (v2)")
    'lora efficient low rank adaptation'
    >>> title_key("Na\\\\\\"ive Bayes v3") == title_key("Naïve bayes")
    True
    """
    if not title:
        return None
    return _folded(_VERSION.sub("", title.strip())) or None


def _main_titles(title: str | None) -> list[str]:
    """The title before each subtitle ("X" and "X: Y" of "X: Y: a study"), as compared."""
    if not title:
        return []
    cuts = (title_key(title[: m.start()]) for m in re.finditer(r":|\s[-–—]+\s", title))
    return list(dict.fromkeys(cut for cut in cuts if cut))


def family_name(name: str) -> str | None:
    """The last word of a person's family name, from "Family, Given" or "Given Family".

    Only the last word is compared, so that particles and hyphens written either
    way agree ("van der Berg, Ann" and "Ann van der Berg", "Al-Jarrah").

    >>> family_name("Hayou, Soufiane"), family_name("Soufiane Hayou"), family_name("A. Müller Jr.")
    ('hayou', 'hayou', 'muller')
    >>> family_name("Al-Jarrah, Mohammad") == family_name("Mohammad Al-Jarrah") == "jarrah"
    True
    """
    return _split_name(name)[0]


def _split_name(name: str) -> tuple[str | None, str | None]:
    """(the family name's last word, the given names' first letter), each folded, or None."""
    if "," in name:
        family, _, given = name.partition(",")
        words, first = _folded(family).split(), _folded(given).split()
    else:
        words = _folded(name).split()
        while len(words) > 1 and words[-1] in _SUFFIXES:
            words.pop()
        first = words[:-1]
    return (words[-1] if words else None), (first[0][0] if first else None)


def person_key(name: str) -> str | None:
    """A whole name as compared, given names first, whichever order it is written in.

    >>> person_key("Hayou, Soufiane") == person_key("Soufiane  HAYOU") == "soufiane hayou"
    True
    """
    if "," in name:
        family, _, given = name.partition(",")
        name = f"{given} {family}"
    return _folded(name) or None


def author_key(name: str) -> str | None:
    """A first author as compared: family name and first initial ("hayou s").

    >>> author_key("Hayou, Soufiane"), author_key("S. Hayou"), author_key("Wang, Lei")
    ('hayou s', 'hayou s', 'wang l')
    """
    family, initial = _split_name(name)
    return f"{family} {initial}" if family and initial else family


def is_preprint(venue: str | None) -> bool:
    """Whether a venue is a preprint server rather than a publication ("arXiv", "CoRR").

    >>> is_preprint("arXiv preprint arXiv:2402.12354"), is_preprint("ICML 2024")
    (True, False)
    """
    return bool(venue and _PREPRINT.search(venue))


def same_papers(records: Sequence[Record]) -> list[list[tuple[int, str]]]:
    """Groups of records of one paper, each ``[(index, why), ...]`` in input order.

    The first of a group has ``why`` ``""``; each other says which rule joined it
    ("same abstract", "same DOI", "same arXiv id", "same title, year and first author").
    Groups come in the order of their first record.
    """
    parent = list(range(len(records)))
    why: dict[int, str] = {}
    # each group's DOIs (arXiv's aside) and arXiv ids, by its root: a title match
    # between two groups naming different works is refused, even through a third record
    named = [_named(r) for r in records]

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def join(first: int, i: int, reason: str) -> None:
        a, b = root(first), root(i)
        if a != b:
            parent[max(a, b)] = min(a, b)
            named[min(a, b)] |= named[max(a, b)]
            why.setdefault(i, reason)
            why.setdefault(first, reason)

    seen: dict[tuple[str, str], int] = {}
    titles: dict[tuple[str, int, str], list[int]] = {}
    for i, r in enumerate(records):
        keys = [("abstract", normalise(r.abstract))]
        keys += [(s, v) for s, v in r.ids if s in ("doi", "arxiv")]
        for key in keys:
            if key in seen:
                join(seen[key], i, _REASONS[key[0]])
            else:
                seen[key] = i
        family = author_key(r.authors[0]) if r.authors else None
        if r.year is None or family is None:
            continue
        full = title_key(r.title)
        if full is None:
            continue
        for title, probe in [(full, True)] + [(main, False) for main in _main_titles(r.title)]:
            agree = (title, r.year, family)
            # a full title matches full and main titles; a main title only full ones
            for j in titles.get(agree, []):
                if (probe or _is_full(records[j], title)) and not _conflict(
                    named[root(j)], named[root(i)]
                ):
                    join(j, i, _REASONS["title"])
            titles.setdefault(agree, []).append(i)
    groups: dict[int, list[tuple[int, str]]] = {}
    for i in range(len(records)):
        groups.setdefault(root(i), []).append((i, "" if i == root(i) else why[i]))
    return list(groups.values())


_REASONS = {
    "abstract": "same abstract",
    "doi": "same DOI",
    "arxiv": "same arXiv id",
    "title": "same title, year and first author",
}


def _is_full(record: Record, title: str) -> bool:
    return title_key(record.title) == title


def _named(record: Record) -> set[tuple[str, str]]:
    """The DOIs (arXiv's aside: they name the preprint) and arXiv ids of a record."""
    return {
        (s, v)
        for s, v in record.ids
        if s == "arxiv" or (s == "doi" and not v.startswith(_ARXIV_DOI))
    }


def _conflict(ours: set[tuple[str, str]], theirs: set[tuple[str, str]]) -> bool:
    """Whether two groups name different works: each has a DOI (or arXiv id), none shared."""
    for scheme in ("doi", "arxiv"):
        a = {v for s, v in ours if s == scheme}
        b = {v for s, v in theirs if s == scheme}
        if a and b and not a & b:
            return True
    return False
