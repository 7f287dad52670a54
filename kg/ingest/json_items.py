"""The items of a JSON or JSON Lines file, each located by its line.

Every JSON-shaped format (OpenAlex, arXiv, Semantic Scholar, OpenReview,
CSL-JSON, kg's own records) is a list of objects: the document itself, a list
under one of :data:`WRAPPERS` (API responses), one object per line (JSON
Lines, as the arXiv snapshot's ``.json`` file is), or a single object. This
module finds those items; :mod:`kg.ingest.formats` then decides from the
first one which format the file holds.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kg.errors import InputError

__all__ = ["items", "WRAPPERS", "EXPECTED"]

#: Keys under which APIs return their list of works: kg's own, OpenAlex, Semantic
#: Scholar, OpenReview, Zotero/CSL and others.
WRAPPERS = ("papers", "results", "data", "notes", "items", "records", "works")

EXPECTED = (
    "expected a list of objects (one per paper), an object with a 'papers' (or 'results', 'data', "
    "'notes') list, or one object per line"
)

_LINE_SUFFIXES = (".jsonl", ".ndjson")


def items(path: Path, text: str) -> Iterator[tuple[str, Any]]:
    """``(file:line, value)`` for each item of the file, in order."""
    if path.suffix.lower() in _LINE_SUFFIXES:
        yield from _lines(path, text)
        return
    try:
        document = _loads(text)
    except json.JSONDecodeError as exc:
        if exc.msg == "Extra data" and text[: exc.pos].strip():
            yield from _lines(path, text)  # JSON Lines in a .json file (the arXiv snapshot)
            return
        raise InputError(
            f"{path}:{exc.lineno}: not valid JSON ({exc.msg} at column {exc.colno}); {EXPECTED}"
        ) from exc
    except (RecursionError, ValueError) as exc:
        raise InputError(_unreadable(path, text, exc)) from exc
    key = None
    found = document
    if isinstance(document, dict):
        if "@graph" in document or {"nodes", "directed", "multigraph"} <= set(document):
            raise InputError(
                f"{path}: is a graph (JSON-LD or networkx node-link JSON, as kg writes), not a "
                "list of papers; kg never reads its own output, so pass the files it was built "
                "from"
            )
        key = _wrapper(document)
        if key is None:
            yield f"{path}:1", document  # one work, as an API returns it
            return
        found = document[key]
    if not isinstance(found, list):
        what = f"'{key}' holds" if key else "found"
        raise InputError(f"{path}: {what} JSON {type(found).__name__}; {EXPECTED}")
    lines = _item_lines(text, key, len(found))
    for index, value in enumerate(found):
        yield f"{path}:{lines[index]}", value


def _loads(text: str) -> Any:
    """The one parse of every JSON reader: a value, nested at most :data:`_MAX_DEPTH` deep.

    Raises:
        RecursionError: Nested deeper (Python's parser raises it itself past ~1,000).
    """
    # strict=False: raw control characters inside strings are read, then removed
    # (and counted) like every other unprintable character.
    value = json.loads(text, strict=False)
    if _deeper_than(value, _MAX_DEPTH):
        raise RecursionError(f"JSON nested more than {_MAX_DEPTH} levels deep")
    return value


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether lists and objects nest more than ``limit`` levels (walked without recursion)."""
    stack = [(value, 1)] if isinstance(value, (list, dict)) else []
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        children = node.values() if isinstance(node, dict) else node
        stack.extend((child, depth + 1) for child in children if isinstance(child, (list, dict)))
    return False


def _lines(path: Path, text: str) -> Iterator[tuple[str, Any]]:
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            value = _loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(
                f"{path}:{number}: not valid JSON ({exc.msg} at column {exc.colno}); "
                "each line of a JSON Lines file must be one JSON object"
            ) from exc
        except (RecursionError, ValueError) as exc:
            raise InputError(_unreadable(path, line, exc, number - 1)) from exc
        yield f"{path}:{number}", value


def _wrapper(document: dict[str, Any]) -> str | None:
    """The key of the list of works in an API response, if the object is one."""
    keys = {str(k).casefold(): k for k in document}
    for name in WRAPPERS:
        if name in keys and isinstance(document[keys[name]], list):
            return keys[name]
    if "papers" in keys:
        return keys["papers"]  # a 'papers' key that holds no list is an error, not a work
    return None


#: Deeper nesting than any bibliographic record needs; Python's parser would overflow.
_MAX_DEPTH = 500


def _unreadable(path: Path, text: str, exc: Exception, line_offset: int = 0) -> str:
    """The message for JSON that parses but cannot be held: too deep, or a huge number."""
    if isinstance(exc, RecursionError):
        line = _deep_line(text) + line_offset
        return (
            f"{path}:{line}: JSON nested more than {_MAX_DEPTH} levels deep; a paper record "
            "is a flat object, so this file is not one kg can read"
        )
    return f"{path}:{line_offset + 1}: JSON value kg cannot read ({exc}); {EXPECTED}"


def _deep_line(text: str) -> int:
    """The line on which nesting first passes :data:`_MAX_DEPTH` (strings skipped)."""
    depth = 0
    for match in re.finditer(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > _MAX_DEPTH:
                return text.count("\n", 0, match.start()) + 1
        elif token in "]}":
            depth -= 1
    return 1


def _item_lines(text: str, key: str | None, count: int) -> list[int]:
    """Line on which each item of a parsed JSON document starts.

    Walks the document with ``raw_decode`` so that messages can point at a
    record's line. The items are the document itself or, with ``key``, the
    value of that top-level key (the last one if repeated, as in ``json.loads``).
    """
    decoder = json.JSONDecoder(strict=False)
    pos = _skip_space(text, 0)
    if key is not None:
        papers = pos
        pos = _skip_space(text, pos + 1)  # past "{"
        while text[pos] != "}":
            name, pos = decoder.raw_decode(text, pos)
            pos = _skip_space(text, _skip_space(text, pos) + 1)  # past ":"
            if name == key:
                papers = pos
            pos = _skip_space(text, decoder.raw_decode(text, pos)[1])
            pos = _skip_space(text, pos + 1) if text[pos] == "," else pos
        pos = papers
    starts: list[int] = []
    line, counted = 1, 0
    pos = _skip_space(text, pos + 1)  # past "["
    for _ in range(count):
        line += text.count("\n", counted, pos)
        counted = pos
        starts.append(line)
        pos = _skip_space(text, decoder.raw_decode(text, pos)[1])
        pos = _skip_space(text, pos + 1)  # past "," or "]"
    return starts


def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos
