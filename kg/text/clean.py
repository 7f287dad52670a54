"""Plain text from abstracts: cleaning, sentences, identity keys.

Abstracts arrive with LaTeX (``$\\mathtt{SGD}$``), markdown (``**G**eneric``),
LaTeX dashes and PTB tokenisation (``-LRB-``). :func:`clean` turns them into
plain readable text for extraction, :func:`sentences` splits that text, and
:func:`normalise` gives the key that decides whether two abstracts are the same.
"""

from __future__ import annotations

import re
import unicodedata

from kg.lexicon import ABBREVIATIONS, COMPOUND_PARTICLES, FUNCTION_WORDS
from kg.text.latex import render_math, render_text

__all__ = ["clean", "sentences", "normalise", "PTB"]

# --- clean -----------------------------------------------------------------

_MATH = re.compile(r"\$\$(.+?)\$\$|\$((?:[^$\\]|\\.)+?)\$|\\\((.+?)\\\)|\\\[(.+?)\\\]", re.S)
_PLACEHOLDER = re.compile("\ue000(\\d+)\ue001")
_INVISIBLE = re.compile("[\u00ad\u200b-\u200d\u2060\ufeff]")
#: Penn Treebank tokens for brackets and quotes, as SciERC and other corpora write them.
PTB = {
    "-LRB-": "(", "-RRB-": ")", "-LSB-": "[", "-RSB-": "]", "-LCB-": "{", "-RCB-": "}",
    "``": '"', "''": '"',
}  # fmt: skip
_LAST_WORD = re.compile(r"\S+$")
_FIRST_WORD = re.compile(r"\S+")


def clean(text: str) -> str:
    """Return a plain-text copy of an abstract for extraction.

    LaTeX markup is rendered (text inside font commands kept, formulas made
    compact with Unicode symbols so command names never become words),
    markdown emphasis and links are unwrapped, dashes, quotes and PTB tokens
    are normalised, and a missing space after a sentence end is restored.

    Examples:
        >>> clean(r"people proposed $\\mathtt{Clipped}\\text{-}\\mathtt{SGD}$, in \\emph{theory}")
        'people proposed Clipped-SGD, in theory'
        >>> clean(r"rates of $\\mathcal{O}(\\varepsilon^{-6})$ for $\\alpha$-symmetric losses")
        'rates of O(ε^(-6)) for alpha-symmetric losses'
        >>> clean("we propose **G**eneric **IN**formative *vision--language* LLMs.To do so")
        'we propose Generic INformative vision-language LLMs. To do so'
    """
    text = _INVISIBLE.sub("", unicodedata.normalize("NFKC", text))
    # JSON exports sometimes double the backslash of an escape: "100\\%".
    text = re.sub(r"\\\\(?=[%$&#_{}|])", r"\\", text)
    formulas: list[str] = []

    def stash(match: re.Match[str]) -> str:
        source = next(group for group in match.groups() if group is not None)
        formulas.append(render_math(source))
        return f"\ue000{len(formulas) - 1}\ue001"

    text = text.replace("\\$", "\ue002")
    text = _MATH.sub(stash, text)
    text = _markdown_removed(text)
    if re.search(r"\\[A-Za-z]|\\[%&#_{}'`\"^~]", text):
        text = re.sub(r"(?<=\S)~(?=\\[A-Za-z]|\()", " ", text)
        text = render_text(text)
    text = _PLACEHOLDER.sub(lambda m: formulas[int(m.group(1))], text)
    text = text.replace("\ue002", "$")
    text = _punctuation_normalised(unicodedata.normalize("NFKC", text))
    text = _sentence_spaces_restored(text)
    return re.sub(r"\s+", " ", text).strip()


_SPAN = r".{1,400}?"  # an emphasised phrase, bounded so that stray markers stay cheap
_P = r"!-/:-@\[-`{-~"  # ASCII punctuation, as in CommonMark's flanking rules
# An opening "*" starts a word or follows a space or punctuation ("Rein*for*ced",
# "(*i.e.*"), so "A* search" and "IsoScore*-based" keep their asterisks.
_EMPHASIS = re.compile(rf"(?:(?<![^\s{_P}])\*(?=\S)|\*(?=[^\s{_P}]))({_SPAN})(?<=\S)\*", re.S)
_UNDERSCORE_EMPHASIS = re.compile(
    rf"(?<![^\s{_P}])(__?)(?=[^\s_])({_SPAN})(?<=[^\s_])\1(?![^\s{_P}])", re.S
)


def _markdown_removed(text: str) -> str:
    text = re.sub(r"\[([^\[\]]+)\]\(([^()\s]+)\)", r"\1", text)
    text = re.sub(r"<((?:https?|ftp)://[^<>\s]+)>", r"\1", text)
    text = text.replace("**", "")
    text = _EMPHASIS.sub(r"\1", text)
    return _UNDERSCORE_EMPHASIS.sub(r"\2", text)


def _punctuation_normalised(text: str) -> str:
    text = text.translate(str.maketrans("“”„‘’‚\u2010\u2011\u2012\u2212", "\"\"\"'''----"))
    text = re.sub(r"\s*(?:---|—|―)\s*", " - ", text)
    text = re.sub(r"(?<=\S)(?:--|–)(?=\S)", _dash_joined, text)
    text = re.sub(r"\s+(?:--|–)\s*|\s*(?:--|–)\s+", " - ", text)
    for token, plain in PTB.items():
        text = text.replace(token, plain)
    text = re.sub(r"(?<=\d) \. (?=\d)", ".", text)
    text = re.sub(r"\s+([,.;:!?%])(?=\s|$)", r"\1", text)
    text = re.sub(r"([(\[])\s+", r"\1", text)
    text = re.sub(r"\s+([)\]])", r"\1", text)
    text = re.sub(r"(?<=\w)\s+('s|n't|'re|'ve|'ll|'m|'d)\b", r"\1", text)
    return re.sub(r"(?<=[a-z]{2}),(?=[A-Za-z]{2})", ", ", text)


# A dash next to one of these is punctuation ("biases--to explore"), but not
# before a particle that makes a compound ("trade--off").
_DASH_BREAKS = FUNCTION_WORDS - COMPOUND_PARTICLES


def _dash_joined(match: re.Match[str]) -> str:
    # "vision--language" and "1--3" are compounds and ranges, but "biases--to
    # explore" and "predictably--as a power law--in" use the dash as punctuation.
    before = _LAST_WORD.search(match.string, max(0, match.start() - 40), match.start())
    after = _FIRST_WORD.match(match.string, match.end(), match.end() + 40)
    words = (before.group() if before else "").split("-")[-1], (after.group() if after else "")
    joins = any(word.strip(".,;:()").casefold() in _DASH_BREAKS for word in words)
    return " - " if joins else "-"


def _sentence_spaces_restored(text: str) -> str:
    def space(match: re.Match[str]) -> str:
        if match.group(1) == "." and _ends_with_abbreviation(text, match.start()):
            return match.group(1)
        return match.group(1) + " "

    return re.sub(r"(?<=[\w)\]%])([.!?])(?=[A-Z][a-z]|[A-Z]\s)", space, text)


def _ends_with_abbreviation(text: str, end: int) -> bool:
    """Whether a period at ``text[end]`` ends an abbreviation, not a sentence."""
    match = _LAST_WORD.search(text, max(0, end - 40), end)
    if not match:
        return False
    token = match.group().lstrip("([{\"'")
    if token.casefold() in ABBREVIATIONS:
        return True
    # "e.g", "i.e", "U.S", "w.r.t" and single initials such as "J".
    return bool(re.fullmatch(r"(?:[A-Za-z]\.)+[A-Za-z]|[A-Z]", token))


# --- sentences and keys ----------------------------------------------------

_BOUNDARY = re.compile(r"""([.!?]+)(["')\]]*)\s+(?=["'(\[]?[A-Z0-9])|([。！？])\s*""")


# The number of a list item, "aims: 1. Planning. 2. Exploration.", is no sentence end.
_ENUMERATOR = re.compile(r"(?:^|[:;.!?]\s+)\d{1,2}$")


def sentences(text: str) -> list[str]:
    """Split cleaned text into sentences.

    A sentence ends at ``.``, ``?`` or ``!`` followed by a space and a capital
    or digit, except after abbreviations ("e.g.", "et al.", "Fig."), initials
    and inside decimals.

    Examples:
        >>> sentences("We use SGD, e.g. in Fig. 2 of Smith et al. 2020. It works. Does it?")
        ['We use SGD, e.g. in Fig. 2 of Smith et al. 2020.', 'It works.', 'Does it?']
    """
    found: list[str] = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        end = match.start()
        if match.group(1) == "." and (
            _ends_with_abbreviation(text, end) or _ENUMERATOR.search(text, max(0, end - 40), end)
        ):
            continue
        found.append(text[start : match.end()].strip())
        start = match.end()
    found.append(text[start:].strip())
    return [sentence for sentence in found if sentence]


def normalise(text: str) -> str:
    """Return the identity key of an abstract.

    Case, whitespace, punctuation and Unicode compatibility forms do not
    change the key, so re-wrapped or re-typed copies of one abstract match.

    Examples:
        >>> normalise("  Deep  learning—works!\\n") == normalise("deep learning works")
        True
    """
    text = unicodedata.normalize("NFKC", text).casefold()
    return re.sub(r"[\W_]+", " ", text).strip()
