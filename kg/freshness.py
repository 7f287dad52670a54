"""Is an output directory up to date? ``kg build`` does nothing when nothing changed, as make.

After a build, kg records in its cache directory (``builds/``, beside the
extraction cache) a **request key** and the state of the output directory it
wrote. The key is a sha256 of everything the output is a function of: kg's
source (the package and its ontology files), the versions of the libraries it
runs on, the model's identity, the bytes of every input file, the taxonomy
file, the extraction settings, the read options and the validation mode. The
state is the size and modification time of every file under the output
directory.

The next build of the same request into the same directory finds the same key
and the same state, and keeps the output as it is: a no-change rebuild costs
reading and hashing the inputs. Anything else rebuilds: another input byte,
setting, kg or library version, or a file of the output touched since
(``kg view``, an editor, a store opened for writing). ``kg build --force``
rebuilds anyway; ``--no-cache`` (no cache, so no record) and
``--generated-at`` (the output holds the time) always rebuild.

Nothing is kept in the output directory itself, so two builds still give the
same bytes.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from collections.abc import Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

from kg.digest import InputDigest, installed_versions, sources_sha256
from kg.ingest import Skip
from kg.taxonomy import shipped_ontology
from kg.validate import ValidationReport, Violation

__all__ = ["request_key", "current", "record"]

_PACKAGE = Path(__file__).resolve().parent
_SOURCE_SUFFIXES = frozenset({".py", ".txt", ".tsv", ".json", ".ttl", ".js", ".css", ".html"})
#: Bump when what a record holds changes.
_SCHEMA = 1


def request_key(digest: InputDigest, extraction: str, options: Mapping[str, Any]) -> str | None:
    """The sha256 of everything a build's output is a function of, or None when an input
    is one that only reading can judge (:class:`~kg.digest.InputDigest`).

    Args:
        digest: The build's input files and taxonomy, hashed.
        extraction: The extraction key (:func:`kg.extract.extraction_key`: the
            model's identity, the extraction settings and code).
        options: The read options and validation mode, JSON-able.
    """
    if any(sha256 is None for _, sha256 in digest.files):
        return None
    parts = {
        "schema": _SCHEMA,
        "source": _source_digest(),
        "libraries": _library_versions(),
        "extraction": extraction,
        "inputs": [list(file) for file in digest.files],
        "taxonomy": digest.taxonomy[1],
        "options": options,
    }
    text = json.dumps(parts, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def current(cache_dir: Path, out_dir: Path, key: str) -> dict[str, Any] | None:
    """What the build that made ``out_dir`` reported, if the output is still up to date.

    Up to date means: the recorded key is ``key`` and every file under
    ``out_dir`` has the size and modification time it had when written.
    The report is the fields of that build's :class:`~kg.build.BuildResult`
    but its files, times and ``up_to_date``.
    """
    try:
        saved = json.loads(_record_path(cache_dir, out_dir).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(saved, dict) or saved.get("key") != key:
        return None
    if saved.get("state") != _state(out_dir):
        return None
    try:
        report = dict(saved["report"])
        shown = report["validation"]
        if shown is not None:
            violations = tuple(Violation(**v) for v in shown.pop("results"))
            report["validation"] = ValidationReport(**shown, results=violations)
        report["skipped"] = tuple(Skip(**s) for s in report["skipped"])
        report["warnings"] = tuple(report["warnings"])
        return report
    except (KeyError, TypeError, ValueError):
        return None


def record(cache_dir: Path, out_dir: Path, key: str, report: Mapping[str, Any]) -> None:
    """Record that ``out_dir``, as it is now, is the output of the request ``key``.

    ``report`` is the build's :class:`~kg.build.BuildResult` as a dict. Best
    effort: a cache that cannot be written only means that the next build
    rebuilds.
    """
    kept = {k: v for k, v in report.items() if k not in ("files", "seconds", "up_to_date")}
    saved = {"key": key, "state": _state(out_dir), "report": kept}
    path = _record_path(cache_dir, out_dir)
    text = json.dumps(saved, indent=1, default=str)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".record-")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(temp, path)
    except OSError:
        pass


def _record_path(cache_dir: Path, out_dir: Path) -> Path:
    name = hashlib.sha256(str(out_dir.resolve()).encode()).hexdigest()[:32]
    return Path(cache_dir) / "builds" / f"{name}.json"


def _state(directory: Path) -> dict[str, list[int]]:
    """Every file under ``directory``: its size and modification time in nanoseconds."""
    state: dict[str, list[int]] = {}
    for root, dirs, files in os.walk(directory):
        dirs.sort()
        for name in sorted(files):
            path = Path(root) / name
            try:
                info = path.stat()
            except OSError:
                continue
            state[str(path.relative_to(directory))] = [info.st_size, info.st_mtime_ns]
    return state


def _source_digest() -> str:
    roots = [_PACKAGE, shipped_ontology("kg.ttl").parent]
    return sources_sha256(
        (root, path)
        for root in roots
        for path in sorted(root.rglob("*"))
        if path.suffix in _SOURCE_SUFFIXES and "__pycache__" not in path.parts
    )


def _library_versions() -> dict[str, str]:
    """kg's version and that of each library it requires."""
    names = ["kg"]
    for requirement in metadata.requires("kg") or []:
        if "extra ==" not in requirement:
            names += re.findall(r"^[A-Za-z0-9][A-Za-z0-9._-]*", requirement)
    return installed_versions(names)
