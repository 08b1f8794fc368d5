"""LiteLLMClient against real litellm (OpenAI and Anthropic paths), intercepted by respx."""

from __future__ import annotations

import httpx
import pytest

from summem.clients.base import ChatRequest, LLMClient
from summem.clients.litellm import LiteLLMClient
from summem.errors import (
    ConfigurationError,
    ContextWindowExceededError,
    LLMAuthenticationError,
    LLMError,
    LLMTransientError,
)
from tests.fakes.providers import SENTINEL_KEY
from tests.fakes.replies import (
    ANTHROPIC_MODEL,
    OPENAI_MODEL,
    anthropic_error,
    anthropic_message,
    openai_completion,
    request_json,
    request_timeout,
)

pytestmark = pytest.mark.usefixtures("litellm_httpx")


def chat(model: str, **kwargs) -> ChatRequest:
    return ChatRequest(model=model, messages=[{"role": "user", "content": "hello"}], **kwargs)


async def call(client: LiteLLMClient, request: ChatRequest, mode: str):
    return client.complete(request) if mode == "sync" else await client.acomplete(request)


async def test_respx_intercepts_litellm_openai_path(mocked_openai_chat, mode):
    mocked_openai_chat.respond(200, json=openai_completion("via litellm"))
    client = LiteLLMClient(api_key=SENTINEL_KEY)
    assert isinstance(client, LLMClient)
    response = await call(client, chat(OPENAI_MODEL, timeout=5.0, max_output_tokens=99), mode)
    assert mocked_openai_chat.call_count == 1
    assert (response.text, response.finish_reason, response.provider) == (
        "via litellm",
        "stop",
        "openai",
    )
    assert (response.input_tokens, response.output_tokens) == (120, 12)
    assert request_json(mocked_openai_chat.calls.last)["max_tokens"] == 99
    assert request_timeout(mocked_openai_chat.calls.last) == 5.0


async def test_respx_intercepts_litellm_anthropic_path(mocked_anthropic_messages, mode):
    mocked_anthropic_messages.respond(200, json=anthropic_message("via anthropic"))
    response = await call(LiteLLMClient(api_key=SENTINEL_KEY), chat(ANTHROPIC_MODEL), mode)
    assert mocked_anthropic_messages.call_count == 1
    sent = mocked_anthropic_messages.calls.last.request
    assert sent.headers["x-api-key"] == SENTINEL_KEY  # litellm built a real Anthropic request
    assert request_json(mocked_anthropic_messages.calls.last)["model"] == "claude-haiku-4-5"
    assert (response.text, response.finish_reason, response.provider) == (
        "via anthropic",
        "stop",
        "anthropic",
    )


@pytest.mark.parametrize("status", [429, 500, 503])
async def test_litellm_retries_are_off(mocked_openai_chat, mode, status):
    mocked_openai_chat.respond(status, json={"error": {"message": "busy"}})
    with pytest.raises(LLMTransientError):
        await call(LiteLLMClient(api_key=SENTINEL_KEY), chat(OPENAI_MODEL), mode)
    assert mocked_openai_chat.call_count == 1


@pytest.mark.parametrize(
    ("status", "body", "headers", "expected", "retry_after"),
    [
        (
            429,
            anthropic_error("rate_limit_error", "slow"),
            {"retry-after": "3"},
            LLMTransientError,
            3.0,
        ),
        (529, anthropic_error("overloaded_error", "Overloaded"), None, LLMTransientError, None),
        (
            400,
            anthropic_error("invalid_request_error", "prompt is too long: 210000 tokens > 200000"),
            None,
            ContextWindowExceededError,
            None,
        ),
        (
            401,
            anthropic_error("authentication_error", "invalid x-api-key"),
            None,
            LLMAuthenticationError,
            None,
        ),
        (404, anthropic_error("not_found_error", "model: nope"), None, LLMError, None),
    ],
)
async def test_anthropic_errors_are_mapped(
    mocked_anthropic_messages, mode, status, body, headers, expected, retry_after
):
    mocked_anthropic_messages.respond(status, json=body, headers=headers)
    with pytest.raises(LLMError) as info:
        await call(LiteLLMClient(api_key=SENTINEL_KEY), chat(ANTHROPIC_MODEL), mode)
    assert type(info.value) is expected
    assert info.value.provider == "anthropic"
    assert getattr(info.value, "retry_after", None) == retry_after
    assert mocked_anthropic_messages.call_count == 1


async def test_timeouts_are_transient(mocked_anthropic_messages, mode):
    mocked_anthropic_messages.side_effect = httpx.ReadTimeout("slow")
    with pytest.raises(LLMTransientError, match="timed out"):
        await call(LiteLLMClient(api_key=SENTINEL_KEY), chat(ANTHROPIC_MODEL), mode)


async def test_anthropic_stop_reasons(mocked_anthropic_messages):
    client = LiteLLMClient(api_key=SENTINEL_KEY)
    mocked_anthropic_messages.respond(200, json=anthropic_message("cut", "max_tokens"))
    assert client.complete(chat(ANTHROPIC_MODEL)).finish_reason == "length"
    mocked_anthropic_messages.respond(200, json=anthropic_message(None, "refusal"))
    refused = client.complete(chat(ANTHROPIC_MODEL))
    assert refused.finish_reason == "content_filter" and refused.text == ""


def test_litellm_retry_settings_are_refused():
    with pytest.raises(ConfigurationError):
        LiteLLMClient(num_retries=3)
    with pytest.raises(ConfigurationError):
        LiteLLMClient(max_retries=2)
    LiteLLMClient(num_retries=0, max_retries=0)


def test_repr_masks_credentials():
    text = repr(LiteLLMClient(api_key=SENTINEL_KEY, api_base="https://proxy.example"))
    assert SENTINEL_KEY not in text
    assert "https://proxy.example" in text


def test_max_input_tokens_from_the_model_map():
    client = LiteLLMClient()
    assert client.max_input_tokens("gpt-4o-mini") == 128000
    assert client.max_input_tokens("no-such-provider/no-such-model") is None


def test_library_use_prints_nothing_and_fails_a_missing_key_at_once(tmp_path) -> None:
    """A fresh process: no banner on stdout/stderr, no retries, an auth error, no download."""
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent(
        """
        import os
        for name in list(os.environ):
            if name.startswith(("OPENAI", "LITELLM")):
                del os.environ[name]
        import socket
        def refuse(*args, **kwargs):
            raise OSError("network access in a test")
        socket.socket.connect = refuse  # the cost map must not be downloaded
        from summem import LLMSummarizer, RetryPolicy
        from summem.errors import LLMAuthenticationError, SummarizationError
        from summem.messages import parse_messages
        from summem.summarizers.base import SummaryRequest
        from summem.tokens import ApproxCounter
        from summem._flow import run_sync
        summarizer = LLMSummarizer("gpt-4o-mini", retry=RetryPolicy(max_attempts=4))
        request = SummaryRequest(
            messages=parse_messages([{"role": "user", "content": "hello there friend"}] * 4),
            previous_summary=None, max_tokens=20, token_counter=ApproxCounter(),
        )
        try:
            run_sync(summarizer.summarize(request))
        except SummarizationError as exc:
            assert isinstance(exc.__cause__, LLMAuthenticationError), repr(exc.__cause__)
            assert "attempts=1" in str(exc), str(exc)
            raise SystemExit(0)
        raise SystemExit(1)
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout == "" and "Give Feedback" not in out.stderr and "LiteLLM" not in out.stderr


# where litellm 1.106-1.108.3 import `mcp` from when `tools=` is passed
_LITELLM_MCP_HANDLERS = (
    "litellm.responses.mcp.chat_completions_handler",
    "litellm.responses.mcp.litellm_proxy_mcp_handler",
)


async def test_tools_need_no_mcp_package(mocked_openai_chat, mode, monkeypatch):
    # litellm 1.106.0-1.108.3 import the optional `mcp` package whenever `tools=` is passed;
    # summem's range starts at 1.108.4 so it need not depend on `mcp`. Here `mcp` is made
    # unimportable (and litellm's MCP modules unloaded): a call with tools must still work.
    import sys

    import litellm

    mcp_modules = ("mcp.", "litellm.proxy._experimental.mcp_server", *_LITELLM_MCP_HANDLERS)
    for name in list(sys.modules):
        if name == "mcp" or name.startswith(mcp_modules):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "mcp", None)  # `import mcp` now raises ImportError
    mocked_openai_chat.respond(200, json=openai_completion("used no tool"))
    kwargs = {
        "model": OPENAI_MODEL,
        "messages": [{"role": "user", "content": "hello"}],
        "tools": [{"type": "function", "function": {"name": "lookup", "parameters": {}}}],
        "api_key": SENTINEL_KEY,
    }
    if mode == "sync":
        reply = litellm.completion(**kwargs)
    else:
        reply = await litellm.acompletion(**kwargs)
    assert reply.choices[0].message.content == "used no tool"
    assert request_json(mocked_openai_chat.calls.last)["tools"][0]["function"]["name"] == "lookup"


@pytest.mark.parametrize("user_value", [False, True])
def test_a_users_own_suppress_debug_info_is_left_alone(
    monkeypatch: pytest.MonkeyPatch, user_value: bool
) -> None:
    import litellm

    from summem.clients.litellm import import_litellm

    monkeypatch.setattr(litellm, "suppress_debug_info", user_value)  # the application's choice
    monkeypatch.setattr(litellm, "_summem_quiet", False, raising=False)  # summem not there yet
    assert import_litellm() is litellm
    assert litellm.suppress_debug_info is user_value


def test_litellm_imported_by_summem_first_gets_its_banners_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import importlib
    import sys
    import types

    from summem.clients.litellm import import_litellm

    fresh = types.SimpleNamespace(suppress_debug_info=False)  # litellm as it is on import
    monkeypatch.delitem(sys.modules, "litellm", raising=False)
    monkeypatch.setattr(importlib, "import_module", lambda name: fresh)
    assert import_litellm() is fresh  # type: ignore[comparison-overlap]
    assert fresh.suppress_debug_info is True


def test_summems_own_lookups_print_no_banner_and_keep_the_users_setting(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import litellm

    monkeypatch.setattr(litellm, "suppress_debug_info", False)
    client = LiteLLMClient()
    assert client._provider("a-model-litellm-cannot-route") is None
    assert client.max_input_tokens("a-model-litellm-cannot-route") is None
    assert capsys.readouterr() == ("", "")  # no "Provider List" banner
    assert litellm.suppress_debug_info is False
