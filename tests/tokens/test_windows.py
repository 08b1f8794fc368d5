"""Context windows from litellm's bundled model table, read offline, and the hard limit."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

import summem.tokens.windows as windows
from summem.tokens.windows import context_window, default_hard_limit


def test_known_models_with_or_without_their_provider_prefix() -> None:
    assert context_window("gpt-4o") == (128_000, 16_384)
    assert context_window("openai/gpt-4o") == (128_000, 16_384)
    assert context_window("GPT-4o") == (128_000, 16_384)
    assert context_window("no-such-model-anywhere") is None


def test_hard_limit_is_the_window_less_the_reply_reserve() -> None:
    assert default_hard_limit("gpt-4o", 8000) == 128_000 - 16_384
    assert default_hard_limit("no-such-model", 8000) == 16_000
    assert default_hard_limit(None, 8000) == 16_000
    assert default_hard_limit("gpt-4o", 200_000) == 200_000  # never below the threshold


def test_reserve_is_capped_at_a_quarter_of_the_window(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(windows, "_TABLE", {"big-out": (1000, 1000), "no-out": (1000, None)})
    assert default_hard_limit("big-out", 10) == 750
    assert default_hard_limit("no-out", 10) == 750


def test_without_litellm_or_its_file_nothing_is_known(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(windows, "_TABLE", None)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    assert context_window("gpt-4o") is None
    assert default_hard_limit("gpt-4o", 100) == 200

    class Spec:
        origin = str(tmp_path / "__init__.py")

    monkeypatch.setattr(windows, "_TABLE", None)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: Spec())
    assert context_window("gpt-4o") is None  # no file
    (tmp_path / windows._FILE).write_text("{not json", encoding="utf-8")
    monkeypatch.setattr(windows, "_TABLE", None)
    assert context_window("gpt-4o") is None
    table: dict[str, Any] = {
        "good": {"max_input_tokens": 100, "max_output_tokens": 10},
        "no-window": {"max_output_tokens": 10},
        "odd": "not a mapping",
        "bad-reply": {"max_input_tokens": 100, "max_output_tokens": "many"},
    }
    (tmp_path / windows._FILE).write_text(__import__("json").dumps(table), encoding="utf-8")
    monkeypatch.setattr(windows, "_TABLE", None)
    assert context_window("good") == (100, 10)
    assert context_window("no-window") is None and context_window("odd") is None
    assert context_window("bad-reply") == (100, None)
