"""Read-only JSON containers, so ``messages()`` can hand out the cached view without copying it.

``messages()`` runs every turn. Deep-copying the whole view each time cost about a third of a
turn, only so that a caller changing a dict could not corrupt the memory. Instead each message
is rendered once into a :class:`ReadOnlyDict` (its nested lists and dicts read-only too) and the
same objects are handed out on every call, in a fresh ``list``:

- the list is the caller's: append, slice, reorder or sort it freely;
- the message dicts in it are shared and read-only: assigning to them (or to anything nested
  in them) raises ``TypeError``; ``dict(m)`` gives a shallow mutable copy, ``copy.deepcopy(m)``
  (or :func:`thaw`) a fully mutable one.

Both types subclass ``dict`` and ``list``: ``json.dumps``, the openai SDK, pydantic and
``isinstance(m, dict)`` checks accept them as they are, and pickling or copying them gives
plain dicts and lists. Serialisers that accept only the exact types (``yaml.safe_dump``) need
a copy first.
"""

from __future__ import annotations

from typing import Any, NoReturn, SupportsIndex

__all__ = ["NotPlainJSONError", "ReadOnlyDict", "ReadOnlyList", "freeze", "freeze_plain", "thaw"]

_HINT = "messages() returns shared read-only dicts; copy one first: dict(m) or copy.deepcopy(m)"


def _refuse(*_args: object, **_kwargs: object) -> NoReturn:
    raise TypeError(_HINT)


class ReadOnlyDict(dict[str, Any]):
    """A ``dict`` that refuses every change (see the module docstring)."""

    __slots__ = ()
    __setitem__ = __delitem__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __ior__(self, other: object) -> NoReturn:  # type: ignore[misc]
        _refuse()

    def copy(self) -> dict[str, Any]:
        """A shallow, mutable copy (nested values stay read-only)."""
        return dict(self)

    def __copy__(self) -> dict[str, Any]:
        return dict(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        thawed: dict[str, Any] = thaw(self)
        return thawed

    def __reduce__(self) -> tuple[type[dict[str, Any]], tuple[dict[str, Any]]]:
        return dict, (thaw(self),)


class ReadOnlyList(list[Any]):
    """A ``list`` that refuses every change (see the module docstring)."""

    __slots__ = ()
    __setitem__ = __delitem__ = _refuse
    append = clear = extend = insert = pop = remove = reverse = sort = _refuse

    def __iadd__(self, other: object) -> NoReturn:  # type: ignore[misc]
        _refuse()

    def __imul__(self, other: SupportsIndex) -> NoReturn:
        _refuse()

    def copy(self) -> list[Any]:
        """A shallow, mutable copy (nested values stay read-only)."""
        return list(self)

    def __copy__(self) -> list[Any]:
        return list(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        thawed: list[Any] = thaw(self)
        return thawed

    def __reduce__(self) -> tuple[type[list[Any]], tuple[list[Any]]]:
        return list, (thaw(self),)


_SCALARS = frozenset((str, int, float, bool, type(None)))


def freeze(value: Any) -> Any:
    """``value`` (JSON-like data) with every dict and list made read-only, scalars shared."""
    if isinstance(value, (ReadOnlyDict, ReadOnlyList)):
        return value  # read-only all the way down already
    scalars = _SCALARS  # scalars are kept without a call: a message is mostly scalars
    if isinstance(value, dict):
        return ReadOnlyDict({k: v if type(v) in scalars else freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return ReadOnlyList([v if type(v) in scalars else freeze(v) for v in value])
    return value


class NotPlainJSONError(Exception):
    """Raised by :func:`freeze_plain` on a value that is not plain JSON data."""


_PLAIN = frozenset((str, int, float, bool, type(None)))


def freeze_plain(value: Any) -> Any:
    """:func:`freeze` for plain JSON data only.

    Only the exact ``dict``, ``list``, ``tuple`` and scalar types are taken; anything else (a
    subclass, a model, another mapping type) raises :class:`NotPlainJSONError`, for the
    caller to take a slower path.
    """
    kind = type(value)
    plain = _PLAIN
    if kind is dict:
        items = value.items()
        return ReadOnlyDict({k: v if type(v) in plain else freeze_plain(v) for k, v in items})
    if kind is list or kind is tuple:
        return ReadOnlyList([v if type(v) in plain else freeze_plain(v) for v in value])
    if kind in plain:
        return value
    raise NotPlainJSONError(kind.__name__)


def thaw(value: Any) -> Any:
    """A plain, mutable deep copy of ``value`` (dicts and lists rebuilt, scalars shared)."""
    if isinstance(value, dict):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, list):
        return [thaw(v) for v in value]
    return value
