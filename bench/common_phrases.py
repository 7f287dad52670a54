"""The phrases so common in machine-learning abstracts that they name no one paper's concept.

    .venv/bin/python bench/common_phrases.py [--data ../shared/data/icml2024.jsonl]

Counts, for every phrase of one to four words inside a clause, the share of
the ICML 2024 abstracts (title and abstract) that use it, phrases compared by
:func:`kg.lexicon.variant_key` (case, hyphens, plural). Those used by at least
:data:`kg.lexicon.UMBRELLA_SHARE` of them ("language models", "neural
networks", "LLMs", "gradient descent") are written with their share to
``kg/lexicon/common_phrases.tsv``, which :func:`kg.lexicon.is_umbrella` reads:
a background frequency from outside the papers being built, so whether a
phrase is an umbrella does not depend on the corpus at hand.

It also writes ``kg/lexicon/fixed_terms.tsv``: the phrases led by a weak
modifier ("optimal transport", "natural language processing", "empirical
risk minimization") that at least :data:`FIXED_MIN` abstracts use and that
the modifier is bound to: at least :data:`FIXED_SHARE` of the abstracts that
use the rest of the phrase ("transport") use it with the modifier. Elsewhere
the modifier is free ("standard optimisers", "modern recurrent networks"),
and :func:`kg.lexicon.is_fixed_term` tells the two apart. ICML 2024 is
used for nothing else: kg's other learned parts are trained on SciERC,
Inspec and ICLR 2024, and scored on held-out splits of those.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kg.extract.phrases import tokens  # noqa: E402
from kg.lexicon import (  # noqa: E402
    STOP_WORDS,
    UMBRELLA_SHARE,
    VERBS,
    WEAK_MODIFIERS,
    variant_key,
)

DATA = ROOT.parent / "shared" / "data" / "icml2024.jsonl"
OUT = ROOT / "kg" / "lexicon" / "common_phrases.tsv"
FIXED_OUT = ROOT / "kg" / "lexicon" / "fixed_terms.tsv"
MAX_WORDS = 4
#: A weak-led phrase fewer abstracts use than this is not known to be a term.
FIXED_MIN = 3
#: The share of the rest's uses that carry the modifier, for the phrase to be a term.
FIXED_SHARE = 0.3
# A fixed term continued by one word in at least this share of its uses is a piece of a longer one.
_PIECE_SHARE = 0.9
_CLAUSE = re.compile(r"[.;:,()!?\[\]]")


def phrases(text: str) -> tuple[set[str], set[tuple[str, ...]]]:
    """The phrases of 1 to :data:`MAX_WORDS` words in ``text``'s clauses.

    A phrase neither starts nor ends with a stop word. Each comes as its
    variant key, and (when no word inside is a stop word or a verb) as the
    tuple of its words' variant keys.
    """
    whole: set[str] = set()
    by_word: set[tuple[str, ...]] = set()
    for clause in _CLAUSE.split(text):
        words = [t for t, _, _ in tokens(clause)]
        for i, first in enumerate(words):
            if first.lower() in STOP_WORDS:
                continue
            for j in range(i + 1, min(len(words), i + MAX_WORDS) + 1):
                last = words[j - 1]
                if last.lower() not in STOP_WORDS and not last.isdigit():
                    whole.add(variant_key(" ".join(words[i:j])))
                    if not any(w.lower() in STOP_WORDS or w.lower() in VERBS for w in words[i:j]):
                        by_word.add(tuple(variant_key(w) for w in words[i:j]))
    return whole, by_word


def fixed_terms(counts: Counter[tuple[str, ...]]) -> list[str]:
    """The weak-led phrases whose modifier is bound (see the module docstring), sorted.

    A phrase almost always continued the same way is a piece of the longer
    term ("large language" of "large language model"), not a term itself.
    """
    bound = {
        words
        for words, c in counts.items()
        if len(words) > 1
        and words[0] in WEAK_MODIFIERS
        and c >= FIXED_MIN
        and c >= FIXED_SHARE * counts[words[1:]]
    }
    longer: Counter[tuple[str, ...]] = Counter()
    for words in bound:
        longer[words[:-1]] = max(longer[words[:-1]], counts[words])
    return sorted(" ".join(w) for w in bound if longer[w] < _PIECE_SHARE * counts[w])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--fixed-out", type=Path, default=FIXED_OUT)
    args = parser.parse_args()
    whole: Counter[str] = Counter()
    counts: Counter[tuple[str, ...]] = Counter()
    n = 0
    with args.data.open(encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            keys, word_keys = phrases(f"{record.get('title', '')}. {record['abstract']}")
            whole.update(keys)
            counts.update(word_keys)
            n += 1
    common = sorted(
        ((c / n, key) for key, c in whole.items() if c / n >= UMBRELLA_SHARE),
        key=lambda x: (-x[0], x[1]),
    )
    header = (
        f"# Share of {n} ICML 2024 abstracts that use each phrase (variant keys), "
        f"at least {UMBRELLA_SHARE}; written by bench/common_phrases.py.\n"
    )
    args.out.write_text(header + "".join(f"{s:.4f}\t{k}\n" for s, k in common), encoding="utf-8")
    fixed = fixed_terms(counts)
    header = (
        f"# Phrases led by a weak modifier that at least {FIXED_MIN} of {n} ICML 2024 abstracts "
        f"use, in at least {FIXED_SHARE} of the abstracts that use the rest of the phrase "
        "(word variant keys); written by bench/common_phrases.py.\n"
    )
    args.fixed_out.write_text(header + "".join(f"{k}\n" for k in fixed), encoding="utf-8")
    print(
        f"wrote {args.out}: {len(common)} phrases, {args.fixed_out}: {len(fixed)} fixed terms, "
        f"from {n} abstracts",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
