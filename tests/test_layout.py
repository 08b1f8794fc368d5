"""The package's layout rules that import-linter does not check (it runs in scripts/lint).

No module imports a private name (a ``_module`` or a ``_name``) of another package; no package
of ``summem/`` (the root included) has a family of modules sharing a prefix (a package waiting
to be named).
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import summem

ROOT = Path(summem.__file__).resolve().parent


def _package_of(module: str, is_package: bool) -> str:
    return module if is_package else module.rpartition(".")[0]


def _modules() -> list[tuple[str, str, bool]]:
    """(dotted name, source, is a package) for every module of summem."""
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        found.append((".".join(parts), path.read_text(encoding="utf-8"), is_package))
    return found


def _private_imports(modules: list[tuple[str, str, bool]]) -> list[str]:
    problems = []
    for module, source, is_package in modules:
        here = _package_of(module, is_package)
        for node in ast.walk(ast.parse(source)):
            if not isinstance(node, ast.ImportFrom) or not node.module:
                continue
            if not node.module.startswith("summem"):
                continue
            target = node.module
            for name in (a.name for a in node.names):
                parts = target.split(".")
                owner: str | None = None
                # the first private part, and the package that owns it
                for i, part in enumerate(parts):
                    if part.startswith("_") and not part.startswith("__"):
                        owner = ".".join(parts[:i])
                        break
                else:
                    owner = target if name.startswith("_") else None
                if owner is None:
                    continue
                # private to a package: its own modules (and subpackages) may use it; the
                # root's private modules (_flow, _secrets, _yaml...) are the shared bottom layer
                if owner == "summem" or here == owner or here.startswith(owner + "."):
                    continue
                problems.append(f"{module} imports {target}:{name} (private to {owner})")
    return problems


def test_no_module_imports_a_private_name_of_another_package() -> None:
    assert _private_imports(_modules()) == []


def _prefix_families(names: list[str]) -> dict[str, int]:
    """Prefixes (``_sqlite_file`` -> ``sqlite``) that more than one module name shares."""
    prefixes = Counter(n.lstrip("_").split("_")[0] for n in names if n not in _NOT_A_FAMILY)
    return {p: n for p, n in prefixes.items() if n > 1}


_NOT_A_FAMILY = {"__init__", "__main__"}


def test_no_package_has_prefix_families() -> None:
    found = {}
    for package in sorted({ROOT, *(p.parent for p in ROOT.rglob("__init__.py"))}):
        families = _prefix_families([p.stem for p in package.glob("*.py")])
        if families:
            found[str(package.relative_to(ROOT.parent))] = families
    assert found == {}, f"modules sharing a prefix: {found}"


def test_the_family_check_sees_a_family() -> None:
    names = ["__init__", "_sqlite_file", "_sqlite_rows", "sqlite", "memory", "base"]
    assert _prefix_families(names) == {"sqlite": 3}


def test_the_checker_tells_private_imports_across_packages_from_inside_one() -> None:
    source = "from summem.stores.sqlite._wal import SQL\nfrom summem.reducers.cut import _x\n"
    outside = _private_imports([("summem.session.core", source, False)])
    assert outside == [
        "summem.session.core imports summem.stores.sqlite._wal:SQL"
        " (private to summem.stores.sqlite)",
        "summem.session.core imports summem.reducers.cut:_x (private to summem.reducers.cut)",
    ]
    inside = _private_imports([("summem.stores.sqlite.store", source.splitlines()[0], False)])
    assert inside == []
    shared = _private_imports([("summem.session.core", "from summem._flow import Flow", False)])
    assert shared == []
