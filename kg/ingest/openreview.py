"""OpenReview notes as ``openreview-py`` exports them (``note.to_json()``), API v1 or v2.

API v2 wraps every content field as ``{"value": ...}``; v1 gives it plainly.
The year comes from the venue ("ICLR 2024 poster"), the venue id or the
publication date.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from kg.errors import InputError

__all__ = ["looks_like", "fields", "NAME", "EXPECTED"]

NAME = "OpenReview notes"
EXPECTED = "expected OpenReview notes (objects with 'id', 'forum' and a 'content' object)"


def looks_like(item: dict[str, Any]) -> bool:
    return isinstance(item.get("content"), dict) and any(
        key in item for key in ("forum", "invitation", "invitations", "replyto", "venueid")
    )


def fields(item: Any, source: str) -> dict[str, Any]:
    if not isinstance(item, dict) or not isinstance(item.get("content"), dict):
        raise InputError(
            f"{source}: expected an OpenReview note with a 'content' object, found "
            f"{type(item).__name__}"
        )
    content = item["content"]

    def value(name: str) -> Any:
        found = content.get(name)
        return found.get("value") if isinstance(found, dict) else found

    venue = value("venue")
    venue_id = (
        value("venueid")
        or item.get("invitation")
        or " ".join(i for i in item.get("invitations") or [] if isinstance(i, str))
    )
    return {
        "id": item.get("id") or item.get("forum"),
        "title": value("title"),
        "abstract": value("abstract"),
        "authors": value("authors"),
        "year": _year(venue, venue_id, item),
        "venue": venue if isinstance(venue, str) else None,
        "keywords": value("keywords"),
        "openreview": item.get("forum") or item.get("id"),
    }


def _year(venue: Any, venue_id: Any, item: dict[str, Any]) -> int | None:
    for text in (venue, venue_id):
        if isinstance(text, str) and (match := re.search(r"(?<!\d)(?:19|20)\d\d(?!\d)", text)):
            return int(match.group())
    for key in ("pdate", "odate", "cdate", "tcdate"):
        stamp = item.get(key)
        if isinstance(stamp, (int, float)) and not isinstance(stamp, bool) and stamp > 0:
            try:
                return datetime.fromtimestamp(stamp / 1000, UTC).year
            except (OverflowError, OSError, ValueError):
                return None
    return None
