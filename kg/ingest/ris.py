"""RIS (``.ris``), as Zotero, Mendeley, EndNote and Web of Science export it.

Each record runs from ``TY  -`` to ``ER  -``; a line without a tag continues
the field before it (EndNote wraps long abstracts). The abstract is ``AB``
(or ``N2``, as older EndNote writes it), the title ``TI`` or ``T1``, authors
``AU``/``A1``, the year ``PY``/``Y1``/``DA``, the venue ``T2``/``JO``/``JF``/``BT``,
keywords ``KW``, the id ``ID``, ``DO`` or ``AN``, the DOI ``DO`` and the link ``UR``.

kg parses RIS itself rather than with rispy: rispy reports no line numbers and
attaches a malformed line to the field before it without a word.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from kg.errors import InputError
from kg.ingest.records import Context, Record, Skip, record

__all__ = ["read", "sniff", "EXPECTED", "NAME"]

NAME = "RIS"
EXPECTED = "expected RIS records, each from a 'TY  - ' line to an 'ER  - ' line"
_TAG = re.compile(r"^([A-Z][A-Z0-9])  ?-(?: (.*)|\s*)$")
# kg field -> RIS tags, the first present wins (lists take every tag's values)
_FIELDS = {
    "abstract": ("AB", "N2"),
    "title": ("TI", "T1", "CT", "BT"),
    "authors": ("AU", "A1", "A2"),
    "year": ("PY", "Y1", "DA"),
    "venue": ("T2", "JO", "JF", "JA", "BT", "T3"),
    "keywords": ("KW",),
    "id": ("ID", "DO", "AN", "UT"),
    "doi": ("DO",),
    "url": ("UR",),
}
_LISTS = ("authors", "keywords", "url")


def sniff(text: str) -> bool:
    """Whether a file that is not named ``.ris`` holds RIS (its first line is ``TY  - ``)."""
    first = next((line for line in text.split("\n", 50) if line.strip()), "")
    return bool(re.match(r"TY  ?- ", first))


def read(path: Path, text: str, context: Context) -> Iterator[Record | Skip]:
    tags: dict[str, list[str]] | None = None
    start = 0
    last = ""
    for number, line in enumerate(text.split("\n"), start=1):
        match = _TAG.match(line.rstrip())
        if match is None:
            if tags is not None and last and line.strip():
                tags[last][-1] = f"{tags[last][-1]} {line.strip()}".strip()
            elif line.strip() and tags is None and start:
                raise InputError(f"{path}:{number}: text outside a RIS record; {EXPECTED}")
            continue
        tag, value = match.group(1), (match.group(2) or "").strip()
        if tag == "TY":
            if tags is not None:
                raise InputError(
                    f"{path}:{number}: new record starts before the record from line {start} "
                    "ended; add an 'ER  - ' line to end it"
                )
            tags, start, last = {}, number, ""
        elif tags is None:
            raise InputError(
                f"{path}:{number}: RIS tag {tag} outside a record; every record starts with "
                "a 'TY  - ' line"
            )
        elif tag == "ER":
            yield record(_fields(tags), f"{path}:{start}", context)
            tags, last = None, ""
            continue
        else:
            tags.setdefault(tag, []).append(value)
            last = tag
    if tags is not None:
        raise InputError(
            f"{path}:{start}: the record starting here has no 'ER  - ' line; the file may be "
            "cut short, so export it again"
        )


def _fields(tags: dict[str, list[str]]) -> dict[str, object]:
    out: dict[str, object] = {}
    for name, names in _FIELDS.items():
        found = [tags[t] for t in names if t in tags]
        if name in _LISTS:
            out[name] = [v for values in found for v in values if v]
        else:
            out[name] = " ".join(found[0]) if found else None
    return out
