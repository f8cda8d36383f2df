"""pyproject.toml declares what app/ imports: every third-party module app/ imports (lazily too)
comes from a declared distribution, and a module imported when app/ loads comes from a core
dependency, not an optional extra."""

from __future__ import annotations

import ast
import functools
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "app"

# Declared without app/ importing them, each for a reason pyproject.toml gives.
DECLARED_UNIMPORTED = {
    "sniffio": "httpcore imports it on every request if present (a failed import costs CPU)",
}


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement_name(requirement: str) -> str:
    match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement)
    assert match is not None, requirement
    return _normalise(match.group(0))


def _declared() -> tuple[list[str], dict[str, list[str]]]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    core = [_requirement_name(r) for r in project["dependencies"]]
    extras = {
        extra: [_requirement_name(r) for r in requirements]
        for extra, requirements in project["optional-dependencies"].items()
    }
    return core, extras


def third_party_imports(root: Path) -> dict[str, set[str]]:
    """Top-level third-party module -> where it is imported ('load' when the importing file's
    module body does it, 'lazy' when only a function does)."""
    found: dict[str, set[str]] = {}
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        lazy: set[int] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lazy.update(id(inner) for inner in ast.walk(node) if inner is not node)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top in sys.stdlib_module_names or top in ("__future__", root.name):
                    continue
                found.setdefault(top, set()).add("lazy" if id(node) in lazy else "load")
    return found


@functools.cache
def _providers() -> dict[str, list[str]]:
    return importlib.metadata.packages_distributions()


def _distributions(module: str) -> list[str]:
    return [_normalise(d) for d in _providers().get(module, [])]


def test_every_third_party_import_of_app_is_declared() -> None:
    core, extras = _declared()
    in_extras = {name for names in extras.values() for name in names}
    problems = []
    for module, where in sorted(third_party_imports(APP).items()):
        dists = _distributions(module)
        if not dists:
            problems.append(f"{module}: imported by app/ but no installed distribution provides it")
        elif not any(d in core for d in dists):
            if "load" in where:
                problems.append(
                    f"{module} ({dists[0]}): imported when app/ loads, not a dependency"
                )
            elif not any(d in in_extras for d in dists):
                problems.append(f"{module} ({dists[0]}): imported by app/, declared nowhere")
    assert not problems, "\n".join(problems)


def test_every_dependency_is_imported_or_says_why() -> None:
    core, _extras = _declared()
    imported = {d for module in third_party_imports(APP) for d in _distributions(module)}
    stale = [name for name in core if name not in imported and name not in DECLARED_UNIMPORTED]
    assert not stale, f"declared but never imported by app/: {stale}"


def test_each_requirement_is_listed_once() -> None:
    core, extras = _declared()
    names = core + [name for listed in extras.values() for name in listed]
    assert sorted(n for n in set(names) if names.count(n) > 1) == []


def test_the_scan_sees_lazy_imports_and_tells_them_from_module_level(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "a.py").write_text(
        "import os\nimport numpy.linalg\nfrom pkg import b\n\n"
        "def later():\n    from ray.util import x\n    import yaml\n\n"
        "class C:\n    async def m(self):\n        import toml\n",
        encoding="utf-8",
    )
    assert third_party_imports(pkg) == {
        "numpy": {"load"},
        "ray": {"lazy"},
        "yaml": {"lazy"},
        "toml": {"lazy"},
    }
