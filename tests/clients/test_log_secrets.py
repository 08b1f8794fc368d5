"""No request summem makes puts a key in any log, at any level, the third parties' included.

The real clients run at DEBUG with a root handler at DEBUG (every logger, summem's, httpx's,
httpcore's, the openai SDK's and litellm's): the openai SDK over a mocked transport and litellm
over respx, each answering 401 with the key echoed, as a compatible server may. The keys ride
where applications put them: ``api_key``, a gateway's header (``extra_headers`` /
``default_headers``) and a gateway's query parameter (Azure API Management's
``subscription-key``). The application never calls ``install_log_redaction()``, and the
redaction summem applies lasts only as long as its calls: a line logged after them is intact.
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest
import respx

from summem._flow import run_async, run_sync
from summem.clients.openai import OpenAIClient
from summem.messages import Message
from summem.summarizers.base import SummaryRequest
from summem.summarizers.llm import LLMSummarizer
from summem.tokens.base import ApproxCounter
from tests.fakes.logs import every_log_at_debug
from tests.fakes.messages import u
from tests.fakes.transport import SDK_HTTP, Recorder

KEY = "sk-proj-LOGSECRETabcdefghijklmnop0001"
GATEWAY_KEY = "gw-LOGSECRET-header-zyxwvut0002"
QUERY_KEY = "LOGSECRETquerysubscription0003"
SECRETS = (KEY, GATEWAY_KEY, QUERY_KEY)
GATEWAY = "https://gateway.example/openai/v1"


def _echo(secret: str = KEY) -> dict[str, Any]:
    return {
        "error": {
            "message": f"Incorrect API key provided: {secret}. Header x-api-key: {GATEWAY_KEY}",
            "type": "invalid_request_error",
            "code": "invalid_api_key",
        }
    }


@pytest.fixture
def every_log() -> Iterator[io.StringIO]:
    """A root handler at DEBUG, every logger at DEBUG (litellm's too), as a debugging app does."""
    with every_log_at_debug() as buf:
        yield buf


def _debug_everything() -> None:
    from summem.clients.litellm import import_litellm

    import_litellm()  # summem quiets litellm on first use: the app turns it back up after
    for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy", "litellm", "openai", "httpx"):
        logging.getLogger(name).setLevel(logging.DEBUG)


def _request() -> SummaryRequest:
    return SummaryRequest(
        messages=[Message.from_openai(u("We agreed on a refund of 40 pounds for order BW-1."))],
        previous_summary=None,
        max_tokens=100,
        token_counter=ApproxCounter(),
    )


def _assert_clean(buf: io.StringIO, *, marker: str) -> None:
    text = buf.getvalue()
    assert text.count("\n") > 3, text  # the clients did log, at DEBUG
    for secret in SECRETS:
        assert secret not in text, [line for line in text.splitlines() if secret in line]
    # the redaction is scoped to summem's calls: afterwards the loggers are the app's again
    # (httpx's is not a witness: litellm puts its own redaction filter on it, for good)
    logging.getLogger("openai._base_client").debug("after the call: %s", marker)
    assert marker in buf.getvalue()


@pytest.mark.parametrize("driver", ["sync", "async"])
def test_litellm_over_respx_logs_no_key(
    driver: str, every_log: io.StringIO, litellm_httpx: Any
) -> None:
    _debug_everything()
    summarizer = LLMSummarizer(
        "openai/gpt-4o-mini",
        api_key=KEY,
        api_base=f"{GATEWAY}?subscription-key={QUERY_KEY}",
        extra_headers={"x-api-key": GATEWAY_KEY},
    )
    with respx.mock(assert_all_mocked=True) as router:
        route = router.route(host="gateway.example").mock(
            return_value=httpx.Response(401, json=_echo())
        )
        with pytest.raises(Exception) as info:
            if driver == "sync":
                run_sync(summarizer.summarize(_request()))
            else:
                asyncio.run(run_async(summarizer.summarize(_request())))
    assert route.called, repr(info.value)
    assert not any(secret in str(info.value) for secret in SECRETS)
    _assert_clean(every_log, marker=f"{QUERY_KEY}-is-the-app's-own-line")


@pytest.mark.parametrize("driver", ["sync", "async"])
def test_the_openai_sdk_over_a_mocked_transport_logs_no_key(
    driver: str, every_log: io.StringIO
) -> None:
    _debug_everything()
    recorder = Recorder(lambda method, url, body: (401, _echo(), {}))
    http = SDK_HTTP
    options: dict[str, Any] = {
        "api_key": KEY,
        "base_url": GATEWAY,
        "default_headers": {"x-api-key": GATEWAY_KEY},
        "default_query": {"subscription-key": QUERY_KEY},
        "max_retries": 0,
    }
    if driver == "sync":
        transport = http.MockTransport(recorder._answer)
        client = OpenAIClient(
            openai.OpenAI(**options, http_client=http.Client(transport=transport))
        )
    else:

        async def answer(request: Any) -> Any:
            await request.aread()
            return recorder._answer(request)

        transport = http.MockTransport(answer)
        client = OpenAIClient(
            async_client=openai.AsyncOpenAI(
                **options, http_client=http.AsyncClient(transport=transport)
            )
        )
    summarizer = LLMSummarizer(
        "gpt-4o-mini", client=client, extra_headers={"x-api-key": GATEWAY_KEY}
    )
    with pytest.raises(Exception) as info:
        if driver == "sync":
            run_sync(summarizer.summarize(_request()))
        else:
            asyncio.run(run_async(summarizer.summarize(_request())))
    assert recorder.requests, repr(info.value)
    assert not any(secret in str(info.value) for secret in SECRETS)
    _assert_clean(every_log, marker=f"{KEY}-is-the-app's-own-line")


@pytest.mark.parametrize("driver", ["sync", "async"])
def test_a_wrapped_client_s_calls_log_no_key(driver: str, every_log: io.StringIO) -> None:
    """The wrappers make the application's request through its client: no key in logs either."""
    from summem.async_memory import AsyncMemory
    from summem.memory import Memory
    from summem.wrappers import wrap_openai
    from tests.fakes.replies import openai_completion

    _debug_everything()
    recorder = Recorder(lambda method, url, body: (200, openai_completion("Noted."), {}))
    http = SDK_HTTP
    options: dict[str, Any] = {
        "api_key": KEY,
        "base_url": GATEWAY,
        "default_headers": {"x-api-key": GATEWAY_KEY},
        "default_query": {"subscription-key": QUERY_KEY},
        "max_retries": 0,
    }
    user: Any = [{"role": "user", "content": "hello"}]
    if driver == "sync":
        sdk = openai.OpenAI(
            **options, http_client=http.Client(transport=http.MockTransport(recorder._answer))
        )
        wrap_openai(sdk, Memory("w")).chat.completions.create(model="gpt-4o-mini", messages=user)
    else:

        async def answer(request: Any) -> Any:
            await request.aread()
            return recorder._answer(request)

        async def main() -> None:
            transport = http.MockTransport(answer)
            sdk = openai.AsyncOpenAI(**options, http_client=http.AsyncClient(transport=transport))
            client = wrap_openai(sdk, AsyncMemory("w"))
            await client.chat.completions.create(model="gpt-4o-mini", messages=user)

        asyncio.run(main())
    assert recorder.requests
    _assert_clean(every_log, marker=f"{GATEWAY_KEY}-is-the-app's-own-line")
