"""The wrappers given the wrong kind of object say what they expected (no raw AttributeError)."""

from __future__ import annotations

from typing import Any

import openai
import pytest

from summem.async_memory import AsyncMemory
from summem.errors import ConfigurationError
from summem.memory import Memory
from summem.wrappers import wrap_completion, wrap_openai


class _NoChat:
    chat = None


@pytest.mark.parametrize("client", [object(), None, "sk-not-a-client", _NoChat()])
def test_wrap_openai_names_the_client_it_expects(client: Any) -> None:
    with pytest.raises(ConfigurationError) as info:
        wrap_openai(client, Memory("s"))
    text = str(info.value)
    assert "openai.OpenAI" in text and "chat.completions.create" in text
    assert type(client).__name__ in text
    assert "sk-not-a-client" not in text  # what was passed is named by type, never shown


@pytest.mark.parametrize("memory", [object(), None, "s", {"session_id": "s"}])
def test_wrap_openai_and_wrap_completion_name_the_memory_they_expect(memory: Any) -> None:
    with pytest.raises(ConfigurationError, match="a summem Memory or AsyncMemory"):
        wrap_openai(openai.OpenAI(api_key="sk-test"), memory)
    with pytest.raises(ConfigurationError, match="a summem Memory or AsyncMemory"):
        wrap_completion(len, memory)


@pytest.mark.parametrize("fn", [object(), None, "litellm.completion"])
def test_wrap_completion_names_the_function_it_expects(fn: Any) -> None:
    with pytest.raises(ConfigurationError, match="a completion function"):
        wrap_completion(fn, Memory("s"))


def test_the_right_objects_are_still_accepted() -> None:
    wrap_openai(openai.OpenAI(api_key="sk-test"), Memory("s"))
    wrap_openai(openai.AsyncOpenAI(api_key="sk-test"), AsyncMemory("s"))
    wrap_completion(len, Memory("s"))
