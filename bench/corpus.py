"""A realistic large corpus for the scale benchmarks, composed from the real shared abstracts.

    .venv/bin/python bench/corpus.py make N --out CORPUS.jsonl [--limit M] [--neighbours K]
        [--donors D]
    .venv/bin/python bench/corpus.py real --out REAL.jsonl [--limit M]
    .venv/bin/python bench/corpus.py stats BUILD [BUILD ...]

``make`` writes N abstracts composed from the real ones (``../shared/data``:
ICLR 2024 and ICML 2024, 3,676 abstracts; ``--limit M`` the first M of them).
Each synthetic abstract starts from a real paper (each in turn) and its ``K``
nearest neighbours by TF-IDF cosine (the papers a reader would call related):
it opens with that paper's first sentences and has its length (less any
sentence written twice); from a cut drawn at random, the rest are the
sentences at the same relative places of one neighbour, the one that has lent
the fewest sentences so far (``--donors D``: D runs from D papers; 0: each slot
from any paper of the group, the least used sentence).
So a method follows a method and a result a result, concepts recur among
related papers about as often as they do in the real corpus, and a synthetic
paper is not a variant of one real paper (the variants of ``bench/perf.py
--synthetic`` share most of their concepts, which inflates the shared-concept
edges). Title, authors, venue, year and author keywords are those of the
paper that opened it, the title suffixed with ``~i``; no abstract is written
twice. ``real`` writes the real abstracts it composes from, to build them
alike for comparison.

``stats`` prints, for each build directory (its ``graph.json``), the figures a
realistic corpus must match (within 20% of the real corpus): links per paper
(methods, problems, fields and weak mentions), papers per concept, shared-
concept edges per paper and shared concepts per edge. Build a corpus with ``kg
build CORPUS.jsonl --out DIR`` first; docs/explanation/performance.md gives the
figures measured.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(ROOT / "bench"))
from perf import _records  # noqa: E402

from kg.text import sentences  # noqa: E402

#: Related papers each synthetic abstract draws its sentences from, besides its seed.
NEIGHBOURS = 8
#: Papers whose runs of sentences make one composed abstract (None: any of the group, per slot).
DONORS: int | None = 2


def neighbours(abstracts: list[str], k: int) -> list[list[int]]:
    """Each abstract's ``k`` nearest others by TF-IDF cosine, nearest first."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.neighbors import NearestNeighbors

    X = TfidfVectorizer(stop_words="english", sublinear_tf=True, min_df=2).fit_transform(abstracts)
    k = min(k, len(abstracts) - 1)
    index = NearestNeighbors(n_neighbors=k + 1, metric="cosine").fit(X)
    _, near = index.kneighbors(X)
    return [[int(j) for j in row if j != i][:k] for i, row in enumerate(near)]


def compose(
    records: list[dict[str, Any]],
    n: int,
    k: int = NEIGHBOURS,
    seed: int = 0,
    donors: int | None = DONORS,
) -> list[dict[str, Any]]:
    """``n`` distinct abstracts, each composed from one real paper's group of related papers.

    The real papers open composed ones in turn (a shuffled order, repeated). With
    ``donors`` set (2 or more), an abstract is that many runs of sentences, each
    from one paper, split at random cuts: the opener's first sentences, then
    those of related papers (the ones that have lent the fewest sentences so
    far), each at its own relative place. With ``donors`` None each later slot
    takes, among the group's sentences at that relative place, the one used
    least so far (more papers per abstract).
    """
    if donors is not None and donors < 2:
        raise ValueError("donors must be at least 2 (one paper's runs would be that paper)")
    rng = random.Random(seed)
    split = [sentences(r["abstract"]) or [r["abstract"]] for r in records]
    near = neighbours([r["abstract"] for r in records], k)
    seen = {r["abstract"] for r in records}
    used: Counter[tuple[int, int]] = Counter()
    lent: Counter[int] = Counter()
    order: list[int] = []
    out = []
    for i in range(n):
        for _tries in range(len(records) + 1):
            if not order:
                order = rng.sample(range(len(records)), len(records))
            start = order.pop()
            group = [start, *near[start]]
            length = len(split[start])

            def place(d: int, slot: int, length: int = length) -> tuple[int, int]:
                return (d, round(slot / max(1, length - 1) * (len(split[d]) - 1)))

            picks = [(start, 0)]
            if donors is None:
                for slot in range(1, length):
                    places = [place(d, slot) for d in group]
                    rng.shuffle(places)
                    picks.append(min(places, key=lambda p: (used[p], p in picks)))
            else:
                others = rng.sample(near[start], len(near[start]))
                runs = [start, *sorted(others, key=lambda d: lent[d])[: max(0, donors - 1)]]
                cuts = sorted(rng.sample(range(1, length), min(len(runs) - 1, length - 1)))
                bounds = [0, *cuts, length]
                for r, d in enumerate(runs[: len(bounds) - 1]):
                    picks += [place(d, slot) for slot in range(max(1, bounds[r]), bounds[r + 1])]
            body = list(dict.fromkeys(split[d][at] for d, at in picks))
            abstract = " ".join(body)
            if abstract not in seen:
                break
        else:
            raise ValueError(f"no new abstract can be composed from {len(records)} records")
        seen.add(abstract)
        used.update(picks)
        lent.update(d for d, _ in set(picks) if d != start)
        opener = records[start]
        out.append(
            {
                **{
                    key: opener[key]
                    for key in ("authors", "year", "venue", "keywords")
                    if opener.get(key)
                },
                "id": f"composed-{i}",
                **({"title": f"{opener['title']} ~{i}"} if opener.get("title") else {}),
                "abstract": abstract,
            }
        )
    return out


def stats(build: Path) -> dict[str, float]:
    """The corpus statistics of one build directory (its ``graph.json``)."""
    graph = json.loads((build / "graph.json").read_text(encoding="utf-8"))
    kinds = {n["id"]: n["type"] for n in graph["nodes"]}
    papers = sum(t == "paper" for t in kinds.values())
    links = [e for e in graph["edges"] if e["type"] == "mentions"]
    shares = [e for e in graph["edges"] if e["type"] == "shares"]
    per_concept = Counter(
        e["source"] if kinds[e["source"]] == "concept" else e["target"] for e in links
    )
    return {
        "papers": papers,
        "links per paper": len(links) / max(1, papers),
        "papers per concept": sum(per_concept.values()) / max(1, len(per_concept)),
        "edges per paper": 2 * len(shares) / max(1, papers),
        "shared concepts per edge": sum(len(e["shared"]) for e in shares) / max(1, len(shares)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    make = sub.add_parser("make", help="write a composed corpus")
    make.add_argument("n", type=int)
    make.add_argument("--out", type=Path, required=True)
    make.add_argument("--limit", type=int, default=None, help="compose from the first M papers")
    make.add_argument("--neighbours", type=int, default=NEIGHBOURS)
    make.add_argument("--seed", type=int, default=0)
    make.add_argument(
        "--donors", type=int, default=DONORS, help="papers per abstract, in runs (0: per slot)"
    )
    real = sub.add_parser("real", help="write the real abstracts composed from")
    real.add_argument("--out", type=Path, required=True)
    real.add_argument("--limit", type=int, default=None, help="the first M papers")
    show = sub.add_parser("stats", help="the corpus statistics of builds")
    show.add_argument("builds", nargs="+", type=Path)
    args = parser.parse_args()
    if args.command in ("make", "real"):
        records = _records(["data"])[: args.limit]
        made = (
            records
            if args.command == "real"
            else compose(records, args.n, args.neighbours, args.seed, args.donors or None)
        )
        args.out.write_text("".join(json.dumps(r) + "\n" for r in made), encoding="utf-8")
        print(f"wrote {args.out}: {len(made)} abstracts from {len(records)}", file=sys.stderr)
    else:
        rows = {str(b): stats(b) for b in args.builds}
        names = list(next(iter(rows.values())))
        print("build".ljust(40) + "".join(n.rjust(26) for n in names))
        for build, row in rows.items():
            cells = "".join(
                (f"{v:.0f}" if name == "papers" else f"{v:.2f}").rjust(26)
                for name, v in row.items()
            )
            print(build.ljust(40) + cells)


if __name__ == "__main__":
    main()
