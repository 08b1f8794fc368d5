"""A wrapped stream logs no key while it is read, nor a stream manager when it sends its request.

The wrappers drive the SDK after the wrapped call returns: the application reads a stream
(``create(stream=True)``; litellm's ``stream=True``), and a stream manager
(``chat.completions.stream(...)``, ``responses.stream(...)``) sends its request when it is
entered. Every one of those steps runs in the call's log redaction: the real openai SDK at
DEBUG (openai 2.x logs its "Request options" and the URL, httpx its URL at INFO) over a
transport that also logs the request, its ``Authorization`` header and URL included, while the
body is read (as a debugging transport does), and each header it sends (as hpack does), with
the key in ``api_key``, in a gateway's header and in a gateway's query parameter
(``default_query``, or ``with_options``). The redaction is one scope per step: a stream read,
closed or abandoned leaves no filter behind.
"""

from __future__ import annotations

import asyncio
import gc
import io
import json
import logging
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import openai
import pytest

from summem import AsyncMemory, Memory, wrap_completion, wrap_openai
from summem.logs import _CALLS, THIRD_PARTY_LOGGERS
from tests.fakes.logs import every_log_at_debug
from tests.fakes.replies import chunk, sse
from tests.fakes.responses import stream_events, text_item
from tests.fakes.transport import SDK_HTTP, sse_events

KEY = "sk-proj-STREAMSECRETabcdefghijkl0001"
GATEWAY_KEY = "gw-STREAMSECRET-header-zyxw0002"
QUERY_KEY = "STREAMSECRETquerysubscription0003"
OTHER_QUERY_KEY = "STREAMSECRETwithoptionsquery0004"
SECRETS = (KEY, GATEWAY_KEY, QUERY_KEY, OTHER_QUERY_KEY)
GATEWAY = "https://gateway.example/openai/v1"
USER: Any = [{"role": "user", "content": "hello"}]
READING = "receive_response_body"
TRANSPORT_LOG = logging.getLogger(
    f"{'httpcore2' if SDK_HTTP.__name__ == 'httpx2' else 'httpcore'}.http11"
)

HPACK_LOG = logging.getLogger("hpack.hpack")

CHAT = sse([chunk({"role": "assistant", "content": "Hi"}), chunk({}, "stop")])
RESPONSES = sse_events(stream_events([text_item("Hi.")]))


@pytest.fixture
def every_log() -> Iterator[io.StringIO]:
    """A root handler at DEBUG, every logger at DEBUG, as a debugging application has."""
    with every_log_at_debug() as buf:
        yield buf


def _log_reading(request: Any) -> None:
    for name, value in request.headers.items():  # as hpack logs each header it encodes
        HPACK_LOG.debug("Adding %r to the header table", (name.encode(), value.encode()))
    TRANSPORT_LOG.debug(
        "%s request=%s %s authorization=%s x-api-key=%s",
        READING,
        request.method,
        request.url,
        request.headers.get("authorization"),
        request.headers.get("x-api-key"),
    )


def _body(request: Any, body: bytes) -> Iterator[bytes]:
    for line in body.split(b"\n\n"):
        _log_reading(request)  # while the application reads the stream, not at create()
        yield line + b"\n\n"


async def _abody(request: Any, body: bytes) -> AsyncIterator[bytes]:
    for piece in _body(request, body):
        yield piece


def _options() -> dict[str, Any]:
    return {
        "api_key": KEY,
        "base_url": GATEWAY,
        "default_headers": {"x-api-key": GATEWAY_KEY},
        "default_query": {"subscription-key": QUERY_KEY},
        "max_retries": 0,
    }


def _sdk(body: bytes, *, is_async: bool) -> Any:
    http = SDK_HTTP
    headers = {"content-type": "text/event-stream"}
    if is_async:

        async def answer(request: Any) -> Any:
            await request.aread()
            return http.Response(200, content=_abody(request, body), headers=headers)

        client = http.AsyncClient(transport=http.MockTransport(answer))
        return openai.AsyncOpenAI(**_options(), http_client=client)

    def sync_answer(request: Any) -> Any:
        return http.Response(200, content=_body(request, body), headers=headers)

    return openai.OpenAI(
        **_options(), http_client=http.Client(transport=http.MockTransport(sync_answer))
    )


def _clean(buf: io.StringIO) -> None:
    text = buf.getvalue()
    assert READING in text  # the transport did log while the stream was read
    for secret in SECRETS:
        assert secret not in text, [line for line in text.splitlines() if secret in line]
    _no_filter_left()
    marker = f"{KEY}-the-app's-own-line"
    logging.getLogger("openai._base_client").debug("after the stream: %s", marker)
    assert marker in buf.getvalue()  # outside summem's steps the loggers are the app's


def _no_filter_left() -> None:
    assert _CALLS.calls == 0
    for name in (*THIRD_PARTY_LOGGERS, TRANSPORT_LOG.name, "openai._base_client"):
        assert _CALLS not in logging.getLogger(name).filters, name


def _client(memory: Any, body: bytes, *, is_async: bool, with_options: bool) -> Any:
    client = wrap_openai(_sdk(body, is_async=is_async), memory)
    if with_options:
        client = client.with_options(default_query={"subscription-key": OTHER_QUERY_KEY})
    return client


SyncPath = Callable[[Any], list[Any]]


def _chat_create(client: Any) -> list[Any]:
    stream = client.chat.completions.create(model="gpt-4o-mini", messages=USER, stream=True)
    return list(stream)


def _chat_manager(client: Any) -> list[Any]:
    with client.chat.completions.stream(model="gpt-4o-mini", messages=USER) as stream:
        return list(stream)


def _responses_create(client: Any) -> list[Any]:
    stream = client.responses.create(model="gpt-4o-mini", input=USER, stream=True)
    return list(stream)


def _responses_manager(client: Any) -> list[Any]:
    with client.responses.stream(model="gpt-4o-mini", input=USER) as stream:
        events = list(stream)
        stream.get_final_response()
        return events


SYNC_PATHS: dict[str, tuple[SyncPath, bytes]] = {
    "chat-create": (_chat_create, CHAT),
    "chat-stream-manager": (_chat_manager, CHAT),
    "responses-create": (_responses_create, RESPONSES),
    "responses-stream-manager": (_responses_manager, RESPONSES),
}


@pytest.mark.parametrize("with_options", [False, True], ids=["client", "with_options"])
@pytest.mark.parametrize("path", sorted(SYNC_PATHS))
def test_a_sync_stream_logs_no_key(path: str, with_options: bool, every_log: io.StringIO) -> None:
    read, body = SYNC_PATHS[path]
    memory = Memory("s")
    items = read(_client(memory, body, is_async=False, with_options=with_options))
    assert items
    assert [m["role"] for m in memory.messages()] == ["user", "assistant"]
    _clean(every_log)


async def _achat_create(client: Any) -> list[Any]:
    stream = await client.chat.completions.create(model="gpt-4o-mini", messages=USER, stream=True)
    return [item async for item in stream]


async def _achat_manager(client: Any) -> list[Any]:
    async with client.chat.completions.stream(model="gpt-4o-mini", messages=USER) as stream:
        return [item async for item in stream]


async def _aresponses_create(client: Any) -> list[Any]:
    stream = await client.responses.create(model="gpt-4o-mini", input=USER, stream=True)
    return [item async for item in stream]


async def _aresponses_manager(client: Any) -> list[Any]:
    async with client.responses.stream(model="gpt-4o-mini", input=USER) as stream:
        events = [item async for item in stream]
        await stream.get_final_response()
        return events


ASYNC_PATHS: dict[str, tuple[Callable[[Any], Any], bytes]] = {
    "chat-create": (_achat_create, CHAT),
    "chat-stream-manager": (_achat_manager, CHAT),
    "responses-create": (_aresponses_create, RESPONSES),
    "responses-stream-manager": (_aresponses_manager, RESPONSES),
}


@pytest.mark.parametrize("with_options", [False, True], ids=["client", "with_options"])
@pytest.mark.parametrize("path", sorted(ASYNC_PATHS))
def test_an_async_stream_logs_no_key(path: str, with_options: bool, every_log: io.StringIO) -> None:
    read, body = ASYNC_PATHS[path]

    async def main() -> None:
        memory = AsyncMemory("s")
        items = await read(_client(memory, body, is_async=True, with_options=with_options))
        assert items
        assert [m["role"] for m in await memory.messages()] == ["user", "assistant"]

    asyncio.run(main())
    _clean(every_log)


def test_a_stream_abandoned_or_closed_leaves_no_filter(every_log: io.StringIO) -> None:
    """One scope per step: between two reads, and after a stream is dropped, nothing stays."""
    memory = Memory("s")
    client = wrap_openai(_sdk(CHAT, is_async=False), memory)
    stream = client.chat.completions.create(model="gpt-4o-mini", messages=USER, stream=True)
    next(stream)
    _no_filter_left()  # between two reads the application's loggers are its own
    stream.close()  # closed early
    _no_filter_left()
    abandoned = client.chat.completions.create(model="gpt-4o-mini", messages=USER, stream=True)
    next(abandoned)
    abandoned = None  # left unclosed, then collected: no filter stays for it
    gc.collect()
    _no_filter_left()
    manager = client.chat.completions.stream(model="gpt-4o-mini", messages=USER)
    with manager as events:
        next(iter(events))
        _no_filter_left()
    _no_filter_left()
    closed = client.responses.create(model="gpt-4o-mini", input=USER, stream=True)
    closed.close()
    _no_filter_left()
    assert not any(secret in every_log.getvalue() for secret in SECRETS)


def test_an_async_stream_abandoned_leaves_no_filter(every_log: io.StringIO) -> None:
    async def main() -> None:
        memory = AsyncMemory("s")
        client = wrap_openai(_sdk(CHAT, is_async=True), memory)
        stream = await client.chat.completions.create(
            model="gpt-4o-mini", messages=USER, stream=True
        )
        await stream.__anext__()
        _no_filter_left()
        await stream.aclose()  # openai's alias of close(): the same step, in the redaction
        _no_filter_left()
        async with client.chat.completions.stream(model="gpt-4o-mini", messages=USER) as events:
            await events.__anext__()
            _no_filter_left()

    asyncio.run(main())
    _no_filter_left()
    assert not any(secret in every_log.getvalue() for secret in SECRETS)


def _litellm_body(request: Any) -> Any:
    import httpx

    return httpx.Response(
        200, content=_body(request, CHAT), headers={"content-type": "text/event-stream"}
    )


def _alitellm_body(request: Any) -> Any:
    import httpx

    return httpx.Response(
        200, content=_abody(request, CHAT), headers={"content-type": "text/event-stream"}
    )


@pytest.mark.parametrize("driver", ["sync", "async"])
def test_a_litellm_stream_logs_no_key(
    driver: str, every_log: io.StringIO, litellm_httpx: Any
) -> None:
    """``wrap_completion(litellm.completion)`` with ``stream=True``: read after the call."""
    import respx

    from summem.clients.litellm import import_litellm

    litellm = import_litellm()
    for name in ("LiteLLM", "litellm"):
        logging.getLogger(name).setLevel(logging.DEBUG)
    call: dict[str, Any] = {
        "model": "openai/gpt-4o-mini",
        "messages": USER,
        "stream": True,
        "api_key": KEY,
        "api_base": f"{GATEWAY}?subscription-key={QUERY_KEY}",
        "extra_headers": {"x-api-key": GATEWAY_KEY},
    }
    with respx.mock(assert_all_mocked=True) as router:
        if driver == "sync":
            route = router.route(host="gateway.example").mock(side_effect=_litellm_body)
            memory = Memory("s")
            chunks = list(wrap_completion(litellm.completion, memory)(**call))
            roles = [m["role"] for m in memory.messages()]
        else:
            route = router.route(host="gateway.example").mock(side_effect=_alitellm_body)

            async def main() -> tuple[list[Any], list[str]]:
                amemory = AsyncMemory("s")
                stream = await wrap_completion(litellm.acompletion, amemory)(**call)
                got = [c async for c in stream]
                return got, [m["role"] for m in await amemory.messages()]

            chunks, roles = asyncio.run(main())
    assert route.called and chunks
    assert roles == ["user", "assistant"]
    text = every_log.getvalue()
    assert READING in text
    for secret in SECRETS:
        assert secret not in text, [line for line in text.splitlines() if secret in line]
    _no_filter_left()


def test_the_body_logs_carry_the_keys_without_summem() -> None:
    """The witness: read outside summem, the transport's lines do carry the keys."""
    buf = io.StringIO()
    handler = logging.StreamHandler(buf)
    TRANSPORT_LOG.addHandler(handler)
    level = TRANSPORT_LOG.level
    TRANSPORT_LOG.setLevel(logging.DEBUG)
    try:
        sdk = _sdk(CHAT, is_async=False)
        list(sdk.chat.completions.create(model="gpt-4o-mini", messages=USER, stream=True))
    finally:
        TRANSPORT_LOG.removeHandler(handler)
        TRANSPORT_LOG.setLevel(level)
    text = buf.getvalue()
    assert KEY in text and GATEWAY_KEY in text and QUERY_KEY in text
    assert json.dumps(READING).strip('"') in text


class _SDKStream:
    """An SDK stream whose ``close`` logs its request, key included (as a debugging one may)."""

    def __init__(self) -> None:
        self.closed = False

    def __iter__(self) -> Iterator[Any]:
        return iter([chunk({"role": "assistant", "content": "Hi"})])

    def __aiter__(self) -> AsyncIterator[Any]:
        async def items() -> AsyncIterator[Any]:
            yield chunk({"role": "assistant", "content": "Hi"})

        return items()

    def _log_close(self) -> None:
        self.closed = True
        logging.getLogger("openai._base_client").debug(
            "closing %s?subscription-key=%s Authorization: Bearer %s", GATEWAY, QUERY_KEY, KEY
        )


class _SyncSDKStream(_SDKStream):
    def close(self) -> None:
        self._log_close()


class _AsyncSDKStream(_SDKStream):
    async def close(self) -> None:
        self._log_close()


@pytest.mark.parametrize("how", ["close", "with", "aclose", "async-with", "async-close"])
def test_closing_a_stream_drives_the_sdk_in_the_redaction(how: str, every_log: io.StringIO) -> None:
    from summem.wrappers.stream import AsyncRecordingStream, RecordingStream

    if how in ("close", "with"):
        inner: Any = _SyncSDKStream()
        stream = RecordingStream(inner, lambda message, usage: None)
        next(stream)
        if how == "close":
            stream.close()
        else:
            with stream:
                pass
    else:
        inner = _AsyncSDKStream()

        async def main() -> None:
            async def record(message: Any, usage: Any) -> None:
                return None

            stream = AsyncRecordingStream(inner, record)
            await stream.__anext__()
            if how == "aclose":
                await stream.aclose()
            elif how == "async-close":
                await stream.close()
            else:
                async with stream:
                    pass

        asyncio.run(main())
    assert inner.closed
    text = every_log.getvalue()
    assert "closing" in text
    assert KEY not in text and QUERY_KEY not in text, text
    _no_filter_left()
