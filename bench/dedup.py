"""How well kg finds the records of one paper: merge precision and recall on a made test set.

    .venv/bin/python bench/dedup.py [--share 0.33] [--homonyms 0.1] [--seed 0]

The test set is made from ``../shared/data/icml2024.jsonl`` and ``iclr2024_dev.jsonl``
(3,676 papers, which carry no identifiers): each paper is written once as its
"proceedings" record with a made-up DOI (``10.5555/bench.<n>``); a share of them is
written again as a "preprint" record (venue arXiv, authors as "Family, Given",
a different abstract text) whose title is perturbed one way (case, LaTeX
braces and accents, a trailing version, an added subtitle) and which keeps
the DOI (in another spelling) or drops it, half each. Then, as distinct papers
that must stay apart, a share of titles is reused by a new record with another
first author or another year and another abstract. Every record goes through
``kg.ingest.read_inputs`` as a build reads it; the pairs of records that end up
in one paper are compared with the pairs that are one paper.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kg.ingest import read_inputs  # noqa: E402

DATA = ROOT.parent / "shared" / "data"
FILES = ("icml2024.jsonl", "iclr2024_dev.jsonl")
_ACCENTS = {"é": "{\\'e}", "ü": '{\\"u}', "ö": '{\\"o}', "è": "{\\`e}", "á": "{\\'a}"}


def perturb(title: str, how: str, rng: random.Random) -> str:
    """The title as another source writes it."""
    if how == "case":
        return title.upper() if rng.random() < 0.5 else title.lower()
    if how == "latex":
        words = title.split()
        at = rng.randrange(len(words))
        words[at] = "{" + words[at] + "}"
        text = " ".join(words)
        for plain, latex in _ACCENTS.items():
            text = text.replace(plain, latex)
        return text
    if how == "version":
        return title + rng.choice([" (v2)", " v3", " [v2]"])
    return title + rng.choice([": A Preprint", ": Extended Version", " - Technical Report"])


def inverted(name: str) -> str:
    given, _, family = name.rpartition(" ")
    return f"{family}, {given}" if given else name


def make(papers: list[dict], share: float, homonyms: float, seed: int) -> tuple[list, list]:
    """Records (as JSON objects) and, for each, the paper it is a record of."""
    rng = random.Random(seed)
    records, truth = [], []
    doi = {p["id"]: f"10.5555/bench.{n}" for n, p in enumerate(papers)}  # ids differ in case only
    for p in papers:
        records.append({**p, "doi": doi[p["id"]]})
        truth.append(p["id"])
    ways = ("case", "latex", "version", "subtitle")
    for n, p in enumerate(rng.sample(papers, round(share * len(papers)))):
        copy = {
            "id": f"arxiv-{p['id']}",
            "title": perturb(p["title"], ways[n % len(ways)], rng),
            "abstract": "Preprint. " + p["abstract"],
            "authors": [inverted(a) for a in p.get("authors") or []],
            "year": p.get("year"),
            "venue": "arXiv",
        }
        if rng.random() < 0.5:
            copy["doi"] = "https://doi.org/" + doi[p["id"]].upper()
        records.append(copy)
        truth.append(p["id"])
    for n, p in enumerate(rng.sample(papers, round(homonyms * len(papers)))):
        other = rng.choice([q for q in rng.sample(papers, 5) if q["id"] != p["id"]])
        other_author = n % 2 == 0
        records.append(
            {
                "id": f"homonym-{p['id']}",
                "title": p["title"],
                "abstract": f"Another study, number {n}. " + other["abstract"],
                "authors": (other.get("authors") if other_author else p.get("authors")) or [],
                "year": p.get("year") if other_author else (p.get("year") or 2024) - 3,
            }
        )
        truth.append(f"homonym-{p['id']}")
    return records, truth


def pairs(groups: list[list[int]]) -> set[tuple[int, int]]:
    return {(a, b) for g in groups for a, b in itertools.combinations(sorted(g), 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--share", type=float, default=1 / 3, help="papers given a second record")
    parser.add_argument(
        "--homonyms", type=float, default=0.1, help="titles reused by another paper"
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    papers = [json.loads(line) for f in FILES for line in (DATA / f).open(encoding="utf-8")]
    papers = [p for p in papers if p.get("title") and p.get("abstract")]
    records, truth = make(papers, args.share, args.homonyms, args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "records.jsonl"
        path.write_text("\n".join(json.dumps(r) for r in records), encoding="utf-8")
        start = time.perf_counter()
        reading = read_inputs([path])
        seconds = time.perf_counter() - start
    line = {f"{path}:{n}": n - 1 for n in range(1, len(records) + 1)}
    found = [[line[p.source], *(line[s] for s in p.other_sources)] for p in reading.papers]
    gold: dict[str, list[int]] = {}
    for i, paper in enumerate(truth):
        gold.setdefault(paper, []).append(i)
    predicted, expected = pairs(found), pairs(list(gold.values()))
    right = predicted & expected
    precision = len(right) / len(predicted) if predicted else 1.0
    recall = len(right) / len(expected) if expected else 1.0
    print(
        f"{len(records)} records of {len(gold)} papers ({len(expected)} pairs to merge, "
        f"{sum(t.startswith('homonym-') for t in truth)} distinct papers sharing a title), "
        f"read in {seconds:.1f} s"
    )
    print(f"{len(reading.papers)} papers; merged pairs {len(predicted)}, right {len(right)}")
    print(f"precision {precision:.4f}  recall {recall:.4f}")
    for a, b in sorted(predicted - expected)[:5]:
        print("  wrongly merged:", records[a]["title"], "|", records[b]["title"])
    for a, b in sorted(expected - predicted)[:5]:
        print("  missed:", records[a]["title"], "|", records[b]["title"])


if __name__ == "__main__":
    main()
