"""The one YAML loader for every file summem reads (prompts, ``summem.yaml``).

Safe by construction: yaml's ``SafeLoader`` (no Python tags: nothing in a file ever runs), a
size cap on the bytes, UTF-8 only, a key given twice in one mapping refused instead of the last
one silently winning, and a bound on what anchors and aliases expand to, so a small file cannot
make a caller walk billions of nodes (the "billion laughs" alias bomb), no alias inside the
node it names (a structure holding itself, which every walker would follow forever), and no
integer longer than :data:`MAX_INT_DIGITS` digits (``str()`` refuses them; the same bound as
for messages). Every problem is a
:class:`YAMLFileError` that names the line and column; callers wrap it in their own error with
the file's name (``PromptError``, ``ConfigurationError``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

__all__ = [
    "MAX_INT_DIGITS",
    "MAX_YAML_BYTES",
    "MAX_YAML_NODES",
    "YAMLFileError",
    "parse_yaml",
    "read_capped",
]

MAX_YAML_BYTES = 64 * 1024
"""Largest file accepted: prompts and configs are a few KiB; anything bigger is a mistake."""

MAX_YAML_NODES = 100_000
"""Most nodes a document may hold once its aliases are expanded."""

MAX_INT_DIGITS = 640
"""Most digits an integer may be written with (``summem._message_checks`` has the same bound:
the smallest limit Python lets a process set on ``str(int)``)."""


class YAMLFileError(ValueError):
    """A file that is not acceptable YAML; the message says what and where (line, column)."""


def read_capped(path: Path, limit: int = MAX_YAML_BYTES) -> bytes:
    """The file's bytes, reading at most ``limit + 1`` of them.

    Raises:
        YAMLFileError: the file is larger than ``limit`` bytes.
        OSError: it cannot be read.
    """
    with path.open("rb") as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise YAMLFileError(f"larger than {limit} bytes")
    return data


def parse_yaml(data: str | bytes, *, limit: int = MAX_YAML_BYTES) -> Any:
    """Parse one YAML document under the rules above (``None`` for an empty document).

    Raises:
        YAMLFileError: too large, not UTF-8, invalid YAML, a Python tag, a key given twice,
            or aliases expanding past :data:`MAX_YAML_NODES`.
    """
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    if len(raw) > limit:
        raise YAMLFileError(f"larger than {limit} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise YAMLFileError(f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    try:
        loader = _Loader(text)
    except yaml.YAMLError as exc:  # a character YAML does not allow (a form feed, a NEL)
        raise YAMLFileError(f"invalid YAML: {_problem(exc)}") from None
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_expansion(node)
        return loader.construct_document(node)
    except YAMLFileError:
        raise
    except RecursionError:
        raise YAMLFileError("nested too deeply") from None
    except yaml.constructor.ConstructorError as exc:
        raise YAMLFileError(f"{_at(exc)}unsupported YAML tag: {_problem(exc)}") from None
    except yaml.YAMLError as exc:
        raise YAMLFileError(f"{_at(exc)}invalid YAML: {_problem(exc)}") from None
    finally:
        loader.dispose()


class _Loader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses a key given twice in one mapping."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        self.flatten_mapping(node)
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            try:
                duplicate = key in seen
            except TypeError:  # unhashable: the base class reports it
                continue
            if duplicate:
                mark = key_node.start_mark
                raise YAMLFileError(
                    f"line {mark.line + 1}, column {mark.column + 1}: duplicate key {key!r}"
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)

    def construct_bounded_int(self, node: yaml.ScalarNode) -> int:
        """An integer, refused before the conversion when it has too many digits."""
        digits = str(self.construct_scalar(node)).lstrip("+-").replace("_", "")
        if len(digits) > MAX_INT_DIGITS:
            mark = node.start_mark
            raise YAMLFileError(
                f"line {mark.line + 1}, column {mark.column + 1}: an integer of more than "
                f"{MAX_INT_DIGITS} digits"
            )
        value: int = self.construct_yaml_int(node)
        return value


_Loader.add_constructor("tag:yaml.org,2002:int", _Loader.construct_bounded_int)


def _check_expansion(root: yaml.Node) -> None:
    """Refuse a document whose aliases expand past :data:`MAX_YAML_NODES` nodes.

    An alias is the same node object reached twice; its expanded size is counted once per
    reference (memoised per node, so this costs O(distinct nodes)).
    """
    sizes: dict[int, int] = {}
    active: set[int] = set()

    def size(node: yaml.Node) -> int:
        key = id(node)
        known = sizes.get(key)
        if known is not None:
            return known
        if key in active:  # the constructor would build a structure that holds itself
            mark = node.start_mark
            raise YAMLFileError(
                f"line {mark.line + 1}, column {mark.column + 1}: an alias refers to itself "
                "(a structure holding itself)"
            )
        active.add(key)
        total = 1
        if isinstance(node, yaml.SequenceNode):
            total += sum(size(child) for child in node.value)
        elif isinstance(node, yaml.MappingNode):
            total += sum(size(k) + size(v) for k, v in node.value)
        active.discard(key)
        if total > MAX_YAML_NODES:
            mark = node.start_mark
            raise YAMLFileError(
                f"line {mark.line + 1}, column {mark.column + 1}: anchors and aliases expand "
                f"to more than {MAX_YAML_NODES} nodes"
            )
        sizes[key] = total
        return total

    size(root)


def _at(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    return f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""


def _problem(exc: yaml.YAMLError) -> str:
    return str(getattr(exc, "problem", None) or exc).strip()
