"""The one YAML loader: safe, capped, no duplicate keys, bounded alias expansion."""

from __future__ import annotations

from pathlib import Path

import pytest

from summem._yaml import MAX_YAML_NODES, YAMLFileError, parse_yaml, read_capped


def test_plain_documents_load() -> None:
    assert parse_yaml("a: 1\nb: [x, y]\n") == {"a": 1, "b": ["x", "y"]}
    assert parse_yaml("") is None
    assert parse_yaml("base: &b {k: 1}\nother: *b\n") == {"base": {"k": 1}, "other": {"k": 1}}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a: 1\na: 2\n", "line 2, column 1: duplicate key 'a'"),
        ("a: [1\n", "invalid YAML"),
        ("!!python/object/apply:os.system ['true']\n", "unsupported YAML tag"),
        (b"a: \xff\n", "not UTF-8"),
    ],
)
def test_bad_documents_name_the_problem(text: str | bytes, expected: str) -> None:
    with pytest.raises(YAMLFileError, match=expected):
        parse_yaml(text)


def test_an_alias_bomb_is_refused_quickly() -> None:
    # ~700 bytes that expand to 10**9 nodes when walked
    lines = ['a0: &a0 ["x","x","x","x","x","x","x","x","x","x"]']
    for i in range(1, 9):
        refs = ",".join([f"*a{i - 1}"] * 10)
        lines.append(f"a{i}: &a{i} [{refs}]")
    bomb = "\n".join(lines) + "\n"
    assert len(bomb) < 1000
    with pytest.raises(YAMLFileError, match=f"more than {MAX_YAML_NODES} nodes"):
        parse_yaml(bomb)


def test_deep_nesting_is_an_error_not_a_crash() -> None:
    with pytest.raises(YAMLFileError):
        parse_yaml("[" * 5000 + "]" * 5000)


def test_size_caps(tmp_path: Path) -> None:
    with pytest.raises(YAMLFileError, match="larger than 10 bytes"):
        parse_yaml("a: 12345678901\n", limit=10)
    path = tmp_path / "f.yaml"
    path.write_text("x" * 11)
    with pytest.raises(YAMLFileError, match="larger than 10 bytes"):
        read_capped(path, 10)
    path.write_text("ok")
    assert read_capped(path, 10) == b"ok"
