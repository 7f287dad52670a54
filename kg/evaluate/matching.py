"""How kg eval decides that a predicted concept is a gold concept.

Matching rule (lenient, document level): both strings are normalised
(PTB undone, casefolded, ``'s`` dropped, hyphens and punctuation turned into
spaces, spaces collapsed, last word singularised). A prediction matches a
gold concept when the normalised strings are equal (also when equal once
spaces are removed: "non-convex" = "nonconvex"), or when their content-word
sets have Jaccard similarity >= 0.6; content words are the words, each
singularised, minus stop words and the generic head nouns of
:data:`kg.lexicon.KIND_NOUNS` ("method", "task", "model", ...). Matching is one to one
within a paper, by maximum bipartite matching (Hopcroft-Karp, networkx), so a
duplicate prediction, or one that fits two gold concepts, earns one credit.
Gold concepts are deduplicated after normalisation. A prediction is one
extracted mention; an acronym with an expansion matches when either form
does, and is still one prediction.

Example::

    >>> match(["Support Vector Machines", "SVM", "CRF -LRB- conditional random field -RRB-"],
    ...       ["support vector machine", "CRF (conditional random field)"])
    2
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import networkx as nx

from kg.lexicon import FUNCTION_WORDS, KIND_NOUNS, singular
from kg.text import PTB

__all__ = [
    "JACCARD",
    "Predicted",
    "normalise_term",
    "same_concept",
    "unique_gold",
    "align",
    "match",
]

JACCARD = 0.6


@lru_cache(maxsize=65536)
def normalise_term(text: str) -> str:
    """The form two concept strings are compared in.

    >>> normalise_term("Conditional Random Fields -LRB- CRFs -RRB-")
    'conditional random fields crf'
    >>> normalise_term("the model 's multi-view stereo")
    'the model multi view stereo'
    """
    for token, plain in PTB.items():
        text = text.replace(token, plain)
    text = unicodedata.normalize("NFKC", text).casefold()
    text = re.sub(r"\s?['’]s\b", "", text)
    words = re.sub(r"[\W_]+", " ", text).split()
    if words:
        words[-1] = singular(words[-1])
    return " ".join(words)


@lru_cache(maxsize=65536)
def _content(norm: str) -> frozenset[str]:
    words = (singular(w) for w in norm.split())
    return frozenset(w for w in words if w not in FUNCTION_WORDS and w not in KIND_NOUNS)


def _same(a: str, b: str) -> bool:
    """:func:`same_concept` on already normalised strings."""
    if a == b or a.replace(" ", "") == b.replace(" ", ""):
        return bool(a)
    ca, cb = _content(a), _content(b)
    if not ca or not cb:
        return False
    return len(ca & cb) / len(ca | cb) >= JACCARD


def same_concept(prediction: str, gold: str) -> bool:
    """Whether two strings name the same concept under the matching rule.

    >>> same_concept("optical flow estimation", "optical flow")
    True
    >>> same_concept("machine translation system", "machine translation")
    True
    >>> same_concept("neural machine translation", "machine learning")
    False
    """
    return _same(normalise_term(prediction), normalise_term(gold))


@dataclass(frozen=True)
class Predicted:
    """One predicted concept: its surface forms, any of which may match.

    A mention is ``Predicted(("SGD", "stochastic gradient descent"))`` when the
    paper defines the acronym; a field is its label and alt labels.
    """

    forms: tuple[str, ...]

    @classmethod
    def of(cls, value: Predicted | str) -> Predicted:
        return value if isinstance(value, Predicted) else cls((value,))

    @property
    def text(self) -> str:
        return self.forms[0] if self.forms else ""


def unique_gold(gold: Iterable[str]) -> list[tuple[str, str]]:
    """``(gold string, normalised)`` once per normalised form, first spelling kept."""
    seen: dict[str, str] = {}
    for g in gold:
        norm = normalise_term(g)
        if norm and norm not in seen:
            seen[norm] = g
    return [(g, norm) for norm, g in seen.items()]


def align(
    predictions: Sequence[Predicted | str], gold: Sequence[str]
) -> tuple[list[tuple[Predicted, str]], list[Predicted], list[str]]:
    """One-to-one alignment of one paper's predictions with its gold concepts.

    Returns:
        ``(matched pairs, unmatched predictions, unmatched gold)``, gold
        deduplicated after normalisation; pairs and leftovers keep input order.
    """
    preds = [Predicted.of(p) for p in predictions]
    golds = unique_gold(gold)
    G = nx.Graph()
    top = [("p", i) for i in range(len(preds))]
    G.add_nodes_from(top)
    G.add_nodes_from(("g", j) for j in range(len(golds)))
    for i, p in enumerate(preds):
        norms = [normalise_term(f) for f in p.forms]
        for j, (_, g) in enumerate(golds):
            if any(_same(n, g) for n in norms):
                G.add_edge(("p", i), ("g", j))
    mate = nx.bipartite.hopcroft_karp_matching(G, top_nodes=top) if G.number_of_edges() else {}
    pairs = [(preds[i], golds[mate[("p", i)][1]][0]) for i in range(len(preds)) if ("p", i) in mate]
    extra = [preds[i] for i in range(len(preds)) if ("p", i) not in mate]
    missed = [golds[j][0] for j in range(len(golds)) if ("g", j) not in mate]
    return pairs, extra, missed


def match(predictions: Sequence[Predicted | str], gold: Sequence[str]) -> int:
    """Number of gold concepts matched one to one by ``predictions``.

    >>> match(["neural networks", "neural network", "NN"], ["neural network"])
    1
    """
    return len(align(predictions, gold)[0])
