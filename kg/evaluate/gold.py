"""Gold annotations for kg eval: the JSON Lines format and its reader.

Gold format: JSON Lines, one object per paper.

- ``abstract`` (or ``text``): the paper's text, required; ``id`` (or
  ``doc_key``) and ``title`` are optional.
- ``methods``, ``problems``, ``fields``: lists of gold concept strings. A list
  that is absent is not scored for that paper; an empty list is (every
  prediction of that kind is then a false positive).
- SciERC records are read as they are: ``entities`` ``[{text, type}]`` gives
  ``methods`` (type ``Method``) and ``problems`` (type ``Task``); the other
  types, ``Generic`` included, are ignored. PTB tokens (``-LRB-``, spaces
  before punctuation, ````` quotes) are undone before matching.
- ICLR records: ``primary_area`` is the gold area (top-1/top-3 accuracy of the
  ICLR areas that the predicted fields map to) and ``keywords`` are the
  author keywords (recall among everything extracted).
- Keyphrase benchmarks (Inspec, SemEval-2017): ``keyphrases`` is the list of
  gold keyphrases, scored by the literature's protocol
  (:mod:`kg.evaluate.keyphrases`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kg.errors import InputError

__all__ = ["GoldPaper", "load_gold"]


@dataclass(frozen=True)
class GoldPaper:
    """One gold record; a ``None`` list is not scored for this paper."""

    id: str
    text: str
    source: str
    title: str | None = None
    methods: tuple[str, ...] | None = None
    problems: tuple[str, ...] | None = None
    fields: tuple[str, ...] | None = None
    area: str | None = None
    keywords: tuple[str, ...] | None = None
    keyphrases: tuple[str, ...] | None = None

    @property
    def scorable(self) -> bool:
        return any(
            x is not None
            for x in (
                self.methods,
                self.problems,
                self.fields,
                self.area,
                self.keywords,
                self.keyphrases,
            )
        )


_GOLD_HELP = (
    "each line must be one JSON object with 'abstract' (or 'text') and gold lists "
    "'methods', 'problems' and/or 'fields', SciERC 'entities', ICLR 'primary_area'/'keywords', "
    "or benchmark 'keyphrases'"
)


def load_gold(path: str | Path, limit: int | None = None) -> list[GoldPaper]:
    """Read a gold file (see the module docstring for the format).

    Args:
        path: A JSON Lines file.
        limit: Keep only the first ``limit`` records.

    Raises:
        InputError: The file is missing, unreadable or not UTF-8, a line is
            not a JSON object, a field has the wrong type, or no record kept
            has anything to score.
    """
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such file; pass a JSON Lines file of gold annotations")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise InputError(f"{path}: cannot read file ({exc.strerror}); check permissions") from exc
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not valid UTF-8; re-save the file as UTF-8") from exc
    records: list[GoldPaper] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if limit is not None and len(records) >= limit:
            break
        if not line.strip():
            continue
        source = f"{path}:{number}"
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(
                f"{source}: not valid JSON ({exc.msg} at column {exc.colno}); {_GOLD_HELP}"
            ) from exc
        if not isinstance(value, dict):
            raise InputError(f"{source}: found a JSON {type(value).__name__}; {_GOLD_HELP}")
        records.append(_gold_record(value, source, len(records)))
    if not any(r.scorable for r in records):
        where = f"the first {limit} records of " if limit is not None else ""
        raise InputError(f"{where}{path}: no scorable records; {_GOLD_HELP}")
    return records


def _gold_record(value: dict[str, Any], source: str, index: int) -> GoldPaper:
    text = value.get("abstract", value.get("text"))
    if not isinstance(text, str) or not text.strip():
        raise InputError(f"{source}: record has no abstract; give its text in 'abstract' or 'text'")
    methods = _strings(value, "methods", source)
    problems = _strings(value, "problems", source)
    if value.get("entities") is not None:
        entities = _entities(value["entities"], source)
        if methods is None:
            methods = tuple(t for t, kind in entities if kind == "Method")
        if problems is None:
            problems = tuple(t for t, kind in entities if kind == "Task")
    keywords = value.get("keywords")
    if isinstance(keywords, str):
        keywords = re.split(r"[;,]", keywords)
    area = value.get("primary_area")
    if area is not None and not isinstance(area, str):
        raise InputError(f"{source}: 'primary_area' must be a string")
    raw_id = value.get("id", value.get("doc_key"))
    title = value.get("title")
    return GoldPaper(
        id=str(raw_id) if raw_id is not None else str(index + 1),
        text=text.strip(),
        source=source,
        title=title.strip() or None if isinstance(title, str) else None,
        methods=methods,
        problems=problems,
        fields=_strings(value, "fields", source),
        area=area.strip() or None if area else None,
        keywords=_strings({"keywords": keywords}, "keywords", source),
        keyphrases=_strings(value, "keyphrases", source),
    )


def _strings(value: Mapping[str, Any], name: str, source: str) -> tuple[str, ...] | None:
    items = value.get(name)
    if items is None:
        return None
    if not isinstance(items, list) or not all(isinstance(x, str) for x in items):
        raise InputError(f"{source}: '{name}' must be a list of strings")
    return tuple(x.strip() for x in items if x.strip())


def _entities(items: Any, source: str) -> list[tuple[str, str]]:
    ok = isinstance(items, list) and all(
        isinstance(e, dict) and isinstance(e.get("text"), str) and isinstance(e.get("type"), str)
        for e in items
    )
    if not ok:
        raise InputError(f"{source}: 'entities' must be a list of objects with 'text' and 'type'")
    return [(e["text"], e["type"]) for e in items]
