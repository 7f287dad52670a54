"""Re-export papers into each format kg reads, as the tools people use would write them.

Test helper: ``tests/test_formats.py`` writes the seeds' own abstracts in every
format and checks that each builds into the same concepts as the plain-text
seeds. Writers escape what their format requires (BibTeX's ``%`` and braces,
CSV quotes, RIS line starts) and nothing more.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path

from kg.model import Paper

__all__ = ["WRITERS", "write_as"]


def _bibtex(papers: Sequence[Paper]) -> str:
    def value(text: str) -> str:
        # outside formulas, % starts a comment in LaTeX; braces stay balanced in the seeds
        return re.sub(r"(?<!\\)%", r"\\%", text)

    entries = []
    for i, p in enumerate(papers):
        fields = [f"  abstract = {{{value(p.abstract)}}}"]
        if p.venue:
            fields.append(f"  booktitle = {{{p.venue}}}")
        if p.year:
            fields.append(f"  year = {p.year}")
        entries.append(f"@inproceedings{{seed{i},\n" + ",\n".join(fields) + "\n}\n")
    return "\n".join(entries)


def _ris(papers: Sequence[Paper]) -> str:
    out = []
    for p in papers:
        out += ["TY  - CONF", f"AB  - {p.abstract}"]
        if p.venue:
            out.append(f"T2  - {p.venue}")
        if p.year:
            out.append(f"PY  - {p.year}///")
        out += ["ER  - ", ""]
    return "\n".join(out)


def _table(papers: Sequence[Paper], header: list[str], row: Callable[[Paper], list], **kw) -> str:
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, **kw)
    writer.writerow(header)
    for p in papers:
        writer.writerow(row(p))
    return buffer.getvalue()


def _zotero_csv(papers: Sequence[Paper]) -> str:
    header = ["Key", "Item Type", "Publication Year", "Title", "Publication Title", "Abstract Note"]
    return "\ufeff" + _table(
        papers,
        header,
        lambda p: [p.id, "conferencePaper", p.year or "", "", p.venue or "", p.abstract],
        quoting=csv.QUOTE_ALL,
    )


def _wos_tsv(papers: Sequence[Paper]) -> str:
    return _table(
        papers,
        ["PT", "AU", "TI", "SO", "AB", "PY", "UT"],
        lambda p: ["C", "", "", p.venue or "", p.abstract, p.year or "", f"WOS:{p.id}"],
        delimiter="\t",
        lineterminator="\n",
    )


def _wos_plain(papers: Sequence[Paper]) -> str:
    out = ["FN Clarivate Analytics Web of Science", "VR 1.0"]
    for p in papers:
        words, lines, line = p.abstract.split(), [], ""
        for word in words:  # Web of Science wraps fields, continuing with three spaces
            if line and len(line) + len(word) > 70:
                lines.append(line)
                line = word
            else:
                line = f"{line} {word}".strip()
        lines.append(line)
        out += ["PT C", "AB " + lines[0], *("   " + rest for rest in lines[1:])]
        if p.venue:
            out.append(f"SO {p.venue}")
        if p.year:
            out.append(f"PY {p.year}")
        out += ["ER", ""]
    return "\n".join(out + ["EF", ""])


def _csl(papers: Sequence[Paper]) -> str:
    items = [
        {
            "id": f"seed{i}",
            "type": "paper-conference",
            "abstract": p.abstract,
            "container-title": p.venue,
            "issued": {"date-parts": [[p.year]]},
        }
        for i, p in enumerate(papers)
    ]
    return json.dumps(items, ensure_ascii=False, indent=2)


def _openalex(papers: Sequence[Paper]) -> str:
    def inverted(text: str) -> dict[str, list[int]]:
        index: dict[str, list[int]] = {}
        for position, word in enumerate(text.split()):
            index.setdefault(word, []).append(position)
        return index

    results = [
        {
            "id": f"https://openalex.org/W{i + 1}",
            "publication_year": p.year,
            "primary_location": {"source": {"display_name": p.venue}},
            "abstract_inverted_index": inverted(p.abstract),
        }
        for i, p in enumerate(papers)
    ]
    return json.dumps({"meta": {"count": len(results)}, "results": results}, ensure_ascii=False)


def _arxiv(papers: Sequence[Paper]) -> str:
    def wrapped(text: str) -> str:  # the snapshot wraps abstracts at about 80 columns
        words, lines, line = text.split(), [], ""
        for word in words:
            if line and len(line) + len(word) > 78:
                lines.append(line)
                line = word
            else:
                line = f"{line} {word}".strip()
        return "  " + "\n".join(lines + [line]) + "\n"

    return "".join(
        json.dumps(
            {
                "id": f"2601.{i:05d}",
                "submitter": "A. Author",
                "authors": "A. Author",
                "title": p.title or "",  # extraction reads the title too; the seeds have none
                "abstract": wrapped(p.abstract),
                "categories": "",
                "versions": [{"version": "v1", "created": f"Mon, 5 Jan {p.year} 10:00:00 GMT"}],
                "authors_parsed": [["Author", "A.", ""]],
            },
            ensure_ascii=False,
        )
        + "\n"
        for i, p in enumerate(papers)
    )


def _semantic_scholar(papers: Sequence[Paper]) -> str:
    data = [
        {"paperId": f"{i:040x}", "abstract": p.abstract, "year": p.year, "venue": p.venue or ""}
        for i, p in enumerate(papers)
    ]
    return json.dumps({"total": len(data), "offset": 0, "data": data}, ensure_ascii=False)


def _openreview(papers: Sequence[Paper]) -> str:
    notes = [
        {
            "id": f"note{i}",
            "forum": f"note{i}",
            "invitations": ["NeurIPS.cc/2026/Conference/-/Submission"],
            "content": {"abstract": {"value": p.abstract}, "venue": {"value": p.venue}},
        }
        for i, p in enumerate(papers)
    ]
    return json.dumps(notes, ensure_ascii=False, indent=1)


#: Format name -> (file name, writer).
WRITERS: dict[str, tuple[str, Callable[[Sequence[Paper]], str]]] = {
    "BibTeX": ("seeds.bib", _bibtex),
    "RIS": ("seeds.ris", _ris),
    "CSV (Zotero)": ("seeds.csv", _zotero_csv),
    "TSV (Web of Science)": ("savedrecs.txt", _wos_tsv),
    "Web of Science plain text": ("wos-savedrecs.txt", _wos_plain),
    "CSL-JSON": ("seeds-csl.json", _csl),
    "OpenAlex works": ("works.json", _openalex),
    "arXiv metadata snapshot": ("arxiv-metadata-oai-snapshot.json", _arxiv),
    "Semantic Scholar results": ("search.json", _semantic_scholar),
    "OpenReview notes": ("notes.json", _openreview),
}


def write_as(fmt: str, papers: Sequence[Paper], directory: Path) -> Path:
    """Write ``papers`` as ``fmt`` into ``directory``; the file's path."""
    name, writer = WRITERS[fmt]
    path = directory / name
    path.write_text(writer(papers), encoding="utf-8", newline="")
    return path
