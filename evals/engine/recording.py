"""Record every model reply of a live eval to JSONL, and replay the file offline with no key.

A live eval (an LLM summarizer, an answering model, an LLM judge) cannot be rerun for free, nor
at all in CI. So every request goes through a :class:`RecordingClient`, which appends the reply
to a JSONL file under a key: the SHA-256 of the request's model, messages, parameters (secret
values masked) and output cap; never its timeout, which the retry layer changes per attempt.
A :class:`ReplayingClient` serves those replies back by the same key, so the same run with the
same data and settings reproduces byte for byte, offline. A request that was never recorded
(the prompt, the data or a setting changed) fails with :class:`ReplayMissError`, naming the
model and the key, rather than quietly measuring something else.

Final provider errors are recorded too (a context window exceeded makes the summarizer split
its span, so replaying must raise it again); transient errors (429, 5xx) are not: the retry
layer handles them live and the recording keeps the reply that finally came.

Each line is one JSON object: ``{"key", "model", "request", "response"}`` or ``{"key",
"model", "request", "error"}``, plus ``{"meta": {...}}`` lines for what the client reported
(a model's input limit). Recordings of LoCoMo runs contain LoCoMo text (CC BY-NC 4.0): keep
them out of this repository.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import threading
from collections import defaultdict
from pathlib import Path
from typing import Any

from summem import errors
from summem.clients.base import (
    ChatRequest,
    ChatResponse,
    LLMClient,
    OutputCapAware,
    mask_parameters,
)

__all__ = ["RecordingClient", "ReplayMissError", "ReplayingClient", "request_key"]

_ERRORS: dict[str, type[errors.LLMError]] = {
    "LLMError": errors.LLMError,
    "ContextWindowExceededError": errors.ContextWindowExceededError,
}


class ReplayMissError(errors.SummemError, LookupError):
    """The recording has no reply for this request: it was made with other data or settings."""


def _request_body(request: ChatRequest) -> dict[str, Any]:
    return {
        "model": request.model,
        "messages": request.messages,
        "parameters": mask_parameters(request.parameters),
        "max_output_tokens": request.max_output_tokens,
    }


def request_key(request: ChatRequest) -> str:
    """The recording key of ``request``: a hash of everything but its timeout."""
    text = json.dumps(_request_body(request), sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class RecordingClient:
    """Performs calls with ``inner`` and appends each reply to ``path`` (JSONL).

    Args:
        inner: the live client (litellm, openai...).
        path: the recording; appended to, so several runs can share one file.
        store_requests: also store the request's messages (for reading a recording later);
            the key alone is enough to replay.
    """

    def __init__(self, inner: LLMClient, path: str | Path, *, store_requests: bool = True) -> None:
        self.inner = inner
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.store_requests = store_requests
        self._lock = threading.Lock()
        self.calls = 0

    def __repr__(self) -> str:
        return f"RecordingClient({self.inner!r}, path={str(self.path)!r})"

    def _write(self, entry: dict[str, Any]) -> None:
        line = json.dumps(entry, ensure_ascii=False, sort_keys=True, default=str)
        with self._lock, self.path.open("a", encoding="utf-8") as f:
            f.write(line + "\n")

    def _entry(self, request: ChatRequest) -> dict[str, Any]:
        body = _request_body(request)
        if not self.store_requests:
            body = {k: v for k, v in body.items() if k != "messages"}
        return {"key": request_key(request), "model": request.model, "request": body}

    def _record_error(self, request: ChatRequest, exc: errors.LLMError) -> None:
        if isinstance(exc, errors.LLMTransientError):
            return
        kind = type(exc).__name__ if type(exc).__name__ in _ERRORS else "LLMError"
        error = {
            "type": kind,
            "message": str(exc),
            "provider": exc.provider,
            "status_code": exc.status_code,
        }
        self._write({**self._entry(request), "error": error})

    def complete(self, request: ChatRequest) -> ChatResponse:
        """Perform and record ``request``."""
        self.calls += 1
        try:
            response = self.inner.complete(request)
        except errors.LLMError as exc:
            self._record_error(request, exc)
            raise
        self._write({**self._entry(request), "response": dataclasses.asdict(response)})
        return response

    async def acomplete(self, request: ChatRequest) -> ChatResponse:
        """Perform and record ``request``, asynchronously."""
        self.calls += 1
        try:
            response = await self.inner.acomplete(request)
        except errors.LLMError as exc:
            self._record_error(request, exc)
            raise
        self._write({**self._entry(request), "response": dataclasses.asdict(response)})
        return response

    def honours_output_cap(self) -> bool:
        """The inner client's answer (so a compatible server's replies are still cut)."""
        return self.inner.honours_output_cap() if isinstance(self.inner, OutputCapAware) else True

    def max_input_tokens(self, model: str) -> int | None:
        """The inner client's input limit for ``model``, recorded for the replay."""
        limit = self.inner.max_input_tokens(model)
        value = limit if isinstance(limit, int) else None
        self._write({"meta": {"max_input_tokens": {model: value}}})
        return value


class ReplayingClient:
    """Serves the replies of a recording, by request key; never touches the network.

    A request recorded several times gets its replies in recorded order, then the last one
    again (a sweep may send the same request under several settings).

    Raises:
        FileNotFoundError: when the recording does not exist.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._entries: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self._served: dict[str, int] = defaultdict(int)
        self._limits: dict[str, int | None] = {}
        self._lock = threading.Lock()
        self.calls = 0
        with self.path.open(encoding="utf-8") as f:
            for number, line in enumerate(f, start=1):
                if not line.strip():
                    continue
                try:
                    entry = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ValueError(f"{self.path}:{number}: not JSON: {exc}") from exc
                if "meta" in entry:
                    self._limits.update(entry["meta"].get("max_input_tokens") or {})
                elif "key" in entry:
                    self._entries[str(entry["key"])].append(entry)

    def __repr__(self) -> str:
        return f"ReplayingClient(path={str(self.path)!r}, requests={len(self._entries)})"

    def __len__(self) -> int:
        """Distinct requests recorded."""
        return len(self._entries)

    def complete(self, request: ChatRequest) -> ChatResponse:
        """The recorded reply to ``request``.

        Raises:
            ReplayMissError: nothing was recorded for it.
            LLMError: the recorded call failed with this error.
        """
        key = request_key(request)
        with self._lock:
            self.calls += 1
            entries = self._entries.get(key)
            if not entries:
                raise ReplayMissError(
                    f"{self.path} has no reply for this request to {request.model!r} (key "
                    f"{key[:12]}): the data, the prompt or a setting differs from the recording"
                )
            served = self._served[key]
            self._served[key] = served + 1
            entry = entries[min(served, len(entries) - 1)]
        if "error" in entry:
            error = entry["error"]
            cls = _ERRORS.get(str(error.get("type")), errors.LLMError)
            raise cls(
                str(error.get("message", "recorded error")),
                provider=error.get("provider"),
                model=request.model,
                status_code=error.get("status_code"),
            )
        fields = {f.name for f in dataclasses.fields(ChatResponse)}
        return ChatResponse(**{k: v for k, v in entry["response"].items() if k in fields})

    async def acomplete(self, request: ChatRequest) -> ChatResponse:
        """The recorded reply to ``request`` (no I/O, so no awaiting)."""
        return self.complete(request)

    def max_input_tokens(self, model: str) -> int | None:
        """The input limit recorded for ``model`` (``None`` when none was)."""
        return self._limits.get(model)
