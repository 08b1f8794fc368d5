"""Config and prompt files: values summem's other inputs refuse are refused here too, by line."""

from __future__ import annotations

import pytest

from summem._yaml import YAMLFileError, parse_yaml


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("budget:\n  threshold: " + "9" * 5000 + "\n", "line 2, column 14: an integer of more"),
        ("a: -0x" + "f" * 2000 + "\n", "an integer of more"),
        ("a: &x [*x]\n", "refers to itself"),
        ("a: &x {b: *x}\n", "refers to itself"),
        # a character YAML refuses before parsing (a form feed): a reader error
        ("a: 1\x0c\n", "unacceptable character #x000c"),
        ("- name: x\x07\n", "unacceptable character #x0007"),
    ],
)
def test_hostile_yaml_is_a_yaml_file_error(text: str, reason: str) -> None:
    with pytest.raises(YAMLFileError, match=reason):
        parse_yaml(text)


def test_ordinary_integers_and_aliases_still_load() -> None:
    assert parse_yaml("a: 8000\nb: &x [1, 2]\nc: *x\nd: 0x1f\ne: 1_000\n") == {
        "a": 8000,
        "b": [1, 2],
        "c": [1, 2],
        "d": 31,
        "e": 1000,
    }


def test_a_tool_result_yaml_refuses_is_read_as_text() -> None:
    from summem.summarizers.extractive.tables import find_table

    text = "- name: Ana\x0c\n  seat: 4\n- name: Tom\n  seat: 5\n- name: Mei\n  seat: 6\n"
    assert find_table(None, text) is None  # raised yaml's ReaderError out of a reduction
    assert find_table(None, text.replace("\x0c", "")) is not None
