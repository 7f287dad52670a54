"""What a phrase's head word says about its kind, learned from annotated spans.

Annotators of SciERC typed 4,231 spans of AI abstracts as Method, Task or
another kind of term (Metric, Material, OtherScientificTerm). The head word
(:func:`kg.lexicon.head`) of a span says much of its kind: *network*,
*algorithm* and *model* head methods; *recognition*, *parsing* and
*translation* tasks; *robustness*, *complexity* and *accuracy* are
properties, neither. :class:`HeadPrior` holds how often each head was each
kind and turns that into four classifier features: the smoothed log-odds of
method, problem and other for a head, and how often the head was seen (a head
never annotated gets the class shares and a count of 0).

The counts ship as ``models/head_kinds.tsv``, written by
``bench/head_kinds.py`` from SciERC train only (research use; Luan et al.,
EMNLP 2018); the data it is scored on (SciERC dev) was never read.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path

from kg.errors import ModelError
from kg.lexicon import head
from kg.text import PTB

__all__ = ["HeadPrior", "PRIOR_FEATURES", "KINDS", "load_head_prior", "span_head", "DEFAULT_TABLE"]

#: The annotated kinds, in the order of the counts.
KINDS = ("method", "problem", "other")
PRIOR_FEATURES = ("head_prior_method", "head_prior_problem", "head_prior_other", "head_seen")
DEFAULT_TABLE = Path(__file__).resolve().parent / "models" / "head_kinds.tsv"
#: Pseudo-counts that pull a rarely seen head toward the class shares.
SMOOTHING = 2.0

Counts3 = tuple[int, int, int]


def span_head(span: str) -> str:
    """The head of an annotated span: PTB tokens undone, punctuation and "'s" no head word."""
    for token, plain in PTB.items():
        span = span.replace(token, plain)
    words = [w.strip("\"'()[]{}") for w in span.split() if w != "'s"]
    return head(" ".join(w for w in words if any(ch.isalnum() for ch in w)))


@dataclass(frozen=True)
class HeadPrior:
    """How often each head word was annotated as each of :data:`KINDS`."""

    counts: Mapping[str, Counts3] = field(default_factory=dict)

    @classmethod
    def from_spans(cls, spans: Iterable[tuple[str, str]]) -> HeadPrior:
        """From ``(span, kind)`` pairs, kind one of :data:`KINDS`."""
        table: dict[str, list[int]] = {}
        for span, kind in spans:
            h = span_head(span)
            if h:
                table.setdefault(h, [0, 0, 0])[KINDS.index(kind)] += 1
        return cls({h: (c[0], c[1], c[2]) for h, c in table.items()})

    def without(self, spans: Iterable[tuple[str, str]]) -> HeadPrior:
        """This prior less some spans' counts (one abstract's, for leave-one-out features)."""
        less = Counter((span_head(s), k) for s, k in spans)
        if not less:
            return self
        table = {h: list(c) for h, c in self.counts.items()}
        for (h, kind), n in less.items():
            if h in table:
                table[h][KINDS.index(kind)] -= n
        return HeadPrior({h: (c[0], c[1], c[2]) for h, c in table.items() if sum(c) > 0})

    @cached_property
    def shares(self) -> tuple[float, float, float]:
        """How often each kind was annotated, over all heads."""
        totals = [sum(c[i] for c in self.counts.values()) for i in range(3)]
        n = sum(totals) or 1
        return (totals[0] / n, totals[1] / n, totals[2] / n)

    def features(self, word: str) -> tuple[float, float, float, float]:
        """:data:`PRIOR_FEATURES` of a head word."""
        return _features(self.counts.get(word, (0, 0, 0)), self.shares)


@lru_cache(maxsize=65536)
def _features(c: Counts3, shares: tuple[float, float, float]) -> tuple[float, float, float, float]:
    n = sum(c)
    p = [(c[i] + SMOOTHING * shares[i]) / (n + SMOOTHING) for i in range(3)]
    odds = [math.log(max(q, 1e-6) / max(1.0 - q, 1e-6)) for q in p]
    return (odds[0], odds[1], odds[2], math.log1p(n))


def write_table(prior: HeadPrior, path: Path, source: str) -> None:
    """Write ``prior`` as the tab-separated table :func:`load_head_prior` reads."""
    lines = [f"# {source}", "# head\tmethod\tproblem\tother"]
    lines += [f"{h}\t{c[0]}\t{c[1]}\t{c[2]}" for h, c in sorted(prior.counts.items())]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@lru_cache(maxsize=4)
def load_head_prior(path: Path = DEFAULT_TABLE) -> HeadPrior:
    """The shipped table; a missing or malformed one is a :class:`ModelError`."""
    try:
        rows = [
            line.split("\t")
            for line in path.read_text(encoding="utf-8").splitlines()
            if line and not line.startswith("#")
        ]
        return HeadPrior({r[0]: (int(r[1]), int(r[2]), int(r[3])) for r in rows})
    except (OSError, ValueError, IndexError) as exc:
        raise ModelError(
            f"cannot read the head-word kind table {path}: {exc}; "
            "reinstall kg or rewrite it with bench/head_kinds.py"
        ) from exc
