"""One respx router for both HTTP stacks: httpx (openai 2.x, litellm) and httpx2 (openai 3.x).

respx's default mocker patches httpcore's connection pools, where every request of an httpx
client ends up, so it intercepts the openai 2.x SDK and litellm (litellm hands the openai SDK
an ``httpx`` client, on openai 3.x too). openai 3.x's own default client is an ``httpx2`` one,
whose pools are httpcore2's; pytest-httpx2 (by respx's author) defines respx's mocker for those,
named ``"httpcore2"``. :func:`route_httpx2_too` adds its targets to respx's default mocker, so
every ``respx.mock(...)``, ``@respx.mock`` and the ``router`` fixture intercepts both stacks and
the real SDK code (request building, response parsing, exception mapping) runs above the
transport either way. Routes, side effects and recorded calls keep httpx's types: respx turns
an httpcore2 request into an ``httpx.Request`` and the ``httpx.Response`` a route returns back
into the pool's response, as pytest-httpx2's own fixture does.

Installed by ``tests/conftest.py`` for the whole session; a no-op where httpx2 is not installed
(openai 2.x without anything that pulls httpx2 in). :data:`SDK_HTTP` is the library the
installed openai SDK is built on, for tests that build the SDK's exceptions themselves.

:class:`Recorder` is the other way to mock: an openai client given an ``http_client`` of the
right package over a ``MockTransport`` that answers with ``handler(method, url, json_body) ->
(status, body, headers)`` and keeps each request, for asserting what the model was sent.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import openai
import pytest_httpx2  # noqa: F401 - defining its mocker registers it with respx
from respx.mocks import HTTPCoreMocker, Mocker

__all__ = [
    "HTTPX2",
    "OPENAI_MAJOR",
    "SDK_HTTP",
    "Recorder",
    "replies",
    "route_httpx2_too",
    "sse_events",
]

HTTPX2 = importlib.util.find_spec("httpcore2") is not None
"""True when httpx2 (and its httpcore2) is installed, as with openai 3.x."""

SDK_HTTP: ModuleType = importlib.import_module(
    "httpx2" if int(openai.__version__.split(".")[0]) >= 3 else "httpx"
)
"""httpx2 under openai 3.x, httpx under 2.x: whose ``Request`` / ``Response`` the SDK takes."""


def route_httpx2_too() -> None:
    """Make respx's default (httpcore) mocker patch httpcore2's pools as well."""
    if HTTPX2:
        HTTPCoreMocker.add_targets(*Mocker.registry["httpcore2"].targets)


OPENAI_MAJOR = int(openai.__version__.split(".")[0])

Reply = tuple[int, Any, dict[str, str]]
Handler = Callable[[str, str, Any], Reply]


def _http() -> Any:
    if OPENAI_MAJOR >= 3:
        import httpx2

        return httpx2
    import httpx

    return httpx


@dataclass
class Recorder:
    """Answers requests with ``handler`` and records them."""

    handler: Handler
    requests: list[tuple[str, str, Any]] = field(default_factory=list)

    def _answer(self, request: Any) -> Any:
        http = _http()
        body = json.loads(request.content) if request.content else None
        self.requests.append((request.method, request.url.path, body))
        status, payload, headers = self.handler(request.method, request.url.path, body)
        content = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        kind = headers.get("content-type", "application/json")
        return http.Response(status, content=content, headers={**headers, "content-type": kind})

    def client(self) -> Any:
        """A sync ``openai.OpenAI`` over this recorder."""
        http = _http()
        transport = http.MockTransport(self._answer)
        return openai.OpenAI(
            api_key="sk-test", max_retries=0, http_client=http.Client(transport=transport)
        )

    def async_client(self) -> Any:
        """An ``openai.AsyncOpenAI`` over this recorder."""
        http = _http()

        async def answer(request: Any) -> Any:
            await request.aread()
            return self._answer(request)

        transport = http.MockTransport(answer)
        return openai.AsyncOpenAI(
            api_key="sk-test", max_retries=0, http_client=http.AsyncClient(transport=transport)
        )


def replies(*bodies: Any) -> Handler:
    """A handler giving ``bodies`` in turn (JSON, or ``bytes`` as an event stream)."""
    queue = list(bodies)

    def handler(method: str, path: str, body: Any) -> Reply:
        payload = queue.pop(0)
        if isinstance(payload, bytes):
            return 200, payload, {"content-type": "text/event-stream"}
        return 200, payload, {}

    return handler


def sse_events(events: list[dict[str, Any]]) -> bytes:
    """Server-sent events, one per dict (its ``type`` as the event name)."""
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)
