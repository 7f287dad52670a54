"""What a graph is a function of, as the record :func:`~kg.graph.to_rdf` writes in PROV-O."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime

import kg as _kg
from kg.digest import InputDigest
from kg.graph.edges import EdgeRule
from kg.model import ModelIdentity, Paper

__all__ = ["Provenance", "make_provenance"]


@dataclass(frozen=True)
class Provenance:
    """What generated a graph, written with PROV-O by :func:`to_rdf`.

    Attributes:
        kg_version: The version of kg that built the graph.
        model: The embedding model's name.
        model_sha256: The sha256 of its weights, when they were checked.
        inputs: ``(path as given, sha256)`` of every input file.
        taxonomy: ``(path, sha256)`` of the field taxonomy file.
        settings: ``(name, value)`` of every setting results depend on.
        generated_at: When the graph was generated; None leaves the time out,
            so that two builds of the same input are byte-identical (see the
            manual, docs/reference/output.md: ``--generated-at`` or ``SOURCE_DATE_EPOCH``).
        title: A one-line description ("kg: 37 NeurIPS 2026 papers").
    """

    kg_version: str
    model: str
    model_sha256: str | None = None
    inputs: tuple[tuple[str, str], ...] = ()
    taxonomy: tuple[str, str] | None = None
    settings: tuple[tuple[str, bool | int | float | str], ...] = ()
    generated_at: datetime | None = None
    title: str = ""

    @property
    def build_id(self) -> str:
        """A digest of everything recorded: equal for builds of the same input and settings."""
        record = {
            "kg": self.kg_version,
            "model": [self.model, self.model_sha256],
            "inputs": sorted(self.inputs),
            "taxonomy": self.taxonomy,
            "settings": sorted(self.settings),
            "at": self.generated_at.isoformat() if self.generated_at else None,
        }
        text = json.dumps(record, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def make_provenance(
    papers: Sequence[Paper],
    model: ModelIdentity,
    inputs: InputDigest,
    settings: Mapping[str, bool | int | float | str],
    rule: EdgeRule,
    generated_at: datetime | None,
    title: str = "",
) -> Provenance:
    """What the graph is a function of: kg, the model, the input files the papers were read
    from and the taxonomy (``inputs``, hashed once for the build), the knobs (``settings``:
    the extraction's, by name)."""
    hashes = dict(inputs.files)
    files = dict.fromkeys(p.source.rpartition(":")[0] or p.source for p in papers if p.source)
    read = tuple((name, sha256) for name in files if (sha256 := hashes.get(name)))
    knobs = [(f"extract.{k}", v) for k, v in settings.items()]
    knobs += [(f"edges.{k}", v) for k, v in asdict(rule).items()]
    return Provenance(
        kg_version=_kg.__version__,
        model=model.name,
        model_sha256=model.sha256,
        inputs=read,
        taxonomy=inputs.taxonomy,
        settings=tuple(sorted(knobs)),
        generated_at=generated_at,
        title=title,
    )
