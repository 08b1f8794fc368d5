"""openai clients whose HTTP goes to a handler: the real SDK code runs, nothing leaves.

openai 2.x is built on httpx, openai 3.x on httpx2; both have a ``MockTransport``. The client is
given an ``http_client`` of the right package over a mock transport that answers every request
with ``handler(method, url, json_body) -> (status, body, headers)``. Each request is kept in
:attr:`Recorder.requests` (method, path, JSON body), for asserting what the model was sent.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import openai

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
