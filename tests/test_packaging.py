"""What an installed kg needs beyond its code: the ontology, taxonomy, models and view assets."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from kg.taxonomy import DEFAULT_TAXONOMY, shipped_ontology

ROOT = Path(__file__).resolve().parents[1]


def test_shipped_ontology_resolves_in_a_checkout_and_in_a_wheel_layout(tmp_path: Path) -> None:
    assert DEFAULT_TAXONOMY == ROOT / "ontology" / "fields.ttl"
    package = tmp_path / "site-packages" / "kg"
    (package / "ontology").mkdir(parents=True)
    (package / "ontology" / "fields.ttl").write_text("# installed copy\n")
    assert shipped_ontology("fields.ttl", package) == package / "ontology" / "fields.ttl"


@pytest.mark.timeout(300)
def test_the_wheel_carries_every_data_file(tmp_path: Path) -> None:
    source = tmp_path / "src"  # setuptools builds in the source tree: build a copy
    for name in ("kg", "ontology"):
        shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation"]
        + ["--disable-pip-version-check", "--wheel-dir", str(tmp_path), str(source)],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("kg-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    wanted = {f"kg/ontology/{p.name}" for p in (ROOT / "ontology").glob("*.ttl")}
    wanted |= {
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / "kg").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert {"kg/ontology/fields.ttl", "kg/ontology/kg.ttl", "kg/lexicon/verbs.txt"} <= wanted
    assert wanted <= names, sorted(wanted - names)
