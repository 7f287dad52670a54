"""Tests for kg.text: cleaning real-abstract markup, sentence splitting, keys."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kg.text import clean, normalise, sentences

DATA = Path(__file__).parents[2] / "shared" / "data"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (r"Descent ($\mathtt{SGD}$), provably", "Descent (SGD), provably"),
        (r"proposed $\mathtt{Clipped}\text{-}\mathtt{SGD}$, an", "proposed Clipped-SGD, an"),
        (r"\emph{Scaling} laws", "Scaling laws"),
        (r"the ($\mathsf{BG}$-0) noise model", "the (BG-0) noise model"),
        (r"Means ($\mathsf{ISM}$).", "Means (ISM)."),
        (r"we present $\textbf{Matcher}$, a", "we present Matcher, a"),
        (r"the $K$ arms", "the K arms"),
        (r"for $\alpha$-symmetric smoothness", "for alpha-symmetric smoothness"),
        (
            r"we propose **GINOP** (**G**eneric **IN**formative **OP**timism)",
            "we propose GINOP (Generic INformative OPtimism)",
        ),
        (
            "the problem of *adversary-directed* online learning",
            "the problem of adversary-directed online learning",
        ),
        ("so-called *i.e.* cases", "so-called i.e. cases"),
        (r"**Rein*for***ced Trans***for*mer**", "Reinforced Transformer"),
        ("vision--language models", "vision-language models"),
        (
            "improves predictably--as a power law--in the",
            "improves predictably - as a power law - in the",
        ),
        ("BatteryML—a one-step platform", "BatteryML - a one-step platform"),
        ("pages 150–170 of Kullback–Leibler", "pages 150-170 of Kullback-Leibler"),
        (r"a 6.9\% higher accuracy", "a 6.9% higher accuracy"),
        (r"achieve $100\\%$ accuracy", "achieve 100% accuracy"),
        (r"cost (\$394 vs \$750)", "cost ($394 vs $750)"),
        ("the benefits of LLMs.To overcome this", "the benefits of LLMs. To overcome this"),
        ("of GNNs.The code", "of GNNs. The code"),
        ("However,generalization fails", "However, generalization fails"),
        ("Speciﬁcally,\u00a0we", "Specifically, we"),
        ("the ``shadow cones'' framework", 'the "shadow cones" framework'),
        (
            "Restrictions -LRB- CCRs -RRB- and cues : the former",
            "Restrictions (CCRs) and cues: the former",
        ),
        (r"the Poincar\'e ball", "the Poincaré ball"),
        (r"Code: \url{https://github.com/a/b}.", "Code: https://github.com/a/b."),
        ("Code at [here](https://github.com/a/b).", "Code at here."),
        (r"art~\citep{dubey2020}: (i)", "art: (i)"),
        (r"we derive \fullname (\abv), an algorithm", "we derive fullname (abv), an algorithm"),
        (
            r"our $\underline{\textbf{V}}$irtual $\underline{\textbf{C}}$onnection",
            "our Virtual Connection",
        ),
        (r"reduce up to $\sim$$30\%$ memory", "reduce up to ~30% memory"),
        ("  spaced \n\t out  ", "spaced out"),
    ],
)
def test_clean_known_markup(raw: str, expected: str) -> None:
    assert clean(raw) == expected


@pytest.mark.parametrize(
    "raw",
    [
        r"$\mathcal{O}(\varepsilon^{-6})$",
        r"$\tilde{O}\left(n^{1/c}\right)$",
        r"$\frac{k+1}{k+2}$-EFkX",
        r"$V\in \mathbb{R}^{n\times k}$",
        r"$\Omega\big(n+\kappa\sqrt{n}\log(1/\epsilon)\big)$",
    ],
)
def test_clean_formulas_leave_no_command_words(raw: str) -> None:
    cleaned = clean(raw)
    assert cleaned
    assert not re.search(
        r"mathcal|mathbb|varepsilon|epsilon|frac|tilde|left|right|sqrt|big|\\", cleaned
    )


def test_clean_formula_keeps_its_structure() -> None:
    assert clean(r"complexity $\mathcal{O}(\varepsilon^{-6})$.") == "complexity O(ε^(-6))."
    assert clean(r"$\frac{k+1}{k+2}$-EFkX allocations") == "(k+1)/(k+2)-EFkX allocations"


@pytest.mark.parametrize(
    "text",
    ["e.g. The", "i.e. The", "U.S. Army", "0.5 accuracy", "et al. Then", "Fig. The", "J. Smith"],
)
def test_clean_does_not_split_abbreviations(text: str) -> None:
    squeezed = text.replace(". ", ".")
    assert clean(squeezed) == squeezed


def test_sentences_split_on_sentence_ends_only() -> None:
    text = (
        "We use SGD, e.g. in Fig. 2 of Smith et al. and J. Doe, i.e. twice. "
        "Accuracy rose by 0.5 points vs. the baseline! Why? 2023 was a good year. "
        "We have two aims: 1. Planning. 2. Exploration."
    )
    assert sentences(text) == [
        "We use SGD, e.g. in Fig. 2 of Smith et al. and J. Doe, i.e. twice.",
        "Accuracy rose by 0.5 points vs. the baseline!",
        "Why?",
        "2023 was a good year.",
        "We have two aims: 1. Planning.",
        "2. Exploration.",
    ]


def test_sentences_of_empty_text() -> None:
    assert sentences("") == []
    assert sentences("   ") == []


def test_normalise_ignores_case_space_and_punctuation() -> None:
    assert normalise("Deep  Learning —\n works!") == normalise("deep learning works")
    assert normalise("Deep learning works") != normalise("Deep learning fails")


@given(st.text())
def test_clean_never_raises_and_is_trimmed(text: str) -> None:
    cleaned = clean(text)
    assert cleaned == cleaned.strip()
    assert "  " not in cleaned


# LaTeX-ish and markdown-ish pieces, so that hypothesis explores the cleaner's
# rules rather than random Unicode.
_PIECES = st.sampled_from(
    [
        "$", "\\", "{", "}", "*", "**", "_", "^", "--", "---", "—", "–", "~", ".", ". ",
        "e.g.", " ", "\n", "\\emph{", "\\textbf{", "$\\mathtt{", "\\%", "\\\\%", "\\alpha",
        "\\frac", "-LRB-", "``", "''", "Word", "word", "LLMs", "To", "3", "0.5", "(", ")",
    ]
)  # fmt: skip


@given(st.lists(_PIECES, max_size=25).map("".join))
def test_clean_handles_markup_soup(text: str) -> None:
    cleaned = clean(text)
    assert cleaned == cleaned.strip()
    assert not re.search(r"\\[A-Za-z]", cleaned)


@given(st.text(alphabet=st.characters(blacklist_characters="$\\{}*_^`'\"~"), max_size=200))
def test_clean_is_idempotent_on_plain_text(text: str) -> None:
    once = clean(text)
    assert clean(once) == once


@given(st.text())
def test_sentences_keep_every_word(text: str) -> None:
    cleaned = clean(text)
    assert " ".join(sentences(cleaned)).split() == cleaned.split()


@given(st.text())
def test_normalise_ignores_surrounding_whitespace_and_is_a_fixed_point(text: str) -> None:
    key = normalise(text)
    assert normalise(f"  {text}\n\t") == key
    assert normalise(key) == key


def _shared_abstracts() -> list[str]:
    files = sorted(DATA.glob("*.jsonl")) if DATA.is_dir() else []
    if not files:
        pytest.skip(f"shared evaluation data not found at {DATA}")
    abstracts = []
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            abstracts.append(record.get("abstract") or record.get("text") or "")
    return abstracts


def test_clean_real_abstracts_leave_no_latex() -> None:
    leftovers = {}
    for abstract in _shared_abstracts():
        cleaned = clean(abstract)
        found = re.findall(
            r"\\[A-Za-z]+|\b(?:mathcal|mathbb|mathrm|textbf|textit|emph)\b|-[LR]RB-", cleaned
        )
        if found:
            leftovers[abstract[:60]] = found
    assert not leftovers


def test_clean_real_abstracts_restore_sentence_spaces() -> None:
    joined = [clean(a) for a in _shared_abstracts() if re.search(r"[a-z]{3}\.[A-Z][a-z]", a)]
    assert joined, "the data should contain run-together sentences"
    assert not [c for c in joined if re.search(r"\b[a-z]{3,}\.[A-Z][a-z]{2,}\b", c)]
