"""A forgiving LaTeX-to-text renderer for abstracts.

Real abstracts hold formulas (``$\\mathcal{O}(\\varepsilon^{-6})$``), font
commands, accents and author macros, often unbalanced. :func:`render_math`
turns a formula into compact Unicode text and :func:`render_text` renders the
markup of running text; neither raises.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

__all__ = ["render_math", "render_text"]

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


def render_math(source: str) -> str:
    """A formula as compact text: ``\\alpha`` -> "alpha", ``x^{-6}`` -> "x^(-6)"."""
    rendered = re.sub(r"\s+", " ", _Latex(source, math=True).render()).strip()
    rendered = re.sub(r"\s*([=<>≤≥≠≈≃≡∝≪≫~∈∉⊂⊆⊃⊇→←⇒↦×·±∓+\-/])\s*", r"\1", rendered)
    rendered = re.sub(r"\s+([)\]^_,;])", r"\1", rendered)
    rendered = re.sub(r"([(\[])\s+", r"\1", rendered)
    # "∗" rather than "*", so that the text never looks like markdown emphasis.
    return _GREEK_NAME.get(rendered, rendered).replace("*", "∗")


def render_text(source: str) -> str:
    """Running text with its LaTeX commands rendered (``\\emph{x}`` -> ``x``)."""
    return _Latex(source, math=False).render()
