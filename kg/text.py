"""Text utilities shared by ingestion and extraction.

Abstracts arrive with LaTeX (``$\\mathtt{SGD}$``), markdown (``**G**eneric``),
LaTeX dashes and PTB tokenisation (``-LRB-``). :func:`clean` turns them into
plain readable text for extraction, :func:`sentences` splits that text, and
:func:`normalise` gives the key that decides whether two abstracts are the same.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

__all__ = ["clean", "sentences", "normalise"]

# --- LaTeX -----------------------------------------------------------------

_GREEK = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "zeta": "ζ",
    "eta": "η", "theta": "θ", "iota": "ι", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν",
    "xi": "ξ", "omicron": "ο", "pi": "π", "rho": "ρ", "sigma": "σ", "tau": "τ",
    "upsilon": "υ", "phi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω",
    "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ", "Pi": "Π",
    "Sigma": "Σ", "Upsilon": "Υ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω",
}  # fmt: skip
_GREEK.update(
    {f"var{name}": _GREEK[name] for name in ("epsilon", "theta", "pi", "rho", "sigma", "phi")}
)
# A formula that is one Greek letter reads better spelled out: "alpha-symmetric".
_GREEK_NAME = {letter: name for name, letter in _GREEK.items() if not name.startswith("var")}

_SYMBOLS = {
    "times": "×", "cdot": "·", "pm": "±", "mp": "∓", "div": "÷", "ast": "*", "star": "*",
    "circ": "∘", "bullet": "•", "oplus": "⊕", "otimes": "⊗", "odot": "⊙", "rtimes": "⋊",
    "leq": "≤", "le": "≤", "geq": "≥", "ge": "≥", "neq": "≠", "ne": "≠", "approx": "≈",
    "sim": "~", "simeq": "≃", "cong": "≅", "equiv": "≡", "propto": "∝", "triangleq": "≜",
    "ll": "≪", "gg": "≫", "lesssim": "≲", "gtrsim": "≳", "prec": "≺", "succ": "≻",
    "preceq": "⪯", "succeq": "⪰", "in": "∈", "notin": "∉", "ni": "∋", "subset": "⊂",
    "subseteq": "⊆", "supset": "⊃", "supseteq": "⊇", "cup": "∪", "cap": "∩",
    "setminus": "∖", "emptyset": "∅", "varnothing": "∅", "forall": "∀", "exists": "∃",
    "neg": "¬", "lnot": "¬", "wedge": "∧", "land": "∧", "vee": "∨", "lor": "∨",
    "to": "→", "rightarrow": "→", "leftarrow": "←", "gets": "←", "Rightarrow": "⇒",
    "Leftarrow": "⇐", "leftrightarrow": "↔", "Leftrightarrow": "⇔", "iff": "⇔",
    "implies": "⇒", "mapsto": "↦", "uparrow": "↑", "downarrow": "↓", "infty": "∞",
    "partial": "∂", "nabla": "∇", "sum": "∑", "prod": "∏", "int": "∫", "oint": "∮",
    "ell": "ℓ", "hbar": "ℏ", "top": "⊤", "bot": "⊥", "perp": "⊥", "mid": "|",
    "vert": "|", "Vert": "‖", "|": "‖", "lfloor": "⌊", "rfloor": "⌋", "lceil": "⌈",
    "rceil": "⌉", "langle": "⟨", "rangle": "⟩", "prime": "'", "dagger": "†",
    "ddagger": "‡", "natural": "♮", "colon": ":", "ldots": "...", "dots": "...",
    "cdots": "...", "vdots": "...", "textellipsis": "...", "textendash": "–",
    "textemdash": "—", "textdegree": "°", "degree": "°", "textasciitilde": "~",
    "textbar": "|", "textless": "<", "textgreater": ">", "textbackslash": "",
    "copyright": "©", "texttrademark": "™", "textregistered": "®", "S": "§",
    "LaTeX": "LaTeX", "TeX": "TeX", "ss": "ß", "o": "ø", "O": "Ø", "ae": "æ",
    "AE": "Æ", "oe": "œ", "OE": "Œ", "l": "ł", "L": "Ł", "i": "ı", "aa": "å", "AA": "Å",
    "%": "%", "&": "&", "#": "#", "_": "_", "{": "{", "}": "}", "$": "$",
    ",": "", "!": "", ":": "", ";": "", ">": "", "-": "", "/": "", "@": "",
    " ": " ", "\\": " ", "quad": " ", "qquad": " ", "enspace": " ", "space": " ",
    "newline": " ", "linebreak": " ", "par": " ",
}  # fmt: skip
_SYMBOLS.update(_GREEK)

_FUNCTIONS = frozenset(
    {
        "log", "ln", "lg", "exp", "min", "max", "sup", "inf", "lim", "liminf", "limsup", "arg",
        "argmin", "argmax", "det", "dim", "ker", "deg", "gcd", "Pr", "sin", "cos", "tan", "sinh",
        "cosh", "tanh", "arcsin", "arccos", "arctan", "sec", "csc", "cot"
    }
)  # fmt: skip
# Commands whose argument is ordinary text or a symbol shown in a font.
_UNWRAP = frozenset(
    {
        "text", "textbf", "textit", "texttt", "textsf", "textrm", "textsc", "textnormal", "textup",
        "textsl", "textmd", "emph", "underline", "uline", "underbar", "mbox", "hbox", "fbox", "url",
        "nolinkurl", "mathrm", "mathbf", "mathit", "mathtt", "mathsf", "mathcal", "mathbb",
        "mathfrak", "mathscr", "mathnormal", "mathbfit", "boldsymbol", "bm", "pmb", "operatorname",
        "operatornamewithlimits", "overbrace", "underbrace", "smash", "phantom"
    }
)  # fmt: skip
# Font and size switches, sizing delimiters: no text of their own.
_SWITCHES = frozenset(
    {
        "em", "it", "bf", "sc", "rm", "sf", "tt", "sl", "cal", "bfseries", "itshape", "scshape",
        "upshape", "mdseries", "normalfont", "tiny", "scriptsize", "footnotesize", "small",
        "normalsize", "large", "Large", "LARGE", "huge", "Huge", "displaystyle", "textstyle",
        "scriptstyle", "scriptscriptstyle", "left", "right", "middle", "big", "Big", "bigg", "Bigg",
        "bigl", "bigr", "Bigl", "Bigr", "biggl", "biggr", "Biggl", "Biggr", "limits", "nolimits",
        "nonumber", "noindent", "centering", "protect", "relax"
    }
)  # fmt: skip
_DROP_ARG = frozenset(
    {
        "cite", "citep", "citet", "citealp", "citealt", "citeauthor", "citeyear", "cref", "Cref",
        "ref", "eqref", "autoref", "pageref", "label", "hypertarget", "vspace", "hspace", "color"
    }
)  # fmt: skip
_ACCENTS = {
    "'": "\u0301", "`": "\u0300", '"': "\u0308", "^": "\u0302", "~": "\u0303",
    "=": "\u0304", ".": "\u0307", "u": "\u0306", "v": "\u030c", "H": "\u030b",
    "c": "\u0327", "k": "\u0328", "r": "\u030a",
    "tilde": "\u0303", "widetilde": "\u0303", "hat": "\u0302", "widehat": "\u0302",
    "check": "\u030c", "bar": "\u0304", "overline": "\u0304", "vec": "\u20d7",
    "dot": "\u0307", "ddot": "\u0308", "breve": "\u0306", "acute": "\u0301",
    "grave": "\u0300", "mathring": "\u030a",
}  # fmt: skip
_ACCENT_CHARS = {"'": "'", "`": "`", '"': '"', "^": "^", "~": "~", "=": "=", ".": "."}

_MAX_DEPTH = 50
_MATH_TOKEN = re.compile(r"\\[A-Za-z]+|\\.|[{}^_]|\s+|[^\\{}^_\s]+", re.S)
_TEXT_TOKEN = re.compile(r"\\[A-Za-z]+|\\.|[{}]|[^\\{}]+", re.S)


class _Latex:
    """A forgiving renderer of a LaTeX fragment to plain text.

    Real abstracts hold unbalanced braces and author macros, so nothing here
    raises: unknown commands keep their name (``\\ours`` -> ``ours``), stray
    braces are dropped.
    """

    def __init__(self, source: str, *, math: bool) -> None:
        self.tokens = (_MATH_TOKEN if math else _TEXT_TOKEN).findall(source)
        self.pos = 0
        self.math = math
        self.depth = 0  # nesting beyond _MAX_DEPTH is read flat, never recursed into

    def render(self) -> str:
        return self._sequence(top=True)

    def _sequence(self, top: bool = False) -> str:
        out: list[str] = []
        while self.pos < len(self.tokens):
            token = self.tokens[self.pos]
            self.pos += 1
            if token == "}":
                if top:
                    continue
                return "".join(out)
            if token == "{":
                if self.depth < _MAX_DEPTH:
                    out.append(self._nested(self._sequence))
            elif self.math and token in ("^", "_"):
                out.append(self._script(token))
            elif token.startswith("\\"):
                out.append(self._command(token[1:]))
            else:
                out.append(" " if self.math and token.isspace() else token)
        return "".join(out)

    def _nested(self, render: Callable[..., str], *args: str) -> str:
        self.depth += 1
        try:
            return render(*args)
        finally:
            self.depth -= 1

    def _peek(self) -> str:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else ""

    def _argument(self) -> str:
        """The next argument: a braced group, a command, or one character."""
        while self.math and self._peek().isspace():
            self.pos += 1
        token = self._peek()
        if not token or token == "}" or self.depth >= _MAX_DEPTH:
            return ""
        self.pos += 1
        if token == "{":
            return self._nested(self._sequence)
        if token.startswith("\\"):
            return self._nested(self._command, token[1:])
        if len(token) > 1:
            self.pos -= 1
            self.tokens[self.pos] = token[1:]
        return token[0]

    def _skip_optional(self) -> None:
        """Skip an optional ``[...]`` argument (text mode only sees it as text)."""
        if self.math and self._peek() == "[":
            while self.pos < len(self.tokens) and self.tokens[self.pos] != "]":
                self.pos += 1
            self.pos += 1

    def _script(self, mark: str) -> str:
        arg = self._argument().strip()
        if not arg:
            return ""
        if mark == "^" and arg in ("*", "'", "†", "+", "-"):
            return arg
        return mark + _wrap(arg)

    def _command(self, name: str) -> str:
        if name in _ACCENTS:
            arg = self._argument()
            if not arg:
                return _ACCENT_CHARS.get(name, "")
            if len(arg) == 1 and arg.isalpha():
                return unicodedata.normalize("NFC", arg + _ACCENTS[name])
            return arg
        if name in _SYMBOLS:
            return _SYMBOLS[name]
        if name in _FUNCTIONS:
            following = self._peek()[:1]
            return f" {name} " if following.isalnum() or following in "\\{" else f" {name}"
        if name in _UNWRAP:
            return self._argument()
        if name in _SWITCHES:
            return ""
        if name in _DROP_ARG:
            self._skip_optional()
            self._argument()
            return ""
        if name in ("frac", "tfrac", "dfrac", "cfrac", "binom"):
            top, bottom = _wrap(self._argument().strip()), _wrap(self._argument().strip())
            return f"{top}/{bottom}" if name != "binom" else f"C({top},{bottom})"
        if name == "sqrt":
            self._skip_optional()
            return "√" + _wrap(self._argument().strip())
        if name == "href":
            self._argument()
            return self._argument()
        if name == "footnote":
            return f" ({self._argument().strip()})"
        if name in ("textcolor", "colorbox"):
            self._argument()
            return self._argument()
        # An author macro (\ours, \method): its name is the best text we have.
        if self._peek() == "{":
            arg = self._argument()
            return arg or name
        return name


def _wrap(part: str) -> str:
    """Parenthesise a compound script, numerator or radicand: ``^(-6)``, ``(k+1)/2``."""
    if re.fullmatch(r"\([^()]*\)|[^\s+\-−/×·,=<>]*", part):
        return part
    return f"({part})"


def _render_math(source: str) -> str:
    rendered = re.sub(r"\s+", " ", _Latex(source, math=True).render()).strip()
    rendered = re.sub(r"\s*([=<>≤≥≠≈≃≡∝≪≫~∈∉⊂⊆⊃⊇→←⇒↦×·±∓+\-/])\s*", r"\1", rendered)
    rendered = re.sub(r"\s+([)\]^_,;])", r"\1", rendered)
    rendered = re.sub(r"([(\[])\s+", r"\1", rendered)
    # "∗" rather than "*", so that the text never looks like markdown emphasis.
    return _GREEK_NAME.get(rendered, rendered).replace("*", "∗")


# --- clean -----------------------------------------------------------------

_MATH = re.compile(r"\$\$(.+?)\$\$|\$((?:[^$\\]|\\.)+?)\$|\\\((.+?)\\\)|\\\[(.+?)\\\]", re.S)
_PLACEHOLDER = re.compile("\ue000(\\d+)\ue001")
_INVISIBLE = re.compile("[\u00ad\u200b-\u200d\u2060\ufeff]")
_PTB = {"-LRB-": "(", "-RRB-": ")", "-LSB-": "[", "-RSB-": "]", "-LCB-": "{", "-RCB-": "}"}
_LAST_WORD = re.compile(r"\S+$")
_FIRST_WORD = re.compile(r"\S+")
_FUNCTION_WORDS = frozenset(
    {
        "a", "an", "the", "to", "as", "in", "of", "on", "for", "with", "by", "from", "at", "into",
        "onto", "is", "are", "was", "were", "be", "been", "being", "that", "which", "who", "whom",
        "whose", "this", "these", "those", "we", "our", "it", "its", "they", "their", "them", "i",
        "you", "and", "or", "but", "nor", "so", "yet", "if", "then", "than", "when", "while",
        "where", "whether", "not", "no", "via", "also", "both", "either", "each", "such", "only",
        "even", "just", "very", "more", "most", "thus", "hence", "here", "there", "has", "have",
        "had", "can", "may", "will"
    }
)  # fmt: skip
_ABBREVIATIONS = frozenset(
    {
        "al", "vs", "cf", "fig", "figs", "eq", "eqs", "sec", "secs", "tab", "ch", "resp", "approx",
        "viz", "dr", "mr", "mrs", "ms", "prof", "st", "jr", "inc", "ltd", "corp", "vol", "pp",
        "ref", "refs"
    }
)  # fmt: skip


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
        formulas.append(_render_math(source))
        return f"\ue000{len(formulas) - 1}\ue001"

    text = text.replace("\\$", "\ue002")
    text = _MATH.sub(stash, text)
    text = _markdown_removed(text)
    if re.search(r"\\[A-Za-z]|\\[%&#_{}'`\"^~]", text):
        text = re.sub(r"(?<=\S)~(?=\\[A-Za-z]|\()", " ", text)
        text = _Latex(text, math=False).render()
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
    text = text.replace("``", '"').replace("''", '"')
    text = re.sub(r"\s*(?:---|—|―)\s*", " - ", text)
    text = re.sub(r"(?<=\S)(?:--|–)(?=\S)", _dash_joined, text)
    text = re.sub(r"\s+(?:--|–)\s*|\s*(?:--|–)\s+", " - ", text)
    for token, bracket in _PTB.items():
        text = text.replace(token, bracket)
    text = re.sub(r"(?<=\d) \. (?=\d)", ".", text)
    text = re.sub(r"\s+([,.;:!?%])(?=\s|$)", r"\1", text)
    text = re.sub(r"([(\[])\s+", r"\1", text)
    text = re.sub(r"\s+([)\]])", r"\1", text)
    text = re.sub(r"(?<=\w)\s+('s|n't|'re|'ve|'ll|'m|'d)\b", r"\1", text)
    return re.sub(r"(?<=[a-z]{2}),(?=[A-Za-z]{2})", ", ", text)


def _dash_joined(match: re.Match[str]) -> str:
    # "vision--language" and "1--3" are compounds and ranges, but "biases--to
    # explore" and "predictably--as a power law--in" use the dash as punctuation.
    before = _LAST_WORD.search(match.string, max(0, match.start() - 40), match.start())
    after = _FIRST_WORD.match(match.string, match.end(), match.end() + 40)
    words = (before.group() if before else "").split("-")[-1], (after.group() if after else "")
    joins = any(word.strip(".,;:()").casefold() in _FUNCTION_WORDS for word in words)
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
    if token.casefold() in _ABBREVIATIONS:
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
