"""The phrases so common in machine-learning abstracts that they name no one paper's concept.

    .venv/bin/python bench/common_phrases.py [--data ../shared/data/icml2024.jsonl]

Counts, for every phrase of one to four words inside a clause, the share of
the ICML 2024 abstracts (title and abstract) that use it, phrases compared by
:func:`kg.lexicon.variant_key` (case, hyphens, plural). Those used by at least
:data:`kg.lexicon.UMBRELLA_SHARE` of them ("language models", "neural
networks", "LLMs", "gradient descent") are written with their share to
``kg/lexicon/common_phrases.tsv``, which :func:`kg.lexicon.is_umbrella` reads:
a background frequency from outside the papers being built, so whether a
phrase is an umbrella does not depend on the corpus at hand. ICML 2024 is
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
from kg.lexicon import STOP_WORDS, UMBRELLA_SHARE, variant_key  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "icml2024.jsonl"
OUT = ROOT / "kg" / "lexicon" / "common_phrases.tsv"
MAX_WORDS = 4
_CLAUSE = re.compile(r"[.;:,()!?\[\]]")


def phrases(text: str) -> set[str]:
    """The variant keys of every phrase of 1 to :data:`MAX_WORDS` words in ``text``'s clauses."""
    found: set[str] = set()
    for clause in _CLAUSE.split(text):
        words = [t for t, _, _ in tokens(clause)]
        for i, first in enumerate(words):
            if first.lower() in STOP_WORDS:
                continue
            for j in range(i + 1, min(len(words), i + MAX_WORDS) + 1):
                last = words[j - 1]
                if last.lower() not in STOP_WORDS and not last.isdigit():
                    found.add(variant_key(" ".join(words[i:j])))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    counts: Counter[str] = Counter()
    n = 0
    with args.data.open(encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            counts.update(phrases(f"{record.get('title', '')}. {record['abstract']}"))
            n += 1
    common = sorted(
        ((c / n, key) for key, c in counts.items() if c / n >= UMBRELLA_SHARE),
        key=lambda x: (-x[0], x[1]),
    )
    header = (
        f"# Share of {n} ICML 2024 abstracts that use each phrase (variant keys), "
        f"at least {UMBRELLA_SHARE}; written by bench/common_phrases.py.\n"
    )
    args.out.write_text(header + "".join(f"{s:.4f}\t{k}\n" for s, k in common), encoding="utf-8")
    print(f"wrote {args.out}: {len(common)} phrases from {n} abstracts", file=sys.stderr)


if __name__ == "__main__":
    main()
