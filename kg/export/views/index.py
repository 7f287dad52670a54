"""``index.html``: what a build holds and a link to each view, with what each view leaves out."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from kg.export.views.corpus import KINDS, Corpus
from kg.export.views.page import VIEWS, Drawn, environment
from kg.words import plural

__all__ = ["render_index"]


def render_index(corpus: Corpus, heading: str, drawn: Sequence[Drawn]) -> str:
    kinds = Counter(corpus.kind(c) for c in corpus.concepts)
    links = sum(len(m) for m in corpus.mentions.values())
    summary = [
        plural(len(corpus.papers), "paper"),
        plural(len(corpus.concepts), "concept")
        + " ("
        + ", ".join(plural(kinds[k], k) for k in KINDS if kinds[k])
        + ")",
        plural(links, "paper–concept link"),
        plural(len(corpus.shares), "shared-concept link"),
    ]
    by_key = {d.view: d for d in drawn}
    cards = []
    for key, filename, title, about in VIEWS:
        view = by_key[key]
        counts = Counter(n["kind"] for n in view.nodes)
        shows = (
            ", ".join(plural(counts[k], k) for k in ("paper", *KINDS) if counts[k]) or "nothing yet"
        )
        cards.append(
            {
                "file": filename,
                "title": title,
                "about": about,
                "shows": f"{shows}; {plural(len(view.edges), 'edge')}",
                "bounds": view.bounds,
            }
        )
    template = environment().get_template("index.html")
    return template.render(heading=heading, summary=summary, cards=cards)
