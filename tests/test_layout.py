"""The package layout rule: data flows one way through the stages.

Every module of ``kg/`` belongs to a unit: a ground-floor module, a stage
package, or one of the modules on top. A unit may import

- its own modules freely;
- another unit only by that unit's public name (``kg.extract``, never
  ``kg.extract.candidates``), and only if that unit is ranked lower;
- the ground floor (ranked lowest) from anywhere.

Only ``kg.cli`` prints or exits. The manual's development page
(docs/development.md, "The dependency rule") states the same rule. One
exception: the package itself (``kg/__init__.py``) may import a unit's public
name inside a function, which is how ``kg.load_graph`` is offered lazily to
analytics scripts without making ``import kg`` load every stage.
"""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Lower rank first. Units of one rank may not import each other (the ground
# floor excepted: its modules are the shared vocabulary of all the others).
RANKS: tuple[tuple[str, ...], ...] = (
    (
        "kg",
        "kg.model",
        "kg.errors",
        "kg.lexicon",
        "kg.text",
        "kg.taxonomy",
        "kg.vocab",
        "kg.terms",
        "kg.offline",
        "kg.digest",
        "kg.defaults",
        "kg.attrs",
        "kg.words",
    ),
    ("kg.ingest",),
    ("kg.extract",),
    ("kg.concepts",),
    ("kg.graph",),
    ("kg.validate",),
    ("kg.export",),
    ("kg.query", "kg.evaluate"),
    ("kg.freshness",),
    ("kg.build",),
    ("kg.cli",),
)
RANK = {unit: rank for rank, units in enumerate(RANKS) for unit in units}
PRINTING = {"print", "exit", "quit"}


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def unit_of(module: str) -> str:
    """The unit a module belongs to: the longest ranked name it starts with."""
    best = "kg"
    for unit in RANK:
        if (module == unit or module.startswith(unit + ".")) and len(unit) > len(best):
            best = unit
    return best


def imported(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
            # "from kg import export" names a unit too
            if node.module == "kg":
                found += [(node.lineno, f"kg.{alias.name}") for alias in node.names]
    return [(line, name) for line, name in found if name == "kg" or name.startswith("kg.")]


def lazy_lines(tree: ast.AST) -> set[int]:
    """Lines of imports inside a function body."""
    return {
        node.lineno
        for func in ast.walk(tree)
        if isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef)
        for node in ast.walk(func)
        if isinstance(node, ast.Import | ast.ImportFrom)
    }


def violations(root: Path) -> list[str]:
    """Every forbidden import and every print/exit outside the CLI, as "file:line: why"."""
    problems = []
    for path in sorted((root / "kg").rglob("*.py")):
        module = module_name(path, root)
        unit = unit_of(module)
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        where = path.relative_to(root)
        lazy = lazy_lines(tree) if module == "kg" else set()
        for line, target in imported(tree):
            other = unit_of(target)
            if other == unit or target == "kg":
                continue
            if line in lazy and target == other:
                continue  # the package's lazy facade: kg.load_graph
            if RANK[other] == 0 and RANK[unit] == 0:
                continue  # the ground floor's modules may use each other
            if target != other:
                problems.append(f"{where}:{line}: imports {target}, an internal of {other}")
            elif RANK[other] >= RANK[unit]:
                problems.append(f"{where}:{line}: {unit} imports {other}, which is not below it")
        if unit != "kg.cli":
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and _called(node) in PRINTING | {
                    "sys.exit",
                    "click.echo",
                }:
                    problems.append(f"{where}:{node.lineno}: {_called(node)}() outside kg.cli")
    return problems


def _called(node: ast.Call) -> str:
    f = node.func
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
        return f"{f.value.id}.{f.attr}"
    return ""


def test_every_module_belongs_to_a_ranked_unit():
    for path in (ROOT / "kg").rglob("*.py"):
        module = module_name(path, ROOT)
        assert unit_of(module) != "kg" or module in {"kg"}, module


def test_the_package_follows_the_layout_rule():
    assert violations(ROOT) == []


@pytest.mark.parametrize(
    "module, line, expected",
    [
        ("kg/graph/rdf.py", "from kg.build import build", "kg.graph imports kg.build"),
        (
            "kg/concepts/merge.py",
            "from kg.extract.candidates import Candidate",
            "an internal of kg.extract",
        ),
        ("kg/query/sparql.py", "import kg.evaluate", "kg.query imports kg.evaluate"),
        ("kg/lexicon/__init__.py", "from kg.extract import Extractor", "not below it"),
        ("kg/graph/edges.py", "print('hello')", "print() outside kg.cli"),
        ("kg/__init__.py", "from kg.query import load_graph", "kg imports kg.query"),
        (
            "kg/__init__.py",
            "def f():\n    from kg.query.store import open_store",
            "an internal of kg.query",
        ),
    ],
)
def test_a_forbidden_import_is_caught(tmp_path, module, line, expected):
    shutil.copytree(ROOT / "kg", tmp_path / "kg", ignore=shutil.ignore_patterns("__pycache__"))
    target = tmp_path / module
    target.write_text(target.read_text(encoding="utf-8") + f"\n{line}\n", encoding="utf-8")
    found = violations(tmp_path)
    assert len(found) == 1 and expected in found[0], found
