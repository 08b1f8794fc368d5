"""Names a package loads on first use (PEP 562), written once for every package that does.

``import summem`` and its subpackages stay light: no SDK, store backend or asyncio is imported
until one of their names is asked for. A package lists where each name lives and takes its
``__getattr__`` and ``__dir__`` from :func:`lazy_names`; a name is looked up once, then kept in
the package's namespace.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, MutableMapping
from typing import Any

__all__ = ["lazy_names"]


def lazy_names(
    namespace: MutableMapping[str, Any], homes: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of a package whose names load on first use.

    Args:
        namespace: the package's ``globals()``.
        homes: each lazy name's module: absolute, or relative to the package when it starts
            with a dot.
    """
    package = namespace["__name__"]

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = importlib.import_module(package + home if home.startswith(".") else home)
        value = getattr(module, name)
        namespace[name] = value  # later lookups skip this function
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(namespace.get("__all__", ())))

    return __getattr__, __dir__
