"""The package's layout rules that import-linter does not check (it runs in scripts/lint).

No module imports a private name (a ``_module`` or a ``_name``) of another package; no package
of ``summem/`` (the root included) has a family of modules or subpackages sharing a prefix (a
package waiting to be named); no import cycle anywhere in ``summem/`` (layer contracts do not
look inside a layer; lazy imports in functions count); every backend under ``summem/stores/``
is in the top layer of the stores contract in pyproject.toml.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

import summem

if TYPE_CHECKING:
    import grimp

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


def _children(package: Path) -> list[str]:
    """A package's modules and subpackages by name (``stores/sqlite/`` counts as ``sqlite``)."""
    modules = [p.stem for p in package.glob("*.py")]
    return modules + [p.parent.name for p in package.glob("*/__init__.py")]


def test_no_package_has_prefix_families() -> None:
    found = {}
    for package in sorted({ROOT, *(p.parent for p in ROOT.rglob("__init__.py"))}):
        families = _prefix_families(_children(package))
        if families:
            found[str(package.relative_to(ROOT.parent))] = families
    assert found == {}, f"modules sharing a prefix: {found}"


def test_the_family_check_sees_a_family() -> None:
    names = ["__init__", "_sqlite_file", "_sqlite_rows", "sqlite", "memory", "base"]
    assert _prefix_families(names) == {"sqlite": 3}


def test_the_family_check_counts_subpackages(tmp_path: Path) -> None:
    (tmp_path / "sqlite").mkdir()
    (tmp_path / "sqlite" / "__init__.py").touch()
    (tmp_path / "sqlite_extra.py").touch()
    (tmp_path / "memory.py").touch()
    assert _prefix_families(_children(tmp_path)) == {"sqlite": 2}


# -- import cycles (grimp: the graph import-linter checks, lazy imports included) -----------


def _graph() -> grimp.ImportGraph:
    import grimp  # import-linter's graph library (a dev dependency), loaded when needed

    return grimp.build_graph("summem", cache_dir=None)  # no cache: the tree as it is now


def _cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.find_modules_directly_imported_by(nxt)))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def _describe(graph: grimp.ImportGraph, cycle: list[str]) -> str:
    a, b = cycle[0], cycle[1]
    there = graph.find_shortest_chain(importer=a, imported=b) or ()
    back = graph.find_shortest_chain(importer=b, imported=a) or ()
    return f"{' -> '.join(there)} and back {' -> '.join(back)} (all: {', '.join(cycle)})"


def test_summem_has_no_import_cycle() -> None:
    graph = _graph()
    assert len(graph.modules) > 100, "grimp did not see the package"
    cycles = [_describe(graph, c) for c in _cycles(graph)]
    assert cycles == [], "import cycles in summem/:\n" + "\n".join(cycles)


def test_the_cycle_check_sees_a_cycle() -> None:
    import grimp

    graph = grimp.ImportGraph()
    for importer, imported in [("p.a", "p.b"), ("p.b", "p.c"), ("p.c", "p.a"), ("p.c", "p.d")]:
        graph.add_import(importer=importer, imported=imported)
    graph.add_module("p.e")
    assert _cycles(graph) == [["p.a", "p.b", "p.c"]]


# -- the stores contract names every backend ------------------------------------------------

SHARED_BY_THE_BACKENDS = {"base", "url", "summary_log", "common", "adapter"}
STORES_CONTRACT = "stores: backends are independent, above one shared layer"


def _contract_layers(pyproject: str, name: str) -> list[str]:
    """The ``layers`` of the import-linter contract called ``name`` (a small reader: the
    oldest supported Python has no tomllib)."""
    lines = pyproject.splitlines()
    start = lines.index(f'name = "{name}"')
    opening = next(i for i in range(start, len(lines)) if lines[i].startswith("layers = ["))
    closing = next(i for i in range(opening, len(lines)) if lines[i].strip() == "]")
    text = "\n".join(lines[opening : closing + 1]).partition("=")[2]
    layers: list[str] = ast.literal_eval(text)  # a TOML array of strings reads as Python
    return layers


def _top_layer(pyproject: str) -> set[str]:
    top = _contract_layers(pyproject, STORES_CONTRACT)[0]
    return {name.strip() for name in top.split("|")}


def test_every_backend_is_in_the_top_layer_of_the_stores_contract() -> None:
    children = {m.rpartition(".")[2] for m in _graph().find_children("summem.stores")}
    backends = children - SHARED_BY_THE_BACKENDS
    pyproject = (ROOT.parent / "pyproject.toml").read_text(encoding="utf-8")
    assert backends and sorted(backends - _top_layer(pyproject)) == []


def test_the_contract_reader_reads_the_top_layer() -> None:
    pyproject = f"""
[[tool.importlinter.contracts]]
name = "{STORES_CONTRACT}"
type = "layers"
layers = [
  "memory | sqlite",  # the backends
  "base",
]
"""
    assert _top_layer(pyproject) == {"memory", "sqlite"}


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
