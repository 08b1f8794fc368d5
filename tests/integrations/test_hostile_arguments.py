"""A framework's messages holding a model's hostile tool arguments give a summem error.

LangChain and pydantic-ai hand summem arguments the model wrote, already parsed: too deep for
``json.dumps`` or holding an integer ``str()`` refuses. Converting them names the problem
(``MessageValidationError``) instead of raising ``RecursionError`` or a bare ``ValueError``.
"""

from __future__ import annotations

from typing import Any

import pytest

from summem.errors import MessageValidationError


def nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = {"a": value}
    return value


@pytest.mark.parametrize(("args", "reason"), [(nested(5000), "deeper"), ({"n": 10**5000}, "640")])
def test_langchain_tool_arguments(args: Any, reason: str) -> None:
    pytest.importorskip("langchain.agents", reason="needs the langchain extra (Python 3.11+)")
    from langchain_core.messages import AIMessage

    from summem.integrations.langchain import from_langchain

    message = AIMessage(content="", tool_calls=[{"id": "c1", "name": "lookup", "args": args}])
    with pytest.raises(MessageValidationError, match=reason) as caught:
        from_langchain(message)
    assert caught.value.field is not None and caught.value.field.startswith("tool_calls[0].args")


def test_pydantic_ai_parts_too_deep_for_json() -> None:
    pytest.importorskip("pydantic_ai", reason="needs the pydantic-ai extra (Python 3.11+)")
    from pydantic_ai.messages import ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart

    from summem.integrations.pydantic_ai import from_pydantic_ai

    call = ToolCallPart(tool_name="lookup", args=nested(5000), tool_call_id="c1")
    with pytest.raises(MessageValidationError, match="ModelResponse cannot be stored as JSON"):
        from_pydantic_ai([ModelResponse(parts=[call])])
    result = ToolReturnPart(tool_name="lookup", content=nested(5000), tool_call_id="c1")
    with pytest.raises(MessageValidationError, match="ModelRequest cannot be stored as JSON"):
        from_pydantic_ai([ModelRequest(parts=[result])])
    huge = ToolCallPart(tool_name="lookup", args={"n": 10**5000}, tool_call_id="c1")
    with pytest.raises(MessageValidationError, match="640"):
        from_pydantic_ai([ModelResponse(parts=[huge])])
