"""Web of Science's own "Plain text file" export (``savedrecs.txt``, ``.ciw``).

Two-letter field tags at the start of a line, continuation lines indented by
three spaces, ``ER`` after each record and ``EF`` at the end; the file starts
with ``FN Clarivate Analytics Web of Science``. Each continuation line of
``AU``/``AF`` is one more author; of other fields, more of the same text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from kg.errors import InputError
from kg.ingest.records import Context, Record, Skip, record

__all__ = ["read", "sniff", "EXPECTED", "NAME"]

NAME = "Web of Science plain text"
EXPECTED = (
    "expected Web of Science records: tagged lines ('PT J', 'TI ...', 'AB ...') ending in 'ER'"
)
_LINE = re.compile(r"^([A-Z][A-Z0-9]) (.*)$|^([A-Z][A-Z0-9])$|^   (.*)$")
_PER_LINE = ("AU", "AF", "CA")  # one value per line


def sniff(text: str) -> bool:
    """Whether a ``.txt`` file is this export (it starts with an ``FN`` line)."""
    return text.lstrip("\ufeff").startswith("FN ")


def read(path: Path, text: str, context: Context) -> Iterator[Record | Skip]:
    tags: dict[str, list[str]] = {}
    start = 0
    last = ""
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        match = _LINE.match(line.rstrip())
        if match is None:
            raise InputError(f"{path}:{number}: not a Web of Science field line; {EXPECTED}")
        tag = match.group(1) or match.group(3)
        value = (match.group(2) or match.group(4) or "").strip()
        if tag in ("FN", "VR", "EF"):
            continue
        if tag is None:  # a continuation line
            if not last:
                raise InputError(f"{path}:{number}: continuation line outside a field; {EXPECTED}")
            if last in _PER_LINE:
                tags[last].append(value)
            else:
                tags[last][-1] = f"{tags[last][-1]} {value}"
            continue
        if tag == "ER":
            if not tags:
                raise InputError(f"{path}:{number}: 'ER' without a record before it; {EXPECTED}")
            yield record(_fields(tags), f"{path}:{start}", context)
            tags, last = {}, ""
            continue
        if not tags:
            start = number
        tags.setdefault(tag, []).append(value)
        last = tag
    if tags:
        raise InputError(
            f"{path}:{start}: the record starting here has no 'ER' line; the file may be cut "
            "short, so export it again"
        )


def _fields(tags: dict[str, list[str]]) -> dict[str, object]:
    def one(*names: str) -> str | None:
        return next((" ".join(tags[n]) for n in names if n in tags), None)

    keywords = one("DE")
    return {
        "abstract": one("AB"),
        "title": one("TI"),
        "authors": tags.get("AF") or tags.get("AU") or [],
        "year": one("PY"),
        "venue": one("SO"),
        "keywords": [k.strip() for k in keywords.split(";")] if keywords else [],
        "id": one("UT", "DI"),
        "doi": one("DI"),
        "pmid": one("PM"),
    }
