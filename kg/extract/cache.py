"""An on-disk cache of each paper's extraction, so a rebuild extracts only what changed.

A paper's mentions are a pure function of what extraction reads of it (title,
cleaned abstract, author keywords) and of the extraction itself: the settings,
the taxonomy, the model, kg's extraction code and word lists, and the
libraries that compute with them. Each entry is keyed by a sha256 of both, so
a changed abstract misses only for its paper and a changed setting, taxonomy,
model or extraction code misses for every paper. The concept merge and
everything after it work across papers and are always recomputed.

The cache is one SQLite database (``extractions.sqlite3``) in
:func:`default_cache_dir`. SQLite commits each batch of entries atomically
and its write-ahead log survives a killed process, so a build stopped at any
point leaves every entry committed before it valid; concurrent builds share
the file safely. An entry that cannot be read back is a miss; a cache that
can be read but not written (a read-only file or directory) is read, with a
warning that new entries are not stored; one that cannot be opened, or fails
part-way, is skipped with a warning: the cache can make a build faster, never
make it fail.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import sqlite3
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from kg.defaults import EXTRACT_BATCH
from kg.digest import installed_versions, sources_sha256
from kg.model import Mention, ModelIdentity, Paper, Role
from kg.taxonomy import Taxonomy

if TYPE_CHECKING:
    from kg.extract.executors import Executor
    from kg.extract.extractor import Settings

__all__ = [
    "CACHE_FILE",
    "SCHEMA",
    "CacheStats",
    "ExtractionCache",
    "default_cache_dir",
    "extract_cached",
    "extraction_key",
    "paper_key",
]

#: Version of the stored form of an entry; part of every key.
SCHEMA = 4
#: The database's name inside the cache directory.
CACHE_FILE = "extractions.sqlite3"
# Sources whose every byte can change a paper's mentions: the extraction code,
# its shipped models, the word lists, text cleaning and the records.
_PACKAGE = Path(__file__).resolve().parents[1]
_CODE = ("extract", "lexicon", "text", "model.py")
_CODE_SUFFIXES = frozenset({".py", ".txt", ".tsv", ".json"})
# Libraries whose version can change the numbers extraction computes.
_LIBRARIES = (
    "kg",
    "keybert",
    "sentence-transformers",
    "transformers",
    "torch",
    "scikit-learn",
    "numpy",
    "scipy",
    "wordfreq",
)


def default_cache_dir() -> Path:
    """``$KG_CACHE_DIR``, else ``$XDG_CACHE_HOME/kg``, else ``~/.cache/kg``."""
    if os.environ.get("KG_CACHE_DIR"):
        return Path(os.environ["KG_CACHE_DIR"])
    if os.environ.get("XDG_CACHE_HOME"):
        return Path(os.environ["XDG_CACHE_HOME"]) / "kg"
    return Path.home() / ".cache" / "kg"


@lru_cache(maxsize=1)
def _code_digest() -> str:
    files = []
    for part in _CODE:
        root = _PACKAGE / part
        found = [root] if root.is_file() else sorted(root.rglob("*"))
        files += [
            (_PACKAGE, f)
            for f in found
            if f.is_file() and f.suffix in _CODE_SUFFIXES and "__pycache__" not in f.parts
        ]
    return sources_sha256(files)


def extraction_key(model: ModelIdentity, taxonomy: Taxonomy, settings: Settings) -> str:
    """A sha256 of everything but the paper that a paper's mentions depend on
    (``model``: :func:`~kg.extract.embed.model_identity` of the embedder)."""
    parts = {
        "schema": SCHEMA,
        "code": _code_digest(),
        "libraries": installed_versions(_LIBRARIES),
        "model": model.key,
        "settings": dataclasses.asdict(settings),
        "taxonomy": [repr(taxonomy.fields), sorted(taxonomy.targets.items())],
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def paper_key(extraction: str, paper: Paper) -> str:
    """The cache key of one paper: what extraction reads of it, under ``extraction``.

    The id, authors, year and venue are not read by extraction, so a record
    that gains a DOI or an author keeps its entry.
    """
    content = [extraction, paper.title, paper.text, list(paper.keywords)]
    return hashlib.sha256(json.dumps(content).encode()).hexdigest()


def _encode(mentions: Sequence[Mention]) -> str:
    """The stored entry: the sha256 of its JSON (64 hex digits), then the JSON.

    SQLite checks no page's content, so a changed byte that still reads as
    JSON (a score's digit, a letter of the evidence) is caught by the digest.
    """
    text = json.dumps(
        [
            [
                m.text,
                m.role.value,
                m.score,
                m.sentence,
                m.expansion,
                m.selected,
                m.topic,
                m.salience,
            ]
            for m in mentions
        ],
        ensure_ascii=False,
    )
    return hashlib.sha256(text.encode()).hexdigest() + text


def _decode(value: Any) -> tuple[Mention, ...]:
    """An entry's mentions; ValueError, TypeError or KeyError if it is not one."""
    if not isinstance(value, str):
        raise TypeError("not text")
    digest, text = value[:64], value[64:]
    if hashlib.sha256(text.encode()).hexdigest() != digest:
        raise ValueError("the entry does not match its sha256")
    rows = json.loads(text)
    if not isinstance(rows, list):
        raise TypeError("not a list")
    mentions = []
    for text, role, score, sentence, expansion, selected, topic, salience in rows:
        if not (
            isinstance(text, str)
            and isinstance(score, int | float)
            and isinstance(sentence, str)
            and (expansion is None or isinstance(expansion, str))
            and isinstance(selected, bool)
            and (topic is None or isinstance(topic, str))
            and (salience is None or isinstance(salience, int | float))
        ):
            raise TypeError("a field has the wrong type")
        mentions.append(
            Mention(text, Role(role), score, sentence, expansion, selected, topic, salience)
        )
    return tuple(mentions)


def _vectors_encoded(vectors: Mapping[str, np.ndarray]) -> bytes:
    """Texts and their vectors as one blob: the sha256 of the rest, the length of a JSON
    header (8 bytes) naming the texts and the vectors' dtype, the header, then the
    vectors' bytes, a row per text (as the embedder gave them, so they read back equal)."""
    matrix = np.stack([np.asarray(v) for v in vectors.values()])
    if matrix.ndim != 2 or matrix.dtype.kind != "f":
        raise ValueError("not float vectors of one length")
    header = {"texts": list(vectors), "dtype": matrix.dtype.str}
    head = json.dumps(header, ensure_ascii=False).encode("utf-8")
    rest = len(head).to_bytes(8, "little") + head + matrix.tobytes()
    return hashlib.sha256(rest).digest() + rest


def _vectors_decoded(blob: Any) -> dict[str, np.ndarray]:
    """What :func:`_vectors_encoded` stored; ValueError or TypeError if it is not that."""
    if not isinstance(blob, bytes) or len(blob) < 40:
        raise TypeError("not a blob of vectors")
    digest, rest = blob[:32], blob[32:]
    if hashlib.sha256(rest).digest() != digest:
        raise ValueError("the vectors do not match their sha256")
    size = int.from_bytes(rest[:8], "little")
    header = json.loads(rest[8 : 8 + size].decode("utf-8"))
    texts = header["texts"]
    dtype = np.dtype(header["dtype"])
    if dtype.kind != "f" or not isinstance(texts, list) or not texts:
        raise ValueError("not texts and float vectors")
    data = np.frombuffer(rest[8 + size :], dtype=dtype)
    if data.size % len(texts):
        raise ValueError("the vectors do not fit their texts")
    matrix = data.reshape(len(texts), -1).copy()
    return {str(t): row for t, row in zip(texts, matrix, strict=True)}


@dataclass
class CacheStats:
    """How a build used the cache: papers reused and extracted, and any problem."""

    reused: int = 0
    extracted: int = 0
    problems: list[str] = field(default_factory=list)


class ExtractionCache:
    """The SQLite file of extraction entries in ``directory``.

    A problem opening, reading or writing it is recorded in
    :attr:`problem`; nothing raises. A cache that cannot be written is
    still read; any other problem turns the cache off for the rest of the build.
    """

    def __init__(self, directory: str | Path) -> None:
        self.path = Path(directory) / CACHE_FILE
        self.problem: str | None = None
        self._db: sqlite3.Connection | None = None
        self._unwritable: Exception | None = None  # why entries cannot be stored
        try:
            self._db = self._open()
        except (OSError, sqlite3.Error) as exc:
            try:
                self._db = self._open_read_only()
            except (OSError, sqlite3.Error):
                self._fail("cannot be opened", exc)
            else:
                self._unwritable = exc

    def _open(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute(
                "CREATE TABLE IF NOT EXISTS entries"
                " (key TEXT PRIMARY KEY, mentions TEXT NOT NULL) WITHOUT ROWID"
            )
            db.execute(
                "CREATE TABLE IF NOT EXISTS prepared"
                " (key TEXT PRIMARY KEY, vectors BLOB NOT NULL) WITHOUT ROWID"
            )
        except sqlite3.Error:
            db.close()
            raise
        return db

    def _open_read_only(self) -> sqlite3.Connection:
        """The file opened for reading only: ``immutable``, since a directory that cannot be
        written cannot hold the shared-memory file a reader of the write-ahead log needs."""
        uri = f"{self.path.absolute().as_uri()}?mode=ro&immutable=1"
        db = sqlite3.connect(uri, uri=True, isolation_level=None)
        try:
            db.execute("SELECT key FROM entries LIMIT 1").fetchall()
        except sqlite3.Error:
            db.close()
            raise
        return db

    def _fail(self, what: str, exc: Exception) -> None:
        self.problem = (
            f"the extraction cache {self.path} {what} ({exc}); building without it "
            "(delete the file, or pass --cache-dir or --no-cache)"
        )
        self.close()

    def _not_stored(self, exc: Exception) -> None:
        """Say once that this build's new entries are not stored; reading goes on."""
        self._unwritable = exc
        if self.problem is None:
            self.problem = (
                f"the extraction cache {self.path} cannot be written ({exc}); its entries are "
                "used, but the papers this build extracted are not stored (make it writable, "
                "or pass --cache-dir for one that is)"
            )

    def get(self, keys: Iterable[str]) -> dict[str, tuple[Mention, ...]]:
        """The entries of ``keys`` that are present and readable."""
        wanted = list(dict.fromkeys(keys))
        found: dict[str, tuple[Mention, ...]] = {}
        if self._db is None:
            return found
        try:
            for start in range(0, len(wanted), 500):  # SQLite's limit on parameters
                chunk = wanted[start : start + 500]
                marks = ",".join("?" * len(chunk))
                rows = self._db.execute(
                    f"SELECT key, mentions FROM entries WHERE key IN ({marks})", chunk
                ).fetchall()
                for key, value in rows:
                    # Unreadable: a miss, overwritten when the paper is extracted again.
                    with suppress(ValueError, TypeError, KeyError):
                        found[key] = _decode(value)
        except sqlite3.Error as exc:
            self._fail("cannot be read", exc)
        return found

    def put(self, entries: Mapping[str, Sequence[Mention]]) -> None:
        """Store ``entries`` in one transaction: all of them or, if killed, none."""
        if self._db is None or not entries:
            return
        if self._unwritable is not None:
            self._not_stored(self._unwritable)
            return
        try:
            with self._db:
                self._db.execute("BEGIN IMMEDIATE")
                self._db.executemany(
                    "INSERT OR REPLACE INTO entries (key, mentions) VALUES (?, ?)",
                    ((key, _encode(mentions)) for key, mentions in entries.items()),
                )
        except sqlite3.Error as exc:
            if getattr(exc, "sqlite_errorcode", 0) & 0xFF == sqlite3.SQLITE_READONLY:
                self._not_stored(exc)  # a file without write permission
            else:
                self._fail("cannot be written", exc)

    def prepared(self, extraction: str) -> dict[str, np.ndarray] | None:
        """The vectors an extractor's set-up embedded under ``extraction`` (its
        :attr:`~kg.extract.extractor.Extractor.prepared`), if stored and readable. They only
        save time: a row that cannot be read is a miss, and the cache stays on."""
        if self._db is None:
            return None
        try:
            row = self._db.execute(
                "SELECT vectors FROM prepared WHERE key = ?", (extraction,)
            ).fetchone()
        except sqlite3.Error:  # a cache of an older kg opened read-only has no such table
            return None
        if row is None:
            return None
        with suppress(ValueError, TypeError, KeyError):
            return _vectors_decoded(row[0])
        return None

    def put_prepared(self, extraction: str, vectors: Mapping[str, np.ndarray]) -> None:
        """Store an extractor's set-up vectors under ``extraction``. Vectors that are not
        float rows of one length, or a row that cannot be written, are left out without a
        word: the next build embeds them again, and the papers' entries are stored as ever."""
        if self._db is None or self._unwritable is not None or not vectors:
            return
        try:
            blob = _vectors_encoded(vectors)
        except (ValueError, TypeError):  # an embedder's own vectors that fit no matrix
            return
        with suppress(sqlite3.Error), self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO prepared (key, vectors) VALUES (?, ?)",
                (extraction, blob),
            )

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def __enter__(self) -> ExtractionCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def extract_cached(
    papers: Sequence[Paper],
    executor: Executor,
    cache: ExtractionCache | None,
    extraction: str,
    progress: Callable[[int], None] | None = None,
    batch_size: int = EXTRACT_BATCH,
) -> tuple[dict[str, tuple[Mention, ...]], CacheStats]:
    """Each paper's mentions, in input order, from ``cache`` where it has them.

    The missing papers go to ``executor`` in batches of ``batch_size`` (the
    same batches whatever runs them), and every batch's result is stored as
    soon as it comes back.

    Args:
        papers: The papers, in input order.
        executor: Runs the extraction of the missing papers (:mod:`kg.extract.executors`).
        cache: Where entries are read and stored; None extracts everything.
        extraction: :func:`extraction_key` of the extractor the executor runs.
        progress: Called with the number of papers done since the last call.
        batch_size: Papers extracted (and stored) together.
    """
    stats = CacheStats()
    keys = [paper_key(extraction, p) for p in papers]
    known = cache.get(keys) if cache is not None else {}
    # Papers of the same content are extracted once.
    missing = list({k: p for p, k in zip(papers, keys, strict=True) if k not in known}.items())
    stats.reused = sum(1 for k in keys if k in known)
    batches = [missing[start : start + batch_size] for start in range(0, len(missing), batch_size)]
    new: dict[str, tuple[Mention, ...]] = {}
    told = 0  # papers of the running batch the executor reported itself
    # The reused papers are reported with the executor's first report: until then it
    # loads the model, and a bar standing at the reused count for that long looks stuck.
    unreported = stats.reused

    def tell(n: int) -> None:
        nonlocal unreported
        if progress:
            progress(n + unreported)
        unreported = 0

    def partly(n: int) -> None:
        nonlocal told
        told += n
        tell(n)

    if not batches and stats.reused:
        tell(0)

    to_map = [[p for _, p in batch] for batch in batches]
    for i, result in executor.map(to_map, partly) if progress else executor.map(to_map):
        entries = {key: result[p.id] for key, p in batches[i]}
        new.update(entries)
        if cache is not None:
            cache.put(entries)
        if len(entries) > told:
            tell(len(entries) - told)
        told = 0
    stats.extracted = len(missing)
    if len(papers) > stats.reused + stats.extracted:  # same-content papers
        tell(len(papers) - stats.reused - stats.extracted)
    if cache is not None and cache.problem:
        stats.problems.append(cache.problem)
    out = {}
    for paper, key in zip(papers, keys, strict=True):
        out[paper.id] = known[key] if key in known else new[key]
    return out, stats
