"""The package's layout rules that import-linter does not check (it runs in scripts/lint).

No module imports a private name (a ``_module`` or a ``_name``) of another package; the root
of ``summem/`` has no family of modules sharing a prefix (a package waiting to be named).
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


def test_the_root_has_no_prefix_families() -> None:
    names = [p.stem for p in ROOT.glob("*.py") if p.stem != "__init__" and p.stem != "__main__"]
    prefixes = Counter(n.lstrip("_").split("_")[0] for n in names)
    families = {p: n for p, n in prefixes.items() if n > 1}
    assert families == {}, f"modules sharing a prefix at the root: {families}"


def test_the_checker_tells_private_imports_across_packages_from_inside_one() -> None:
    source = "from summem.stores._sqlite_schema import SQL\nfrom summem.reducers.cut import _x\n"
    outside = _private_imports([("summem.session.core", source, False)])
    assert outside == [
        "summem.session.core imports summem.stores._sqlite_schema:SQL (private to summem.stores)",
        "summem.session.core imports summem.reducers.cut:_x (private to summem.reducers.cut)",
    ]
    inside = _private_imports([("summem.stores.sqlite", source.splitlines()[0], False)])
    assert inside == []
    shared = _private_imports([("summem.session.core", "from summem._flow import Flow", False)])
    assert shared == []
