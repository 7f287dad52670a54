"""Characters that no output format can carry, and LaTeX markup in bibliographic fields.

Abstracts reach kg from PDFs, spreadsheets and JSON escapes, so they may hold
NUL bytes, other control characters, lone UTF-16 surrogates (``"\\ud800"`` in
JSON) and the two noncharacters XML forbids. :func:`printable` removes or
replaces each kind and counts it, so that every file kg writes is valid and
the build can say what it changed. :func:`latex_decoded` renders the LaTeX of
a BibTeX field (accents, braces, font commands) but keeps formulas as written,
since extraction renders those itself.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

from kg.text.latex import render_text

__all__ = ["printable", "latex_decoded", "REPLACED"]

#: What :func:`printable` does to each kind of character, for the build summary.
REPLACED = {
    "NUL": "removed",
    "control character": "removed",
    "page or line break character": "replaced by a line break",
    "lone surrogate": "replaced by U+FFFD",
    "noncharacter": "removed",
}

_BAD = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]|\r\n?")
_BREAKS = frozenset("\x0b\x0c\x1c\x1d\x1e\x85")


def _kind(char: str) -> str:
    if char == "\x00":
        return "NUL"
    if char in _BREAKS:
        return "page or line break character"
    if "\ud800" <= char <= "\udfff":
        return "lone surrogate"
    if char in "\ufffe\uffff":
        return "noncharacter"
    return "control character"


def printable(text: str, counts: Counter[str] | None = None) -> str:
    """``text`` without the characters XML 1.0, Turtle and UTF-8 cannot all carry.

    Tabs and newlines stay; ``\\r\\n`` and a lone ``\\r`` become ``\\n`` (XML
    readers would do so anyway); form feeds, vertical tabs and the other
    break characters become ``\\n``; lone surrogates become U+FFFD; NUL, the
    other C0 and C1 controls, DEL, U+FFFE and U+FFFF are removed. Each change
    but the line endings is counted in ``counts`` by kind (see :data:`REPLACED`).

    Examples:
        >>> counts = Counter()
        >>> printable("a\\x00b\\x0cc\\ud800\\r\\nd", counts)
        'ab\\nc\\ufffd\\nd'
        >>> sorted(counts.items())
        [('NUL', 1), ('lone surrogate', 1), ('page or line break character', 1)]
    """
    if _BAD.search(text) is None:
        return text

    def fix(match: re.Match[str]) -> str:
        char = match.group()
        if char[0] == "\r":
            return "\n"
        kind = _kind(char)
        if counts is not None:
            counts[kind] += 1
        if kind == "page or line break character":
            return "\n"
        return "\ufffd" if kind == "lone surrogate" else ""

    return _BAD.sub(fix, text)


# Formulas as clean() finds them; an escaped dollar is text, not a delimiter.
_MATH = re.compile(r"\$\$.+?\$\$|(?<!\\)\$(?:[^$\\]|\\.)+?\$|\\\(.+?\\\)|\\\[.+?\\\]", re.S)


def latex_decoded(text: str) -> str:
    """A BibTeX field's text with its markup rendered and its formulas kept.

    Accents (``{\\"u}``, ``\\'e``), protective braces (``{BERT}``), font
    commands and ``~`` are rendered; ``$...$`` is left as written, and so is
    ``\\$``, so that :func:`~kg.text.clean` later sees the same formulas as in
    a plain-text copy of the abstract.

    Examples:
        >>> latex_decoded(r"{BERT} f{\\"u}r Sch\\"on~et al.: $\\mathcal{O}(n)$ \\& 5\\%")
        'BERT für Schön et al.: $\\\\mathcal{O}(n)$ & 5%'
    """
    if not re.search(r"[\\{}~]", text):
        return text
    out: list[str] = []
    start = 0
    for match in _MATH.finditer(text):
        out.append(_text_decoded(text[start : match.start()]))
        out.append(match.group())
        start = match.end()
    out.append(_text_decoded(text[start:]))
    # "{\'\i}" renders as a dotless i with an accent; written Unicode has "í".
    decoded = re.sub(
        "[\u0131\u0237](?=[\u0300-\u036f])",
        lambda m: "ij"["\u0131\u0237".index(m.group())],
        "".join(out),
    )
    return unicodedata.normalize("NFC", decoded)


def _text_decoded(part: str) -> str:
    if not re.search(r"[\\{}~]", part):
        return part
    pieces = part.split("\\$")
    rendered = [render_text(re.sub(r"(?<!\\)~", " ", piece)) for piece in pieces]
    return "\\$".join(rendered)
